"""The application side: a device table and a notifier that uses the provider clients."""

import json
import logging

log = logging.getLogger("pushsender")


class Device:
    def __init__(self, id, provider, token=None, subscription=None, active=True):
        self.id, self.provider, self.token, self.subscription, self.active = id, provider, token, subscription, active

    def __repr__(self):
        return "Device(%r, %r, active=%r)" % (self.id, self.provider, self.active)


class DeviceStore:
    """In memory here; a database table in a real backend."""

    def __init__(self):
        self._devices = {}

    def add(self, device):
        self._devices[device.id] = device
        return device

    def get(self, device_id):
        return self._devices[device_id]

    def deactivate(self, device_id, why):
        d = self._devices[device_id]
        if d.active:
            log.info("deactivating %s: %s", device_id, why)
        d.active = False

    def active(self):
        return [d for d in self._devices.values() if d.active]


class Notifier:
    """``notify(device_id, title, body)`` → ``"sent"``, ``"dead"``, ``"skipped"``,
    ``"rejected"`` or ``"failed"``."""

    def __init__(self, store, fcm=None, webpush=None):
        self.store, self.fcm, self.webpush = store, fcm, webpush

    def notify(self, device_id, title, body, data=None):
        device = self.store.get(device_id)
        if not device.active:
            return "skipped"
        if device.provider == "fcm":
            message = {"token": device.token, "notification": {"title": title, "body": body}}
            if data:
                message["data"] = {k: str(v) for k, v in data.items()}
            result = self.fcm.send(message)
            if result.outcome == "dead":
                self.store.deactivate(device.id, result.error or result.status)
            return result.outcome
        if device.provider == "webpush":
            status = self.webpush.send(device.subscription, json.dumps({"title": title, "body": body, "data": data or {}}))
            if status in (404, 410):
                self.store.deactivate(device.id, "HTTP %d" % status)
                return "dead"
            return "sent" if 200 <= status < 300 else "failed"
        raise ValueError("no client for provider %r" % device.provider)
