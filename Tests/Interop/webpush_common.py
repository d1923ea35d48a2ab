"""Shared part of the Web Push real-client tests (Tests/Interop/webpush_<library>.py).

Each script drives one independent Web Push sender library from PyPI against the PushDouble
Web Push fake, configured only with what a user gives it: the subscription JSON (made through
the admin API like a browser makes one), the VAPID key and subject, and the test CA. Driven
by Tests/PushDoubleWebPushTests/WebPushClientMatrixTests.swift; by hand against
`pushdouble serve` (its banner prints the environment lines):

    python3 Tests/Interop/webpush_pywebpush.py --admin $PUSHDOUBLE_ADMIN_URL --ca $PUSHDOUBLE_CA_FILE \
        --vapid-key $VAPID_PRIVATE_KEY_FILE --subject $VAPID_SUBJECT

The decrypted plaintext is read back from `GET /webpush/subscriptions/<id>/messages` (the
browser half of the fake) and compared byte for byte with what was sent.

Prints one JSON line {"library", "version", "failures", "results"}; exit 1 if a check failed,
2 if the library is not installed.
"""
import argparse
import importlib
import importlib.metadata
import json
import sys
import urllib.error
import urllib.request

from pypi_require import require  # noqa: F401  (re-exported for the scripts)

# Plaintexts with non-ASCII characters, so a byte-for-byte comparison means something.
def plaintext(library, case):
    return f"{library} → {case}: «Grüße» ✓"


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--admin", required=True, help="the admin API URL (PUSHDOUBLE_ADMIN_URL)")
    p.add_argument("--ca", required=True, help="the test CA (PUSHDOUBLE_CA_FILE)")
    p.add_argument("--vapid-key", required=True, help="VAPID private key, PKCS#8 PEM (VAPID_PRIVATE_KEY_FILE)")
    p.add_argument("--subject", required=True, help="VAPID sub claim (VAPID_SUBJECT)")
    return p.parse_args()


class Admin:
    """The double's admin API, plain HTTP with the standard library only."""

    def __init__(self, url):
        self.url = url.rstrip("/")

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def subscribe(self, sid, service, application_server_key=None):
        """POST /webpush/subscriptions → the browser's PushSubscription JSON (without our id)."""
        body = {"id": sid, "service": service}
        if application_server_key:
            body["applicationServerKey"] = application_server_key
        status, sub = self.call("POST", "/webpush/subscriptions", body)
        if status != 201:
            raise RuntimeError(f"POST /webpush/subscriptions: {status} {sub}")
        assert sub["id"] == sid, sub
        return {"endpoint": sub["endpoint"], "expirationTime": sub["expirationTime"], "keys": sub["keys"]}

    def kill(self, sid, state="unregistered"):
        """Marks the subscription's device dead (GET then PUT /devices/<id>)."""
        status, device = self.call("GET", f"/devices/{sid}")
        assert status == 200, (status, device)
        device["state"] = state
        status, body = self.call("PUT", f"/devices/{sid}", device)
        assert status == 200, (status, body)

    def messages(self, sid):
        status, body = self.call("GET", f"/webpush/subscriptions/{sid}/messages")
        assert status == 200, (status, body)
        return body


def refused_with(exception, fn):
    """Runs fn, expecting the library's `exception` (with a requests-style .response); returns (status, body text)."""
    try:
        fn()
    except exception as e:
        return e.response.status_code, e.response.text
    raise AssertionError(f"no {exception.__name__}")


def fcm_gone_body(body):
    assert body == "push subscription has unsubscribed or expired.\n", repr(body)


def autopush_gone_body(body):
    j = json.loads(body)
    assert (j["code"], j["errno"], j["message"]) == (410, 106, "No such subscription"), j


# The 410 body each service sends for a dead subscription (docs/webpush.md §6.1, §6.2).
GONE_BODY = {"fcm": fcm_gone_body, "mozilla": autopush_gone_body}


def gone_after_kill(admin, sid, service, refused):
    """Kills subscription `sid`, then `refused()` (a send to it) must give 410 with `service`'s body."""
    admin.kill(sid)
    status, body = refused()
    assert status == 410, (status, body)
    GONE_BODY[service](body)
    return {"status": status, "body": body}


class Checks:
    """Collects named results and failures; prints the result line at the end."""

    def __init__(self, library):
        self.library = library
        self.results = {}
        self.failures = []

    def run(self, name, fn):
        try:
            self.results[name] = fn()
        except Exception as e:  # a check's own assertion or the library's unexpected error
            self.failures.append(f"{name}: {type(e).__name__}: {e}")

    def delivered(self, admin, sid, sent, encoding):
        """The fake's browser half decrypted exactly `sent`."""
        got = admin.messages(sid)
        assert len(got) == 1, f"{len(got)} messages recorded: {got}"
        m = got[0]
        assert m["encoding"] == encoding, m
        payload = m["payload"]
        assert payload.get("base64") is False, f"not decrypted to UTF-8 text: {payload}"
        assert payload["data"].encode() == sent.encode(), f"decrypted {payload['data']!r}, sent {sent!r}"
        return {"decrypted": payload["data"], "ttl": m["ttl"], "urgency": m["urgency"]}

    def finish(self):
        try:
            version = importlib.metadata.version(self.library)
        except importlib.metadata.PackageNotFoundError:
            version = None
        print(json.dumps({"library": self.library, "version": version, "failures": self.failures,
                          "results": self.results}, ensure_ascii=False))
        sys.exit(1 if self.failures else 0)


# docs/webpush.md §6.1b: what FCM answers a /fcm/send/<token> request for a /wp/ subscription.
WP_MOVED = "A valid push subscription endpoint should be specified in the URL as such: https://fcm.googleapis.com/wp/"


def vapid_public_key(pem_path):
    """The base64url uncompressed public key of a VAPID private key file: the
    applicationServerKey a page passes to pushManager.subscribe()."""
    import base64
    from cryptography.hazmat.primitives import serialization
    with open(pem_path, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    raw = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def delivered_to_wp(admin, checks, library, vapid_key_file, post):
    """An FCM subscription made with the VAPID key (applicationServerKey) has the /wp/<token>
    endpoint (docs/webpush.md §6.1b); `post(sub, text)` sends to it with the library, which
    must get 201, and the fake must decrypt the text."""
    sid = f"{library}-fcm-wp"
    sub = admin.subscribe(sid, "fcm", application_server_key=vapid_public_key(vapid_key_file))
    assert "/wp/" in sub["endpoint"], sub["endpoint"]
    sent = plaintext(library, sid)
    r = post(sub, sent)
    assert r.status_code == 201, (r.status_code, r.text)
    return checks.delivered(admin, sid, sent, "aes128gcm")
