#!/usr/bin/env python3
"""Registers one device per provider on a running double and sends each one push.

Run by Tests/PushDoubleBrowserTests/InboxBrowserTests.swift before the browser checks, with the
double's sender environment (see pushes.py); by hand after `eval "$(pushdouble env)"`:

    python3 Tests/Browser/send_pushes.py --manifest /tmp/sent.json

Writes (and prints) the manifest inbox_test.py checks against: per provider the device id,
token, title, body, the status the provider answered and the seqs of its exchanges in the
history, plus the APNs JWT's kid/iss. Exit 1 if a push was not accepted.
"""
import argparse
import json
import sys

import pushes
from autopush_client import AutopushClient

# One device per provider; titles and bodies are distinct per provider (and not ASCII-only)
# so the inbox checks can tell which notification they are looking at.
DEVICES = {
    "apns": {"id": "browser-apns", "token": "b0b0" * 16, "platform": "ios"},
    "fcm": {"id": "browser-fcm", "token": "browser-inbox-fcm-token-1:APA91bBROWSER", "platform": "android"},
    "expo": {"id": "browser-expo", "token": "ExponentPushToken[browserinboxexpo0001]", "platform": "expo"},
    "webpush": {"id": "browser-webpush", "platform": "browser"},
}


SILENT_MARK = "browser-silent-sync-7"
UNDECRYPTABLE = "browser-webpush-undecryptable"


def title(provider):
    return f"Parcel shipped via {provider}"


def body(provider):
    return f"Your order left the warehouse — {provider} ✓"


def register(kit):
    """APNs, FCM and Expo devices through POST /devices; the Web Push one is a subscription."""
    for provider in ("apns", "fcm", "expo"):
        d = DEVICES[provider]
        device = {"id": d["id"], "provider": provider, "token": d["token"]}
        if provider == "apns":
            device.update({"environment": "production", "topic": kit.apns_topic})
        status, answer = pushes.admin_call(kit.admin, "POST", "/devices", device)
        if status != 201:
            raise RuntimeError(f"POST /devices {device}: {status} {answer}")
    return pushes.subscribe_webpush(kit, DEVICES["webpush"]["id"])


def send_all(kit, subscription):
    """One push per provider; returns {provider: {…, status, …}} and the APNs JWT claims used."""
    sent = {}
    status, reason, _ = pushes.send_apns(kit, DEVICES["apns"]["token"], title("apns"), body("apns"))
    sent["apns"] = {"status": status, "reason": reason}
    # A silent push to the same device: its inbox marks it data-silent="true".
    status, reason, _ = pushes.send_apns(kit, DEVICES["apns"]["token"], "", SILENT_MARK, background=True)
    sent["apns"]["silent"] = {"status": status, "reason": reason}
    status, answer = pushes.send_fcm(kit, DEVICES["fcm"]["token"], title("fcm"), body("fcm"))
    sent["fcm"] = {"status": status, "answer": answer}
    status, answer = pushes.send_expo(kit, DEVICES["expo"]["token"], title("expo"), body("expo"))
    ticket = (answer.get("data") or [{}])[0] if isinstance(answer, dict) else {}
    sent["expo"] = {"status": status, "ticket": ticket}
    status, text = pushes.send_webpush(kit, subscription, title("webpush"), body("webpush"))
    sent["webpush"] = {"status": status, "answer": text}
    return sent


def send_undecryptable(kit):
    """A second Web Push subscription whose message is encrypted to a key it does not hold:
    its inbox shows decrypt-error."""
    sid = UNDECRYPTABLE
    sub = pushes.with_foreign_key(pushes.subscribe_webpush(kit, sid))
    status, text = pushes.send_webpush(kit, sub, "never readable", "encrypted to another key")
    return {"id": sid, "status": status, "answer": text}


# Declarative Web Push to an Apple-style subscription (docs/webpush.md "Declarative Web Push"):
# a valid message Safari shows itself, and one without `navigate` it hands to the service worker.
DECLARATIVE = {"id": "browser-webpush-declarative",
               "valid": {"web_push": 8030, "app_badge": 7,
                         "notification": {"title": "Gate changed — B12 ✈", "body": "Boarding at 14:05",
                                          "navigate": "https://example.com/trips/42", "lang": "en-GB"}},
               "malformed": {"web_push": 8030, "notification": {"title": "No link to open", "body": "falls back"}}}


def send_declarative(kit):
    """Both declarative messages to one Apple-style subscription, in that order."""
    sub = pushes.subscribe_webpush(kit, DECLARATIVE["id"], service="apple")
    statuses = [pushes.send_webpush(kit, sub, "", "", text=json.dumps(DECLARATIVE[k], ensure_ascii=False))[0]
                for k in ("valid", "malformed")]
    return dict(DECLARATIVE, statuses=statuses)


