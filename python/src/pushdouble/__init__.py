"""PushDouble for Python: run the offline push-provider double in tests, drive it through
its admin API, and write ``pushdouble conform`` adapters.

- :class:`PushDoubleServer` (``pushdouble.server``): ``pushdouble serve --ephemeral`` as a
  context manager, with the sender environment and an admin client;
- :class:`AdminClient` (``pushdouble.admin``): devices, faults, history, reset, scenarios;
- the pytest plugin (``pushdouble.pytest_plugin``, loaded automatically once installed):
  the ``pushdouble``, ``pushdouble_environ``, ``pushdouble_session_environ``,
  ``pushdouble_fresh`` and ``pushdouble_env`` fixtures;
- ``pushdouble.environ``: the sender environment applied to ``os.environ`` and restored,
  with a CA bundle and ``NO_PROXY`` that leave the process's other HTTPS alone;
- ``pushdouble.driver``: the driver-protocol kit for conform adapters;
- ``pushdouble.redirect``: in-process host redirect for clients that ignore HTTPS_PROXY;
- ``pushdouble.browser``: a headless Firefox whose push service is the double
  (:class:`FirefoxPushBrowser`, the ``pushdouble_browser`` fixture, ``python -m pushdouble.browser``).

Standard library only.
"""

from .admin import AdminClient, AdminError, Exchange
from .binary import BinaryNotFound, find_binary, find_reference_sender
from .browser import FirefoxPushBrowser
from .redirect import redirect_from_environment, redirect_hosts
from .server import PushDoubleServer, ServerStartError

__version__ = "0.1.0"

__all__ = [
    "AdminClient", "AdminError", "Exchange", "BinaryNotFound", "find_binary", "find_reference_sender", "FirefoxPushBrowser",
    "PushDoubleServer", "ServerStartError", "redirect_hosts", "redirect_from_environment", "__version__",
]
