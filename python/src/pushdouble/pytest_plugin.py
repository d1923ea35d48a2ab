"""pytest plugin (entry point ``pytest11: pushdouble``): PushDouble as fixtures.

Fixtures:

- ``pushdouble``: the session's :class:`~pushdouble.server.PushDoubleServer`, reset for
  this test (history, devices, fault rules forgotten; the ``--pushdouble-scenario``
  files loaded again). One server per session, a clean state per test.
- ``pushdouble_fresh``: a server of its own for this test, started and stopped around it
  (for fake options or scenarios of one test: ``@pytest.mark.pushdouble(options={...},
  scenarios=[...])``).
- ``pushdouble_environ``: ``pushdouble`` (reset for this test) with its sender environment
  applied to ``os.environ`` for this test, restored as it was afterwards; returns the dict.
  The CA variables name the process's current roots plus the test CA and ``NO_PROXY`` keeps
  the process's own entries, so other HTTPS in the process keeps working
  (:mod:`pushdouble.environ`).
- ``pushdouble_session_environ``: the same for the whole session (applied once, restored at
  its end), for senders that read the environment once at import.
- ``pushdouble_env``: the sender environment of ``pushdouble`` as a dict, not applied.
- ``pushdouble_admin``: ``pushdouble.admin``.
- ``pushdouble_server``: the session server without the per-test reset.
- ``pushdouble_browser``: a headless Firefox whose push service is the session server
  (:class:`~pushdouble.browser.FirefoxPushBrowser`, started once per session; its
  ``marionette`` property is a ``marionette_driver`` session). Needs Firefox (``firefox-esr``)
  and ``marionette-driver``; without Firefox, ``pushdouble_if_missing`` decides (error or skip).

Options (command line, or ini without the dashes, ``-`` as ``_``): ``--pushdouble-bin=PATH``
(else ``$PUSHDOUBLE_BIN``, the bundled binary, ``PATH``), ``--pushdouble-scenario=FILE``
(repeatable; ini ``pushdouble_scenarios``, one per line, relative to the ini file). Write
them with ``=``: pytest picks its rootdir from path-like arguments before plugins add
their options, so a separate ``PATH`` argument would count as a test path there. Also ini ``pushdouble_report_exchanges`` (default 10, 0 = off),
``pushdouble_quiet`` (default true), ``pushdouble_if_missing`` (``error`` or ``skip``
when no binary is found).

When a test that used one of these fixtures fails, its report gets a section with the
last exchanges of the double's history (numbered 1..N within the test, with their history
``#seq``) and the fault rules that never fired. Nothing here talks to anything but the
double's loopback admin listener.
"""

import json
import os

import pytest

from .admin import AdminError
from .binary import BinaryNotFound, find_binary
from .server import PushDoubleServer

_SERVERS_ATTR = "_pushdouble_servers"


def pytest_addoption(parser):
    group = parser.getgroup("pushdouble", "PushDouble (offline push-provider double)")
    group.addoption("--pushdouble-bin", dest="pushdouble_bin", default=None, metavar="PATH",
                    help="the pushdouble binary (default: $PUSHDOUBLE_BIN, the copy bundled in the wheel, PATH)")
    group.addoption("--pushdouble-scenario", dest="pushdouble_scenarios", action="append", default=[],
                    metavar="FILE", help="scenario file loaded into the double before each test (repeatable)")
    parser.addini("pushdouble_bin", "the pushdouble binary (relative to the ini file)", default=None)
    parser.addini("pushdouble_scenarios", "scenario files loaded before each test (one per line, relative to the ini file)",
                  type="linelist", default=[])
    parser.addini("pushdouble_report_exchanges", "exchanges shown in a failed test's report (0 = none)", default="10")
    parser.addini("pushdouble_quiet", "serve --quiet (no log line per exchange)", type="bool", default=True)
    parser.addini("pushdouble_if_missing", "when no binary is found: error (default) or skip", default="error")


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "pushdouble(scenarios=None, options=None, **kwargs): settings of this test's pushdouble_fresh server "
        "(PushDoubleServer arguments)",
    )


class _Settings:
    def __init__(self, config):
        base = _ini_dir(config)
        self.binary = config.getoption("pushdouble_bin")
        if not self.binary:
            ini = config.getini("pushdouble_bin")
            if ini:
                self.binary = os.path.join(base, ini)
        cli = [os.path.abspath(s) for s in config.getoption("pushdouble_scenarios") or []]
        ini = [os.path.join(base, s) for s in config.getini("pushdouble_scenarios") or []]
        self.scenarios = cli or ini
        self.report_exchanges = int(config.getini("pushdouble_report_exchanges") or 0)
        self.quiet = bool(config.getini("pushdouble_quiet"))
        self.if_missing = (config.getini("pushdouble_if_missing") or "error").strip().lower()

    def resolve_binary(self):
        try:
            return find_binary(self.binary)
        except BinaryNotFound as e:
            msg = "pushdouble: %s (set --pushdouble-bin or $PUSHDOUBLE_BIN)" % e
            if self.if_missing == "skip":
                pytest.skip(msg)
            pytest.fail(msg, pytrace=False)


def _ini_dir(config):
    inipath = getattr(config, "inipath", None)
    if inipath:
        return str(inipath.parent)
    return str(getattr(config, "rootpath", None) or config.rootdir)


def _settings(config):
    s = getattr(config, "_pushdouble_settings", None)
    if s is None:
        s = config._pushdouble_settings = _Settings(config)
    return s


