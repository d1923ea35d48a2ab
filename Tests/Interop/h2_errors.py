"""Protocol errors over a real socket, h2spec-style: raw frames in (hyperframe), and the
server's GOAWAY / RST_STREAM out, with the RFC 9113 error codes."""
import socket
import sys
from hyperframe.frame import (Frame, SettingsFrame, HeadersFrame, DataFrame, PingFrame,
                              WindowUpdateFrame, GoAwayFrame, RstStreamFrame, ContinuationFrame)
from h2_common import check, raw_frames_until

PORT = int(sys.argv[1])
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
# HPACK, static table only: :method GET, :scheme http, :path /, :authority localhost
GET = bytes([0x82, 0x86, 0x84, 0x41, 0x09]) + b"localhost"


def conn(preface=True):
    s = socket.create_connection(("127.0.0.1", PORT), timeout=5)
    if preface:
        s.sendall(PREFACE + SettingsFrame(0).serialize())
    return s


def frames_until(s, pred):
    """Reads frames until pred(frame) or EOF; returns (frames, eof)."""
    return raw_frames_until(s, pred)


def goaway(s):
    fs, eof = frames_until(s, lambda f: False)
    g = [f for f in fs if isinstance(f, GoAwayFrame)]
    return (g[0].error_code if g else None), eof


def headers(sid, end=True, block=GET):
    f = HeadersFrame(sid, block)
    f.flags.add("END_HEADERS")
    if end:
        f.flags.add("END_STREAM")
    return f.serialize()


# The listener is HTTP/2-only (allowHTTP1: false), so the connection engine sees the
# preface itself; on a mixed listener the runtime would hand a non-preface to HTTP/1.1.
s = conn(preface=False)
s.sendall(b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n")
code, eof = goaway(s)
check(code == 1 and eof, "bad preface: GOAWAY PROTOCOL_ERROR and close")

# §3.4: the client preface must be followed by a SETTINGS frame.
s = conn(preface=False)
s.sendall(PREFACE + PingFrame(0, b"12345678").serialize())
code, eof = goaway(s)
check(code == 1 and eof, "preface then PING instead of SETTINGS: GOAWAY PROTOCOL_ERROR")

s = conn(preface=False)
s.sendall(PREFACE + headers(1))
code, eof = goaway(s)
check(code == 1 and eof, "preface then HEADERS instead of SETTINGS: GOAWAY PROTOCOL_ERROR")

s = conn()
s.sendall(headers(2))
code, eof = goaway(s)
check(code == 1 and eof, "even stream id: GOAWAY PROTOCOL_ERROR")

s = conn()
s.sendall(headers(1, block=bytes([0xff, 0x7f])))
code, eof = goaway(s)
check(code == 9 and eof, "invalid HPACK index: GOAWAY COMPRESSION_ERROR")

s = conn()
s.sendall(WindowUpdateFrame(0, 0x7fffffff).serialize())
code, eof = goaway(s)
check(code == 3 and eof, "connection window overflow: GOAWAY FLOW_CONTROL_ERROR")

s = conn()
big = DataFrame(1, b"x" * 16385)
s.sendall(headers(1, end=False) + big.serialize())
code, eof = goaway(s)
check(code == 6 and eof, "frame over SETTINGS_MAX_FRAME_SIZE: GOAWAY FRAME_SIZE_ERROR")

s = conn()
c = ContinuationFrame(1, GET[2:])
c.flags.add("END_HEADERS")
h = HeadersFrame(1, GET[:2])
h.flags.add("END_STREAM")
s.sendall(h.serialize() + PingFrame(0, b"12345678").serialize() + c.serialize())
code, eof = goaway(s)
check(code == 1 and eof, "frame between HEADERS and CONTINUATION: GOAWAY PROTOCOL_ERROR")

s = conn()
d = DataFrame(1, b"x")
d.flags.add("END_STREAM")
s.sendall(headers(1))
fs, _ = frames_until(s, lambda f: isinstance(f, HeadersFrame) and f.stream_id == 1)
s.sendall(d.serialize() + PingFrame(0, b"alive?!!").serialize())
fs, eof = frames_until(s, lambda f: isinstance(f, PingFrame) and "ACK" in f.flags)
rst = [f for f in fs if isinstance(f, RstStreamFrame)]
check(rst and rst[0].stream_id == 1 and rst[0].error_code == 5, "DATA on a closed stream: RST_STREAM STREAM_CLOSED")
check(not eof and isinstance(fs[-1], PingFrame), "connection still answers PING afterwards")
print("done")
