"""``AdminClient``: the admin API of a running PushDouble (docs/admin-openapi.yaml), on urllib.

    admin = AdminClient("http://127.0.0.1:8720")
    admin.register_device("d1", "fcm", "token-1", state="unregistered")
    admin.fail_next("fcm", count=2, status=429, retry_after=1)   # the next 2 sends (fcm.send only)
    run_the_sender_under_test()
    sends = admin.wait_for(3, provider="fcm", endpoint="fcm.send")
    assert [x.status for x in sends] == [429, 429, 200]

Every error answer raises :class:`AdminError` with the status and body. The client never
uses a proxy (the double is on loopback; ``HTTPS_PROXY`` from the sender environment does
not apply to it).

Names are checked before anything is sent: a provider, endpoint, reason or device state
the server's catalogue (``GET /catalogue``, fetched once per client) does not list raises
``ValueError`` naming the valid values, the same list the server's 400 carries.
"""

import datetime as _dt
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request

__all__ = [
    "AdminClient", "AdminError", "Exchange", "ApnsView", "FcmView", "ExpoView", "WebPushView",
]


class AdminError(Exception):
    """An admin API request answered with an error status (or not at all).

    ``status`` is the HTTP status (0 when the request could not be made), ``body`` the
    raw response text, ``error`` the ``{"error": ...}`` message when there is one, and for
    an unknown name ``field`` and ``valid`` (the values the server accepts there)."""

    def __init__(self, method, url, status, body):
        self.method, self.url, self.status, self.body = method, url, status, body
        try:
            doc = json.loads(body) if body else {}
        except ValueError:
            doc = {}
        doc = doc if isinstance(doc, dict) else {}
        self.error = doc.get("error")
        self.field = doc.get("field")
        self.valid = doc.get("valid")
        super().__init__("%s %s -> %s: %s" % (method, url, status or "no answer", self.error or body))


def _parse_time(text):
    if not text:
        return None
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    return _dt.datetime.fromisoformat(text)


def _json_or_none(body):
    """``body`` parsed as JSON; None when it is empty or not JSON."""
    if not body:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None


def _headers_dict(pairs):
    """``[[name, value], ...]`` → ``{lowercase name: value}`` (the last value wins; use the
    raw list for repeated headers)."""
    out = {}
    for pair in pairs or ():
        if len(pair) >= 2:
            out[str(pair[0]).lower()] = pair[1]
    return out


