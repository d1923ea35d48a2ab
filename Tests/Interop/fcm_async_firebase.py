"""async-firebase (an independent asyncio FCM v1 client on httpx) against the PushDouble FCM fake.

async-firebase ignores the key file's token_uri and has no base-URL option, so two constants
are patched: `async_firebase._credentials.TOKEN_URL` (set to the key file's token_uri, the
fake's token endpoint) and `AsyncFirebaseClient.BASE_URL` (the fake's FCM URL). It is run
with `use_http2=True`, so the sends go over h2. Checks success, dry_run, and its own
exception types for UNREGISTERED (UnregisteredError), INVALID_ARGUMENT (InvalidArgumentError)
and SENDER_ID_MISMATCH (SenderIdMismatchError), returned in FCMResponse.exception.
"""
import asyncio
import json

from fcm_matrix_common import MAGIC_INVALID, MAGIC_SENDER_MISMATCH, MAGIC_UNREGISTERED, TOKEN, Report, parse_args, require

async_firebase = require("async-firebase", "async_firebase")
import async_firebase._credentials  # noqa: E402
from async_firebase import AsyncFirebaseClient  # noqa: E402
from async_firebase.errors import InvalidArgumentError, SenderIdMismatchError, UnregisteredError  # noqa: E402
from async_firebase.messages import Message, Notification  # noqa: E402


async def run(a, report):
    with open(a.service_account) as f:
        async_firebase._credentials.TOKEN_URL = json.load(f)["token_uri"]
    AsyncFirebaseClient.BASE_URL = a.fcm_url.rstrip("/")
    client = AsyncFirebaseClient(use_http2=True)
    client.creds_from_service_account_file(a.service_account)

    def message(token):
        return Message(token=token, notification=Notification(title="Hello", body="From async-firebase"), data={"k": "v"})

    r = await client.send(message(TOKEN))
    report.check("success", r.success and r.message_id.startswith(f"projects/{a.project_id}/messages/0:"), repr(r))
    r = await client.send(message(TOKEN), dry_run=True)
    report.check("dry_run", r.success and r.message_id == f"projects/{a.project_id}/messages/fake_message_id", repr(r))
    for name, token, error_type in [("unregistered", MAGIC_UNREGISTERED, UnregisteredError),
                                    ("invalidArgument", MAGIC_INVALID, InvalidArgumentError),
                                    ("senderIdMismatch", MAGIC_SENDER_MISMATCH, SenderIdMismatchError)]:
        r = await client.send(message(token))
        report.check(name, not r.success and isinstance(r.exception, error_type),
                     f"{type(r.exception).__module__}.{type(r.exception).__name__}: {r.exception}")
    batch = await client.send_each([message(TOKEN), message(MAGIC_UNREGISTERED)])
    report.check("send_each", batch.success_count == 1 and isinstance(batch.responses[1].exception, UnregisteredError),
                 f"{batch.success_count} ok")
    await client.close()


def main():
    a = parse_args()
    report = Report("async-firebase")
    asyncio.run(run(a, report))
    report.finish()


if __name__ == "__main__":
    main()
