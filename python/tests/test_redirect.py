"""Host redirect: a real name:port resolves to a local server for http.client, urllib,
asyncio and raw sockets; the Host header keeps the real name; the patch is removed on
exit; PUSHDOUBLE_HOST_MAP; and, with the real binary, TLS to a fake under a real
provider name (SNI and certificate check on the real name)."""

import asyncio
import http.client
import http.server
import json
import socket
import ssl
import threading
import urllib.request

import pytest

from pushdouble import redirect


class _Recorder(http.server.BaseHTTPRequestHandler):
    seen = []

    def do_GET(self):
        type(self).seen.append((self.path, self.headers.get("Host")))
        body = b"hello from the local server"
        self.send_response(200)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, *a):
        pass


@pytest.fixture
def local_http():
    _Recorder.seen = []
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv.server_address[1], _Recorder.seen
    srv.shutdown()
    srv.server_close()


def _no_proxy_opener():
    return urllib.request.build_opener(urllib.request.ProxyHandler({}))


def test_http_client_reaches_the_local_server_under_the_real_name(local_http):
    port, seen = local_http
    with redirect.redirect_hosts({"example.invalid:443": ("127.0.0.1", port)}) as r:
        c = http.client.HTTPConnection("example.invalid", 443, timeout=5)
        c.request("GET", "/via-http-client")
        resp = c.getresponse()
        assert resp.status == 200 and resp.read() == b"hello from the local server"
        c.close()
    assert seen == [("/via-http-client", "example.invalid:443")]
    assert r.hits >= 1


def test_urllib_and_the_patch_is_removed_afterwards(local_http):
    port, seen = local_http
    original = socket.getaddrinfo
    with redirect.redirect_hosts({"example.invalid:443": "127.0.0.1:%d" % port}):
        assert socket.getaddrinfo is not original
        with _no_proxy_opener().open("http://example.invalid:443/via-urllib", timeout=5) as r:
            assert r.status == 200
    assert socket.getaddrinfo is original
    assert seen == [("/via-urllib", "example.invalid:443")]
    with pytest.raises(socket.gaierror):
        socket.getaddrinfo("example.invalid", 443)


def test_asyncio_open_connection(local_http):
    port, seen = local_http

    async def fetch():
        reader, writer = await asyncio.open_connection("example.invalid", 443)
        writer.write(b"GET /via-asyncio HTTP/1.1\r\nHost: example.invalid\r\nConnection: close\r\n\r\n")
        await writer.drain()
        data = await reader.read()
        writer.close()
        return data

    with redirect.redirect_hosts({"example.invalid:443": ("127.0.0.1", port)}):
        data = asyncio.run(fetch())
    assert data.startswith(b"HTTP/1.") and b"hello from the local server" in data
    assert seen == [("/via-asyncio", "example.invalid")]


def test_create_connection_and_other_names_untouched(local_http):
    port, _ = local_http
    with redirect.redirect_hosts({"Example.Invalid:443": ("127.0.0.1", port)}):
        s = socket.create_connection(("example.invalid.", "443"), timeout=5)  # case, trailing dot, port as text
        assert s.getpeername()[1] == port
        s.close()
        # another port of the same name is not redirected
        with pytest.raises(socket.gaierror):
            socket.getaddrinfo("example.invalid", 80)
        # other names resolve as usual
        assert socket.getaddrinfo("127.0.0.1", 9)[0][4][0] == "127.0.0.1"


def test_nested_redirects_newest_wins_and_unwind(local_http):
    port, seen = local_http
    outer = redirect.redirect_hosts({"a.invalid:443": ("127.0.0.1", 1)})
    try:
        with redirect.redirect_hosts({"a.invalid:443": ("127.0.0.1", port)}):
            assert socket.getaddrinfo("a.invalid", 443)[0][4][1] == port
        assert socket.getaddrinfo("a.invalid", 443)[0][4][1] == 1
    finally:
        outer.close()
    with pytest.raises(socket.gaierror):
        socket.getaddrinfo("a.invalid", 443)


