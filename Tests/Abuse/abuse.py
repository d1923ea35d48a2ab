#!/usr/bin/env python3
"""The abuse tier: attack classes driven over real sockets against a running `pushdouble serve`.

Each attack runs for a bounded time while a probe measures, on its own connections, the latency
of an APNs push (a warm HTTP/2 connection) and of `GET /health` on the admin port. An attack
passes when the server process is alive afterwards, the probes stayed within a small multiple of
their baseline, the server's RSS stayed under the attack's bound, and the attack-specific
expectation held (e.g. a flooder was sent GOAWAY ENHANCE_YOUR_CALM).

    python3 Tests/Abuse/abuse.py --binary .build/debug/pushdouble [--only NAME[,NAME]] [--list]

Prints one line per attack and a closing `abuse: N passed, N failed` line; exit 1 on any failure.
Flooders run in separate processes so the probe's latency is the server's, not the GIL's.
Only loopback addresses are used; every loop is bounded in time and count.
"""
import argparse
import json
import multiprocessing
import os
import random
import resource
import signal
import socket
import ssl
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

try:
    import h2.config
    import h2.connection
    import h2.events
    import hpack
    import jwt as pyjwt
except ImportError as e:  # a missing peer is named, never skipped
    print(f"abuse: {e.name} is not installed (run bash Tests/run.sh, or pip install -r Tests/Interop/requirements.txt)")
    sys.exit(2)

TOKEN = "ab" * 32
BODY = json.dumps({"aps": {"alert": {"title": "abuse tier", "body": "x" * 200}}}).encode()

