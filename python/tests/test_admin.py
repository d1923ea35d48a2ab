"""AdminClient against the real binary: every helper, with real traffic (FCM, Expo, Web Push
over urllib; APNs over HTTP/2 and encrypted Web Push from the reference sender)."""

import datetime
import json
import threading
import time
import urllib.error

import pytest

import support
from pushdouble import AdminClient, AdminError, PushDoubleServer

APNS_TOKEN = "ab" * 32


@pytest.fixture(scope="module")
def ref(server, reference_sender_bin):
    p = support.reference_sender(reference_sender_bin, server.environment)
    yield p
    p.close()


@pytest.fixture(scope="module")
def fcm_token(server):
    return support.fcm_access_token(server.environment)


# -- devices -------------------------------------------------------------------------------------

def test_devices_register_list_change_remove(clean):
    admin = clean.admin
    d = admin.register_device("d1", "apns", APNS_TOKEN, environment="production",
                              transitions=[{"afterDeliveries": 2, "state": "unregistered"}])
    assert d["id"] == "d1" and d["state"] == "active" and d["transitions"][0]["afterDeliveries"] == 2
    admin.register([{"id": "f1", "provider": "fcm", "token": "tok-f1"},
                    {"id": "e1", "provider": "expo", "token": "ExponentPushToken[e1]", "receipt": "DeviceNotRegistered"}])
    assert [x["id"] for x in admin.devices()] == ["d1", "f1", "e1"]
    assert [x["id"] for x in admin.devices(provider="fcm")] == ["f1"]
    assert admin.device("e1")["receipt"] == "DeviceNotRegistered"

    killed = admin.kill_device("f1")
    assert killed["state"] == "unregistered" and "unregisteredAt" in killed
    back = admin.set_device_state("f1", "active")
    assert back["state"] == "active" and "unregisteredAt" not in back and back["token"] == "tok-f1"
    assert admin.set_device_state("d1", "rateLimited")["transitions"]  # the rest is kept

    admin.remove_device("e1")
    assert sorted(x["id"] for x in admin.devices()) == ["d1", "f1"]  # (a replaced device moves to the end)
    admin.clear_devices(provider="apns")
    assert [x["id"] for x in admin.devices()] == ["f1"]
    admin.clear_devices()
    assert admin.devices() == []


def test_status_routes(clean):
    admin = clean.admin
    assert {e["name"]: e["url"] for e in admin.endpoints()} == {e["name"]: e["url"] for e in clean.endpoints}
    assert sorted(p["provider"] for p in admin.providers()) == ["apns", "expo", "fcm", "webpush"]
    assert admin.health()["providers"] == ["apns", "expo", "fcm", "webpush"]


def test_respond_fires_until_removed(clean):
    admin, env = clean.admin, clean.environment
    rule = admin.respond("expo", reason="TOO_MANY_REQUESTS")
    assert "times" not in rule["rule"]
    assert [support.expo_send(env, {"to": "ExponentPushToken[r%d]" % i, "title": "t"})[0] for i in range(3)] == [429] * 3
    admin.remove_fault(rule["rule"]["id"])
    assert support.expo_send(env, {"to": "ExponentPushToken[r9]", "title": "t"})[0] == 200


def test_admin_errors_carry_status_and_body(clean):
    admin = clean.admin
    with pytest.raises(AdminError) as e:
        admin.device("nope")
    assert e.value.status == 404 and e.value.error == 'no device with id "nope"'
    assert json.loads(e.value.body) == {"error": 'no device with id "nope"'}
    admin.register_device("d1", "fcm", "t1")
    with pytest.raises(AdminError) as e:
        admin.register_device("d1", "fcm", "t2")
    assert e.value.status == 409
    with pytest.raises(AdminError) as e:
        admin.add_fault({"id": "x", "action": {"type": "respond", "status": "429"}})
    assert e.value.status == 400 and "action.status" in e.value.error
    with pytest.raises(ValueError):
        admin.register_device("d2", "fcm", "t", state="gone")
    with pytest.raises(AdminError) as e:
        AdminClient("http://127.0.0.1:9", timeout=2).health()
    assert e.value.status == 0