class Exchange(dict):
    """One recorded exchange: the admin API's JSON object (it *is* that dict) with
    readable shortcuts and a decoded view per provider (:attr:`apns`, :attr:`fcm`,
    :attr:`expo`, :attr:`webpush`)."""

    # the common fields
    seq = property(lambda self: self.get("seq"))
    provider = property(lambda self: self.get("provider"))
    endpoint = property(lambda self: self.get("endpoint"))
    token = property(lambda self: self.get("token"))
    device_id = property(lambda self: self.get("deviceID"))
    topic = property(lambda self: self.get("topic"))
    environment = property(lambda self: self.get("environment"))
    notification = property(lambda self: self.get("notification"))
    auth = property(lambda self: self.get("auth") or {})
    request = property(lambda self: self.get("request") or {})
    response = property(lambda self: self.get("response") or {})
    recipients = property(lambda self: self.get("recipients") or [])
    annotations = property(lambda self: self.get("annotations") or {})

    @property
    def status(self):
        """The HTTP status answered (None when the connection was dropped, reset...)."""
        return self.response.get("status")

    @property
    def reason(self):
        """The provider reason the fake answered (``Unregistered``, ``UNREGISTERED``, ...), if any."""
        return self.response.get("reason")

    @property
    def action(self):
        """``respond``, ``delayed``, ``reset``, ``goaway``, ``drop``, ..."""
        return self.response.get("action")

    @property
    def decided_by(self):
        """The stage that decided the answer: ``auth``, ``validation``, ``fault``, ``quota``, ``device``, ``accepted``."""
        return (self.get("decidedBy") or {}).get("stage")

    @property
    def accepted(self):
        s = self.status
        return s is not None and 200 <= s < 300

    @property
    def received_at(self):
        """``receivedAt`` as an aware :class:`datetime.datetime` (UTC)."""
        return _parse_time(self.get("receivedAt"))

    @property
    def method(self):
        return self.request.get("method")

    @property
    def path(self):
        return self.request.get("path")

    @property
    def request_headers(self):
        """Request headers as ``{lowercase name: value}`` (``request["headers"]`` has the raw pairs)."""
        return _headers_dict(self.request.get("headers"))

    @property
    def response_headers(self):
        return _headers_dict(self.response.get("headers"))

    @property
    def request_body(self):
        """The request body as text (None when it was not UTF-8: see ``request["bodyBase64"]``)."""
        return self.request.get("body")

    @property
    def request_json(self):
        """The request body parsed as JSON (None when it is not JSON)."""
        return _json_or_none(self.request_body)

    @property
    def response_body(self):
        return self.response.get("body")

    @property
    def response_json(self):
        """The response body parsed as JSON (None when it is not JSON)."""
        return _json_or_none(self.response_body)

    @property
    def retry_after(self):
        """The ``Retry-After`` header answered, as text (None when absent)."""
        return self.response_headers.get("retry-after")

    # provider views
    @property
    def apns(self):
        return ApnsView(self) if self.provider == "apns" else None

    @property
    def fcm(self):
        return FcmView(self) if self.provider == "fcm" else None

    @property
    def expo(self):
        return ExpoView(self) if self.provider == "expo" else None

    @property
    def webpush(self):
        return WebPushView(self) if self.provider == "webpush" else None

    def summary(self):
        """One line: ``#12 fcm fcm.send POST /v1/... -> 404 UNREGISTERED [device] token=...``."""
        parts = ["#%s" % self.seq, str(self.provider), str(self.endpoint)]
        if self.method:
            parts.append("%s %s" % (self.method, _shorten(self.path or "", 70)))
        status = self.status if self.status is not None else self.action
        parts.append("-> %s" % status)
        if self.reason:
            parts.append(self.reason)
        if self.retry_after:
            parts.append("retry-after=%s" % self.retry_after)
        if self.decided_by:
            detail = (self.get("decidedBy") or {}).get("detail")
            parts.append("[%s%s]" % (self.decided_by, (": " + _shorten(detail, 40)) if detail else ""))
        if self.device_id:
            parts.append("device=%s" % self.device_id)
        elif self.token:
            parts.append("token=%s" % _shorten(self.token, 24))
        return " ".join(parts)

    def __repr__(self):
        return "<Exchange %s>" % self.summary()


def _shorten(text, n):
    text = str(text)
    return text if len(text) <= n else text[: n - 1] + "…"


class _View:
    def __init__(self, exchange):
        self.exchange = exchange
        self.raw = exchange.get("notification") if isinstance(exchange.get("notification"), (dict, list)) else {}

    def __repr__(self):
        return "<%s %s>" % (type(self).__name__, json.dumps(self.raw, sort_keys=True)[:200])


class ApnsView(_View):
    """An APNs request as the fake decoded it: ``payload`` (the JSON body), ``aps``,
    ``alert`` (always a dict: a string alert becomes ``{"body": ...}``), ``headers``
    (the ``apns-*`` request headers), ``push_type``, ``priority``, ``collapse_id``,
    ``apns_id``, ``topic``, ``expiration``."""

    @property
    def payload(self):
        return self.raw.get("payload") or {}

    @property
    def aps(self):
        return self.payload.get("aps") or {}

    @property
    def alert(self):
        a = self.aps.get("alert")
        if isinstance(a, str):
            return {"body": a}
        return a or {}

    @property
    def title(self):
        return self.alert.get("title")

    @property
    def body(self):
        return self.alert.get("body")

    @property
    def custom(self):
        """The payload's custom keys (everything but ``aps``)."""
        return {k: v for k, v in self.payload.items() if k != "aps"}

    @property
    def headers(self):
        return dict(self.raw.get("headers") or {})

    push_type = property(lambda self: self.raw.get("pushType") or self.headers.get("apns-push-type"))
    priority = property(lambda self: self.raw.get("priority"))
    collapse_id = property(lambda self: self.headers.get("apns-collapse-id"))
    apns_id = property(lambda self: self.headers.get("apns-id"))
    topic = property(lambda self: self.headers.get("apns-topic") or self.exchange.topic)
    expiration = property(lambda self: self.headers.get("apns-expiration"))
    environment = property(lambda self: self.exchange.environment)


