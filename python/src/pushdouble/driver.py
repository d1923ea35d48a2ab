"""Driver kit: write a ``pushdouble conform`` adapter in a few lines.

The runner starts the adapter and speaks JSON-RPC 2.0 to it, one object per line on
stdin/stdout (docs/conformance.md, "Driver protocol v1"). This module does the loop;
the adapter says what the sender is and calls the real sending code:

    from pushdouble.driver import Adapter, run, sent, dead, failed

    class MySender(Adapter):
        name, version, providers = "my-sender", "1.0", ["fcm"]

        def initialize(self, config):          # config = params["providers"]
            self.client = MyFcmClient(config["fcm"]["url"], config["fcm"]["serviceAccountFile"])

        def send(self, notification, devices, targets):
            return [self.push(notification, d) for d in devices]

    if __name__ == "__main__":
        run(MySender())

The loop: stdout carries protocol lines only (the kit takes the real stdout for itself
and points file descriptor 1 and ``sys.stdout`` at stderr, so a stray ``print`` cannot
break the protocol); replies are flushed at once; logging goes to stderr. An exception
in a handler becomes a JSON-RPC error reply (-32000, the exception's text) with its
traceback on stderr, and the loop goes on; an unknown method is -32601, a line that is
not JSON -32700, a JSON value that is not a request -32600. A handler may be ``async``
(or return an awaitable): it runs on one event loop that the kit keeps for the adapter's
whole life (:attr:`Adapter.loop`), as libraries such as aioapns need.
"""

import asyncio
import inspect
import io
import json
import logging
import os
import sys
import traceback

__all__ = [
    "Adapter", "run", "serve", "OUTCOMES",
    "SENT", "PENDING", "DEAD", "REJECTED", "FAILED", "SKIPPED", "ABORTED",
    "sent", "pending", "dead", "rejected", "failed", "skipped", "aborted", "result",
    "outcome_of", "DeadTokens",
    "FEATURE_REGISTERED_AT", "FEATURE_REGISTER", "PARSE_ERROR", "INVALID_REQUEST", "METHOD_NOT_FOUND", "INVALID_PARAMS", "SERVER_ERROR",
]

log = logging.getLogger("pushdouble.driver")

# -- outcomes -----------------------------------------------------------------------------

SENT = "sent"            #: accepted by the provider
PENDING = "pending"      #: accepted, the final state comes later (Expo tickets)
DEAD = "dead"            #: the token is gone; the sender will not use it again
REJECTED = "rejected"    #: the message itself is invalid; not retried
FAILED = "failed"        #: transient failure, retries exhausted
SKIPPED = "skipped"      #: not attempted (e.g. a token already known dead)
ABORTED = "aborted"      #: never attempted because the library aborted the whole batch
OUTCOMES = (SENT, PENDING, DEAD, REJECTED, FAILED, SKIPPED, ABORTED)

# -- optional protocol features a sender may declare (``Adapter.features``) ----------------------

FEATURE_REGISTERED_AT = "registeredAt"  #: devices carry registeredAt; a dead token registered again later is used again
FEATURE_REGISTER = "register"            #: the runner calls register(devices) (added for you when register is overridden)

# -- JSON-RPC error codes --------------------------------------------------------------------

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
SERVER_ERROR = -32000


def _device_id(device):
    if isinstance(device, dict):
        return device.get("id")
    return str(device)


def result(device, outcome, reason=None, message_id=None):
    """One ``results`` entry: ``{"device", "outcome", "reason"?, "providerMessageId"?}``.
    ``device`` is the device (or target) dict from ``send``, or its id."""
    if outcome not in OUTCOMES:
        raise ValueError("outcome %r is not one of %s" % (outcome, ", ".join(OUTCOMES)))
    r = {"device": _device_id(device), "outcome": outcome}
    if reason is not None:
        r["reason"] = str(reason)
    if message_id is not None:
        r["providerMessageId"] = str(message_id)
    return r


def sent(device, message_id=None, reason=None):
    """Accepted by the provider (``message_id``: the APNs ``apns-id``, the FCM message name...)."""
    return result(device, SENT, reason, message_id)


def pending(device, message_id=None, reason=None):
    """Accepted; the final state comes later (an Expo ticket: ``message_id`` = the ticket id)."""
    return result(device, PENDING, reason, message_id)


