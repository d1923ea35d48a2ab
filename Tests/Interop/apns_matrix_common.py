"""Shared part of the real-client matrix (Tests/Interop/apns_<library>.py).

Each matrix script drives one independent APNs client library from PyPI against the
PushDouble APNs fake, configured only with what a user would give it: the fake's host,
port(s), the test CA, and the .p8 signing key with its key id / team id. Driven by
Tests/PushDoubleAPNsTests/APNsClientMatrixTests.swift; by hand against `pushdouble serve`:

    python3 Tests/Interop/apns_kalyke.py --host 127.0.0.1 --production-port 2197 --sandbox-port 2198 \
        --ca Certificates/pushdouble-test-ca.pem --key Certificates/AuthKey_PDTESTKEY1.p8 \
        --key-id PDTESTKEY1 --team-id PDTESTTEAM --topic com.example.pushdouble

Every script checks, through the library's own result or exception types:
  success        an ordinary token (production and sandbox listener)
  unregistered   magic token 000000004100… → 410 Unregistered, timestamp 1704067200000
  badDeviceToken magic token 000000004000… → 400 BadDeviceToken
  expired        a JWT whose iat is two hours old → 403 ExpiredProviderToken
The magic tokens are the table of docs/apns.md "Magic test tokens".

Prints one JSON line {"library", "version", "failures", "results"}; exit 1 if a check
failed, 2 if the library is not installed.
"""
import argparse
import contextlib
import datetime as _datetime
import importlib
import importlib.metadata
import json
import sys
import time as _time

from pypi_require import require  # noqa: F401  (re-exported for the scripts)

TOKEN = "ab" * 32
MAGIC_UNREGISTERED = "000000004100" + "0" * 52
MAGIC_BAD_DEVICE_TOKEN = "000000004000" + "0" * 52
UNREGISTERED_TIMESTAMP = 1704067200000
# How far back the clock of the token signer is set for the ExpiredProviderToken case:
# well past the one-hour token lifetime (docs/apns.md §5).
STALE_SECONDS = 2 * 3600


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--host", required=True, help="host the fake listens on, e.g. 127.0.0.1")
    p.add_argument("--production-port", type=int, required=True)
    p.add_argument("--sandbox-port", type=int, required=True)
    p.add_argument("--ca", required=True, help="PEM file of the CA that issued the fake's certificate")
    p.add_argument("--key", required=True, help="the .p8 signing key (PKCS#8 PEM)")
    p.add_argument("--key-id", required=True)
    p.add_argument("--team-id", required=True)
    p.add_argument("--topic", required=True)
    return p.parse_args()


def base_url(a, sandbox=False):
    return f"https://{a.host}:{a.sandbox_port if sandbox else a.production_port}"


class _StaleTime:
    """Stands in for the `time` module inside one library module: time() runs
    STALE_SECONDS behind, everything else is the real module."""

    def time(self):
        return _time.time() - STALE_SECONDS

    def __getattr__(self, name):
        return getattr(_time, name)


class _StaleDatetime(_datetime.datetime):
    """Stands in for the `datetime` class inside one library module: now() runs behind."""

    @classmethod
    def now(cls, tz=None):
        return _datetime.datetime.now(tz) - _datetime.timedelta(seconds=STALE_SECONDS)


@contextlib.contextmanager
def stale_clock(module, attribute):
    """Makes the token signer of a library sign with a two-hour-old `iat`: replaces the
    `time` module (attribute "time") or the `datetime` class (attribute "datetime") that
    `module` imported, and only there, for the duration of the block."""
    original = getattr(module, attribute)
    stand_in = {"time": _StaleTime(), "datetime": _StaleDatetime}[attribute]
    setattr(module, attribute, stand_in)
    try:
        yield
    finally:
        setattr(module, attribute, original)


class Matrix:
    """Collects the checks of one library and prints the result line."""

    def __init__(self, distribution):
        self.distribution = distribution
        self.failures = []
        self.results = {}

    def check(self, cond, what):
        if not cond:
            self.failures.append(what)
        return cond

    def case(self, name, fn):
        """Runs one case; a crash is a failure with the exception's type and text."""
        try:
            fn()
        except Exception as e:  # evidence, not just a traceback
            self.failures.append(f"{name}: unexpected {type(e).__module__}.{type(e).__name__}: {e!r}")
            self.results.setdefault(name, f"raised {type(e).__name__}")

    def finish(self):
        print(json.dumps({"library": self.distribution, "version": importlib.metadata.version(self.distribution),
                          "failures": self.failures, "results": self.results}, default=str))
        sys.exit(1 if self.failures else 0)
