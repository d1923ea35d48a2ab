"""Fixtures of the browser example: the site (a local HTTP server: 127.0.0.1 is a secure
context, so service workers and Push work over plain http), and the page in the
``pushdouble_browser`` Firefox."""

import functools
import http.server
import os
import sys
import threading
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.dirname(HERE)
sys.path.insert(0, EXAMPLE)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def site_url():
    handler = functools.partial(_QuietHandler, directory=os.path.join(EXAMPLE, "site"))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield "http://127.0.0.1:%d/" % httpd.server_address[1]
    finally:
        httpd.shutdown()
        httpd.server_close()


class Page:
    """The example page in the browser, through Marionette."""

    def __init__(self, browser, url):
        self.browser = browser
        self.marionette = browser.marionette
        self.url = url

    def open(self):
        self.marionette.navigate(self.url)
        return self

    def call(self, function, *args, timeout=20):
        """Awaits ``function(...args)`` of the page; returns its result or raises its error."""
        script = """
            const done = arguments[arguments.length - 1];
            const args = Array.from(arguments).slice(1, -1);
            window[arguments[0]](...args).then(v => done({value: v === undefined ? null : v}),
                                               e => done({error: String(e)}));
        """
        r = self.marionette.execute_async_script(script, script_args=[function] + list(args), sandbox=None,
                                                 script_timeout=int(timeout * 1000))
        if "error" in r:
            raise AssertionError("%s failed in the page: %s" % (function, r["error"]))
        return r["value"]

    def subscribe(self, vapid_public_key):
        return self.call("subscribe", vapid_public_key)

    def unsubscribe(self):
        return self.call("unsubscribe")

    def notifications(self):
        return self.call("shownNotifications")

    def received(self):
        """The texts the service worker posted, oldest first."""
        return [p["text"] for p in self.marionette.execute_script("return window.receivedPushes", sandbox=None)]

    def wait_for(self, text, timeout=15):
        """Waits until the service worker received ``text``; returns the seconds it took."""
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            if text in self.received():
                return time.monotonic() - start
            time.sleep(0.05)
        raise AssertionError("the service worker did not receive %r in %.0f s (got %r)" % (text, timeout, self.received()))

    def set_offline(self, offline):
        """Firefox's offline mode (``Services.io.offline``): its push service disconnects, and
        connects again (saying hello with its UAID) when the browser is back online."""
        with self.marionette.using_context("chrome"):
            self.marionette.execute_script("Services.io.offline = arguments[0];", script_args=[bool(offline)])


_PEAK = {"kib": 0}


@pytest.fixture(autouse=True)
def _firefox_memory(request):
    """Notes Firefox's resident memory after each test that used it (peak shown at the end)."""
    yield
    if "pushdouble_browser" in request.fixturenames:
        kib = request.getfixturevalue("pushdouble_browser").memory_kib()
        _PEAK["kib"] = max(_PEAK["kib"], kib)


def pytest_terminal_summary(terminalreporter):
    if _PEAK["kib"]:
        terminalreporter.write_line("firefox peak memory (PSS of the main and content processes): %.0f MiB" % (_PEAK["kib"] / 1024.0))


@pytest.fixture
def page(pushdouble_browser, site_url, pushdouble, monkeypatch):
    """The page, opened afresh; the application server trusts the double's CA (``REQUESTS_CA_BUNDLE``)."""
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", pushdouble.environment["REQUESTS_CA_BUNDLE"])
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
    return Page(pushdouble_browser, site_url).open()
