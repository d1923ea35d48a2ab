"""A real Firefox whose push service is the double: Web Push end to end, offline.

:class:`FirefoxPushBrowser` writes a Firefox profile whose push service is the double's
autopush WebSocket listener (``webpush-autopush``, plain ``ws://``) and starts Firefox headless
with Marionette. A page in it subscribes with ``pushManager.subscribe()`` and gets an endpoint
of the double's Web Push fake; an application server pushes there as to any subscription; the
double relays the encrypted message to Firefox, whose service worker decrypts it.

``marionette_driver`` (PyPI ``marionette-driver``) drives the browser; without it the browser
still starts and :attr:`FirefoxPushBrowser.marionette_port` is there for any Marionette client.

Standard library only (``marionette_driver`` is imported when a session is asked for).
"""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

#: The preferences that make Firefox use the double as its push service, headless and offline.
#: ``dom.push.connection.enabled`` must be set: automation (Marionette's recommended
#: preferences) turns the push connection off otherwise.
PUSH_PREFS = {
    "dom.push.enabled": True,
    "dom.push.connection.enabled": True,
    "dom.push.testing.allowInsecureServerURL": True,
    "dom.push.testing.ignorePermission": True,
    "permissions.default.desktop-notification": 1,
    "alerts.useSystemBackend": False,
    "dom.serviceWorkers.enabled": True,
    "dom.serviceWorkers.testing.enabled": True,
    # Reconnect fast after a cut connection (Firefox's default base is 5 s, doubled per failure).
    "dom.push.retryBaseInterval": 500,
}

#: Quiet, offline start: no first-run pages, updates, telemetry or remote services.
OFFLINE_PREFS = {
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.startup.page": 0,
    "browser.newtabpage.enabled": False,
    "app.update.disabledForTesting": True,
    "app.normandy.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    # Offline mode only when a test asks for it (Services.io.offline), never from the link state.
    "network.manage-offline-status": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "extensions.update.enabled": False,
    "services.settings.server": "data:,#remote-settings-disabled",
    "marionette.port": 0,
}


def find_firefox():
    """The Firefox binary: ``$PUSHDOUBLE_FIREFOX``, else ``firefox-esr`` or ``firefox`` on PATH; None when absent."""
    explicit = os.environ.get("PUSHDOUBLE_FIREFOX")
    if explicit:
        return explicit
    return shutil.which("firefox-esr") or shutil.which("firefox")


def autopush_url(server):
    """The ``ws://`` URL of a :class:`pushdouble.PushDoubleServer`'s autopush listener."""
    url = server.url("webpush-autopush")
    return "ws://" + url.split("://", 1)[1]


def _pref_line(name, value):
    if isinstance(value, bool):
        v = "true" if value else "false"
    elif isinstance(value, int):
        v = str(value)
    else:
        v = '"%s"' % str(value).replace("\\", "\\\\").replace('"', '\\"')
    return 'user_pref("%s", %s);\n' % (name, v)


def write_profile(directory, server_url, extra_prefs=None):
    """Writes ``user.js`` into ``directory``: the push service at ``server_url`` (``ws://…``)
    plus :data:`PUSH_PREFS` and :data:`OFFLINE_PREFS`. Returns the file's path."""
    prefs = dict(OFFLINE_PREFS)
    prefs.update(PUSH_PREFS)
    prefs["dom.push.serverURL"] = server_url
    prefs.update(extra_prefs or {})
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "user.js")
    with open(path, "w") as f:
        for name in sorted(prefs):
            f.write(_pref_line(name, prefs[name]))
    return path


