"""The example sender's integration tests, written as a user of the pushdouble fixture would."""

import json

import pytest

from pushsender import DeviceStore, FcmClient, Notifier
from pushsender.service import Device


@pytest.fixture
def sender_env(pushdouble_env, monkeypatch):
    """Point the unmodified sender at the double: it reads FCM_URL, FCM_SERVICE_ACCOUNT_FILE,
    FCM_PROJECT_ID and trusts SSL_CERT_FILE, all from pushdouble's environment."""
    for name, value in pushdouble_env.items():
        monkeypatch.setenv(name, value)
    return pushdouble_env


@pytest.fixture
def store():
    return DeviceStore()


@pytest.fixture
def notifier(sender_env, store):
    return Notifier(store, fcm=FcmClient())


def test_a_dead_token_deactivates_the_device(pushdouble, notifier, store):
    pushdouble.admin.register_device("phone", "fcm", "token-of-an-uninstalled-app", state="unregistered")
    store.add(Device("phone", "fcm", token="token-of-an-uninstalled-app"))

    assert notifier.notify("phone", "Your order", "has shipped") == "dead"
    assert not store.get("phone").active

    # never used again: a second notification makes no request
    assert notifier.notify("phone", "Your order", "is delivered") == "skipped"
    sends = pushdouble.admin.history(endpoint="fcm.send", device="phone")
    assert len(sends) == 1
    assert sends[0].status == 404 and sends[0].fcm.error_code == "UNREGISTERED"


def test_429_with_retry_after_is_retried_after_the_wait(pushdouble, notifier, store):
    store.add(Device("tablet", "fcm", token="tablet-token"))
    pushdouble.admin.fail_next("fcm", count=1, status=429, retry_after=1, endpoint="fcm.send")

    assert notifier.notify("tablet", "Hello", "again", data={"order": 42}) == "sent"

    first, second = pushdouble.admin.history(endpoint="fcm.send", token="tablet-token")
    assert (first.status, first.retry_after) == (429, "1")
    assert second.status == 200
    waited = (second.received_at - first.received_at).total_seconds()
    assert waited >= 0.99, "retried after %.3f s, before the Retry-After of 1 s" % waited
    assert second.fcm.title == "Hello" and second.fcm.data == {"order": "42"}
    # one access token for both attempts
    assert len(pushdouble.admin.history(endpoint="oauth.token")) == 1


def test_a_web_push_message_decrypts_to_what_was_sent(pushdouble, sender_env, store):
    pytest.importorskip("cryptography", reason="Web Push encryption needs the cryptography package")
    from pushsender.webpush import WebPushClient

    subscription = pushdouble.admin.create_subscription(id="laptop-browser")  # what the browser hands the app
    store.add(Device("laptop", "webpush", subscription=subscription))
    notifier = Notifier(store, webpush=WebPushClient())

    assert notifier.notify("laptop", "Build finished", "all green") == "sent"

    message = pushdouble.admin.last(provider="webpush").webpush
    assert message.error is None, message.error  # the double's browser could decrypt it
    assert message.json == {"title": "Build finished", "body": "all green", "data": {}}
    assert message.encoding == "aes128gcm"
    assert json.loads(pushdouble.admin.received_texts("laptop-browser")[-1])["title"] == "Build finished"


def test_an_unsubscribed_browser_deactivates_the_device(pushdouble, sender_env, store):
    pytest.importorskip("cryptography", reason="Web Push encryption needs the cryptography package")
    from pushsender.webpush import WebPushClient

    subscription = pushdouble.admin.create_subscription(id="old-browser")
    pushdouble.admin.kill_device("old-browser")  # the user revoked the permission
    store.add(Device("old", "webpush", subscription=subscription))

    assert Notifier(store, webpush=WebPushClient()).notify("old", "t", "b") == "dead"
    assert not store.get("old").active
    assert pushdouble.admin.last(provider="webpush").status == 410
