"""django-push-notifications under `pushdouble conform`: the device querysets' send_message (bulk, default) or each device's."""
import json, os, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__))); os.environ["DJANGO_SETTINGS_MODULE"] = "settings"
import django, firebase_admin, requests, settings
from firebase_admin import credentials, exceptions, messaging
from pushdouble.driver import Adapter, DeadTokens, FEATURE_REGISTERED_AT, run, result, sent, dead, failed, skipped, outcome_of, DEAD, REJECTED, FAILED
from pushdouble.redirect import host_map_from_providers, redirect_hosts

CALL = os.environ.get("DJANGO_PUSH_CALL", "bulk")                  # bulk: Model.objects.filter(...).send_message; single: device.send_message
FCM = {messaging.UnregisteredError: DEAD, messaging.SenderIdMismatchError: DEAD, exceptions.InvalidArgumentError: REJECTED, exceptions.FirebaseError: FAILED}
def apns_outcome(r): return DEAD if r.status == "410" or r.description in ("BadDeviceToken", "DeviceTokenNotForTopic") else FAILED if r.status in ("403", "429", "500", "503") else REJECTED

class DjangoPushAdapter(Adapter):
    name, providers, features = "django-push-notifications/" + CALL, ["apns", "fcm", "webpush"], [FEATURE_REGISTERED_AT]
    fields = {"apns": ["title", "subtitle", "body", "data", "collapseKey", "ttlSeconds", "priority", "contentAvailable", "sound", "badge", "threadId", "category"],
              "fcm": ["title", "body", "data", "collapseKey", "ttlSeconds", "priority", "sound", "channelId", "imageUrl"],
              "webpush": ["title", "body", "data"] + (["ttlSeconds", "priority", "collapseKey"] if CALL == "single" else [])}

    def initialize(self, config):
        redirect_hosts(host_map_from_providers(config))            # aioapns and firebase-admin have the hosts compiled in
        os.environ["REQUESTS_CA_BUNDLE"] = os.environ["SSL_CERT_FILE"] = config["apns"]["caFile"]
        a, w = config["apns"], config["webpush"]
        apns = lambda sandbox: {"PLATFORM": "APNS", "AUTH_KEY_PATH": a["keyFile"], "AUTH_KEY_ID": a["keyId"], "TEAM_ID": a["teamId"], "TOPIC": a["topic"], "USE_SANDBOX": sandbox}
        settings.PUSH_NOTIFICATIONS_SETTINGS["APPLICATIONS"] = {"production": apns(False), "sandbox": apns(True), "wp": {"PLATFORM": "WP", "PRIVATE_KEY": w["vapidPrivateKeyFile"], "CLAIMS": {"sub": w["subject"]}},
            "fcm": {"PLATFORM": "FCM", "FIREBASE_APP": firebase_admin.initialize_app(credentials.Certificate(config["fcm"]["serviceAccountFile"]))}}
        django.setup(); from django.core.management import call_command; call_command("migrate", verbosity=0)
        from push_notifications import models; self.m, self.dead = models, DeadTokens()

    def row(self, d):
        p, m = d["provider"], self.m
        model, app = {"apns": (m.APNSDevice, d.get("environment", "production")), "fcm": (m.GCMDevice, "fcm"), "webpush": (m.WebPushDevice, "wp")}[p]
        extra = {"p256dh": d["subscription"]["keys"]["p256dh"], "auth": d["subscription"]["keys"]["auth"], "browser": "FIREFOX"} if p == "webpush" else {}
        dev, _ = model.objects.get_or_create(registration_id=d["subscription"]["endpoint"] if p == "webpush" else d["token"], application_id=app, defaults=extra)
        if not dev.active and self.dead.skip(d) is None: dev.active = True; dev.save()  # the app registered it again
        return dev

    def send(self, n, devices, targets):
        rows = {d["id"]: self.row(d) for d in devices}
        out = {d["id"]: skipped(d, "inactive") for d in devices if not rows[d["id"]].active}
        for p, call in (("apns", self.apns), ("fcm", self.fcm), ("webpush", self.webpush)):
            todo = [d for d in devices if d["provider"] == p and d["id"] not in out]
            out.update(call(n, todo, rows) if todo else {})
        for d in devices:                                          # the library deactivates what it takes for dead
            if out[d["id"]]["outcome"] != "skipped" and not type(rows[d["id"]]).objects.get(pk=rows[d["id"]].pk).active:
                out[d["id"]] = self.dead.note(d, dead(d, "deactivated by the library (%s)" % out[d["id"]].get("reason")))
        return [out[d["id"]] for d in devices]

    def each(self, todo, rows, send, judge):
        if CALL == "single": return {d["id"]: judge([d], lambda: rows[d["id"]].send_message(**send))[d["id"]] for d in todo}
        return judge(todo, lambda: type(rows[todo[0]["id"]]).objects.filter(pk__in=[rows[d["id"]].pk for d in todo]).send_message(**send))

    def apns(self, n, todo, rows):
        from push_notifications.apns_async import Alert
        from push_notifications.exceptions import APNSError
        alert = Alert(**{k: n[k] for k in ("title", "subtitle", "body") if k in n}) if any(k in n for k in ("title", "subtitle", "body")) else None
        kw = dict(message=alert, badge=n.get("badge"), sound=n.get("sound"), extra=n.get("data"), thread_id=n.get("threadId"), category=n.get("category"),
                  content_available=n.get("contentAvailable"), collapse_id=n.get("collapseKey"), priority={"high": 10, "normal": 5}.get(n.get("priority")),
                  expiration=int(time.time()) + n["ttlSeconds"] if "ttlSeconds" in n else None)
        out = {}
        for env in ("production", "sandbox"):
            errs = {}
            async def err_func(request, r): errs[request.device_token] = r
            def judge(ds, call):
                try: call(); error = None
                except APNSError as e: error = e                  # raised when any device failed; the per-device results are dropped
                return {d["id"]: result(d, apns_outcome(errs[d["token"]]), errs[d["token"]].description) if d["token"] in errs else
                        failed(d, "%s without a per-device result" % type(error).__name__) if error else sent(d) for d in ds}
            part = [d for d in todo if d.get("environment", "production") == env]
            out.update(self.each(part, rows, dict(kw, err_func=err_func), judge) if part else {})
        return out

    def fcm(self, n, todo, rows):
        extra = {k: v if isinstance(v, str) else json.dumps(v) for k, v in (n.get("data") or {}).items()}
        extra.update({k2: n[k] for k, k2 in (("title", "title"), ("imageUrl", "image"), ("sound", "sound"), ("channelId", "android_channel_id")) if k in n})
        send = dict(message=n.get("body"), extra=extra, collapse_key=n.get("collapseKey"), priority=n.get("priority"), time_to_live=n.get("ttlSeconds"))
        def judge(ds, call):
            reps = call().responses                                # in the order of the queryset's registration ids (pk order)
            ds = sorted(ds, key=lambda d: rows[d["id"]].pk)
            return {d["id"]: sent(d, message_id=r.message_id) if r.exception is None else result(d, outcome_of(r.exception, FCM), type(r.exception).__name__) for d, r in zip(ds, reps)}
        return self.each(todo, rows, send, judge)

    def webpush(self, n, todo, rows):
        from push_notifications.exceptions import WebPushError
        send = dict(message=json.dumps({k: n[k] for k in ("title", "body", "data") if k in n}))
        if CALL == "single": send.update(ttl=n.get("ttlSeconds", 0), headers={"Urgency": "high" if n.get("priority") == "high" else "normal", **({"Topic": n["collapseKey"]} if "collapseKey" in n else {})})
        def judge(ds, call):
            try: res = call()
            except (WebPushError, requests.RequestException) as e:  # the library re-raises pywebpush's error without its response
                return {d["id"]: failed(d, "%s without a per-device result" % type(e).__name__) for d in ds}
            res = res if isinstance(res, list) else [res]
            return {d["id"]: sent(d) if r.get("success") else failed(d, "failure") for d, r in zip(sorted(ds, key=lambda d: rows[d["id"]].pk), res)}
        return self.each(todo, rows, send, judge)

if __name__ == "__main__":
    run(DjangoPushAdapter())
