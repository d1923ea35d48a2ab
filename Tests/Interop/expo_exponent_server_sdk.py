"""exponent-server-sdk (expo-community/expo-server-sdk-python) against the Expo fake.

Configured only with host, CA and access token (a requests.Session carrying the
Authorization header, as the SDK's README shows for enhanced push security). Checks, through
the SDK's own types: publish → ok PushTicket; a dead token → DeviceNotRegisteredError on the
ticket; publish_multiple of 150 messages (the SDK splits at 100) → 150 ok tickets;
check_receipts / check_receipts_multiple → PushReceipts, with DeviceNotRegisteredError,
MessageTooBigError, MessageRateExceededError and InvalidCredentialsError from the receipts;
101 messages in one request (max_message_count=101) → PushServerError PUSH_TOO_MANY_NOTIFICATIONS; a wrong
access token → PushServerError with the 401 and the invalid_token body.
"""
import os

from expo_matrix_common import (CREDENTIALS_RECEIPT, DNR_RECEIPT, DNR_TICKET, OK, RATE_RECEIPT, TOO_BIG_RECEIPT, Matrix,
                                bulk_token, expect, expect_raises, parse_args, require)

DISTRIBUTION = "exponent_server_sdk"
sdk = require(DISTRIBUTION, "exponent_server_sdk")
import requests  # noqa: E402


def session(ca, token):
    s = requests.Session()
    s.headers.update({"accept": "application/json", "accept-encoding": "gzip, deflate", "content-type": "application/json"})
    if token:
        s.headers["authorization"] = f"Bearer {token}"
    s.verify = ca
    return s


def main():
    args = parse_args()
    # check_receipts posts with requests.post, not the session: the CA comes from the environment.
    os.environ["REQUESTS_CA_BUNDLE"] = args.ca
    client = sdk.PushClient(host=args.url, session=session(args.ca, args.access_token))
    m = Matrix(DISTRIBUTION)

    def publish_ok():
        t = client.publish(sdk.PushMessage(to=OK, title="hello", body="from the matrix", data={"k": "v"}, sound="default"))
        t.validate_response()
        expect(t.is_success() and t.id, f"ticket {t}")
        return t.id
    m.check("publish_ok", publish_ok)

    def ticket_dead():
        t = client.publish(sdk.PushMessage(to=DNR_TICKET, body="x"))
        e = expect_raises(sdk.DeviceNotRegisteredError, t.validate_response)
        expect(t.details == {"error": "DeviceNotRegistered", "expoPushToken": DNR_TICKET}, f"details {t.details}")
        return e.message
    m.check("ticket_device_not_registered", ticket_dead)

    tickets = m.check("publish_multiple_150", lambda: [
        t for t in client.publish_multiple([sdk.PushMessage(to=bulk_token(i), body=str(i)) for i in range(150)])])
    if tickets:
        expect(len(tickets) == 150 and all(t.is_success() for t in tickets), "150 ok tickets")
        m.results["publish_multiple_150"] = len(tickets)

    def receipts():
        sent = client.publish_multiple([sdk.PushMessage(to=t, body="r") for t in
                                        [OK, DNR_RECEIPT, TOO_BIG_RECEIPT, RATE_RECEIPT, CREDENTIALS_RECEIPT]])
        expect(all(t.is_success() for t in sent), f"ok tickets {sent}")
        got = {r.id: r for r in client.check_receipts(sent)}
        expect(set(got) == {t.id for t in sent}, f"one receipt per ticket: {got}")
        by_token = {t.push_message.to: got[t.id] for t in sent}
        by_token[OK].validate_response()
        expect(by_token[OK].is_success(), "ok receipt")
        kinds = {}
        for token, error in [(DNR_RECEIPT, sdk.DeviceNotRegisteredError), (TOO_BIG_RECEIPT, sdk.MessageTooBigError),
                             (RATE_RECEIPT, sdk.MessageRateExceededError), (CREDENTIALS_RECEIPT, sdk.InvalidCredentialsError)]:
            expect_raises(error, by_token[token].validate_response)
            kinds[token] = error.__name__
        return kinds
    m.check("check_receipts", receipts)

    def receipts_multiple():
        got = client.check_receipts_multiple(tickets or [])
        expect(len(got) == 150 and all(r.is_success() for r in got), f"{len(got)} receipts")
        return len(got)
    m.check("check_receipts_multiple", receipts_multiple)

    def unknown_receipt():
        got = client.check_receipts([sdk.PushTicket(push_message=None, status="ok", message="", details=None,
                                                    id="00000000-0000-0000-0000-000000000000")])
        expect(got == [], f"an unknown id is left out: {got}")
        return len(got)
    m.check("unknown_receipt_omitted", unknown_receipt)

    def too_big_message():
        t = client.publish(sdk.PushMessage(to=OK, body="x" * 5000))
        r = client.check_receipts([t])
        expect(len(r) == 1, f"receipts {r}")
        return type(expect_raises(sdk.MessageTooBigError, r[0].validate_response)).__name__
    m.check("message_too_big", too_big_message)

    def too_many():
        # The SDK refuses `to` lists; its chunk size is its own knob (max_message_count).
        big_chunks = sdk.PushClient(host=args.url, session=session(args.ca, args.access_token), max_message_count=101)
        e = expect_raises(sdk.PushServerError, lambda: big_chunks.publish_multiple(
            [sdk.PushMessage(to=bulk_token(i), body="x") for i in range(101)]))
        expect(e.errors and e.errors[0]["code"] == "PUSH_TOO_MANY_NOTIFICATIONS", f"errors {e.errors}")
        expect(e.response.status_code == 400, f"status {e.response.status_code}")
        return e.errors[0]["message"]
    m.check("too_many_notifications", too_many)

    def unauthorized():
        # A wrong bearer token gets Expo's OAuth-style body (docs/expo.md §3.2a), which has no
        # `errors` member: the SDK raises PushServerError("Invalid server response") with the 401.
        bad = sdk.PushClient(host=args.url, session=session(args.ca, "not-the-token"))
        e = expect_raises(sdk.PushServerError, lambda: bad.publish(sdk.PushMessage(to=OK, body="x")))
        body = e.response.json()
        expect(body == {"error": "invalid_token", "error_description": "The bearer token is invalid"}, f"body {body}")
        return e.response.status_code
    if args.access_token:
        m.check("unauthorized", unauthorized)
    m.finish()


if __name__ == "__main__":
    main()
