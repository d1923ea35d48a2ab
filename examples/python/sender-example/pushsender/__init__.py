"""An example push sender: the backend code that turns "notify this user" into provider
requests and keeps its device table honest (a dead token is deactivated, never used
again). FCM on the standard library; Web Push with the ``cryptography`` package."""

from .fcm import FcmClient, FcmResult
from .service import Device, DeviceStore, Notifier

__all__ = ["FcmClient", "FcmResult", "Device", "DeviceStore", "Notifier"]
