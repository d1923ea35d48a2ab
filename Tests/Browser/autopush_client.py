"""A minimal autopush WebSocket client (standard library only): what Firefox's push service
says to the double's ``webpush-autopush`` listener (docs/webpush.md "Browsers over the
autopush WebSocket protocol"): ``hello``, ``register`` with the VAPID key, and ``ack`` for each
``notification``. RFC 6455 framing: masked client text frames, the server's unmasked ones."""
import base64
import json
import os
import socket
import struct
import uuid
from urllib.parse import urlparse


class AutopushClient:
    def __init__(self, url, timeout=10):
        u = urlparse(url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET / HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                           "Sec-WebSocket-Protocol: push-notification\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise ConnectionError("closed during the opening handshake")
            head += chunk
        status = head.split(b"\r\n", 1)[0]
        if b" 101 " not in status + b" ":
            raise ConnectionError(f"no 101 Switching Protocols: {head!r}")
        self.uaid = None

    def _read(self, n):
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise ConnectionError("connection closed")
            out += chunk
        return out

    def send(self, message):
        payload = json.dumps(message).encode()
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack("!H", n))
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def receive(self):
        """The next text message as JSON (pings answered, other control frames skipped)."""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read(8))[0]
            payload = self._read(n)
            opcode = b0 & 0x0F
            if opcode == 0x1:
                return json.loads(payload)
            if opcode == 0x8:
                raise ConnectionError(f"closed by the server: {payload!r}")

    def hello(self):
        self.send({"messageType": "hello", "broadcasts": {}, "use_webpush": True})
        answer = self.receive()
        assert answer.get("messageType") == "hello" and answer.get("status") == 200, answer
        self.uaid = answer["uaid"]
        return self.uaid

    def register(self, vapid_public_key):
        """A channel restricted to the VAPID key (base64url with padding, as Firefox sends it):
        (channelID, pushEndpoint)."""
        channel = str(uuid.uuid4())
        key = vapid_public_key.rstrip("=") + "=" * (-len(vapid_public_key.rstrip("=")) % 4)
        self.send({"messageType": "register", "channelID": channel, "key": key})
        answer = self.receive()
        assert answer.get("messageType") == "register" and answer.get("status") == 200, answer
        return channel, answer["pushEndpoint"]

    def ack_next(self, code=100):
        """Waits for a notification, acks it with ``code``; returns the notification."""
        while True:
            m = self.receive()
            if m.get("messageType") == "notification":
                self.send({"messageType": "ack", "updates": [{"channelID": m["channelID"], "version": m["version"], "code": code}]})
                return m

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass
