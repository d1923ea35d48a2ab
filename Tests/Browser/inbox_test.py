#!/usr/bin/env python3
"""The inbox page in headless Chromium (the HTML report: report_test.py).

Driven by Tests/PushDoubleBrowserTests/InboxBrowserTests.swift, which starts a double, sends one
push per provider (send_pushes.py, whose manifest this script checks against), and runs this
script with the double's sender environment. By hand against `pushdouble serve` (after
`eval "$(pushdouble env)"`):

    python3 Tests/Browser/send_pushes.py --manifest /tmp/sent.json
    python3 Tests/Browser/inbox_test.py --admin "$PUSHDOUBLE_ADMIN_URL" --manifest /tmp/sent.json \
        --out /tmp/browser-output --pushdouble .build/debug/pushdouble

Every element is found by its data-testid (the DOM contract in docs/inbox.md). The checks run
in one browser with a 1280×800 viewport, layout-400 at 400×800; each prints `PASS name: …` or
`FAIL name: …` (with a FAIL-<name>.png screenshot and the console log). Screenshots of every
view are written to --out. Exit status 1 if any check failed.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import tempfile
import time
import urllib.parse

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

import browser
import cutter
import pushes
from browser import find, find_all, visible, wait, wait_visible

PROVIDERS = ("apns", "fcm", "expo", "webpush")
FORM_RULE = {"id": "browser-form-rule", "match": {"provider": "fcm", "device": "browser-fcm"},
             "action": {"type": "respond", "status": 503}, "times": 1}
LIVE_RULE_TOKEN = "1ce0" * 16  # an APNs token no other check pushes to
REMOVED_RULE = {"id": "browser-removed-rule", "match": {"provider": "expo"}, "action": {"type": "delay", "seconds": 0}}
BUILDER_FCM_TOKEN = "builder-fcm-token-0001"  # an FCM token no other check sends to (open world)
FORM_APNS = {"id": "browser-form-apns", "token": "f0" * 32}  # created through device-form
FORM_EXPO = {"id": "browser-form-expo", "token": "ExponentPushToken[browserform0001]", "receipt": "DeviceNotRegistered"}
FORM_SUBSCRIPTION = {"id": "browser-form-sub", "service": "apple"}
BUILT_RULE = {"id": "browser-built-rule", "match": {"provider": "fcm", "endpoint": "fcm.send", "token": BUILDER_FCM_TOKEN},
              "action": {"type": "respond", "reason": "UNAVAILABLE", "retryAfter": 7}, "times": 2}


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--admin", required=True, help="the admin URL of the running double (PUSHDOUBLE_ADMIN_URL)")
    p.add_argument("--manifest", required=True, help="what send_pushes.py sent (its --manifest file)")
    p.add_argument("--out", required=True, help="directory for the screenshots")
    p.add_argument("--pushdouble", required=True, help="the built pushdouble executable (for `replay`)")
    p.add_argument("--capped", help="endpoints file (serve --endpoints-file) of a second double with a small "
                                    "history cap, for the dropped-entries banner")
    p.add_argument("--only", help="comma-separated check names to run (for debugging)")
    return p.parse_args()


class InboxSession:
    """The checks against one double's inbox, in one browser window."""

    def __init__(self, args, checks):
        self.args = args
        self.admin = args.admin.rstrip("/")
        self.origin = "{0.scheme}://{0.netloc}".format(urllib.parse.urlsplit(self.admin))
        self.manifest = json.load(open(args.manifest))
        self.sent = self.manifest["providers"]
        self.kit = pushes.Kit()
        self.checks = checks
        self.driver = None
        self.cut_origins = []

    # ------------------------------------------------------------------ helpers
    def open_page(self, path="/"):
        self.driver.get(self.admin + path)
        wait_visible(self.driver, "timeline", 15)
        wait(self.driver, lambda d: find(d, "connection-state").text.strip() == "live", 10,
             'connection-state "live"')
        self.settle()

    def settle(self, quiet=0.6):
        """Waits until the page holds a row per exchange of the history and its timeline and
        device list stop changing for `quiet` seconds (it rereads the devices shortly after
        exchanges arrive): later clicks then meet the elements they found."""
        count = pushes.admin_call(self.admin, "GET", "/history")[1]["count"]
        wait(self.driver, lambda d: len(self.rows()) >= count, 10, f"{count} exchange rows")
        snapshot = ("return ['timeline', 'device-list'].map(t => "
                    "(document.querySelector(`[data-testid=\"${t}\"]`) || {}).innerHTML).join('|')")
        last = [self.driver.execute_script(snapshot), time.monotonic()]

        def quiet_enough(d):
            now = d.execute_script(snapshot)
            if now != last[0]:
                last[:] = [now, time.monotonic()]
            return time.monotonic() - last[1] >= quiet
        wait(self.driver, quiet_enough, 10, "the page to stop re-rendering")

    def rows(self, extra=""):
        return find_all(find(self.driver, "timeline"), "exchange-row", extra)

    def visible_rows(self):
        return visible(self.rows())

    def row(self, seq):
        """The exchange-row of `seq`, or None."""
        found = self.rows(f'[data-seq="{seq}"]')
        return found[0] if found else None

    def wait_rows_only(self, attribute, value, what):
        """Waits until some rows show and every shown row has `attribute` == `value`; returns them."""
        def only(_):
            shown = self.visible_rows()
            return shown if shown and all(r.get_attribute(attribute) == value for r in shown) else None
        return wait(self.driver, only, 5, what)

    def open_detail(self, seq):
        """Clicks the row of `seq`; returns the shown exchange-detail once it is that exchange's
        (its text names `#seq`; the page may keep the previous one up for a moment)."""
        browser.click(self.driver, lambda: self.row(seq), f'exchange-row data-seq="{seq}"')
        def shown(d):
            v = visible(find_all(d, "exchange-detail"))
            return v[0] if v and re.search(rf"#{seq}\b", v[0].text) else None
        return wait(self.driver, shown, 5, f"the detail of exchange #{seq}")

    def close_detail(self):
        if visible(find_all(self.driver, "exchange-detail")):
            self.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
            wait(self.driver, lambda d: not visible(find_all(d, "exchange-detail")), 5, "the detail to close")

    def open_device(self, device_id):
        def item():
            items = find_all(find(self.driver, "device-list"), "device-item", f'[data-device-id="{device_id}"]')
            return items[0] if items else None
        browser.click(self.driver, item, f'device-item data-device-id="{device_id}"')
        return wait_visible(self.driver, "device-inbox", 10)

    def tab_to(self, name, limit):
        """Presses Tab until an element with data-testid `name` has the focus; returns the number
        of presses and the element."""
        for presses in range(1, limit + 1):
            self.driver.switch_to.active_element.send_keys(Keys.TAB)
            active = self.driver.switch_to.active_element
            if active.get_attribute("data-testid") == name:
                return presses, active
        raise AssertionError(f"{limit} Tab presses never focused a {name}")

    def no_horizontal_scroll(self):
        sw, iw = self.driver.execute_script(
            "return [document.documentElement.scrollWidth, window.innerWidth]")
        assert sw <= iw, f"horizontal scroll: document scrollWidth {sw} > innerWidth {iw}"
        return f"scrollWidth {sw} <= innerWidth {iw}"

    def inside_window(self, name):
        """The shown element `name` lies within the window horizontally (nothing cut off at a side)."""
        left, right, inner = self.driver.execute_script(
            "const e = [...document.querySelectorAll(arguments[0])].find(x => x.offsetParent || x.getClientRects().length);"
            "if (!e) return [null, null, window.innerWidth];"
            "const r = e.getBoundingClientRect(); return [r.left, r.right, document.documentElement.clientWidth]",
            browser.testid(name))
        assert left is not None, f"no {name} shown"
        assert left >= -0.5 and right <= inner + 0.5, f"{name} spans x {left:g}..{right:g}, outside the window's 0..{inner}"
        return f"{name} inside x 0..{inner}"

    def rows_readable(self):
        """Every shown row is inside the window and its text at least 11 px."""
        rows = self.driver.execute_script(
            "return [...document.querySelectorAll('[data-testid=\"exchange-row\"]')].filter(e => e.offsetParent)"
            ".map(e => [e.dataset.seq, e.getBoundingClientRect().right, parseFloat(getComputedStyle(e).fontSize)])")
        assert rows, "no row shown"
        inner = self.driver.execute_script("return window.innerWidth")
        outside = [(seq, right) for seq, right, _ in rows if right > inner + 0.5]
        assert not outside, f"rows reaching past the window's {inner} px: {outside}"
        smallest = min(size for _, _, size in rows)
        assert smallest >= 11, f"row text of {smallest} px"
        return f"{len(rows)} rows inside the window, text >= {smallest:g} px"

    def filter_select(self, value):
        browser.choose(find(self.driver, "filter-provider"), value)

    def type_into(self, name, text):
        el = find(self.driver, name)
        el.clear()
        if text:
            el.send_keys(text)
        else:  # clear() fires no input event: type and erase one character
            el.send_keys("x", Keys.BACKSPACE)
        return el

    def all_rows_back(self):
        """Every filter back to its neutral value; waits until every row shows."""
        sel = Select(find(self.driver, "filter-provider"))
        sel.select_by_index(0)
        for name in ("filter-device", "filter-status", "filter-search"):
            el = find(self.driver, name)
            if el.tag_name == "select":
                Select(el).select_by_index(0)
            elif el.get_attribute("value"):
                self.type_into(name, "")
        wait(self.driver, lambda d: len(self.visible_rows()) == len(self.rows()), 5, "the filters to clear")

    # ------------------------------------------------------------------ checks (wide window)
    def check_page(self):
        """GET / as a browser asks for it (Accept: text/html) is the page, fully offline."""
        self.open_page("/")
        title = self.driver.title
        resources = self.driver.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)")
        foreign = [r for r in resources if not r.startswith(self.origin + "/")]
        assert not foreign, f"resources from elsewhere than {self.origin}: {foreign}"
        assert not visible(find_all(self.driver, "dropped-banner")), "dropped-banner shown though nothing was dropped"
        self.checks.screenshot("inbox-1280x800")
        return f"title {title!r}, connection-state live, {len(resources)} resources all from {self.origin}"

    def check_inbox_route(self):
        self.open_page("/inbox")
        return "GET /inbox serves the page"

    def check_timeline(self):
        """Each provider's exchanges that send_pushes.py sent are rows with the right attributes."""
        seen = []
        for provider in PROVIDERS:
            for seq in self.sent[provider]["seqs"]:
                r = wait(self.driver, lambda d, s=seq: self.rows(f'[data-seq="{s}"]'), 10, f"row seq {seq}")[0]
                assert r.get_attribute("data-provider") == provider, (seq, r.get_attribute("data-provider"))
                expected = str(self.sent[provider]["status"])
                assert r.get_attribute("data-status") == expected, (seq, r.get_attribute("data-status"), expected)
                assert r.is_displayed(), f"row {seq} is not displayed"
                # What the notification says, as a mail list shows a subject: the sent title, or
                # "silent" for the APNs background push.
                said = find_all(r, "row-text")
                silent = provider == "apns" and seq == self.sent[provider].get("silentSeq")
                want = "silent" if silent else self.sent[provider]["title"]
                assert said and said[0].text.strip() == want, f"row {seq}: row-text {[e.text for e in said]}, expected {want!r}"
                seen.append(f"{provider}#{seq} {want!r}")
        return f"{len(self.rows())} rows; sent exchanges present with what they say: {', '.join(seen)}"

    def check_device_count(self):
        """The header's device count is the number of entries in the device list."""
        def counted(_):
            m = re.search(r"(\d+) devices?\b", find(self.driver, "counts").text) if find_all(self.driver, "counts") else None
            items = find_all(find(self.driver, "device-list"), "device-item")
            return (int(m.group(1)), len(items)) if m and int(m.group(1)) == len(items) else None
        shown, items = wait(self.driver, counted, 10, "the header's device count to equal the device list")
        return f"header says {shown} device(s), the list has {items}"

    def check_provider_filter(self):
        counts = {}
        for provider in PROVIDERS:
            self.filter_select(provider)
            shown = self.wait_rows_only("data-provider", provider, f"only {provider} rows")
            expected = {str(s) for s in self.sent[provider]["seqs"]}
            got = {r.get_attribute("data-seq") for r in shown}
            assert expected <= got, f"{provider}: sent {expected}, shown {got}"
            counts[provider] = len(shown)
        self.all_rows_back()
        return "only that provider's rows: " + ", ".join(f"{p} {n}" for p, n in counts.items())

    def check_search_filter(self):
        """Free text (the FCM device's token) narrows to its row; nonsense to none."""
        fcm = self.sent["fcm"]
        self.type_into("filter-search", fcm["token"])
        shown = wait(self.driver, lambda d: (lambda v: v if v and len(v) < len(self.rows()) else None)(
            self.visible_rows()), 5, "the search to narrow the rows")
        providers = {r.get_attribute("data-provider") for r in shown}
        assert providers == {"fcm"}, f"search {fcm['token']!r} shows providers {providers}"
        self.type_into("filter-search", "no-such-text-zq81x")
        wait(self.driver, lambda d: not self.visible_rows(), 5, "no row for a text nothing contains")
        self.all_rows_back()
        return f"search {fcm['token']!r} → {len(shown)} fcm row(s); a text nothing contains → 0 rows"

    def check_device_filter(self):
        device = self.sent["expo"]["id"]
        el = find(self.driver, "filter-device")
        if el.tag_name == "select":
            browser.choose(el, device)
        else:
            self.type_into("filter-device", device)
        shown = self.wait_rows_only("data-provider", "expo", f"only the rows of device {device}")
        self.all_rows_back()
        return f"device {device} → {len(shown)} expo row(s)"

    def check_device_inbox(self):
        """Every provider's device shows its notification with the sent title and body."""
        done = []
        for provider in PROVIDERS:
            s = self.sent[provider]
            box = self.open_device(s["id"])
            notes = wait(self.driver, lambda d: find_all(box, "notification"), 5, f"a notification in {s['id']}'s inbox")
            match = [n for n in notes if s["title"] in n.text]
            assert match, f"{provider}: no notification with title {s['title']!r}: {[n.text for n in notes]}"
            n = match[0]
            platform = n.get_attribute("data-platform")
            assert platform == s["platform"], f"{provider}: data-platform {platform!r}, expected {s['platform']!r}"
            title_el, body_el = find_all(n, "notification-title"), find_all(n, "notification-body")
            assert title_el and s["title"] in title_el[0].text, f"{provider}: notification-title {[e.text for e in title_el]}"
            assert body_el and s["body"] in body_el[0].text, f"{provider}: notification-body {[e.text for e in body_el]}"
            assert n.get_attribute("data-silent") != "true", f"{provider}: an alert push marked silent"
            assert not find_all(n, "decrypt-error"), f"{provider}: decrypt-error {find_all(n, 'decrypt-error')[0].text}"
            if provider == "apns":
                silent = [x for x in find_all(box, "notification") if x.get_attribute("data-silent") == "true"]
                assert silent, f"apns: the silent push (seq {s['silentSeq']}) is not marked data-silent=\"true\""
            self.checks.screenshot(f"device-inbox-{provider}")
            done.append(f"{provider} ({platform}{', its silent push marked' if provider == 'apns' else ''})")
        return "title and body rendered for " + ", ".join(done)

    def check_decrypt_error(self):
        """A Web Push message encrypted to a key the subscription does not hold shows decrypt-error."""
        u = self.manifest["undecryptable"]
        box = self.open_device(u["id"])
        note = wait(self.driver, lambda d: find_all(box, "notification"), 5, f"a notification in {u['id']}'s inbox")[0]
        errors = find_all(note, "decrypt-error")
        assert errors and errors[0].is_displayed(), f"no decrypt-error shown: {note.text!r}"
        text = " ".join(errors[0].text.split())
        assert text, "decrypt-error is empty (no reason)"
        assert note.get_attribute("data-platform") == "browser", note.get_attribute("data-platform")
        self.checks.screenshot("device-inbox-webpush-decrypt-error")
        return f"{u['id']}: decrypt-error {text[:120]!r}"

    def check_browser_device(self):
        """A browser on the autopush listener is a device: its inbox shows the message relayed to
        it with Firefox's ack (acked, code 100) and the text its service worker read."""
        b = self.manifest["autopush"]
        box = self.open_device(b["id"])
        note = wait(self.driver, lambda d: find_all(box, "notification"), 5, f"a notification in {b['id']}'s inbox")[0]
        text = " ".join(note.text.split())
        assert find_all(note, "notification-title")[0].text == "Relayed to a real browser", text
        assert find_all(note, "notification-body")[0].text == b["text"], text
        for part in ("browser delivery: acked (code 100)", "channel: " + b["channelID"], "read by: the browser's service worker"):
            assert part in text, f"{part!r} not in {text!r}"
        assert note.get_attribute("data-platform") == "browser", note.get_attribute("data-platform")
        self.checks.screenshot("device-inbox-webpush-real-browser")
        return f"{b['id']}: relayed, acked (code 100), read {b['text']!r}"

    def check_declarative(self):
        """Declarative Web Push: the valid message is drawn as the notification the browser shows
        (title, body, the app badge, navigate); the malformed one as the service worker's push,
        its text as the body and the reason it was not shown."""
        d = self.manifest["declarative"]
        box = self.open_device(d["id"])
        notes = wait(self.driver, lambda _: len(find_all(box, "notification")) == 2 and find_all(box, "notification"), 5,
                     f"two notifications in {d['id']}'s inbox")
        valid, malformed = d["valid"], d["malformed"]
        shown = [n for n in notes if find_all(n, "notification-title")[0].text == valid["notification"]["title"]]
        assert shown, f"no notification titled {valid['notification']['title']!r}: {[n.text for n in notes]}"
        n = shown[0]
        assert find_all(n, "notification-body")[0].text == valid["notification"]["body"], n.text
        badge = n.find_elements(By.CSS_SELECTOR, ".n-badge")
        assert badge and badge[0].text == str(valid["app_badge"]), f"app badge {[b.text for b in badge]}: {n.text!r}"
        meta = " ".join(n.text.split())
        for part in ("shown by: the browser (declarative Web Push", "navigate: " + valid["notification"]["navigate"], "lang: en-GB"):
            assert part in meta, f"{part!r} not in {meta!r}"
        fallback = [x for x in notes if x is not n][0]
        assert find_all(fallback, "notification-title")[0].text == "", fallback.text
        body = find_all(fallback, "notification-body")[0].text
        assert json.loads(body) == malformed, f"the fallback's body is not the text the service worker gets: {body!r}"
        text = " ".join(fallback.text.split())
        assert "shown by: the service worker's push event (not a valid declarative message: notification.navigate" in text, text
        self.checks.screenshot("device-inbox-webpush-declarative")
        return f"{d['id']}: declarative notification {valid['notification']['title']!r} with badge {valid['app_badge']}; the malformed one as a service-worker push"

    def check_detail(self):
        """The APNs exchange's detail: decoded JWT with the key id / team id used, verdict valid."""
        seq = self.sent["apns"]["seqs"][0]
        detail = self.open_detail(seq)
        auth = find(detail, "detail-auth").text
        jwt = self.manifest["apnsJWT"]
        for claim in ("kid", "iss"):
            assert jwt[claim] in auth, f"detail-auth lacks {claim} {jwt[claim]!r}: {auth!r}"
        verdict = find(detail, "auth-verdict").text.strip()
        assert verdict == "valid", f"auth-verdict {verdict!r}"
        request = find(detail, "detail-request").text
        assert "/3/device/" + self.sent["apns"]["token"] in request, f"detail-request: {request!r}"
        assert "200" in find(detail, "detail-response").text, find(detail, "detail-response").text
        for part in ("detail-body", "detail-decided", "detail-timing"):
            assert find(detail, part).text.strip(), f"{part} is empty"
        assert self.sent["apns"]["title"] in find(detail, "detail-body").text, find(detail, "detail-body").text
        timeline = find(detail, "retry-timeline")
        renderer = self.driver.execute_script(
            "return !!(window.PushDoubleTimeline && typeof window.PushDoubleTimeline.render === 'function')")
        assert renderer, "window.PushDoubleTimeline is not loaded (/inbox/timeline.js): the retry-timeline is not the shared renderer's"
        attempts = find_all(timeline, "attempt", f'[data-seq="{seq}"]')
        assert attempts, f"retry-timeline has no attempt for seq {seq}"
        assert timeline.find_elements(By.CSS_SELECTOR, "svg"), "retry-timeline has no SVG time axis"
        self.checks.screenshot("exchange-detail-apns")
        self.close_detail()
        return f"seq {seq}: kid {jwt['kid']}, iss {jwt['iss']} decoded, auth-verdict valid, PushDoubleTimeline SVG with its attempt"

    def check_detail_credentials(self):
        """FCM's OAuth bearer and Web Push's VAPID JWT are decoded too, with verdict valid."""
        shown = []
        for provider in ("fcm", "webpush"):
            seq = self.sent[provider]["seqs"][0]
            detail = self.open_detail(seq)
            auth = find(detail, "detail-auth").text
            for value in self.manifest["credentials"][provider]:
                assert value in auth, f"{provider} detail-auth lacks {value!r}: {auth[:300]!r}"
            verdict = find(detail, "auth-verdict").text.strip()
            assert verdict == "valid", f"{provider} auth-verdict {verdict!r}"
            self.checks.screenshot(f"exchange-detail-{provider}")
            self.close_detail()
            shown.append(f"{provider} #{seq} {self.manifest['credentials'][provider]} valid")
        return "; ".join(shown)

    def check_keyboard(self):
        """Tab reaches a row, Enter opens its detail, Escape closes it."""
        self.close_detail()
        self.driver.find_element(By.TAG_NAME, "body").click()
        self.driver.execute_script("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)")
        presses, active = self.tab_to("exchange-row", 300)
        seq = active.get_attribute("data-seq")
        active.send_keys(Keys.ENTER)
        detail = wait_visible(self.driver, "exchange-detail", 5)
        assert detail.is_displayed()
        self.checks.screenshot("keyboard-detail")
        self.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        wait(self.driver, lambda d: not visible(find_all(d, "exchange-detail")), 5, "Escape to close the detail")
        return f"{presses} Tab press(es) → row seq {seq}; Enter opened the detail; Escape closed it"

    def check_state_change(self):
        """device-state `unregistered` through the UI → the next APNs push answers 410 Unregistered,
        and the timeline shows it live."""
        s = self.sent["apns"]
        box = self.open_device(s["id"])
        browser.choose(find(box, "device-state"), "unregistered")
        find(box, "device-state-apply").click()
        device = pushes.wait_for(lambda: (lambda st, d: d if st == 200 and d.get("state") == "unregistered" else None)(
            *pushes.admin_call(self.admin, "GET", f"/devices/{s['id']}")), 5)
        assert device, f"GET /devices/{s['id']} after apply: {pushes.admin_call(self.admin, 'GET', '/devices/' + s['id'])}"
        before = max(int(r.get_attribute("data-seq")) for r in self.rows())
        status, reason, _ = pushes.send_apns(self.kit, s["token"], s["title"], s["body"])
        assert (status, reason) == (410, "Unregistered"), f"push after the UI change answered {status} {reason}"
        row = wait(self.driver, lambda d: [r for r in self.rows() if int(r.get_attribute("data-seq")) > before
                                           and r.get_attribute("data-status") == "410"], 10,
                   "the 410 exchange to appear live in the timeline")[0]
        assert "Unregistered" in row.text, f"410 row text lacks the reason: {row.text!r}"
        self.state_change_seq = row.get_attribute("data-seq")
        self.checks.screenshot("state-unregistered")
        return f"{s['id']} → unregistered via device-state; next push 410 Unregistered, live row seq {self.state_change_seq}"

    def check_status_filter(self):
        for text in ("410", "Unregistered"):
            self.type_into("filter-status", text)
            shown = self.wait_rows_only("data-status", "410", f"filter-status {text!r} to show only 410 rows")
        self.all_rows_back()
        return f"filter-status 410 / Unregistered → {len(shown)} row(s), all 410"

    def check_faults(self):
        """fault-form adds a rule that shows in fault-list (and the admin API has it); fault-remove removes one."""
        raw = find(self.driver, "fault-raw")  # the raw JSON form, folded under the rule builder
        if not raw.get_attribute("open"):
            raw.find_element(By.TAG_NAME, "summary").click()
        for rule in (FORM_RULE, REMOVED_RULE):
            form = find(self.driver, "fault-form")
            area = find(form, "fault-json")
            area.clear()
            area.send_keys(json.dumps(rule))
            find(form, "fault-add").click()
            wait(self.driver, lambda d, r=rule: [i for i in find_all(d, "fault-item") if r["id"] in i.text], 5,
                 f"fault-item {rule['id']}")
        ids = [f["rule"]["id"] for f in pushes.admin_call(self.admin, "GET", "/faults")[1]]
        assert FORM_RULE["id"] in ids and REMOVED_RULE["id"] in ids, f"GET /faults: {ids}"
        def remove_button():
            items = [i for i in find_all(self.driver, "fault-item") if REMOVED_RULE["id"] in i.text]
            return find(items[0], "fault-remove") if items else None
        browser.click(self.driver, remove_button, f"fault-remove of {REMOVED_RULE['id']}")
        wait(self.driver, lambda d: not [i for i in find_all(d, "fault-item") if REMOVED_RULE["id"] in i.text], 5,
             f"fault-item {REMOVED_RULE['id']} to go")
        ids = [f["rule"]["id"] for f in pushes.admin_call(self.admin, "GET", "/faults")[1]]
        assert ids == [FORM_RULE["id"]], f"GET /faults after fault-remove: {ids}"
        self.checks.screenshot("faults")
        return f"added {FORM_RULE['id']} and {REMOVED_RULE['id']} through fault-form, removed the second; /faults = {ids}"

    def check_faults_live(self):
        """A rule added through the admin API shows in fault-list without a click, its counters move
        when a push hits it, and it goes when the admin API deletes it (GET /faults, kept live)."""
        rule = {"id": "browser-api-rule", "match": {"provider": "apns", "token": LIVE_RULE_TOKEN},
                "action": {"type": "respond", "reason": "TooManyRequests"}, "times": 1}
        status, _ = pushes.admin_call(self.admin, "POST", "/faults", rule)
        assert status == 201, f"POST /faults: {status}"
        def item(d):
            items = [i for i in find_all(d, "fault-item") if i.get_attribute("data-fault-id") == rule["id"]]
            return items[0] if items else None
        wait(self.driver, item, 10, f"fault-item {rule['id']} added through the admin API")
        assert "matched 0 · fired 0" in item(self.driver).text, item(self.driver).text
        answer = pushes.send_apns(self.kit, LIVE_RULE_TOKEN, "live", "live")[:2]
        assert answer == (429, "TooManyRequests"), f"the armed push answered {answer}"
        assert not find_all(item(self.driver), "fault-used-up"), "used up before it fired"
        wait(self.driver, lambda d: item(d) is not None and "matched 1 · fired 1" in item(d).text, 10,
             f"fault-item {rule['id']} counters after the push")
        assert find_all(item(self.driver), "fault-used-up"), "a times:1 rule that fired once is not shown used up"
        self.checks.screenshot("faults-live")
        status, _ = pushes.admin_call(self.admin, "DELETE", "/faults/" + rule["id"])
        assert status in (200, 204), f"DELETE /faults/{rule['id']}: {status}"
        wait(self.driver, lambda d: item(d) is None, 10, f"fault-item {rule['id']} to go after DELETE /faults")
        return f"{rule['id']} appeared, counted the push (429 TooManyRequests), showed used up and went, with no click in the panel"

    # ------------------------------------------------------------------ previews and device stories
    def detail_preview(self, seq, kind, name):
        """Opens the detail of `seq`; returns its preview (data-kind `kind`) after a screenshot
        `name` with the preview scrolled into view."""
        detail = self.open_detail(seq)
        box = find(detail, "detail-preview")
        fig = wait(self.driver, lambda d: (lambda f: f[0] if f and f[0].get_attribute("data-kind") == kind else None)(
            find_all(box, "preview")), 5, f"detail-preview of #{seq} with data-kind {kind!r}")
        # Its heading just under the detail's sticky header.
        self.driver.execute_script("arguments[0].parentElement.scrollIntoView({block: 'start'});"
                                   "document.getElementById('exchange-detail').scrollTop -= 48", box)
        wait(self.driver, lambda d: all(p.get_attribute("data-truncated") for p in find_all(fig, "preview-part")
                                        if p.get_attribute("data-lines") != "all"), 5, "the clamped parts to be measured")
        self.checks.screenshot(name)
        return fig

    @staticmethod
    def surface_parts(fig, surface):
        """{role: (text, data-lines, data-truncated)} of one surface of a preview."""
        found = [x for x in find_all(fig, "preview-surface") if x.get_attribute("data-surface") == surface]
        assert found, f"no preview-surface {surface!r}: {[x.get_attribute('data-surface') for x in find_all(fig, 'preview-surface')]}"
        return {p.get_attribute("data-role"): (p.get_attribute("textContent"), p.get_attribute("data-lines"), p.get_attribute("data-truncated"))
                for p in find_all(found[0], "preview-part")}

    def last_seq(self):
        return max(x["seq"] for x in pushes.history(self.admin))

    def check_preview_ios(self):
        """An iOS alert whose body is longer than 4 lines: banner and lock screen cut it (title,
        subtitle 1 line, body 4, data-truncated), the expanded form shows it all; badge, sound and
        interruption level listed. The APNs background push: kind silent, nothing on screen."""
        token = PREVIEW_TOKENS["apns"]
        payload = {"aps": {"alert": {"title": "Your table is ready — party of four, window seat by the garden",
                                     "subtitle": "Trattoria da Enzo", "body": LONG_BODY},
                           "badge": 3, "sound": "chime.caf", "interruption-level": "time-sensitive"}}
        status, reason, _ = pushes.send_apns_payload(self.kit, token, payload, "alert", 10)
        assert status == 200, (status, reason)
        fig = self.detail_preview(self.last_seq(), "alert", "preview-ios-alert")
        assert fig.get_attribute("data-platform") == "ios", fig.get_attribute("data-platform")
        for surface in ("banner", "lock-screen"):
            parts = self.surface_parts(fig, surface)
            assert parts["title"][1:] == ("1", "true"), f"{surface} title {parts['title']}"
            assert parts["subtitle"][1] == "1", f"{surface} subtitle {parts['subtitle']}"
            assert parts["body"][0] == LONG_BODY and parts["body"][1:] == ("4", "true"), f"{surface} body {parts['body'][1:]}"
        expanded = self.surface_parts(fig, "expanded")
        assert expanded["body"][1] == "all" and expanded["body"][2] is None, f"expanded body {expanded['body'][1:]}"
        facts = " ".join(find(fig, "preview-facts").text.split())
        for part in ("app icon badge 3", "sound chime.caf", "interruption level time-sensitive"):
            assert part in facts, f"{part!r} not in {facts!r}"
        self.close_detail()
        silent = self.detail_preview(self.sent["apns"]["silentSeq"], "silent", "preview-ios-silent")
        hidden = find(silent, "preview-hidden").text
        assert "Nothing on screen" in hidden and "content-available" in hidden, hidden
        assert not find_all(silent, "preview-surface"), "a silent push drawn on a surface"
        self.close_detail()
        row = self.row(self.sent["apns"]["silentSeq"])
        chip = find_all(row, "row-kind")
        assert chip and chip[0].get_attribute("data-kind") == "silent", [c.text for c in chip]
        return "iOS alert: banner and lock screen cut title/subtitle at 1 line and the body at 4 (truncated), expanded whole; " \
               f"badge, sound, interruption level listed; background push #{self.sent['apns']['silentSeq']}: silent, {hidden!r}"

    def check_preview_live_activity(self):
        """A Live Activity update (apns-push-type liveactivity): event, content-state and its alert drawn."""
        token = PREVIEW_TOKENS["liveactivity"]
        payload = {"aps": {"timestamp": int(time.time()), "event": "update",
                           "content-state": {"driver": "Ana", "minutesAway": 4},
                           "alert": {"title": "Ana is 4 minutes away", "body": "Your ride is arriving"}}}
        status, reason, _ = pushes.send_apns_payload(self.kit, token, payload, "liveactivity", 10,
                                                     topic=self.kit.apns_topic + ".push-type.liveactivity")
        assert status == 200, (status, reason)
        seq = self.last_seq()
        fig = self.detail_preview(seq, "live-activity", "preview-live-activity")
        activity = self.surface_parts(fig, "live-activity")
        assert activity["event"][0] == "update", activity
        assert "driver: Ana" in activity["state"][0] and "minutesAway: 4" in activity["state"][0], activity
        alert = self.surface_parts(fig, "live-activity-alert")
        assert alert["title"][0] == "Ana is 4 minutes away", alert
        self.close_detail()
        chip = find_all(self.row(seq), "row-kind")
        assert chip and chip[0].text == "Live Activity update", [c.text for c in chip]
        return f"#{seq}: event update, content-state driver/minutesAway, alert drawn; row chip {chip[0].text!r}"

    def check_preview_broadcast(self):
        """A Live Activity broadcast on a channel (made through the channel-management listener):
        drawn as a Live Activity end with its alert and the channel; its row names the kind."""
        assert self.kit.apns_manage_url, "no APNS_MANAGE_URL in the sender environment"
        channel = pushes.create_channel(self.kit, self.kit.apns_manage_url)
        payload = {"aps": {"timestamp": int(time.time()), "event": "end", "content-state": {"score": "3-1"},
                           "alert": {"title": "Full time", "body": "Rovers 3-1 United"}}}
        status = pushes.broadcast(self.kit, channel, payload)
        assert status == 200, status
        seq = self.last_seq()
        fig = self.detail_preview(seq, "live-activity", "preview-live-activity-broadcast")
        assert self.surface_parts(fig, "live-activity")["event"][0] == "ended"
        assert self.surface_parts(fig, "live-activity-alert")["body"][0] == "Rovers 3-1 United"
        facts = " ".join(find(fig, "preview-facts").text.split())
        assert f"channel {channel}" in facts, facts
        self.close_detail()
        chip = find_all(self.row(seq), "row-kind")
        assert chip and chip[0].text == "Live Activity end (broadcast)", [c.text for c in chip]
        return f"#{seq} on channel {channel}: Live Activity ended, alert drawn; row chip {chip[0].text!r}"

    def check_preview_android(self):
        """An FCM message with android.notification (channel, image): the shade cuts title and
        text to one line each; the image is listed, never loaded."""
        message = {"token": PREVIEW_TOKENS["fcm"], "notification": {"title": "Flight LH 402 is boarding now at gate B12",
                                                                    "body": LONG_BODY},
                   "android": {"priority": "high", "notification": {"channel_id": "boarding", "image": "https://example.com/gate.png"}}}
        status, answer = pushes.send_fcm_message(self.kit, message)
        assert status == 200, (status, answer)
        seq = self.last_seq()
        fig = self.detail_preview(seq, "alert", "preview-android")
        assert fig.get_attribute("data-platform") == "android", fig.get_attribute("data-platform")
        shade = self.surface_parts(fig, "shade")
        assert shade["title"][1] == "1" and shade["body"][1:] == ("1", "true"), shade
        assert "not loaded" in find_all(fig, "preview-image")[0].text
        facts = " ".join(find(fig, "preview-facts").text.split())
        assert "channel boarding" in facts and "message priority high" in facts, facts
        resources = self.driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        assert not [r for r in resources if "example.com" in r], "the image was loaded"
        self.close_detail()
        return f"#{seq}: shade title/text 1 line (text truncated), channel boarding, image listed and not loaded"

    def check_preview_browser(self):
        """The Web Push message (JSON title/body) as a desktop browser notification; the
        declarative one as the browser shows it itself, with its app badge."""
        fig = self.detail_preview(self.sent["webpush"]["seqs"][0], "alert", "preview-browser")
        assert fig.get_attribute("data-platform") == "browser", fig.get_attribute("data-platform")
        desktop = self.surface_parts(fig, "desktop")
        assert desktop["title"][0] == self.sent["webpush"]["title"] and desktop["body"][0] == self.sent["webpush"]["body"], desktop
        self.close_detail()
        seqs = [x["seq"] for x in pushes.history(self.admin) if x.get("deviceID") == self.manifest["declarative"]["id"]]
        fig = self.detail_preview(seqs[0], "alert", "preview-browser-declarative")
        badge = find_all(fig, "preview-badge")
        assert badge and badge[0].text == str(self.manifest["declarative"]["valid"]["app_badge"]), [b.text for b in badge]
        assert "declarative" in find(fig, "preview-facts").text
        self.close_detail()
        return f"#{self.sent['webpush']['seqs'][0]} desktop notification; declarative #{seqs[0]} with app badge {badge[0].get_attribute('textContent')}"

    def check_open_world(self):
        """A token the double did not know, accepted as the real service accepts any well-formed
        unknown token, is listed as open world, not in the error colour."""
        token = PREVIEW_TOKENS["liveactivity"]
        def item(d):
            items = find_all(find(d, "device-list"), "device-item", f'[data-device-id="{token}"]')
            return items[0] if items else None
        state = find(wait(self.driver, item, 10, f"device-item {token}"), "device-item-state")
        assert state.text.startswith("open world"), state.text
        assert "dead" not in state.get_attribute("class"), state.get_attribute("class")
        colour, bad = self.driver.execute_script(
            "const probe = document.createElement('span'); probe.style.color = 'var(--bad)'; document.body.append(probe);"
            "const bad = getComputedStyle(probe).color; probe.remove(); return [getComputedStyle(arguments[0]).color, bad]", state)
        assert colour != bad, f"open-world state drawn in the error colour {colour}"
        return f"{token[:12]}…: {state.text!r} in {colour} (error colour {bad})"

    def check_story_retry(self):
        """A notification answered 503 twice (a fault rule with Retry-After) and then accepted: the
        device's story shows one notification with its three attempts, answers and waits."""
        d = STORY_FCM
        status, _ = pushes.admin_call(self.admin, "POST", "/devices", {"id": d["id"], "provider": "fcm", "token": d["token"]})
        assert status == 201, status
        rule = {"id": "browser-story-retry", "match": {"provider": "fcm", "device": d["id"]},
                "action": {"type": "respond", "status": 503, "retryAfter": 1}, "times": 2}
        status, _ = pushes.admin_call(self.admin, "POST", "/faults", rule)
        assert status == 201, status
        answers = []
        for _ in range(3):
            answers.append(pushes.send_fcm(self.kit, d["token"], "Retried until it got through", "third time lucky")[0])
            if answers[-1] != 200:
                time.sleep(1.05)
        pushes.admin_call(self.admin, "DELETE", "/faults/" + rule["id"])
        assert answers == [503, 503, 200], answers
        self.settle()
        self.open_device(d["id"])

        def story(_):
            """(attempt labels, text, seqs) of the story's notification with 3 attempts; read in
            one go, again if the page re-rendered it meanwhile (a stale element)."""
            notes = [n for n in find_all(find(self.driver, "device-story"), "story-notification") if n.get_attribute("data-attempts") == "3"]
            if not notes:
                return None
            attempts = find_all(notes[0], "story-attempt")
            return ([find(a, "story-label").text for a in attempts], " ".join(notes[0].text.split()),
                    [int(a.get_attribute("data-seq")) for a in attempts])
        labels, text, self.story_seqs = wait(self.driver, story, 10, "a story-notification with 3 attempts")
        assert [x.split()[0] for x in labels] == ["503", "503", "200"], labels
        assert "retry-after 1" in text and "after the previous answer" in text and "decided by fault rule" in text, text
        self.driver.execute_script("document.querySelector('[data-testid=\"device-story\"]').scrollIntoView({block: 'start'})")
        self.checks.screenshot("device-story-retry")
        return f"{d['id']}: one notification, attempts {self.story_seqs} answered {labels}"

    def check_copy_curl(self):
        """Copy as curl on the story's accepted attempt: the command equals the one built here from
        the recorded request, and running it sends the same request again (same method, path,
        headers and body; answered 200)."""
        seq = self.story_seqs[-1]
        self.open_device(STORY_FCM["id"])
        self.settle()
        attempt = lambda: [a for a in find_all(self.driver, "story-attempt") if a.get_attribute("data-seq") == str(seq)][0]  # noqa: E731
        browser.click(self.driver, lambda: find(attempt(), "copy-curl"), f"copy-curl of #{seq}")
        shown = wait(self.driver, lambda _: visible(find_all(attempt(), "curl-text")) and find(attempt(), "curl-text").get_attribute("textContent"),
                     5, f"curl-text of #{seq}")
        recorded = exchange(self.admin, seq)
        expected = expected_curl(recorded)
        assert shown == expected, f"copy-curl text differs:\n shown    {shown}\n expected {expected}"
        copied = wait(self.driver, lambda _: find(attempt(), "copy-curl").get_attribute("data-copied") in ("true", "false")
                      and find(attempt(), "copy-curl").get_attribute("data-copied"), 5, "the copy to finish")
        assert copied == "true", f"the page could not write the clipboard (data-copied {copied})"
        # What the clipboard holds (Chromium grants the page clipboard access through DevTools).
        self.driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": self.origin,
                                                                 "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
        clip = self.driver.execute_async_script(
            "const done = arguments[0]; navigator.clipboard.readText().then(done, e => done('clipboard refused: ' + e))")
        assert clip == expected, f"the clipboard holds {clip!r}"
        before = self.last_seq()
        run = subprocess.run(["bash", "-c", shown], capture_output=True, text=True, timeout=20,
                             env=dict(os.environ, PUSHDOUBLE_CA_FILE=self.kit.ca))
        assert run.returncode == 0, f"curl exited {run.returncode}: {run.stderr}"
        status_line = run.stdout.splitlines()[0] if run.stdout else ""
        assert " 200" in status_line, f"curl got {status_line!r}"
        again = [x for x in pushes.history(self.admin) if x["seq"] > before]
        assert len(again) == 1, [x["seq"] for x in again]
        assert same_request(recorded, again[0]), f"the replayed request differs:\n {request_facts(recorded)}\n {request_facts(again[0])}"
        self.checks.screenshot("copy-curl")
        return f"#{seq}: curl text and clipboard as expected; run → {status_line.strip()!r}, recorded as #{again[0]['seq']} with the same request"

    def check_copy_curl_binary(self):
        """A Web Push request (binary aes128gcm body) copied from the detail: decoded from base64
        into curl, the service takes the same bytes again."""
        seq = self.sent["webpush"]["seqs"][0]
        detail = self.open_detail(seq)
        button = find(detail, "detail-copy-curl")
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
        button.click()
        shown = wait(self.driver, lambda d: find(d, "detail-curl").get_attribute("textContent") if find(d, "detail-curl").is_displayed() else None,
                     5, "detail-curl to open")
        recorded = exchange(self.admin, seq)
        assert shown == expected_curl(recorded), f"detail-curl differs:\n shown    {shown}\n expected {expected_curl(recorded)}"
        self.close_detail()
        before = self.last_seq()
        run = subprocess.run(["bash", "-c", shown], capture_output=True, text=True, timeout=20,
                             env=dict(os.environ, PUSHDOUBLE_CA_FILE=self.kit.ca))
        assert run.returncode == 0, f"curl exited {run.returncode}: {run.stderr}"
        again = [x for x in pushes.history(self.admin) if x["seq"] > before]
        assert len(again) == 1 and same_request(recorded, again[0]), f"{request_facts(recorded)}\n{[request_facts(x) for x in again]}"
        return f"#{seq}: {recorded['request'].get('bodySize')}-byte binary body piped through base64 -d; replayed as #{again[0]['seq']}, status {again[0]['response']['status']}"

    def check_expo_receipt(self):
        """An Expo device whose receipts say DeviceNotRegistered: after the sender fetched the
        receipt, the device's own inbox and story show it (not only the send's detail)."""
        d = STORY_EXPO
        status, _ = pushes.admin_call(self.admin, "POST", "/devices", {"id": d["id"], "provider": "expo", "token": d["token"],
                                                                       "receipt": "DeviceNotRegistered"})
        assert status == 201, status
        status, answer = pushes.send_expo(self.kit, d["token"], "Receipt will say gone", "ticket ok, receipt not")
        ticket = answer["data"][0]
        assert status == 200 and ticket["status"] == "ok", answer
        self.settle()
        self.open_device(d["id"])
        outcomes = lambda name, part: [(o.text, o.get_attribute("data-bad")) for o in find_all(self.driver, name) if part in o.text]  # noqa: E731
        wait(self.driver, lambda _: outcomes("notification-outcome", "not fetched yet"), 10, "the receipt not fetched yet")
        status, receipts = pushes.get_expo_receipts(self.kit, [ticket["id"]])
        assert status == 200 and receipts["data"][ticket["id"]]["details"]["error"] == "DeviceNotRegistered", receipts
        text, bad = wait(self.driver, lambda _: outcomes("notification-outcome", "DeviceNotRegistered"), 10,
                         "the fetched receipt on the device")[0]
        assert bad == "true", bad
        story = wait(self.driver, lambda _: outcomes("story-outcome", "DeviceNotRegistered"), 5, "the receipt in the story")
        facts = wait(self.driver, lambda d: " ".join(find(d, "device-inbox").text.split()), 5, "the device facts")
        assert "receipt DeviceNotRegistered" in facts, facts[:400]
        self.checks.screenshot("device-expo-receipt")
        return f"{d['id']}: {text!r} on the notification and {len(story)} story attempt(s); device fact receipt DeviceNotRegistered"

    def check_state_keeps_history(self):
        """Applying a state to an unregistered token registers it; its earlier notification stays in
        its inbox and story."""
        token = PREVIEW_TOKENS["fcm"]
        box = self.open_device(token)
        before = len(find_all(box, "notification"))
        assert before >= 1, "no notification before applying a state"
        browser.choose(find(box, "device-state"), "unregistered")
        find(box, "device-state-apply").click()
        heading = lambda d: d.find_element(By.ID, "device-inbox-heading").text  # noqa: E731
        wait(self.driver, lambda d: heading(d).startswith("Device "), 10, "the token to become a device")
        box = find(self.driver, "device-inbox")
        after = wait(self.driver, lambda _: len(find_all(box, "notification")) >= before and find_all(box, "notification"), 10,
                     "the earlier notifications to stay")
        assert any("Flight LH 402" in n.text for n in after), [n.text[:60] for n in after]
        assert find_all(box, "story-attempt"), "the story lost the earlier attempts"
        return f"{heading(self.driver)}: {len(after)} notification(s) kept after Apply"

    def check_story_keyboard(self):
        """Tab reaches a story's Copy as curl (visible focus ring); Space presses it; Tab to the
        next Exchange button and Enter opens the detail."""
        self.open_device(STORY_FCM["id"])
        find(self.driver, "device-state").click()  # start inside the device inbox
        presses, active = self.tab_to("copy-curl", 80)
        outline = self.driver.execute_script("const s = getComputedStyle(arguments[0]); return [s.outlineStyle, s.outlineWidth]", active)
        assert outline[0] != "none" and outline[1] != "0px", f"no visible focus: outline {outline}"
        seq = active.get_attribute("data-seq")
        active.send_keys(Keys.SPACE)
        attempt = [a for a in find_all(self.driver, "story-attempt") if a.get_attribute("data-seq") == seq][0]
        wait_visible(self.driver, "curl-text", 5, attempt)
        self.driver.switch_to.active_element.send_keys(Keys.SHIFT, Keys.TAB)
        back = self.driver.switch_to.active_element
        assert back.get_attribute("data-testid") == "story-open", back.get_attribute("data-testid")
        back.send_keys(Keys.ENTER)
        self.checks.screenshot("keyboard-story")
        detail = wait_visible(self.driver, "exchange-detail", 5)
        assert f"#{seq}" in detail.text.split("\n")[0] or f"#{seq}" in detail.text, detail.text[:80]
        self.close_detail()
        return f"{presses} Tab press(es) → copy-curl of #{seq} (outline {outline[0]} {outline[1]}); Space showed the command; Shift+Tab, Enter opened #{seq}"

    def check_narrow_previews(self):
        """At 400 px (the ≤ 480 px layout): a preview's surfaces stack inside the window, the story
        fits, no horizontal scroll."""
        w, h = browser.NARROW
        browser.set_viewport(self.driver, w, h)
        self.open_page("/")
        results = []
        fig = self.detail_preview(self.sent["apns"]["seqs"][0], "alert", f"preview-ios-alert-{w}x{h}")
        results.append("detail " + self.no_horizontal_scroll() + ", " + self.inside_window("detail-preview"))
        lefts = {round(s.rect["x"]) for s in find_all(fig, "preview-surface")}
        assert len(lefts) == 1, f"surfaces side by side at {w} px: x {lefts}"
        self.close_detail()
        self.open_device(STORY_FCM["id"])
        results.append("story " + self.no_horizontal_scroll() + ", " + self.inside_window("device-story"))
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", find(self.driver, "device-story"))
        self.checks.screenshot(f"device-story-{w}x{h}")
        browser.set_viewport(self.driver, *browser.WIDE)
        self.open_page("/")
        return "; ".join(results) + "; surfaces stacked"
    def builder_rule_item(self, d, rule_id):
        items = [i for i in find_all(d, "fault-item") if i.get_attribute("data-fault-id") == rule_id]
        return items[0] if items else None

    def fcm_answer(self):
        status, doc, headers = pushes.send_fcm(self.kit, BUILDER_FCM_TOKEN, "builder", "builder", headers=True)
        reason = ((doc.get("error") or {}).get("status")) if status >= 300 else None
        return status, reason, headers.get("retry-after")

    def check_rule_builder(self):
        """The rule builder (provider → endpoint → action → when, reasons from GET /catalogue) posts
        FCM 503 UNAVAILABLE with Retry-After 7 for the next 2 sends to a token; the JSON it shows is
        what it posts; switched off it answers nothing, switched on google-auth's session gets 503 +
        Retry-After twice, then 200; edited to INTERNAL the next send gets 500."""
        b = find(self.driver, "rule-builder")
        browser.choose(find(b, "rb-provider"), "fcm")
        browser.choose(find(b, "rb-endpoint"), "fcm.send")
        reasons = [o.get_attribute("value") for o in find(b, "rb-reason").find_elements(By.TAG_NAME, "option")]
        catalogue = pushes.admin_call(self.admin, "GET", "/catalogue")[1]
        send = [e for p in catalogue["providers"] if p["provider"] == "fcm" for e in p["endpoints"] if e["id"] == "fcm.send"][0]
        assert reasons == [""] + send["reasons"], f"rb-reason offers {reasons}, the catalogue {send['reasons']}"
        browser.choose(find(b, "rb-endpoint"), "oauth.token")
        token_reasons = [o.get_attribute("value") for o in find(b, "rb-reason").find_elements(By.TAG_NAME, "option")]
        assert "invalid_grant" in token_reasons and "UNAVAILABLE" not in token_reasons, f"oauth.token reasons: {token_reasons}"
        browser.choose(find(b, "rb-endpoint"), "fcm.send")
        browser.choose(find(b, "rb-action"), "respond")
        browser.choose(find(b, "rb-reason"), "UNAVAILABLE")
        for name, value in (("rb-retry-after", "7"), ("rb-token", BUILDER_FCM_TOKEN), ("rb-id", BUILT_RULE["id"])):
            find(b, name).clear()
            find(b, name).send_keys(value)
        browser.choose(find(b, "rb-when"), "next")
        find(b, "rb-count").clear()
        find(b, "rb-count").send_keys("2")
        shown = wait(self.driver, lambda d: (lambda t: json.loads(t) if t else None)(find(d, "rb-preview").text), 5, "rb-preview")
        assert shown == BUILT_RULE, f"rb-preview shows {shown}"
        find(b, "rb-submit").click()
        item = wait(self.driver, lambda d: self.builder_rule_item(d, BUILT_RULE["id"]), 5, "the built rule in fault-list")
        loaded = pushes.admin_call(self.admin, "GET", "/faults/" + BUILT_RULE["id"])[1]
        assert loaded["rule"] == BUILT_RULE, f"GET /faults/{BUILT_RULE['id']}: {loaded}"
        # Switched off: listed, answers nothing.
        browser.click(self.driver, lambda: find(self.builder_rule_item(self.driver, BUILT_RULE["id"]), "fault-toggle"), "fault-toggle (off)")
        wait(self.driver, lambda d: find_all(self.builder_rule_item(d, BUILT_RULE["id"]), "fault-off"), 5, "the fault-off badge")
        assert pushes.admin_call(self.admin, "GET", "/faults/" + BUILT_RULE["id"])[1]["rule"].get("enabled") is False
        off = self.fcm_answer()
        assert off[0] == 200, f"a send with the rule switched off answered {off}"
        self.checks.screenshot("rule-builder-off")
        browser.click(self.driver, lambda: find(self.builder_rule_item(self.driver, BUILT_RULE["id"]), "fault-toggle"), "fault-toggle (on)")
        wait(self.driver, lambda d: not find_all(self.builder_rule_item(d, BUILT_RULE["id"]), "fault-off"), 5, "the fault-off badge to go")
        answers = [self.fcm_answer() for _ in range(3)]
        assert answers[:2] == [(503, "UNAVAILABLE", "7")] * 2 and answers[2][0] == 200, f"sends after the built rule: {answers}"
        wait(self.driver, lambda d: find_all(self.builder_rule_item(d, BUILT_RULE["id"]), "fault-used-up"), 10, "used up after 2")
        # Edited in the builder: the same rule, another reason, counters from zero.
        browser.click(self.driver, lambda: find(self.builder_rule_item(self.driver, BUILT_RULE["id"]), "fault-edit"), "fault-edit")
        wait(self.driver, lambda d: find(d, "rule-builder").get_attribute("data-editing") == BUILT_RULE["id"], 5, "the builder to edit")
        assert find(b, "rb-token").get_attribute("value") == BUILDER_FCM_TOKEN
        browser.choose(find(b, "rb-reason"), "INTERNAL")
        find(b, "rb-retry-after").clear()
        find(b, "rb-count").clear()
        find(b, "rb-count").send_keys("1")
        find(b, "rb-submit").click()
        edited = dict(BUILT_RULE, action={"type": "respond", "reason": "INTERNAL"}, times=1)
        got = pushes.wait_for(lambda: (lambda r: r if r["rule"] == edited else None)(
            pushes.admin_call(self.admin, "GET", "/faults/" + BUILT_RULE["id"])[1]), 5)
        assert got and got["fired"] == 0, f"after the edit: {pushes.admin_call(self.admin, 'GET', '/faults/' + BUILT_RULE['id'])[1]}"
        ids = [f["rule"]["id"] for f in pushes.admin_call(self.admin, "GET", "/faults")[1]]
        assert ids.count(BUILT_RULE["id"]) == 1, f"the edit added a rule: {ids}"
        edited_answer = self.fcm_answer()
        assert edited_answer[:2] == (500, "INTERNAL"), f"send after the edit: {edited_answer}"
        self.checks.screenshot("rule-builder")
        pushes.admin_call(self.admin, "DELETE", "/faults/" + BUILT_RULE["id"])
        return (f"built {BUILT_RULE['id']} (preview = posted JSON); off: 200; on: {answers}; edited to INTERNAL: {edited_answer[:2]}")

    def device_row(self, d, device_id):
        items = [i for i in find_all(d, "device-item") if i.get_attribute("data-device-id") == device_id]
        return items[0] if items else None

    def fill_device_form(self, provider, fields):
        fold = find(self.driver, "device-form-fold")
        if not fold.get_attribute("open"):
            fold.find_element(By.TAG_NAME, "summary").click()
        form = find(self.driver, "device-form")
        browser.choose(find(form, "df-provider"), provider)
        for name, value in fields.items():
            control = find(form, "df-" + name)
            if control.tag_name == "select":
                browser.choose(control, value)
            else:
                control.clear()
                control.send_keys(value)
        find(form, "df-submit").click()

    def check_device_form(self):
        """device-form creates an APNs device, an Expo device with its receipt outcome and a Web
        Push subscription in a service's style (the provider's deviceForm from GET /catalogue)."""
        self.fill_device_form("apns", FORM_APNS)
        wait(self.driver, lambda d: self.device_row(d, FORM_APNS["id"]), 5, "the created APNs device's row")
        self.fill_device_form("expo", FORM_EXPO)
        wait(self.driver, lambda d: self.device_row(d, FORM_EXPO["id"]), 5, "the created Expo device's row")
        self.fill_device_form("webpush", FORM_SUBSCRIPTION)
        wait(self.driver, lambda d: self.device_row(d, FORM_SUBSCRIPTION["id"]), 5, "the created subscription's row")
        apns = pushes.admin_call(self.admin, "GET", "/devices/" + FORM_APNS["id"])[1]
        assert (apns["provider"], apns["token"], apns.get("state")) == ("apns", FORM_APNS["token"], "active"), apns
        expo = pushes.admin_call(self.admin, "GET", "/devices/" + FORM_EXPO["id"])[1]
        assert expo.get("receipt") == "DeviceNotRegistered" and expo["token"] == FORM_EXPO["token"], expo
        status, sub = pushes.admin_call(self.admin, "GET", "/webpush/subscriptions/" + FORM_SUBSCRIPTION["id"])
        assert status == 200 and sub["endpoint"].startswith("https://"), (status, sub)
        assert pushes.send_apns(self.kit, FORM_APNS["token"], "form", "form")[:2] == (200, None)
        self.checks.screenshot("device-form")
        return f"created {FORM_APNS['id']}, {FORM_EXPO['id']} (receipt {expo['receipt']}), subscription {sub['endpoint']}"

    def check_device_actions(self):
        """The row's Make dead: the APNs device is unregistered with the click's time, the next push
        410 Unregistered; the detail's Revive: 200 again; Throttle with next 2: an armed badge,
        two 429 TooManyRequests, then 200 and the badge goes."""
        token = FORM_APNS["token"]
        def row_button(action):
            row = self.device_row(self.driver, FORM_APNS["id"])
            if row is None:
                return None
            menu = find(row, "device-row-actions")
            if not menu.get_attribute("open"):
                menu.find_element(By.TAG_NAME, "summary").click()
            buttons = [b for b in find_all(menu, "device-action") if b.get_attribute("data-action") == action]
            return buttons[0] if buttons and buttons[0].is_displayed() else None
        before = time.time()
        browser.click(self.driver, lambda: row_button("dead"), "the row's Make dead")
        device = pushes.wait_for(lambda: (lambda d: d if d.get("state") == "unregistered" else None)(
            pushes.admin_call(self.admin, "GET", "/devices/" + FORM_APNS["id"])[1]), 5)
        assert device and device.get("unregisteredAt"), f"after Make dead: {device}"
        dead_at = time.mktime(time.strptime(device["unregisteredAt"][:19], "%Y-%m-%dT%H:%M:%S")) - time.timezone
        assert before - 5 <= dead_at <= time.time() + 5, f"unregisteredAt {device['unregisteredAt']} is not the click's time"
        answer = pushes.send_apns(self.kit, token, "dead", "dead")[:2]
        assert answer == (410, "Unregistered"), f"push to the dead device: {answer}"
        self.checks.screenshot("device-action-dead")
        self.settle()
        # Folded again: a click on the row (not on its menu) opens the device.
        browser.click(self.driver, lambda: find(self.device_row(self.driver, FORM_APNS["id"]), "device-row-actions").find_element(
            By.TAG_NAME, "summary"), "the row menu's summary")
        wait(self.driver, lambda d: not find(self.device_row(d, FORM_APNS["id"]), "device-row-actions").get_attribute("open"), 5, "the menu to fold")
        self.open_device(FORM_APNS["id"])
        def detail_button(action):
            bars = [b for b in find_all(self.driver, "device-actions") if b.get_attribute("data-where") == "detail"]
            buttons = [b for b in find_all(bars[0], "device-action") if b.get_attribute("data-action") == action] if bars else []
            return buttons[0] if buttons else None
        browser.click(self.driver, lambda: detail_button("revive"), "the detail's Revive")
        pushes.wait_for(lambda: pushes.admin_call(self.admin, "GET", "/devices/" + FORM_APNS["id"])[1].get("state") == "active", 5)
        assert pushes.send_apns(self.kit, token, "revived", "revived")[:2] == (200, None)
        self.settle()
        def set_count():
            bars = [b for b in find_all(self.driver, "device-actions") if b.get_attribute("data-where") == "detail"]
            count = find(bars[0], "device-action-count")
            count.clear()
            count.send_keys("2")
            return True
        wait(self.driver, lambda d: set_count(), 5, "the detail's count set to 2")
        browser.click(self.driver, lambda: detail_button("throttle"), "the detail's Throttle")
        wait(self.driver, lambda d: (lambda r: r is not None and find_all(r, "device-armed"))(self.device_row(d, FORM_APNS["id"])), 5,
             "the armed badge on the row")
        answers = [pushes.send_apns(self.kit, token, "t", "t")[:2] for _ in range(3)]
        assert answers == [(429, "TooManyRequests")] * 2 + [(200, None)], f"pushes after Throttle next 2: {answers}"
        wait(self.driver, lambda d: (lambda r: r is not None and not find_all(r, "device-armed"))(self.device_row(d, FORM_APNS["id"])), 10,
             "the armed badge to go once used up")
        self.checks.screenshot("device-actions")
        for f in pushes.admin_call(self.admin, "GET", "/faults")[1]:  # the used-up throttle rule: not for the export check
            if f["rule"].get("match", {}).get("device") == FORM_APNS["id"]:
                pushes.admin_call(self.admin, "DELETE", "/faults/" + f["rule"]["id"])
        return f"Make dead → 410 Unregistered (unregisteredAt {device['unregisteredAt']}); Revive → 200; Throttle ×2 → {answers}"

    def detail_action(self, device_id, action):
        """Opens the device and clicks its detail's action button `action` (GET /catalogue's id)."""
        self.open_device(device_id)
        def button():
            bars = [b for b in find_all(self.driver, "device-actions") if b.get_attribute("data-where") == "detail"]
            buttons = [b for b in find_all(bars[0], "device-action") if b.get_attribute("data-action") == action] if bars else []
            return buttons[0] if buttons else None
        browser.click(self.driver, button, f"{device_id}'s {action}")
        self.settle()

    def check_qa_stories(self):
        """The QA stories device-actions and rule-builder leave, each armed through the page only
        and then met by a real client library in its own terms: a token of the other environment
        (Wrong environment: httpx gets 400 BadDeviceToken; pressed again, 200), an Expo device
        whose receipt says DeviceNotRegistered (made by device-form: exponent_server_sdk's
        check_receipts gives a receipt whose validate_response raises DeviceNotRegisteredError),
        an expired Web Push subscription (Make dead: pywebpush raises WebPushException with 410)."""
        import exponent_server_sdk as sdk
        import pywebpush
        import requests
        results = []
        self.detail_action(FORM_APNS["id"], "wrong-environment")
        answer = pushes.send_apns(self.kit, FORM_APNS["token"], "env", "env")[:2]
        assert answer == (400, "BadDeviceToken"), f"push after Wrong environment: {answer}"
        self.detail_action(FORM_APNS["id"], "wrong-environment")
        back = pushes.send_apns(self.kit, FORM_APNS["token"], "env", "env")[:2]
        assert back == (200, None), f"push after Wrong environment pressed again: {back}"
        results.append(f"wrong environment → {answer}, again → {back}")

        os.environ["REQUESTS_CA_BUNDLE"] = self.kit.ca
        session = requests.Session()
        session.verify = self.kit.ca
        session.headers.update({"accept": "application/json", "content-type": "application/json"})
        if self.kit.expo_access_token:
            session.headers["authorization"] = f"Bearer {self.kit.expo_access_token}"
        client = sdk.PushClient(host=self.kit.expo_url, session=session)
        ticket = client.publish(sdk.PushMessage(to=FORM_EXPO["token"], title="qa", body="receipt"))
        ticket.validate_response()
        receipts = pushes.wait_for(lambda: [r for r in client.check_receipts([ticket]) if r.status != "pending"] or None, 10)
        assert receipts, "no receipt for the Expo device's ticket"
        try:
            receipts[0].validate_response()
            raise AssertionError(f"receipt {receipts[0]} did not raise")
        except sdk.DeviceNotRegisteredError as e:
            results.append(f"Expo receipt → DeviceNotRegisteredError ({getattr(e, 'message', str(e))!r})")

        self.detail_action(FORM_SUBSCRIPTION["id"], "dead")
        status, sub = pushes.admin_call(self.admin, "GET", "/webpush/subscriptions/" + FORM_SUBSCRIPTION["id"])
        assert status == 200, (status, sub)
        try:
            pushes.send_webpush(self.kit, {"endpoint": sub["endpoint"], "keys": sub["keys"]}, "qa", "expired")
            raise AssertionError("pywebpush sent to the dead subscription without an error")
        except pywebpush.WebPushException as e:
            assert e.response is not None and e.response.status_code == 410, f"{e} ({e.response})"
            results.append(f"expired subscription → WebPushException {e.response.status_code}")
        self.checks.screenshot("qa-stories")
        return "; ".join(results)

    def check_library(self):
        """scenario-library lists the shipped apns.unregistered.json with its title and devices; Load
        arms it (its dead device answers an httpx push 410 Unregistered); Unload removes its devices."""
        file = "apns.unregistered.json"
        shipped = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../Scenarios", file)))
        def item(d):
            items = [i for i in find_all(d, "library-item") if i.get_attribute("data-file") == file]
            return items[0] if items else None
        found = wait(self.driver, item, 10, f"library-item {file}")
        assert shipped["title"] in found.text and "d1 (apns, unregistered)" in found.text, found.text
        assert found.get_attribute("data-loaded") == "false", "listed as loaded before Load"
        browser.click(self.driver, lambda: (lambda i: find(i, "library-load") if i else None)(item(self.driver)), "library-load")
        wait(self.driver, lambda d: item(d) is not None and item(d).get_attribute("data-loaded") == "true", 10, "the file marked loaded")
        ids = {d["id"] for d in pushes.admin_call(self.admin, "GET", "/devices")[1]}
        expected = {d["id"] for d in shipped["devices"]}
        assert expected <= ids, f"GET /devices after Load: {sorted(ids)}"
        dead = [d for d in shipped["devices"] if d.get("state") == "unregistered"][0]
        answer = pushes.send_apns(self.kit, dead["token"], "library", "library")[:2]
        assert answer == (410, "Unregistered"), f"push to the loaded scenario's dead device: {answer}"
        self.checks.screenshot("library-loaded")
        browser.click(self.driver, lambda: (lambda i: find(i, "library-unload") if i else None)(item(self.driver)), "library-unload")
        wait(self.driver, lambda d: item(d) is not None and item(d).get_attribute("data-loaded") == "false", 10, "the file unloaded")
        left = {d["id"] for d in pushes.admin_call(self.admin, "GET", "/devices")[1]} & expected
        assert not left, f"devices left after Unload: {left}"
        return f"{file} ({shipped['title']!r}): Load → {sorted(expected)} registered, {dead['id']} push 410 Unregistered; Unload → gone"

    def check_export_replay(self):
        """export-scenario's JSON replays in a fresh `pushdouble replay` with the same devices and rules."""
        link = find(self.driver, "export-scenario")
        href = link.get_attribute("href")
        assert href, "export-scenario has no href"
        got = browser.fetch_json(self.driver, href)
        assert got["status"] == 200, f"GET {href}: {got}"
        scenario = json.loads(got["text"])
        path = os.path.join(self.args.out, "exported-scenario.json")
        with open(path, "w") as f:
            json.dump(scenario, f, ensure_ascii=False, indent=2)
        live = device_summary(pushes.admin_call(self.admin, "GET", "/devices")[1])
        replayed = replay(self.args.pushdouble, path)
        assert replayed["devices"] == live, f"devices differ:\n live     {live}\n replayed {replayed['devices']}"
        assert replayed["faults"] == [FORM_RULE["id"]], f"replayed rules {replayed['faults']}"
        assert replayed["push"] == (410, "Unregistered"), f"the replayed double answered {replayed['push']}"
        return (f"{href} → {path}; replay has the {len(live)} devices (states {sorted({d[3] for d in live})}) "
                f"and rule {FORM_RULE['id']}; APNs push there → 410 Unregistered")

    def check_reconnect(self):
        """The live stream survives a cut: connection-state turns `reconnecting`, then `live`
        again, and a push sent meanwhile appears once, with no row doubled."""
        url = urllib.parse.urlsplit(self.admin)
        cut = cutter.Cutter((url.hostname, url.port))
        self.cut_origins.append(cut.url)  # its network errors are the point: not console errors
        try:
            self.driver.get(cut.url + "/")
            wait_visible(self.driver, "timeline", 15)
            state = lambda d: find(d, "connection-state").text.strip()  # noqa: E731
            wait(self.driver, lambda d: state(d) == "live", 10, 'connection-state "live" through the cutter')
            before = len(self.rows())
            cut.cut()
            wait(self.driver, lambda d: state(d) == "reconnecting", 10, 'connection-state "reconnecting" after the cut')
            self.checks.screenshot("reconnecting")
            status, reason, _ = pushes.send_apns(self.kit, "d0d0" * 16, "sent while cut off", "resumed")
            assert status == 200, (status, reason)
            seq = max(x["seq"] for x in pushes.history(self.admin))
            cut.resume()
            wait(self.driver, lambda d: state(d) == "live", 15, 'connection-state "live" again after the cut')
            wait(self.driver, lambda d: self.rows(f'[data-seq="{seq}"]'), 10, f"row #{seq}, sent during the cut")
            seqs = [r.get_attribute("data-seq") for r in self.rows()]
            doubled = sorted({x for x in seqs if seqs.count(x) > 1})
            assert not doubled, f"rows shown twice after the reconnect: {doubled}"
            assert len(seqs) > before, (before, seqs)
            return f"cut → reconnecting → live; #{seq} (sent during the cut) shown once, {len(seqs)} rows, none doubled"
        finally:
            cut.close()

    def check_wide_layout(self):
        self.open_page("/")
        parts = [self.no_horizontal_scroll(), self.rows_readable(), self.inside_window("timeline")]
        self.open_detail(self.sent["apns"]["seqs"][0])
        parts.append(self.inside_window("exchange-detail"))
        self.close_detail()
        return "; ".join(parts)

    # ------------------------------------------------------------------ checks (narrow window)
    def check_narrow(self):
        """At ~400 px: no horizontal scroll on the timeline, a device inbox and a detail."""
        w, h = browser.NARROW
        browser.set_viewport(self.driver, w, h)
        self.open_page("/")
        results = ["timeline " + self.no_horizontal_scroll() + ", " + self.rows_readable()]
        self.checks.screenshot(f"inbox-{w}x{h}")
        results.append(self.inside_window("timeline"))
        self.open_device(self.sent["fcm"]["id"])
        results.append("device inbox " + self.no_horizontal_scroll() + ", " + self.inside_window("device-inbox"))
        self.checks.screenshot(f"device-inbox-fcm-{w}x{h}")
        self.open_detail(self.sent["apns"]["seqs"][0])
        results.append("detail " + self.no_horizontal_scroll() + ", " + self.inside_window("exchange-detail"))
        self.checks.screenshot(f"exchange-detail-apns-{w}x{h}")
        self.close_detail()
        inner = self.driver.execute_script("return window.innerWidth")
        return f"innerWidth {inner}: " + "; ".join(results)

    def check_live_activity(self):
        """A device whose Live Activity subscribed to a broadcast channel (admin API) shows the
        broadcast it received: the alert, the channel and the content-state, linked to the
        broadcast's exchange."""
        browser.set_viewport(self.driver, *browser.WIDE)
        device = "zz-live-activity"  # sorts after the other APNs devices (export-replay pushes to the first)
        status, _ = pushes.admin_call(self.admin, "PUT", f"/devices/{device}",
                                      {"id": device, "provider": "apns", "token": "1a" * 32, "environment": "production"})
        assert status in (200, 201), status
        status, channel = pushes.admin_call(self.admin, "POST", "/apns/channels",
                                            {"bundleId": self.kit.apns_topic, "environment": "production", "messageStoragePolicy": 0})
        assert status == 201, (status, channel)
        cid = channel["channelId"]
        status, sub = pushes.admin_call(self.admin, "POST", f"/apns/devices/{device}/channels", {"channelId": cid})
        assert status == 201, (status, sub)
        payload = {"aps": {"event": "update", "timestamp": int(time.time()), "content-state": {"score": "2-1"},
                           "alert": {"title": "Goal!", "body": "Home team leads 2-1"}}}
        status, reason = pushes.send_broadcast(self.kit, cid, payload)
        assert status == 200, (status, reason)
        updates = pushes.admin_call(self.admin, "GET", f"/apns/devices/{device}/channels")[1]["updates"]
        assert [u["payload"]["aps"]["content-state"] for u in updates] == [{"score": "2-1"}], updates
        self.open_page("/")
        box = self.open_device(device)
        note = wait(self.driver, lambda d: [n for n in find_all(box, "notification") if "Goal!" in n.text], 10,
                    f"the broadcast in {device}'s inbox")[0]
        assert note.get_attribute("data-platform") == "ios", note.get_attribute("data-platform")
        assert find_all(note, "notification-title")[0].text == "Goal!", note.text
        assert find_all(note, "notification-body")[0].text == "Home team leads 2-1", note.text
        meta = " ".join(note.text.split())
        for part in (f"channel: {cid}", 'content-state: {"score":"2-1"}', "event: update"):
            assert part in meta, f"{part!r} not in {meta!r}"
        seq = note.get_attribute("data-seq")
        assert seq and self.row(seq) is not None and self.row(seq).get_attribute("data-provider") == "apns", \
            f"the notification is not linked to the broadcast's exchange row (data-seq {seq!r})"
        self.checks.screenshot("device-inbox-live-activity")
        return f"{device} subscribed to {cid}: the broadcast shows as {find_all(note, 'notification-title')[0].text!r}, exchange #{seq}"

    def check_clear_history(self):
        """`clear-history` forgets the history only: the timeline empties, devices and rules stay
        (the admin API agrees)."""
        browser.set_viewport(self.driver, *browser.WIDE)
        self.open_page("/")
        devices = pushes.admin_call(self.admin, "GET", "/devices")[1]
        faults = pushes.admin_call(self.admin, "GET", "/faults")[1]
        assert devices and faults, f"nothing armed to keep: {len(devices)} devices, {len(faults)} rules"
        wait(self.driver, lambda d: self.rows(), 10, "rows before clear-history")
        find(self.driver, "clear-history").click()
        wait(self.driver, lambda d: not self.rows(), 10, "the timeline to empty")
        history = pushes.admin_call(self.admin, "GET", "/history")[1]
        assert history["count"] == 0, history["count"]
        kept = pushes.admin_call(self.admin, "GET", "/devices")[1]
        assert device_summary(kept) == device_summary(devices), (device_summary(kept), device_summary(devices))
        assert [f["rule"] for f in pushes.admin_call(self.admin, "GET", "/faults")[1]] == [f["rule"] for f in faults]
        assert find_all(self.driver, "fault-item"), "the fault list emptied"
        self.checks.screenshot("after-clear-history")
        return f"history gone; {len(kept)} devices and {len(faults)} rule(s) kept (API and page)"

    def check_reset(self):
        """`reset` forgets devices, rules and history (the admin API agrees, the page empties);
        the live stream goes on: a push after it shows up as a row."""
        browser.set_viewport(self.driver, *browser.WIDE)
        self.open_page("/")
        find(self.driver, "reset").click()
        wait(self.driver, lambda d: not self.rows() and not find_all(d, "device-item") and not find_all(d, "fault-item"),
             10, "the timeline, the device list and the fault list to empty")
        devices = pushes.admin_call(self.admin, "GET", "/devices")[1]
        faults = pushes.admin_call(self.admin, "GET", "/faults")[1]
        history = pushes.admin_call(self.admin, "GET", "/history")[1]
        assert devices == [] and faults == [] and history["count"] == 0, (devices, faults, history["count"])
        token = "c0c0" * 16
        status, reason, _ = pushes.send_apns(self.kit, token, "after reset", "still live")
        assert status == 200, (status, reason)
        row = wait(self.driver, lambda d: self.rows(), 10, "the push after the reset to appear live")[0]
        assert row.get_attribute("data-provider") == "apns", row.get_attribute("data-provider")
        self.checks.screenshot("after-reset")
        return f"devices, rules and history gone (API and page); the next push is row seq {row.get_attribute('data-seq')}"

    def check_dropped(self):
        """A double whose history cap was passed shows dropped-banner."""
        assert self.args.capped, "no --capped double given"
        doc = json.load(open(self.args.capped))
        kit = pushes.Kit(doc["environment"])
        for i in range(5):
            status, reason, _ = pushes.send_apns(kit, f"{i:02x}" * 32, f"capped {i}", "fills the history")
            assert status == 200, (status, reason)
        status, doc = pushes.admin_call(kit.admin, "GET", "/history")
        assert doc.get("dropped", 0) > 0, f"the capped double dropped nothing: count {doc.get('count')}, dropped {doc.get('dropped')}"
        self.driver.get(kit.admin + "/")
        banner = wait_visible(self.driver, "dropped-banner", 10)
        text = " ".join(banner.text.split())
        assert str(doc["dropped"]) in text, f"dropped-banner {text!r} does not say {doc['dropped']} were dropped"
        self.checks.screenshot("dropped-banner")
        return f"{doc['dropped']} dropped → dropped-banner {text!r}"

    def check_console(self):
        entries = browser.console_log(self.driver)
        severe = [e for e in entries if e.startswith("SEVERE") and "favicon" not in e
                  and not any(f" {o}/" in e for o in self.cut_origins)]
        assert not severe, f"console errors: {severe}"
        return f"{len(entries)} console entries, no error"


