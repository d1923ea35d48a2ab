"""Flow control (RFC 9113 §6.9): DATA goes out in window-sized pieces and resumes on
WINDOW_UPDATE (stream and connection) and on SETTINGS_INITIAL_WINDOW_SIZE changes, which
apply to open streams and may make windows negative (§6.9.2). singleDataFrame keeps its
one frame whenever the window allows it, and falls back to window-sized pieces instead of
waiting for a WINDOW_UPDATE the client has no reason to send (a deadlock)."""
import socket
import sys
import h2.events
import h2.settings
import hpack
from hyperframe.frame import (DataFrame, GoAwayFrame, HeadersFrame, PingFrame, SettingsFrame,
                              WindowUpdateFrame)
from h2_common import (PREFACE, connect, request, pump, ended, check, raw_frames_until, raw_settings)

port = int(sys.argv[1])
IWS = h2.settings.SettingCodes.INITIAL_WINDOW_SIZE
B25 = b"b" * 25


def data_events(evs, sid):
    return [e for e in evs if isinstance(e, h2.events.DataReceived) and e.stream_id == sid]


def ping_roundtrip(sock, conn, opaque=b"flowchk!"):
    """Everything the server sends before it answers a PING (nothing more is on its way)."""
    conn.ping(opaque)
    sock.sendall(conn.data_to_send())
    return pump(sock, conn, lambda evs: any(isinstance(e, h2.events.PingAckReceived) for e in evs))


def window_then(sock, conn, sid, inc):
    conn.increment_flow_control_window(inc, stream_id=sid)
    sock.sendall(conn.data_to_send())
    evs = pump(sock, conn, lambda evs: len(data_events(evs, sid)) >= 1)
    return data_events(evs, sid)[0]


# 1. Automatic framing into a 10-byte window: 10, then 10 after an update, then 5.
sock, conn = connect(port, settings={IWS: 10})
request(conn, 1, "/auto-body")
sock.sendall(conn.data_to_send())
evs = pump(sock, conn, lambda evs: len(data_events(evs, 1)) >= 1)
sizes = [len(e.data) for e in data_events(evs, 1)]
check(sizes == [10], "first DATA limited to the 10-byte window: %r" % sizes)
for expect, es in ((10, False), (5, True)):
    d = window_then(sock, conn, 1, 10)
    check(len(d.data) == expect and (d.stream_ended is not None) == es, "resumed DATA of %d bytes (END_STREAM=%s)" % (expect, es))

# 2. singleDataFrame into the same 10-byte window: window-sized pieces, never a stall.
request(conn, 3, "/single")
sock.sendall(conn.data_to_send())
evs = pump(sock, conn, lambda evs: len(data_events(evs, 3)) >= 1)
check([len(e.data) for e in data_events(evs, 3)] == [10], "singleDataFrame, 10-byte window: DATA of 10 at once")
d = window_then(sock, conn, 3, 10)
check(len(d.data) == 10 and d.stream_ended is None, "singleDataFrame resumed: 10 more bytes")
d = window_then(sock, conn, 3, 5)
check(len(d.data) == 5 and d.stream_ended is not None, "singleDataFrame: last 5 bytes with END_STREAM")
sock.close()

# 3. The issue-9 reproduction: INITIAL_WINDOW_SIZE 1 and a client that credits what it
# reads (as every real client does). The body arrives one octet per frame.
sock, conn = connect(port, settings={IWS: 1})
request(conn, 1, "/single")
sock.sendall(conn.data_to_send())
evs = pump(sock, conn, ended(1), ack=True)
d = data_events(evs, 1)
check(b"".join(e.data for e in d) == B25 and all(len(e.data) == 1 for e in d) and d[-1].stream_ended is not None,
      "1-octet window: 25 DATA frames of 1 byte, END_STREAM on the last (no deadlock)")
sock.close()

# 4. The window allows the whole body: Apple-style single frame.
sock, conn = connect(port, settings={IWS: 25})
request(conn, 1, "/single")
sock.sendall(conn.data_to_send())
evs = pump(sock, conn, ended(1))
d = data_events(evs, 1)
check(len(d) == 1 and d[0].data == B25 and d[0].stream_ended is not None, "25-byte window: one DATA frame of 25 bytes with END_STREAM")
sock.close()

# 5. A zero window, then SETTINGS opens it: the open stream's window follows, and since it
# now allows the whole body the single frame is kept.
sock, conn = connect(port, settings={IWS: 0})
request(conn, 1, "/single")
sock.sendall(conn.data_to_send())
evs = pump(sock, conn, lambda evs: any(isinstance(e, h2.events.ResponseReceived) for e in evs))
evs += ping_roundtrip(sock, conn)
check(not data_events(evs, 1), "zero window: HEADERS only")
conn.update_settings({IWS: 100})
sock.sendall(conn.data_to_send())
evs = pump(sock, conn, ended(1))
d = data_events(evs, 1)
check(len(d) == 1 and d[0].data == B25 and d[0].stream_ended is not None, "SETTINGS raises the open stream's window: one DATA of 25")
sock.close()

