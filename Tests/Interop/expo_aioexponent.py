"""aioexponent (an aiohttp Expo client) against the Expo fake.

The library has no way to add headers, so it cannot send an access token: with enhanced push
security on it must get PushServerError UNAUTHORIZED (--secure-url); against a fake with the
access token off (--url) it sends. It has no receipts API and its `publish` is broken (it
indexes a coroutine), so publish_multiple is used. The CA comes from SSL_CERT_FILE (Python's
default SSL context, which aiohttp uses). Checks: ok tickets; DeviceNotRegisteredError from a
dead token's ticket; 100 messages in one request; PushServerError for UNAUTHORIZED.
"""
import asyncio
import os

from expo_matrix_common import DNR_TICKET, OK, Matrix, bulk_token, expect, expect_raises, parse_args, require

DISTRIBUTION = "aioexponent"
sdk = errors = None


async def run(args, m):
    client = sdk.PushClient(host=args.url)

    async def tickets():
        got = await client.publish_multiple([sdk.PushMessage(to=OK, title="hello", body="aio"),
                                             sdk.PushMessage(to=DNR_TICKET, body="dead")])
        expect(len(got) == 2 and got[0].is_success(), f"tickets {got}")
        got[0].validate_response()
        e = expect_raises(errors.DeviceNotRegisteredError, got[1].validate_response)
        return e.message
    await m.check_async("tickets", tickets)

    async def hundred():
        got = await client.publish_multiple([sdk.PushMessage(to=bulk_token(i), body=str(i)) for i in range(100)])
        expect(len(got) == 100 and all(t.is_success() for t in got), f"{len(got)} tickets")
        return len(got)
    await m.check_async("publish_multiple_100", hundred)

    if args.secure_url:
        async def unauthorized():
            secure = sdk.PushClient(host=args.secure_url)
            try:
                await secure.publish_multiple([sdk.PushMessage(to=OK, body="x")])
            except errors.PushServerError as e:
                expect(e.errors and e.errors[0]["code"] == "UNAUTHORIZED", f"errors {e.errors}")
                return e.errors[0]["code"]
            raise AssertionError("expected PushServerError")
        await m.check_async("unauthorized", unauthorized)


def main():
    global sdk, errors
    args = parse_args(extra=("--secure-url",))
    # aiohttp builds its default SSL context when it is imported: the CA goes in first.
    os.environ["SSL_CERT_FILE"] = args.ca
    sdk = require(DISTRIBUTION, "aioexponent")
    from aioexponent import exceptions
    errors = exceptions
    m = Matrix(DISTRIBUTION)
    asyncio.run(run(args, m))
    m.finish()


if __name__ == "__main__":
    main()
