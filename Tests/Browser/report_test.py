#!/usr/bin/env python3
"""The HTML conformance report (`pushdouble conform --html FILE`) in headless Chromium.

Driven by Tests/PushDoubleBrowserTests/InboxBrowserTests.swift, which writes a report of cases
that retry (so their timelines have several attempts); by hand:

    pushdouble conform --sender "$(swift build --show-bin-path)/pushdouble-reference-sender" \
        --only apns.too-many-requests --html /tmp/report.html
    python3 Tests/Browser/report_test.py --report /tmp/report.html --out /tmp/browser-output

Loads the file with file:// and checks, by data-testid (docs/inbox.md): `report-summary`, one
`case` per case with a `data-case-id` and a known `data-verdict`, its `verdict` items, and a
`retry-timeline` with `attempt` marks (at least --min-attempts in one timeline); the file loads
nothing but itself. Prints PASS/FAIL lines like inbox_test.py; exit 1 on a failure.
"""
import argparse
import os

import browser
from browser import find_all, wait_visible

VERDICTS = ("pass", "fail", "warn", "error")


def check_report(checks, driver, path, min_attempts):
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


def check_timelines(checks, driver, min_attempts):
    per_case = {}
    for c in find_all(driver, "case"):
        timelines = find_all(c, "retry-timeline")
        assert timelines, f"case {c.get_attribute('data-case-id')} has no retry-timeline"
        attempts = [a for t in timelines for a in find_all(t, "attempt")]
        assert attempts, f"case {c.get_attribute('data-case-id')}: retry-timeline without attempt marks"
        assert all(a.get_attribute("data-seq") for a in attempts), "an attempt without data-seq"
        per_case[c.get_attribute("data-case-id")] = len(attempts)
    most = max(per_case.values())
    assert most >= min_attempts, f"at most {most} attempts in one case, expected a retry ({min_attempts}): {per_case}"
    return "attempt marks per case: " + ", ".join(f"{k} {n}" for k, n in sorted(per_case.items()))


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
    p.add_argument("--min-attempts", type=int, default=2,
                   help="attempt marks at least one case's timeline must have (a retrying case: 2)")
    a = p.parse_args()
    out = os.path.abspath(a.out)
    checks = browser.Checks(out)
    print(f"screenshots: {out}", flush=True)
    driver = browser.start_browser(*browser.WIDE)
    checks.driver = driver
    print(browser.versions(driver), flush=True)
    try:
        if checks.run("report", check_report, checks, driver, a.report, a.min_attempts):
            checks.run("report-timelines", check_timelines, checks, driver, a.min_attempts)
            checks.run("report-offline", check_self_contained, checks, driver)
            checks.run("report-400", check_narrow, checks, driver)
    finally:
        driver.quit()
    checks.finish("report_test")


if __name__ == "__main__":
    main()
