"""Web Push end to end in a real browser, offline: headless Firefox subscribes through the
double, pywebpush pushes, the service worker decrypts and shows the exact text."""

import time

from app_server import push



def browsers(admin):
    return admin.get("/webpush/browsers")


def connected_agent(admin, timeout=15):
    """The UAID of the connected browser (waits for its hello)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        live = [b["uaid"] for b in browsers(admin) if b["connected"]]
        if live:
            return live[0]
        time.sleep(0.05)
    raise AssertionError("no browser connected: %r" % browsers(admin))


def browser_leg(admin, text_status=201, timeout=10, state=None):
    """The ``browser`` annotation of the newest accepted push (waits for ``state``)."""
    deadline = time.monotonic() + timeout
    while True:
        pushes = [e for e in admin.history(provider="webpush") if e.status == text_status]
        leg = pushes[-1].annotations.get("browser") if pushes else None
        if leg and (state is None or leg["delivery"] == state):
            return leg
        if time.monotonic() > deadline:
            raise AssertionError("no browser leg in state %s: %r" % (state, leg))
        time.sleep(0.05)


def go_offline(page, admin):
    """Takes the browser offline (Firefox's own offline mode): its push service closes the
    connection and stays away until the network is back (:meth:`Page.go_online`)."""
    page.set_offline(True)
    deadline = time.monotonic() + 10
    while any(b["connected"] for b in browsers(admin)):
        assert time.monotonic() < deadline, "the browser is still connected: %r" % browsers(admin)
        time.sleep(0.05)


def test_service_worker_gets_the_exact_text(pushdouble, page):
    env = pushdouble.environment
    subscription = page.subscribe(env["VAPID_PUBLIC_KEY"])
    assert subscription["endpoint"].startswith(pushdouble.url("webpush") + "/wpush/v2/"), subscription
    text = "Grüße aus dem Backend — 你好 👋"
    answer = push(subscription, text, env)
    assert answer.status_code == 201, answer.text
    page.wait_for(text)
    assert text in page.notifications()
    leg = browser_leg(pushdouble.admin, state="acked")
    assert leg["code"] == 100, leg


def test_queued_message_arrives_after_reconnect(pushdouble, page):
    env = pushdouble.environment
    subscription = page.subscribe(env["VAPID_PUBLIC_KEY"])
    go_offline(page, pushdouble.admin)
    assert push(subscription, "sent while you were away", env, ttl=300).status_code == 201
    assert browser_leg(pushdouble.admin, state="queued")
    page.set_offline(False)
    page.wait_for("sent while you were away")
    assert browser_leg(pushdouble.admin, state="acked")["sends"] == 1


def test_ttl_zero_to_an_offline_browser_is_dropped(pushdouble, page):
    env = pushdouble.environment
    subscription = page.subscribe(env["VAPID_PUBLIC_KEY"])
    go_offline(page, pushdouble.admin)
    assert push(subscription, "now or never", env, ttl=0).status_code == 201
    assert browser_leg(pushdouble.admin, state="dropped")["reason"].startswith("TTL 0")
    page.set_offline(False)
    assert push(subscription, "after the TTL-0 message", env).status_code == 201
    page.wait_for("after the TTL-0 message")
    assert "now or never" not in page.received()


def test_unsubscribed_endpoint_answers_410(pushdouble, page):
    env = pushdouble.environment
    subscription = page.subscribe(env["VAPID_PUBLIC_KEY"])
    assert page.unsubscribe() is True
    answer = push(subscription, "too late", env)
    assert answer.status_code == 410, answer.text


def test_a_fault_is_seen_by_the_sender_and_the_retry_arrives_once(pushdouble, page):
    env = pushdouble.environment
    subscription = page.subscribe(env["VAPID_PUBLIC_KEY"])
    pushdouble.admin.fail_next("webpush", count=1, status=429, retry_after=1)
    first = push(subscription, "retried once", env)
    assert first.status_code == 429 and first.headers.get("Retry-After") == "1", (first.status_code, first.headers)
    time.sleep(int(first.headers["Retry-After"]))
    assert push(subscription, "retried once", env).status_code == 201
    page.wait_for("retried once")
    time.sleep(0.5)
    assert page.received().count("retried once") == 1


def test_inbox_shows_the_browser_device_with_its_delivery_and_ack(pushdouble, page):
    env = pushdouble.environment
    subscription = page.subscribe(env["VAPID_PUBLIC_KEY"])
    assert push(subscription, "for the inbox", env).status_code == 201
    page.wait_for("for the inbox")
    browser_leg(pushdouble.admin, state="acked")
    device = pushdouble.admin.history(provider="webpush")[-1].get("deviceID")
    assert device and device.startswith("browser-"), device
    m = page.marionette
    m.navigate(pushdouble.admin_url + "/")

    def js(script, timeout=10):
        deadline = time.monotonic() + timeout
        while True:
            value = m.execute_script(script, script_args=[device], sandbox=None)
            if value or time.monotonic() > deadline:
                return value
            time.sleep(0.1)

    assert js('const el = document.querySelector(`[data-testid="device-item"][data-device-id="${arguments[0]}"]`);'
              ' if (el) el.click(); return !!el;'), "the browser device is not in the inbox's device list"
    text = js('const box = document.querySelector(\'[data-testid="device-inbox"]\');'
              ' const n = box && box.querySelector(\'[data-testid="notification"]\');'
              ' return n && n.textContent.includes("acked") ? n.textContent : null;')
    assert text and "Relayed to a real browser" in text and "acked (code 100)" in text, text
