"""Pushes through a PushDouble container with real client libraries, configured with nothing
but what the admin port hands out (docs/containers.md "A sender outside the container").

    python3 Tests/Container/push_through.py http://127.0.0.1:8720 [--resolve HOST]

Fetches /sender/environment (JSON) and /sender/files/* into a fresh directory, then sends:
APNs over HTTP/2 with an ES256 provider JWT (httpx[http2] + PyJWT), FCM HTTP v1 after the OAuth
2.0 JWT-bearer flow (google-auth, with the service-account file's token_uri), and Web Push
(pywebpush: VAPID + aes128gcm) to a subscription made on the admin API; then reads the history
and checks each was accepted. --resolve HOST maps the advertised HOST to 127.0.0.1 (a host
without the container's DNS name). Prints one line per provider; exit 0 when all passed.
"""
import json
import os
import socket
import ssl
import sys
import tempfile
import time
import urllib.request

admin = sys.argv[1].rstrip("/")
if "--resolve" in sys.argv:
    alias = sys.argv[sys.argv.index("--resolve") + 1]
    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        return real_getaddrinfo("127.0.0.1" if host == alias else host, *args, **kwargs)

    socket.getaddrinfo = getaddrinfo


def get(path):
    with urllib.request.urlopen(admin + path, timeout=10) as r:
        return r.read()


def post_json(path, body):
    req = urllib.request.Request(admin + path, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


kit = tempfile.mkdtemp(prefix="pd-sender-")
env = json.loads(get("/sender/environment?format=json&dir=" + kit))
for name in json.loads(get("/sender/files")):
    with open(os.path.join(kit, name), "wb") as f:
        f.write(get("/sender/files/" + name))
os.environ.update(env)  # REQUESTS_CA_BUNDLE, SSL_CERT_FILE, NO_PROXY … for the libraries below
ca = env["PUSHDOUBLE_CA_FILE"]
results = {}

# APNs: HTTP/2, provider JWT (ES256, kid + iss), the shipped test key.
import httpx
import jwt

with open(env["APNS_KEY_FILE"]) as f:
    key = f.read()
token = jwt.encode({"iss": env["APNS_TEAM_ID"], "iat": int(time.time())}, key, algorithm="ES256", headers={"kid": env["APNS_KEY_ID"]})
device = "a1" * 32
with httpx.Client(http2=True, verify=ssl.create_default_context(cafile=ca), timeout=10) as client:
    r = client.post(f"{env['APNS_URL']}/3/device/{device}", headers={"authorization": f"bearer {token}", "apns-topic": env["APNS_TOPIC"],
                                                                    "apns-push-type": "alert"},
                    content=json.dumps({"aps": {"alert": "from outside the container"}}))
    results["apns"] = (r.status_code == 200 and r.http_version == "HTTP/2", f"{r.http_version} {r.status_code} {r.headers.get('apns-id')}")

# FCM HTTP v1: OAuth 2.0 JWT-bearer grant at the file's token_uri, then messages:send.
import google.auth.transport.requests
from google.oauth2 import service_account

creds = service_account.Credentials.from_service_account_file(env["GOOGLE_APPLICATION_CREDENTIALS"],
                                                              scopes=["https://www.googleapis.com/auth/firebase.messaging"])
creds.refresh(google.auth.transport.requests.Request())
with httpx.Client(verify=ssl.create_default_context(cafile=ca), timeout=10) as client:
    r = client.post(f"{env['FCM_URL']}/v1/projects/{env['FCM_PROJECT_ID']}/messages:send",
                    headers={"authorization": f"Bearer {creds.token}"},
                    json={"message": {"token": "fcm-token-from-outside", "notification": {"title": "hi"}}})
    results["fcm"] = (r.status_code == 200, f"{r.status_code} {r.text.strip()[:80]}")

# Web Push: a subscription made on the admin API (the browser half), VAPID + aes128gcm.
from pywebpush import webpush

sub = post_json("/webpush/subscriptions", {})
resp = webpush({"endpoint": sub["endpoint"], "keys": sub["keys"]}, "from outside the container",
               vapid_private_key=env["VAPID_PRIVATE_KEY_FILE"], vapid_claims={"sub": env.get("VAPID_SUBJECT", "mailto:t@example.com")},
               requests_session=None, verbose=False)
messages = json.loads(get(f"/webpush/subscriptions/{sub['id']}/messages"))
results["webpush"] = (resp.status_code == 201 and messages and messages[-1]["payload"]["data"] == "from outside the container",
                      f"{resp.status_code} decrypted={messages[-1]['payload'] if messages else None!r}")

history = json.loads(get("/history"))
providers = sorted({e["provider"] for e in history["exchanges"]})
ok = all(passed for passed, _ in results.values())
for name, (passed, detail) in results.items():
    print(f"{name}: {'ok' if passed else 'FAILED'} {detail}")
print(f"history providers: {', '.join(providers)}")
sys.exit(0 if ok and {"apns", "fcm", "webpush"} <= set(providers) else 1)