# HTTP/2 frame types and error codes (RFC 9113 §6, §7)
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = 0, 1, 2, 3, 4, 6, 7, 8, 9
ENHANCE_YOUR_CALM = 0xB
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def frame(ftype, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + struct.pack(">I", stream & 0x7FFFFFFF) + payload


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


class Server:
    """`pushdouble serve --ephemeral` in a child process, with its endpoints file read back."""

    def __init__(self, binary, extra=()):
        self.dir = tempfile.mkdtemp(prefix="pd-abuse-")
        ep = os.path.join(self.dir, "endpoints.json")
        self.log = open(os.path.join(self.dir, "serve.log"), "wb")
        self.proc = subprocess.Popen([binary, "serve", "--ephemeral", "--endpoints-file", ep, "--quiet", *extra],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while not os.path.exists(ep) or os.path.getsize(ep) == 0:
            if self.proc.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"serve did not start (exit {self.proc.poll()}), see {self.log.name}")
            time.sleep(0.02)
        time.sleep(0.05)
        doc = json.load(open(ep))
        self.env = doc["environment"]
        self.ports = {e["name"]: e["port"] for e in doc["endpoints"]}
        self.apns = self.ports["apns-production"]
        self.admin = self.ports["admin"]
        self.ca = self.env["PUSHDOUBLE_CA_FILE"]
        key = open(self.env["APNS_KEY_FILE"]).read()
        self.jwt = pyjwt.encode({"iss": self.env["APNS_TEAM_ID"], "iat": int(time.time())}, key, algorithm="ES256",
                                headers={"kid": self.env["APNS_KEY_ID"]})
        self.topic = self.env["APNS_TOPIC"]

    @property
    def alive(self):
        return self.proc.poll() is None

    def rss_kb(self):
        return rss_kb(self.proc.pid) if self.alive else -1

    def stop(self):
        if self.alive:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()


def tls_socket(port, ca, alpn=("h2",), timeout=5):
    ctx = ssl.create_default_context(cafile=ca)
    ctx.set_alpn_protocols(list(alpn))
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    return ctx.wrap_socket(s, server_hostname="localhost")


class H2Client:
    """A blocking hyper-h2 client for one connection: the probe, and valid-request attackers."""

    def __init__(self, srv, port=None, timeout=5):
        self.srv = srv
        self.sock = tls_socket(port or srv.apns, srv.ca, timeout=timeout)
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.conn.initiate_connection()
        self.sock.sendall(self.conn.data_to_send())

    def headers(self, path="/3/device/" + TOKEN, extra=()):
        return [(":method", "POST"), (":scheme", "https"), (":authority", "localhost"), (":path", path),
                ("authorization", "bearer " + self.srv.jwt), ("apns-topic", self.srv.topic),
                ("apns-push-type", "alert"), *extra]

    def post(self, body=BODY, path="/3/device/" + TOKEN):
        sid = self.conn.get_next_available_stream_id()
        self.conn.send_headers(sid, self.headers(path))
        self.conn.send_data(sid, body, end_stream=True)
        self.sock.sendall(self.conn.data_to_send())
        status = None
        while True:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("closed")
            for ev in self.conn.receive_data(data):
                if isinstance(ev, h2.events.ResponseReceived) and ev.stream_id == sid:
                    status = int(dict(ev.headers)[":status"])
                elif isinstance(ev, h2.events.DataReceived):
                    self.conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
                elif isinstance(ev, h2.events.StreamEnded) and ev.stream_id == sid:
                    self.sock.sendall(self.conn.data_to_send())
                    return status
                elif isinstance(ev, (h2.events.StreamReset, h2.events.ConnectionTerminated)):
                    raise ConnectionError(f"reset: {ev}")
            self.sock.sendall(self.conn.data_to_send())

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def http1(port, request, timeout=5):
    """One HTTP/1.1 exchange on a fresh socket; returns (status, headers, body)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(request)
        buf = b""
        while b"\r\n\r\n" not in buf:
            d = s.recv(65536)
            if not d:
                break
            buf += d
        head, _, body = buf.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1]) if lines and len(lines[0].split()) > 1 else None
        hdrs = {k.strip().lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:])}
        n = int(hdrs.get("content-length", "0") or 0)
        while len(body) < n:
            d = s.recv(65536)
            if not d:
                break
            body += d
        return status, hdrs, body
    finally:
        s.close()


def admin(srv, method, path, body=None, timeout=5):
    b = json.dumps(body).encode() if isinstance(body, (dict, list)) else (body or b"")
    req = (f"{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n"
           f"Content-Length: {len(b)}\r\n\r\n").encode() + b
    return http1(srv.admin, req, timeout)


class Probe:
    """Measures push and /health latency every `interval` seconds on its own connections."""

    def __init__(self, srv, interval=0.02):
        self.srv, self.interval = srv, interval
        self.push, self.health, self.errors = [], [], []
        self._stop = threading.Event()
        self.client = H2Client(srv)
        assert self.client.post() == 200

    def sample(self):
        t = time.perf_counter()
        try:
            status = self.client.post()
            if status != 200:
                self.errors.append(f"push status {status}")
        except Exception as e:  # a reset probe connection is itself a finding
            self.errors.append(f"push: {e!r}")
            self.client = H2Client(self.srv)
        self.push.append(time.perf_counter() - t)
        t = time.perf_counter()
        try:
            status, _, _ = admin(self.srv, "GET", "/health")
            if status != 200:
                self.errors.append(f"health status {status}")
        except Exception as e:
            self.errors.append(f"health: {e!r}")
        self.health.append(time.perf_counter() - t)

    def baseline(self, n=40):
        for _ in range(n):
            self.sample()
            time.sleep(self.interval)
        p, h = statistics.median(self.push), statistics.median(self.health)
        self.push, self.health, self.errors = [], [], []
        return p, h

    def run(self):
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def __enter__(self):
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *a):
        self._stop.set()
        self.thread.join(10)


# ---------------------------------------------------------------- flooders (child processes)

def _h2_raw(port, ca):
    s = tls_socket(port, ca, timeout=10)
    s.sendall(PREFACE + frame(SETTINGS, 0, 0))
    return s


def _goaway_seen(s, wait=1.0):
    """Reads what the server sent; returns the GOAWAY error code, 'closed', or None."""
    s.settimeout(wait)
    buf = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            buf += d
            if len(buf) > 4 << 20:
                break
    except (socket.timeout, ssl.SSLError, OSError):
        pass
    i = 0
    while i + 9 <= len(buf):
        n = int.from_bytes(buf[i:i + 3], "big")
        if buf[i + 3] == GOAWAY and i + 9 + 8 <= len(buf):
            return struct.unpack(">I", buf[i + 13:i + 17])[0]
        i += 9 + n
    return "closed" if not buf else None


def flood(kind, port, ca, seconds, result_queue):
    """One flooding connection; reports (frames sent, what ended it)."""
    sent, ended = 0, None
    deadline = time.time() + seconds
    try:
        s = _h2_raw(port, ca)
        enc = hpack.Encoder()
        if kind == "priority":
            batch = b"".join(frame(PRIORITY, 0, 2 * i + 1, struct.pack(">IB", 0, 15)) for i in range(500))
        elif kind == "continuation":
            block = enc.encode([(":method", "POST"), (":scheme", "https"), (":path", "/3/device/" + TOKEN)])
            s.sendall(frame(HEADERS, 0, 1, block))  # no END_HEADERS
            batch = frame(CONTINUATION, 0, 1) * 500
        elif kind == "ping":
            batch = b"".join(frame(PING, 0, 0, struct.pack(">Q", i)) for i in range(500))
        elif kind == "settings":
            batch = frame(SETTINGS, 0, 0, struct.pack(">HI", 0x3, 100)) * 500
        elif kind == "empty-data":
            block = enc.encode([(":method", "POST"), (":scheme", "https"), (":authority", "localhost"),
                                (":path", "/3/device/" + TOKEN)])
            s.sendall(frame(HEADERS, 0x4, 1, block))  # END_HEADERS, no END_STREAM
            batch = frame(DATA, 0, 1) * 500
        elif kind == "rapid-reset":
            stream = 1
            while time.time() < deadline and stream < 2 ** 31 - 2000:
                chunks = []
                for _ in range(100):
                    block = enc.encode([(":method", "POST"), (":scheme", "https"), (":authority", "localhost"),
                                        (":path", "/3/device/" + TOKEN)])
                    chunks.append(frame(HEADERS, 0x4, stream, block) + frame(RST_STREAM, 0, stream, struct.pack(">I", 8)))
                    stream += 2
                s.sendall(b"".join(chunks))
                sent += 200
            ended = _goaway_seen(s)
            result_queue.put((kind, sent, ended))
            return
        else:
            raise ValueError(kind)
        s.settimeout(2)
        while time.time() < deadline:
            s.sendall(batch)
            sent += 500
        ended = _goaway_seen(s)
    except (BrokenPipeError, ConnectionResetError, ssl.SSLError, socket.timeout, OSError) as e:
        ended = f"cut off ({type(e).__name__})"
    result_queue.put((kind, sent, ended))


def flood_unread(port, ca, seconds, result_queue):
    """PINGs without ever reading the ACKs, with a request (HEADERS, END_STREAM) after every
    1000 so that the cheap-frame guard's count keeps starting over: only the bound on owed
    acknowledgements can stop it. Sends until the server stops taking bytes, then reads what
    it sent. Reports (bytes the server took, GOAWAY code or what ended it, EOF seen)."""
    s = _h2_raw(port, ca)
    enc = hpack.Encoder()
    pings = b"".join(frame(PING, 0, 0, struct.pack(">Q", i)) for i in range(1000))
    s.setblocking(False)
    taken, stream, pending = 0, 1, b""
    deadline, last_progress = time.time() + seconds, time.time()
    while time.time() < deadline and time.time() - last_progress < 0.5:
        if not pending:
            block = enc.encode([(":method", "POST"), (":scheme", "https"), (":authority", "localhost"),
                                (":path", "/3/device/" + TOKEN)])
            pending = pings + frame(HEADERS, 0x5, stream, block)
            stream += 2
        try:
            n = s.send(pending)
            taken += n
            pending = pending[n:]
            last_progress = time.time()
        except (ssl.SSLWantWriteError, BlockingIOError):
            time.sleep(0.01)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError) as e:
            result_queue.put((taken, f"cut off ({type(e).__name__})", False))
            return
    s.setblocking(True)
    s.settimeout(3)
    buf, eof = b"", False
    try:
        while True:
            d = s.recv(1 << 20)
            if not d:
                eof = True
                break
            buf += d
    except (socket.timeout, ssl.SSLError, OSError):
        pass
    code, i = None, 0
    while i + 9 <= len(buf):
        n = int.from_bytes(buf[i:i + 3], "big")
        if buf[i + 3] == GOAWAY and i + 17 <= len(buf):
            code = struct.unpack(">I", buf[i + 13:i + 17])[0]
        i += 9 + n
    result_queue.put((taken, code, eof))


def attack_ping_flood_unread(srv, connections=8, seconds=6.0, max_taken_mb=32, rss_mb=96):
    """Eight connections flood PING (and a request now and then) without reading: each must be
    closed with GOAWAY ENHANCE_YOUR_CALM after a bounded number of bytes, while others are served."""
    v = Verdict("ping-flood-unread")
    probe, base, rss0, peak, results = run_flooders(srv, flood_unread, (srv.apns, srv.ca, seconds), connections, seconds + 30)
    judge_flood(v, srv, probe, base, rss0, peak, rss_mb)
    v.check(len(results) == connections, f"{connections - len(results)} flooders reported nothing")
    for taken, code, eof in results:
        v.note(f"server took {taken / 1e6:.1f} MB, GOAWAY {code}, EOF {eof}")
        v.check(taken <= max_taken_mb * 1e6, f"the server took {taken / 1e6:.1f} MB > {max_taken_mb} MB from one flooder")
        v.check(code == ENHANCE_YOUR_CALM, f"no GOAWAY ENHANCE_YOUR_CALM (got {code})")
        v.check(eof, "the connection was not closed after the GOAWAY")
    c = H2Client(srv)
    v.check(c.post() == 200, "push after the flood failed")
    c.close()
    probe.client.close()
    return v


# ---------------------------------------------------------------- attacks

class Verdict:
    def __init__(self, name):
        self.name, self.problems, self.notes = name, [], []

    def check(self, ok, problem):
        if not ok:
            self.problems.append(problem)

    def note(self, s):
        self.notes.append(s)


def judge_probe(v, probe, base, max_seconds=1.0, factor=20.0):
    """Latency under attack: p50 within `factor`× the baseline p50 + 50 ms, every sample
    under `max_seconds` (the starvation this tier guards against showed as 2–5 s stalls)."""
    for label, samples, b in (("push", probe.push, base[0]), ("health", probe.health, base[1])):
        if not samples:
            v.check(False, f"no {label} probe completed")
            continue
        p50, mx = statistics.median(samples), max(samples)
        v.note(f"{label} p50 {p50 * 1000:.1f} ms (baseline {b * 1000:.1f}), max {mx * 1000:.0f} ms, n={len(samples)}")
        v.check(p50 <= factor * b + 0.050, f"{label} p50 {p50 * 1000:.1f} ms > {factor}× baseline {b * 1000:.1f} ms + 50 ms")
        v.check(mx <= max_seconds, f"{label} max {mx * 1000:.0f} ms > {max_seconds * 1000:.0f} ms")
    v.check(not probe.errors, f"probe errors: {probe.errors[:3]}")


def run_flooders(srv, target, args, connections, grace):
    """Runs `connections` flooder processes `target(*args, queue)` while the probe measures;
    returns (probe, baseline, RSS before, peak RSS, the flooders' reports)."""
    probe = Probe(srv)
    base = probe.baseline()
    rss0 = srv.rss_kb()
    q = multiprocessing.Queue()
    procs = [multiprocessing.Process(target=target, args=(*args, q)) for _ in range(connections)]
    peak = rss0
    with probe:
        for p in procs:
            p.start()
        end = time.time() + grace
        while any(p.is_alive() for p in procs) and time.time() < end:
            peak = max(peak, srv.rss_kb())
            time.sleep(0.05)
    for p in procs:
        p.join(2)
        if p.is_alive():
            p.kill()
    results = []
    while len(results) < connections:
        try:
            results.append(q.get(timeout=2))
        except Exception:
            break
    return probe, base, rss0, peak, results


def judge_flood(v, srv, probe, base, rss0, peak, rss_mb):
    """The server survived the flooders, its probes stayed fast and its RSS grew at most `rss_mb`."""
    v.check(srv.alive, "server died")
    judge_probe(v, probe, base)
    v.note(f"RSS {rss0 // 1024} → peak {peak // 1024} MB")
    v.check(peak - rss0 <= rss_mb * 1024, f"RSS grew {(peak - rss0) // 1024} MB > {rss_mb} MB")


def run_flood(srv, kind, connections=4, seconds=2.0, expect_cut=True, rss_mb=64):
    v = Verdict(f"{kind}-flood")
    probe, base, rss0, peak, results = run_flooders(srv, flood, (kind, srv.apns, srv.ca, seconds), connections, seconds + 3)
    judge_flood(v, srv, probe, base, rss0, peak, rss_mb)
    for kind_, sent, ended in results:
        v.note(f"flooder sent {sent} frames, ended: {ended}")
        if expect_cut:
            v.check(ended == ENHANCE_YOUR_CALM or (isinstance(ended, str) and ended.startswith(("cut", "closed")))
                    or isinstance(ended, int),
                    f"flooder was not stopped (sent {sent}, ended {ended})")
    probe.client.close()
    return v


def attack_hpack_bomb(srv):
    """One big literal with incremental indexing, then blocks that reference it thousands of times."""
    v = Verdict("hpack-bomb")
    probe = Probe(srv)
    base = probe.baseline()
    rss0 = srv.rss_kb()
    peak = rss0
    with probe:
        for _ in range(20):
            try:
                s = _h2_raw(srv.apns, srv.ca)
                enc = hpack.Encoder()
                # The first ("x", 3900 bytes) is a literal with incremental indexing; the other
                # 3999 are one-byte references to it: a 15.6 MB header list in an 8 KB block.
                block = enc.encode([(":method", "POST"), (":scheme", "https"), (":path", "/3/device/" + TOKEN)]
                                   + [("x", "y" * 3900)] * 4000, huffman=False)
                s.sendall(frame(HEADERS, 0x5, 1, block[:16000]))
                _goaway_seen(s, 0.3)
                s.close()
            except OSError:
                pass
            peak = max(peak, srv.rss_kb())
    v.check(srv.alive, "server died")
    judge_probe(v, probe, base)
    v.note(f"RSS {rss0 // 1024} → peak {peak // 1024} MB")
    v.check(peak - rss0 <= 32 * 1024, f"RSS grew {(peak - rss0) // 1024} MB")
    probe.client.close()
    return v


def attack_garbage(srv):
    """Random bytes at every port, TLS and not, plus truncated TLS handshakes."""
    v = Verdict("garbage")
    rnd = random.Random(7)
    for port in srv.ports.values():
        for i in range(30):
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=2)
                s.sendall(bytes(rnd.getrandbits(8) for _ in range(rnd.randint(1, 4096))))
                if i % 3 == 0:
                    s.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")  # a ClientHello cut short
                s.close()
            except OSError:
                pass
    v.check(srv.alive, "server died")
    c = H2Client(srv)
    v.check(c.post() == 200, "push after garbage failed")
    c.close()
    status, hdrs, body = admin(srv, "GET", "/health")
    v.check(status == 200, f"/health after garbage: {status}")
    return v


def attack_slowloris(srv, connections=200, seconds=3.0):
    v = Verdict("slowloris")
    probe = Probe(srv)
    base = probe.baseline()
    socks = []
    for port in (srv.admin,):
        for _ in range(connections):
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=2)
                s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
                socks.append(s)
            except OSError:
                break
    with probe:
        end = time.time() + seconds
        while time.time() < end:
            for s in socks:
                try:
                    s.send(b"X")
                except OSError:
                    pass
            time.sleep(0.5)
    for s in socks:
        s.close()
    v.check(srv.alive, "server died")
    judge_probe(v, probe, base)
    v.note(f"{len(socks)} slow connections")
    return v