# -- faults ------------------------------------------------------------------------------------

def test_fail_next_maps_to_the_fault_schema_and_fires(clean, fcm_token):
    admin, env = clean.admin, clean.environment
    rule = admin.fail_next("fcm", count=2, status=429, retry_after=1, endpoint="fcm.send")
    assert rule["rule"]["match"] == {"provider": "fcm", "endpoint": "fcm.send"}
    assert rule["rule"]["action"] == {"type": "respond", "status": 429, "retryAfter": 1}
    assert rule["rule"]["times"] == 2
    statuses = [support.fcm_send(env, "tok-a", access_token=fcm_token)[0] for _ in range(3)]
    assert statuses == [429, 429, 200]
    assert admin.fault(rule["rule"]["id"])["fired"] == 2
    sends = admin.history(provider="fcm", endpoint="fcm.send")
    assert [x.status for x in sends] == [429, 429, 200]
    assert [x.retry_after for x in sends] == ["1", "1", None]
    assert [x.decided_by for x in sends] == ["fault", "fault", "accepted"]


def test_fail_next_with_a_provider_reason_for_one_device(clean, fcm_token):
    admin, env = clean.admin, clean.environment
    admin.register_device("phone", "fcm", "tok-phone")
    admin.fail_next("fcm", reason="UNAVAILABLE", retry_after={"dateIn": 2}, device="phone", id="unavailable-once")
    assert support.fcm_send(env, "tok-other", access_token=fcm_token)[0] == 200  # not that device
    status, headers, body = support.fcm_send(env, "tok-phone", access_token=fcm_token)
    assert status == 503 and "GMT" in headers["retry-after"]
    x = admin.last(device="phone")
    assert x.fcm.error_code == "UNAVAILABLE" and x.reason == "UNAVAILABLE"
    assert x.device_id == "phone"
    assert support.fcm_send(env, "tok-phone", access_token=fcm_token)[0] == 200  # count=1 by default
    assert [f["rule"]["id"] for f in admin.faults()] == ["unavailable-once"]
    admin.remove_fault("unavailable-once")
    assert admin.faults() == []


def test_delay_drop_quota_and_clear(clean):
    admin, env = clean.admin, clean.environment
    admin.delay("expo", 0.4, count=1)
    t = time.monotonic()
    assert support.expo_send(env, {"to": "ExponentPushToken[slow]", "title": "t"})[0] == 200
    assert time.monotonic() - t >= 0.35

    admin.drop_connection("expo", count=1)
    with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
        support.expo_send(env, {"to": "ExponentPushToken[dropped]", "title": "t"})
    assert admin.last(token="ExponentPushToken[dropped]").action == "drop"

    admin.quota("expo", limit=1, seconds=60)
    assert support.expo_send(env, {"to": "ExponentPushToken[q1]", "title": "t"})[0] == 200
    status, headers, _ = support.expo_send(env, {"to": "ExponentPushToken[q2]", "title": "t"})
    assert status == 429 and int(headers["retry-after"]) > 0
    assert admin.last(token="ExponentPushToken[q2]").decided_by == "quota"

    admin.stall("fcm", count=1, token="never-used")
    admin.goaway("apns", count=1, token="never-used", error_code="NO_ERROR", debug_json={"reason": "Shutdown"})
    admin.reset_stream("apns", count=1, token="never-used", error_code="INTERNAL_ERROR")
    admin.token_bucket("webpush", rate=1, burst=2, per="token")
    kinds = [f["rule"]["action"]["type"] for f in admin.faults()]
    assert kinds == ["delay", "drop", "quota", "stall", "goaway", "reset", "quota"]
    admin.clear_faults(provider="apns")
    assert len(admin.faults()) == 5
    admin.clear_faults()
    assert admin.faults() == []


