"""``PushDoubleServer``: a ``pushdouble serve --ephemeral`` process for tests.

    with PushDoubleServer() as pd, pd.applied_environment():   # os.environ restored after
        run_the_sender_under_test()
        assert pd.admin.history(provider="fcm")[-1].status == 200

The server runs in its own process group behind a small guard process
(``pushdouble/_guard.py``) whose stdin is a pipe held by this Python process: when this
process dies in any way, the pipe closes and the guard stops the server (SIGTERM, then
SIGKILL after a grace period); on Linux the server also dies with the guard
(``PR_SET_PDEATHSIG``). So nothing is left running after a test session, even one that
crashed or was SIGKILLed.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from . import environ as _environ
from .admin import AdminClient
from .binary import find_binary
from .hosts import hosts_from_endpoints

__all__ = ["PushDoubleServer", "ServerStartError", "ServerOptionError"]

_GUARD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_guard.py")



class ServerStartError(RuntimeError):
    """``pushdouble serve`` exited or did not get ready in time; the message has its
    command line, exit status and stderr."""


class ServerOptionError(ServerStartError, ValueError):
    """``serve`` refused a name it was given (an ``options`` key the provider does not have):
    a ``ValueError`` too, whose message lists the valid names, as the admin client's checks do."""


def _tail(path, limit=8000):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return ""
    text = data.decode("utf-8", "replace")
    return text if len(text) <= limit else "...\n" + text[-limit:]


