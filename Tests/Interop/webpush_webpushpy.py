"""The `webpush` PyPI package (delvinru/webpush-py) against the Web Push fake.

An implementation independent of pywebpush: its own RFC 8291 encryption (cryptography's HKDF
and AESGCM) and its own VAPID (PyJWT). It builds the message (`WebPush.get` → encrypted body +
headers) and leaves the sending to the caller; this script posts it with httpx over HTTP/2
(ALPN h2), verifying with the test CA. See webpush_common.py for how it is run. Checks:
  aud_without_port  the library signs aud = scheme://host (no port, `VAPID.get_authorization_header`):
                    the fake, reached on a non-default port, refuses it as autopush does
                    (401 errno 109 "Invalid VAPID audience"; docs/webpush.md §5: aud is the origin
                    scheme://host[:port])
  delivered_<service>  with aud patched to the endpoint's origin (the one patch, below): 201 from
                    each imitated service, over HTTP/2; the fake decrypted the exact plaintext
  gone              a killed subscription → 410 (httpx.HTTPStatusError from raise_for_status)
  vapid_apple       a subscription restricted to another key → 403 {"reason":"BadJwtToken"}
"""
import base64
import types
from pathlib import Path

from webpush_common import Admin, Checks, delivered_to_wp, parse_args, plaintext, require

LIBRARY = "webpush"
webpush = require(LIBRARY, "webpush")
import webpush.vapid  # noqa: E402
import httpx  # noqa: E402
from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402

args = parse_args()
admin = Admin(args.admin)
checks = Checks(LIBRARY)

# The library wants both halves of the VAPID key as PEM files; the public one is derived here.
private_pem = Path(args.vapid_key).read_bytes()
public_pem = serialization.load_pem_private_key(private_pem, None).public_key().public_bytes(
    serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
subscriber = args.subject.removeprefix("mailto:")  # the library adds "mailto:" itself
wp = webpush.WebPush(private_key=private_pem, public_key=public_pem, subscriber=subscriber, ttl=45)
client = httpx.Client(http2=True, verify=args.ca)

original_header = webpush.vapid.VAPID.get_authorization_header


def origin_aud(self, endpoint, subscriber, expiration):
    """The one patch: aud = scheme://host:port, the endpoint's origin (the library drops the port)."""
    with_port = types.SimpleNamespace(scheme=endpoint.scheme, host=f"{endpoint.host}:{endpoint.port}")
    return original_header(self, with_port, subscriber, expiration)


def post(sub, data):
    message = wp.get(data, webpush.WebPushSubscription(**sub))
    r = client.post(sub["endpoint"], content=message.encrypted, headers=dict(message.headers))
    assert r.http_version == "HTTP/2", r.http_version
    return r


def aud_without_port():
    sid = "webpushpy-aud"
    sub = admin.subscribe(sid, "mozilla")
    r = post(sub, "signed for the wrong audience")
    assert r.status_code == 401, (r.status_code, r.text)
    j = r.json()
    assert (j["errno"], j["message"]) == (109, "Invalid VAPID audience"), j
    return {"status": r.status_code, "message": j["message"]}


checks.run("aud_without_port", aud_without_port)
webpush.vapid.VAPID.get_authorization_header = origin_aud


def delivered(service):
    sid = f"webpushpy-{service}"
    sub = admin.subscribe(sid, service)
    sent = plaintext(LIBRARY, sid)
    r = post(sub, sent)
    r.raise_for_status()
    assert r.status_code == 201, r.status_code
    return checks.delivered(admin, sid, sent, "aes128gcm")


for service in ["mozilla", "fcm", "apple", "wns"]:
    checks.run(f"delivered_{service}", lambda s=service: delivered(s))


def http_error(fn):
    try:
        fn().raise_for_status()
    except httpx.HTTPStatusError as e:
        return e.response.status_code, e.response.text
    raise AssertionError("no HTTPStatusError")


def gone():
    sid = "webpushpy-gone"
    sub = admin.subscribe(sid, "fcm")
    admin.kill(sid)
    status, body = http_error(lambda: post(sub, "never delivered"))
    assert (status, body) == (410, "push subscription has unsubscribed or expired.\n"), (status, body)
    return {"status": status}


def vapid_apple():
    k = ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    sid = "webpushpy-vapid-apple"
    sub = admin.subscribe(sid, "apple", application_server_key=base64.urlsafe_b64encode(k).rstrip(b"=").decode())
    status, body = http_error(lambda: post(sub, "signed with the wrong key"))
    assert (status, body) == (403, '{"reason":"BadJwtToken"}'), (status, body)
    return {"status": status, "body": body}


checks.run("delivered_fcm_wp", lambda: delivered_to_wp(admin, checks, LIBRARY, args.vapid_key, post))
checks.run("gone", gone)
checks.run("vapid_apple", vapid_apple)
client.close()
checks.finish()
