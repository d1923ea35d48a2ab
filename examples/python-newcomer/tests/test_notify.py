"""The sender under test against PushDouble: one server for the session, reset before each
test; the sender environment applied to os.environ for each test and restored after."""

import os

import pytest

import notify  # pytest.ini: pythonpath = .

DEAD_EXPO = "ExponentPushToken[00000000DNRTnewcomer]"  # magic: ticket DeviceNotRegistered
LIVE_EXPO = "ExponentPushToken[newcomer-phone]"        # any other well-formed token is active
DEAD_FCM = "pushdouble-fcm-404-newcomer"               # magic: 404 UNREGISTERED
# What the process had before any fixture applied the sender environment.
BEFORE = {k: os.environ.get(k) for k in ("FCM_URL", "HTTPS_PROXY", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE")}


def test_expo_dead_tokens_are_reported(pushdouble_environ, pushdouble):
    assert notify.send_expo([DEAD_EXPO, LIVE_EXPO], "Hello", "there") == [DEAD_EXPO]
    sends = pushdouble.admin.history(provider="expo", endpoint="expo.send")
    assert len(sends) == 1
    assert sends[0].expo.tokens == [DEAD_EXPO, LIVE_EXPO]
    assert sends[0].expo.errors == {DEAD_EXPO: "DeviceNotRegistered"}


def test_fcm_send_is_retried_after_unavailable(pushdouble_environ, pushdouble):
    admin = pushdouble.admin
    admin.fail_next("fcm", count=1, reason="UNAVAILABLE")  # the next fcm.send; the token mint is not touched
    name = notify.send_fcm("newcomer-tablet", "Hello", "again")
    assert name.startswith("projects/pushdouble-test/messages/")
    assert [x.status for x in admin.history(endpoint="fcm.send")] == [503, 200]
    assert admin.unfired_faults() == []


def test_fcm_dead_token(pushdouble_environ, pushdouble):
    assert notify.send_fcm(DEAD_FCM, "Hello", "there") is None
    assert pushdouble.admin.last(endpoint="fcm.send").fcm.error_code == "UNREGISTERED"


def test_a_typo_is_refused_before_anything_is_sent(pushdouble):
    with pytest.raises(ValueError, match="expected one of apns, expo, fcm, webpush"):
        pushdouble.admin.fail_next("android")
    with pytest.raises(ValueError, match=r"expected one of .*fcm\.send.*oauth\.token"):
        pushdouble.admin.fail_next("fcm", endpoint="messages:send")


def test_the_environment_is_restored_after_each_test():
    assert {k: os.environ.get(k) for k in BEFORE} == BEFORE