def attack_flow_control(srv):
    """A client with INITIAL_WINDOW_SIZE 1 that never opens its window, many error responses owed."""
    v = Verdict("zero-window-hold")
    rss0 = srv.rss_kb()
    socks = []
    enc = hpack.Encoder()
    for _ in range(50):
        try:
            s = tls_socket(srv.apns, srv.ca)
            s.sendall(PREFACE + frame(SETTINGS, 0, 0, struct.pack(">HI", 0x4, 1)))
            block = enc.encode([(":method", "POST"), (":scheme", "https"), (":authority", "localhost"),
                                (":path", "/3/device/" + TOKEN)])  # no auth: 403 with a body, owed forever
            s.sendall(frame(HEADERS, 0x5, 1, block))
            socks.append(s)
        except OSError:
            break
    time.sleep(0.5)
    c = H2Client(srv)
    v.check(c.post() == 200, "push beside held windows failed")
    c.close()
    v.check(srv.alive, "server died")
    v.check(srv.rss_kb() - rss0 <= 32 * 1024, "RSS grew > 32 MB")
    for s in socks:
        s.close()
    return v


def attack_admin_numbers(srv):
    """The fault rules that once crashed the process: each refused with a JSON 400 naming the field."""
    v = Verdict("admin-extreme-numbers")
    rules = [
        {"id": "q1", "match": {"provider": "apns"}, "action": {"type": "quota", "fixedWindow": {"limit": 1, "seconds": 1e-300}}},
        {"id": "q2", "match": {"provider": "apns"}, "action": {"type": "quota", "fixedWindow": {"limit": 1, "seconds": 1e300}}},
        {"id": "q3", "match": {"provider": "apns"}, "action": {"type": "quota", "tokenBucket": {"rate": 1e-300, "burst": 1}}},
        {"id": "r1", "match": {"provider": "apns"}, "action": {"type": "respond", "status": 503,
                                                               "retryAfter": {"dateIn": 9223372036854775807}}},
        {"id": "t1", "match": {"provider": "apns"}, "times": 1e30, "action": {"type": "respond", "status": 503}},
    ]
    for rule in rules:
        status, hdrs, body = admin(srv, "POST", "/faults", rule)
        v.note(f"{rule['id']}: {status} {body[:120]!r}")
        v.check(status == 400, f"{rule['id']}: expected 400, got {status}")
        v.check(hdrs.get("content-type", "").startswith("application/json"), f"{rule['id']}: not JSON")
        try:
            c = H2Client(srv)
            v.check(c.post() == 200, f"push after {rule['id']} did not succeed")
            c.close()
        except Exception as e:
            v.check(False, f"push after {rule['id']}: {e!r}")
        if not srv.alive:
            v.check(False, f"server died after {rule['id']}")
            break
        admin(srv, "DELETE", "/faults")
    # Transport-level errors on the admin port are JSON too.
    for name, req in (("bad request line", b"GARBAGE\r\n\r\n"),
                      ("huge header", b"GET /health HTTP/1.1\r\nHost: x\r\nX: " + b"a" * 70000 + b"\r\n\r\n")):
        try:
            status, hdrs, body = http1(srv.admin, req)
        except OSError as e:
            v.check(False, f"{name}: {e!r}")
            continue
        v.note(f"{name}: {status} {hdrs.get('content-type')}")
        v.check(status is not None and 400 <= status < 500, f"{name}: status {status}")
        v.check(hdrs.get("content-type", "").startswith("application/json") and b'"error"' in body, f"{name}: not a JSON error body")
    return v


