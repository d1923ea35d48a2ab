"""Headless Chromium through Selenium for the browser tests (Tests/Browser/).

Debian's `chromium` and `chromium-driver` only: the driver is given by path
(Service(executable_path=/usr/bin/chromedriver)) and the browser binary explicitly, so
Selenium Manager is never run (selenium's DriverFinder skips it when the service has a path)
and SE_OFFLINE=true forbids it any download should it run anyway. Nothing leaves loopback.

`Checks` runs named checks and prints one `PASS name: detail` / `FAIL name: detail` line each;
on a failure it writes a screenshot `FAIL-<name>.png` and dumps the page's console log.
"""
import os
import shutil
import sys
import traceback

import loopback

os.environ["SE_OFFLINE"] = "true"
loopback.drop_proxies()

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException, WebDriverException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMEDRIVER = os.environ.get("PUSHDOUBLE_CHROMEDRIVER", "/usr/bin/chromedriver")
CHROMIUM = os.environ.get("PUSHDOUBLE_CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
WIDE = (1280, 800)
NARROW = (400, 800)


def start_browser(width, height):
    """A fresh headless Chromium whose viewport is width × height, keeping the console log."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking", "--disable-sync",
                "--disable-component-update", "--disable-default-apps", "--lang=en-US", "--no-proxy-server"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    set_viewport(driver, width, height)
    driver.set_page_load_timeout(20)
    driver.set_script_timeout(20)
    return driver


def set_viewport(driver, width, height):
    """Sizes the window so the page itself (window.innerWidth × innerHeight) is width × height:
    the window size includes the browser's own frame."""
    driver.set_window_size(width, height)
    inner_w, inner_h = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    if (inner_w, inner_h) != (width, height):
        driver.set_window_size(2 * width - inner_w, 2 * height - inner_h)
    return driver.execute_script("return [window.innerWidth, window.innerHeight]")


def versions(driver):
    """`chromium X, chromedriver Y, selenium Z` of a running browser."""
    import selenium
    caps = driver.capabilities
    driver_version = (caps.get("chrome") or {}).get("chromedriverVersion", "").split(" ")[0]
    return f"chromium {caps.get('browserVersion')}, chromedriver {driver_version}, selenium {selenium.__version__}"


def testid(name):
    """CSS selector of a data-testid (the DOM contract, docs/inbox.md)."""
    return f'[data-testid="{name}"]'


def find(scope, name):
    return scope.find_element(By.CSS_SELECTOR, testid(name))


def find_all(scope, name, extra=""):
    return scope.find_elements(By.CSS_SELECTOR, testid(name) + extra)


def visible(elements):
    return [e for e in elements if e.is_displayed()]


def wait(driver, pred, timeout=10, what="condition"):
    """Waits for pred(driver) to be truthy; raises AssertionError naming `what`."""
    try:
        # A page that re-renders replaces elements under the test's feet: retry, not fail.
        return WebDriverWait(driver, timeout, poll_frequency=0.1,
                             ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: pred(d))
    except TimeoutException:
        raise AssertionError(f"timed out after {timeout} s waiting for {what}") from None


def click(driver, locate, what, timeout=5):
    """Clicks the element `locate()` returns (None: not there yet), locating it again when
    the page re-rendered it between finding and clicking (a stale element)."""
    def attempt(_):
        element = locate()
        if element is None:
            return False
        element.click()
        return True
    return wait(driver, attempt, timeout, f"a click on {what}")


def wait_visible(driver, name, timeout=10, scope=None):
    def pred(d):
        els = visible(find_all(scope or d, name))
        return els[0] if els else None
    return wait(driver, pred, timeout, f'a visible [data-testid="{name}"]')


class Checks:
    """Named checks with PASS/FAIL lines, failure screenshots and console dumps."""

    def __init__(self, out_dir):
        self.out_dir = out_dir
        os.makedirs(out_dir, exist_ok=True)
        self.failures = []
        self.passed = []
        self.driver = None  # the browser of the check that is running, for failure evidence
        self.console_shown = 0  # console entries already printed with an earlier failure

    def screenshot(self, name):
        path = os.path.join(self.out_dir, name + ".png")
        if self.driver is not None:
            self.driver.save_screenshot(path)
        return path

    def fail(self, name, why):
        """A check that could not run counts as failed."""
        self.failures.append(name)
        print(f"FAIL {name}: {why}", flush=True)

    def run(self, name, fn, *args):
        try:
            detail = fn(*args)
        except Exception as e:  # noqa: BLE001 - every failure is reported by name
            self.failures.append(name)
            # WebDriver errors carry chromedriver's native stack: its message is what matters.
            message = (e.msg or "").split("\n")[0] if isinstance(e, WebDriverException) else str(e)
            print(f"FAIL {name}: {type(e).__name__}: {message}", flush=True)
            where = traceback.extract_tb(e.__traceback__)[1:]
            print("  at " + " < ".join(f"{os.path.basename(f.filename)}:{f.lineno} {f.name}" for f in reversed(where)),
                  flush=True)
            self.evidence(name)
            return False
        self.passed.append(name)
        print(f"PASS {name}: {detail}", flush=True)
        return True

    def finish(self, script):
        """Prints the screenshot directory and the closing line; exits 1 on a failure."""
        pngs = len([f for f in os.listdir(self.out_dir) if f.endswith(".png")])
        print(f"screenshots: {self.out_dir} ({pngs} PNG files)", flush=True)
        total = len(self.passed) + len(self.failures)
        print(f"{script}: {len(self.failures)} of {total} checks failed ({', '.join(self.failures)})"
              if self.failures else f"{script}: all {total} checks passed", flush=True)
        sys.exit(1 if self.failures else 0)

    def evidence(self, name):
        if self.driver is None:
            return
        try:
            print(f"  screenshot: {self.screenshot('FAIL-' + name)}", flush=True)
            print(f"  url: {self.driver.current_url}", flush=True)
            text = " ".join(self.driver.execute_script("return document.body ? document.body.innerText : ''").split())
            print(f"  page text: {text[:300]!r}", flush=True)
            for entry in console_log(self.driver, since=self.console_shown):
                print(f"  console {entry}", flush=True)
            self.console_shown = len(console_log(self.driver))
        except Exception as e:  # noqa: BLE001 - the evidence must not hide the failure
            print(f"  (no evidence: {e})", flush=True)


_console_seen = {}


def console_log(driver, since=0):
    """The browser console entries from the `since`-th on. Chromium hands each entry out
    once: they are kept per driver so every call sees them all."""
    log = _console_seen.setdefault(id(driver), [])
    try:
        for e in driver.get_log("browser"):
            log.append(f"{e.get('level')} {e.get('message')}")
    except Exception:  # noqa: BLE001 - a closed browser has no log
        pass
    return log[since:]


def choose(select_element, value):
    """Selects the option whose value (the DOM property: `<option>apns</option>` counts) is
    `value`, by clicking it as a user would; fails listing the options there are."""
    options = select_element.find_elements(By.TAG_NAME, "option")
    values = [o.get_attribute("value") for o in options]
    assert value in values, f"{select_element.get_attribute('data-testid')} has no option {value!r}: {values}"
    option = options[values.index(value)]
    if not option.is_selected():
        option.click()
    return values


def fetch_json(driver, url):
    """GETs url from inside the page (same origin, the page's own cookies/headers)."""
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(arguments[0], {headers: {accept: 'application/json'}})"
        ".then(r => r.text().then(t => done({status: r.status, type: r.headers.get('content-type'), text: t})))"
        ".catch(e => done({status: 0, text: String(e)}));", url)
    return result
