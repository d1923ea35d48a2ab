"""async-expo-push-notifications (a fork of the Python SDK with an httpx AsyncPushClient and
pydantic models) against the Expo fake, over HTTP/2 (httpx with http2=True).

It installs the module name `exponent_server_sdk` too, so Tests/run.sh installs it into its
own directory (.build/interop-python/async-expo), put first on PYTHONPATH by the Swift test.
Configured only with host, CA and access token (an injected httpx.AsyncClient). Checks:
publish → ok ticket; dead token → DeviceNotRegisteredError; publish_multiple of 150 messages
(chunks of 100, sent concurrently) → 150 ok tickets; check_receipts_multiple → 150 ok
receipts; receipt errors DeviceNotRegisteredError / MessageTooBigError /
MessageRateExceededError / InvalidCredentialsError; a `to` list of 101 tokens →
PushServerError PUSH_TOO_MANY_NOTIFICATIONS; a wrong token → PushServerError with the 401 invalid_token body.
"""
import asyncio

from expo_matrix_common import (CREDENTIALS_RECEIPT, DNR_RECEIPT, DNR_TICKET, OK, RATE_RECEIPT, TOO_BIG_RECEIPT, Matrix,
                                bulk_token, expect, expect_raises, parse_args, require)

DISTRIBUTION = "async-expo-push-notifications"
sdk = require(DISTRIBUTION, "exponent_server_sdk")
import httpx  # noqa: E402


def http_client(ca, token):
    headers = {"accept": "application/json", "accept-encoding": "gzip, deflate", "content-type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    return httpx.AsyncClient(verify=ca, http2=True, headers=headers)


async def raises(exception_type, coroutine):
    try:
        await coroutine
    except exception_type as e:
        return e
    raise AssertionError(f"expected {exception_type.__name__}")


async def run(args, m):
    async with sdk.AsyncPushClient(host=args.url, http_client=http_client(args.ca, args.access_token)) as client:
        async def publish_ok():
            t = await client.publish(sdk.PushMessage(to=OK, title="hello", body="async", data={"k": "v"}))
            t.validate_response()
            expect(t.is_success() and t.id, f"ticket {t}")
            return t.id
        await m.check_async("publish_ok", publish_ok)

        async def ticket_dead():
            t = await client.publish(sdk.PushMessage(to=DNR_TICKET, body="x"))
            expect_raises(sdk.DeviceNotRegisteredError, t.validate_response)
            return t.details
        await m.check_async("ticket_device_not_registered", ticket_dead)

        tickets = []

        async def multiple():
            got = await client.publish_multiple([sdk.PushMessage(to=bulk_token(i), body=str(i)) for i in range(150)])
            expect(len(got) == 150 and all(t.is_success() for t in got), f"{len(got)} tickets")
            tickets.extend(got)
            return len(got)
        await m.check_async("publish_multiple_150", multiple)

        async def receipts_multiple():
            got = await client.check_receipts_multiple(tickets)
            expect(len(got) == 150 and all(r.is_success() for r in got), f"{len(got)} receipts")
            return len(got)
        await m.check_async("check_receipts_multiple", receipts_multiple)

        async def receipt_errors():
            sent = await client.publish_multiple([sdk.PushMessage(to=t, body="r") for t in
                                                  [DNR_RECEIPT, TOO_BIG_RECEIPT, RATE_RECEIPT, CREDENTIALS_RECEIPT]])
            got = {r.id: r for r in await client.check_receipts(sent)}
            kinds = {}
            for t, error in zip(sent, [sdk.DeviceNotRegisteredError, sdk.MessageTooBigError, sdk.MessageRateExceededError,
                                       sdk.InvalidCredentialsError]):
                expect_raises(error, got[t.id].validate_response)
                kinds[t.push_message.to] = error.__name__
            return kinds
        await m.check_async("check_receipts", receipt_errors)

        async def too_many():
            e = await raises(sdk.PushServerError, client.publish_multiple([sdk.PushMessage(to=[bulk_token(i) for i in range(101)], body="x")]))
            expect(e.errors and e.errors[0]["code"] == "PUSH_TOO_MANY_NOTIFICATIONS", f"errors {e.errors}")
            return e.errors[0]["message"]
        await m.check_async("too_many_notifications", too_many)

    if args.access_token:
        async def unauthorized():
            async with sdk.AsyncPushClient(host=args.url, http_client=http_client(args.ca, "not-the-token")) as bad:
                # docs/expo.md §3.2a: the OAuth-style invalid_token body, no `errors` member.
                e = await raises(sdk.PushServerError, bad.publish(sdk.PushMessage(to=OK, body="x")))
                body = e.response.json()
                expect(body == {"error": "invalid_token", "error_description": "The bearer token is invalid"}, f"body {body}")
                return e.response.status_code
        await m.check_async("unauthorized", unauthorized)


def main():
    args = parse_args()
    m = Matrix(DISTRIBUTION)
    asyncio.run(run(args, m))
    m.finish()


if __name__ == "__main__":
    main()
