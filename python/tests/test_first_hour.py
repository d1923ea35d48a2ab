"""The traps a test author meets in the first hour: faults that hit what they say, typos
refused with the valid values, fixtures that apply the sender environment and undo it, and
an environment that leaves the rest of the process's HTTPS alone."""

import http.server
import json
import os
import ssl
import subprocess
import threading
import urllib.error
import urllib.request

import pytest

from pushdouble import AdminError
from pushdouble.environ import CA_VARIABLES, applied
from support import fcm_access_token, fcm_send, expo_send, https

PROVIDERS = ["apns", "expo", "fcm", "webpush"]


# -- faults hit what they say --------------------------------------------------------------------

def test_a_provider_fault_hits_the_send_not_the_token_mint(clean):
    admin, env = clean.admin, clean.environment
    admin.fail_next("fcm", count=2, reason="UNAVAILABLE")
    access = fcm_access_token(env)  # the mint is not failed (it used to be, silently retried by auth libraries)
    assert [fcm_send(env, "dev-1", access_token=access)[0] for _ in range(3)] == [503, 503, 200]
    assert [x.status for x in admin.history(endpoint="oauth.token")] == [200]
    assert admin.faults()[0]["fired"] == 2


def test_a_rule_naming_the_token_endpoint_hits_only_the_mint(clean):
    admin, env = clean.admin, clean.environment
    admin.fail_next("fcm", endpoint="oauth.token", reason="invalid_grant")
    with pytest.raises(AssertionError, match="invalid_grant"):
        fcm_access_token(env)
    access = fcm_access_token(env)
    assert fcm_send(env, "dev-1", access_token=access)[0] == 200
    assert [x.status for x in admin.history()] == [400, 200, 200]


def test_rules_that_never_fired_are_listed(clean):
    admin, env = clean.admin, clean.environment
    admin.fail_next("expo", count=1, reason="TOO_MANY_REQUESTS", id="send-rule")
    admin.fail_next("expo", count=1, endpoint="expo.getReceipts", reason="TOO_MANY_REQUESTS", id="receipts-rule")
    expo_send(env, [{"to": "ExponentPushToken[first-hour]", "title": "t"}])
    assert [r["rule"]["id"] for r in admin.unfired_faults()] == ["receipts-rule"]
    assert {r["rule"]["id"]: r["neverFired"] for r in admin.faults()} == {"send-rule": False, "receipts-rule": True}


# -- typos refused ------------------------------------------------------------------------------

def _server_refusal(admin, method, path, body=None, query=None):
    """What the server says to the same input sent without the kit's check."""
    with pytest.raises(AdminError) as e:
        admin.request(method, path, body, query=query)
    assert e.value.status == 400, e.value.body
    return e.value


def test_unknown_names_raise_value_error_with_the_servers_list(clean):
    admin = clean.admin
    states = admin.catalogue()["deviceStates"]
    fcm_send_reasons = sorted(next(e for p in admin.catalogue()["providers"] if p["provider"] == "fcm"
                                   for e in p["endpoints"] if e["id"] == "fcm.send")["reasons"])
    fcm_endpoints = sorted(e["id"] for p in admin.catalogue()["providers"] if p["provider"] == "fcm" for e in p["endpoints"])
    assert "fcm.send" in fcm_endpoints and "oauth.token" in fcm_endpoints
    cases = [
        (lambda: admin.register_device("d1", "android", "t"), "provider", PROVIDERS,
         ("POST", "/devices", {"id": "d1", "provider": "android", "token": "t"})),
        (lambda: admin.fail_next("android"), "match.provider", PROVIDERS,
         ("POST", "/faults", {"id": "f", "match": {"provider": "android"}, "action": {"type": "drop"}})),
        (lambda: admin.fail_next("fcm", endpoint="messages:send"), "match.endpoint", fcm_endpoints,
         ("POST", "/faults", {"id": "f", "match": {"provider": "fcm", "endpoint": "messages:send"}, "action": {"type": "drop"}})),
        (lambda: admin.fail_next("fcm", reason="Unavailable"), "action.reason", fcm_send_reasons,
         ("POST", "/faults", {"id": "f", "match": {"provider": "fcm"}, "action": {"type": "respond", "reason": "Unavailable"}})),
        (lambda: admin.history(provider="FCM"), "provider", PROVIDERS, ("GET", "/history", None, {"provider": "FCM"})),
        (lambda: admin.register_device("d1", "apns", "ab01", state="dead"), "state", states, None),
        (lambda: admin.set_world("android", "closed"), "provider", PROVIDERS, None),
        (lambda: admin.clear_faults(provider="android"), "provider", PROVIDERS, None),
        (lambda: admin.reset(provider="android"), "provider", PROVIDERS, None),
    ]
    for call, field, valid, raw in cases:
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value).startswith(field + ": unknown value "), e.value
        assert "expected one of " + ", ".join(valid) in str(e.value), e.value
        if raw:
            refusal = _server_refusal(admin, *raw)
            assert refusal.valid == valid and refusal.field == field
    # Nothing was created by the refused calls.
    assert admin.devices() == [] and admin.faults() == []