def attack_idle_sockets(srv, count=4200):
    """Thousands of silent sockets on one listener: a new client is still served."""
    v = Verdict("idle-sockets")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, count + 512)), hard))
    socks = []
    try:
        for _ in range(count):
            try:
                socks.append(socket.create_connection(("127.0.0.1", srv.apns), timeout=2))
            except OSError as e:
                v.note(f"opened {len(socks)} before {e!r}")
                break
        time.sleep(0.3)
        t = time.perf_counter()
        try:
            c = H2Client(srv, timeout=5)
            v.check(c.post() == 200, "push failed")
            c.close()
        except Exception as e:
            v.check(False, f"new client not served with {len(socks)} idle sockets: {e!r}")
        v.note(f"{len(socks)} idle sockets; new client served in {(time.perf_counter() - t) * 1000:.0f} ms")
        v.check(time.perf_counter() - t < 3, "new client took over 3 s")
        status, _, _ = admin(srv, "GET", "/health")
        v.check(status == 200, f"/health: {status}")
    finally:
        for s in socks:
            s.close()
    v.check(srv.alive, "server died")
    return v


def fill_history(srv, n):
    """n pushes with h2load (distinct connections, one token), returns the 2xx count h2load saw."""
    body = os.path.join(srv.dir, "body.json")
    open(body, "wb").write(BODY)
    out = subprocess.run(["h2load", "-n", str(n), "-c", "4", "-m", "50", "-d", body,
                          "-H", "authorization: bearer " + srv.jwt, "-H", "apns-topic: " + srv.topic,
                          "-H", "apns-push-type: alert", f"https://127.0.0.1:{srv.apns}/3/device/{TOKEN}"],
                         capture_output=True, text=True, timeout=120)
    for line in out.stdout.splitlines():
        if line.startswith("status codes:"):
            return int(line.split()[2])
    raise RuntimeError("h2load printed no status codes: " + out.stdout[-400:] + out.stderr[-400:])


