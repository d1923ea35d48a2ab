"""pywebpush (web-push-libs/pywebpush, with http_ece and py_vapid) against the Web Push fake.

`webpush()` (requests, HTTP/1.1) and `webpush_async()` (aiohttp), aes128gcm and legacy aesgcm,
configured only with the subscription JSON, the VAPID key file, the `sub` claim and the CA.
See webpush_common.py for how it is run. Checks, through pywebpush's own API:
  delivered_<service>   201 from each imitated service; the fake decrypted the exact plaintext
  delivered_aesgcm      content_encoding="aesgcm" (legacy) decrypted too
  async_aes128gcm / async_aesgcm   the same through webpush_async
  gone_fcm / gone_mozilla          a killed subscription → WebPushException, 410, the service's body
  async_gone            the same through webpush_async
  too_large             a 4000-byte payload to an FCM subscription → WebPushException 413
  vapid_mozilla / vapid_apple      a subscription restricted to another key → 401 errno 109 /
                                   403 {"reason":"BadJwtToken"}
  delivered_fcm_wp      an FCM subscription made with the VAPID key has the /wp/<token> endpoint
                        (docs/webpush.md §6.1b) and is delivered
  fcm_send_to_wp        the same token under /fcm/send/ → 404 with FCM's text naming /wp/<token>
"""
import asyncio
import json
import os
import ssl

from webpush_common import (WP_MOVED, Admin, Checks, delivered_to_wp, gone_after_kill, parse_args, plaintext, refused_with, require,
                            vapid_public_key)

LIBRARY = "pywebpush"
pywebpush = require(LIBRARY, "pywebpush")
import aiohttp  # noqa: E402  (a pywebpush dependency)
import requests  # noqa: E402  (a pywebpush dependency)
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat  # noqa: E402
import base64  # noqa: E402

args = parse_args()
admin = Admin(args.admin)
checks = Checks(LIBRARY)
# requests lets REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE from the environment override Session.verify;
# the double's sender environment sets REQUESTS_CA_BUNDLE to its CA (docs/conformance.md "Driver protocol v1"), so do the same.
os.environ["REQUESTS_CA_BUNDLE"] = args.ca
os.environ.pop("CURL_CA_BUNDLE", None)
session = requests.Session()
session.verify = args.ca


def claims():
    # pywebpush fills in aud (scheme://netloc of the endpoint) and exp (now + 12 h) itself,
    # and writes them into the dict it is given: a fresh one per call.
    return {"sub": args.subject}


def send(sub, data, **kw):
    return pywebpush.webpush(sub, data=data, vapid_private_key=args.vapid_key, vapid_claims=claims(),
                             requests_session=session, ttl=60, **kw)


def refused(fn):
    """Runs fn, expecting pywebpush's WebPushException; returns (status, body text)."""
    return refused_with(pywebpush.WebPushException, fn)


def delivered(service, encoding="aes128gcm"):
    sid = f"pywebpush-{service}-{encoding}"
    sub = admin.subscribe(sid, service)
    sent = plaintext(LIBRARY, sid)
    r = send(sub, sent, content_encoding=encoding)
    assert r.status_code == 201, (r.status_code, r.text)
    return checks.delivered(admin, sid, sent, encoding)


for service in ["mozilla", "fcm", "apple", "wns"]:
    checks.run(f"delivered_{service}", lambda s=service: delivered(s))
checks.run("delivered_aesgcm", lambda: delivered("mozilla", "aesgcm"))


def fcm_send_to_wp():
    sub = admin.subscribe("pywebpush-fcm-wp-old", "fcm", application_server_key=vapid_public_key(args.vapid_key))
    token = sub["endpoint"].rsplit("/wp/", 1)[1]
    old = dict(sub, endpoint=sub["endpoint"].replace("/wp/", "/fcm/send/"))
    status, body = refused(lambda: send(old, "to the old shape"))
    assert (status, body) == (404, WP_MOVED + token), (status, body)
    return {"status": status}


checks.run("delivered_fcm_wp", lambda: delivered_to_wp(admin, checks, LIBRARY, args.vapid_key, send))
checks.run("fcm_send_to_wp", fcm_send_to_wp)


def gone(service):
    sid = f"pywebpush-gone-{service}"
    sub = admin.subscribe(sid, service)
    return gone_after_kill(admin, sid, service, lambda: refused(lambda: send(sub, "never delivered")))


checks.run("gone_fcm", lambda: gone("fcm"))
checks.run("gone_mozilla", lambda: gone("mozilla"))


def too_large():
    sid = "pywebpush-too-large"
    sub = admin.subscribe(sid, "fcm")
    status, body = refused(lambda: send(sub, "x" * 4000))
    assert status == 413, (status, body)
    assert admin.messages(sid) == []
    return {"status": status}


checks.run("too_large", too_large)


def other_key():
    k = ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(k).rstrip(b"=").decode()


def bad_vapid(service, status_expected, check_body):
    sid = f"pywebpush-vapid-{service}"
    sub = admin.subscribe(sid, service, application_server_key=other_key())
    status, body = refused(lambda: send(sub, "signed with the wrong key"))
    assert status == status_expected, (status, body)
    check_body(body)
    return {"status": status, "body": body}


def autopush_mismatch(body):
    j = json.loads(body)
    assert (j["code"], j["errno"], j["message"]) == (401, 109, "VAPID public key mismatch"), j


def apple_bad_jwt(body):
    assert body == '{"reason":"BadJwtToken"}', body


def fcm_mismatch(body):
    # docs/webpush.md §6.1a: FCM's current text, 403.
    assert body == ("the VAPID credentials in the authorization header do not correspond to the credentials "
                    "used to create the subscriptions.\n"), body


checks.run("vapid_fcm", lambda: bad_vapid("fcm", 403, fcm_mismatch))
checks.run("vapid_mozilla", lambda: bad_vapid("mozilla", 401, autopush_mismatch))
checks.run("vapid_apple", lambda: bad_vapid("apple", 403, apple_bad_jwt))


async def async_cases():
    context = ssl.create_default_context(cafile=args.ca)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=context)) as s:
        async def send_async(sub, data, encoding="aes128gcm"):
            return await pywebpush.webpush_async(sub, data=data, vapid_private_key=args.vapid_key, vapid_claims=claims(),
                                                 aiohttp_session=s, ttl=30, content_encoding=encoding)

        for encoding in ["aes128gcm", "aesgcm"]:
            async def one(encoding=encoding):
                sid = f"pywebpush-async-{encoding}"
                sub = admin.subscribe(sid, "fcm")
                sent = plaintext(LIBRARY + " async", sid)
                r = await send_async(sub, sent, encoding)
                assert r.status == 201, r.status
                return checks.delivered(admin, sid, sent, encoding)
            try:
                checks.results[f"async_{encoding}"] = await one()
            except Exception as e:
                checks.failures.append(f"async_{encoding}: {type(e).__name__}: {e}")

        try:
            sid = "pywebpush-async-gone"
            sub = admin.subscribe(sid, "fcm")
            admin.kill(sid, "expired")
            try:
                await send_async(sub, "never delivered")
                raise AssertionError("no WebPushException")
            except pywebpush.WebPushException as e:
                assert e.response.status == 410, e.response.status
                checks.results["async_gone"] = {"status": e.response.status}
        except Exception as e:
            checks.failures.append(f"async_gone: {type(e).__name__}: {e}")


asyncio.run(async_cases())
checks.finish()
