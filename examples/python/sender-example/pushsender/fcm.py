"""A small, real FCM HTTP v1 sender on the standard library (http.client, HTTP/1.1 keep-alive).

It reads its configuration from the environment as production code would:
``FCM_SERVICE_ACCOUNT_FILE`` (or ``GOOGLE_APPLICATION_CREDENTIALS``), ``FCM_URL``
(default ``https://fcm.googleapis.com``), ``FCM_PROJECT_ID`` (default: the account's
``project_id``); the OAuth2 token URL is the service account's ``token_uri``. TLS trusts
the default store, so ``SSL_CERT_FILE`` (which PushDouble's environment sets to its
test CA) is all a test needs.

The access token is an RS256 JWT-bearer grant (RFC 7523) signed here in pure Python
(PKCS#1 v1.5 over SHA-256), cached until a minute before it expires.
"""

import base64
import email.utils
import hashlib
import http.client
import json
import os
import random
import ssl
import time
import urllib.parse

SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
DEAD_ERRORS = {"UNREGISTERED", "SENDER_ID_MISMATCH"}
RETRY_STATUSES = {429, 500, 502, 503, 504}


def _b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def _der(data, pos):
    tag, length = data[pos], data[pos + 1]
    pos += 2
    if length & 0x80:
        n = length & 0x7F
        length = int.from_bytes(data[pos:pos + n], "big")
        pos += n
    return tag, data[pos:pos + length], pos + length


def _der_items(data):
    pos, out = 0, []
    while pos < len(data):
        tag, value, pos = _der(data, pos)
        out.append((tag, value))
    return out


def rs256_sign(message, private_key_pem):
    """RSASSA-PKCS1-v1_5 with SHA-256, from a PKCS#8 or PKCS#1 PEM private key."""
    der = base64.b64decode("".join(l for l in private_key_pem.strip().splitlines() if not l.startswith("-----")))
    items = _der_items(_der(der, 0)[1])
    if items[1][0] == 0x30:  # PKCS#8 wraps the RSAPrivateKey in an OCTET STRING
        items = _der_items(_der(items[2][1], 0)[1])
    ints = [int.from_bytes(v, "big") for t, v in items if t == 0x02]
    n, d = ints[1], ints[3]
    k = (n.bit_length() + 7) // 8
    digest_info = bytes.fromhex("3031300d060960864801650304020105000420") + hashlib.sha256(message).digest()
    em = b"\x00\x01" + b"\xff" * (k - len(digest_info) - 3) + b"\x00" + digest_info
    return pow(int.from_bytes(em, "big"), d, n).to_bytes(k, "big")


