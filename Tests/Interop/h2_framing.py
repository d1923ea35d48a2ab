"""Exact response framing: each ResponseFraming gives the frames it promises."""
import sys
import h2.events
from h2_common import connect, request, pump, ended, check, send_body

port = int(sys.argv[1])
sock, conn = connect(port)

def frames(stream_id, path):
    request(conn, stream_id, path)
    sock.sendall(conn.data_to_send())
    evs = pump(sock, conn, ended(stream_id), ack=True)
    out = []
    for e in evs:
        if getattr(e, "stream_id", None) != stream_id:
            continue
        if isinstance(e, h2.events.ResponseReceived):
            out.append("HEADERS+ES" if e.stream_ended is not None else "HEADERS")
        elif isinstance(e, h2.events.DataReceived):
            out.append("DATA(%d)%s" % (len(e.data), "+ES" if e.stream_ended is not None else ""))
    sock.sendall(conn.data_to_send())
    return out

check(frames(1, "/auto-empty") == ["HEADERS+ES"], "automatic, empty body: one HEADERS with END_STREAM")
check(frames(3, "/auto-body") == ["HEADERS", "DATA(25)+ES"], "automatic with body: HEADERS + DATA")
check(frames(5, "/headers-only") == ["HEADERS+ES"], "headersOnly: one HEADERS with END_STREAM")
check(frames(7, "/single") == ["HEADERS", "DATA(25)+ES"], "singleDataFrame: HEADERS + one DATA")
check(frames(9, "/single-empty") == ["HEADERS", "DATA(0)+ES"], "singleDataFrame, empty body: HEADERS + empty DATA")
check(frames(11, "/chunked") == ["HEADERS", "DATA(10)", "DATA(10)", "DATA(5)+ES"], "chunked(10): DATA 10,10,5")
big = frames(13, "/big")
check(big[0] == "HEADERS" and sum(int(f.split("(")[1].split(")")[0]) for f in big[1:]) == 100000, "100000-byte body arrives whole")
request(conn, 15, "/echo", method="POST", end=False)
sock.sendall(conn.data_to_send())
send_body(sock, conn, 15, b"x" * 70000)
evs = pump(sock, conn, ended(15), ack=True)
got = b"".join(e.data for e in evs if isinstance(e, h2.events.DataReceived))
check(got.startswith(b"POST /echo 70000"), "70000-byte request body (beyond the initial window) received: %r" % got[:20])
conn.close_connection()
sock.sendall(conn.data_to_send())
print("done")
