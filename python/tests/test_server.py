"""PushDoubleServer with the real binary: start, what it exposes, stop, start errors, and
no process left behind when the Python process that started it is SIGKILLed."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from pushdouble import PushDoubleServer, ServerStartError
from pushdouble.server import _pid_alive
from support import subprocess_env

SENDER_VARS = ["PUSHDOUBLE_PROTOCOL", "PUSHDOUBLE_ADMIN_URL", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
               "PUSHDOUBLE_CA_FILE", "NODE_EXTRA_CA_CERTS", "HTTPS_PROXY", "NO_PROXY", "APNS_URL", "APNS_SANDBOX_URL",
               "APNS_KEY_FILE", "APNS_KEY_ID", "APNS_TEAM_ID", "APNS_TOPIC", "FCM_URL", "FCM_PROJECT_ID",
               "FCM_SERVICE_ACCOUNT_FILE", "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_OAUTH_TOKEN_URL", "EXPO_URL",
               "EXPO_ACCESS_TOKEN", "WEBPUSH_URL", "VAPID_PRIVATE_KEY_FILE", "VAPID_PUBLIC_KEY", "VAPID_SUBJECT"]


def _wait_dead(pid, timeout=10.0):
    deadline = time.monotonic() + timeout
    while _pid_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _wait_gone_path(path, timeout):
    deadline = time.monotonic() + timeout
    while os.path.exists(path):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_start_expose_stop(pushdouble_bin):
    with PushDoubleServer(binary=pushdouble_bin) as pd:
        pid, guard = pd.pid, pd.guard_pid
        assert pd.running and _pid_alive(pid) and pid != guard
        env = pd.environment
        for name in SENDER_VARS:
            assert name in env, name
        assert env["PUSHDOUBLE_ADMIN_URL"] == pd.admin_url
        assert os.path.isfile(pd.ca_file) and open(pd.ca_file).read().startswith("-----BEGIN CERTIFICATE-----")
        assert os.path.isfile(env["APNS_KEY_FILE"]) and os.path.isfile(env["FCM_SERVICE_ACCOUNT_FILE"])
        names = {e["name"] for e in pd.endpoints}
        assert {"admin", "apns-production", "apns-sandbox", "fcm", "google-oauth", "expo", "webpush", "proxy"} <= names
        assert pd.url("apns-production") == env["APNS_URL"]
        assert pd.admin.health()["status"] == "ok"
        # the environment is serve's own document, unchanged
        with open(os.path.join(pd._dir, "endpoints.json")) as f:
            assert json.load(f)["environment"] == env
        hm = pd.host_map()
        assert hm["api.push.apple.com:443"] == ("127.0.0.1", pd.endpoint("apns-production")["port"])
        assert json.loads(pd.host_map_env())["exp.host:443"] == "127.0.0.1:%d" % pd.endpoint("expo")["port"]
        credential_dir = os.path.dirname(pd.ca_file)
        workdir = pd._dir
    assert pd.returncode == 0  # a clean stop on SIGTERM
    assert not pd.running
    assert _wait_dead(pid, 5) and not _pid_alive(guard)
    assert not os.path.exists(workdir)
    assert not os.path.exists(credential_dir)  # serve removed its credential files at stop
    assert "stopping" in pd.log()  # read by stop() before it removed the work directory
    assert pd.stop() == 0  # twice is fine


def test_options_scenarios_and_log(pushdouble_bin, tmp_path):
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"id": "py-test", "providers": {"apns": {"world": "closed"}},
                                    "devices": [{"id": "d1", "provider": "fcm", "token": "tok-1"}]}))
    with PushDoubleServer(binary=pushdouble_bin, scenarios=[scenario], quiet=False,
                          options={"apns.tooManyRequestsPerDevice": 5, "expo": {"holdReceipts": True}},
                          history_cap=100, history_max_bytes="64M", seed=7) as pd:
        assert "--quiet" not in pd._cmd and "--history-cap" in pd._cmd
        assert [d["id"] for d in pd.admin.devices()] == ["d1"]
        assert {p["provider"]: p["world"] for p in pd.admin.providers()}["apns"] == "closed"
        health = pd.admin.health()
        assert health["history"]["cap"] == 100 and health["scenarios"] == ["py-test"]
        assert health["history"]["maxBytes"] == 64 << 20
        exported = pd.admin.export_scenario()
        assert exported["fakeOptions"]["apns"]["tooManyRequestsPerDevice"] == 5
        assert exported["fakeOptions"]["expo"]["holdReceipts"] is True
        assert exported["seed"] == 7
        assert "ready (" in pd.log() and "scenarios: py-test" in pd.log()


def test_a_server_that_cannot_start_says_why(pushdouble_bin, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"id": "bad", "faults": [{"id": "x", "action": {"type": "respond", "status": "nope"}}]}')
    with pytest.raises(ServerStartError) as e:
        PushDoubleServer(binary=pushdouble_bin, scenarios=[bad]).start()
    msg = str(e.value)
    assert "exited with status 1" in msg
    assert "bad.json" in msg and "status" in msg  # serve's own stderr, naming the file and the field
    assert "command: %s serve --ephemeral" % pushdouble_bin in msg


def test_startup_timeout_stops_what_it_started(tmp_path):
    # a "binary" that never writes the endpoints file
    fake = tmp_path / "pushdouble"
    fake.write_text("#!/bin/sh\necho 'starting slowly' >&2\nexec sleep 60\n")
    fake.chmod(0o755)
    s = PushDoubleServer(binary=str(fake), startup_timeout=0.5, stop_grace=1)
    with pytest.raises(ServerStartError, match="was not ready after 0.5 s") as e:
        s.start()
    assert "starting slowly" in str(e.value)
    assert s.pid is None or not _pid_alive(s.pid)


_CHILD = textwrap.dedent("""
    import sys, time
    from pushdouble import PushDoubleServer
    pd = PushDoubleServer(binary=sys.argv[1]).start()
    print(pd.pid, pd.guard_pid, pd.admin_url, pd.ca_file, pd._dir, flush=True)
    time.sleep(600)
