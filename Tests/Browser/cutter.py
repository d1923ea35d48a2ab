"""A loopback TCP forwarder that can cut every connection through it, for the reconnect check
of the browser tests: the page is loaded through it, `cut()` closes its connections (the live
stream among them) and refuses new ones, `resume()` lets them through again.
"""
import socket
import threading


class Cutter:
    """Forwards 127.0.0.1:<port> to `target` (host, port) until `close()`."""

    def __init__(self, target):
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.sockets = set()
        self.refusing = False
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def cut(self):
        """Closes every forwarded connection; new ones are closed as soon as they arrive."""
        with self.lock:
            self.refusing = True
            victims, self.sockets = self.sockets, set()
        for s in victims:
            _close(s)

    def resume(self):
        with self.lock:
            self.refusing = False

    def close(self):
        self.closed = True
        self.cut()
        _close(self.listener)

    def _accept(self):
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                refusing = self.refusing
            if refusing:
                _close(client)
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                _close(client)
                continue
            with self.lock:
                self.sockets.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source, sink):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        finally:
            with self.lock:
                self.sockets.discard(source)
                self.sockets.discard(sink)
            _close(source)
            _close(sink)


def _close(s):
    try:
        s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    s.close()