# -- history -------------------------------------------------------------------------------------

def test_history_filters_paging_and_wait_for(clean, fcm_token):
    admin, env = clean.admin, clean.environment
    admin.register_device("phone", "fcm", "tok-1")
    start = admin.history_page()["nextSeq"]
    for tok in ["tok-1", "tok-2", "pushdouble-fcm-404-gone", "tok-1"]:
        support.fcm_send(env, tok, access_token=fcm_token)
    assert len(admin.history(provider="fcm")) == 4
    assert [x.token for x in admin.history(token="tok-2")] == ["tok-2"]
    assert len(admin.history(device="phone")) == 2
    assert [x.token for x in admin.history(status=404)] == ["pushdouble-fcm-404-gone"]
    assert len(admin.history(provider="apns")) == 0
    assert [x.seq for x in admin.history(after=start + 1)] == [start + 2, start + 3]
    assert len(admin.history(limit=1)) == 1 and admin.history(limit=1)[0].seq == start + 3
    page = admin.history_page(limit=2, provider="fcm")
    assert page["count"] == 2 and page["nextCursor"] == start + 1
    first = admin.history()[0]
    # receivedAt is shown to the millisecond (rounded): a datetime a millisecond earlier includes it
    assert admin.history(since=first.received_at - datetime.timedelta(milliseconds=1))[0].seq == first.seq
    assert admin.history(until="1970-01-02T00:00:00Z") == []

    # wait_for: something that arrives later
    t = threading.Timer(0.3, lambda: support.fcm_send(env, "tok-late", access_token=fcm_token))
    t.start()
    got = admin.wait_for(1, timeout=10, token="tok-late")
    t.join()
    assert got[0].status == 200
    with pytest.raises(TimeoutError) as e:
        admin.wait_for(2, timeout=0.3, token="tok-late")
    assert "got 1" in str(e.value) and "tok-late" in str(e.value)
    admin.clear_history(provider="fcm")
    assert admin.history() == []


def test_exchange_common_shortcuts(clean, fcm_token):
    support.fcm_send(clean.environment, "pushdouble-fcm-404-x", access_token=fcm_token)
    x = clean.admin.last()
    assert x.provider == "fcm" and x.endpoint == "fcm.send" and x.method == "POST"
    assert x.path.endswith("/messages:send") and x.request_headers["authorization"].startswith("Bearer ")
    assert x.status == 404 and not x.accepted and x.reason == "UNREGISTERED"
    assert x.response_json["error"]["status"] == "NOT_FOUND"
    assert x.request_json["message"]["token"] == "pushdouble-fcm-404-x"
    assert x.received_at.tzinfo is not None
    assert x["seq"] == x.seq  # still the admin API's dict
    assert "fcm fcm.send POST" in x.summary() and "-> 404 UNREGISTERED" in x.summary()


# -- provider views ------------------------------------------------------------------------------

def test_apns_view(clean, ref):
    admin = clean.admin
    admin.register_device("iphone", "apns", APNS_TOKEN, environment="production")
    admin.register_device("gone", "apns", "cd" * 32, environment="production", state="unregistered")
    r = ref.result("send", {"notification": {"title": "Hello", "body": "World", "data": {"k": "v"}, "badge": 3,
                                             "collapseKey": "c1", "priority": "normal"},
                            "devices": [{"id": "iphone", "provider": "apns", "token": APNS_TOKEN, "environment": "production"},
                                        {"id": "gone", "provider": "apns", "token": "cd" * 32, "environment": "production"}]})
    assert [x["outcome"] for x in r["results"]] == ["sent", "dead"]
    got = admin.wait_for(2, provider="apns")
    ok, dead = (next(x for x in got if x.device_id == i) for i in ("iphone", "gone"))
    a = ok.apns
    assert (a.title, a.body, a.custom, a.aps["badge"]) == ("Hello", "World", {"k": "v"}, 3)
    assert a.push_type == "alert" and a.priority == 5 and a.collapse_id == "c1"
    assert a.topic == "com.example.pushdouble" and a.environment == "production"
    assert a.apns_id == r["results"][0]["providerMessageId"]
    assert a.headers["apns-priority"] == "5"
    assert ok.auth["keyID"] == "PDTESTKEY1" and ok.fcm is None
    assert dead.status == 410 and dead.reason == "Unregistered" and dead.device_id == "gone"


