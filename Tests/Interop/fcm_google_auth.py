"""google-auth (Google's Python auth library) against the PushDouble token endpoint and FCM fake.

No patch: `service_account.Credentials.from_service_account_file` reads token_uri from the
key file (docs/fcm.md §6.4), which `pushdouble serve` points at the fake. Checks the token
refresh (an opaque `ya29.` token with an expiry about an hour ahead), an AuthorizedSession
send with it, the 404 UNREGISTERED / 400 INVALID_ARGUMENT bodies as the library hands them
over, a token minted for a non-FCM scope refused at the send with 403 PERMISSION_DENIED
(docs/fcm.md §6.3a), and the refusal of an assertion signed with another key (`--wrong-key-account`) as
google.auth.exceptions.RefreshError carrying Google's `invalid_grant` / `Invalid JWT
Signature.` (docs/fcm.md §6.3).
"""
import datetime

from fcm_matrix_common import MAGIC_INVALID, MAGIC_UNREGISTERED, TOKEN, Report, parse_args, require

google_auth = require("google-auth", "google.auth")
import google.auth.exceptions  # noqa: E402
import google.auth.transport.requests  # noqa: E402
from google.oauth2 import service_account  # noqa: E402

SCOPE = "https://www.googleapis.com/auth/firebase.messaging"


def main():
    a = parse_args()
    report = Report("google-auth")
    creds = service_account.Credentials.from_service_account_file(a.service_account, scopes=[SCOPE])
    creds.refresh(google.auth.transport.requests.Request())
    lifetime = (creds.expiry - datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)).total_seconds()
    report.check("refresh", creds.valid and creds.token.startswith("ya29.") and 3000 < lifetime <= 3600,
                 f"token {creds.token[:10]}…, expires in {int(lifetime)} s")

    session = google.auth.transport.requests.AuthorizedSession(creds)
    url = f"{a.fcm_url.rstrip('/')}/v1/projects/{a.project_id}/messages:send"

    def send(token):
        return session.post(url, json={"message": {"token": token, "notification": {"title": "t", "body": "b"}}})

    r = send(TOKEN)
    report.check("success", r.status_code == 200 and r.json()["name"].startswith(f"projects/{a.project_id}/messages/"), r.text)
    r = send(MAGIC_UNREGISTERED)
    err = r.json().get("error", {})
    report.check("unregistered", r.status_code == 404 and err.get("status") == "NOT_FOUND"
                 and err.get("details", [{}])[0].get("errorCode") == "UNREGISTERED", r.text)
    r = send(MAGIC_INVALID)
    err = r.json().get("error", {})
    report.check("invalidArgument", r.status_code == 400 and err.get("status") == "INVALID_ARGUMENT", r.text)

    # docs/fcm.md §6.3a: a token for a scope that does not allow FCM is minted; the send is
    # refused with 403 PERMISSION_DENIED "Request had insufficient authentication scopes.".
    narrow = service_account.Credentials.from_service_account_file(
        a.service_account, scopes=["https://www.googleapis.com/auth/userinfo.email"])
    narrow.refresh(google.auth.transport.requests.Request())
    r = google.auth.transport.requests.AuthorizedSession(narrow).post(
        url, json={"message": {"token": TOKEN, "notification": {"title": "t", "body": "b"}}})
    err = r.json().get("error", {})
    report.check("insufficientScope", narrow.valid and r.status_code == 403 and err.get("status") == "PERMISSION_DENIED"
                 and err.get("message") == "Request had insufficient authentication scopes.", r.text)

    if a.wrong_key_account:
        wrong = service_account.Credentials.from_service_account_file(a.wrong_key_account, scopes=[SCOPE])
        e = report.expect_error("wrongKey", lambda: wrong.refresh(google.auth.transport.requests.Request()),
                                google.auth.exceptions.RefreshError)
        if e is not None:
            report.check("wrongKeyBody", "invalid_grant" in str(e) and "Invalid JWT Signature." in str(e), str(e))
    report.finish()


if __name__ == "__main__":
    main()