def test_map_from_the_environment(local_http, monkeypatch):
    port, seen = local_http
    monkeypatch.delenv(redirect.ENV_VAR, raising=False)
    assert redirect.redirect_from_environment() is None
    monkeypatch.setenv(redirect.ENV_VAR, json.dumps({"example.invalid:443": "127.0.0.1:%d" % port}))
    r = redirect.redirect_from_environment()
    try:
        with _no_proxy_opener().open("http://example.invalid:443/via-env", timeout=5) as resp:
            assert resp.status == 200
    finally:
        r.close()
    with redirect.redirect_hosts():  # no mapping: read from the environment as well
        assert socket.getaddrinfo("example.invalid", 443)[0][4][1] == port
    assert seen[0] == ("/via-env", "example.invalid:443")


@pytest.mark.parametrize("bad", [{"nohost": "127.0.0.1:1"}, {"h:443": "127.0.0.1"}, {"h:x": "127.0.0.1:1"},
                                 {"h:443": "127.0.0.1:99999"}])
def test_bad_maps_are_refused(bad):
    with pytest.raises(ValueError):
        redirect.redirect_hosts(bad)


def test_bad_environment_value(monkeypatch):
    monkeypatch.setenv(redirect.ENV_VAR, "not json")
    with pytest.raises(ValueError, match="PUSHDOUBLE_HOST_MAP"):
        redirect.redirect_from_environment()


def test_ipv6_target_syntax():
    assert redirect.parse_host_map({"h.invalid:443": "[::1]:8443"}) == {("h.invalid", 443): ("::1", 8443)}


def test_host_map_from_initialize_params():
    m = redirect.host_map_from_providers({
        "apns": {"url": "https://127.0.0.1:41234", "sandboxUrl": "https://127.0.0.1:41235"},
        "fcm": {"url": "https://127.0.0.1:5000", "tokenUrl": "https://127.0.0.1:5001/token"},
        "somethingElse": {"url": "https://127.0.0.1:1"},
    })
    assert m["api.push.apple.com:443"] == ("127.0.0.1", 41234)
    assert m["api.push.apple.com:2197"] == ("127.0.0.1", 41234)
    assert m["api.sandbox.push.apple.com:443"] == ("127.0.0.1", 41235)
    assert m["api.development.push.apple.com:443"] == ("127.0.0.1", 41235)
    assert m["fcm.googleapis.com:443"] == ("127.0.0.1", 5000)
    assert m["oauth2.googleapis.com:443"] == ("127.0.0.1", 5001)
    assert "exp.host:443" not in m


def test_tls_to_a_fake_under_the_real_fcm_name(clean):
    """http.client over TLS to https://fcm.googleapis.com: the socket reaches the FCM fake,
    the certificate is checked against the real name, and the fake sees that name."""
    server = clean
    import support

    env = server.environment
    token = support.fcm_access_token(env)
    ctx = ssl.create_default_context(cafile=server.ca_file)
    with redirect.redirect_hosts(server.host_map()):
        c = http.client.HTTPSConnection("fcm.googleapis.com", 443, context=ctx, timeout=10)
        body = json.dumps({"message": {"token": "redirected-token", "notification": {"title": "t"}}})
        c.request("POST", "/v1/projects/%s/messages:send" % env["FCM_PROJECT_ID"], body,
                  {"authorization": "Bearer " + token, "content-type": "application/json"})
        resp = c.getresponse()
        assert resp.status == 200, resp.read()
        c.close()
    x = server.admin.last(provider="fcm", endpoint="fcm.send")
    assert x.token == "redirected-token"
    assert x.request["authority"] == "fcm.googleapis.com"
    assert x["transport"]["connection"]["tls"]["serverName"] == "fcm.googleapis.com"


def test_tls_with_a_wrong_name_is_still_refused(clean):
    """The redirect changes where a socket goes, not what TLS checks: a name the test
    certificate does not carry fails verification."""
    ctx = ssl.create_default_context(cafile=clean.ca_file)
    fcm_port = clean.endpoint("fcm")["port"]
    with redirect.redirect_hosts({"not-a-provider.invalid:443": ("127.0.0.1", fcm_port)}):
        c = http.client.HTTPSConnection("not-a-provider.invalid", 443, context=ctx, timeout=10)
        with pytest.raises(ssl.SSLCertVerificationError):
            c.request("GET", "/")
        c.close()


