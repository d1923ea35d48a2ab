#!/usr/bin/env python3
"""Interop test of the PushDouble APNs fake with real Python HTTP/2 clients.

Driven by Tests/PushDoubleAPNsTests/APNsSocketTests.swift, which starts the fake in-process
and passes its ports, CA and signing key. Can also be run by hand against `pushdouble serve`:

    python3 Tests/Interop/apns_interop.py --production-port 2197 --sandbox-port 2198 \
        --ca ca.pem --key key.p8 --key-id KEY1234567 --team-id TEAM123456 --topic com.example.pushdouble

Three clients, each checked against the wire facts of docs/apns.md:
  1. `h2` (hyper-h2) on a raw TLS socket: SETTINGS values, MAX_CONCURRENT_STREAMS 1 then 1000,
     success = one HEADERS frame with END_STREAM and no DATA, error = HEADERS + exactly one
     DATA frame with compact JSON, `timestamp` only on 410.
  2. `httpx` with http2=True: success, Unregistered (ms timestamp), BadDeviceToken, 413.
  3. `aioapns` (unchanged library code): it has no host/port option (the host is the class
     attribute APNS_SERVER, port 443). Its HTTP CONNECT proxy option did not complete the
     tunnelled TLS connection here (Python 3.11, aioapns 4.0), so the script redirects the
     real host names to the fake's ports the way an /etc/hosts entry would (wrapping the
     event loop's create_connection): aioapns still sends SNI and `host` api.push.apple.com /
     api.development.push.apple.com, and only the CA is injected (ssl_context).
Prints one JSON line with the results; exit status 1 if any check failed.
"""
import argparse
import asyncio
import json
import socket
import ssl
import sys
import time
import uuid

import h2.config
import h2.connection
import h2.events
import h2.settings
import httpx
import jwt

FAILURES = []
RESULTS = {}


def check(cond, what):
    if not cond:
        FAILURES.append(what)
    return cond


def make_jwt(key_pem, key_id, team_id, iat=None):
    return jwt.encode({"iss": team_id, "iat": int(iat if iat is not None else time.time())}, key_pem,
                      algorithm="ES256", headers={"kid": key_id})


MAGIC_UNREGISTERED = "000000004100" + "0" * 52
MAGIC_SANDBOX_ONLY = "000000004002" + "0" * 52
TOKEN = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"


# ---------------------------------------------------------------- 1. raw h2 frames
class RawH2:
    def __init__(self, port, ca, server_name):
        ctx = ssl.create_default_context(cafile=ca)
        ctx.set_alpn_protocols(["h2"])
        raw = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock = ctx.wrap_socket(raw, server_hostname=server_name)
        check(self.sock.selected_alpn_protocol() == "h2", "h2: ALPN h2 selected")
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.conn.initiate_connection()
        self.sock.sendall(self.conn.data_to_send())
        self.events = []
        self.server_settings = []  # one dict per SETTINGS frame received

    def pump_until(self, pred, timeout=5):
        deadline = time.time() + timeout
        while not pred():
            if time.time() > deadline:
                raise TimeoutError("no event in time")
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("closed")
            for ev in self.conn.receive_data(data):
                self.events.append(ev)
                if isinstance(ev, h2.events.RemoteSettingsChanged):
                    self.server_settings.append({int(k): v.new_value for k, v in ev.changed_settings.items()})
            out = self.conn.data_to_send()
            if out:
                self.sock.sendall(out)

    def request(self, path, headers, body):
        sid = self.conn.get_next_available_stream_id()
        h = [(":method", "POST"), (":scheme", "https"), (":path", path), (":authority", "api.push.apple.com")] + headers
        self.conn.send_headers(sid, h, end_stream=not body)
        if body:
            self.conn.send_data(sid, body, end_stream=True)
        self.sock.sendall(self.conn.data_to_send())
        self.pump_until(lambda: any(isinstance(e, h2.events.StreamEnded) and e.stream_id == sid for e in self.events))
        mine = [e for e in self.events if getattr(e, "stream_id", None) == sid]
        resp = [e for e in mine if isinstance(e, h2.events.ResponseReceived)]
        data = [e for e in mine if isinstance(e, h2.events.DataReceived)]
        for d in data:
            self.conn.acknowledge_received_data(d.flow_controlled_length, sid)
        self.sock.sendall(self.conn.data_to_send())
        return {
            "headers": dict(resp[0].headers) if resp else {},
            "headers_ended_stream": bool(resp and resp[0].stream_ended is not None),
            "data_frames": len(data),
            "body": b"".join(d.data for d in data),
        }