def dump_history(admin_port, q):
    """The whole history, page after page (`nextCursor`), as a client would fetch it; puts
    (bytes read, seconds, exchanges) on `q`. Runs in its own process."""
    t = time.perf_counter()
    n, cursor, entries = 0, None, 0
    while True:
        path = "/history?limit=5000" + (f"&cursor={cursor}" if cursor else "")
        s = socket.create_connection(("127.0.0.1", admin_port), timeout=60)
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        buf = bytearray()
        while True:
            d = s.recv(1 << 16)
            if not d:
                break
            buf += d
        s.close()
        n += len(buf)
        end = buf.index(b"\r\n\r\n")
        head, pos = bytes(buf[:end]).lower(), end + 4
        if b"chunked" in head:
            body = bytearray()
            while True:
                eol = buf.index(b"\r\n", pos)
                size = int(bytes(buf[pos:eol]).split(b";")[0], 16)
                if size == 0:
                    break
                body += buf[eol + 2:eol + 2 + size]
                pos = eol + 2 + size + 2
        else:
            body = buf[pos:]
        doc = json.loads(bytes(body))
        entries += len(doc.get("exchanges", []))
        cursor = doc.get("nextCursor")
        if not cursor:
            break
    q.put((n, time.perf_counter() - t, entries))


