#!/usr/bin/env python3
"""The HTML conformance report (`pushdouble conform --html FILE`) in headless Chromium.

Driven by Tests/PushDoubleBrowserTests/InboxBrowserTests.swift, which writes a report of cases
that retry (so their timelines have several attempts); by hand:

    pushdouble conform --sender "$(swift build --show-bin-path)/pushdouble-reference-sender" \
        --only apns.too-many-requests --html /tmp/report.html
    python3 Tests/Browser/report_test.py --report /tmp/report.html --out /tmp/browser-output \
        --retry-case apns.too-many-requests

Loads the file with file:// and checks, by data-testid (docs/inbox.md): `report-summary`, one
`case` per case with a `data-case-id` and a known `data-verdict`, its `verdict` items, and a
`retry-timeline` with `attempt` marks; in --retry-case a notification with several attempts and
a `retry-after-window`, marked `attempt-early` exactly when --early; the file loads nothing but itself. Prints PASS/FAIL lines like inbox_test.py; exit 1 on a failure.
"""
import argparse
import os

import browser
from browser import find_all, wait_visible

VERDICTS = ("pass", "fail", "warn", "error")


def check_report(checks, driver, path):
    driver.get("file://" + os.path.abspath(path))
    summary = wait_visible(driver, "report-summary", 10)
    cases = find_all(driver, "case")
    assert cases, "no case in the report"
    verdicts = {c.get_attribute("data-case-id"): c.get_attribute("data-verdict") for c in cases}
    bad = {k: v for k, v in verdicts.items() if v not in VERDICTS or not k}
    assert not bad, f"cases without a case id or a known verdict: {bad}"
    for c in cases:
        assert find_all(c, "verdict"), f"case {c.get_attribute('data-case-id')} lists no verdict"
    checks.screenshot("report-1280x800")
    return (f"summary {' '.join(summary.text.split())[:100]!r}; {len(cases)} case(s): "
            + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())))


def check_timelines(checks, driver, retry_case, early):
    """Every case has a timeline with attempts; in the retrying case one notification has
    several attempts and a Retry-After window, and its retry is marked early exactly when
    the sender retried inside the window (`early`)."""
    per_case = {}
    for c in find_all(driver, "case"):
        timelines = find_all(c, "retry-timeline")
        assert timelines, f"case {c.get_attribute('data-case-id')} has no retry-timeline"
        attempts = [a for t in timelines for a in find_all(t, "attempt")]
        assert attempts, f"case {c.get_attribute('data-case-id')}: retry-timeline without attempt marks"
        assert all(a.get_attribute("data-seq") for a in attempts), "an attempt without data-seq"
        per_case[c.get_attribute("data-case-id")] = c
    assert retry_case in per_case, f"no case {retry_case} in the report: {sorted(per_case)}"
    case = per_case[retry_case]
    groups = find_all(case, "timeline-notification")
    most = max((len(find_all(g, "attempt")) for g in groups), default=0)
    assert most >= 2, f"{retry_case}: no notification with a retry ({len(groups)} notifications, at most {most} attempts)"
    windows = find_all(case, "retry-after-window")
    assert windows, f"{retry_case}: no retry-after-window drawn"
    marks = find_all(case, "attempt-early")
    verdict = case.get_attribute("data-verdict")
    if early:
        assert marks, f"{retry_case}: the retry inside the Retry-After window is not marked attempt-early"
        assert verdict == "fail", f"{retry_case}: verdict {verdict}, expected fail"
    else:
        early_anywhere = find_all(driver, "attempt-early")
        assert not early_anywhere, f"attempt-early marks though the sender waited: {len(early_anywhere)}"
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", find_all(case, "retry-timeline")[0])
    checks.screenshot(f"report-{retry_case}")
    return (f"{retry_case} ({verdict}): {len(groups)} notification(s), a retry of {most} attempts, "
            f"{len(windows)} Retry-After window(s), {len(marks)} early mark(s); "
            + ", ".join(f"{k} {len(find_all(c, 'attempt'))} attempts" for k, c in sorted(per_case.items())))


def check_self_contained(checks, driver):
    resources = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    foreign = [r for r in resources if not r.startswith(("file:", "data:", "blob:"))]
    assert not foreign, f"the report loads external resources: {foreign}"
    severe = [e for e in browser.console_log(driver) if e.startswith("SEVERE")]
    assert not severe, f"console errors: {severe}"
    return f"{len(resources)} resources loaded, none external; no console error"


def check_narrow(checks, driver):
    w, h = browser.NARROW
    browser.set_viewport(driver, w, h)
    driver.refresh()
    wait_visible(driver, "report-summary", 10)
    sw, iw = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    checks.screenshot(f"report-{w}x{h}")
    assert sw <= iw, f"horizontal scroll: document scrollWidth {sw} > innerWidth {iw}"
    return f"scrollWidth {sw} <= innerWidth {iw}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--report", required=True, help="the HTML file `pushdouble conform --html` wrote")
    p.add_argument("--out", required=True, help="directory for the screenshots")
    p.add_argument("--retry-case", required=True, help="id of a case in the report whose sender retried after a Retry-After")
    p.add_argument("--early", action="store_true",
                   help="the sender retried inside the Retry-After window (a mutant): expect attempt-early marks")
    a = p.parse_args()
    out = os.path.abspath(a.out)
    checks = browser.Checks(out)
    print(f"screenshots: {out}", flush=True)
    driver = browser.start_browser(*browser.WIDE)
    checks.driver = driver
    print(browser.versions(driver), flush=True)
    try:
        if checks.run("report", check_report, checks, driver, a.report):
            checks.run("report-timelines", check_timelines, checks, driver, a.retry_case, a.early)
            checks.run("report-offline", check_self_contained, checks, driver)
            checks.run("report-400", check_narrow, checks, driver)
    finally:
        driver.quit()
    checks.finish("report_test")


if __name__ == "__main__":
    main()
