"""Shared part of the FCM real-client matrix (Tests/Interop/fcm_<library>.py).

Each script drives one independent FCM / Google-auth client library from PyPI against the
PushDouble FCM fake, configured only with what a user would give it: the fake's FCM base URL,
the service-account key file `pushdouble serve` writes (its `token_uri` is the fake's token
endpoint) and the test CA (REQUESTS_CA_BUNDLE / SSL_CERT_FILE). Driven by
Tests/PushDoubleFCMTests/FCMClientMatrixTests.swift; by hand against `pushdouble serve`:

    eval "$(pushdouble serve --ephemeral | grep ^export)"   # in another shell, keep it running
    python3 Tests/Interop/fcm_firebase_admin.py --fcm-url "$FCM_URL" \
        --service-account "$FCM_SERVICE_ACCOUNT_FILE" --ca "$PUSHDOUBLE_CA_FILE"

Every script checks, through the library's own result or exception types:
  success         an ordinary registration token → 200 {"name": "projects/…/messages/…"}
  unregistered    magic token pushdouble-fcm-404-… → 404 NOT_FOUND, FcmError UNREGISTERED
  invalidArgument magic token pushdouble-fcm-400-… → 400 INVALID_ARGUMENT
The magic tokens are those of docs/fcm.md (FCMMagicTokens).

Prints one JSON line {"library", "version", "failures", "results"}; exit 1 if a check
failed, 2 if the library is not installed.
"""
import argparse
import importlib
import importlib.metadata
import json
import os
import sys

TOKEN = "fcm-matrix-token-1:APA91bEXAMPLE"
MAGIC_UNREGISTERED = "pushdouble-fcm-404-matrix"
MAGIC_INVALID = "pushdouble-fcm-400-matrix"
MAGIC_SENDER_MISMATCH = "pushdouble-fcm-403-matrix"


def require(distribution, module):
    """Imports `module` of PyPI distribution `distribution`, or exits 2 with the fix."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        msg = f"{distribution} is not installed (run bash .ci/run or pip install {distribution}): {e}"
        print(json.dumps({"library": distribution, "failures": [msg], "results": {}}))
        sys.exit(2)


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--fcm-url", required=True, help="the fake's FCM base URL (FCM_URL), e.g. https://127.0.0.1:8723")
    p.add_argument("--service-account", required=True, help="service-account key file whose token_uri is the fake")
    p.add_argument("--ca", required=True, help="PEM file of the CA that issued the fake's certificate")
    p.add_argument("--wrong-key-account", help="a key file of the same account signed with another key (google-auth)")
    a = p.parse_args()
    # What a user sets so that requests / httpx / aiohttp trust the test CA.
    os.environ["REQUESTS_CA_BUNDLE"] = a.ca
    os.environ["SSL_CERT_FILE"] = a.ca
    with open(a.service_account) as f:
        a.project_id = json.load(f)["project_id"]
    return a


class Report:
    """Collects named results and failures; `finish` prints the JSON line and exits."""

    def __init__(self, distribution):
        self.distribution = distribution
        self.failures = []
        self.results = {}

    def check(self, name, condition, detail):
        if condition:
            self.results.setdefault(name, detail)
        else:
            self.failures.append(f"{name}: {detail}")

    def expect_error(self, name, fn, error_type, detail=lambda e: str(e)):
        """Runs `fn`; passes when it raises `error_type` (the library's own type)."""
        try:
            got = fn()
        except error_type as e:
            self.results[name] = f"{type(e).__module__}.{type(e).__name__}: {detail(e)}"
            return e
        except Exception as e:  # noqa: BLE001 - any other type is the failure being reported
            self.failures.append(f"{name}: expected {error_type.__name__}, got {type(e).__module__}.{type(e).__name__}: {e}")
            return None
        self.failures.append(f"{name}: expected {error_type.__name__}, got {got!r}")
        return None

    def finish(self):
        try:
            version = importlib.metadata.version(self.distribution)
        except importlib.metadata.PackageNotFoundError:
            version = "?"
        print(json.dumps({"library": self.distribution, "version": version, "failures": self.failures, "results": self.results}))
        sys.exit(1 if self.failures else 0)