# 6. A SETTINGS decrease makes an open stream's window negative (§6.9.2): 10 sent, then
# INITIAL_WINDOW_SIZE 10 -> 5 leaves -5; +8 gives 3; INITIAL 5 -> 20 gives 18 for the rest.
sock, conn = connect(port, settings={IWS: 10})
request(conn, 1, "/auto-body")
sock.sendall(conn.data_to_send())
evs = pump(sock, conn, lambda evs: len(data_events(evs, 1)) >= 1)
conn.update_settings({IWS: 5})
sock.sendall(conn.data_to_send())
evs = pump(sock, conn, lambda evs: any(isinstance(e, h2.events.SettingsAcknowledged) for e in evs))
conn.increment_flow_control_window(4, stream_id=1)
sock.sendall(conn.data_to_send())
evs += ping_roundtrip(sock, conn)
check(not data_events(evs, 1), "window -5 + 4 = -1: nothing sent")
d = window_then(sock, conn, 1, 4)
check(len(d.data) == 3 and d.stream_ended is None, "window -1 + 4 = 3: DATA of 3")
conn.update_settings({IWS: 20})
sock.sendall(conn.data_to_send())
evs = pump(sock, conn, ended(1))
d = data_events(evs, 1)
check([len(e.data) for e in d] == [12] and d[0].stream_ended is not None, "INITIAL_WINDOW_SIZE 5 -> 20: the last 12 bytes")
sock.close()

# 7. The connection window (65535, not changed by SETTINGS) holds every stream; MAX_FRAME_SIZE
# bounds each frame.
sock, conn = connect(port, settings={IWS: 1 << 20})
request(conn, 1, "/big")
sock.sendall(conn.data_to_send())
got = []
while sum(got) < 65535:
    got += [len(e.data) for e in data_events(pump(sock, conn, lambda evs: bool(data_events(evs, 1))), 1)]
evs = ping_roundtrip(sock, conn)
got += [len(e.data) for e in data_events(evs, 1)]
check(sum(got) == 65535 and max(got) <= 16384, "connection window: 65535 bytes in frames of <= 16384, then a stop")
conn.increment_flow_control_window(100000 - 65535)
sock.sendall(conn.data_to_send())
evs = pump(sock, conn, ended(1))
rest = [len(e.data) for e in data_events(evs, 1)]
check(sum(rest) == 100000 - 65535 and max(rest) <= 16384, "connection WINDOW_UPDATE releases the remaining %d bytes" % sum(rest))
sock.close()

# 8. Raw frames: two INITIAL_WINDOW_SIZE values in one SETTINGS frame, the last applies.
enc = hpack.Encoder()


def get(sid, path, end=True):
    f = HeadersFrame(sid, enc.encode([(":method", "GET"), (":scheme", "http"), (":path", path), (":authority", "localhost")]))
    f.flags.add("END_HEADERS")
    if end:
        f.flags.add("END_STREAM")
    return f.serialize()


def is_data(sid):
    return lambda f: isinstance(f, DataFrame) and f.stream_id == sid


def is_ping_ack(f):
    return isinstance(f, PingFrame) and "ACK" in f.flags


s = socket.create_connection(("127.0.0.1", port), timeout=5)
s.sendall(PREFACE + raw_settings([(4, 100), (4, 2)]) + get(1, "/single"))
fs, _ = raw_frames_until(s, is_data(1))
check(fs and is_data(1)(fs[-1]) and len(fs[-1].data) == 2, "SETTINGS with INITIAL_WINDOW_SIZE 100 then 2: DATA of 2")
# A stream held open with its window at the maximum: the net change of the frame (2 -> 1)
# is what applies, so the passing value 100 (an overflow on its own) is no error.
s.sendall(get(3, "/stall") + WindowUpdateFrame(3, 0x7fffffff - 2).serialize())
s.sendall(raw_settings([(4, 100), (4, 1)]) + PingFrame(0, b"lastwins").serialize())
fs, eof = raw_frames_until(s, is_ping_ack)
check(not eof and not [f for f in fs if isinstance(f, GoAwayFrame)], "INITIAL_WINDOW_SIZE 100 then 1 at a full window: no error")
s.sendall(raw_settings([(4, 100)]))
fs, eof = raw_frames_until(s, lambda f: isinstance(f, GoAwayFrame))
g = [f for f in fs if isinstance(f, GoAwayFrame)]
check(g and g[0].error_code == 3, "INITIAL_WINDOW_SIZE 1 -> 100 at a full window: GOAWAY FLOW_CONTROL_ERROR")
s.close()
print("done")
