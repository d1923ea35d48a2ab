"""Flow control with a tiny window: DATA split and resumed on WINDOW_UPDATE, except
singleDataFrame which waits for a window large enough for the whole body."""
import sys
import h2.events
import h2.settings
from h2_common import connect, request, pump, ended, check

port = int(sys.argv[1])
sock, conn = connect(port, settings={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 10})

def data_events(evs, sid):
    return [e for e in evs if isinstance(e, h2.events.DataReceived) and e.stream_id == sid]

# Automatic 25-byte body: 10, then 10 after an update, then 5.
request(conn, 1, "/auto-body")
sock.sendall(conn.data_to_send())
evs = pump(sock, conn, lambda evs: len(data_events(evs, 1)) >= 1)
sizes = [len(e.data) for e in data_events(evs, 1)]
check(sizes == [10], "first DATA limited to the 10-byte window: %r" % sizes)
for expect, es in ((10, False), (5, True)):
    conn.increment_flow_control_window(10, stream_id=1)
    sock.sendall(conn.data_to_send())
    evs = pump(sock, conn, lambda evs: len(data_events(evs, 1)) >= 1)
    d = data_events(evs, 1)[0]
    check(len(d.data) == expect and (d.stream_ended is not None) == es, "resumed DATA of %d bytes (END_STREAM=%s)" % (expect, es))

# singleDataFrame 25 bytes: nothing until the window reaches 25, then one frame.
request(conn, 3, "/single")
sock.sendall(conn.data_to_send())
evs = pump(sock, conn, lambda evs: any(isinstance(e, h2.events.ResponseReceived) for e in evs))
check(not data_events(evs, 3), "singleDataFrame sends no DATA into a 10-byte window")
conn.increment_flow_control_window(10, stream_id=3)
conn.ping(b"12345678")
sock.sendall(conn.data_to_send())
evs = pump(sock, conn, lambda evs: any(isinstance(e, h2.events.PingAckReceived) for e in evs))
check(not data_events(evs, 3), "still waiting at a 20-byte window")
conn.increment_flow_control_window(5, stream_id=3)
sock.sendall(conn.data_to_send())
evs = pump(sock, conn, ended(3))
d = data_events(evs, 3)
check(len(d) == 1 and len(d[0].data) == 25 and d[0].stream_ended is not None, "one DATA frame of 25 bytes with END_STREAM")
print("done")
