"""firebase-admin under `pushdouble conform`: messaging.send_each (default), send or send_each_async."""
import json, os
import firebase_admin
from firebase_admin import credentials, exceptions, messaging
from pushdouble.driver import (Adapter, DeadTokens, FEATURE_REGISTERED_AT, run, result, sent, rejected,
                               outcome_of, DEAD, REJECTED, FAILED)
from pushdouble.redirect import host_map_from_providers, redirect_hosts

CALL = os.environ.get("FIREBASE_ADMIN_CALL", "send_each")          # send_each | send | send_each_async
OUTCOMES = {messaging.UnregisteredError: DEAD, messaging.SenderIdMismatchError: DEAD, exceptions.InvalidArgumentError: REJECTED,
            ValueError: REJECTED, exceptions.FirebaseError: FAILED}  # the SDK's own types (FirebaseError: 401, 429, 5xx, transport)

class FirebaseAdminAdapter(Adapter):
    name, version, providers = "firebase-admin/" + CALL, firebase_admin.__version__, ["fcm"]
    features, targets = [FEATURE_REGISTERED_AT], ["fcm.topic", "fcm.condition"]
    fields = {"fcm": ["title", "body", "data", "collapseKey", "ttlSeconds", "priority", "sound", "channelId", "imageUrl"]}

    def initialize(self, config):
        redirect_hosts(host_map_from_providers(config))     # fcm.googleapis.com is compiled in (messaging.py FCM_URL)
        os.environ["REQUESTS_CA_BUNDLE"] = os.environ["SSL_CERT_FILE"] = config["fcm"]["caFile"]
        self.app, self.dead = firebase_admin.initialize_app(credentials.Certificate(config["fcm"]["serviceAccountFile"])), DeadTokens()

    def message(self, n, to):
        data = {k: v if isinstance(v, str) else json.dumps(v) for k, v in (n.get("data") or {}).items()}
        android = messaging.AndroidConfig(ttl=n.get("ttlSeconds"), priority=n.get("priority"), collapse_key=n.get("collapseKey"),
                                          notification=messaging.AndroidNotification(sound=n.get("sound"), channel_id=n.get("channelId")))
        note = messaging.Notification(title=n.get("title"), body=n.get("body"), image=n.get("imageUrl"))
        return messaging.Message(notification=note, data=data or None, android=android, **to)

    def send(self, n, devices, targets):
        out = {d["id"]: self.dead.skip(d) for d in devices}
        todo = [d for d in devices if not out[d["id"]]] + list(targets)
        msgs = []
        for r in todo:                                             # the SDK validates while building: ValueError
            try: msgs.append(self.message(n, {"token": r["token"]} if "token" in r else {k: r[k] for k in ("topic", "condition") if k in r}))
            except ValueError as e: out[r["id"]] = rejected(r, "ValueError: %s" % e)
        todo = [r for r in todo if not out.get(r["id"])]
        if CALL == "send":
            replies = []
            for m in msgs:
                try: replies.append(messaging.SendResponse({"name": messaging.send(m, app=self.app)}, None))
                except exceptions.FirebaseError as e: replies.append(messaging.SendResponse(None, e))
        else:
            replies = (messaging.send_each(msgs, app=self.app) if CALL == "send_each" else
                       self.loop.run_until_complete(messaging.send_each_async(msgs, dry_run=False, app=self.app))).responses if msgs else []
        for r, rep in zip(todo, replies):
            e = rep.exception
            out[r["id"]] = sent(r, message_id=rep.message_id) if e is None else self.dead.note(
                r, result(r, outcome_of(e, OUTCOMES), "%s: %s" % (type(e).__name__, e)))
        return list(out.values())

if __name__ == "__main__":
    run(FirebaseAdminAdapter())
