#!/usr/bin/env python3
"""Real-client matrix: pyapns-client3 (sync APNSClient, on httpx) against the PushDouble APNs fake.

How it is pointed at the fake (see apns_matrix_common.py for the cases):
  - host/port: no option; the URLs are the class constant `BaseAPNSClient.BASE_URLS`
    ({"prod": "https://api.push.apple.com:443", "dev": "https://api.development.push.apple.com:443"}).
    The script replaces that dict (host constant only).
  - CA: the library's own `root_cert_path` argument.
  - key: TokenBasedAuth(auth_key_path, auth_key_id, team_id), as documented.
  - ExpiredProviderToken: TokenBasedAuth caches a JWT whose `iat` is `time.time()` (a float);
    a fresh TokenBasedAuth signs its token while the `time` name in pyapns_client.auth runs
    two hours behind. The library retries ExpiredProviderTokenException (an
    APNSServerException) three times on new connections before raising it.
"""
import apns_matrix_common as m

pyapns_client = m.require("pyapns-client3", "pyapns_client")
import pyapns_client.auth as pyapns_auth  # noqa: E402
import pyapns_client.base as pyapns_base  # noqa: E402


def point_at_fake(a):
    B = pyapns_base.BaseAPNSClient
    B.BASE_URLS = {B.MODE_PROD: m.base_url(a), B.MODE_DEV: m.base_url(a, sandbox=True)}


def run(a, mx):
    def client(mode="prod", auth=None):
        auth = auth or pyapns_client.TokenBasedAuth(auth_key_path=a.key, auth_key_id=a.key_id, team_id=a.team_id)
        return pyapns_client.APNSClient(mode=mode, authentificator=auth, root_cert_path=a.ca)

    notification = pyapns_client.IOSNotification(payload=pyapns_client.IOSPayload(alert="PushDouble matrix"), topic=a.topic,
                                                 push_type="alert")

    def success():
        for env, mode in (("production", "prod"), ("sandbox", "dev")):
            with client(mode) as c:
                mx.check(c.push(notification=notification, device_token=m.TOKEN) is None, f"success {env}")
            mx.results[f"success_{env}"] = "push() returned"

    def unregistered():
        with client() as c:
            try:
                c.push(notification=notification, device_token=m.MAGIC_UNREGISTERED)
                mx.check(False, "unregistered: no exception")
            except pyapns_client.UnregisteredException as e:
                mx.check(e.status_code == 410 and e.timestamp == m.UNREGISTERED_TIMESTAMP,
                         f"unregistered: {e.status_code} {e.timestamp}")
                mx.check(e.timestamp_datetime.isoformat() == "2024-01-01T00:00:00+00:00",
                         f"unregistered: timestamp_datetime {e.timestamp_datetime}")
                mx.results["unregistered"] = [type(e).__name__, e.status_code, e.timestamp, e.apns_id]

    def bad_device_token():
        with client() as c:
            try:
                c.push(notification=notification, device_token=m.MAGIC_BAD_DEVICE_TOKEN)
                mx.check(False, "badDeviceToken: no exception")
            except pyapns_client.BadDeviceTokenException as e:
                mx.check(e.status_code == 400, f"badDeviceToken: {e.status_code}")
                mx.results["badDeviceToken"] = [type(e).__name__, e.status_code, e.apns_id]

    def expired():
        auth = pyapns_client.TokenBasedAuth(auth_key_path=a.key, auth_key_id=a.key_id, team_id=a.team_id)
        with m.stale_clock(pyapns_auth, "time"), client(auth=auth) as c:
            try:
                c.push(notification=notification, device_token=m.TOKEN)
                mx.check(False, "expired: no exception")
            except pyapns_client.ExpiredProviderTokenException as e:
                mx.check(e.status_code == 403, f"expired: {e.status_code}")
                mx.results["expired"] = [type(e).__name__, e.status_code]

    for name, case in (("success", success), ("unregistered", unregistered), ("badDeviceToken", bad_device_token),
                       ("expired", expired)):
        mx.case(name, case)


def main():
    a = m.parse_args()
    mx = m.Matrix("pyapns-client3")
    point_at_fake(a)
    run(a, mx)
    mx.finish()


if __name__ == "__main__":
    main()