def test_fcm_view(clean, fcm_token):
    support.fcm_send(clean.environment, "tok-v", notification={"title": "T", "body": "B"}, data={"a": "1"},
                     access_token=fcm_token)
    f = clean.admin.last(endpoint="fcm.send").fcm
    assert (f.token, f.title, f.body, f.data, f.project) == ("tok-v", "T", "B", {"a": "1"}, "pushdouble-test")
    assert f.account.endswith(".iam.gserviceaccount.com") and f.is_send and not f.validate_only
    assert f.error_code is None


def test_expo_view_with_tickets_and_receipts(clean):
    env, admin = clean.environment, clean.admin
    status, _, body = support.expo_send(env, [{"to": ["ExponentPushToken[ok1]", "ExponentPushToken[00000000DNRTx]"],
                                               "title": "Hi", "body": "b"}])
    assert status == 200
    ticket_id = json.loads(body)["data"][0]["id"]
    x = admin.last(provider="expo")
    e = x.expo
    assert e.messages == [{"to": ["ExponentPushToken[ok1]", "ExponentPushToken[00000000DNRTx]"], "title": "Hi", "body": "b"}]
    assert e.tokens == ["ExponentPushToken[ok1]", "ExponentPushToken[00000000DNRTx]"]
    assert [t["status"] for t in e.tickets] == ["ok", "error"]
    assert e.errors == {"ExponentPushToken[00000000DNRTx]": "DeviceNotRegistered"}
    support.https(env["EXPO_URL"] + "/--/api/v2/push/getReceipts", env["PUSHDOUBLE_CA_FILE"], body={"ids": [ticket_id]},
                  headers={"authorization": "Bearer " + env["EXPO_ACCESS_TOKEN"]})
    receipts = admin.history(provider="expo", endpoint="expo.send")[-1].expo.receipts
    assert receipts[ticket_id]["receipt"] == {"status": "ok"}


def test_expo_held_receipts_released(pushdouble_bin):
    with PushDoubleServer(binary=pushdouble_bin, options={"expo": {"holdReceipts": True}}) as pd:
        env = pd.environment
        ticket = json.loads(support.expo_send(env, {"to": "ExponentPushToken[held]", "title": "t"})[2])["data"]["id"]  # one message in, one ticket out

        def receipts():
            body = support.https(env["EXPO_URL"] + "/--/api/v2/push/getReceipts", env["PUSHDOUBLE_CA_FILE"],
                                 body={"ids": [ticket]}, headers={"authorization": "Bearer " + env["EXPO_ACCESS_TOKEN"]})[2]
            return json.loads(body)["data"]

        assert receipts() == {}
        pd.admin.release_expo_receipts([ticket])
        assert receipts() == {ticket: {"status": "ok"}}


def test_webpush_view_decrypted_text(clean, ref):
    admin = clean.admin
    sub = admin.create_subscription(id="browser-1", service="fcm")
    assert sub["endpoint"].startswith(clean.environment["WEBPUSH_URL"] + "/fcm/send/")
    assert admin.subscription("browser-1")["keys"] == sub["keys"]
    assert [s["id"] for s in admin.subscriptions()] == ["browser-1"]
    r = ref.result("send", {"notification": {"title": "Hello", "body": "Web"},
                            "devices": [{"id": "browser-1", "provider": "webpush",
                                         "subscription": {"endpoint": sub["endpoint"], "keys": sub["keys"]}}]})
    assert r["results"][0]["outcome"] == "sent"
    w = admin.wait_for(1, provider="webpush")[0].webpush
    assert w.json == {"title": "Hello", "body": "Web"}
    assert w.text == json.dumps({"title": "Hello", "body": "Web"}, separators=(",", ":"))
    assert w.data == w.text.encode() and w.error is None
    assert w.encoding == "aes128gcm" and w.service == "fcm" and w.urgency == "normal" and w.ttl > 0
    assert w.vapid["scheme"].startswith("vapid")
    assert admin.received_texts("browser-1") == [w.text]
    # no payload: accepted, nothing to decrypt
    assert support.https(sub["endpoint"], clean.ca_file, body=b"", headers={"TTL": "30"})[0] == 201
    empty = admin.last(provider="webpush").webpush
    assert empty.text is None and empty.payload is None and empty.ttl == 30
    assert len(admin.subscription_messages("browser-1")) == 2


