"""aioapns under `pushdouble conform`: APNs.send_notification, one client per environment."""
import asyncio, ssl
from h2.exceptions import ProtocolError                     # aioapns lets h2's error through after a GOAWAY
from aioapns import APNs, NotificationRequest, PushType
from aioapns.exceptions import ConnectionClosed, ConnectionError, MaxAttemptsExceeded
from pushdouble.driver import Adapter, DeadTokens, FEATURE_REGISTERED_AT, run, sent, dead, rejected, failed
from pushdouble.redirect import host_map_from_providers, redirect_hosts

DEAD = {"Unregistered", "ExpiredToken", "BadDeviceToken", "DeviceTokenNotForTopic"}
ALERT = {"title": "title", "subtitle": "subtitle", "body": "body"}
APS = {"sound": "sound", "badge": "badge", "threadId": "thread-id", "category": "category"}
SUFFIX = {"voip": ".voip", "complication": ".complication", "fileprovider": ".pushkit.fileprovider"}

class AioapnsAdapter(Adapter):
    name, version, providers, features = "aioapns", "4.0", ["apns"], [FEATURE_REGISTERED_AT]
    fields = {"apns": ["title", "subtitle", "body", "data", "collapseKey", "ttlSeconds", "priority",
                       "contentAvailable", "sound", "badge", "threadId", "category", "pushType"]}

    async def initialize(self, config):                     # async: aioapns binds the running loop
        c, self.dead = config["apns"], DeadTokens()
        redirect_hosts(host_map_from_providers(config))    # aioapns has the hosts compiled in
        key = open(c["keyFile"]).read()
        self.clients = {env: APNs(key=key, key_id=c["keyId"], team_id=c["teamId"], topic=c["topic"], use_sandbox=env == "sandbox",
                                  ssl_context=ssl.create_default_context(cafile=c["caFile"])) for env in ("production", "sandbox")}
        self.topic = c["topic"]

    async def send(self, n, devices, targets):
        return await asyncio.gather(*(self.push(n, d) for d in devices))

    async def push(self, n, d):
        if skip := self.dead.skip(d): return skip
        aps = {k2: n[k] for k, k2 in APS.items() if k in n}
        alert = {k2: n[k] for k, k2 in ALERT.items() if k in n}
        aps.update({"alert": alert} if alert else {}, **({"content-available": 1} if n.get("contentAvailable") else {}))
        kind = n.get("pushType") or ("background" if n.get("contentAvailable") and not (alert or "sound" in n or "badge" in n) else "alert")
        try:
            r = await self.clients[d.get("environment", "production")].send_notification(NotificationRequest(
                device_token=d["token"], message={**n.get("data", {}), "aps": aps}, time_to_live=n.get("ttlSeconds"),
                priority=5 if kind == "background" or n.get("priority") == "normal" else 10 if "priority" in n else None,
                collapse_key=n.get("collapseKey"), push_type=PushType(kind), apns_topic=(d.get("topic") or self.topic) + SUFFIX.get(kind, "")))
        except ValueError as e:                                    # PushType has no member for this push type
            return rejected(d, "aioapns: %s" % e)
        except (ConnectionClosed, ConnectionError, MaxAttemptsExceeded, ProtocolError) as e:
            return failed(d, type(e).__name__)
        if r.is_successful: return sent(d, message_id=r.notification_id)
        if r.description in DEAD or r.status == "410": return self.dead.note(d, dead(d, r.description))
        return (failed if r.status in ("403", "429", "500", "503") else rejected)(d, "%s %s" % (r.status, r.description))

if __name__ == "__main__":
    run(AioapnsAdapter())