def _track(node, server):
    node.__dict__.setdefault(_SERVERS_ATTR, []).append(server)


def _restore(server, scenarios):
    """A clean double for the next test: forget history, devices (world modes back to
    their defaults) and rules; load the session's scenarios again."""
    admin = server.admin
    admin.reset()
    admin.clear_devices()
    for i, path in enumerate(scenarios):
        admin.load_scenario(path, merge=i > 0)


@pytest.fixture(scope="session")
def pushdouble_server(request):
    """The session's server (started once; not reset between tests: see ``pushdouble``)."""
    s = _settings(request.config)
    server = PushDoubleServer(binary=s.resolve_binary(), scenarios=s.scenarios, quiet=s.quiet)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pushdouble(pushdouble_server, request):
    """The session's server, reset for this test (history, devices, rules; scenarios reloaded)."""
    _restore(pushdouble_server, _settings(request.config).scenarios)
    _track(request.node, pushdouble_server)
    return pushdouble_server


@pytest.fixture
def pushdouble_fresh(request):
    """A server of this test's own (``@pytest.mark.pushdouble(...)`` passes its arguments)."""
    s = _settings(request.config)
    marker = request.node.get_closest_marker("pushdouble")
    kwargs = dict(marker.kwargs) if marker else {}
    kwargs.setdefault("scenarios", s.scenarios)
    kwargs.setdefault("quiet", s.quiet)
    binary = kwargs.pop("binary", None) or s.resolve_binary()
    server = PushDoubleServer(binary=binary, **kwargs)
    server.start()
    _track(request.node, server)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def pushdouble_browser(pushdouble_server, request):
    """A headless Firefox using the session server as its push service (one per session)."""
    from .browser import FirefoxPushBrowser, autopush_url, find_firefox

    if not find_firefox():
        msg = "pushdouble_browser: no Firefox (install firefox-esr, or set $PUSHDOUBLE_FIREFOX)"
        if _settings(request.config).if_missing == "skip":
            pytest.skip(msg)
        pytest.fail(msg, pytrace=False)
    browser = FirefoxPushBrowser(autopush_url(pushdouble_server))
    browser.start()
    try:
        yield browser
    finally:
        browser.stop()


@pytest.fixture
def pushdouble_env(pushdouble):
    """The sender environment of ``pushdouble`` (a new dict each time, as ``serve`` wrote it)."""
    return pushdouble.environment


@pytest.fixture
def pushdouble_environ(pushdouble):
    """``pushdouble`` reset for this test, its sender environment applied to ``os.environ``
    for the test and restored afterwards. Returns the applied dict."""
    with pushdouble.applied_environment() as env:
        yield env


@pytest.fixture(scope="session")
def pushdouble_session_environ(pushdouble_server):
    """The session server's sender environment applied to ``os.environ`` for the whole
    session, restored at its end. Returns the applied dict (per-test reset: ``pushdouble``)."""
    with pushdouble_server.applied_environment() as env:
        yield env


@pytest.fixture
def pushdouble_admin(pushdouble):
    """The admin client of ``pushdouble``."""
    return pushdouble.admin


def _history_section(server, limit):
    try:
        exchanges = server.admin.history()
    except AdminError as e:
        return "(history not available: %s)" % e
    if not exchanges:
        return "(no exchange recorded during this test; admin API %s)" % server.admin_url
    shown = exchanges[-limit:]
    first = len(exchanges) - len(shown) + 1
    lines = ["%d exchange(s) in this test%s (all of them: GET %s/history):" % (
        len(exchanges), (", the last %d (%d-%d)" % (len(shown), first, len(exchanges))) if len(shown) < len(exchanges) else "",
        server.admin_url)]
    for i, x in enumerate(shown, first):
        lines.append("%d. %s" % (i, x.summary()))
        n = x.get("notification")
        if n is not None:
            text = json.dumps(n, sort_keys=True, ensure_ascii=False)
            lines.append("    notification: " + (text if len(text) <= 300 else text[:299] + "…"))
        body = x.response_body
        if body and not x.accepted:
            b = " ".join(body.split())
            lines.append("    response: " + (b if len(b) <= 200 else b[:199] + "…"))
    return "\n".join(lines)


def _unfired_section(server):
    """The fault rules no request hit: a fault the test set up but never exercised."""
    try:
        rules = server.admin.faults()
    except AdminError as e:
        return "(fault rules not available: %s)" % e
    unfired = [r for r in rules if not r.get("fired")]
    if not unfired:
        return None
    lines = ["%d of %d fault rule(s) never fired:" % (len(unfired), len(rules))]
    for r in unfired:
        rule = r.get("rule") or {}
        match = rule.get("match") or {}
        scope = match.get("endpoint") or "send endpoints"
        lines.append("- %s: %s on %s %s (matched %s request(s)) match=%s" % (
            rule.get("id"), (rule.get("action") or {}).get("type"), match.get("provider") or "every provider", scope,
            r.get("matched", 0), json.dumps(match, sort_keys=True)))
    return "\n".join(lines)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    servers = item.__dict__.get(_SERVERS_ATTR) or []
    limit = _settings(item.config).report_exchanges
    if not servers or limit <= 0:
        return
    for server in servers:
        if not server.running:
            continue
        report.sections.append(("pushdouble history (%s)" % server.admin_url, _history_section(server, limit)))
        unfired = _unfired_section(server)
        if unfired:
            report.sections.append(("pushdouble faults that never fired (%s)" % server.admin_url, unfired))