# Previews and stories: tokens no other check pushes to.
PREVIEW_TOKENS = {"apns": "a11e" * 16, "liveactivity": "1a1a" * 16, "fcm": "browser-preview-fcm-token:APA91bPREVIEW"}
STORY_FCM = {"id": "browser-story-fcm", "token": "browser-story-fcm-token:APA91bSTORY"}
STORY_EXPO = {"id": "browser-story-expo", "token": "ExponentPushToken[browserstoryreceipt01]"}
LONG_BODY = ("Your order of three items has left our warehouse in Leipzig and is now with the courier. "
             "It should reach you tomorrow between 9:00 and 13:00; you can change the delivery slot, "
             "choose a neighbour or a parcel locker, or ask the driver to leave it at the door. "
             "Reply STOP to stop these messages. Track it in the app under Orders → Deliveries.")
CURL_FRAMING = ("host", "content-length", "connection", "transfer-encoding")


def exchange(admin, seq):
    """The history entry `seq`."""
    status, doc = pushes.admin_call(admin, "GET", f"/history?after={seq - 1}&limit=1")
    assert status == 200 and doc["exchanges"] and doc["exchanges"][0]["seq"] == seq, (status, doc)
    return doc["exchanges"][0]


def expected_curl(ex):
    """The curl command line docs/inbox.md "Copy as curl" specifies for a recorded request."""
    r, h2 = ex["request"], ex["transport"]["version"] == "HTTP/2"
    q = lambda v: "'" + str(v).replace("'", "'\\''") + "'"  # noqa: E731
    parts = ["curl", "-sS", "-i"]
    if h2:
        parts.append("--http2" if r["scheme"] == "https" else "--http2-prior-knowledge")
    if r["scheme"] == "https":
        parts += ["--cacert", '"$PUSHDOUBLE_CA_FILE"']
    parts += ["-X", q(r["method"])]
    names = []
    for name, value in r["headers"]:
        if name.startswith(":") or name.lower() in CURL_FRAMING:
            continue
        names.append(name.lower())
        parts += ["-H", q(f"{name}: {value}")]
    text, binary = bool(r.get("body")), not r.get("body") and bool(r.get("bodyBase64"))
    unset = ["Accept", "User-Agent"] + (["Content-Type"] if text or binary else []) + (["Expect"] if (text or binary) and not h2 else [])
    parts += [x for name in unset if name.lower() not in names for x in ("-H", q(name + ":"))]
    if text:
        parts += ["--data-binary", q(r["body"])]
    elif binary:
        parts += ["--data-binary", "@-"]
    parts.append(q(f"{r['scheme']}://{r['authority']}{r['path']}"))
    command = " ".join(parts)
    return f"printf '%s' {q(r['bodyBase64'])} | base64 -d | {command}" if binary else command


