"""firebase-admin's topic management, UNMODIFIED, against the PushDouble FCM fake through its
CONNECT proxy (docs/fcm.md "Topic subscriptions"), then topic and condition sends.

firebase-admin 7.7 calls two APIs: `subscribe_to_topic` / `unsubscribe_from_topic` use FCM's
topicSubscriptions resource on https://fcm.googleapis.com (one request per token), and
`subscribe_to_topic_legacy` / `unsubscribe_from_topic_legacy` the Instance ID API's batch calls
on https://iid.googleapis.com with `access_token_auth: true`. Both hosts, and the token endpoint,
are reached through HTTPS_PROXY; nothing is patched. A raw `requests` call with a valid access
token but without `access_token_auth` shows the Instance ID API's 401.

Run by Tests/PushDoubleFCMTests/FCMTopicInteropTests.swift (which checks the history: the
topic send's recipients are exactly the subscribed tokens). Prints one JSON line; exit 1 if a
check failed, 2 if firebase-admin is not installed.
"""
import warnings

from fcm_matrix_common import MAGIC_UNREGISTERED, Report, parse_args, require

firebase_admin = require("firebase-admin", "firebase_admin")
import requests  # noqa: E402
from firebase_admin import credentials, messaging  # noqa: E402

T1 = "fcm-topics-one:APA91bTopicsOne"
T2 = "fcm-topics-two:APA91bTopicsTwo"
T3 = "fcm-topics-three:APA91bTopicsThree"


def errors(response):
    return [(e.index, e.reason) for e in response.errors]


def main():
    a = parse_args()  # REQUESTS_CA_BUNDLE / SSL_CERT_FILE = the test CA
    report = Report("firebase-admin")
    app = firebase_admin.initialize_app(credentials.Certificate(a.service_account), name="pushdouble-topics")
    warnings.simplefilter("ignore", DeprecationWarning)  # the *_legacy calls warn that they are deprecated

    r = messaging.subscribe_to_topic([T1, T2, MAGIC_UNREGISTERED], "news", app=app)
    report.check("subscribe", (r.success_count, r.failure_count, errors(r)) == (2, 1, [(2, "NOT_FOUND")]),
                 f"{r.success_count} ok, {r.failure_count} failed: {errors(r)}")
    r = messaging.subscribe_to_topic_legacy([T3, MAGIC_UNREGISTERED], "/topics/sports", app=app)
    report.check("subscribe_legacy", (r.success_count, errors(r)) == (1, [(1, "NOT_FOUND")]), f"{r.success_count} ok: {errors(r)}")
    r = messaging.unsubscribe_from_topic([T2], "news", app=app)
    report.check("unsubscribe", (r.success_count, r.failure_count) == (1, 0), f"{r.success_count} ok: {errors(r)}")
    r = messaging.unsubscribe_from_topic_legacy([T2], "sports", app=app)
    report.check("unsubscribe_legacy_not_subscribed", (r.success_count, r.failure_count) == (1, 0), f"{r.success_count} ok: {errors(r)}")

    # The Instance ID API requires `access_token_auth: true` next to the bearer token.
    token = app.credential.get_access_token().access_token
    url = "https://iid.googleapis.com/iid/v1:batchAdd"
    body = {"to": "/topics/news", "registration_tokens": [T3]}
    refused = requests.post(url, json=body, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    report.check("iid_401_without_access_token_auth", refused.status_code == 401 and "<H1>Unauthorized</H1>" in refused.text,
                 f"{refused.status_code} {refused.text[:120]!r}")
    keyed = requests.post(url, json=body, headers={"Authorization": "key=AAAA-legacy-server-key", "access_token_auth": "true"}, timeout=30)
    report.check("iid_401_server_key", keyed.status_code == 401, f"{keyed.status_code}")

    name = messaging.send(messaging.Message(topic="news", notification=messaging.Notification(title="News")), app=app)
    report.check("topic_send", name.startswith(f"projects/{a.project_id}/messages/"), name)
    name = messaging.send(messaging.Message(condition="'news' in topics || 'sports' in topics", data={"k": "v"}), app=app)
    report.check("condition_send", name.startswith(f"projects/{a.project_id}/messages/"), name)
    report.finish()


if __name__ == "__main__":
    main()
