"""One push per provider against a running double, for the browser tests (Tests/Browser/).

Everything comes from the double's sender environment (SenderKit, `pushdouble serve`'s banner):
PUSHDOUBLE_ADMIN_URL, PUSHDOUBLE_CA_FILE, APNS_URL/APNS_KEY_FILE/APNS_KEY_ID/APNS_TEAM_ID/APNS_TOPIC,
FCM_URL/FCM_PROJECT_ID/FCM_SERVICE_ACCOUNT_FILE, EXPO_URL (EXPO_ACCESS_TOKEN when required),
VAPID_PRIVATE_KEY_FILE/VAPID_SUBJECT. The provider code paths are the interop scripts' own:
the APNs JWT is Tests/Interop/apns_interop.py's `make_jwt` (PyJWT ES256, docs/apns.md §5), FCM goes
through google-auth's service-account flow against the shipped token endpoint (as
Tests/Interop/fcm_google_auth.py), Web Push subscribes through the admin API like a browser
(Tests/Interop/webpush_common.py's `Admin.subscribe`) and encrypts with pywebpush.
"""
import json
import os
import sys
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Interop"))

import httpx  # noqa: E402
import loopback  # noqa: E402
from apns_interop import make_jwt  # noqa: E402
from webpush_common import Admin as WebPushAdmin  # noqa: E402

loopback.drop_proxies()

FCM_SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
EXPO_SEND_PATH = "/--/api/v2/push/send"  # ExpoService.sendPath
EXPO_RECEIPTS_PATH = "/--/api/v2/push/getReceipts"  # ExpoService.receiptsPath


class Kit:
    """The sender environment of one running double."""

    def __init__(self, env=None):
        e = env if env is not None else os.environ
        self.admin = e["PUSHDOUBLE_ADMIN_URL"].rstrip("/")
        self.ca = e["PUSHDOUBLE_CA_FILE"]
        self.apns_url = e["APNS_URL"].rstrip("/")
        self.apns_key_file = e["APNS_KEY_FILE"]
        self.apns_key_id = e["APNS_KEY_ID"]
        self.apns_team_id = e["APNS_TEAM_ID"]
        self.apns_topic = e["APNS_TOPIC"]
        self.apns_manage_url = e.get("APNS_MANAGE_URL")
        self.fcm_url = e["FCM_URL"].rstrip("/")
        self.fcm_project = e["FCM_PROJECT_ID"]
        self.fcm_service_account = e["FCM_SERVICE_ACCOUNT_FILE"]
        self.expo_url = e["EXPO_URL"].rstrip("/")
        self.expo_access_token = e.get("EXPO_ACCESS_TOKEN")
        self.vapid_key_file = e["VAPID_PRIVATE_KEY_FILE"]
        self.vapid_subject = e["VAPID_SUBJECT"]


