"""Shared part of the Expo real-client matrix (Tests/Interop/expo_<library>.py).

Each script drives one Expo push client library from PyPI against the PushDouble Expo fake,
configured only with what a user gives it: the base URL (host), the test CA and the access
token. Driven by Tests/PushDoubleExpoTests/ExpoClientMatrixTests.swift; by hand against
`pushdouble serve` (`eval` its environment lines first):

    python3 Tests/Interop/expo_exponent_server_sdk.py --url "$EXPO_URL" --ca "$PUSHDOUBLE_CA_FILE" \
        --access-token "$EXPO_ACCESS_TOKEN"

The magic tokens are the table of docs/expo.md "Magic tokens" (ExpoMagicTokens): the opaque part starts with
eight zeros and a code. Prints one JSON line {"library", "version", "failures", "results"};
exit 1 if a check failed, 2 if the library is not installed.
"""
import argparse
import json
import sys
import traceback

from apns_matrix_common import require  # noqa: F401  (re-exported: one implementation)

OK = "ExponentPushToken[okokokokokokokokokokok]"
DNR_TICKET = "ExponentPushToken[00000000DNRTmatrix]"
DNR_RECEIPT = "ExponentPushToken[00000000DNRRmatrix]"
TOO_BIG_RECEIPT = "ExponentPushToken[00000000MTBRmatrix]"
RATE_RECEIPT = "ExponentPushToken[00000000MREXmatrix]"
CREDENTIALS_RECEIPT = "ExponentPushToken[00000000INVCmatrix]"


def bulk_token(i):
    return f"ExponentPushToken[bulk{i:06d}matrix]"


def parse_args(extra=()):
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True, help="the fake's base URL (EXPO_URL)")
    p.add_argument("--ca", required=True, help="the test CA file")
    p.add_argument("--access-token", default=None, help="EXPO_ACCESS_TOKEN")
    for name in extra:
        p.add_argument(name, default=None)
    return p.parse_args()


class Matrix:
    """Collects named checks: a check returns a JSON-able result or raises."""

    def __init__(self, distribution):
        self.distribution = distribution
        self.failures = []
        self.results = {}

    def check(self, name, fn):
        try:
            self.results[name] = fn()
        except Exception as e:  # noqa: BLE001 - every failure is reported by name
            self.failures.append(f"{name}: {type(e).__name__}: {e}\n{traceback.format_exc(limit=3)}")
        return self.results.get(name)

    async def check_async(self, name, fn):
        try:
            self.results[name] = await fn()
        except Exception as e:  # noqa: BLE001
            self.failures.append(f"{name}: {type(e).__name__}: {e}\n{traceback.format_exc(limit=3)}")
        return self.results.get(name)

    def finish(self):
        import importlib.metadata
        print(json.dumps({"library": self.distribution, "version": importlib.metadata.version(self.distribution),
                          "failures": self.failures, "results": self.results}))
        sys.exit(1 if self.failures else 0)


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


def expect_raises(exception_type, fn):
    """Runs fn, which must raise exception_type (the library's own type); returns the exception."""
    try:
        fn()
    except exception_type as e:
        return e
    raise AssertionError(f"expected {exception_type.__name__}")
