"""The pytest plugin, run through pytester (pytest's own plugin tester) with the real binary."""

import json

import pytest

pytestmark = pytest.mark.usefixtures("pushdouble_bin")

HELPERS = '''
import json, os, ssl, urllib.request

def expo_send(env, to, title="t"):
    ctx = ssl.create_default_context(cafile=env["PUSHDOUBLE_CA_FILE"])
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), urllib.request.HTTPSHandler(context=ctx))
    req = urllib.request.Request(env["EXPO_URL"] + "/--/api/v2/push/send",
                                 data=json.dumps({"to": to, "title": title}).encode(),
                                 headers={"content-type": "application/json",
                                          "authorization": "Bearer " + env["EXPO_ACCESS_TOKEN"]})
    with opener.open(req, timeout=10) as r:
        return json.load(r)
'''


def _run(pytester, plugin_args, pushdouble_bin, *args):
    # the "=" form: pytest picks its rootdir from path-like arguments before plugins add their options
    return pytester.runpytest("--pushdouble-bin=" + pushdouble_bin, *plugin_args, *args)


def test_fixtures_and_reset_between_tests(pytester, plugin_args, pushdouble_bin):
    pytester.makepyfile(helpers=HELPERS)
    pytester.makepyfile(test_a='''
        import os
        from helpers import expo_send

        def test_one(pushdouble, pushdouble_env, pushdouble_admin, monkeypatch):
            for k, v in pushdouble_env.items():
                monkeypatch.setenv(k, v)
            assert os.environ["EXPO_URL"] == pushdouble.environment["EXPO_URL"]
            assert pushdouble_admin is pushdouble.admin
            pushdouble.admin.register_device("d1", "expo", "ExponentPushToken[one]")
            assert expo_send(pushdouble_env, "ExponentPushToken[one]")["data"]["status"] == "ok"  # one message, one ticket
            pushdouble.admin.fail_next("expo", count=5, status=503)

        def test_two_sees_a_clean_double(pushdouble):
            assert pushdouble.admin.devices() == []
            assert pushdouble.admin.faults() == []
            assert pushdouble.admin.history() == []

        def test_same_session_server(pushdouble, pushdouble_server):
            assert pushdouble is pushdouble_server
    ''')
    _run(pytester, plugin_args, pushdouble_bin, "-q").assert_outcomes(passed=3)


def test_session_server_is_shared_and_fresh_servers_are_per_test(pytester, plugin_args, pushdouble_bin):
    pytester.makepyfile(test_b='''
        import pytest
        seen = []

        def test_a(pushdouble):
            seen.append(pushdouble.admin_url)

        def test_b(pushdouble):
            assert pushdouble.admin_url == seen[0]

        def test_fresh_1(pushdouble_fresh, pushdouble):
            assert pushdouble_fresh.admin_url != pushdouble.admin_url
            seen.append(pushdouble_fresh.admin_url)

        @pytest.mark.pushdouble(options={"expo": {"holdReceipts": True}}, history_cap=7)
        def test_fresh_2_with_options(pushdouble_fresh):
            assert pushdouble_fresh.admin_url not in seen
            assert pushdouble_fresh.admin.health()["history"]["cap"] == 7
            assert pushdouble_fresh.admin.export_scenario()["fakeOptions"]["expo"]["holdReceipts"] is True
    ''')
    _run(pytester, plugin_args, pushdouble_bin, "-q").assert_outcomes(passed=4)


def test_scenarios_are_loaded_again_for_each_test(pytester, plugin_args, pushdouble_bin):
    scenario = pytester.path / "dead-phone.json"
    scenario.write_text(json.dumps({"id": "dead-phone", "providers": {"fcm": {"world": "closed"}},
                                    "devices": [{"id": "phone", "provider": "fcm", "token": "tok-phone",
                                                 "state": "unregistered"}]}))
    pytester.makepyfile(test_c='''
        def test_first_changes_everything(pushdouble):
            a = pushdouble.admin
            assert [d["id"] for d in a.devices()] == ["phone"]
            a.remove_device("phone")
            a.set_world("fcm", "open")
            a.register_device("other", "fcm", "tok-other")

        def test_second_gets_the_scenario_back(pushdouble):
            a = pushdouble.admin
            assert [(d["id"], d["state"]) for d in a.devices()] == [("phone", "unregistered")]
            assert {p["provider"]: p["world"] for p in a.providers()}["fcm"] == "closed"

        def test_fresh_servers_load_it_too(pushdouble_fresh):
            assert [d["id"] for d in pushdouble_fresh.admin.devices()] == ["phone"]
    ''')
    _run(pytester, plugin_args, pushdouble_bin, "-q", "--pushdouble-scenario=" + str(scenario)).assert_outcomes(passed=3)