def dead(device, reason):
    """The token is gone (410, ``BadDeviceToken``, ``UNREGISTERED``, ``DeviceNotRegistered``...)."""
    return result(device, DEAD, reason)


def rejected(device, reason=None):
    """The message itself is invalid (too large, bad collapse id...); not retried."""
    return result(device, REJECTED, reason)


def failed(device, reason=None):
    """Transient failure, retries exhausted."""
    return result(device, FAILED, reason)


def skipped(device, reason=None):
    """Not attempted (e.g. a token the sender already knows is dead)."""
    return result(device, SKIPPED, reason)


def aborted(device, reason):
    """Never attempted because the library aborted the batch (e.g. an auth error on an
    earlier recipient stopped a ``send_each``)."""
    return result(device, ABORTED, reason)


def outcome_of(error, table, default=FAILED):
    """The outcome a library's exception stands for, looked up by its *type*: ``table`` maps
    exception classes (or tuples of them) to outcomes, and the most specific class in
    ``type(error).__mro__`` that the table names wins (so ``{UnregisteredError: DEAD,
    FirebaseError: FAILED}`` gives ``dead`` for the subclass). ``default`` when no class
    matches. Never read the message text when the library gives a type."""
    flat = {}
    for key, outcome in dict(table).items():
        for cls in (key if isinstance(key, tuple) else (key,)):
            flat[cls] = outcome
    for cls in type(error).__mro__:
        if cls in flat:
            return flat[cls]
    return default


def _parse_time(text):
    from datetime import datetime, timezone
    t = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    if t.tzinfo is None:
        t = t.replace(tzinfo=timezone.utc)
    return t.timestamp()


class DeadTokens:
    """What an application keeps of the tokens a provider called dead, so an adapter skips
    them later, and sends again once the app registered the token anew.

    ``skip(device)`` returns a :func:`skipped` result for a token known dead, else None;
    a device whose ``registeredAt`` (the ``registeredAt`` feature) is later than the moment the
    death was learnt is alive again. ``note(device, entry)`` records a :func:`dead` result's
    token and returns ``entry``; ``revive(devices)`` forgets them (the ``register`` call)."""

    def __init__(self, clock=None):
        import time
        self._clock = clock or time.time
        self._dead = {}  # token -> (when learnt, reason)

    def __contains__(self, token):
        return token in self._dead

    def skip(self, device):
        token = device.get("token")
        known = self._dead.get(token)
        if known is None:
            return None
        registered = device.get("registeredAt")
        if registered and _parse_time(registered) > known[0]:
            del self._dead[token]
            return None
        return skipped(device, "known dead: %s" % known[1])

    def note(self, device, entry):
        if entry.get("outcome") == DEAD and isinstance(device, dict):
            self._dead[device.get("token")] = (self._clock(), entry.get("reason") or "dead")
        return entry

    def revive(self, devices):
        for d in devices or []:
            self._dead.pop(d.get("token"), None)


# -- the adapter ----------------------------------------------------------------------------


