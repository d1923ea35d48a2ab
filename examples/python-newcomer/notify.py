"""A small push sender, written as an application writes one: Expo through httpx, FCM through
firebase-admin. It knows nothing of PushDouble. It talks to the real host names
(exp.host, oauth2.googleapis.com, fcm.googleapis.com); in the tests the sender environment
(HTTPS_PROXY, the CA variables, GOOGLE_APPLICATION_CREDENTIALS) routes them to the double."""

import os

import firebase_admin
import httpx
from firebase_admin import credentials, messaging

EXPO_SEND_URL = "https://exp.host/--/api/v2/push/send"


def send_expo(tokens, title, body):
    """Sends one message per token; returns the tokens Expo answered DeviceNotRegistered for
    (the application stops sending to them)."""
    messages = [{"to": t, "title": title, "body": body} for t in tokens]
    headers = {"accept": "application/json"}
    if os.environ.get("EXPO_ACCESS_TOKEN"):  # enhanced push security
        headers["authorization"] = "Bearer " + os.environ["EXPO_ACCESS_TOKEN"]
    with httpx.Client(timeout=10) as client:  # trust_env: HTTPS_PROXY, NO_PROXY, SSL_CERT_FILE
        response = client.post(EXPO_SEND_URL, json=messages, headers=headers)
    response.raise_for_status()
    tickets = response.json()["data"]
    return [t for t, ticket in zip(tokens, tickets)
            if ticket.get("status") == "error" and (ticket.get("details") or {}).get("error") == "DeviceNotRegistered"]


def _firebase_app():
    """The default firebase app, from GOOGLE_APPLICATION_CREDENTIALS (made once per process)."""
    try:
        return firebase_admin.get_app()
    except ValueError:
        return firebase_admin.initialize_app(credentials.Certificate(os.environ["GOOGLE_APPLICATION_CREDENTIALS"]))


def send_fcm(token, title, body):
    """Sends one notification; returns FCM's message name, or None when the token is dead
    (UNREGISTERED: the application forgets it). firebase-admin retries 500/503 itself."""
    message = messaging.Message(token=token, notification=messaging.Notification(title=title, body=body))
    try:
        return messaging.send(message, app=_firebase_app())
    except messaging.UnregisteredError:
        return None