def attack_history_dump(srv):
    """GET /history at cap: memory stays bounded and pushes keep flowing while it is written."""
    v = Verdict("history-dump-at-cap")
    ok = fill_history(srv, 50000)
    v.note(f"h2load 2xx: {ok}")
    probe = Probe(srv)
    base = probe.baseline(20)
    rss0 = srv.rss_kb()
    peak = rss0
    q = multiprocessing.Queue()
    with probe:
        # Separate processes: parsing 100 MB of JSON must not stall the probe on the GIL.
        ts = [multiprocessing.Process(target=dump_history, args=(srv.admin, q)) for _ in range(3)]
        for t in ts:
            t.start()
        while any(t.is_alive() for t in ts):
            peak = max(peak, srv.rss_kb())
            time.sleep(0.02)
    results = [q.get(timeout=5) for _ in ts]
    v.check(srv.alive, "server died")
    for n, secs, entries in results:
        v.note(f"full dump {entries} exchanges, {n / 1e6:.1f} MB in {secs:.1f} s")
        # The probe keeps pushing while the pages are read, so the history moves under the
        # cursor: the dump holds at least the cap, a little more with the probe's pushes.
        v.check(entries >= 49_000, f"a full dump returned {entries} exchanges, fewer than the 50000 at cap")
    v.note(f"RSS {rss0 // 1024} → peak {peak // 1024} MB during 3 concurrent dumps")
    v.check(peak - rss0 <= 48 * 1024, f"RSS grew {(peak - rss0) // 1024} MB during dumps")
    judge_probe(v, probe, base, max_seconds=1.0)
    probe.client.close()
    return v