class Adapter:
    """Base class of an adapter. Set the class attributes, override the methods you need.

    ``name``, ``version``: who the sender is. ``providers``: the providers it supports
    (cases for others are n/a). ``features``: feature strings (default none).
    ``fields``: provider → list of the neutral notification fields the sender can express
    (default None: not declared). ``targets``: non-device recipient kinds, e.g.
    ``["fcm.topic", "fcm.condition"]`` (default none). ``outcomes``: ``"coarse"`` when the
    library tells only success or failure per target (it cannot say dead, rejected or failed
    apart without reading message text), or ``{"apns": "coarse"}`` per provider; the runner
    then judges those three as one and says so (default None: precise). ``register`` is
    advertised (the feature ``"register"``) only when a subclass overrides it.
    """

    name = "python-adapter"
    version = "0"
    providers = []
    features = []
    fields = None
    targets = []
    outcomes = None

    #: the full ``initialize`` params (``protocolVersion``, ``providers``), once initialized
    params = None

    def initialize(self, config):
        """``config`` is ``params["providers"]``: ``{"apns": {"url", "sandboxUrl", "caFile",
        "keyFile", "keyId", "teamId", "topic"}, "fcm": {...}, ...}``. May return a dict whose
        members are added to the ``initialize`` result."""

    def send(self, notification, devices, targets):
        """Send ``notification`` to every device (and target) and return one result per
        recipient, retries included (:func:`sent`, :func:`dead`, ...)."""
        raise NotImplementedError("this adapter does not implement send")

    def settle(self):
        """Finish deferred work (e.g. fetch Expo receipts) and return the results that changed."""
        return []

    def register(self, devices):
        """The app registered these devices' tokens again now (params ``{"devices": [...]}``;
        only called when overridden, the kit then declares the ``register`` feature). The
        reply is ``{}`` when it returns None."""
        raise NotImplementedError

    def shutdown(self):
        """Release resources; the kit replies ``{}`` and the loop ends."""

    # -- helpers ----------------------------------------------------------------------

    @property
    def loop(self):
        """The kit's persistent event loop (created on first use)."""
        kit = getattr(self, "_kit", None)
        if kit is None:
            kit = self._kit = _Kit(self)
        return kit.loop

    def supports_register(self):
        return type(self).register is not Adapter.register

    def initialize_result(self):
        """The ``initialize`` result built from the class attributes."""
        r = {"name": str(self.name), "version": str(self.version), "providers": list(self.providers)}
        features = list(self.features or [])
        if self.supports_register() and FEATURE_REGISTER not in features:
            features.append(FEATURE_REGISTER)
        if features:
            r["features"] = features
        if self.fields is not None:
            r["fields"] = {k: list(v) for k, v in dict(self.fields).items()}
        if self.targets:
            r["targets"] = list(self.targets)
        if self.outcomes is not None:
            r["outcomes"] = self.outcomes if isinstance(self.outcomes, str) else dict(self.outcomes)
        return r


class _MethodNotFound(Exception):
    pass


class _InvalidParams(Exception):
    pass