def raw_h2_checks(a):
    c = RawH2(a.production_port, a.ca, "api.push.apple.com")
    c.pump_until(lambda: len(c.server_settings) >= 1)
    first = c.server_settings[0]
    S = h2.settings.SettingCodes
    expected = {S.HEADER_TABLE_SIZE: 4096, S.MAX_CONCURRENT_STREAMS: 1, S.INITIAL_WINDOW_SIZE: 65535,
                S.MAX_FRAME_SIZE: 16384, S.MAX_HEADER_LIST_SIZE: 8000}
    for k, v in expected.items():
        check(first.get(int(k)) == v, f"h2: first SETTINGS {k.name}={first.get(int(k))}, want {v}")
    bearer = "bearer " + make_jwt(a.key_pem, a.key_id, a.team_id)
    apns_id = str(uuid.uuid4())
    ok = c.request(f"/3/device/{TOKEN}", [("authorization", bearer), ("apns-topic", a.topic), ("apns-id", apns_id),
                                          ("apns-push-type", "alert")], b'{"aps":{"alert":"hi"}}')
    check(ok["headers"].get(":status") == "200", f"h2: success status {ok['headers']}")
    check(ok["headers"].get("apns-id") == apns_id, "h2: apns-id echoed")
    check("apns-unique-id" not in ok["headers"], "h2: no apns-unique-id on production")
    check(ok["headers_ended_stream"] and ok["data_frames"] == 0, f"h2: success is HEADERS-only ({ok['data_frames']} DATA)")
    c.pump_until(lambda: any(s.get(int(S.MAX_CONCURRENT_STREAMS)) == 1000 for s in c.server_settings))
    RESULTS["h2_settings"] = c.server_settings

    bad = c.request("/3/device/abc", [("authorization", bearer), ("apns-topic", a.topic)], b'{"aps":{}}')
    check(bad["headers"].get(":status") == "400", "h2: BadDeviceToken status")
    check(bad["headers"].get("content-type") == "application/json", "h2: error content-type")
    check(not bad["headers_ended_stream"] and bad["data_frames"] == 1, f"h2: error is HEADERS + one DATA ({bad['data_frames']})")
    check(bad["body"] == b'{"reason":"BadDeviceToken"}', f"h2: compact body {bad['body']!r}")

    gone = c.request(f"/3/device/{MAGIC_UNREGISTERED}", [("authorization", bearer), ("apns-topic", a.topic)], b'{"aps":{}}')
    check(gone["headers"].get(":status") == "410", "h2: 410")
    check(gone["body"] == b'{"reason":"Unregistered","timestamp":1704067200000}', f"h2: 410 body {gone['body']!r}")
    check(gone["data_frames"] == 1, "h2: 410 in one DATA frame")

    big = c.request(f"/3/device/{TOKEN}", [("authorization", bearer), ("apns-topic", a.topic)],
                    b'{"aps":{"alert":"' + b"x" * 5000 + b'"}}')
    check(big["headers"].get(":status") == "413" and big["body"] == b'{"reason":"PayloadTooLarge"}', f"h2: 413 {big['body']!r}")
    check(b"timestamp" not in big["body"], "h2: no timestamp outside 410")
    RESULTS["h2"] = {"success": ok["headers"].get(":status"), "bad": bad["body"].decode(), "gone": gone["body"].decode(),
                     "big": big["body"].decode()}
    c.sock.close()