# A browser on the autopush listener (what Firefox does, spoken by autopush_client.py): its
# channel is a device of the double, the push to its endpoint is relayed to it and acked.
AUTOPUSH_TEXT = "Relayed to the browser — acked ✓"


def send_autopush(kit):
    """hello, register (VAPID key), a pywebpush push to the endpoint (encrypted to a key this
    client made: the double relays the body, only the browser decrypts), the notification acked
    with code 100, and what a service worker would have read reported (POST /webpush/browsers/read)."""
    import os
    _, endpoints = pushes.admin_call(kit.admin, "GET", "/endpoints")
    url = [e["url"] for e in endpoints if e["name"] == "webpush-autopush"][0]
    client = AutopushClient("ws://" + url.split("://", 1)[1])
    try:
        client.hello()
        channel, endpoint = client.register(os.environ["VAPID_PUBLIC_KEY"])
        sub = pushes.with_foreign_key({"endpoint": endpoint, "keys": {"p256dh": "", "auth": "dGVzdC1hdXRoLXNlY3JldA"}})
        status, text = pushes.send_webpush(kit, sub, "", "", text=AUTOPUSH_TEXT)
        note = client.ack_next(100) if status == 201 else None
    finally:
        client.close()
    read, _ = pushes.admin_call(kit.admin, "POST", "/webpush/browsers/read", {"endpoint": endpoint, "text": AUTOPUSH_TEXT})
    device = "browser-" + channel
    acked = pushes.wait_for(lambda: [x for x in pushes.history(kit.admin) if x.get("deviceID") == device
                                     and ((x.get("annotations") or {}).get("browser") or {}).get("delivery") == "acked"])
    return {"id": device, "channelID": channel, "status": status, "answer": text, "text": AUTOPUSH_TEXT,
            "notified": note is not None, "readStatus": read, "seqs": [x["seq"] for x in acked or []]}


def accepted(provider, s):
    if provider == "expo":
        return s["status"] == 200 and s["ticket"].get("status") == "ok"
    if provider == "apns" and s["silent"]["status"] != 200:
        return False
    return s["status"] == {"apns": 200, "fcm": 200, "webpush": 201}[provider]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--manifest", required=True, help="where to write the JSON manifest")
    a = p.parse_args()
    kit = pushes.Kit()
    subscription = register(kit)
    sent = send_all(kit, subscription)
    undecryptable = send_undecryptable(kit)
    declarative = send_declarative(kit)
    autopush = send_autopush(kit)
    exchanges = pushes.history(kit.admin)
    account = json.load(open(kit.fcm_service_account))["client_email"]
    # What each provider's credential says, as the exchange detail must show it decoded.
    manifest = {"apnsJWT": {"kid": kit.apns_key_id, "iss": kit.apns_team_id},
                "credentials": {"apns": [kit.apns_key_id, kit.apns_team_id], "fcm": [account],
                                "webpush": [kit.vapid_subject]},
                "providers": {},
                "undecryptable": undecryptable, "declarative": declarative, "autopush": autopush}
    failures = [] if undecryptable["status"] == 201 else [f"webpush: undecryptable message not accepted: {undecryptable}"]
    if autopush["status"] != 201 or not autopush["notified"] or autopush["readStatus"] != 204 or not autopush["seqs"]:
        failures.append(f"webpush: the autopush browser's push was not relayed, acked and read: {autopush}")
    if declarative["statuses"] != [201, 201]:
        failures.append(f"webpush: declarative messages not accepted: {declarative['statuses']}")
    for provider, d in DEVICES.items():
        entry = dict(d, title=title(provider), body=body(provider), **sent[provider])
        entry["seqs"] = [x["seq"] for x in exchanges
                         if x.get("provider") == provider and x.get("deviceID") == d["id"]]
        if provider == "apns":  # the alert first, then the silent push
            entry["silentSeq"] = entry["seqs"][-1] if len(entry["seqs"]) == 2 else None
            if entry["silentSeq"] is None:
                failures.append(f"apns: expected 2 exchanges (alert, silent), got seqs {entry['seqs']}")
        if provider == "webpush":
            entry["token"] = subscription["endpoint"]
        if not accepted(provider, sent[provider]):
            failures.append(f"{provider}: not accepted: {sent[provider]}")
        if not entry["seqs"]:
            failures.append(f"{provider}: no exchange of device {d['id']} in the history")
        manifest["providers"][provider] = entry
    with open(a.manifest, "w") as f:
        json.dump(manifest, f, ensure_ascii=False, indent=2)
    print(json.dumps(manifest, ensure_ascii=False))
    for line in failures:
        print("FAIL send " + line)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