class _Kit:
    """The loop state of one adapter: its event loop and the dispatch."""

    def __init__(self, adapter):
        self.adapter = adapter
        self._loop = None
        self.done = False
        self._send_arity = None

    @property
    def loop(self):
        if self._loop is None or self._loop.is_closed():
            self._loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self._loop)
        return self._loop

    def _resolve(self, value):
        if inspect.isawaitable(value):
            async def wait():
                return await value
            return self.loop.run_until_complete(wait())
        return value

    def close(self):
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            pending_tasks = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for t in pending_tasks:
                t.cancel()
            if pending_tasks:
                loop.run_until_complete(asyncio.gather(*pending_tasks, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
        except Exception:  # pragma: no cover
            log.debug("closing the event loop", exc_info=True)
        finally:
            loop.close()
            asyncio.set_event_loop(None)

    # -- dispatch ---------------------------------------------------------------------

    def call(self, method, params):
        a = self.adapter
        if params is None:
            params = {}
        if method == "initialize":
            if not isinstance(params, dict):
                raise _InvalidParams("initialize params must be an object")
            a.params = params
            providers = params.get("providers") or {}
            extra = self._resolve(a.initialize(providers))
            r = a.initialize_result()
            if isinstance(extra, dict):
                r.update(extra)
            return r
        if method == "send":
            if not isinstance(params, dict):
                raise _InvalidParams("send params must be an object")
            notification = params.get("notification") or {}
            devices = params.get("devices") or []
            targets = params.get("targets") or []
            if self._send_arity is None:
                self._send_arity = _positional_count(a.send)
            args = (notification, devices) if self._send_arity == 2 else (notification, devices, targets)
            return _results(self._resolve(a.send(*args)))
        if method == "settle":
            return _results(self._resolve(a.settle()))
        if method == "register":
            if not a.supports_register():
                raise _MethodNotFound(method)
            devices = params.get("devices") if isinstance(params, dict) else params
            r = self._resolve(a.register(devices or []))
            if r is None:
                return {}
            return r if isinstance(r, dict) else {"results": list(r)}
        if method == "shutdown":
            try:
                self._resolve(a.shutdown())
            finally:
                self.done = True
            return {}
        raise _MethodNotFound(method)

    def handle_line(self, line):
        """One input line → the reply object (None for blank lines and notifications)."""
        if isinstance(line, bytes):
            line = line.decode("utf-8", "replace")
        if not line.strip():
            return None
        try:
            msg = json.loads(line)
        except ValueError as e:
            log.error("not JSON: %s (%r)", e, line[:200])
            return _error(None, PARSE_ERROR, "Parse error: %s" % e)
        if not isinstance(msg, dict) or not isinstance(msg.get("method"), str):
            rid = msg.get("id") if isinstance(msg, dict) else None
            if isinstance(msg, dict) and "method" not in msg and ("result" in msg or "error" in msg):
                return None  # a response sent to us: nothing to answer
            return _error(rid, INVALID_REQUEST, "Invalid Request: expected an object with a method")
        method = msg["method"]
        notification = "id" not in msg
        rid = msg.get("id")
        try:
            value = self.call(method, msg.get("params"))
        except _MethodNotFound:
            log.warning("unknown method %r", method)
            return None if notification else _error(rid, METHOD_NOT_FOUND, "Method not found: %s" % method)
        except _InvalidParams as e:
            return None if notification else _error(rid, INVALID_PARAMS, "Invalid params: %s" % e)
        except Exception as e:  # noqa: BLE001 - every handler error becomes a reply
            sys.stderr.write("pushdouble.driver: %s failed:\n%s" % (method, traceback.format_exc()))
            sys.stderr.flush()
            text = str(e) or type(e).__name__
            return None if notification else _error(rid, SERVER_ERROR, text)
        if notification:
            return None
        return {"jsonrpc": "2.0", "id": rid, "result": value}


def _positional_count(fn):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return 3
    n = 0
    for p in sig.parameters.values():
        if p.kind == p.VAR_POSITIONAL:
            return 3
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            n += 1
    return 2 if n == 2 else 3


def _results(value):
    if value is None:
        return {"results": []}
    if isinstance(value, dict):
        if "results" in value:
            return value
        return {"results": [value]}
    out = list(value)
    for r in out:
        if not isinstance(r, dict) or "device" not in r or "outcome" not in r:
            log.warning("result %r has no device/outcome (use sent(), dead(), ...)", r)
        elif r["outcome"] not in OUTCOMES:
            log.warning("result %r: outcome %r is not one of %s", r, r["outcome"], ", ".join(OUTCOMES))
    return {"results": out}


def _error(rid, code, message):
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


def _encode(reply):
    try:
        return json.dumps(reply, separators=(",", ":"), ensure_ascii=False) + "\n"
    except (TypeError, ValueError) as e:
        log.error("reply %r is not JSON: %s", reply, e)
        return json.dumps(_error(reply.get("id"), SERVER_ERROR, "the handler's result is not JSON: %s" % e)) + "\n"


def _take_stdout():
    """The real stdout for the protocol; fd 1 and sys.stdout then go to stderr."""
    sys.stdout.flush()
    proto_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return io.open(proto_fd, "w", encoding="utf-8", newline="\n", closefd=True)


def serve(adapter, input=None, output=None):
    """The JSON-RPC loop on ``input``/``output`` (text or binary streams). Returns when
    ``shutdown`` was answered or the input ends. :func:`run` calls it on stdin/stdout."""
    kit = getattr(adapter, "_kit", None)
    if kit is None:
        kit = adapter._kit = _Kit(adapter)
    try:
        while not kit.done:
            line = input.readline()
            if not line:
                log.info("stdin closed")
                break
            reply = kit.handle_line(line)
            if reply is None:
                continue
            text = _encode(reply)
            try:
                output.write(text)
            except TypeError:  # a binary stream
                output.write(text.encode("utf-8"))
            output.flush()
    finally:
        kit.close()


def run(adapter, redirect=True, log_level=None):
    """Run ``adapter`` as a driver-protocol sender on stdin/stdout until ``shutdown``.

    Logging goes to stderr (level from ``log_level`` or ``$PUSHDOUBLE_LOG_LEVEL``, default
    INFO, unless logging is already configured). When ``$PUSHDOUBLE_HOST_MAP`` is set and
    ``redirect`` is true, the host redirect is activated first
    (:func:`pushdouble.redirect.redirect_from_environment`)."""
    if not logging.getLogger().handlers:
        level = log_level or os.environ.get("PUSHDOUBLE_LOG_LEVEL", "INFO")
        logging.basicConfig(stream=sys.stderr, level=level,
                            format="%(name)s: %(levelname)s: %(message)s")
    if redirect and os.environ.get("PUSHDOUBLE_HOST_MAP"):
        from .redirect import redirect_from_environment

        r = redirect_from_environment()
        log.info("host redirect active: %r", r)
    output = _take_stdout()
    stdin = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin
    try:
        serve(adapter, stdin, output)
    finally:
        try:
            output.flush()
        except Exception:
            pass