class FirefoxPushBrowser:
    """One headless Firefox using the double as its push service.

    :param server_url: the double's autopush URL (``ws://127.0.0.1:PORT``; :func:`autopush_url`).
    :param firefox: the binary (default :func:`find_firefox`).
    :param extra_prefs: more preferences for the profile.
    :param headless: ``False`` to watch it.
    :param startup_timeout: seconds to wait for Marionette.
    """

    def __init__(self, server_url, firefox=None, extra_prefs=None, headless=True, startup_timeout=60.0):
        self.server_url = server_url
        self.firefox = firefox or find_firefox()
        if not self.firefox:
            raise FileNotFoundError("Firefox not found (install firefox-esr, or set PUSHDOUBLE_FIREFOX)")
        self.extra_prefs = dict(extra_prefs or {})
        self.headless = headless
        self.startup_timeout = startup_timeout
        self.profile = None
        self.marionette_port = None
        self._process = None
        self._client = None
        self._log = None

    def start(self):
        """Writes the profile, starts Firefox and waits for its Marionette port. Returns ``self``."""
        if self._process is not None:
            return self
        self.profile = tempfile.mkdtemp(prefix="pushdouble-firefox-")
        write_profile(self.profile, self.server_url, self.extra_prefs)
        # -remote-allow-system-access: Marionette's chrome context (recent Firefox requires the
        # flag), used to take the browser offline and back (Services.io.offline).
        cmd = [self.firefox, "-marionette", "-remote-allow-system-access", "-no-remote", "-profile", self.profile]
        if self.headless:
            cmd.insert(1, "-headless")
        env = dict(os.environ)
        env.setdefault("MOZ_CRASHREPORTER_DISABLE", "1")
        self.log_file = os.path.join(self.profile, "firefox.log")
        self._log = open(self.log_file, "wb")
        self._process = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        port_file = os.path.join(self.profile, "MarionetteActivePort")
        deadline = time.monotonic() + self.startup_timeout
        while self.marionette_port is None:
            if self._process.poll() is not None:
                raise RuntimeError("Firefox exited with status %d:\n%s" % (self._process.returncode, self.log()))
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("Firefox's Marionette did not start in %.0f s" % self.startup_timeout)
            try:
                with open(port_file) as f:
                    text = f.read().strip()
                if text:
                    port = int(text)
                    with socket.create_connection(("127.0.0.1", port), timeout=1):
                        self.marionette_port = port
            except (OSError, ValueError):
                time.sleep(0.05)
        return self

    @property
    def marionette(self):
        """A ``marionette_driver.marionette.Marionette`` session on this browser (made once)."""
        if self._client is None:
            from marionette_driver.marionette import Marionette
            client = Marionette(host="127.0.0.1", port=self.marionette_port)
            client.start_session()
            self._client = client
        return self._client

    @property
    def pid(self):
        return self._process.pid if self._process else None

    def memory_kib(self):
        """Memory of Firefox and its child processes now, in KiB: the sum of their proportional
        set sizes (PSS: shared pages split between the processes that map them; /proc, Linux;
        0 elsewhere)."""
        if self._process is None or not os.path.isdir("/proc"):
            return 0
        total = 0
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % entry) as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
                if self._process.pid not in (parent, int(entry)):
                    continue
                with open("/proc/%s/smaps_rollup" % entry) as f:
                    for line in f:
                        if line.startswith("Pss:"):
                            total += int(line.split()[1])
            except (OSError, ValueError, IndexError):
                continue
        return total

    def log(self, limit=6000):
        """Firefox's output so far (its end)."""
        try:
            with open(self.log_file, "rb") as f:
                text = f.read().decode("utf-8", "replace")
        except OSError:
            return ""
        return text[-limit:]

    def stop(self):
        """Ends the session and Firefox, and removes the profile."""
        if self._client is not None:
            try:
                self._client.delete_session()
            except Exception:  # the browser may already be gone
                pass
            self._client = None
        if self._process is not None:
            if self._process.poll() is None:
                try:
                    os.killpg(self._process.pid, signal.SIGTERM)
                except OSError:
                    pass
                try:
                    self._process.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(self._process.pid, signal.SIGKILL)
                    self._process.wait(10)
            self._process = None
        if self._log is not None:
            self._log.close()
            self._log = None
        if self.profile:
            shutil.rmtree(self.profile, ignore_errors=True)
            self.profile = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def main(argv=None):
    """``python -m pushdouble.browser [--url ws://…] [--headed] [--page URL]``: a Firefox whose
    push service is a running double (its autopush URL: ``--url``, else the endpoints file of
    ``pushdouble serve`` on the fixed ports), until interrupted. Prints the Marionette port."""
    import argparse
    import json

    parser = argparse.ArgumentParser(prog="python -m pushdouble.browser", description=main.__doc__)
    parser.add_argument("--url", help="the double's autopush URL (ws://127.0.0.1:8727)")
    parser.add_argument("--endpoints-file", default="/tmp/pushdouble-endpoints.json",
                        help="read the URL from this endpoints file of pushdouble serve (default %(default)s)")
    parser.add_argument("--headed", action="store_true", help="show the window")
    parser.add_argument("--page", help="open this page")
    args = parser.parse_args(argv)
    url = args.url
    if not url:
        try:
            with open(args.endpoints_file) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            parser.error("no --url and no endpoints file %s (%s): start pushdouble serve first" % (args.endpoints_file, e))
        found = [e["url"] for e in doc.get("endpoints", []) if e.get("name") == "webpush-autopush"]
        if not found:
            parser.error("%s names no webpush-autopush listener" % args.endpoints_file)
        url = "ws://" + found[0].split("://", 1)[1]
    # SIGTERM ends the run like ^C, so Firefox and its profile go too.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    with FirefoxPushBrowser(url, headless=not args.headed) as browser:
        print("firefox: push service %s, marionette port %d, profile %s" % (url, browser.marionette_port, browser.profile), flush=True)
        if args.page:
            browser.marionette.navigate(args.page)
        try:
            while browser._process.poll() is None:
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