""")


def _start_child_with_server(pushdouble_bin):
    child = subprocess.Popen([sys.executable, "-c", _CHILD, pushdouble_bin], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=subprocess_env(), text=True)
    line = child.stdout.readline()
    assert line, child.stderr.read()
    server_pid, guard_pid, admin, ca_file, workdir = line.split()
    return child, int(server_pid), int(guard_pid), admin, ca_file, workdir


def test_no_server_left_after_the_parent_is_sigkilled(pushdouble_bin):
    child, server_pid, guard_pid, admin, ca_file, workdir = _start_child_with_server(pushdouble_bin)
    try:
        assert _pid_alive(server_pid)
        from pushdouble import AdminClient

        assert AdminClient(admin).health()["status"] == "ok"
        os.kill(child.pid, signal.SIGKILL)  # no cleanup code of the parent runs
        child.wait(10)
        assert _wait_dead(server_pid, 10), "pushdouble serve (pid %d) outlived its SIGKILLed parent" % server_pid
        assert _wait_dead(guard_pid, 5)
        # stopped with SIGTERM, not killed: serve removed its credential files itself,
        # and the guard removed the dead parent's work directory
        assert not os.path.exists(os.path.dirname(ca_file))
        assert _wait_gone_path(workdir, 5), "left behind: %s" % workdir
    finally:
        for pid in (server_pid, guard_pid):
            if _pid_alive(pid):
                os.kill(pid, signal.SIGKILL)
        if child.poll() is None:
            child.kill()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux-only")
def test_no_server_left_when_the_guard_itself_is_sigkilled(pushdouble_bin):
    pd = PushDoubleServer(binary=pushdouble_bin).start()
    try:
        server_pid = pd.pid
        credentials = os.path.dirname(pd.ca_file)
        os.kill(pd.guard_pid, signal.SIGKILL)
        assert _wait_dead(server_pid, 10), "serve outlived its guard"
    finally:
        pd.stop()
    assert not os.path.exists(credentials)  # stop() removed what the killed serve could not


def test_server_stopped_by_sigterm_to_the_guard_alone(pushdouble_bin):
    pd = PushDoubleServer(binary=pushdouble_bin).start()
    server_pid = pd.pid
    os.kill(pd.guard_pid, signal.SIGTERM)  # forwarded to the server, which stops cleanly
    assert _wait_dead(server_pid, 10)
    pd._process.wait(10)
    assert pd._process.returncode == 0
    pd.stop()
