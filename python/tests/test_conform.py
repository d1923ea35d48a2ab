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
    assert report["cases"][0]["sender"] == {"name": "pushsender-example", "providers": ["fcm"], "version": "0.1",
                                            "fields": {"fcm": ["title", "body", "data"]}}
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


def test_real_hosts_route_a_proxy_only_sender_to_the_fakes(pushdouble_bin, tmp_path):
    """`conform --real-hosts`: the sender is told https://exp.host and HTTPS_PROXY, and a client
    that only knows the real host (urllib through the CONNECT proxy) passes the Expo case."""
    adapter = os.path.join(os.path.dirname(__file__), "adapters", "proxy_expo_adapter.py")
    report_file = tmp_path / "report.json"
    p = subprocess.run([pushdouble_bin, "conform", "--scenarios", os.path.join(REPO, "Scenarios"), "--real-hosts",
                        "--sender", "%s %s" % (sys.executable, adapter), "--only", "expo.happy-path",
                        "--json", str(report_file)], env=subprocess_env(), capture_output=True, text=True, timeout=300)
    if "unknown option --real-hosts" in p.stderr:
        pytest.skip("this runner build has no --real-hosts")
    assert p.returncode == 0, p.stdout + p.stderr
    case = json.loads(report_file.read_text())["cases"][0]
    assert case["verdict"] == "pass"
    assert "told url https://exp.host, HTTPS_PROXY http://127.0.0.1:" in case["senderLog"]
    assert {e["request"]["authority"] for e in case["history"]} == {"exp.host"}
    # Without --real-hosts the same sender is told the fake's loopback URL (and no proxy).
    p = subprocess.run([pushdouble_bin, "conform", "--scenarios", os.path.join(REPO, "Scenarios"),
                        "--sender", "%s %s" % (sys.executable, adapter), "--only", "expo.happy-path",
                        "--json", str(report_file)], env=subprocess_env(), capture_output=True, text=True, timeout=300)
    assert "told url https://127.0.0.1:" in json.loads(report_file.read_text())["cases"][0]["senderLog"]


def test_a_coarse_outcome_library_is_judged_on_what_it_can_say(pushdouble_bin, tmp_path):
    """A library that reports only success or failure per token declares coarse outcomes:
    its honest `failed` for a dead token passes `outcome` (judged coarsely, and the report says
    so), while the same adapter without the declaration fails `outcome` there."""
    adapter = tmp_path / "coarse.py"
    adapter.write_text(
        "import sys\n"
        "sys.path.insert(0, %r)\n"
        "from pushdouble.driver import run, sent, failed\n"
        "from conform_adapter import ExampleSender\n"
        "class Coarse(ExampleSender):\n"
        "    outcomes = sys.argv[1] if len(sys.argv) > 1 else None\n"
        "    def initialize(self, config):\n"
        "        super().initialize(config)\n"
        "    def send(self, notification, devices, targets):\n"
        "        self.dead_tokens = set()  # it cannot know which tokens are dead\n"
        "        return [sent(d) if r['outcome'] == 'sent' else failed(d, 'not sent')\n"
        "                for d, r in zip(devices, super().send(notification, devices, targets))]\n"
        "run(Coarse())\n" % os.path.dirname(EXAMPLE))
    cases = "fcm.happy-path,fcm.unregistered"
    p, report = _conform(pushdouble_bin, "%s %s coarse" % (sys.executable, adapter), cases, tmp_path)
    assert report is not None, p.stdout + p.stderr
    checks = {(c["id"], k["id"]): k for c in report["cases"] for k in c["checks"]}
    assert report["cases"][0]["sender"]["coarseOutcomes"] == ["fcm"]
    unregistered = checks[("fcm.unregistered", "outcome")]
    assert unregistered["verdict"] == "pass", unregistered
    assert "judged coarsely: the sender declared coarse outcomes for fcm" in unregistered["message"]
    assert checks[("fcm.happy-path", "outcome")]["verdict"] == "pass"
    p2, report2 = _conform(pushdouble_bin, "%s %s" % (sys.executable, adapter), "fcm.unregistered", tmp_path)
    precise = {k["id"]: k for c in report2["cases"] for k in c["checks"]}
    assert precise["outcome"]["verdict"] == "fail", precise["outcome"]