def request_facts(ex):
    """What a replay must reproduce: method, path, the headers but the framing ones, the body."""
    r = ex["request"]
    headers = [(n.lower(), v) for n, v in r["headers"] if not n.startswith(":") and n.lower() not in CURL_FRAMING]
    return (r["method"], r["path"], sorted(headers), r.get("body"), r.get("bodyBase64"))


def same_request(a, b):
    return request_facts(a) == request_facts(b)


def device_summary(devices):
    """(id, provider, token, state) of each device, sorted: what a replay must reproduce."""
    return sorted((d["id"], d["provider"], d.get("token", ""), d.get("state", "active")) for d in devices)


def replay(binary, scenario_path):
    """Runs `pushdouble replay --ephemeral` with the file; returns its devices, rules and the
    answer to an APNs push to the (exported) unregistered device."""
    tmp = tempfile.mkdtemp(prefix="pd-browser-replay-")
    endpoints = os.path.join(tmp, "endpoints.json")
    log = open(os.path.join(tmp, "replay.log"), "w")
    proc = subprocess.Popen([binary, "replay", "--ephemeral", "--no-proxy", "--endpoints-file", endpoints, scenario_path],
                            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        doc = pushes.wait_for(lambda: os.path.exists(endpoints) and os.path.getsize(endpoints) > 0
                              and json.load(open(endpoints)), 20)
        if not doc:
            raise AssertionError(f"replay wrote no endpoints file (exit {proc.poll()}): {open(log.name).read()}")
        kit = pushes.Kit(doc["environment"])
        devices = device_summary(pushes.admin_call(kit.admin, "GET", "/devices")[1])
        faults = [f["rule"]["id"] for f in pushes.admin_call(kit.admin, "GET", "/faults")[1]]
        apns = [d for d in devices if d[1] == "apns"][0]
        status, reason, _ = pushes.send_apns(kit, apns[2], "replayed", "replayed")
        return {"devices": devices, "faults": faults, "push": (status, reason)}
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def main():
    args = parse_args()
    only = set(args.only.split(",")) if args.only else None
    out = os.path.abspath(args.out)
    args.out = out
    checks = browser.Checks(out)
    print(f"screenshots: {out}", flush=True)
    session = InboxSession(args, checks)
    steps = [("page", session.check_page), ("inbox-route", session.check_inbox_route),
            ("timeline", session.check_timeline), ("device-count", session.check_device_count),
            ("filter-provider", session.check_provider_filter),
            ("filter-search", session.check_search_filter), ("filter-device", session.check_device_filter),
            ("device-inbox", session.check_device_inbox), ("decrypt-error", session.check_decrypt_error),
            ("declarative", session.check_declarative), ("browser-device", session.check_browser_device),
            ("detail-auth", session.check_detail), ("detail-credentials", session.check_detail_credentials),
            ("keyboard", session.check_keyboard), ("state-change", session.check_state_change),
            ("filter-status", session.check_status_filter), ("faults", session.check_faults),
            ("faults-live", session.check_faults_live),
            ("preview-ios", session.check_preview_ios), ("preview-live-activity", session.check_preview_live_activity), ("preview-broadcast", session.check_preview_broadcast),
            ("preview-android", session.check_preview_android), ("preview-browser", session.check_preview_browser),
            ("open-world", session.check_open_world), ("story-retry", session.check_story_retry),
            ("copy-curl", session.check_copy_curl), ("copy-curl-binary", session.check_copy_curl_binary),
            ("expo-receipt", session.check_expo_receipt), ("state-keeps-history", session.check_state_keeps_history),
            ("story-keyboard", session.check_story_keyboard), ("narrow-previews", session.check_narrow_previews),
            ("faults-live", session.check_faults_live), ("rule-builder", session.check_rule_builder),
            ("device-form", session.check_device_form), ("device-actions", session.check_device_actions),
            ("qa-stories", session.check_qa_stories), ("library", session.check_library),
            ("export-replay", session.check_export_replay), ("reconnect", session.check_reconnect), ("layout-1280", session.check_wide_layout),
            ("layout-400", session.check_narrow), ("live-activity", session.check_live_activity),
            ("clear-history", session.check_clear_history),
            ("reset", session.check_reset),
            ("dropped-banner", session.check_dropped),
            ("console", session.check_console)]
    driver = browser.start_browser(*browser.WIDE)
    session.driver = checks.driver = driver
    print(browser.versions(driver), flush=True)
    try:
        for i, (name, fn) in enumerate(steps):
            if only is None or name in only:
                if not checks.run(name, fn) and name == "page":
                    for rest, _ in steps[i + 1:]:
                        checks.fail(rest, "not run: the page did not load")
                    break
    finally:
        driver.quit()
    checks.finish("inbox_test")


if __name__ == "__main__":
    main()