def test_ini_options(pytester, plugin_args, pushdouble_bin):
    (pytester.path / "scenarios").mkdir()
    (pytester.path / "scenarios" / "s.json").write_text(json.dumps(
        {"id": "ini", "devices": [{"id": "x", "provider": "expo", "token": "ExponentPushToken[x]"}]}))
    pytester.makeini('''
        [pytest]
        pushdouble_bin = %s
        pushdouble_scenarios =
            scenarios/s.json
        pushdouble_quiet = false
    ''' % pushdouble_bin)
    pytester.makepyfile(test_d='''
        def test_ini(pushdouble):
            assert [d["id"] for d in pushdouble.admin.devices()] == ["x"]
            assert "--quiet" not in pushdouble.command("f")
    ''')
    pytester.runpytest(*plugin_args, "-q").assert_outcomes(passed=1)


def test_a_failed_test_shows_the_last_exchanges(pytester, plugin_args, pushdouble_bin):
    pytester.makepyfile(helpers=HELPERS)
    pytester.makepyfile(test_e='''
        from helpers import expo_send

        def test_fails_after_sending(pushdouble_env, pushdouble):
            expo_send(pushdouble_env, "ExponentPushToken[00000000DNRTx]", title="first")
            for i in range(12):
                expo_send(pushdouble_env, "ExponentPushToken[n%d]" % i, title="n%d" % i)
            assert False, "the sender did not deactivate the device"

        def test_passes(pushdouble):
            pass
    ''')
    result = _run(pytester, plugin_args, pushdouble_bin, "-q")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert "pushdouble history (http://127.0.0.1:" in out
    result.stdout.fnmatch_lines([
        "13 exchange(s) in this test, the last 10 (4-13) (all of them: GET http://127.0.0.1:*/history):",
        "4. #* expo expo.send POST /--/api/v2/push/send -> 200*",
        "*",
        "13. #* expo expo.send POST /--/api/v2/push/send -> 200*",
        "    notification: {\"title\": \"n11\", \"to\": \"ExponentPushToken?n11?\"}",
    ])
    section = out.split("pushdouble history")[1]
    assert '"title": "n2"' in section  # the last 10 are n2..n11
    assert '"title": "n1"' not in section and '"title": "first"' not in section


def test_report_section_for_a_fresh_server_and_can_be_turned_off(pytester, plugin_args, pushdouble_bin):
    pytester.makepyfile(test_f='''
        def test_fresh_fails(pushdouble_fresh):
            assert pushdouble_fresh.admin.history() == []
            assert 0
    ''')
    result = _run(pytester, plugin_args, pushdouble_bin, "-q")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*pushdouble history*", "*no exchange recorded during this test*"])
    result = _run(pytester, plugin_args, pushdouble_bin, "-q", "-o", "pushdouble_report_exchanges=0")
    assert "pushdouble history" not in result.stdout.str()


def test_a_missing_binary_is_a_clear_error_or_a_skip(pytester, plugin_args, tmp_path):
    pytester.makepyfile(test_g='''
        def test_needs_it(pushdouble):
            pass
    ''')
    missing = str(tmp_path / "no-such-pushdouble")
    result = pytester.runpytest("--pushdouble-bin=" + missing, *plugin_args, "-q")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*pushdouble binary*no-such-pushdouble*does not exist*--pushdouble-bin*"])
    result = pytester.runpytest("--pushdouble-bin=" + missing, *plugin_args, "-q", "-o", "pushdouble_if_missing=skip")
    result.assert_outcomes(skipped=1)


def test_help_lists_the_options(pytester, plugin_args):
    result = pytester.runpytest(*plugin_args, "--help")
    result.stdout.fnmatch_lines(["*--pushdouble-bin=PATH*", "*--pushdouble-scenario=FILE*"])
    assert "pushdouble_report_exchanges" in result.stdout.str()