# -- world, reset, scenarios, FCM tokens ---------------------------------------------------------

def test_world_modes(clean, fcm_token):
    admin, env = clean.admin, clean.environment
    assert admin.set_world("fcm", "closed")["world"] == "closed"
    assert support.fcm_send(env, "unknown-token", access_token=fcm_token)[0] == 404
    admin.clear_devices(provider="fcm")  # restores the default world
    assert {p["provider"]: p["world"] for p in admin.providers()}["fcm"] == "open"
    assert support.fcm_send(env, "unknown-token", access_token=fcm_token)[0] == 200


def test_reset_one_provider_or_all(clean, fcm_token):
    admin, env = clean.admin, clean.environment
    admin.register_device("f", "fcm", "tok-r")
    admin.register_device("e", "expo", "ExponentPushToken[r]")
    admin.fail_next("fcm", count=5)
    support.fcm_send(env, "tok-r", access_token=fcm_token)
    support.expo_send(env, {"to": "ExponentPushToken[r]", "title": "t"})
    assert admin.reset(provider="fcm") == {"reset": "fcm"}
    assert [d["id"] for d in admin.devices()] == ["e"] and admin.faults() == []
    assert {x.provider for x in admin.history()} == {"expo"}
    admin.reset()
    assert admin.devices() == [] and admin.history() == []


def test_scenarios_load_export_merge(clean, tmp_path):
    admin = clean.admin
    admin.load_scenario({"id": "one", "devices": [{"id": "a", "provider": "fcm", "token": "tok-a"}],
                         "faults": [{"id": "r1", "match": {"provider": "fcm"}, "action": {"type": "respond", "reason": "INTERNAL"}}]})
    path = tmp_path / "two.json"
    path.write_text(json.dumps({"id": "two", "devices": [{"id": "b", "provider": "expo", "token": "ExponentPushToken[b]"}]}))
    admin.load_scenario(path, merge=True)
    assert [d["id"] for d in admin.devices()] == ["a", "b"]
    with pytest.raises(AdminError) as e:
        admin.load_scenario(path, merge=True)  # ids clash
    assert e.value.status == 409 and e.value.error == 'a device with id "b" already exists'
    exported = admin.export_scenario()
    assert [d["id"] for d in exported["devices"]] == ["a", "b"]
    assert [f["id"] for f in exported["faults"]] == ["r1"]
    admin.load_scenario(json.dumps(exported))  # text works too, and replaces
    assert [d["id"] for d in admin.devices()] == ["a", "b"]
    admin.load_scenario(path)  # without merge: replaces everything
    assert [d["id"] for d in admin.devices()] == ["b"] and admin.faults() == []


def test_revoked_fcm_tokens_are_refused(clean):
    env = clean.environment
    token = support.fcm_access_token(env)
    assert support.fcm_send(env, "tok", access_token=token)[0] == 200
    assert clean.admin.revoke_fcm_tokens(token=token) == {"revoked": 1}
    assert support.fcm_send(env, "tok", access_token=token)[0] == 401
    assert [a["clientEmail"] for a in clean.admin.fcm_accounts()] == [
        "pushdouble-test@pushdouble-test.iam.gserviceaccount.com"]
