"""exponent-server-sdk under `pushdouble conform`: PushClient.publish_multiple (default) or publish, receipts in settle."""
import os
from importlib.metadata import version
import requests
from exponent_server_sdk import (DeviceNotRegisteredError, MessageTooBigError, PushClient, PushMessage, PushServerError,
                                 PushTicketError)
from pushdouble.driver import Adapter, DeadTokens, FEATURE_REGISTERED_AT, run, result, pending, sent, failed, outcome_of, DEAD, REJECTED, FAILED

CALL = os.environ.get("EXPO_CALL", "publish_multiple")             # publish_multiple | publish
TICKET = {DeviceNotRegisteredError: DEAD, MessageTooBigError: REJECTED, PushTicketError: FAILED}  # ticket and receipt errors

class ExpoAdapter(Adapter):
    name, version, providers, features = "exponent-server-sdk/" + CALL, version("exponent_server_sdk"), ["expo"], [FEATURE_REGISTERED_AT]
    fields = {"expo": ["title", "subtitle", "body", "data", "ttlSeconds", "priority", "sound", "badge", "category", "channelId"]}

    def initialize(self, config):
        c, s = config["expo"], requests.Session()
        s.headers.update({"accept": "application/json", "content-type": "application/json"}, **(
            {"Authorization": "Bearer " + c["accessToken"]} if c.get("accessToken") else {}))
        s.verify = c.get("caFile") or True
        self.client, self.dead, self.tickets = PushClient(host=c["url"], session=s), DeadTokens(), {}

    def judge(self, d, ticket_or_receipt):
        try: ticket_or_receipt.validate_response()
        except PushTicketError as e: return self.dead.note(d, result(d, outcome_of(e, TICKET), type(e).__name__))
        return None

    def send(self, n, devices, targets):
        out = {d["id"]: self.dead.skip(d) for d in devices}
        todo = [d for d in devices if not out[d["id"]]]
        msgs = [PushMessage(to=d["token"], title=n.get("title"), subtitle=n.get("subtitle"), body=n.get("body"), data=n.get("data"),
                            ttl=n.get("ttlSeconds"), priority=n.get("priority"), sound=n.get("sound"), badge=n.get("badge"),
                            category=n.get("category"), channel_id=n.get("channelId")) for d in todo]
        try:
            tickets = self.client.publish_multiple(msgs) if CALL == "publish_multiple" else [self.client.publish(m) for m in msgs]
        except (PushServerError, requests.RequestException) as e:  # the whole call failed: no ticket for anyone
            return [out[d["id"]] or failed(d, "%s: %s" % (type(e).__name__, e)) for d in devices]
        for d, t in zip(todo, tickets):
            out[d["id"]] = self.judge(d, t) or pending(d, message_id=t.id)
            if t.is_success(): self.tickets[t.id] = (d, t)
        return list(out.values())

    def settle(self):
        if not self.tickets: return []
        receipts = self.client.check_receipts_multiple([t for _, t in self.tickets.values()])
        out = []
        for r in receipts:                                         # absent receipts stay pending
            d, _ = self.tickets.pop(r.id, (None, None))
            if d: out.append(self.judge(d, r) or sent(d, message_id=r.id))
        return out

if __name__ == "__main__":
    run(ExpoAdapter())
