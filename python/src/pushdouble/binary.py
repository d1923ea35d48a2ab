"""Finding the ``pushdouble`` binary, and the ``pushdouble`` console script.

Lookup order (the first that exists wins):

1. ``$PUSHDOUBLE_BIN`` (an explicit path: when it is set but wrong, that is an error,
   the other places are not tried; pointing it at our own console script is refused, as
   that script would exec itself forever);
2. the copy bundled in this package, ``pushdouble/bin/pushdouble`` (put there by
   ``scripts/build-python-wheel.sh`` when it builds a platform wheel);
3. ``pushdouble`` on ``PATH`` (our own console script, which only execs the binary, is
   skipped).

The reference sender (``pushdouble-reference-sender``) is found the same way with
``$PUSHDOUBLE_REFERENCE_SENDER``, the bundled copy, the directory of the ``pushdouble``
binary found above, then ``PATH``.
"""

import os
import shutil
import stat
import sys

__all__ = ["BinaryNotFound", "find_binary", "find_reference_sender", "bundled_path", "main"]

ENV_VAR = "PUSHDOUBLE_BIN"
REFERENCE_ENV_VAR = "PUSHDOUBLE_REFERENCE_SENDER"
BINARY_NAME = "pushdouble"
REFERENCE_NAME = "pushdouble-reference-sender"

_BIN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin")


class BinaryNotFound(FileNotFoundError):
    """No usable binary in any of the places looked at (the message names them all)."""


def bundled_path(name=BINARY_NAME):
    """Where the wheel puts the bundled binary (whether or not it is there)."""
    return os.path.join(_BIN_DIR, name)


def _executable(path):
    """True when ``path`` is a regular file we can execute (fixing a lost exec bit on a
    bundled copy when the file system lets us)."""
    if not os.path.isfile(path):
        return False
    if os.access(path, os.X_OK):
        return True
    try:  # a wheel installer that dropped the mode bits
        mode = os.stat(path).st_mode
        os.chmod(path, mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    except OSError:
        return False
    return os.access(path, os.X_OK)


def _is_our_console_script(path):
    """The ``pushdouble`` entry point that pip writes is a small Python script that
    imports this module: finding it on PATH must not count as finding the binary."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    return head.startswith(b"#!") and b"pushdouble.binary" in head


def _on_path(name):
    for directory in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if not directory:
            continue
        candidate = os.path.join(directory, name)
        if _executable(candidate) and not _is_our_console_script(candidate):
            return candidate
    return None


def find_binary(explicit=None):
    """The path of the ``pushdouble`` binary.

    ``explicit`` (e.g. pytest's ``--pushdouble-bin``) goes before the environment.
    Raises :class:`BinaryNotFound` naming every place that was looked at.
    """
    if explicit:
        path = os.path.abspath(os.path.expanduser(str(explicit)))
        if _executable(path):
            return path
        raise BinaryNotFound("pushdouble binary %r (given explicitly) does not exist or is not executable" % path)
    env = os.environ.get(ENV_VAR)
    if env:
        path = os.path.abspath(os.path.expanduser(env))
        if not _executable(path):
            raise BinaryNotFound("$%s=%s does not exist or is not executable" % (ENV_VAR, env))
        if _is_our_console_script(os.path.realpath(path)):
            raise BinaryNotFound(
                "$%s=%s is the Python package's own pushdouble command, which only runs the binary it finds "
                "(it would run itself forever): point $%s at the pushdouble binary, or unset it to use %s"
                % (ENV_VAR, env, ENV_VAR, "the bundled copy" if _executable(bundled_path()) else "the one on PATH"))
        return path
    bundled = bundled_path()
    if _executable(bundled):
        return bundled
    found = _on_path(BINARY_NAME)
    if found:
        return found
    raise BinaryNotFound(
        "no pushdouble binary found: $%s is not set, there is no bundled copy at %s "
        "(install a platform wheel built by scripts/build-python-wheel.sh), and no %r "
        "executable is on PATH" % (ENV_VAR, bundled, BINARY_NAME)
    )


def find_reference_sender(explicit=None):
    """The path of ``pushdouble-reference-sender`` (a complete sender speaking the driver
    protocol; handy to make real traffic, e.g. APNs over HTTP/2, in tests)."""
    if explicit:
        path = os.path.abspath(str(explicit))
        if _executable(path):
            return path
        raise BinaryNotFound("reference sender %r (given explicitly) does not exist or is not executable" % path)
    env = os.environ.get(REFERENCE_ENV_VAR)
    if env:
        if _executable(env):
            return os.path.abspath(env)
        raise BinaryNotFound("$%s=%s does not exist or is not executable" % (REFERENCE_ENV_VAR, env))
    looked = []
    bundled = bundled_path(REFERENCE_NAME)
    looked.append(bundled)
    if _executable(bundled):
        return bundled
    try:
        sibling = os.path.join(os.path.dirname(find_binary()), REFERENCE_NAME)
        looked.append(sibling)
        if _executable(sibling):
            return sibling
    except BinaryNotFound:
        pass
    found = _on_path(REFERENCE_NAME)
    if found:
        return found
    raise BinaryNotFound(
        "no %s found: $%s is not set, not at %s, and not on PATH" % (REFERENCE_NAME, REFERENCE_ENV_VAR, " or ".join(looked))
    )


def main(argv=None):
    """The ``pushdouble`` console script: exec the binary with the same arguments."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        path = find_binary()
    except BinaryNotFound as e:
        sys.stderr.write("pushdouble: %s\n" % e)
        return 127
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(path, [path] + args)
    return 127  # not reached


if __name__ == "__main__":  # python -m pushdouble.binary
    sys.exit(main())
