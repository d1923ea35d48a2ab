"""Web Push (RFC 8030) with aes128gcm encryption (RFC 8291) and VAPID (RFC 8292).

The standard library has no P-256 ECDH, ECDSA or AES-GCM, so this part needs the
``cryptography`` package. Configuration from the environment: ``VAPID_PRIVATE_KEY_FILE``
(PEM), ``VAPID_PUBLIC_KEY`` (base64url, uncompressed point), ``VAPID_SUBJECT``.
"""

import base64
import json
import os
import ssl
import struct
import time
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import hashes, hmac, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM


def _b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def _unb64u(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def _hmac(key, data):
    h = hmac.HMAC(key, hashes.SHA256())
    h.update(data)
    return h.finalize()


def encrypt_aes128gcm(plaintext, p256dh, auth, record_size=4096):
    """RFC 8291 §3.4 / RFC 8188: one record, the sender's key in the header."""
    ua_public = _unb64u(p256dh)
    auth_secret = _unb64u(auth)
    as_private = ec.generate_private_key(ec.SECP256R1())
    as_public = as_private.public_key().public_bytes(serialization.Encoding.X962,
                                                     serialization.PublicFormat.UncompressedPoint)
    ua_key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), ua_public)
    shared = as_private.exchange(ec.ECDH(), ua_key)
    prk_key = _hmac(auth_secret, shared)
    ikm = _hmac(prk_key, b"WebPush: info\x00" + ua_public + as_public + b"\x01")
    salt = os.urandom(16)
    prk = _hmac(salt, ikm)
    cek = _hmac(prk, b"Content-Encoding: aes128gcm\x00\x01")[:16]
    nonce = _hmac(prk, b"Content-Encoding: nonce\x00\x01")[:12]
    ciphertext = AESGCM(cek).encrypt(nonce, plaintext + b"\x02", None)
    return salt + struct.pack("!IB", record_size, len(as_public)) + as_public + ciphertext


def vapid_header(endpoint, private_key_pem, public_key, subject, lifetime=12 * 3600):
    """``Authorization: vapid t=<ES256 JWT>, k=<public key>`` for the endpoint's origin."""
    u = urlsplit(endpoint)
    aud = "%s://%s" % (u.scheme, u.netloc)
    key = serialization.load_pem_private_key(private_key_pem, password=None)
    header = _b64u(json.dumps({"typ": "JWT", "alg": "ES256"}).encode())
    claims = _b64u(json.dumps({"aud": aud, "exp": int(time.time()) + lifetime, "sub": subject}).encode())
    der = key.sign((header + "." + claims).encode(), ec.ECDSA(hashes.SHA256()))
    r, s = decode_dss_signature(der)
    jwt = header + "." + claims + "." + _b64u(r.to_bytes(32, "big") + s.to_bytes(32, "big"))
    return "vapid t=%s, k=%s" % (jwt, public_key)


class WebPushClient:
    def __init__(self, private_key_file=None, public_key=None, subject=None, ca_file=None, timeout=30):
        with open(private_key_file or os.environ["VAPID_PRIVATE_KEY_FILE"], "rb") as f:
            self.private_key_pem = f.read()
        self.public_key = public_key or os.environ["VAPID_PUBLIC_KEY"]
        self.subject = subject or os.environ.get("VAPID_SUBJECT", "mailto:ops@example.com")
        self.context = ssl.create_default_context(cafile=ca_file) if ca_file else ssl.create_default_context()
        self.timeout = timeout

    def send(self, subscription, payload, ttl=3600, urgency="normal"):
        """POST one message; returns the HTTP status (201 accepted, 404/410 gone, ...)."""
        if isinstance(payload, str):
            payload = payload.encode("utf-8")
        keys = subscription["keys"]
        body = encrypt_aes128gcm(payload, keys["p256dh"], keys["auth"])
        endpoint = subscription["endpoint"]
        req = urllib.request.Request(endpoint, data=body, method="POST", headers={
            "TTL": str(ttl), "Urgency": urgency, "Content-Encoding": "aes128gcm",
            "Content-Type": "application/octet-stream",
            "Authorization": vapid_header(endpoint, self.private_key_pem, self.public_key, self.subject),
        })
        try:
            with urllib.request.urlopen(req, context=self.context, timeout=self.timeout) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code