class FcmView(_View):
    """An FCM v1 ``messages:send`` as decoded (``message``: project, account, target,
    validateOnly, notification, data, android, apns, webpush, fcmOptions), or an OAuth
    token request (``endpoint == "oauth.token"``: ``claims``, ``grantType``)."""

    @property
    def message(self):
        return self.raw

    @property
    def is_send(self):
        return self.exchange.endpoint == "fcm.send"

    project = property(lambda self: self.raw.get("project"))
    account = property(lambda self: self.raw.get("account"))
    target = property(lambda self: self.raw.get("target") or {})
    notification = property(lambda self: self.raw.get("notification") or {})
    data = property(lambda self: self.raw.get("data") or {})
    android = property(lambda self: self.raw.get("android"))
    apns = property(lambda self: self.raw.get("apns"))
    webpush = property(lambda self: self.raw.get("webpush"))
    validate_only = property(lambda self: bool(self.raw.get("validateOnly")))
    claims = property(lambda self: self.raw.get("claims") or {})

    @property
    def token(self):
        return self.target.get("token")

    @property
    def title(self):
        return self.notification.get("title")

    @property
    def body(self):
        return self.notification.get("body")

    @property
    def error_code(self):
        """The FcmError code of an error answer (``UNREGISTERED``...), else the status text."""
        body = self.exchange.response_json or {}
        err = body.get("error") if isinstance(body, dict) else None
        if not isinstance(err, dict):
            return None
        for d in err.get("details") or ():
            if isinstance(d, dict) and d.get("errorCode"):
                return d["errorCode"]
        return err.get("status")


class ExpoView(_View):
    """An Expo ``push/send``: ``messages`` (always a list, as the request's body is one
    message or an array), ``tickets`` (one per recipient, in order) and the receipts the
    sender fetched later (``receipts``: ticket id → receipt)."""

    @property
    def messages(self):
        raw = self.exchange.get("notification")
        if isinstance(raw, list):
            return raw
        return [raw] if isinstance(raw, dict) else []

    @property
    def tokens(self):
        out = []
        for m in self.messages:
            to = m.get("to")
            out += to if isinstance(to, list) else [to]
        return out

    @property
    def tickets(self):
        recipients = self.exchange.recipients
        if recipients:
            return [r.get("detail") for r in recipients]
        body = self.exchange.response_json or {}
        data = body.get("data") if isinstance(body, dict) else None
        if isinstance(data, list):
            return data
        return [data] if isinstance(data, dict) else []

    @property
    def errors(self):
        """``{token: reason}`` for the recipients answered with an error ticket."""
        return {r.get("token"): r.get("reason") for r in self.exchange.recipients if not r.get("accepted")}

    @property
    def receipts(self):
        r = self.exchange.annotations.get("receipts")
        return r if isinstance(r, dict) else {}


class WebPushView(_View):
    """A Web Push message as the double's browser received it: ``text`` (the decrypted
    payload when it is UTF-8), ``data`` (bytes), ``error`` (why it could not be
    decrypted, e.g. ``authenticationFailed``), ``service``, ``ttl``, ``urgency``,
    ``topic``, ``encoding``, ``vapid`` (the auth record)."""

    service = property(lambda self: self.raw.get("service"))
    ttl = property(lambda self: self.raw.get("ttl"))
    urgency = property(lambda self: self.raw.get("urgency"))
    topic = property(lambda self: self.raw.get("topic"))
    encoding = property(lambda self: self.raw.get("encoding"))
    headers = property(lambda self: dict(self.raw.get("headers") or {}))
    payload = property(lambda self: self.raw.get("payload"))
    vapid = property(lambda self: self.exchange.auth)

    @property
    def error(self):
        p = self.payload
        return p.get("error") if isinstance(p, dict) else None

    @property
    def text(self):
        p = self.payload
        if isinstance(p, dict) and "data" in p and not p.get("base64"):
            return p["data"]
        return None

    @property
    def data(self):
        p = self.payload
        if not isinstance(p, dict) or "data" not in p:
            return None
        if p.get("base64"):
            import base64

            s = p["data"]
            return base64.b64decode(s + "=" * (-len(s) % 4), altchars=b"-_" if ("-" in s or "_" in s) else None)
        return p["data"].encode("utf-8")

    @property
    def json(self):
        """The decrypted payload parsed as JSON (None when it is not)."""
        t = self.text
        try:
            return json.loads(t) if t is not None else None
        except ValueError:
            return None


