"""Certificate-based provider authentication against the APNs fake, with two Python stacks.

  1. `httpx` (http2=True) with the client certificate loaded into its SSLContext: success with
     the universal certificate, MissingTopic without apns-topic (multi-topic certificate),
     TopicDisallowed for a topic the certificate does not list, a `.voip` topic it does list,
     a bogus `authorization` header ignored; the single-topic sandbox certificate without
     apns-topic (its topic is used); and a client with no certificate authenticating with a
     JWT on the same listener.
  2. `aioapns` with `client_cert=` (its certificate mode, library code unchanged; Apple's host
     names redirected to the fake's ports as in apns_interop.py): success in both
     environments, and each refusal as the library reports it: the sandbox-only certificate
     on production (GOAWAY BadCertificateEnvironment at its first request) and the expired
     certificate (TLS alert certificate_expired) both end in aioapns's MaxAttemptsExceeded
     (with max_connection_attempts=1: the connection ends before any answer).

Prints one JSON line with the results; exit status 1 if any check failed.
"""
import argparse
import asyncio
import json
import ssl
import sys
import time

import httpx
import jwt

from apns_interop import redirect_hosts  # Apple's host names to the fake's ports, as there

FAILURES = []
RESULTS = {}
TOKEN = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"


def check(cond, what):
    if not cond:
        FAILURES.append(what)
    return cond


def context(ca, cert=None):
    ctx = ssl.create_default_context(cafile=ca)
    if cert:
        ctx.load_cert_chain(cert)
    return ctx


def httpx_checks(a):
    out = {}
    url = f"https://localhost:{a.production_port}/3/device/{TOKEN}"
    body = b'{"aps":{"alert":"hi"}}'
    with httpx.Client(http2=True, verify=context(a.ca, a.cert_dir + "/apns-cert-universal.pem"), timeout=10) as c:
        ok = c.post(url, headers={"apns-topic": a.topic}, content=body)
        check(ok.http_version == "HTTP/2" and ok.status_code == 200, f"httpx universal: {ok.status_code} {ok.text}")
        ignored = c.post(url, headers={"apns-topic": a.topic, "authorization": "bearer not-a-jwt"}, content=body)
        check(ignored.status_code == 200, f"httpx universal: authorization ignored ({ignored.status_code} {ignored.text})")
        missing = c.post(url, content=body)
        check(missing.status_code == 400 and missing.json() == {"reason": "MissingTopic"}, f"httpx universal: no topic {missing.text}")
        other = c.post(url, headers={"apns-topic": "com.example.other"}, content=body)
        check(other.status_code == 400 and other.json() == {"reason": "TopicDisallowed"}, f"httpx universal: other topic {other.text}")
        voip = c.post(url, headers={"apns-topic": a.topic + ".voip", "apns-push-type": "voip"}, content=body)
        check(voip.status_code == 200, f"httpx universal: voip topic {voip.status_code} {voip.text}")
        out["universal"] = [ok.status_code, ignored.status_code, missing.json(), other.json(), voip.status_code]
    sandbox_url = f"https://localhost:{a.sandbox_port}/3/device/{TOKEN}"
    with httpx.Client(http2=True, verify=context(a.ca, a.cert_dir + "/apns-cert-sandbox.pem"), timeout=10) as c:
        single = c.post(sandbox_url, content=body)
        check(single.status_code == 200, f"httpx sandbox certificate without apns-topic: {single.status_code} {single.text}")
        out["singleTopicDefault"] = single.status_code
    with httpx.Client(http2=True, verify=context(a.ca), timeout=10) as c:
        token = jwt.encode({"iss": a.team_id, "iat": int(time.time())}, open(a.key).read(), algorithm="ES256",
                           headers={"kid": a.key_id})
        r = c.post(url, headers={"apns-topic": a.topic, "authorization": f"bearer {token}"}, content=body)
        check(r.status_code == 200, f"httpx JWT without certificate: {r.status_code} {r.text}")
        none = c.post(url, headers={"apns-topic": a.topic}, content=body)
        check(none.status_code == 403 and none.json() == {"reason": "MissingProviderToken"}, f"httpx no credential: {none.text}")
        out["jwt"] = [r.status_code, none.json()]
    RESULTS["httpx"] = out


async def aioapns_checks(a):
    from aioapns import APNs, NotificationRequest
    redirect_hosts(asyncio.get_running_loop(), {"api.push.apple.com": a.production_port,
                                                "api.development.push.apple.com": a.sandbox_port})
    out = {}

    async def send(cert, sandbox):
        client = APNs(client_cert=f"{a.cert_dir}/apns-cert-{cert}.pem", use_sandbox=sandbox, ssl_context=context(a.ca),
                      max_connection_attempts=1)
        try:
            r = await asyncio.wait_for(client.send_notification(
                NotificationRequest(device_token=TOKEN, message={"aps": {"alert": "hi"}})), 10)
            return [r.status, r.description]
        except Exception as e:  # the library's own error, by type and text
            return [type(e).__name__, str(e)]
        finally:
            client.pool.close()

    for sandbox in (False, True):
        env = "sandbox" if sandbox else "production"
        r = await send("universal", sandbox)
        check(r == ["200", None], f"aioapns universal {env}: {r}")
        out["universal-" + env] = r
    wrong = await send("sandbox", False)
    out["sandboxOnProduction"] = wrong
    # aioapns drops a connection that ends before answering and gives up after its attempts.
    check(wrong[0] == "MaxAttemptsExceeded", f"aioapns sandbox certificate on production: {wrong}")
    expired = await send("expired", True)
    out["expired"] = expired
    check(expired[0] == "MaxAttemptsExceeded", f"aioapns expired certificate: {expired}")
    RESULTS["aioapns"] = out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--production-port", type=int, required=True)
    p.add_argument("--sandbox-port", type=int, required=True)
    p.add_argument("--ca", required=True)
    p.add_argument("--cert-dir", required=True)
    p.add_argument("--key", required=True)
    p.add_argument("--key-id", required=True)
    p.add_argument("--team-id", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--only", choices=["httpx", "aioapns"])
    a = p.parse_args()
    steps = {"httpx": lambda: httpx_checks(a), "aioapns": lambda: asyncio.run(aioapns_checks(a))}
    for name, step in steps.items():
        if a.only in (None, name):
            try:
                step()
            except Exception as e:
                FAILURES.append(f"{name}: {type(e).__name__}: {e}")
    print(json.dumps({"results": RESULTS, "failures": FAILURES}))
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()
