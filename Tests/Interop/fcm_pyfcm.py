"""pyfcm 2.x (FCM HTTP v1 with a service account) against the PushDouble FCM fake.

pyfcm has no base-URL option: the one patched constant is `pyfcm.baseapi.BaseAPI.FCM_END_POINT_BASE`
(`https://fcm.googleapis.com/v1/projects`), set to the fake's URL. Authentication is pyfcm's
own (google-auth with the key file's token_uri, the fake). Checks success, dry_run, a topic
send, and its own exception types for UNREGISTERED (FCMNotRegisteredError), INVALID_ARGUMENT
(InvalidDataError) and SENDER_ID_MISMATCH (FCMSenderIdMismatchError).
"""
from fcm_matrix_common import MAGIC_INVALID, MAGIC_SENDER_MISMATCH, MAGIC_UNREGISTERED, TOKEN, Report, parse_args, require

pyfcm = require("pyfcm", "pyfcm")
import pyfcm.baseapi  # noqa: E402
from pyfcm.errors import FCMNotRegisteredError, FCMSenderIdMismatchError, InvalidDataError  # noqa: E402


def main():
    a = parse_args()
    report = Report("pyfcm")
    pyfcm.baseapi.BaseAPI.FCM_END_POINT_BASE = a.fcm_url.rstrip("/") + "/v1/projects"
    fcm = pyfcm.FCMNotification(service_account_file=a.service_account, project_id=a.project_id)

    def notify(token, **kw):
        return fcm.notify(fcm_token=token, notification_title="Hello", notification_body="From pyfcm",
                          data_payload={"k": "v"}, **kw)

    r = notify(TOKEN)
    report.check("success", r.get("name", "").startswith(f"projects/{a.project_id}/messages/0:"), r)
    r = notify(TOKEN, dry_run=True)
    report.check("dry_run", r.get("name") == f"projects/{a.project_id}/messages/fake_message_id", r)
    r = fcm.notify(topic_name="news", notification_title="Hello", notification_body="To a topic")
    report.check("topic", r.get("name", "").startswith(f"projects/{a.project_id}/messages/"), r)
    report.expect_error("unregistered", lambda: notify(MAGIC_UNREGISTERED), FCMNotRegisteredError)
    report.expect_error("invalidArgument", lambda: notify(MAGIC_INVALID), InvalidDataError)
    report.expect_error("senderIdMismatch", lambda: notify(MAGIC_SENDER_MISMATCH), FCMSenderIdMismatchError)
    report.finish()


if __name__ == "__main__":
    main()
