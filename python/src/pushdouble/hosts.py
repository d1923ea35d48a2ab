"""The real provider host names and the listener of a double that stands in for each.

The table is not kept here: it comes from the ``pushdouble`` binary (``pushdouble hosts
--json``), which reads it from each provider module's declared real hosts, the same list
the CONNECT proxy routes by. A running double reports the same names per listener in its
endpoints (``realHosts`` in the endpoints file and in ``GET /endpoints``).

A name may be a wildcard, ``"*.notify.windows.com:443"``: it stands for exactly one more
label (``db5p.notify.windows.com``), as the proxy and the test certificate treat it.
"""

import json
import subprocess
import threading

from .binary import find_binary

__all__ = ["real_hosts", "hosts_from_endpoints", "matches"]

_cache = {}
_lock = threading.Lock()


def real_hosts(binary=None):
    """``{"api.push.apple.com:443": "apns-production", ...}``: every real ``host:port`` and
    its listener, from ``pushdouble hosts --json`` (run once per binary and cached). The
    binary is ``binary``, else :func:`pushdouble.binary.find_binary` (``$PUSHDOUBLE_BIN``,
    which ``pushdouble conform`` sets for its sender, the bundled copy, ``PATH``).
    Raises :class:`pushdouble.binary.BinaryNotFound` when no binary can be found."""
    path = binary or find_binary()
    with _lock:
        if path not in _cache:
            out = subprocess.run([path, "hosts", "--json"], check=True, capture_output=True, timeout=60).stdout
            _cache[path] = dict(json.loads(out.decode("utf-8"))["hosts"])
        return dict(_cache[path])


def hosts_from_endpoints(endpoints):
    """The same table from a running double's endpoints (the ``endpoints`` list of its
    endpoints file or of ``GET /endpoints``): ``{host:port: listener name}``, first claim wins."""
    out = {}
    for e in endpoints:
        for name in e.get("realHosts") or ():
            out.setdefault(name, e["name"])
    return out


def matches(pattern, host, port):
    """True when ``host:port`` is the name ``pattern`` (``"host:port"``, possibly
    ``"*.domain:port"``: exactly one more label) stands for; host names compare without case."""
    name, _, p = pattern.rpartition(":")
    if int(p) != int(port):
        return False
    name, host = name.lower().rstrip("."), host.lower().rstrip(".")
    if name.startswith("*."):
        label, dot, rest = host.partition(".")
        return bool(label) and dot == "." and rest == name[2:]
    return host == name
