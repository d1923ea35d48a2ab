"""pywebpush, UNMODIFIED, sending to production-shaped endpoints through the CONNECT proxy.

The subscriptions are made through the admin API with `"endpointOrigin": "production"`, so the
browser side hands out what a real browser would (https://updates.push.services.mozilla.com/wpush/v2/…,
https://fcm.googleapis.com/fcm/send/…, https://web.push.apple.com/…, https://<x>.notify.windows.com/w/?token=…;
docs/webpush.md §6.1–§6.4). pywebpush is called without a session: it posts with `requests`, which reads
HTTPS_PROXY (the double's proxy) and REQUESTS_CA_BUNDLE (the test CA) from the environment; nothing
else is configured. pywebpush derives the VAPID `aud` from the endpoint (docs/webpush.md §7.2), so it is
the real origin, which is what the fake requires when reached by the real name. Driven by
Tests/PushDoubleWebPushTests/WebPushProxyTests.swift with only HTTPS_PROXY, REQUESTS_CA_BUNDLE and
NO_PROXY (loopback, for the admin API) set.

Checks:
  endpoint_<service>    the endpoint has the production shape
  delivered_<service>   201 through the proxy; the fake decrypted the exact plaintext
  gone_fcm              a killed FCM subscription → WebPushException 410 + FCM's 47-byte body
  gone_mozilla          a killed autopush subscription → WebPushException 410 errno 106
  local_aud_refused     the local origin as `aud` while reaching the real host → 401 errno 109
                        "Invalid VAPID audience"
"""
import argparse
import json
import os
import sys

from webpush_common import Admin, Checks, gone_after_kill, plaintext, refused_with, require

LIBRARY = "pywebpush"
pywebpush = require(LIBRARY, "pywebpush")

p = argparse.ArgumentParser()
p.add_argument("--admin", required=True)
p.add_argument("--vapid-key", required=True, help="VAPID private key, PKCS#8 PEM (VAPID_PRIVATE_KEY_FILE)")
p.add_argument("--vapid-public", required=True, help="VAPID public key, base64url (VAPID_PUBLIC_KEY)")
p.add_argument("--subject", required=True)
p.add_argument("--wns-origin", default="https://db5p.notify.windows.com", help="a WNS origin (one label under *.notify.windows.com)")
args = p.parse_args()
if not os.environ.get("HTTPS_PROXY") or not os.environ.get("REQUESTS_CA_BUNDLE"):
    sys.exit("set HTTPS_PROXY and REQUESTS_CA_BUNDLE: this script configures nothing itself")

admin = Admin(args.admin)
checks = Checks(LIBRARY)

SHAPES = {  # docs/webpush.md §6: the endpoint prefix a production subscription has
    "mozilla": "https://updates.push.services.mozilla.com/wpush/v2/",  # restricted (applicationServerKey) → v2
    "fcm": "https://fcm.googleapis.com/fcm/send/",
    "apple": "https://web.push.apple.com/",
    "wns": args.wns_origin + "/w/?token=",
}


def subscribe(sid, service):
    body = {"id": sid, "service": service, "endpointOrigin": args.wns_origin if service == "wns" else "production"}
    if service == "mozilla":
        body["applicationServerKey"] = args.vapid_public
    status, sub = admin.call("POST", "/webpush/subscriptions", body)
    assert status == 201, (status, sub)
    return {"endpoint": sub["endpoint"], "expirationTime": sub["expirationTime"], "keys": sub["keys"]}


def send(sub, data, claims=None):
    # No requests_session: pywebpush uses requests' module functions, which honour the environment.
    return pywebpush.webpush(sub, data=data, vapid_private_key=args.vapid_key,
                             vapid_claims=claims if claims is not None else {"sub": args.subject}, ttl=60)


def refused(fn):
    return refused_with(pywebpush.WebPushException, fn)


def delivered(service):
    sid = f"proxy-{service}"
    sub = subscribe(sid, service)
    assert sub["endpoint"].startswith(SHAPES[service]), sub["endpoint"]
    checks.results[f"endpoint_{service}"] = sub["endpoint"]
    sent = plaintext(LIBRARY + " via proxy", sid)
    r = send(sub, sent)
    assert r.status_code == 201, (r.status_code, r.text)
    return checks.delivered(admin, sid, sent, "aes128gcm")


for service in ["mozilla", "fcm", "apple", "wns"]:
    checks.run(f"delivered_{service}", lambda s=service: delivered(s))


def gone(service):
    sid = f"proxy-gone-{service}"
    sub = subscribe(sid, service)
    return gone_after_kill(admin, sid, service, lambda: refused(lambda: send(sub, "never delivered")))


checks.run("gone_fcm", lambda: gone("fcm"))
checks.run("gone_mozilla", lambda: gone("mozilla"))


def local_aud_refused():
    sid = "proxy-local-aud"
    sub = subscribe(sid, "mozilla")
    claims = {"sub": args.subject, "aud": "https://127.0.0.1:8726"}
    status, body = refused(lambda: send(sub, "wrong audience", claims))
    j = json.loads(body)
    assert (status, j["errno"]) == (401, 109) and "audience" in j["message"].lower(), (status, body)
    return {"status": status, "message": j["message"]}


checks.run("local_aud_refused", local_aud_refused)
checks.finish()
