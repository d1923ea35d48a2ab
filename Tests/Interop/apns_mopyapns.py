#!/usr/bin/env python3
"""Real-client matrix: mopyapns (the `apns2` API of PyAPNs2, rewritten on httpx) against the
PushDouble APNs fake.

How it is pointed at the fake (see apns_matrix_common.py for the cases):
  - host/port: no option; the client connects to the class constants
    `APNsClient.LIVE_SERVER` / `SANDBOX_SERVER` ("api.push.apple.com" /
    "api.development.push.apple.com") on `DEFAULT_PORT` (443). The script sets these
    constants before each client is built (host and port constants only).
  - CA: SSL_CERT_FILE, which httpx reads when it builds its default TLS context
    (TokenCredentials passes no SSL context, so `verify=True`).
  - key: TokenCredentials(auth_key_path, auth_key_id, team_id), as documented.
  - ExpiredProviderToken: TokenCredentials caches a JWT whose `iat` is `time.time()`
    (a float); a fresh TokenCredentials signs its token while the `time` name in
    apns2.credentials runs two hours behind.
"""
import os

import apns_matrix_common as m

m.require("mopyapns", "apns2.client")
from apns2 import errors as apns2_errors  # noqa: E402
from apns2.client import APNsClient  # noqa: E402
from apns2.credentials import TokenCredentials  # noqa: E402
from apns2.payload import Payload  # noqa: E402
import apns2.credentials as apns2_credentials  # noqa: E402


def run(a, mx):
    os.environ["SSL_CERT_FILE"] = a.ca

    def client(sandbox=False, credentials=None):
        APNsClient.LIVE_SERVER = APNsClient.SANDBOX_SERVER = a.host
        APNsClient.DEFAULT_PORT = a.sandbox_port if sandbox else a.production_port
        credentials = credentials or TokenCredentials(auth_key_path=a.key, auth_key_id=a.key_id, team_id=a.team_id)
        return APNsClient(credentials=credentials, use_sandbox=sandbox)

    payload = Payload(alert="PushDouble matrix")

    def send(c, token):
        return c.send_notification(token, payload, topic=a.topic)

    def success():
        for env, sandbox in (("production", False), ("sandbox", True)):
            c = client(sandbox)
            mx.check(send(c, m.TOKEN) is None, f"success {env}")
            # The lower-level API the batch sender uses reports the outcome as a string.
            mx.check(c.get_notification_result(c.send_notification_async(m.TOKEN, payload, topic=a.topic)) == "Success",
                     f"success {env}: get_notification_result")
            mx.results[f"success_{env}"] = "Success"

    def unregistered():
        try:
            send(client(), m.MAGIC_UNREGISTERED)
            mx.check(False, "unregistered: no exception")
        except apns2_errors.Unregistered as e:
            mx.check(e.timestamp == m.UNREGISTERED_TIMESTAMP, f"unregistered: timestamp {e.timestamp!r}")
            mx.results["unregistered"] = [type(e).__name__, e.timestamp]

    def bad_device_token():
        try:
            send(client(), m.MAGIC_BAD_DEVICE_TOKEN)
            mx.check(False, "badDeviceToken: no exception")
        except apns2_errors.BadDeviceToken as e:
            mx.results["badDeviceToken"] = [type(e).__name__]

    def expired():
        credentials = TokenCredentials(auth_key_path=a.key, auth_key_id=a.key_id, team_id=a.team_id)
        c = client(credentials=credentials)
        with m.stale_clock(apns2_credentials, "time"):
            try:
                send(c, m.TOKEN)
                mx.check(False, "expired: no exception")
            except apns2_errors.ExpiredProviderToken as e:
                mx.results["expired"] = [type(e).__name__]

    for name, case in (("success", success), ("unregistered", unregistered), ("badDeviceToken", bad_device_token),
                       ("expired", expired)):
        mx.case(name, case)


def main():
    a = m.parse_args()
    mx = m.Matrix("mopyapns")
    run(a, mx)
    mx.finish()


if __name__ == "__main__":
    main()
