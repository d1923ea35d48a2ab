"""Every address the browser tests reach is the double's, on loopback: no proxy from the
environment may sit in between (urllib, httpx, requests and Selenium's own connection to
chromedriver all read these variables)."""
import os

PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")


def drop_proxies():
    """Removes the proxy variables from this process's environment."""
    for name in PROXY_VARIABLES:
        os.environ.pop(name, None)