def retry_after_seconds(value, now=None):
    """``Retry-After`` as seconds: delta-seconds or an HTTP-date (None when absent or unreadable)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (now or time.time()))


class FcmResult:
    """What happened to one message: ``outcome`` is ``sent``, ``dead``, ``rejected`` or
    ``failed``; ``attempts`` counts the HTTP requests made."""

    def __init__(self, outcome, status=None, error=None, message_id=None, attempts=0):
        self.outcome, self.status, self.error, self.message_id, self.attempts = outcome, status, error, message_id, attempts

    def __repr__(self):
        return "FcmResult(%s, status=%s, error=%s, attempts=%d)" % (self.outcome, self.status, self.error, self.attempts)


class FcmClient:
    def __init__(self, service_account_file=None, url=None, project_id=None, ca_file=None, token_url=None,
                 max_attempts=4, base_backoff=0.5, max_wait=30.0, sleep=time.sleep, timeout=30):
        path = service_account_file or os.environ.get("FCM_SERVICE_ACCOUNT_FILE") or os.environ["GOOGLE_APPLICATION_CREDENTIALS"]
        with open(path) as f:
            self.account = json.load(f)
        self.url = (url or os.environ.get("FCM_URL") or "https://fcm.googleapis.com").rstrip("/")
        self.project_id = project_id or os.environ.get("FCM_PROJECT_ID") or self.account["project_id"]
        self.token_url = token_url or self.account.get("token_uri") or "https://oauth2.googleapis.com/token"
        self.context = ssl.create_default_context(cafile=ca_file) if ca_file else ssl.create_default_context()
        self.max_attempts, self.base_backoff, self.max_wait = max_attempts, base_backoff, max_wait
        self.sleep, self.timeout = sleep, timeout
        self._token, self._token_expiry = None, 0.0
        self._connections = {}

    # -- HTTP ----------------------------------------------------------------------------

    def _post(self, url, body, headers):
        """One POST on a kept-alive connection per host (HTTP/1.1 keep-alive: FCM, like
        any HTTP/1.1 server, lets a client reuse its connection; a new TLS handshake per
        message is what the conformance suite's connection-reuse check refuses)."""
        u = urllib.parse.urlsplit(url)
        key = (u.hostname, u.port or 443)
        conn = self._connections.get(key)
        if conn is None:
            conn = self._connections[key] = http.client.HTTPSConnection(
                u.hostname, u.port or 443, context=self.context, timeout=self.timeout)
        path = u.path + ("?" + u.query if u.query else "")
        try:
            conn.request("POST", path, body, headers)
            r = conn.getresponse()
            data = r.read()
        except (OSError, http.client.HTTPException):
            conn.close()
            self._connections.pop(key, None)
            raise
        if r.will_close:
            conn.close()
            self._connections.pop(key, None)
        return r.status, r.headers, data

    def close(self):
        for c in self._connections.values():
            c.close()
        self._connections.clear()

    # -- OAuth2 ----------------------------------------------------------------------------

    def access_token(self, force=False):
        if not force and self._token and time.time() < self._token_expiry - 60:
            return self._token
        now = int(time.time())
        header = _b64u(json.dumps({"alg": "RS256", "typ": "JWT", "kid": self.account["private_key_id"]}).encode())
        claims = _b64u(json.dumps({"iss": self.account["client_email"], "scope": SCOPE, "aud": self.token_url,
                                   "iat": now, "exp": now + 3600}).encode())
        signing_input = (header + "." + claims).encode()
        assertion = header + "." + claims + "." + _b64u(rs256_sign(signing_input, self.account["private_key"]))
        form = urllib.parse.urlencode({"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
                                       "assertion": assertion}).encode()
        status, _, body = self._post(self.token_url, form, {"content-type": "application/x-www-form-urlencoded"})
        if status != 200:
            raise RuntimeError("token endpoint answered %d: %s" % (status, body[:300]))
        doc = json.loads(body)
        self._token = doc["access_token"]
        self._token_expiry = time.time() + int(doc.get("expires_in", 3600))
        return self._token

    # -- send ------------------------------------------------------------------------------

    def send(self, message):
        """POST one v1 message (``{"token": ..., "notification": ...}``), retrying transient
        errors (429/5xx, honouring Retry-After) and one 401 with a fresh access token."""
        url = "%s/v1/projects/%s/messages:send" % (self.url, self.project_id)
        body = json.dumps({"message": message}).encode()
        reminted = False
        attempt = 0
        while True:
            attempt += 1
            try:
                status, headers, raw = self._post(url, body, {"authorization": "Bearer " + self.access_token(),
                                                              "content-type": "application/json"})
            except (OSError, http.client.HTTPException) as e:  # connection dropped: outcome unknown, retry
                if attempt >= self.max_attempts:
                    return FcmResult("failed", error=str(e), attempts=attempt)
                self.sleep(self._backoff(attempt))
                continue
            if status == 200:
                return FcmResult("sent", 200, message_id=json.loads(raw).get("name"), attempts=attempt)
            error = _fcm_error(raw)
            if status == 401 and not reminted:
                reminted = True
                self.access_token(force=True)
                attempt -= 1  # a re-mint is not a delivery attempt
                continue
            if error in DEAD_ERRORS or status == 404:
                return FcmResult("dead", status, error, attempts=attempt)
            if status in RETRY_STATUSES and attempt < self.max_attempts:
                wait = retry_after_seconds(headers.get("retry-after"))
                self.sleep(min(self.max_wait, wait if wait is not None else self._backoff(attempt)))
                continue
            outcome = "failed" if status in RETRY_STATUSES else "rejected"
            return FcmResult(outcome, status, error, attempts=attempt)

    def _backoff(self, attempt):
        return self.base_backoff * (2 ** (attempt - 1)) * (0.5 + random.random() / 2)


def _fcm_error(raw):
    """The FcmError code (``UNREGISTERED``...) or the status text of an error body."""
    try:
        err = json.loads(raw).get("error") or {}
    except (ValueError, AttributeError):
        return None
    for d in err.get("details") or ():
        if isinstance(d, dict) and d.get("errorCode"):
            return d["errorCode"]
    return err.get("status")
