"""firebase-admin, UNMODIFIED, reaching the PushDouble FCM fake through its CONNECT proxy.

No constant is patched: the SDK sends to https://fcm.googleapis.com and fetches its access token
from the service account's token_uri https://oauth2.googleapis.com/token, as in production. The
only set-up is what a user of an unmodified sender does (README "Testing an unmodified sender", docs/transport.md):
HTTPS_PROXY = the double's proxy, the test CA for requests/httpx, and the service-account file
(the shipped test account, its token_uri the real Google URL). The proxy routes the two real
host names to the fake's listeners (ListenerDefault.realHosts); nothing leaves the machine.
"""
import asyncio
import os

from fcm_matrix_common import MAGIC_INVALID, MAGIC_UNREGISTERED, TOKEN, Report, parse_args, require

firebase_admin = require("firebase-admin", "firebase_admin")
from firebase_admin import credentials, exceptions, messaging  # noqa: E402


def main():
    a = parse_args()  # sets REQUESTS_CA_BUNDLE / SSL_CERT_FILE to the test CA
    report = Report("firebase-admin")
    report.check("unpatched", messaging._MessagingService.FCM_URL.startswith("https://fcm.googleapis.com/"),
                 messaging._MessagingService.FCM_URL)
    report.check("proxy", os.environ.get("HTTPS_PROXY", "").startswith("http://127.0.0.1:"), os.environ.get("HTTPS_PROXY"))
    app = firebase_admin.initialize_app(credentials.Certificate(a.service_account), name="pushdouble-proxy")

    def message(token):
        return messaging.Message(token=token, notification=messaging.Notification(title="Hello", body="Through the proxy"))

    name = messaging.send(message(TOKEN), app=app)
    report.check("send", name.startswith(f"projects/{a.project_id}/messages/"), name)
    report.expect_error("unregistered", lambda: messaging.send(message(MAGIC_UNREGISTERED), app=app), messaging.UnregisteredError)
    report.expect_error("invalidArgument", lambda: messaging.send(message(MAGIC_INVALID), app=app), exceptions.InvalidArgumentError)

    async def send_async():
        return await messaging.send_each_async([message(TOKEN), message(MAGIC_UNREGISTERED)], app=app)

    # send_each_async builds its httpx client on an explicit transport, which makes httpx ignore
    # HTTPS_PROXY: it resolves fcm.googleapis.com itself, which fails offline (nothing is sent
    # anywhere). Recorded as a finding (docs/transport.md "Using the CONNECT proxy from a sender":
    # such clients need the hosts-file recipe); if a later firebase-admin honours the proxy, this check says so.
    batch = asyncio.run(send_async())
    errors = [r.exception for r in batch.responses]
    report.check("send_each_async_ignores_proxy",
                 batch.success_count == 0 and all(isinstance(e, exceptions.UnavailableError) for e in errors),
                 f"{batch.success_count} ok: {[repr(e) for e in errors]}")
    report.finish()


if __name__ == "__main__":
    main()
