"""Web Push end to end in a real browser, offline: headless Firefox subscribes through the
double, pywebpush pushes, the service worker decrypts and shows the exact text."""

import time

from app_server import push

AUTOPUSH_BACKOFF = 4774  # close code: "do not reconnect"


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
    """Closes the browser's connection with 4774: Firefox stays away until told the network is back."""
    uaid = connected_agent(admin)
    admin.request("POST", "/webpush/browsers/%s/disconnect" % uaid, {"code": AUTOPUSH_BACKOFF})
    time.sleep(1.5)  # Firefox would have reconnected after its 0.5 s backoff
    assert not any(b["connected"] for b in browsers(admin)), browsers(admin)
    return uaid


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
    page.reconnect_push_service()
    page.wait_for("sent while you were away")
    assert browser_leg(pushdouble.admin, state="acked")["sends"] == 1


def test_ttl_zero_to_an_offline_browser_is_dropped(pushdouble, page):
    env = pushdouble.environment
    subscription = page.subscribe(env["VAPID_PUBLIC_KEY"])
    go_offline(page, pushdouble.admin)
    assert push(subscription, "now or never", env, ttl=0).status_code == 201
    assert browser_leg(pushdouble.admin, state="dropped")["reason"].startswith("TTL 0")
    page.reconnect_push_service()
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