def test_a_custom_reason_is_sent_when_marked(clean):
    admin, env = clean.admin, clean.environment
    admin.fail_next("fcm", reason="Unavailable", custom=True)
    status, _, body = fcm_send(env, "dev-1")
    assert status == 500
    assert json.loads(body)["error"]["message"] == "Unavailable"


def test_reset_keeps_access_tokens_unless_asked(clean):
    admin, env = clean.admin, clean.environment
    access = fcm_access_token(env)
    admin.reset()
    assert fcm_send(env, "dev-1", access_token=access)[0] == 200
    admin.reset(tokens=True)
    assert fcm_send(env, "dev-1", access_token=access)[0] == 401
    assert fcm_send(env, "dev-1")[0] == 200  # a new mint works


# -- the environment leaves the rest of the process alone ----------------------------------------

def _make_tls_server(tmp_path):
    """A second HTTPS server on loopback with a CA of its own (an emulator, an index...)."""
    ca_key, ca, key, csr, cert = (str(tmp_path / n) for n in ("ca.key", "ca.pem", "leaf.key", "leaf.csr", "leaf.pem"))
    ext = tmp_path / "ext.cnf"
    ext.write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    run = lambda *a: subprocess.run(["openssl", *a], check=True, capture_output=True)  # noqa: E731
    run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", ca_key,
        "-out", ca, "-days", "2", "-subj", "/CN=Other Test CA")
    run("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", csr,
        "-subj", "/CN=localhost")
    run("x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert, "-days", "2",
        "-extfile", str(ext))

    class Hello(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("content-length", "5")
            self.end_headers()
            self.wfile.write(b"hello")

        def log_message(self, *a):
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Hello)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, ca