class PushDoubleServer:
    """One ``pushdouble serve --ephemeral --endpoints-file FILE`` process.

    :param binary: path of the ``pushdouble`` binary (default: :func:`pushdouble.binary.find_binary`).
    :param scenarios: scenario files loaded at start (``--scenario``, in order).
    :param quiet: ``--quiet`` (no log line per exchange; the log goes to :attr:`log_file`).
    :param options: fake options, ``{"apns.tooManyRequestsPerDevice": 5}`` or
        ``{"apns": {"tooManyRequestsPerDevice": 5}}`` (``--option``; values JSON-encoded).
    :param proxy: ``False`` for ``--no-proxy``.
    :param host, history_cap, seed: ``--host``, ``--history-cap``, ``--seed``.
    :param history_max_bytes: ``--history-max-bytes`` (an int of bytes, or a string such as ``"64M"``).
    :param extra_args: more arguments for ``serve``.
    :param startup_timeout: seconds to wait for the endpoints file.
    :param stop_grace: seconds between SIGTERM and SIGKILL when stopping.
    :param env: extra environment variables for the server process.
    """

    def __init__(self, binary=None, scenarios=(), quiet=True, options=None, proxy=True, host=None,
                 history_cap=None, seed=None, extra_args=(), startup_timeout=30.0, stop_grace=5.0, env=None,
                 history_max_bytes=None):
        self.binary = binary or find_binary()
        self.scenarios = [os.fspath(s) for s in scenarios]
        self.quiet = quiet
        self.options = options or {}
        self.proxy = proxy
        self.host = host
        self.history_cap = history_cap
        self.history_max_bytes = history_max_bytes
        self.seed = seed
        self.extra_args = list(extra_args)
        self.startup_timeout = startup_timeout
        self.stop_grace = stop_grace
        self.extra_env = dict(env or {})
        self._process = None
        self._dir = None
        self._document = None
        self._admin = None
        self.returncode = None

    # -- command line ------------------------------------------------------------------

    def _option_args(self):
        args = []
        for key, value in self.options.items():
            if isinstance(value, dict) and "." not in key:
                items = [("%s.%s" % (key, k), v) for k, v in value.items()]
            else:
                items = [(key, value)]
            for name, v in items:
                args += ["--option", "%s=%s" % (name, json.dumps(v))]
        return args

    def command(self, endpoints_file):
        """The ``serve`` command line this server runs."""
        cmd = [self.binary, "serve", "--ephemeral", "--exit-with-parent", "--endpoints-file", endpoints_file]
        for s in self.scenarios:
            cmd += ["--scenario", s]
        if self.quiet:
            cmd.append("--quiet")
        if not self.proxy:
            cmd.append("--no-proxy")
        if self.host:
            cmd += ["--host", self.host]
        if self.history_cap is not None:
            cmd += ["--history-cap", str(self.history_cap)]
        if self.history_max_bytes is not None:
            cmd += ["--history-max-bytes", str(self.history_max_bytes)]
        if self.seed is not None:
            cmd += ["--seed", str(self.seed)]
        return cmd + self._option_args() + self.extra_args

    # -- life cycle --------------------------------------------------------------------

    def start(self):
        """Start the server and wait until it listens. Returns ``self``."""
        if self._process is not None:
            return self
        self._dir = tempfile.mkdtemp(prefix="pushdouble-py-")
        endpoints = os.path.join(self._dir, "endpoints.json")
        self._cmd = self.command(endpoints)
        self.log_file = os.path.join(self._dir, "serve.log")
        self.stderr_file = os.path.join(self._dir, "serve.err")
        self._pid_file = os.path.join(self._dir, "serve.pid")
        env = dict(os.environ)
        env.update(self.extra_env)
        with open(self.log_file, "wb") as out, open(self.stderr_file, "wb") as err:
            self._process = subprocess.Popen(
                [sys.executable, _GUARD, str(self.stop_grace), self._pid_file] + self._cmd,
                stdin=subprocess.PIPE, stdout=out, stderr=err, env=env,
                start_new_session=True, close_fds=True,
            )
        deadline = time.monotonic() + self.startup_timeout
        while True:
            if os.path.exists(endpoints):
                try:
                    with open(endpoints) as f:
                        self._document = json.load(f)
                    break
                except ValueError:  # not expected (written atomically); try again
                    pass
            code = self._process.poll()
            if code is not None:
                self._fail("exited with status %d before it was ready" % code)
            if time.monotonic() > deadline:
                self._fail("was not ready after %.1f s (no %s)" % (self.startup_timeout, endpoints))
            time.sleep(0.02)
        self._admin = AdminClient(self.admin_url)
        return self

    def _fail(self, what):
        self.stop()
        stderr = self.stderr()
        error = ServerOptionError if "unknown option; expected one of" in stderr else ServerStartError
        raise error(
            "pushdouble serve %s\ncommand: %s\nstderr:\n%s" % (what, " ".join(self._cmd), stderr.rstrip() or "(empty)")
        )

    def stop(self):
        """Stop the server (SIGTERM to its process group, SIGKILL after ``stop_grace``).
        Returns its exit status. Safe to call twice."""
        p = self._process
        if p is None:
            return self.returncode
        if p.poll() is None:
            try:
                p.stdin.write(b"stop\n")  # an orderly stop: the guard leaves our files to us
                p.stdin.close()  # the guard sees EOF and stops the server
            except OSError:
                pass
            self._signal_group(signal.SIGTERM)
            try:
                p.wait(self.stop_grace + 2)
            except subprocess.TimeoutExpired:
                self._signal_group(signal.SIGKILL)
                p.wait()
        else:
            try:
                p.stdin.close()
            except OSError:
                pass
        self.returncode = p.returncode
        pid = self._server_pid()
        if pid is not None:  # the guard is gone; make sure its child is too
            _wait_gone(pid, self.stop_grace)
            self._remove_credentials(pid)
        self._process = None
        self._last_log = _tail(self.log_file) if self._dir else ""
        self._last_stderr = _tail(self.stderr_file) if self._dir else ""
        if self._dir:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
        return self.returncode

    def _remove_credentials(self, pid):
        """serve removes its credential directory when it stops cleanly; after a SIGKILL
        it cannot, so do it here (only serve's own ``pushdouble-<pid>-...`` directory)."""
        ca = (self._document or {}).get("environment", {}).get("PUSHDOUBLE_CA_FILE")
        if not ca:
            return
        d = os.path.dirname(ca)
        if os.path.basename(d).startswith("pushdouble-%d-" % pid) and os.path.isdir(d):
            shutil.rmtree(d, ignore_errors=True)

    def _signal_group(self, sig):
        try:
            os.killpg(self._process.pid, sig)
        except OSError:
            pass

    def _server_pid(self):
        try:
            with open(self._pid_file) as f:
                return int(f.read().strip())
        except (OSError, ValueError, AttributeError):
            return None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def __del__(self):  # last resort; the guard covers the crash cases
        try:
            if self._process is not None:
                self.stop()
        except Exception:
            pass

    # -- what the running server offers ------------------------------------------------

    def _doc(self):
        if self._document is None:
            raise RuntimeError("the server is not started (call start() or use it as a context manager)")
        return self._document

    @property
    def running(self):
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self):
        """The ``pushdouble serve`` process id (not the guard's)."""
        return self._server_pid()

    @property
    def guard_pid(self):
        return self._process.pid if self._process else None

    @property
    def environment(self):
        """The sender environment exactly as ``serve`` writes it (a copy): the CA file
        variables, the proxy, each provider's URL and credential files."""
        return dict(self._doc()["environment"])

    def sender_environment(self, trust="system+test", no_proxy=(), proxy=True):
        """The sender environment made safe for the rest of the process (a new dict): the CA
        variables name a bundle of the process's current roots plus the test CA
        (``trust="test"``: the test CA alone), ``NO_PROXY`` also lists ``no_proxy`` and the
        process's own ``NO_PROXY``; ``proxy=False`` drops the proxy variables. See
        :mod:`pushdouble.environ` for the trade-offs."""
        return _environ.sender_environment(self.environment, self._dir, trust=trust, no_proxy=no_proxy, proxy=proxy)

    def applied_environment(self, **kwargs):
        """``with server.applied_environment():`` :meth:`sender_environment` (same arguments)
        set in ``os.environ``, restored as it was on exit."""
        return _environ.applied(self.sender_environment(**kwargs))

    @property
    def endpoints(self):
        """Every listener: ``[{"name", "url", "host", "port", "provider"?, "environment"?}]``."""
        return [dict(e) for e in self._doc()["endpoints"]]

    def endpoint(self, name):
        """One listener by name (``admin``, ``apns-production``, ``fcm``, ``proxy``, ...)."""
        for e in self._doc()["endpoints"]:
            if e["name"] == name:
                return dict(e)
        raise KeyError("no listener %r (have: %s)" % (name, ", ".join(e["name"] for e in self._doc()["endpoints"])))

    def url(self, name):
        return self.endpoint(name)["url"]

    @property
    def admin_url(self):
        return self.url("admin")

    @property
    def ca_file(self):
        return self._doc()["environment"].get("PUSHDOUBLE_CA_FILE")

    @property
    def admin(self):
        """An :class:`~pushdouble.admin.AdminClient` for this server."""
        self._doc()
        return self._admin

    def host_map(self):
        """``{"api.push.apple.com:443": ("127.0.0.1", port), ...}``: the providers' real
        names mapped to this server's listeners, for :func:`pushdouble.redirect.redirect_hosts`."""
        endpoints = self._doc()["endpoints"]
        names = {e["name"]: e for e in endpoints}
        out = {}
        for real, listener in hosts_from_endpoints(endpoints).items():
            e = names[listener]
            out[real] = (e["host"], int(e["port"]))
        return out

    def host_map_env(self):
        """:meth:`host_map` as the JSON value of ``PUSHDOUBLE_HOST_MAP``."""
        return json.dumps({k: "%s:%d" % v for k, v in self.host_map().items()}, sort_keys=True)

    def log(self):
        """What ``serve`` printed on stdout so far (the banner, and the exchange log unless quiet)."""
        return _tail(self.log_file, 1 << 20) if self._dir else getattr(self, "_last_log", "")

    def stderr(self):
        return _tail(self.stderr_file, 1 << 20) if self._dir else getattr(self, "_last_stderr", "")

    def __repr__(self):
        state = ("admin %s" % self.admin_url) if self._document and self.running else "stopped"
        return "<PushDoubleServer %s>" % state


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie still answers kill(0): look at its state where /proc exists
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def _wait_gone(pid, timeout):
    deadline = time.monotonic() + timeout
    while _pid_alive(pid):
        if time.monotonic() > deadline:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
            return
        time.sleep(0.02)