def idle_checks(a):
    """With a short idle timeout configured, an idle connection gets GOAWAY NO_ERROR."""
    c = RawH2(a.production_port, a.ca, "api.push.apple.com")
    bearer = "bearer " + make_jwt(a.key_pem, a.key_id, a.team_id)
    ok = c.request(f"/3/device/{TOKEN}", [("authorization", bearer), ("apns-topic", a.topic)], b'{"aps":{}}')
    check(ok["headers"].get(":status") == "200", "idle: first request")
    started = time.time()
    try:
        c.pump_until(lambda: any(isinstance(e, h2.events.ConnectionTerminated) for e in c.events), timeout=10)
    except (TimeoutError, ConnectionError) as e:
        check(False, f"idle: no GOAWAY ({e})")
        return
    ev = next(e for e in c.events if isinstance(e, h2.events.ConnectionTerminated))
    check(ev.error_code == 0, f"idle: GOAWAY code {ev.error_code}")
    check(ev.last_stream_id == 1, f"idle: last stream {ev.last_stream_id}")
    RESULTS["idle"] = {"seconds": round(time.time() - started, 2), "code": int(ev.error_code), "lastStreamID": ev.last_stream_id,
                       "debug": (ev.additional_data or b"").decode()}


# ---------------------------------------------------------------- 2. httpx
def httpx_checks(a):
    bearer = "bearer " + make_jwt(a.key_pem, a.key_id, a.team_id)
    out = {}
    with httpx.Client(http2=True, verify=a.ca, timeout=10) as client:
        base = f"https://localhost:{a.sandbox_port}"
        h = {"authorization": bearer, "apns-topic": a.topic, "apns-push-type": "alert"}
        r = client.post(f"{base}/3/device/{TOKEN}", headers=h, content=b'{"aps":{"alert":"hi"}}')
        check(r.http_version == "HTTP/2", "httpx: HTTP/2")
        check(r.status_code == 200 and r.content == b"", f"httpx: success {r.status_code}")
        check("apns-unique-id" in r.headers, "httpx: apns-unique-id on sandbox")
        out["success"] = r.status_code
        r = client.post(f"{base}/3/device/{MAGIC_UNREGISTERED}", headers=h, content=b'{"aps":{"alert":"hi"}}')
        body = r.json()
        check(r.status_code == 410 and body == {"reason": "Unregistered", "timestamp": 1704067200000}, f"httpx: 410 {body}")
        out["unregistered"] = body
        r = client.post(f"{base}/3/device/nothex", headers=h, content=b'{"aps":{"alert":"hi"}}')
        check(r.status_code == 400 and r.json() == {"reason": "BadDeviceToken"}, f"httpx: BadDeviceToken {r.text}")
        out["badDeviceToken"] = r.json()
        r = client.post(f"{base}/3/device/{TOKEN}", headers=h, content=b"{" + b" " * 4096 + b"}")
        check(r.status_code == 413 and r.json() == {"reason": "PayloadTooLarge"}, f"httpx: 413 {r.text}")
        out["payloadTooLarge"] = r.json()
        # A sandbox-only token on the production listener.
        r = client.post(f"https://localhost:{a.production_port}/3/device/{MAGIC_SANDBOX_ONLY}", headers=h,
                        content=b'{"aps":{"alert":"hi"}}')
        check(r.status_code == 400 and r.json() == {"reason": "BadDeviceToken"}, f"httpx: sandbox token on production {r.text}")
    RESULTS["httpx"] = out


# ---------------------------------------------------------------- 3. aioapns, DNS-style redirect
def redirect_hosts(loop, host_ports):
    """Like an /etc/hosts entry: connections to Apple's host names go to the fake's ports,
    while TLS still sends the real name as SNI and aioapns its real `host` header."""
    original = loop.create_connection

    async def create_connection(protocol_factory, host=None, port=None, **kw):
        if host in host_ports:
            kw.setdefault("server_hostname", host)
            return await original(protocol_factory, "127.0.0.1", host_ports[host], **kw)
        return await original(protocol_factory, host, port, **kw)
    loop.create_connection = create_connection