def _get_with_process_defaults(url):
    """A request as a library that trusts the process's defaults makes it (env CA file, env proxies)."""
    ctx = ssl.create_default_context()  # reads SSL_CERT_FILE now
    opener = urllib.request.build_opener(urllib.request.ProxyHandler(urllib.request.getproxies()),
                                         urllib.request.HTTPSHandler(context=ctx))
    try:
        with opener.open(url, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_a_second_https_server_stays_reachable(server, tmp_path, monkeypatch):
    httpd, other_ca = _make_tls_server(tmp_path)
    try:
        other = "https://localhost:%d/" % httpd.server_address[1]
        # The trust the process had before the sender environment (here: the other server's CA).
        for v in CA_VARIABLES:
            monkeypatch.setenv(v, other_ca)
        assert _get_with_process_defaults(other) == 200
        with server.applied_environment():
            assert _get_with_process_defaults(other) == 200
            # ...and in the same test, the fake FCM through the proxy by its real name, trusting the test CA.
            assert _get_with_process_defaults("https://fcm.googleapis.com/v1/projects/p/messages:send") in (401, 404, 405)
            # The proxy never connects out: a host it does not impersonate is refused.
            with pytest.raises(urllib.error.URLError):
                _get_with_process_defaults("https://example.org/")
        # The environment as serve writes it (test CA only) breaks the other server: what the default avoids.
        with server.applied_environment(trust="test"):
            with pytest.raises(urllib.error.URLError, match="CERTIFICATE_VERIFY_FAILED"):
                _get_with_process_defaults(other)
        assert os.environ["SSL_CERT_FILE"] == other_ca
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_no_proxy_keeps_the_processes_entries_and_adds_hosts(server, monkeypatch):
    monkeypatch.setenv("NO_PROXY", "emulator.internal")
    env = server.sender_environment(no_proxy=["index.example"])
    hosts = env["NO_PROXY"].split(",")
    assert {"127.0.0.1", "localhost", "emulator.internal", "index.example"} <= set(hosts)
    assert env["no_proxy"] == env["NO_PROXY"]
    assert env["PUSHDOUBLE_CA_FILE"] == server.ca_file  # the test CA alone stays available
    bundle = open(env["SSL_CERT_FILE"]).read()
    assert open(server.ca_file).read().strip() in bundle
    assert "HTTPS_PROXY" not in server.sender_environment(proxy=False)
    with pytest.raises(ValueError, match="trust: unknown value"):
        server.sender_environment(trust="none")


def test_applied_restores_os_environ_exactly(monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", "/before")
    monkeypatch.delenv("FCM_URL", raising=False)
    before = dict(os.environ)
    with applied({"SSL_CERT_FILE": "/during", "FCM_URL": "https://127.0.0.1:1"}) as env:
        assert os.environ["SSL_CERT_FILE"] == "/during" and env["FCM_URL"] == os.environ["FCM_URL"]
        with applied({"FCM_URL": "https://127.0.0.1:2"}):
            assert os.environ["FCM_URL"] == "https://127.0.0.1:2"
        assert os.environ["FCM_URL"] == "https://127.0.0.1:1"
    assert dict(os.environ) == before


# -- fixtures -----------------------------------------------------------------------------------

FIXTURE_TESTS = '''
import json, os

IGNORED = {"PYTEST_CURRENT_TEST"}
BEFORE = {k: v for k, v in os.environ.items() if k not in IGNORED}

def snapshot():
    return {k: v for k, v in os.environ.items() if k not in IGNORED}

def test_per_test_applies(pushdouble_environ, pushdouble):
    assert os.environ["FCM_URL"] == pushdouble_environ["FCM_URL"] == pushdouble.environment["FCM_URL"]
    assert os.environ["HTTPS_PROXY"] == pushdouble_environ["HTTPS_PROXY"]
    assert os.environ["SSL_CERT_FILE"].endswith("ca-bundle.pem")

def test_per_test_restored():
    assert snapshot() == BEFORE

def test_session_applies(pushdouble_session_environ):
    assert os.environ["FCM_URL"] == pushdouble_session_environ["FCM_URL"]

def test_session_still_applied(pushdouble_session_environ, pushdouble):
    assert os.environ["FCM_URL"] == pushdouble.environment["FCM_URL"]
'''

FIXTURE_CONFTEST = '''
import json, os

def pytest_sessionfinish(session):
    with open(os.path.join(str(session.config.rootpath), "after.json"), "w") as f:
        json.dump({k: os.environ.get(k) for k in ("FCM_URL", "HTTPS_PROXY", "SSL_CERT_FILE")}, f)
'''


def test_fixtures_apply_the_environment_and_restore_it(pytester, plugin_args, pushdouble_bin, monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", "/a/ca/the/process/had.pem")
    monkeypatch.delenv("FCM_URL", raising=False)
    monkeypatch.delenv("HTTPS_PROXY", raising=False)
    pytester.makeconftest(FIXTURE_CONFTEST)
    pytester.makepyfile(test_env=FIXTURE_TESTS)
    result = pytester.runpytest("--pushdouble-bin=" + pushdouble_bin, *plugin_args, "-q")
    result.assert_outcomes(passed=4)
    # Once the session's tests are done its fixture has put os.environ back.
    after = json.loads((pytester.path / "after.json").read_text())
    assert after == {"FCM_URL": None, "HTTPS_PROXY": None, "SSL_CERT_FILE": "/a/ca/the/process/had.pem"}
    assert os.environ.get("FCM_URL") is None and os.environ.get("HTTPS_PROXY") is None
    assert os.environ["SSL_CERT_FILE"] == "/a/ca/the/process/had.pem"


def test_the_failure_report_lists_rules_that_never_fired(pytester, plugin_args, pushdouble_bin):
    pytester.makepyfile(test_r='''
        def test_fault_never_hit(pushdouble):
            pushdouble.admin.fail_next("fcm", endpoint="oauth.token", reason="invalid_grant", id="mint-fails")
            assert False, "the sender was never run"
    ''')
    result = pytester.runpytest("--pushdouble-bin=" + pushdouble_bin, *plugin_args, "-q")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*pushdouble faults that never fired*",
        "1 of 1 fault rule(s) never fired:",
        "- mint-fails: respond on fcm oauth.token (matched 0 request(s)) match=*",
    ])


def test_an_unknown_option_key_is_a_value_error_with_the_valid_keys(pushdouble_bin):
    from pushdouble import PushDoubleServer
    from pushdouble.server import ServerOptionError

    with pytest.raises(ValueError) as e:
        PushDoubleServer(binary=pushdouble_bin, options={"apns.tooManyRequestPerDevice": 5}).start()
    assert isinstance(e.value, ServerOptionError)
    assert "tooManyRequestsPerDevice" in str(e.value), str(e.value)