def _clean(d):
    return {k: v for k, v in d.items() if v is not None}


class AdminClient:
    """Client of the admin API at ``base_url`` (``PushDoubleServer.admin_url``)."""

    def __init__(self, base_url, timeout=10.0):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        self._fault_ids = 0
        self._catalogue = None

    # -- names ---------------------------------------------------------------------------

    def catalogue(self, refresh=False):
        """``GET /catalogue``: every name the server accepts, fetched once per client:
        ``{"providers": [{"provider", "endpoints": [{"id", "kind", "summary", "reasons"}],
        "optionKeys"}], "deviceStates", "worlds"}``. None when the server has no catalogue."""
        if self._catalogue is None or refresh:
            try:
                self._catalogue = self.get("/catalogue")
            except AdminError as e:
                if e.status != 404:
                    raise
                self._catalogue = {}
        return self._catalogue or None

    def _providers(self):
        c = self.catalogue()
        return {p["provider"]: p for p in c["providers"]} if c else None

    @staticmethod
    def _refuse(field, value, valid, hint=None):
        raise ValueError("%s: unknown value %r; expected one of %s%s"
                         % (field, value, ", ".join(valid), (" (%s)" % hint) if hint else ""))

    def _check_provider(self, provider, field="provider"):
        providers = self._providers()
        if provider is not None and providers is not None and provider not in providers:
            self._refuse(field, provider, sorted(providers))

    def _check_endpoint(self, endpoint, provider=None, field="endpoint", also=()):
        providers = self._providers()
        if endpoint is None or providers is None:
            return
        ids = [e["id"] for p in providers.values() if provider in (None, p["provider"]) for e in p["endpoints"]]
        if endpoint not in ids and endpoint not in also:
            self._refuse(field, endpoint, sorted(ids + list(also)))

    def _check_state(self, state, field="state"):
        c = self.catalogue()
        if state is not None and c and state not in c["deviceStates"]:
            self._refuse(field, state, c["deviceStates"])

    def _check_rule(self, rule):
        """The server's checks of a rule (``NameCatalogue.check``), before it is sent."""
        providers = self._providers()
        if providers is None or not isinstance(rule, dict):
            return
        match = rule.get("match") or {}
        provider, endpoint = match.get("provider"), match.get("endpoint")
        self._check_provider(provider, "match.provider")
        self._check_endpoint(endpoint, provider, "match.endpoint")
        targets = [(p["provider"], e) for p in providers.values() if provider in (None, p["provider"])
                   for e in p["endpoints"] if (e["id"] == endpoint if endpoint else e["kind"] == "send")]
        for field, reason in _reasons(rule.get("action") or {}, "action"):
            for name, e in targets:
                if reason not in e["reasons"]:
                    self._refuse(field, reason, sorted(e["reasons"]),
                                 "the reasons %s sends on %s; pass custom=True to send another" % (name, e["id"]))

    # -- transport ---------------------------------------------------------------------

    def request(self, method, path, body=None, query=None, raw=False):
        """One request. ``body`` is JSON-encoded (bytes/str are sent as they are);
        returns the decoded JSON (or the text when ``raw``). Raises :class:`AdminError`."""
        url = self.base_url + path
        if query:
            q = {k: ("true" if v is True else "false" if v is False else v) for k, v in query.items() if v is not None}
            if q:
                url += "?" + urllib.parse.urlencode(q)
        data = None
        headers = {"accept": "application/json"}
        if body is not None:
            if isinstance(body, bytes):
                data = body
            elif isinstance(body, str):
                data = body.encode("utf-8")
            else:
                data = json.dumps(body).encode("utf-8")
            headers["content-type"] = "application/json"
        req = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with self._opener.open(req, timeout=self.timeout) as r:
                text = r.read().decode("utf-8")
        except urllib.error.HTTPError as e:
            raise AdminError(method, url, e.code, e.read().decode("utf-8", "replace")) from None
        except (urllib.error.URLError, OSError) as e:
            raise AdminError(method, url, 0, str(getattr(e, "reason", e))) from None
        if raw:
            return text
        return json.loads(text) if text.strip() else None

    def get(self, path, **query):
        return self.request("GET", path, query=query)

    # -- status ------------------------------------------------------------------------

    def health(self):
        """``/health``: providers, device and rule counts, history count/dropped/nextSeq/cap, listeners."""
        return self.get("/health")

    def endpoints(self):
        return self.get("/endpoints")

    def providers(self):
        return self.get("/providers")

    def set_world(self, provider, world):
        """``open`` (any well-formed token is an active device) or ``closed`` (only registered devices)."""
        self._check_provider(provider)
        c = self.catalogue()
        if c and world not in c["worlds"]:
            self._refuse("world", world, c["worlds"])
        return self.request("PUT", "/providers/" + _q(provider), {"world": world})

    # -- devices -----------------------------------------------------------------------

    def devices(self, provider=None):
        """Registered devices in registration order."""
        self._check_provider(provider)
        return self.get("/devices", provider=provider)

    def device(self, device_id):
        return self.get("/devices/" + _q(device_id))

    def register(self, devices):
        """Register one device (a dict) or several (a list), in the admin API's shape."""
        for d in devices if isinstance(devices, list) else [devices]:
            self._check_device(d)
        return self.request("POST", "/devices", devices)

    def _check_device(self, d):
        if isinstance(d, dict):
            self._check_provider(d.get("provider"))
            self._check_state(d.get("state"))
            for i, t in enumerate(d.get("transitions") or ()):
                self._check_state(t.get("state") if isinstance(t, dict) else None, "transitions[%d].state" % i)

    def register_device(self, id, provider, token=None, state=None, environment=None, topic=None,
                        transitions=None, unregistered_at=None, **attributes):
        """Register one device: ``register_device("d1", "apns", "ab01...", state="unregistered")``.

        ``transitions``: e.g. ``[{"afterDeliveries": 2, "state": "unregistered"}]``;
        ``attributes``: provider attributes (an Expo ``receipt``, a Web Push
        ``subscription``/``privateKey``...). An unknown provider or state raises ``ValueError``."""
        d = _clean({"id": id, "provider": provider, "token": token, "state": state, "environment": environment,
                    "topic": topic, "transitions": transitions, "unregisteredAt": unregistered_at})
        d.update(attributes)
        return self.register(d)

    def put_device(self, device):
        """Create or replace a device (``PUT /devices/{id}``)."""
        self._check_device(device)
        return self.request("PUT", "/devices/" + _q(device["id"]), device)

    def set_device_state(self, device_id, state, unregistered_at=None):
        """Change a registered device's state (``active``, ``unregistered``, ``expired``,
        ``invalid``, ``otherApp``, ``rateLimited``), keeping everything else (it is replaced
        with ``PUT``, so it moves to the end of the registration order)."""
        self._check_state(state)
        d = self.device(device_id)
        d["state"] = state
        d.pop("unregisteredAt", None)
        if state == "unregistered" and unregistered_at:
            d["unregisteredAt"] = unregistered_at
        return self.put_device(d)

    def kill_device(self, device_id):
        """The app was uninstalled: state ``unregistered`` (APNs 410, FCM UNREGISTERED, ...)."""
        return self.set_device_state(device_id, "unregistered")

    def remove_device(self, device_id):
        return self.request("DELETE", "/devices/" + _q(device_id))

    def clear_devices(self, provider=None):
        """Forget every device (of one provider) and restore its default world mode."""
        self._check_provider(provider)
        return self.request("DELETE", "/devices", query={"provider": provider})

    # -- faults ------------------------------------------------------------------------

    def faults(self):
        """Rules in evaluation order: ``[{"rule", "matched", "fired", "neverFired", "loadedAt"}]``."""
        return self.get("/faults")

    def unfired_faults(self):
        """The rules no request has hit yet (``GET /faults?neverFired=true``): a fault a test
        set up that never fired tested nothing."""
        return self.get("/faults", neverFired=True)

    def fault(self, rule_id):
        return self.get("/faults/" + _q(rule_id))

    def add_fault(self, rule):
        """Append one rule (dict) or several (list, atomically), in the scenario schema's
        ``faultRule`` shape: ``{"id", "match": {...}, "action": {...}, "times"?}``. A rule
        without ``match.endpoint`` hits only its provider's send endpoints."""
        for r in rule if isinstance(rule, list) else [rule]:
            self._check_rule(r)
        return self.request("POST", "/faults", rule)

    def remove_fault(self, rule_id):
        return self.request("DELETE", "/faults/" + _q(rule_id))

    def clear_faults(self, provider=None):
        self._check_provider(provider)
        return self.request("DELETE", "/faults", query={"provider": provider})

    def _rule(self, kind, provider, action, count=None, id=None, endpoint=None, device=None, token=None,
              topic=None, environment=None, nth=None, every_nth=None, probability=None, from_seconds=None,
              until_seconds=None):
        if id is None:
            self._fault_ids += 1
            id = "py-%s-%d-%d" % (kind, self._fault_ids, int(time.time() * 1000) % 100000)
        match = _clean({"provider": provider, "endpoint": endpoint, "device": device, "token": token,
                        "topic": topic, "environment": environment, "nth": nth, "everyNth": every_nth,
                        "probability": probability, "from": from_seconds, "until": until_seconds})
        rule = {"id": id, "action": action}
        if match:
            rule["match"] = match
        if count is not None:
            rule["times"] = int(count)
        return self.add_fault(rule)

    def fail_next(self, provider, count=1, status=None, reason=None, retry_after=None, headers=None, body=None,
                  content_type=None, custom=False, **match):
        """The next ``count`` matching *send* requests are answered with an error:
        ``fail_next("fcm", count=2, status=429, retry_after=1)`` (the next 2 ``fcm.send``
        requests; the OAuth token mint is not touched), ``fail_next("apns",
        reason="ServiceUnavailable", retry_after=1)``, ``fail_next("fcm",
        endpoint="oauth.token", reason="invalid_grant")`` (the next token mint only).

        ``reason`` is a reason the provider sends on the endpoints the rule hits, rendered
        to the byte (``Unregistered``, ``UNAVAILABLE``, ``DeviceNotRegistered``,
        ``unsubscribed``...; :meth:`catalogue` lists them); another raises ``ValueError``
        unless ``custom=True`` (then it is sent in the provider's error shape with
        ``status``, default 500). ``status`` a raw status (default 503 when neither is
        given); ``retry_after`` seconds (int), an HTTP-date as ``{"dateIn": seconds}``, or a
        string sent verbatim. ``match``: ``endpoint`` (default: the provider's send
        endpoints), ``device``, ``token``, ``topic``, ``environment``, ``nth``,
        ``every_nth``, ``probability``, ``from_seconds``, ``until_seconds``, ``id``.
        Returns the rule's status (``{"rule", "matched", "fired", ...}``)."""
        if status is None and reason is None:
            status = 503
        action = _clean({"type": "respond", "status": status, "reason": reason, "retryAfter": retry_after,
                         "headers": headers, "body": body, "contentType": content_type,
                         "custom": True if custom else None})
        return self._rule("fail", provider, action, count=count, **match)

    def respond(self, provider, count=None, **kwargs):
        """Like :meth:`fail_next`, any number of times by default (``count=None``)."""
        return self.fail_next(provider, count=count, **kwargs)

    def delay(self, provider, seconds, count=None, then=None, **match):
        """Hold matching requests ``seconds`` before answering (normally, or with ``then``, an action)."""
        action = _clean({"type": "delay", "seconds": seconds, "then": then})
        return self._rule("delay", provider, action, count=count, **match)

    def drop_connection(self, provider, count=1, **match):
        """Close the TCP connection without an answer."""
        return self._rule("drop", provider, {"type": "drop"}, count=count, **match)

    def goaway(self, provider, count=1, last_stream_id=None, error_code=None, debug_data=None, debug_json=None,
               then=None, **match):
        """HTTP/2 GOAWAY (``last_stream_id``: ``before`` (default), ``this``, ``highest`` or a number)."""
        action = _clean({"type": "goaway", "lastStreamId": last_stream_id, "errorCode": error_code,
                         "debugData": debug_data, "debugJSON": debug_json, "then": then})
        return self._rule("goaway", provider, action, count=count, **match)

    def reset_stream(self, provider, count=1, error_code=None, **match):
        """HTTP/2 RST_STREAM (``error_code`` e.g. ``INTERNAL_ERROR``)."""
        return self._rule("reset", provider, _clean({"type": "reset", "errorCode": error_code}), count=count, **match)

    def stall(self, provider, count=1, **match):
        """Never answer (the client's timeout is on trial)."""
        return self._rule("stall", provider, {"type": "stall"}, count=count, **match)

    def quota(self, provider, limit, seconds, per="all", reason=None, status=None, **match):
        """At most ``limit`` requests per ``seconds`` (fixed window); the rest get 429 with a truthful Retry-After."""
        action = _clean({"type": "quota", "fixedWindow": {"limit": limit, "seconds": seconds}, "per": per,
                         "reason": reason, "status": status})
        return self._rule("quota", provider, action, **match)

    def token_bucket(self, provider, rate, burst, per="all", reason=None, status=None, **match):
        action = _clean({"type": "quota", "tokenBucket": {"rate": rate, "burst": burst}, "per": per,
                         "reason": reason, "status": status})
        return self._rule("quota", provider, action, **match)

    # -- history -----------------------------------------------------------------------

    #: The history endpoints the core records for every provider (requests the transport refused).
    TRANSPORT_ENDPOINTS = ("transport.limit", "transport.refused")

    def _filters(self, provider=None, device=None, token=None, endpoint=None, since=None, until=None):
        self._check_provider(provider)
        self._check_endpoint(endpoint, provider, also=self.TRANSPORT_ENDPOINTS)

        def t(v):
            if isinstance(v, _dt.datetime):  # the history's own form: UTC, milliseconds
                if v.tzinfo is not None:
                    v = v.astimezone(_dt.timezone.utc).replace(tzinfo=None)
                return v.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (v.microsecond // 1000)
            return v
        return {"provider": provider, "device": device, "token": token, "endpoint": endpoint,
                "since": t(since), "until": t(until)}

    def history_page(self, after=None, limit=None, **filters):
        """One page, as the admin API answers it: ``{"count", "dropped", "nextCursor", "nextSeq", "exchanges"}``."""
        q = self._filters(**filters)
        q.update({"after": after, "limit": limit})
        return self.get("/history", **q)

    def history(self, provider=None, device=None, token=None, endpoint=None, since=None, until=None, after=None,
                status=None, limit=None):
        """Every matching exchange, oldest first (all pages), as :class:`Exchange` objects.

        ``status`` filters here on the answered HTTP status; ``limit`` keeps only the
        newest ``limit``."""
        out = []
        cursor = after
        while True:
            page = self.history_page(after=cursor, limit=5000, provider=provider, device=device, token=token,
                                     endpoint=endpoint, since=since, until=until)
            out += [Exchange(x) for x in page.get("exchanges") or ()]
            cursor = page.get("nextCursor")
            if cursor is None or not page.get("exchanges"):
                break
        if status is not None:
            out = [x for x in out if x.status == status]
        if limit is not None:
            out = out[-limit:] if limit else []
        return out

    def last(self, **filters):
        """The newest matching exchange (None when there is none)."""
        h = self.history(**filters)
        return h[-1] if h else None

    def wait_for(self, count=1, timeout=5.0, interval=0.05, **filters):
        """Poll until at least ``count`` exchanges match ``filters`` (those of :meth:`history`);
        returns them. Raises :class:`TimeoutError` listing what did arrive."""
        deadline = time.monotonic() + timeout
        while True:
            got = self.history(**filters)
            if len(got) >= count:
                return got
            if time.monotonic() >= deadline:
                lines = "\n".join("  " + x.summary() for x in got[-10:]) or "  (none)"
                raise TimeoutError("waited %.1f s for %d exchange(s) matching %s, got %d:\n%s"
                                   % (timeout, count, _clean(filters) or "anything", len(got), lines))
            time.sleep(interval)

    def clear_history(self, provider=None):
        self._check_provider(provider)
        return self.request("DELETE", "/history", query={"provider": provider})

    # -- reset and scenarios -------------------------------------------------------------

    def reset(self, provider=None, tokens=False):
        """Forget devices, fault rules and history (of one provider, or all; world modes and
        the fault generator's seed restart). Kept: FCM access tokens minted earlier, Web Push
        subscriptions and what they received, Expo receipts not yet fetched, added FCM
        accounts, open connections. ``tokens=True`` also revokes every FCM access token (a
        sender then gets 401 UNAUTHENTICATED for a cached token and must mint a new one)."""
        self._check_provider(provider)
        out = self.request("POST", "/reset", query={"provider": provider})
        if tokens and provider in (None, "fcm"):
            self.revoke_fcm_tokens()
        return out

    def load_scenario(self, scenario, merge=False, name=None):
        """Load a scenario: a dict, JSON text, or a path to a file. Replaces devices, rules
        and history unless ``merge``."""
        if isinstance(scenario, dict):
            body = scenario
        elif isinstance(scenario, bytes) and scenario.lstrip().startswith(b"{"):
            body = scenario
        elif isinstance(scenario, str) and scenario.lstrip().startswith("{"):
            body = scenario
        else:
            path = os.fspath(scenario)
            with open(path, "rb") as f:
                body = f.read()
            name = name or os.path.basename(path)
        return self.request("POST", "/scenarios", body, query={"merge": merge if merge else None, "name": name})

    def export_scenario(self):
        """The current devices, rules, world modes, seed and fake options as a scenario dict."""
        return self.get("/scenario/export")

    scenario_export = export_scenario

    # -- provider routes -----------------------------------------------------------------

    def create_subscription(self, id=None, service=None, application_server_key=None, endpoint_origin=None):
        """A Web Push subscription the double's browser holds the keys of:
        ``{"id", "endpoint", "expirationTime", "keys": {"p256dh", "auth"}}`` (pass it to the
        sender as a browser would). ``service``: ``mozilla`` (default), ``fcm``, ``apple``, ``wns``."""
        body = _clean({"id": id, "service": service, "applicationServerKey": application_server_key,
                       "endpointOrigin": endpoint_origin})
        return self.request("POST", "/webpush/subscriptions", body)

    def subscriptions(self):
        return self.get("/webpush/subscriptions")

    def subscription(self, subscription_id):
        return self.get("/webpush/subscriptions/" + _q(subscription_id))

    def subscription_messages(self, subscription_id):
        """What the browser received for a subscription (accepted messages only):
        ``[{"receivedAt", "ttl", "urgency", "topic", "encoding", "payload"}]``."""
        return self.get("/webpush/subscriptions/" + _q(subscription_id) + "/messages")

    def received_texts(self, subscription_id):
        """The decrypted text of each message a subscription received, oldest first."""
        out = []
        for m in self.subscription_messages(subscription_id):
            p = m.get("payload")
            out.append(p.get("data") if isinstance(p, dict) and not p.get("base64") else None)
        return out

    def release_expo_receipts(self, ids=None):
        """Release held Expo receipts (all of them when ``ids`` is None)."""
        return self.request("POST", "/expo/receipts/release", {"ids": list(ids)} if ids is not None else None)

    def revoke_fcm_tokens(self, token=None, client_email=None):
        """Revoke FCM access tokens (one, an account's, or all): ``{"revoked": n}``."""
        return self.request("POST", "/fcm/tokens/revoke", _clean({"token": token, "clientEmail": client_email}))

    def fcm_accounts(self):
        """The service accounts the FCM fake knows: ``[{"clientEmail", "projects"}]``."""
        return (self.get("/fcm/accounts") or {}).get("accounts", [])


def _reasons(action, path):
    """``(field, reason)`` of every reason an action names that is not marked custom, as the
    server walks it (respond, then, response, quota)."""
    if not isinstance(action, dict):
        return []
    out = []
    kind = action.get("type")
    if kind in ("respond", "quota") and action.get("reason") is not None and not action.get("custom"):
        out.append((path + ".reason", action["reason"]))
    if isinstance(action.get("then"), dict):
        out += _reasons(action["then"], path + ".then")
    r = action.get("response")
    if isinstance(r, dict) and r.get("reason") is not None and not r.get("custom"):
        out.append((path + ".response.reason", r["reason"]))
    return out


def _q(segment):
    return urllib.parse.quote(str(segment), safe="")
