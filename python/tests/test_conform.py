"""The driver kit under the real runner: `pushdouble conform` drives the example sender's
adapter (examples/python/sender-example/conform_adapter.py, FCM over http.client) through
shipped FCM cases, and a kit adapter's `aborted` outcome reaches the runner's verdicts."""

import json
import os
import subprocess
import sys

import pytest

from support import REPO, subprocess_env

EXAMPLE = os.path.join(REPO, "examples", "python", "sender-example", "conform_adapter.py")
CASES = "fcm.happy-path,fcm.unregistered,fcm.quota-exceeded,fcm.revoked-token,fcm.access-token-reuse,fcm.invalid-argument"


def _conform(binary, sender, only, tmp_path):
    report = tmp_path / "report.json"
    p = subprocess.run([binary, "conform", "--scenarios", os.path.join(REPO, "Scenarios"), "--sender", sender,
                        "--only", only, "--json", str(report), "--jobs", "2"],
                       env=subprocess_env(), capture_output=True, text=True, timeout=300)
    return p, json.loads(report.read_text()) if report.exists() else None


def test_the_example_sender_passes_the_fcm_cases(pushdouble_bin, tmp_path):
    p, report = _conform(pushdouble_bin, "%s %s" % (sys.executable, EXAMPLE), CASES, tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    verdicts = {c["id"]: c["verdict"] for c in report["cases"]}
    assert verdicts == {c: "pass" for c in CASES.split(",")}
    assert report["cases"][0]["sender"] == {"name": "pushsender-example", "providers": ["fcm"], "version": "0.1"}
    assert "6 passed, 0 failed" in p.stdout


def test_a_kit_adapter_reporting_aborted(pushdouble_bin, tmp_path):
    adapter = tmp_path / "aborting.py"
    adapter.write_text(
        "from pushdouble.driver import Adapter, run, aborted\n"
        "class A(Adapter):\n"
        "    name, version, providers = 'aborting', '1', ['fcm']\n"
        "    def send(self, notification, devices, targets):\n"
        "        return [aborted(d, 'batch aborted after an auth error') for d in devices]\n"
        "run(A())\n")
    p, report = _conform(pushdouble_bin, "%s %s" % (sys.executable, adapter), "fcm.happy-path", tmp_path)
    if "aborted" in p.stdout and "driver.protocol" in p.stdout:
        pytest.skip("this runner build does not know the aborted outcome yet")
    assert p.returncode == 1
    assert "reported aborted (batch aborted after an auth error), expected sent" in p.stdout
