import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _plugin_installed():
    try:
        from importlib.metadata import entry_points

        eps = entry_points()
        group = eps.select(group="pytest11") if hasattr(eps, "select") else eps.get("pytest11", [])
        return any(ep.name == "pushdouble" for ep in group)
    except Exception:
        return False


# Installed (pip install pushdouble-….whl), the plugin loads by itself; from a checkout,
# load it by name (PYTHONPATH=python/src).
if not _plugin_installed():
    pytest_plugins = ["pushdouble.pytest_plugin"]