async def aioapns_checks(a):
    from aioapns import APNs, NotificationRequest, PushType
    redirect_hosts(asyncio.get_running_loop(), {"api.push.apple.com": a.production_port,
                                                "api.development.push.apple.com": a.sandbox_port})
    ctx = ssl.create_default_context(cafile=a.ca)
    out = {}

    async def send(client, **kw):
        return await asyncio.wait_for(client.send_notification(NotificationRequest(**kw)), 10)

    for sandbox in (False, True):
        client = APNs(key=a.key_pem, key_id=a.key_id, team_id=a.team_id, topic=a.topic, use_sandbox=sandbox,
                      ssl_context=ctx, max_connection_attempts=2)
        env = "sandbox" if sandbox else "production"
        ok = await send(client, device_token=TOKEN, message={"aps": {"alert": "hi"}}, push_type=PushType.ALERT)
        check(ok.is_successful, f"aioapns {env}: success ({ok.status} {ok.description})")
        # Several in parallel on the same connection (the stream limit was raised).
        many = await asyncio.gather(*[send(client, device_token=TOKEN, message={"aps": {"badge": i}}) for i in range(20)])
        check(all(r.is_successful for r in many), f"aioapns {env}: 20 concurrent pushes")
        gone = await send(client, device_token=MAGIC_UNREGISTERED, message={"aps": {"alert": "x"}})
        check(gone.status == "410" and gone.description == "Unregistered" and gone.timestamp == 1704067200000,
              f"aioapns {env}: Unregistered ({gone.status} {gone.description} {gone.timestamp})")
        bad = await send(client, device_token="abcd", message={"aps": {"alert": "x"}})
        check(bad.status == "400" and bad.description == "BadDeviceToken", f"aioapns {env}: BadDeviceToken ({bad.status} {bad.description})")
        big = await send(client, device_token=TOKEN, message={"aps": {"alert": "x" * 5000}})
        check(big.status == "413" and big.description == "PayloadTooLarge", f"aioapns {env}: 413 ({big.status} {big.description})")
        env_token = await send(client, device_token=MAGIC_SANDBOX_ONLY, message={"aps": {"alert": "x"}})
        want = "200" if sandbox else "400"
        check(env_token.status == want, f"aioapns {env}: sandbox-only token gives {env_token.status}, want {want}")
        out[env] = {"success": ok.status, "unregistered": [gone.status, gone.description, gone.timestamp],
                    "bad": [bad.status, bad.description], "big": [big.status, big.description], "sandboxToken": env_token.status}
        client.pool.close()
    RESULTS["aioapns"] = out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--production-port", type=int, required=True)
    p.add_argument("--sandbox-port", type=int, required=True)
    p.add_argument("--ca", required=True)
    p.add_argument("--key", required=True, help="PEM file of the ES256 signing key (.p8)")
    p.add_argument("--key-id", required=True)
    p.add_argument("--team-id", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--only", choices=["h2", "httpx", "aioapns", "idle"])
    a = p.parse_args()
    with open(a.key) as f:
        a.key_pem = f.read()
    steps = {"h2": lambda: raw_h2_checks(a), "httpx": lambda: httpx_checks(a), "aioapns": lambda: asyncio.run(aioapns_checks(a)),
             "idle": lambda: idle_checks(a)}
    for name, step in steps.items():
        # Without --only: every client; the idle check only on request (it needs a short idle timeout).
        if (a.only is not None and a.only != name) or (a.only is None and name == "idle"):
            continue
        try:
            step()
        except Exception as e:  # a crash is a failure with evidence, not a traceback only
            FAILURES.append(f"{name}: {type(e).__name__}: {e}")
    print(json.dumps({"failures": FAILURES, "results": RESULTS}))
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()
