"""Shared helpers for the PushDouble HTTP/2 interop clients (Python `h2` library).

Each h2_*.py script takes the server port as its only argument, talks cleartext HTTP/2
with prior knowledge, prints one line per observation and exits 0 only if every
assertion held. Run from Tests/PushDoubleTransportTests/HTTP2InteropTests.swift.
"""
import socket
import sys

import h2.config
import h2.connection
import h2.events
import h2.settings


def connect(port, settings=None):
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    if settings:
        conn.local_settings = h2.settings.Settings(client=True, initial_values=settings)
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    return sock, conn


def request(conn, stream_id, path, method="GET", body=None, end=True):
    headers = [(":method", method), (":scheme", "http"), (":path", path), (":authority", "localhost")]
    conn.send_headers(stream_id, headers, end_stream=(body is None and end))
    if body is not None:
        conn.send_data(stream_id, body, end_stream=end)


def pump(sock, conn, until, timeout=5, ack=False):
    """Reads and dispatches events until until(events_so_far) is true; returns the events.
    With ack=True, received DATA is credited back at once (WINDOW_UPDATE)."""
    sock.settimeout(timeout)
    events = []
    while not until(events):
        try:
            data = sock.recv(65536)
        except socket.timeout:
            fail("timeout waiting; events so far: %r" % events)
        if not data:
            events.append("EOF")
            break
        new = conn.receive_data(data)
        events.extend(new)
        if ack:
            for e in new:
                if isinstance(e, h2.events.DataReceived) and e.flow_controlled_length:
                    conn.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
        out = conn.data_to_send()
        if out:
            sock.sendall(out)
    return events


def ended(stream_id):
    return lambda evs: any(isinstance(e, (h2.events.StreamEnded, h2.events.StreamReset)) and e.stream_id == stream_id for e in evs)


def check(cond, msg):
    if not cond:
        fail(msg)
    print("ok", msg)


def fail(msg):
    print("FAIL", msg)
    sys.exit(1)


def raw_frames_until_eof(sock, timeout=5):
    """Reads to EOF and parses every frame with hyperframe (no connection state: used
    where python-h2 stops processing, e.g. HEADERS after a GOAWAY)."""
    from hyperframe.frame import Frame
    sock.settimeout(timeout)
    buf = b""
    while True:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            fail("timeout waiting for EOF")
        if not data:
            break
        buf += data
    frames = []
    while len(buf) >= 9:
        frame, length = Frame.parse_frame_header(memoryview(buf[:9]))
        if len(buf) < 9 + length:
            break
        frame.parse_body(memoryview(buf[9:9 + length]))
        frames.append(frame)
        buf = buf[9 + length:]
    return frames


def send_body(sock, conn, stream_id, body):
    """Sends a request body within the server's flow-control windows, waiting for its
    WINDOW_UPDATEs; ends the stream."""
    while body:
        n = min(conn.local_flow_control_window(stream_id), conn.max_outbound_frame_size, len(body))
        if n == 0:
            pump(sock, conn, lambda evs: any(isinstance(e, h2.events.WindowUpdated) for e in evs))
            continue
        conn.send_data(stream_id, body[:n])
        body = body[n:]
        sock.sendall(conn.data_to_send())
    conn.end_stream(stream_id)
    sock.sendall(conn.data_to_send())


PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def raw_frames_until(sock, pred, timeout=5):
    """Reads raw frames (hyperframe) until pred(frame) holds, EOF or timeout; returns
    (frames, eof). For scripts that send frames python-h2 would refuse to build."""
    from hyperframe.frame import Frame
    sock.settimeout(timeout)
    buf, out = b"", []
    while True:
        while len(buf) >= 9:
            f, n = Frame.parse_frame_header(memoryview(buf[:9]))
            if len(buf) < 9 + n:
                break
            f.parse_body(memoryview(buf[9:9 + n]))
            buf = buf[9 + n:]
            out.append(f)
            if pred(f):
                return out, False
        try:
            d = sock.recv(65536)
        except socket.timeout:
            return out, False
        if not d:
            return out, True
        buf += d


def raw_settings(pairs, ack=False):
    """A SETTINGS frame with the given (id, value) pairs in order, duplicates allowed
    (hyperframe keeps settings in a dict, so it cannot repeat an id)."""
    payload = b"".join(i.to_bytes(2, "big") + v.to_bytes(4, "big") for i, v in pairs)
    return len(payload).to_bytes(3, "big") + b"\x04" + (b"\x01" if ack else b"\x00") + b"\x00\x00\x00\x00" + payload
