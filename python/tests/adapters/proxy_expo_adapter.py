"""An Expo sender that knows only the real host (https://exp.host) and reaches it through
HTTPS_PROXY, as urllib does by itself: the adapter `conform --real-hosts` is made for.
Records what it was told on stderr (the test reads the report's sender log)."""
import json, os, ssl, sys, urllib.request
from pushdouble.driver import Adapter, run, result, pending, sent, SENT, DEAD

class ProxyExpo(Adapter):
    name, version, providers = "proxy-expo", "1", ["expo"]
    fields = {"expo": ["title", "body", "data"]}  # the rest is not sent: declared, so not judged

    def initialize(self, config):
        self.cfg, self.tickets = config["expo"], {}
        print("told url %s, HTTPS_PROXY %s" % (self.cfg["url"], os.environ.get("HTTPS_PROXY")), file=sys.stderr)
        self.opener = urllib.request.build_opener(  # ProxyHandler from the environment is urllib's default
            urllib.request.HTTPSHandler(context=ssl.create_default_context(cafile=self.cfg["caFile"])))

    def post(self, path, body):
        req = urllib.request.Request(self.cfg["url"] + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json", "authorization": "Bearer " + self.cfg.get("accessToken", "")})
        with self.opener.open(req, timeout=10) as r:
            return json.load(r)

    def send(self, n, devices, targets):
        msgs = [dict({k: n[k] for k in ("title", "body", "data") if k in n}, to=d["token"]) for d in devices]
        tickets = self.post("/--/api/v2/push/send", msgs)["data"]
        out = []
        for d, t in zip(devices, tickets):
            if t["status"] == "ok": self.tickets[t["id"]] = d; out.append(pending(d, t["id"]))
            else: out.append(result(d, DEAD if t.get("details", {}).get("error") == "DeviceNotRegistered" else "rejected", t.get("message")))
        return out

    def settle(self):
        if not self.tickets: return []
        receipts = self.post("/--/api/v2/push/getReceipts", {"ids": list(self.tickets)})["data"]
        return [result(self.tickets[i], SENT if r["status"] == "ok" else DEAD) for i, r in receipts.items()]

run(ProxyExpo())
