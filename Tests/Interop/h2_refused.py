"""MAX_CONCURRENT_STREAMS=1: the second concurrent stream gets RST_STREAM REFUSED_STREAM;
after the responder raises the limit (updateSettings) and we ACK, more streams work."""
import sys
import h2.events
from h2_common import connect, request, pump, ended, check

port = int(sys.argv[1])
sock, conn = connect(port)
# Open two streams before reading the server's SETTINGS (h2 would otherwise refuse to).
request(conn, 1, "/stall")
request(conn, 3, "/auto-empty")
sock.sendall(conn.data_to_send())
evs = pump(sock, conn, lambda evs: any(isinstance(e, h2.events.StreamReset) for e in evs))
resets = [e for e in evs if isinstance(e, h2.events.StreamReset)]
check(resets[0].stream_id == 3 and resets[0].error_code == 7, "stream 3 refused with REFUSED_STREAM: %r" % resets)
check(conn.remote_settings.max_concurrent_streams == 1, "server announced MAX_CONCURRENT_STREAMS=1")
conn.reset_stream(1)
request(conn, 5, "/raise")
sock.sendall(conn.data_to_send())
evs = pump(sock, conn, lambda evs: ended(5)(evs) and any(isinstance(e, h2.events.RemoteSettingsChanged) for e in evs))
check(conn.remote_settings.max_concurrent_streams == 1000, "limit raised to 1000 by a second SETTINGS")
for sid in (7, 9, 11, 13):
    request(conn, sid, "/stall")
request(conn, 15, "/auto-empty")
sock.sendall(conn.data_to_send())
evs = pump(sock, conn, ended(15))
check(not any(isinstance(e, h2.events.StreamReset) for e in evs), "five concurrent streams accepted")
print("done")