def attack_sse_slow_reader(srv):
    """A history-stream client that never reads: bounded memory, then dropped."""
    v = Verdict("sse-slow-reader")
    fill_history(srv, 50000)  # at cap first: further growth is the stream's, not the history's
    s = socket.create_connection(("127.0.0.1", srv.admin), timeout=5)
    s.sendall(b"GET /history/stream HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
    time.sleep(0.2)
    rss0 = srv.rss_kb()
    ok = fill_history(srv, 30000)
    time.sleep(0.3)
    grown = srv.rss_kb() - rss0
    v.note(f"history at cap, then 30k pushes ({ok} 2xx) with a stalled SSE reader: RSS +{grown // 1024} MB")
    v.check(grown <= 16 * 1024, f"RSS grew {grown // 1024} MB")
    # The stalled reader was told it lagged, its stream ended (the last chunk) and the server
    # closed the connection (`connection: close`), so what it held for it was bounded.
    s.settimeout(3)
    tail, ended, total = b"", False, 0
    try:
        while total < 256 << 20:
            d = s.recv(1 << 16)
            if not d:
                ended = True
                break
            total += len(d)
            tail = (tail + d)[-4096:]
    except OSError:
        pass
    v.note(f"the stalled reader then read {total / 1e6:.1f} MB and was disconnected" if ended else "")
    v.check(ended, "the stalled reader was not disconnected")
    v.check(tail.endswith(b"\r\n0\r\n\r\n"), "the stream did not end with its last chunk")
    v.check(b"lagged" in tail, "the stalled reader was not told it lagged")
    v.check(srv.alive, "server died")
    s.close()
    return v


def attack_connection_burst(srv, count=3000):
    """3,000 concurrent TLS connections with the HTTP/2 preface, then all closed: memory
    taken by the burst goes back (malloc_trim after bursts)."""
    v = Verdict("connection-burst")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, count + 512)), hard))
    rss0 = srv.rss_kb()
    socks = []
    for _ in range(count):
        try:
            s = tls_socket(srv.apns, srv.ca)
            s.sendall(PREFACE + frame(SETTINGS, 0, 0))
            socks.append(s)
        except OSError as e:
            v.note(f"opened {len(socks)} before {e!r}")
            break
    time.sleep(0.5)
    peak = srv.rss_kb()
    for s in socks:
        s.close()
    deadline = time.time() + 5
    after = srv.rss_kb()
    while time.time() < deadline and after - rss0 > 16 * 1024:
        time.sleep(0.2)
        after = srv.rss_kb()
    v.note(f"{len(socks)} connections: RSS {rss0 // 1024} → {peak // 1024} MB open → {after // 1024} MB after close")
    v.check(len(socks) == count, f"only {len(socks)} of {count} connections opened")
    v.check(after - rss0 <= max(16 * 1024, (peak - rss0) // 4), f"RSS stayed {(after - rss0) // 1024} MB above the start")
    c = H2Client(srv)
    v.check(c.post() == 200, "push after the burst failed")
    c.close()
    v.check(srv.alive, "server died")
    return v


ATTACKS = {
    "priority-flood": lambda srv: run_flood(srv, "priority"),
    "continuation-flood": lambda srv: run_flood(srv, "continuation"),
    "ping-flood": lambda srv: run_flood(srv, "ping"),
    "ping-flood-unread": attack_ping_flood_unread,
    "settings-flood": lambda srv: run_flood(srv, "settings"),
    "empty-data-flood": lambda srv: run_flood(srv, "empty-data"),
    "rapid-reset": lambda srv: run_flood(srv, "rapid-reset"),
    "hpack-bomb": attack_hpack_bomb,
    "zero-window-hold": attack_flow_control,
    "garbage": attack_garbage,
    "slowloris": attack_slowloris,
    "admin-extreme-numbers": attack_admin_numbers,
    "idle-sockets": attack_idle_sockets,
    "history-dump-at-cap": attack_history_dump,
    "sse-slow-reader": attack_sse_slow_reader,
    "connection-burst": attack_connection_burst,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=".build/debug/pushdouble")
    ap.add_argument("--only", default="")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print("\n".join(ATTACKS))
        return 0
    names = [n for n in a.only.split(",") if n] or list(ATTACKS)
    unknown = [n for n in names if n not in ATTACKS]
    if unknown:
        print(f"abuse: unknown attack {unknown}; --list shows them")
        return 2
    passed = failed = 0
    for name in names:
        srv = Server(a.binary)  # a fresh server per attack: one attack's damage cannot hide another's
        t = time.perf_counter()
        try:
            v = ATTACKS[name](srv)
        except Exception as e:
            v = Verdict(name)
            v.check(False, f"attack raised {e!r}")
        finally:
            alive = srv.alive
            srv.stop()
        ok = not v.problems and alive
        passed += ok
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'}  {name}  ({time.perf_counter() - t:.1f} s)  " + "; ".join(v.notes))
        for p in v.problems:
            print(f"      - {p}")
        sys.stdout.flush()
    print(f"abuse: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    multiprocessing.set_start_method("fork")
    sys.exit(main())
