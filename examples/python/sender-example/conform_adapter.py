"""The example sender under `pushdouble conform`, on the driver kit:

    pushdouble conform --sender "python3 conform_adapter.py" --only 'fcm.*'
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from pushdouble.driver import Adapter, dead, failed, rejected, run, sent, skipped  # noqa: E402
from pushsender.fcm import FcmClient  # noqa: E402


class ExampleSender(Adapter):
    name, version, providers = "pushsender-example", "0.1", ["fcm"]
    fields = {"fcm": ["title", "body", "data"]}

    def initialize(self, config):
        fcm = config["fcm"]
        self.client = FcmClient(service_account_file=fcm["serviceAccountFile"], url=fcm["url"],
                                project_id=fcm["projectId"], ca_file=fcm["caFile"], token_url=fcm.get("tokenUrl"))
        self.dead_tokens = set()

    def send(self, notification, devices, targets):
        out = []
        for d in devices:
            if d["token"] in self.dead_tokens:
                out.append(skipped(d, "known dead"))
                continue
            message = {"token": d["token"],
                       "notification": {k: notification[k] for k in ("title", "body") if k in notification}}
            if notification.get("data"):
                message["data"] = {k: str(v) for k, v in notification["data"].items()}
            r = self.client.send(message)
            if r.outcome == "sent":
                out.append(sent(d, message_id=r.message_id))
            elif r.outcome == "dead":
                self.dead_tokens.add(d["token"])
                out.append(dead(d, r.error))
            elif r.outcome == "rejected":
                out.append(rejected(d, r.error))
            else:
                out.append(failed(d, r.error or r.status))
        return out


if __name__ == "__main__":
    run(ExampleSender())
