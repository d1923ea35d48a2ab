"""pywebpush under `pushdouble conform`: webpush() per subscription (default) or webpush_async()."""
import asyncio, json, os
from importlib.metadata import version
import requests
from pywebpush import WebPushException, webpush, webpush_async
from pushdouble.driver import Adapter, DeadTokens, FEATURE_REGISTERED_AT, run, result, sent, failed, DEAD, REJECTED, FAILED

CALL = os.environ.get("PYWEBPUSH_CALL", "webpush")                 # webpush | webpush_async
def by_status(status):                                             # WebPushException carries the response: its status decides
    return DEAD if status in (404, 410) else FAILED if status is None or status in (406, 429) or status >= 500 else REJECTED

class PywebpushAdapter(Adapter):
    name, version, providers, features = "pywebpush/" + CALL, version("pywebpush"), ["webpush"], [FEATURE_REGISTERED_AT]
    fields = {"webpush": ["title", "body", "data", "ttlSeconds", "priority", "collapseKey"]}

    def initialize(self, config):
        self.cfg, self.dead, self.session = config["webpush"], DeadTokens(), requests.Session()
        self.session.verify = self.cfg["caFile"]

    def args(self, n):
        payload = json.dumps({k: n[k] for k in ("title", "body", "data") if k in n})
        headers = {"Urgency": "high" if n.get("priority") == "high" else "normal"}
        headers.update({"Topic": n["collapseKey"]} if "collapseKey" in n else {})
        return dict(data=payload, ttl=n.get("ttlSeconds", 0), headers=headers, timeout=10,
                    vapid_private_key=self.cfg["vapidPrivateKeyFile"], vapid_claims={"sub": self.cfg["subject"]})

    def outcome(self, d, error):
        if error is None: return sent(d)
        if isinstance(error, WebPushException):
            return self.dead.note(d, result(d, by_status(error.status_code), "WebPushException %s" % error.status_code))
        return failed(d, "%s: %s" % (type(error).__name__, error))  # transport errors of requests / aiohttp

    async def one(self, n, d):
        try: await webpush_async(d["subscription"], **self.args(n)); return self.outcome(d, None)
        except Exception as e: return self.outcome(d, e)

    def send(self, n, devices, targets):
        out = {d["id"]: self.dead.skip(d) for d in devices}
        todo = [d for d in devices if not out[d["id"]]]
        if CALL == "webpush_async":
            out.update({d["id"]: r for d, r in zip(todo, self.loop.run_until_complete(self.gather(n, todo)))})
        for d in todo if CALL == "webpush" else []:
            try: webpush(d["subscription"], requests_session=self.session, **self.args(n)); out[d["id"]] = self.outcome(d, None)
            except (WebPushException, requests.RequestException) as e: out[d["id"]] = self.outcome(d, e)
        return list(out.values())

    async def gather(self, n, todo):
        return await asyncio.gather(*(self.one(n, d) for d in todo))

if __name__ == "__main__":
    run(PywebpushAdapter())