def test_names_given_as_bytes_as_anyio_passes_them(local_http):
    # httpx/httpcore (through anyio) call getaddrinfo with the name as IDNA-encoded bytes
    port, _ = local_http
    with redirect.redirect_hosts({"fcm.example.invalid:443": ("127.0.0.1", port)}) as r:
        info = socket.getaddrinfo(b"fcm.example.invalid", 443, type=socket.SOCK_STREAM)
        assert info[0][4][:2] == ("127.0.0.1", port)
        assert r.hits == 1
        # a name the idna codec refuses is looked up as it is, not an error of the patch
        with pytest.raises(socket.gaierror):
            socket.getaddrinfo(b"bad..name.invalid", 443, type=socket.SOCK_STREAM)


def test_anyio_connect_tcp_gets_the_mapped_port(local_http):
    # anyio (httpx's async transport) resolves the name but connects to the caller's port
    anyio = pytest.importorskip("anyio")
    port, _ = local_http

    async def fetch():
        stream = await anyio.connect_tcp("anyio.example.invalid", 443)
        async with stream:
            await stream.send(b"GET /via-anyio HTTP/1.0\r\nHost: anyio.example.invalid\r\n\r\n")
            return await stream.receive()

    with redirect.redirect_hosts({"anyio.example.invalid:443": ("127.0.0.1", port)}):
        assert anyio.connect_tcp is not None
        assert b"200" in asyncio.run(fetch())
    assert anyio.connect_tcp.__name__ == "connect_tcp"  # the wrapper is gone after the last redirect


def test_the_host_tables_come_from_the_binary_and_agree(pushdouble_bin, clean):
    """The kit keeps no host table: ``pushdouble hosts --json`` and a running double's
    endpoints (``realHosts``) give the same names, WNS's wildcard and every provider included,
    and every listener that has real names is reachable from the initialize params."""
    from pushdouble import hosts

    table = hosts.real_hosts(pushdouble_bin)
    assert table["api.push.apple.com:443"] == "apns-production"
    assert table["*.notify.windows.com:443"] == "webpush"
    assert {"apns-production", "apns-sandbox", "fcm", "google-oauth", "expo", "webpush"} <= set(table.values())
    assert hosts.hosts_from_endpoints(clean.admin.endpoints()) == table
    assert set(clean.host_map()) == set(table)
    # Every listener the initialize params name has real names in the binary's table (the APNs
    # channel-management listeners have no initialize member: server.host_map() maps them).
    listeners = {listener for _, _, listener in redirect._PROVIDER_LISTENERS}
    assert listeners <= set(table.values()), "an initialize-params member names a listener without real names"
    assert {"apns-manage-production", "apns-manage-sandbox"} <= set(table.values())


def test_wildcard_names_redirect_exactly_one_label():
    assert redirect_lookup_after({"*.notify.windows.com:443": "127.0.0.1:9"}, "db5p.notify.windows.com", 443) == ("127.0.0.1", 9)
    assert redirect_lookup_after({"*.notify.windows.com:443": "127.0.0.1:9"}, "a.b.notify.windows.com", 443) is None
    assert redirect_lookup_after({"*.notify.windows.com:443": "127.0.0.1:9"}, "notify.windows.com", 443) is None
    assert redirect_lookup_after({"*.notify.windows.com:443": "127.0.0.1:9"}, "db5p.notify.windows.com", 80) is None
    from pushdouble import hosts
    assert hosts.matches("*.notify.windows.com:443", "DB5P.notify.windows.com.", 443)
    assert not hosts.matches("*.notify.windows.com:443", "x.y.notify.windows.com", 443)


def redirect_lookup_after(mapping, host, port):
    with redirect.redirect_hosts(mapping):
        return redirect._lookup(host, port)
