"""In-process host redirect, for clients that ignore ``HTTPS_PROXY``.

Many push clients connect to the provider's real host by themselves (HTTP/2 APNs
clients, firebase-admin's async transport...). Instead of an ``/etc/hosts`` entry and
iptables rules, this patches :func:`socket.getaddrinfo` in the current process, so that
resolving ``api.push.apple.com`` port 443 gives the fake's address and port:

    with redirect_hosts({"api.push.apple.com:443": ("127.0.0.1", 41234)}):
        ...  # asyncio, http.client, urllib, urllib3/requests, httpx/httpcore, aiohttp connect to the fake

anyio (the async transport of httpx/httpcore) resolves a name itself but connects to the
caller's port, so ``anyio.connect_tcp`` is wrapped too (when anyio is installed) to map the
name and port before it sees them.

Only the address a socket connects to changes: the library still passes the real name
to TLS, so SNI, ``:authority``/``Host`` and the certificate's host name check use the
real name, which the test certificate of the fakes carries (trust its CA:
``SSL_CERT_FILE``/``REQUESTS_CA_BUNDLE``, or the library's own CA option).

``PUSHDOUBLE_HOST_MAP`` (a JSON object ``{"host:port": "ip:port"}``) is read by
:func:`redirect_from_environment`; the driver kit's :func:`pushdouble.driver.run` calls
it itself when the variable is set. :func:`host_map_from_providers` builds the map from
the ``initialize`` params of ``pushdouble conform``.

Limits: code that bound ``getaddrinfo`` before the patch (``from socket import
getaddrinfo``), resolvers of their own (aiodns/c-ares, uvloop's, a DNS-over-HTTPS client)
and other processes are not covered. Names not in the map resolve as usual.
"""

import json
import os
import socket
import sys
import threading
from urllib.parse import urlsplit

__all__ = ["redirect_hosts", "redirect_from_environment", "HostRedirect", "parse_host_map",
           "host_map_from_providers", "ENV_VAR"]

ENV_VAR = "PUSHDOUBLE_HOST_MAP"

_lock = threading.RLock()
_active = []  # HostRedirect objects, newest last (the newest wins)
_original_getaddrinfo = None


def _split_host_port(text, what):
    text = str(text).strip()
    if text.startswith("["):  # [v6]:port
        host, _, rest = text[1:].partition("]")
        if not rest.startswith(":"):
            raise ValueError("%s %r: expected [address]:port" % (what, text))
        port = rest[1:]
    else:
        host, sep, port = text.rpartition(":")
        if not sep:
            raise ValueError("%s %r: expected host:port" % (what, text))
    try:
        port = int(port)
    except ValueError:
        raise ValueError("%s %r: the port is not a number" % (what, text)) from None
    if not host or not 0 < port < 65536:
        raise ValueError("%s %r: expected host:port" % (what, text))
    return host, port


def parse_host_map(mapping):
    """Normalize a map: keys ``"host:port"`` (or ``(host, port)``), values ``("ip", port)``
    or ``"ip:port"`` → ``{(lowercase host, port): (ip, port)}``."""
    out = {}
    for key, value in dict(mapping).items():
        if isinstance(key, tuple):
            host, port = key[0], int(key[1])
        else:
            host, port = _split_host_port(key, "host map key")
        if isinstance(value, (tuple, list)):
            target = (str(value[0]), int(value[1]))
        else:
            target = _split_host_port(value, "host map value for %s" % key)
        out[(host.lower().rstrip("."), port)] = target
    return out


def _port_number(port):
    if port is None:
        return None
    if isinstance(port, int):
        return port
    if isinstance(port, bytes):
        port = port.decode("ascii", "replace")
    try:
        return int(port)
    except ValueError:
        try:
            return socket.getservbyname(port, "tcp")
        except OSError:
            return None


def _lookup(host, port):
    if host is None:
        return None
    if isinstance(host, bytes):  # anyio (httpx/httpcore) passes the name as IDNA-encoded bytes
        try:
            host = host.decode("idna")
        except UnicodeError:  # the idna codec has no "replace" handler; such a name is in no map
            host = host.decode("ascii", "replace")
    key = (str(host).lower().rstrip("."), _port_number(port))
    # A wildcard key ("*.notify.windows.com", 443) stands for exactly one more label.
    label, dot, rest = key[0].partition(".")
    wildcard = ("*." + rest, key[1]) if label and dot else None
    with _lock:
        for r in reversed(_active):
            target = r.mapping.get(key)
            if target is None and wildcard is not None:
                target = r.mapping.get(wildcard)
            if target is not None:
                r.hits += 1
                return target
    return None


def _patched_getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):
    target = _lookup(host, port)
    if target is None:
        return _original_getaddrinfo(host, port, family, type, proto, flags)
    ip, tport = target
    # resolve the target (a literal address normally) without AI_CANONNAME surprises
    return _original_getaddrinfo(ip, tport, family, type, proto, flags & ~getattr(socket, "AI_CANONNAME", 0))


_original_anyio_connect_tcp = None


