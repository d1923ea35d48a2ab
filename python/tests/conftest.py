import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if not os.environ.get("PUSHDOUBLE_TEST_INSTALLED"):  # test this checkout, not an installed copy
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))
sys.path.insert(0, HERE)

pytest_plugins = ["pytester"]

from pushdouble.binary import BinaryNotFound, find_binary, find_reference_sender  # noqa: E402


def _binary_or_skip():
    try:
        return find_binary()
    except BinaryNotFound as e:
        pytest.skip("integration test needs the pushdouble binary (set PUSHDOUBLE_BIN=/path/to/pushdouble): %s" % e)


@pytest.fixture(scope="session")
def pushdouble_bin():
    """The real binary ($PUSHDOUBLE_BIN, the bundled copy or PATH); skips when there is none."""
    return _binary_or_skip()


@pytest.fixture(scope="session")
def reference_sender_bin(pushdouble_bin):
    try:
        return find_reference_sender()
    except BinaryNotFound as e:
        pytest.skip("needs pushdouble-reference-sender (set PUSHDOUBLE_REFERENCE_SENDER): %s" % e)


@pytest.fixture(scope="module")
def server(pushdouble_bin):
    """One double for a test module (tests reset it themselves where they need a clean state)."""
    from pushdouble import PushDoubleServer

    with PushDoubleServer(binary=pushdouble_bin) as s:
        yield s


@pytest.fixture
def clean(server):
    server.admin.reset()
    server.admin.clear_devices()
    return server


@pytest.fixture
def plugin_args():
    """-p for the plugin unless it is installed (then its entry point loads it already)."""
    try:
        from importlib.metadata import entry_points

        eps = entry_points()
        group = eps.select(group="pytest11") if hasattr(eps, "select") else eps.get("pytest11", [])
        if any(ep.name == "pushdouble" for ep in group):
            return []
    except Exception:
        pass
    return ["-p", "pushdouble.pytest_plugin"]
