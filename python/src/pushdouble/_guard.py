"""Parent-death guard for ``pushdouble serve`` (run by path, standard library only).

    python _guard.py GRACE PIDFILE BINARY [ARGS...]

Starts BINARY as its child and keeps it alive while its own stdin stays open. The
process that started the guard holds the other end of that pipe and never writes to
it: when that process exits, for whatever reason (including SIGKILL, a crash or an
``os._exit``), the kernel closes its end, the guard reads EOF and stops the server:
SIGTERM, then SIGKILL after GRACE seconds. On Linux the server is also started with
``PR_SET_PDEATHSIG = SIGKILL``, so it cannot outlive the guard either.

When the parent vanished that way (EOF without the word ``stop`` first), the guard also
removes the parent's work directory (the one holding PIDFILE), which nobody else will.

The guard's exit status is the server's (128 + signal number when it was killed by a
signal). SIGTERM/SIGINT sent to the guard alone are forwarded to the server.
"""

import os
import shutil
import signal
import subprocess
import sys
import threading


def _pdeathsig():
    """preexec_fn of the server on Linux: die with the guard (the guard starts the server
    from its main thread, which lives until the guard exits)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except Exception:
        return
    if os.getppid() != _GUARD_PID:  # the guard died before prctl took effect
        os.kill(os.getpid(), signal.SIGKILL)


_GUARD_PID = os.getpid()


def main(argv):
    grace = float(argv[1])
    pidfile = argv[2]
    command = argv[3:]
    preexec = _pdeathsig if sys.platform.startswith("linux") else None
    child = subprocess.Popen(command, stdin=subprocess.DEVNULL, preexec_fn=preexec, close_fds=True)
    tmp = pidfile + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % child.pid)
    os.replace(tmp, pidfile)

    stopping = threading.Event()

    def stop_child():
        if stopping.is_set():
            return
        stopping.set()
        try:
            child.send_signal(signal.SIGTERM)
        except OSError:
            return
        try:
            child.wait(grace)
        except subprocess.TimeoutExpired:
            try:
                child.kill()
            except OSError:
                pass

    def forward(signum, _frame):
        try:
            child.send_signal(signum)
        except OSError:
            pass

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)

    orderly = []

    def watch_parent():
        try:
            while True:
                data = os.read(0, 4096)
                if not data:
                    break
                orderly.append(data)  # PushDoubleServer.stop() says "stop" before closing
        except OSError:
            pass
        stop_child()

    threading.Thread(target=watch_parent, daemon=True).start()
    while True:
        try:
            code = child.wait()
            break
        except InterruptedError:  # pragma: no cover (PEP 475 retries)
            continue
    if stopping.is_set() and not orderly:
        # The parent vanished without stopping us (crashed, SIGKILLed): nobody else will
        # remove its work directory (the endpoints, log and pid files), so do it here.
        shutil.rmtree(os.path.dirname(os.path.abspath(pidfile)), ignore_errors=True)
    sys.stdout.flush()
    os._exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main(sys.argv)
