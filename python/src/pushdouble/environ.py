"""The sender environment, applied to ``os.environ`` so that it leaves the rest of the
process alone.

``serve`` writes the environment a sender needs: each provider's URL and credentials, the
test CA in ``SSL_CERT_FILE`` / ``REQUESTS_CA_BUNDLE`` / ``CURL_CA_BUNDLE``, and
``HTTPS_PROXY`` pointing at the double's CONNECT proxy (which serves the providers' real
host names and refuses every other host: it never makes an outbound connection). Applied
as it is, that environment breaks any *other* HTTPS call of the test process: the CA
variables trust only the test CA, and every non-loopback host goes to the proxy.

:func:`sender_environment` adapts it (the default is what the fixtures apply):

- ``trust="system+test"``: the CA variables point at a bundle of the trust the process
  already had (the CA files those variables named before, the system's default CA file,
  and certifi's bundle when certifi is installed) plus the test CA. Other HTTPS servers stay
  verifiable; the trade-off is that the sender would also accept a real provider's
  certificate, which is harmless because the proxy never connects out.
  ``trust="test"``: the test CA alone, as ``serve`` writes it (strictest; breaks other HTTPS).
- ``no_proxy=[...]``: hosts the process must reach directly (an emulator, a package
  index), added to ``NO_PROXY`` / ``no_proxy`` together with loopback and whatever the
  process's own ``NO_PROXY`` already listed. ``proxy=False`` drops the proxy variables
  (for senders that take the provider URLs, ``FCM_URL`` and friends, or use
  :func:`pushdouble.redirect.redirect_hosts`, which touches only the providers' names).

:class:`applied` sets the variables for a ``with`` block and restores ``os.environ`` exactly
as it found it (values changed back, variables it added removed).
"""

import os
import ssl

__all__ = ["sender_environment", "applied", "CA_VARIABLES", "PROXY_VARIABLES"]

#: The variables that hold a CA file a client trusts *instead of* its default roots.
CA_VARIABLES = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")
#: The proxy variables of the sender environment.
PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy")
#: Trust modes of :func:`sender_environment`.
TRUST_MODES = ("system+test", "test")


def _roots(environ, skip_dir):
    """The CA files the process trusts today, in order, without duplicates or the double's own files."""
    out = []
    candidates = [environ.get(v) for v in CA_VARIABLES]
    paths = ssl.get_default_verify_paths()
    candidates += [paths.cafile, paths.openssl_cafile]
    try:
        import certifi  # requests and httpx trust certifi's bundle by default

        candidates.append(certifi.where())
    except ImportError:
        pass
    for c in candidates:
        if not c or not os.path.isfile(c):
            continue
        real = os.path.realpath(c)
        if skip_dir and real.startswith(os.path.realpath(skip_dir) + os.sep):
            continue
        if real not in out:
            out.append(real)
    return out


def combined_bundle(test_ca, directory, environ=None):
    """Writes ``directory/ca-bundle.pem``: the process's current roots plus ``test_ca``. Returns its path."""
    environ = os.environ if environ is None else environ
    parts = []
    for path in _roots(environ, directory):
        with open(path, "rb") as f:
            parts.append(f.read().rstrip(b"\n") + b"\n")
    with open(test_ca, "rb") as f:
        parts.append(f.read().rstrip(b"\n") + b"\n")
    out = os.path.join(directory, "ca-bundle.pem")
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(b"".join(parts))
    os.replace(tmp, out)
    return out


def _hosts(text):
    return [h.strip() for h in (text or "").split(",") if h.strip()]


def sender_environment(server_environment, directory, trust="system+test", no_proxy=(), proxy=True, environ=None):
    """The sender environment ``serve`` wrote (``server_environment``), adapted as the module
    docstring describes. ``directory`` is where the combined CA bundle is written (the
    server's private directory); ``environ`` the process environment it starts from."""
    if trust not in TRUST_MODES:
        raise ValueError("trust: unknown value %r; expected one of %s" % (trust, ", ".join(TRUST_MODES)))
    environ = os.environ if environ is None else environ
    env = dict(server_environment)
    test_ca = env.get("PUSHDOUBLE_CA_FILE")
    if trust == "system+test" and test_ca:
        bundle = combined_bundle(test_ca, directory, environ)
        for v in CA_VARIABLES:
            if v in env:
                env[v] = bundle
    if not proxy:
        for v in PROXY_VARIABLES:
            env.pop(v, None)
    elif "HTTPS_PROXY" in env:
        hosts = []
        for h in _hosts(env.get("NO_PROXY")) + _hosts(environ.get("NO_PROXY")) + _hosts(environ.get("no_proxy")) + list(no_proxy):
            if h not in hosts:
                hosts.append(h)
        env["NO_PROXY"] = env["no_proxy"] = ",".join(hosts)
    return env


class applied:
    """``with applied(env):`` sets ``env`` in ``os.environ`` and, on exit, restores every
    variable it touched to its value before (or removes it when it was unset). Nests."""

    def __init__(self, env):
        self.env = dict(env)
        self._saved = None

    def __enter__(self):
        self._saved = {k: os.environ.get(k) for k in self.env}
        os.environ.update(self.env)
        return self.env

    def __exit__(self, *exc):
        for k, v in self._saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        self._saved = None
        return False
