"""GOAWAY action: last-stream-id, error code and debug data as scripted; the stream at
or below it is still answered after the GOAWAY, the connection then closes.

python-h2 stops accepting frames once it has seen a GOAWAY, so the server's output
after the requests is read raw and parsed with hyperframe."""
import sys
import h2.events
from hyperframe.frame import GoAwayFrame, HeadersFrame, DataFrame
from h2_common import connect, request, pump, check, raw_frames_until_eof

port = int(sys.argv[1])
sock, conn = connect(port)
request(conn, 1, "/auto-empty")
sock.sendall(conn.data_to_send())
pump(sock, conn, lambda evs: any(isinstance(e, h2.events.StreamEnded) for e in evs))
request(conn, 3, "/goaway-this")
sock.sendall(conn.data_to_send())
frames = [f for f in raw_frames_until_eof(sock) if isinstance(f, (GoAwayFrame, HeadersFrame, DataFrame))]
check([type(f).__name__ for f in frames] == ["GoAwayFrame", "HeadersFrame"], "GOAWAY then the HEADERS answering stream 3: %r" % frames)
ga, hd = frames
check(ga.last_stream_id == 3, "last-stream-id 3: %r" % ga.last_stream_id)
check(ga.error_code == 0, "NO_ERROR")
check(ga.additional_data == b'{"reason":"Shutdown"}', "debug data %r" % ga.additional_data)
check(hd.stream_id == 3 and "END_STREAM" in hd.flags, "stream 3 answered with END_STREAM, then EOF")

sock2, conn2 = connect(port)
request(conn2, 1, "/goaway-before")
sock2.sendall(conn2.data_to_send())
evs = pump(sock2, conn2, lambda evs: "EOF" in evs)
ga = [e for e in evs if isinstance(e, h2.events.ConnectionTerminated)]
check(len(ga) == 1 and ga[0].last_stream_id == 0 and ga[0].error_code == 0xb, "beforeThisStream: last-stream-id 0, ENHANCE_YOUR_CALM")
check(not any(isinstance(e, h2.events.ResponseReceived) for e in evs), "unprocessed stream gets no response")
print("done")
