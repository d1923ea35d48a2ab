#!/usr/bin/env python3
"""Clients of PushDouble's CONNECT proxy (docs/transport.md "CONNECT proxy listeners"), driven by
Tests/PushDoubleAPNsTests/ConnectProxySocketTests.swift. Each subcommand prints one JSON line.

  httpx    httpx.Client(proxy=…, verify=CA, http2=True) POSTs to https://<host>/3/device/<token>
           with a provider JWT given on the command line: Apple's host name, through the proxy.
  kalyke   kalyke-apns with NO patching at all: its hard-coded https://api.push.apple.com and
           https://api.sandbox.push.apple.com, reached only because HTTPS_PROXY and SSL_CERT_FILE
           are in the environment (httpx2 honours both). Sends one notification per environment.
  tunnels  opens N tunnels at once (CONNECT, 200, TLS handshake with SNI and ALPN h2 through each),
           reads the admin API's GET /health while all are open, then closes them.
  garbage  abuse of the proxy port: binary junk, a TLS ClientHello, an oversized head, a head
           never finished, a tunnel left idle, a tunnel half-closed; reports what each got.
"""
import argparse
import asyncio
import json
import os
import socket
import ssl
import sys
import time
import urllib.request


def out(obj):
    print(json.dumps(obj), flush=True)


def cmd_httpx(a):
    import httpx
    with httpx.Client(proxy=a.proxy, verify=a.ca, http2=True, trust_env=False, timeout=15) as c:
        r = c.post(f"https://{a.host}/3/device/{a.token}", content=b'{"aps":{"alert":"through the proxy"}}',
                   headers={"authorization": f"bearer {a.jwt}", "apns-topic": a.topic})
        out({"status": r.status_code, "http_version": r.http_version, "apns_id": r.headers.get("apns-id"),
             "body": r.text, "httpx": httpx.__version__})


def cmd_kalyke(a):
    try:
        import kalyke
    except ImportError as e:
        out({"failures": [f"kalyke-apns is not installed (pip install kalyke-apns): {e}"]})
        sys.exit(2)
    config = kalyke.ApnsConfig(topic=a.topic)
    payload = kalyke.Payload(alert=kalyke.PayloadAlert(title="PushDouble", body="unmodified, through HTTPS_PROXY"))

    async def run():
        results = {}
        for env, sandbox in (("production", False), ("sandbox", True)):
            c = kalyke.ApnsClient(use_sandbox=sandbox, team_id=a.team_id, auth_key_id=a.key_id, auth_key_filepath=a.key)
            results[env] = await asyncio.wait_for(c.send_message(device_token="ab" * 32, payload=payload, apns_config=config), 20)
        return results

    out({"results": asyncio.run(run())})


async def open_tunnel(proxy_host, proxy_port, target, ctx, server_name):
    reader, writer = await asyncio.open_connection(proxy_host, proxy_port)
    writer.write(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200 "):
        writer.close()
        raise RuntimeError(head.decode(errors="replace").splitlines()[0])
    await writer.start_tls(ctx, server_hostname=server_name)
    return writer


def cmd_tunnels(a):
    host, port = a.proxy.rsplit(":", 1)
    ctx = ssl.create_default_context(cafile=a.ca)
    ctx.set_alpn_protocols(["h2"])

    async def run():
        sem = asyncio.Semaphore(200)  # handshakes in flight at once; all stay open together

        async def one():
            async with sem:
                return await asyncio.wait_for(open_tunnel(host, int(port), a.target, ctx, a.target.rsplit(":", 1)[0]), 60)

        started = time.monotonic()
        results = await asyncio.gather(*(one() for _ in range(a.count)), return_exceptions=True)
        writers = [r for r in results if not isinstance(r, BaseException)]
        errors = sorted({f"{type(r).__name__}: {r}" for r in results if isinstance(r, BaseException)})[:5]
        alpn = sorted({w.get_extra_info("ssl_object").selected_alpn_protocol() or "" for w in writers})
        health = json.load(urllib.request.urlopen(a.admin + "/health", timeout=10))
        for w in writers:
            w.close()
        await asyncio.gather(*(w.wait_closed() for w in writers), return_exceptions=True)
        return {"opened": len(writers), "errors": errors, "alpn": alpn, "seconds": round(time.monotonic() - started, 2),
                "listeners": health.get("listeners")}

    out(asyncio.run(run()))


def raw(a, payload, shut_write=False, read_timeout=5.0):
    """Sends `payload` to the proxy and returns (first bytes received, seconds until EOF or None)."""
    host, port = a.proxy.rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=read_timeout)
    started = time.monotonic()
    try:
        if payload:
            s.sendall(payload)
        if shut_write:
            s.shutdown(socket.SHUT_WR)
        got = b""
        while True:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                return got, None
            except ConnectionResetError:
                return got, round(time.monotonic() - started, 2)
            if not chunk:
                return got, round(time.monotonic() - started, 2)
            got += chunk
    finally:
        s.close()


def status_of(got):
    line = got.split(b"\r\n", 1)[0].decode(errors="replace")
    return line


def cmd_garbage(a):
    target = a.target
    client_hello = bytes.fromhex("16030100a5010000a10303") + os.urandom(32) + bytes.fromhex("000002130101")
    cases = {}
    junk, eof = raw(a, os.urandom(64 * 1024))
    cases["binary"] = {"status": status_of(junk), "closed_after": eof}
    hello, eof = raw(a, client_hello + b"\n\n")
    cases["client_hello"] = {"status": status_of(hello), "closed_after": eof}
    big, eof = raw(a, b"CONNECT " + target.encode() + b" HTTP/1.1\r\nX: " + b"a" * 20000 + b"\r\n\r\n")
    cases["oversized_head"] = {"status": status_of(big), "closed_after": eof}
    unfinished, eof = raw(a, b"CONNECT " + target.encode() + b" HTTP/1.1\r\nHost: x", read_timeout=a.timeout_bound)
    cases["unfinished_head"] = {"status": status_of(unfinished), "closed_after": eof}
    idle, eof = raw(a, f"CONNECT {target} HTTP/1.1\r\n\r\n".encode(), read_timeout=a.timeout_bound)
    cases["idle_tunnel"] = {"status": status_of(idle), "closed_after": eof}
    half, eof = raw(a, f"CONNECT {target} HTTP/1.1\r\n\r\n".encode(), shut_write=True)
    cases["half_closed_tunnel"] = {"status": status_of(half), "closed_after": eof}
    silent, eof = raw(a, b"", read_timeout=a.timeout_bound)
    cases["silent"] = {"status": status_of(silent), "closed_after": eof}
    out(cases)


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    h = sub.add_parser("httpx")
    for name in ("--proxy", "--ca", "--jwt", "--topic", "--token", "--host"):
        h.add_argument(name, required=True)
    k = sub.add_parser("kalyke")
    for name in ("--key", "--key-id", "--team-id", "--topic"):
        k.add_argument(name, required=True)
    t = sub.add_parser("tunnels")
    for name in ("--proxy", "--ca", "--target", "--admin"):
        t.add_argument(name, required=True)
    t.add_argument("--count", type=int, default=1000)
    g = sub.add_parser("garbage")
    g.add_argument("--proxy", required=True)
    g.add_argument("--target", required=True)
    g.add_argument("--timeout-bound", type=float, default=8.0)
    a = p.parse_args()
    {"httpx": cmd_httpx, "kalyke": cmd_kalyke, "tunnels": cmd_tunnels, "garbage": cmd_garbage}[a.cmd](a)


if __name__ == "__main__":
    main()