def admin_call(admin_url, method, path, body=None):
    """(status, JSON body) of one admin API call."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(admin_url.rstrip("/") + path, data=data, method=method,
                                 headers={"content-type": "application/json", "accept": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def send_apns(kit, token, title, body, background=False):
    """POST /3/device/<token> over HTTP/2 with a fresh provider JWT; returns (status, reason, jwt).
    background: a silent push instead (push type background, priority 5, content-available 1
    and no alert, badge or sound: docs/apns.md sections 3 and 9)."""
    payload = ({"aps": {"content-available": 1}, "sync": body} if background else
               {"aps": {"alert": {"title": title, "body": body}, "sound": "default", "badge": 1}})
    return send_apns_payload(kit, token, payload, "background" if background else "alert", 5 if background else 10)


def send_apns_payload(kit, token, payload, push_type, priority, topic=None):
    """POST /3/device/<token> with `payload` (JSON) and the given push type and priority (topic:
    the app's bundle id unless given); returns (status, reason, jwt)."""
    key = open(kit.apns_key_file).read()
    token_jwt = make_jwt(key, kit.apns_key_id, kit.apns_team_id)
    headers = {"authorization": f"bearer {token_jwt}", "apns-topic": topic or kit.apns_topic,
               "apns-push-type": push_type, "apns-priority": str(priority)}
    with httpx.Client(http2=True, verify=kit.ca, timeout=10) as c:
        r = c.post(f"{kit.apns_url}/3/device/{token}", json=payload, headers=headers)
    assert r.http_version == "HTTP/2", r.http_version
    reason = r.json().get("reason") if r.content else None
    return r.status_code, reason, token_jwt


def send_broadcast(kit, channel_id, payload):
    """POST /4/broadcasts/apps/<topic> (a Live Activity broadcast on a channel, docs/apns.md
    "Broadcast push") over HTTP/2 with a fresh provider JWT; returns (status, reason)."""
    token_jwt = make_jwt(open(kit.apns_key_file).read(), kit.apns_key_id, kit.apns_team_id)
    headers = {"authorization": f"bearer {token_jwt}", "apns-channel-id": channel_id, "apns-push-type": "liveactivity",
               "apns-priority": "10", "apns-expiration": "0"}
    with httpx.Client(http2=True, verify=kit.ca, timeout=10) as c:
        r = c.post(f"{kit.apns_url}/4/broadcasts/apps/{kit.apns_topic}", json=payload, headers=headers)
    assert r.http_version == "HTTP/2", r.http_version
    return r.status_code, (r.json().get("reason") if r.content else None)


def create_channel(kit, manage_url):
    """A broadcast channel (no message storage) for the app on the channel-management listener;
    returns its apns-channel-id."""
    jwt = make_jwt(open(kit.apns_key_file).read(), kit.apns_key_id, kit.apns_team_id)
    with httpx.Client(http2=True, verify=kit.ca, timeout=10) as c:
        r = c.post(f"{manage_url}/1/apps/{kit.apns_topic}/channels", json={"message-storage-policy": 0, "push-type": "LiveActivity"},
                   headers={"authorization": f"bearer {jwt}"})
    assert r.status_code == 201, (r.status_code, r.text)
    return r.headers["apns-channel-id"]


def broadcast(kit, channel, payload):
    """A Live Activity broadcast on `channel`; returns its status."""
    return send_broadcast(kit, channel, payload)[0]


def send_fcm(kit, token, title, body, headers=False):
    """messages:send with an OAuth2 token from the fake's token endpoint; returns (status, JSON),
    or (status, JSON, response headers) with headers=True."""
    return send_fcm_message(kit, {"token": token, "notification": {"title": title, "body": body}}, headers=headers)


def send_fcm_message(kit, message, headers=False):
    """messages:send of `message` (the v1 `message` object); returns (status, JSON), or (status,
    JSON, response headers) with headers=True."""
    import google.auth.transport.requests
    from google.oauth2 import service_account
    os.environ["REQUESTS_CA_BUNDLE"] = kit.ca
    creds = service_account.Credentials.from_service_account_file(kit.fcm_service_account, scopes=[FCM_SCOPE])
    session = google.auth.transport.requests.AuthorizedSession(creds)
    session.verify = kit.ca
    r = session.post(f"{kit.fcm_url}/v1/projects/{kit.fcm_project}/messages:send",
                     json={"message": message})
    return (r.status_code, r.json(), r.headers) if headers else (r.status_code, r.json())


def send_expo(kit, token, title, body):
    """One Expo push message; returns (status, JSON)."""
    return expo_post(kit, EXPO_SEND_PATH, [{"to": token, "title": title, "body": body}])


def get_expo_receipts(kit, ids):
    """POST getReceipts for the ticket ids; returns (status, JSON)."""
    return expo_post(kit, EXPO_RECEIPTS_PATH, {"ids": ids})


def expo_post(kit, path, body):
    """POST of JSON `body` to the Expo service's `path` (with the access token when one is required)."""
    headers = {"accept": "application/json"}
    if kit.expo_access_token:
        headers["authorization"] = f"Bearer {kit.expo_access_token}"
    with httpx.Client(verify=kit.ca, timeout=10) as c:
        r = c.post(kit.expo_url + path, json=body, headers=headers)
    return r.status_code, r.json()


def subscribe_webpush(kit, sid, service="mozilla"):
    """A browser-made subscription (POST /webpush/subscriptions): the PushSubscription JSON."""
    return WebPushAdmin(kit.admin).subscribe(sid, service)


def with_foreign_key(subscription):
    """The subscription with its p256dh replaced by a fresh key's: the service takes what is
    encrypted to it, the subscriber cannot decrypt it (the content key comes from an ECDH with
    the subscriber's key pair: RFC 8291, docs/webpush.md section 2)."""
    import base64
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    point = ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    keys = dict(subscription["keys"], p256dh=base64.urlsafe_b64encode(point).rstrip(b"=").decode())
    return dict(subscription, keys=keys)


def send_webpush(kit, subscription, title, body, text=None):
    """pywebpush aes128gcm with the shipped VAPID key; the plaintext is a JSON {title, body}
    (or `text` as given)."""
    import pywebpush
    import requests
    os.environ["REQUESTS_CA_BUNDLE"] = kit.ca
    os.environ.pop("CURL_CA_BUNDLE", None)
    session = requests.Session()
    session.verify = kit.ca
    data = text if text is not None else json.dumps({"title": title, "body": body}, ensure_ascii=False)
    r = pywebpush.webpush(subscription, data=data, vapid_private_key=kit.vapid_key_file,
                          vapid_claims={"sub": kit.vapid_subject}, requests_session=session, ttl=60)
    return r.status_code, r.text


def history(admin_url):
    """Every recorded exchange (GET /history, one page: the tests send a handful)."""
    status, doc = admin_call(admin_url, "GET", "/history")
    assert status == 200, (status, doc)
    return doc["exchanges"]


def wait_for(pred, timeout=10, step=0.1):
    """Polls pred() until it returns a true value (returned) or the timeout passes (None)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(step)
    return None
