"""The Firefox launcher's profile (no browser needed)."""

import os

from pushdouble import browser


class _Server:
    def url(self, name):
        assert name == "webpush-autopush"
        return "http://127.0.0.1:48727"


def test_profile_points_firefox_at_the_double(tmp_path):
    path = browser.write_profile(str(tmp_path), "ws://127.0.0.1:48727", {"dom.push.loglevel": "debug"})
    text = open(path).read()
    for line in [
        'user_pref("dom.push.serverURL", "ws://127.0.0.1:48727");',
        'user_pref("dom.push.connection.enabled", true);',
        'user_pref("dom.push.testing.allowInsecureServerURL", true);',
        'user_pref("dom.push.testing.ignorePermission", true);',
        'user_pref("permissions.default.desktop-notification", 1);',
        'user_pref("alerts.useSystemBackend", false);',
        'user_pref("marionette.port", 0);',
        'user_pref("dom.push.loglevel", "debug");',
    ]:
        assert line in text.splitlines(), line
    assert os.path.basename(path) == "user.js"


def test_autopush_url_is_the_ws_form_of_the_listener():
    assert browser.autopush_url(_Server()) == "ws://127.0.0.1:48727"


def test_pref_values_are_quoted_for_user_js():
    assert browser._pref_line("a", 'say "hi"') == 'user_pref("a", "say \\"hi\\"");\n'
    assert browser._pref_line("b", False) == 'user_pref("b", false);\n'
