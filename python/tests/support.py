"""Test helpers: real traffic to the fakes with the standard library only (FCM with an
RS256 assertion signed in pure Python, Expo, Web Push without payload), and a JSON-RPC
client for driver-protocol processes (the reference sender, the kit's adapters)."""

import base64
import hashlib
import json
import os
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src")
REPO = os.path.dirname(os.path.dirname(HERE))


def subprocess_env(**extra):
    """The environment for a child Python that must import this checkout's pushdouble."""
    env = dict(os.environ)
    if not os.environ.get("PUSHDOUBLE_TEST_INSTALLED"):
        env["PYTHONPATH"] = SRC + ((os.pathsep + env["PYTHONPATH"]) if env.get("PYTHONPATH") else "")
    env.update({k: v for k, v in extra.items() if v is not None})
    return env


# -- HTTPS with urllib, no proxy ----------------------------------------------------------------

def https(url, ca_file, method="POST", body=None, headers=None, timeout=10):
    """One request; returns (status, headers dict (lowercase), body text). Never raises for HTTP errors."""
    ctx = ssl.create_default_context(cafile=ca_file)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), urllib.request.HTTPSHandler(context=ctx))
    data = body if isinstance(body, (bytes, type(None))) else (body.encode() if isinstance(body, str) else json.dumps(body).encode())
    h = {"content-type": "application/json"} if data is not None and not isinstance(body, bytes) else {}
    h.update(headers or {})
    req = urllib.request.Request(url, data=data, headers=h, method=method)
    try:
        with opener.open(req, timeout=timeout) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read().decode("utf-8", "replace")


# -- RS256 (PKCS#1 v1.5, SHA-256) in pure Python -----------------------------------------------

def _der(data, pos):
    tag = data[pos]
    length = data[pos + 1]
    pos += 2
    if length & 0x80:
        n = length & 0x7F
        length = int.from_bytes(data[pos:pos + n], "big")
        pos += n
    return tag, data[pos:pos + length], pos + length


def _children(data):
    pos, out = 0, []
    while pos < len(data):
        tag, value, pos = _der(data, pos)
        out.append((tag, value))
    return out


def rsa_private_numbers(pem):
    der = base64.b64decode("".join(l for l in pem.strip().splitlines() if not l.startswith("-----")))
    parts = _children(_der(der, 0)[1])
    if parts[1][0] == 0x30:  # PKCS#8 → the RSAPrivateKey inside the OCTET STRING
        parts = _children(_der(parts[2][1], 0)[1])
    ints = [int.from_bytes(v, "big") for t, v in parts if t == 0x02]
    return ints[1], ints[3]


def rs256(message, pem):
    n, d = rsa_private_numbers(pem)
    k = (n.bit_length() + 7) // 8
    t = bytes.fromhex("3031300d060960864801650304020105000420") + hashlib.sha256(message).digest()
    em = b"\x00\x01" + b"\xff" * (k - len(t) - 3) + b"\x00" + t
    return pow(int.from_bytes(em, "big"), d, n).to_bytes(k, "big")


def b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def fcm_access_token(env):
    sa = json.load(open(env["FCM_SERVICE_ACCOUNT_FILE"]))
    now = int(time.time())
    head = b64u(json.dumps({"alg": "RS256", "typ": "JWT", "kid": sa["private_key_id"]}).encode())
    claims = b64u(json.dumps({"iss": sa["client_email"], "scope": "https://www.googleapis.com/auth/firebase.messaging",
                              "aud": sa["token_uri"], "iat": now, "exp": now + 3600}).encode())
    jwt = head + "." + claims + "." + b64u(rs256((head + "." + claims).encode(), sa["private_key"]))
    form = urllib.parse.urlencode({"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": jwt})
    status, _, body = https(sa["token_uri"], env["PUSHDOUBLE_CA_FILE"], body=form.encode(),
                            headers={"content-type": "application/x-www-form-urlencoded"})
    assert status == 200, body
    return json.loads(body)["access_token"]


def fcm_send(env, token, notification=None, data=None, access_token=None):
    access_token = access_token or fcm_access_token(env)
    message = {"token": token, "notification": notification or {"title": "Hi", "body": "there"}}
    if data:
        message["data"] = data
    url = "%s/v1/projects/%s/messages:send" % (env["FCM_URL"], env["FCM_PROJECT_ID"])
    return https(url, env["PUSHDOUBLE_CA_FILE"], body={"message": message},
                 headers={"authorization": "Bearer " + access_token})


def expo_send(env, messages):
    return https(env["EXPO_URL"] + "/--/api/v2/push/send", env["PUSHDOUBLE_CA_FILE"], body=messages,
                 headers={"authorization": "Bearer " + env["EXPO_ACCESS_TOKEN"]})


# -- JSON-RPC over a child's stdio ---------------------------------------------------------------

class RpcProcess:
    """A driver-protocol process: ``call(method, params)`` → the reply object."""

    def __init__(self, argv, env=None, cwd=None):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=env, cwd=cwd)
        self._id = 0
        self._stderr = []
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.proc.stderr:
            self._stderr.append(line.decode("utf-8", "replace"))

    @property
    def stderr(self):
        return "".join(self._stderr)

    def send_line(self, text):
        self.proc.stdin.write(text.encode() + b"\n")
        self.proc.stdin.flush()

    def read_reply(self, timeout=20):
        box = []
        t = threading.Thread(target=lambda: box.append(self.proc.stdout.readline()), daemon=True)
        t.start()
        t.join(timeout)
        if not box:
            raise TimeoutError("no reply within %s s; stderr:\n%s" % (timeout, self.stderr))
        line = box[0]
        if not line:
            raise EOFError("the process closed stdout (exit %s); stderr:\n%s" % (self.proc.poll(), self.stderr))
        return json.loads(line)

    def call(self, method, params=None, timeout=20):
        self._id += 1
        msg = {"jsonrpc": "2.0", "id": self._id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send_line(json.dumps(msg))
        reply = self.read_reply(timeout)
        assert reply.get("id") == self._id, reply
        return reply

    def result(self, method, params=None, timeout=20):
        reply = self.call(method, params, timeout)
        assert "result" in reply, "%s failed: %r\nstderr:\n%s" % (method, reply, self.stderr)
        return reply["result"]

    def close(self, timeout=10):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


def reference_sender(path, server_env):
    """The reference sender configured from the double's environment (all four providers)."""
    p = RpcProcess([path], env=dict(os.environ, **server_env))
    p.result("initialize", {"protocolVersion": 1, "providers": {}})
    return p


def python_adapter(script, **env):
    return RpcProcess([sys.executable, os.path.join(HERE, "adapters", script)], env=subprocess_env(**env))
