"""firebase-admin (the official Python Admin SDK) against the PushDouble FCM fake.

firebase-admin has no option for the FCM base URL (docs/fcm.md §5.1: the URL is the class
attribute `firebase_admin.messaging._MessagingService.FCM_URL`); that one constant is patched
to the fake's URL. Everything else is the SDK as shipped: it reads the key file, signs the
RS256 assertion and fetches its access token from the file's token_uri (the fake) through
google-auth, and sends with requests (HTTP/1.1: send, send_each) and httpx (h2:
send_each_async). See fcm_matrix_common.py for the checks.
"""
import asyncio

from fcm_matrix_common import MAGIC_INVALID, MAGIC_SENDER_MISMATCH, MAGIC_UNREGISTERED, TOKEN, Report, parse_args, require

firebase_admin = require("firebase-admin", "firebase_admin")
from firebase_admin import credentials, exceptions, messaging  # noqa: E402


def main():
    a = parse_args()
    report = Report("firebase-admin")
    # The one patch: the hard-coded FCM URL (docs/fcm.md §5.1 "Endpoint override: none").
    messaging._MessagingService.FCM_URL = a.fcm_url.rstrip("/") + "/v1/projects/{0}/messages:send"
    app = firebase_admin.initialize_app(credentials.Certificate(a.service_account), name="pushdouble")

    def message(token, **kw):
        return messaging.Message(token=token, notification=messaging.Notification(title="Hello", body="From the matrix"),
                                 data={"k": "v"}, android=messaging.AndroidConfig(ttl=3600, priority="high"), **kw)

    name = messaging.send(message(TOKEN), app=app)
    report.check("send", name.startswith(f"projects/{a.project_id}/messages/0:"), name)
    dry = messaging.send(message(TOKEN), dry_run=True, app=app)
    report.check("dry_run", dry == f"projects/{a.project_id}/messages/fake_message_id", dry)
    topic = messaging.send(messaging.Message(topic="news", data={"k": "v"}), app=app)
    report.check("topic", topic.startswith(f"projects/{a.project_id}/messages/"), topic)

    report.expect_error("unregistered", lambda: messaging.send(message(MAGIC_UNREGISTERED), app=app), messaging.UnregisteredError)
    report.expect_error("invalidArgument", lambda: messaging.send(message(MAGIC_INVALID), app=app), exceptions.InvalidArgumentError)
    report.expect_error("senderIdMismatch", lambda: messaging.send(message(MAGIC_SENDER_MISMATCH), app=app),
                        messaging.SenderIdMismatchError)
    # FCM's own check of the message (docs/fcm.md §2.1 reserved data keys), not the SDK's.
    report.expect_error("reservedDataKey",
                        lambda: messaging.send(messaging.Message(token=TOKEN, data={"google.x": "1"}), app=app),
                        exceptions.InvalidArgumentError)

    batch = messaging.send_each([message(TOKEN), message(MAGIC_UNREGISTERED), message(MAGIC_INVALID)], app=app)
    report.check("send_each", batch.success_count == 1 and batch.failure_count == 2
                 and isinstance(batch.responses[1].exception, messaging.UnregisteredError)
                 and isinstance(batch.responses[2].exception, exceptions.InvalidArgumentError),
                 f"{batch.success_count} ok, {[type(r.exception).__name__ for r in batch.responses]}")

    async def send_async():
        return await messaging.send_each_async([message(TOKEN), message(MAGIC_UNREGISTERED), message(MAGIC_INVALID)], app=app)

    batch = asyncio.run(send_async())
    report.check("send_each_async", batch.success_count == 1
                 and isinstance(batch.responses[1].exception, messaging.UnregisteredError)
                 and isinstance(batch.responses[2].exception, exceptions.InvalidArgumentError),
                 f"{batch.success_count} ok, {[type(r.exception).__name__ for r in batch.responses]}")
    report.finish()


if __name__ == "__main__":
    main()
