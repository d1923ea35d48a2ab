/// A second, independent sender for end-to-end tests: a small APNs sender in Python on
/// httpx (HTTP/2) and PyJWT, speaking driver protocol v1. Kept as a string so the test
/// target needs no resources; written to a temp file at test time.
public let httpxAdapterPython = #"""
#!/usr/bin/env python3
"""A PushDouble driver-protocol adapter for a small APNs sender built on httpx (HTTP/2) and PyJWT.

Used by the conformance tests as a second, independent sender; docs/conformance.md shows a
shorter version of it.
"""
import json, random, sys, time, uuid
import httpx, jwt, os

MUTANT = os.environ.get("MUTANT", "")  # plants one known bug, for the suite's own tests
JWT_FORM = os.environ.get("JWT_FORM", "")  # a tolerated non-standard JWT: fraction | string | extra (iat, claims)

cfg, clients, dead, tok = {}, {}, {}, {}
PERMANENT_DEAD = {"Unregistered", "ExpiredToken", "BadDeviceToken", "DeviceTokenNotForTopic"}
SUFFIX = {"voip": ".voip", "location": ".location-query", "complication": ".complication",
          "fileprovider": ".pushkit.fileprovider", "liveactivity": ".push-type.liveactivity", "pushtotalk": ".voip-ptt"}

def provider_token(fresh=False):
    if fresh or "jwt" not in tok or MUTANT == "jwt-per-request":
        key = open(cfg["keyFile"]).read()
        iat = int(time.time())
        claims = {"iss": cfg["teamId"], "iat": iat}
        if JWT_FORM == "fraction": claims["iat"] = iat + 0.25
        if JWT_FORM == "string": claims["iat"] = str(iat)
        if JWT_FORM == "extra": claims["jti"] = str(uuid.uuid4())
        tok["jwt"] = jwt.encode(claims, key, algorithm="ES256", headers={"kid": cfg["keyId"]})
    return tok["jwt"]

def client(url):
    if MUTANT == "connection-per-push":
        for c in clients.values(): c.close()
        clients.clear()
    if url not in clients:
        clients[url] = httpx.Client(http2=True, verify=cfg["caFile"], timeout=10)
    return clients[url]

def build(n, dev):
    aps = {}
    alert = {k: n[k] for k in ("title", "subtitle", "body") if k in n}
    push_type = (n.get("pushType") if MUTANT != "push-type-dropped" else None) or ("background" if n.get("contentAvailable") and not alert
                                      and "sound" not in n and "badge" not in n else "alert")
    if push_type != "background":
        if alert: aps["alert"] = alert
        for k, a in (("sound", "sound"), ("badge", "badge"), ("threadId", "thread-id"), ("category", "category")):
            if k in n: aps[a] = n[k]
    if n.get("contentAvailable"): aps["content-available"] = 1
    body = dict(n.get("data") or {}); body.pop("aps", None); body["aps"] = aps
    topic = (dev.get("topic") or cfg["topic"]) + ("" if MUTANT == "wrong-topic-suffix" else SUFFIX.get(push_type, ""))
    headers = {"apns-push-type": push_type, "apns-topic": topic, "apns-id": str(uuid.uuid4())}
    headers["apns-priority"] = "5" if (push_type == "background" and MUTANT != "background-priority-10") or n.get("priority") == "normal" else "10"
    if "ttlSeconds" in n: headers["apns-expiration"] = "0" if n["ttlSeconds"] == 0 else str(int(time.time()) + n["ttlSeconds"])
    if "collapseKey" in n:
        if len(n["collapseKey"].encode()) > 64: return None, "BadCollapseId"
        headers["apns-collapse-id"] = n["collapseKey"]
    data = json.dumps(body, separators=(",", ":")).encode()
    if len(data) > (5120 if push_type == "voip" else 4096) and MUTANT != "oversized-payloads": return None, "PayloadTooLarge"
    return (headers, data), None

def push(n, dev):
    if MUTANT == "report-sent-always":
        push_real(n, dev); return {"device": dev["id"], "outcome": "sent"}
    return push_real(n, dev)

def registered_after_death(dev):
    """A token registered again after it died (driver protocol: device.registeredAt) is usable again."""
    at = dev.get("registeredAt")
    if not at or MUTANT == "never-revive-dead-tokens": return False
    from datetime import datetime
    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp() > dead[dev["token"]][1]

def push_real(n, dev):
    if dev["token"] in dead and registered_after_death(dev): del dead[dev["token"]]
    if dev["token"] in dead: return {"device": dev["id"], "outcome": "skipped", "reason": dead[dev["token"]][0]}
    req, err = build(n, dev)
    if err: return {"device": dev["id"], "outcome": "rejected", "reason": err}
    headers, data = req
    url = (cfg.get("sandboxUrl") if dev.get("environment") == "sandbox" else cfg["url"]) + "/3/device/" + dev["token"]
    delay, reason, refreshed, reconnected = 0.1, None, False, False
    for attempt in range(5):
        try:
            r = client(url.split("/3/")[0]).post(url, content=data, headers=dict(headers, authorization="bearer " + provider_token()))
        except httpx.TransportError as e:
            clients.pop(url.split("/3/")[0], None); reason = "ConnectionError"
            if MUTANT == "never-retry-transient": break
            time.sleep(delay * random.uniform(0.75, 1)); delay *= 2; continue
        if r.status_code == 200: return {"device": dev["id"], "outcome": "sent", "providerMessageId": r.headers.get("apns-id")}
        reason = r.json().get("reason") if r.content else str(r.status_code)
        if reason in PERMANENT_DEAD and MUTANT == "retry-dead-tokens":
            time.sleep(0.05); continue
        if reason in PERMANENT_DEAD:
            dead[dev["token"]] = (reason, time.time()); return {"device": dev["id"], "outcome": "dead", "reason": reason}
        if reason == "ExpiredProviderToken" and not refreshed:
            provider_token(fresh=True); refreshed = True; continue
        if reason == "UnrelatedKeyIdInToken" and not reconnected:
            old = clients.pop(url.split("/3/")[0], None)
            if old: old.close()
            reconnected = True; continue
        if reason == "TooManyProviderTokenUpdates" and MUTANT == "remint-on-token-update-error":
            provider_token(fresh=True); continue
        if r.status_code in (429, 500, 503):
            if MUTANT == "never-retry-transient": break
            wait = 0 if MUTANT == "no-backoff" else delay * random.uniform(0.75, 1)
            if MUTANT == "no-jitter": wait = 0 if attempt == 0 else 0.5 * 2 ** (attempt - 1)
            ra = r.headers.get("retry-after")
            if ra and MUTANT != "ignore-retry-after":
                try: wait = max(wait, float(ra))
                except ValueError:
                    from email.utils import parsedate_to_datetime
                    wait = max(wait, parsedate_to_datetime(ra).timestamp() - time.time())
            time.sleep(wait); delay *= 2; continue
        return {"device": dev["id"], "outcome": "rejected", "reason": reason}
    return {"device": dev["id"], "outcome": "failed", "reason": reason}

for line in sys.stdin:
    msg = json.loads(line); method, params = msg.get("method"), msg.get("params") or {}
    if method == "initialize":
        cfg = params["providers"]["apns"]; result = {"name": "httpx-adapter", "version": "1", "providers": ["apns"], "features": ["registeredAt"]}
    elif method == "send":
        result = {"results": [push(params["notification"], d) for d in params["devices"]]}
    elif method == "settle":
        result = {"results": []}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg.get("id"), "result": result}) + "\n"); sys.stdout.flush()
    if method == "shutdown": break
"""#
