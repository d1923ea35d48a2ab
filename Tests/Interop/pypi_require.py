"""The one import guard of the real-client scripts (Tests/Interop/apns_*.py, webpush_*.py):
`require(distribution, module)` imports a PyPI client library, or prints the script's result
line naming the fix and exits 2 (the Swift side reports "X is not installed")."""
import importlib
import importlib.metadata
import json
import sys


def require(distribution, module):
    """Imports `module` of PyPI distribution `distribution`, or exits 2 with the fix."""
    def missing(why):
        msg = f"{distribution} is not installed (run bash .ci/run or pip install {distribution}): {why}"
        print(json.dumps({"library": distribution, "failures": [msg], "results": {}}))
        sys.exit(2)

    try:
        mod = importlib.import_module(module)
        files = importlib.metadata.files(distribution) or []
    except ImportError as e:  # PackageNotFoundError is an ImportError too
        missing(e)
    # Module names are shared between forks (mopyapns, PyAPNs2 and apns2-up all install
    # `apns2`): the imported file must belong to `distribution`.
    if not any(str(f.locate()) == mod.__file__ for f in files):
        missing(f"module {module} at {mod.__file__} belongs to another distribution")
    return mod