async def _patched_anyio_connect_tcp(remote_host, remote_port, *args, **kwargs):
    # anyio resolves the name itself but connects to the caller's port with the resolved
    # address, so the map's port would be lost: map (name, port) before anyio sees them.
    target = _lookup(remote_host, remote_port)
    if target is not None:
        remote_host, remote_port = target
    return await _original_anyio_connect_tcp(remote_host, remote_port, *args, **kwargs)


def _install():
    global _original_getaddrinfo, _original_anyio_connect_tcp
    if _original_getaddrinfo is None:
        _original_getaddrinfo = socket.getaddrinfo
        socket.getaddrinfo = _patched_getaddrinfo
    try:  # httpx/httpcore's async transport connects through anyio.connect_tcp
        import anyio
    except ImportError:
        return
    if _original_anyio_connect_tcp is None:
        _original_anyio_connect_tcp = anyio.connect_tcp
        anyio.connect_tcp = _patched_anyio_connect_tcp


def _uninstall():
    global _original_getaddrinfo, _original_anyio_connect_tcp
    if _original_getaddrinfo is not None and socket.getaddrinfo is _patched_getaddrinfo:
        socket.getaddrinfo = _original_getaddrinfo
        _original_getaddrinfo = None
    anyio = sys.modules.get("anyio")
    if _original_anyio_connect_tcp is not None and anyio is not None and anyio.connect_tcp is _patched_anyio_connect_tcp:
        anyio.connect_tcp = _original_anyio_connect_tcp
        _original_anyio_connect_tcp = None


class HostRedirect:
    """An active redirect (from :func:`redirect_hosts`); a context manager, or call
    :meth:`close`. ``hits`` counts the lookups it answered."""

    def __init__(self, mapping):
        self.mapping = parse_host_map(mapping)
        self.hits = 0
        self.closed = False
        with _lock:
            _active.append(self)
            _install()

    def close(self):
        with _lock:
            if self.closed:
                return
            self.closed = True
            if self in _active:
                _active.remove(self)
            if not _active:
                _uninstall()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        items = ", ".join("%s:%d -> %s:%d" % (h, p, t[0], t[1]) for (h, p), t in sorted(self.mapping.items()))
        return "<HostRedirect %s%s>" % (items, " (closed)" if self.closed else "")


def redirect_hosts(mapping=None):
    """Redirect connections to ``host:port`` to another address in this process.

    ``mapping``: ``{"api.push.apple.com:443": ("127.0.0.1", 41234), ...}`` (values may be
    ``"ip:port"`` strings). Without one, ``$PUSHDOUBLE_HOST_MAP`` is read (a ``ValueError``
    when neither is there). Returns a :class:`HostRedirect`: use it in a ``with`` block,
    or leave it active for the life of the process."""
    if mapping is None:
        text = os.environ.get(ENV_VAR)
        if not text:
            raise ValueError("no host map given and $%s is not set" % ENV_VAR)
        mapping = _from_json(text)
    return HostRedirect(mapping)


def _from_json(text):
    try:
        value = json.loads(text)
    except ValueError as e:
        raise ValueError("$%s is not JSON: %s" % (ENV_VAR, e)) from None
    if not isinstance(value, dict):
        raise ValueError('$%s must be a JSON object {"host:port": "ip:port"}' % ENV_VAR)
    return value


def redirect_from_environment(environ=None):
    """Activate ``$PUSHDOUBLE_HOST_MAP`` when it is set (returns the :class:`HostRedirect`),
    else do nothing (returns None)."""
    text = (os.environ if environ is None else environ).get(ENV_VAR)
    if not text:
        return None
    return HostRedirect(_from_json(text))


# The initialize-params member that gives each listener's URL (driver protocol v1, docs/
# conformance.md). The real names of each listener come from the binary (pushdouble.hosts).
_PROVIDER_LISTENERS = (
    ("apns", "url", "apns-production"),
    ("apns", "sandboxUrl", "apns-sandbox"),
    ("fcm", "url", "fcm"),
    ("fcm", "tokenUrl", "google-oauth"),
    ("expo", "url", "expo"),
    ("webpush", "url", "webpush"),
)


def host_map_from_providers(providers, hosts=None):
    """The host map for the fakes named in ``initialize``'s ``params["providers"]`` (what a
    conform adapter's :meth:`~pushdouble.driver.Adapter.initialize` gets): each provider's
    real host names → the fake's address from its URL. ``hosts`` is the ``{host:port:
    listener}`` table; by default :func:`pushdouble.hosts.real_hosts` (from the binary)."""
    from .hosts import real_hosts
    out = {}
    by_listener = {}
    for name, listener in (real_hosts() if hosts is None else hosts).items():
        by_listener.setdefault(listener, []).append(name)
    for provider, member, listener in _PROVIDER_LISTENERS:
        url = (providers.get(provider) or {}).get(member)
        if not url:
            continue
        u = urlsplit(url)
        if u.hostname is None or u.port is None:
            continue
        for name in by_listener.get(listener, ()):
            out[name] = (u.hostname, u.port)
    return out
