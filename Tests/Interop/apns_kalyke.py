#!/usr/bin/env python3
"""Real-client matrix: kalyke-apns (async, on httpx2) against the PushDouble APNs fake.

How it is pointed at the fake (see apns_matrix_common.py for the cases):
  - host/port: kalyke has no option; its URL is the hard-coded property `_base_url`
    ("https://api.push.apple.com" / "https://api.sandbox.push.apple.com"). The script
    replaces that property on `kalyke.ApnsClient` (host constant only).
  - CA: SSL_CERT_FILE, which httpx2 reads when it builds its default TLS context
    (kalyke passes no `verify`).
  - key: auth_key_filepath / auth_key_id / team_id, as documented.
  - ExpiredProviderToken: kalyke signs a new JWT per send_message with
    `str(int(datetime.now().timestamp()))`; for that one call the `datetime` name in
    kalyke.clients.apns runs two hours behind.
"""
import asyncio
import os
import uuid

import apns_matrix_common as m

kalyke = m.require("kalyke-apns", "kalyke")
from kalyke import exceptions as kx  # noqa: E402
import kalyke.clients.apns as kalyke_apns  # noqa: E402


def point_at_fake(a):
    urls = {False: m.base_url(a), True: m.base_url(a, sandbox=True)}
    kalyke.ApnsClient._base_url = property(lambda self: urls[self.use_sandbox])
    os.environ["SSL_CERT_FILE"] = a.ca


async def run(a, mx):
    def client(sandbox=False):
        return kalyke.ApnsClient(use_sandbox=sandbox, team_id=a.team_id, auth_key_id=a.key_id, auth_key_filepath=a.key)

    config = kalyke.ApnsConfig(topic=a.topic)
    payload = kalyke.Payload(alert=kalyke.PayloadAlert(title="PushDouble", body="matrix"))

    async def send(c, token):
        return await asyncio.wait_for(c.send_message(device_token=token, payload=payload, apns_config=config), 15)

    async def success():
        for env, sandbox in (("production", False), ("sandbox", True)):
            apns_id = await send(client(sandbox), m.TOKEN)
            mx.check(str(uuid.UUID(apns_id)) == apns_id.lower(), f"success {env}: apns-id {apns_id!r}")
            mx.results[f"success_{env}"] = apns_id

    async def unregistered():
        try:
            await send(client(), m.MAGIC_UNREGISTERED)
            mx.check(False, "unregistered: no exception")
        except kx.Unregistered as e:
            mx.check(e.error == {"timestamp": m.UNREGISTERED_TIMESTAMP}, f"unregistered: error {e.error}")
            mx.results["unregistered"] = [type(e).__name__, e.error]

    async def bad_device_token():
        try:
            await send(client(), m.MAGIC_BAD_DEVICE_TOKEN)
            mx.check(False, "badDeviceToken: no exception")
        except kx.BadDeviceToken as e:
            mx.check(e.error == {}, f"badDeviceToken: error {e.error}")
            mx.results["badDeviceToken"] = [type(e).__name__, e.error]

    async def expired():
        c = client()
        try:
            with m.stale_clock(kalyke_apns, "datetime"):
                await send(c, m.TOKEN)
            mx.check(False, "expired: no exception")
        except kx.ExpiredProviderToken as e:
            mx.results["expired"] = [type(e).__name__, e.error]

    for name, case in (("success", success), ("unregistered", unregistered), ("badDeviceToken", bad_device_token),
                       ("expired", expired)):
        try:
            await case()
        except Exception as e:
            mx.failures.append(f"{name}: unexpected {type(e).__module__}.{type(e).__name__}: {e!r}")


def main():
    a = m.parse_args()
    mx = m.Matrix("kalyke-apns")
    point_at_fake(a)
    asyncio.run(run(a, mx))
    mx.finish()


if __name__ == "__main__":
    main()
