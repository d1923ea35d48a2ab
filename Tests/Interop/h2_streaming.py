"""Bodies produced over time: `.stream` (a source writing from its own thread, hopping to
the connection's loop) and `.dribble` (DATA chunks on a timer)."""
import sys
import time
import h2.events
from h2_common import connect, request, pump, ended, check

port = int(sys.argv[1])
sock, conn = connect(port)

request(conn, 1, "/sse")
sock.sendall(conn.data_to_send())
evs = pump(sock, conn, ended(1), ack=True)
resp = [e for e in evs if isinstance(e, h2.events.ResponseReceived)][0]
check(resp.stream_ended is None and dict(resp.headers).get("content-type") == "text/event-stream", "stream: HEADERS without END_STREAM")
check("content-length" not in dict(resp.headers), "stream: no content-length")
data = [e for e in evs if isinstance(e, h2.events.DataReceived)]
body = b"".join(e.data for e in data)
check(body == b"data: 0\n\ndata: 1\n\ndata: 2\n\n", "stream: three events in order: %r" % body)
check(len([d for d in data if d.data]) == 3, "stream: one DATA frame per write")

start = time.monotonic()
request(conn, 3, "/dribble")
sock.sendall(conn.data_to_send())
evs = pump(sock, conn, ended(3), ack=True)
elapsed = time.monotonic() - start
sizes = [len(e.data) for e in evs if isinstance(e, h2.events.DataReceived)]
check(sizes == [4, 4, 2] and elapsed >= 0.14, "dribble: DATA 4,4,2 over %.2f s" % elapsed)
print("done")
