import XCTest
@testable import PushDoubleTransport

/// The CONNECT proxy's request parsing and routing, without sockets (the socket behaviour is
/// ConnectProxySocketTests).
final class ConnectProxyRequestTests: XCTestCase {
    private func parse(_ s: String) -> ConnectProxyRequest { ConnectProxyRequest.parse(Array(s.utf8)) }

    private var routed: ConnectProxyConfiguration {
        var c = ConnectProxyConfiguration()
        XCTAssertTrue(c.addRoute("api.example.test:443", to: "one"))
        XCTAssertTrue(c.addRoute("API.Sandbox.Example.Test:2197", to: "two"))
        return c
    }

    func testHeadEndFindsTheBlankLineOnly() {
        XCTAssertNil(ConnectProxyRequest.headEnd(in: Array("CONNECT a:1 HTTP/1.1\r\nHost: a:1\r\n".utf8)))
        let head = Array("CONNECT a:1 HTTP/1.1\r\nHost: a:1\r\n\r\n".utf8)
        XCTAssertEqual(ConnectProxyRequest.headEnd(in: head + Array("\u{16}\u{03}\u{01}".utf8)), head.count)
        XCTAssertEqual(ConnectProxyRequest.headEnd(in: Array("CONNECT a:1 HTTP/1.0\n\nrest".utf8)), 22)
        XCTAssertNil(ConnectProxyRequest.headEnd(in: []))
    }

    func testParsesConnectInAuthorityForm() {
        XCTAssertEqual(parse("CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\n\r\n"),
                       .connect(authority: "api.example.test:443"))
        // Host names are case-insensitive and may end with the root dot.
        XCTAssertEqual(parse("CONNECT API.Example.TEST.:2197 HTTP/1.0\r\n\r\n"), .connect(authority: "api.example.test:2197"))
        XCTAssertEqual(parse("CONNECT [::1]:443 HTTP/1.1\r\n\r\n"), .connect(authority: "[::1]:443"))
    }

    func testOtherMethodsArePlainProxyRequests() {
        XCTAssertEqual(parse("GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n"),
                       .notConnect(method: "GET", target: "http://example.com/"))
        XCTAssertEqual(parse("POST / HTTP/1.1\r\n\r\n"), .notConnect(method: "POST", target: "/"))
    }

    func testMalformedHeads() {
        for bad in ["\r\n\r\n", "CONNECT\r\n\r\n", "CONNECT a:1\r\n\r\n", "CONNECT a:1 HTTP/2\r\n\r\n", "CONNECT  a:1 HTTP/1.1\r\n\r\n",
                    "CONNECT a:1 HTTP/1.1\r\nno colon here\r\n\r\n", "CONNECT a:1 HTTP/1.1\r\n: empty name\r\n\r\n",
                    "CONNECT example.com HTTP/1.1\r\n\r\n", "CONNECT example.com:0 HTTP/1.1\r\n\r\n",
                    "CONNECT example.com:65536 HTTP/1.1\r\n\r\n", "CONNECT example.com:0443 HTTP/1.1\r\n\r\n",
                    "CONNECT example.com:+443 HTTP/1.1\r\n\r\n", "CONNECT exa_mple.com:443 HTTP/1.1\r\n\r\n",
                    "CONNECT .example.com:443 HTTP/1.1\r\n\r\n", "CONNECT a..b:443 HTTP/1.1\r\n\r\n",
                    "CONNECT user@example.com:443 HTTP/1.1\r\n\r\n", "CONNECT [zz]:443 HTTP/1.1\r\n\r\n",
                    "CONNECT :443 HTTP/1.1\r\n\r\n"] {
            guard case .malformed = parse(bad) else { return XCTFail("accepted \(bad.debugDescription): \(parse(bad))") }
        }
        guard case .malformed = ConnectProxyRequest.parse([0x16, 0x03, 0x01, 0xFF, 0x0A, 0x0A]) else { return XCTFail("binary accepted") }
    }

    func testRoutesOnlyDeclaredAuthorities() {
        let c = routed
        XCTAssertEqual(c.decide(parse("CONNECT api.example.test:443 HTTP/1.1\r\n\r\n")),
                       .tunnel(authority: "api.example.test:443", listener: "one"))
        XCTAssertEqual(c.decide(parse("CONNECT api.sandbox.example.test:2197 HTTP/1.1\r\n\r\n")),
                       .tunnel(authority: "api.sandbox.example.test:2197", listener: "two"))
        // Another port of a routed host, another host, a loopback address: refused.
        for target in ["api.example.test:2197", "example.com:443", "127.0.0.1:443", "[::1]:443", "api.example.test.evil:443"] {
            guard case .refuse(let r) = c.decide(parse("CONNECT \(target) HTTP/1.1\r\n\r\n")) else { return XCTFail(target) }
            XCTAssertEqual(r.status, 403, target)
            XCTAssertEqual(r.allowed, ["api.example.test:443", "api.sandbox.example.test:2197"])
        }
    }

    /// `*.example.test:443` stands for one more label, like a wildcard certificate name
    /// (RFC 6125 §6.4.3); an exact route wins; a literal `*` cannot be asked for.
    func testWildcardRoutesMatchExactlyOneLabel() {
        var c = ConnectProxyConfiguration()
        XCTAssertTrue(c.addRoute("*.Notify.Example.Test:443", to: "wild"))
        XCTAssertTrue(c.addRoute("exact.notify.example.test:443", to: "exact"))
        XCTAssertFalse(c.addRoute("*.notify.example.test:443", to: "other"), "claimed already")
        XCTAssertFalse(c.addRoute("*.[::1]:443", to: "v6"))
        XCTAssertFalse(c.addRoute("a.*.example.test:443", to: "inner"))
        XCTAssertEqual(c.allowedAuthorities, ["*.notify.example.test:443", "exact.notify.example.test:443"])
        XCTAssertEqual(c.decide(parse("CONNECT DB5P.notify.example.test:443 HTTP/1.1\r\n\r\n")),
                       .tunnel(authority: "db5p.notify.example.test:443", listener: "wild"))
        XCTAssertEqual(c.decide(parse("CONNECT exact.notify.example.test:443 HTTP/1.1\r\n\r\n")),
                       .tunnel(authority: "exact.notify.example.test:443", listener: "exact"))
        for target in ["notify.example.test:443", "a.b.notify.example.test:443", "db5p.notify.example.test:2197",
                       "db5pnotify.example.test:443", "*.notify.example.test:443"] {
            guard case .refuse = c.decide(parse("CONNECT \(target) HTTP/1.1\r\n\r\n")) else { return XCTFail(target) }
        }
    }

    func testRefusalsNameTheAllowedHosts() throws {
        let c = routed
        guard case .refuse(let plain) = c.decide(parse("GET http://api.example.test/ HTTP/1.1\r\n\r\n")) else { return XCTFail() }
        XCTAssertEqual(plain.status, 403)
        XCTAssertEqual(plain.request, "GET http://api.example.test/")
        guard case .refuse(let bad) = c.decide(parse("nonsense\r\n\r\n")) else { return XCTFail() }
        XCTAssertEqual(bad.status, 400)
        XCTAssertNil(bad.request)
        guard case .refuse(var other) = c.decide(parse("CONNECT example.com:443 HTTP/1.1\r\n\r\n")) else { return XCTFail() }
        other.peer = "127.0.0.1:5000"
        XCTAssertEqual(other.description,
                       "refused CONNECT example.com:443 from 127.0.0.1:5000: 403 not a host this double serves (no outbound connection is made)")
        let text = String(decoding: other.response, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 403 Forbidden\r\n"), text)
        XCTAssertTrue(text.contains("\r\nConnection: close\r\n"), text)
        let body = try XCTUnwrap(text.components(separatedBy: "\r\n\r\n").last)
        XCTAssertTrue(text.contains("Content-Length: \(body.utf8.count)\r\n"), text)
        XCTAssertTrue(body.contains("CONNECT example.com:443"), body)
        XCTAssertTrue(body.contains("only tunnels CONNECT to: api.example.test:443, api.sandbox.example.test:2197."), body)
    }

    func testTheFirstListenerToClaimAnAuthorityKeepsIt() {
        var c = ConnectProxyConfiguration()
        XCTAssertTrue(c.addRoute("shared.example.test:443", to: "first"))
        XCTAssertFalse(c.addRoute("SHARED.example.test:443", to: "second"))
        XCTAssertFalse(c.addRoute("not an authority", to: "second"))
        XCTAssertEqual(c.routes, ["shared.example.test:443": "first"])
    }

    func testRefusalTextIsPrintableAndBounded() {
        let long = String(repeating: "x", count: 500)
        let r = ConnectProxyRefusal(status: 403, reason: "r", request: "GET \u{1B}[31m" + long, allowed: [])
        XCTAssertEqual(r.request?.count, 200)
        XCTAssertFalse(r.request!.contains("\u{1B}"))
        XCTAssertTrue(String(decoding: r.response, as: UTF8.self).contains("This proxy tunnels no host."))
    }

    /// A route to a listener the server does not have fails the start, and nothing is bound.
    func testRoutesToUnknownListenersFailTheStart() throws {
        var proxy = ConnectProxyConfiguration()
        proxy.addRoute("api.example.test:443", to: "missing")
        let server = HTTPServer(eventLoopCount: 1)
        defer { server.stop(timeout: 0.1) }
        XCTAssertThrowsError(try server.start([.connectProxy(name: "proxy", proxy: proxy)])) { error in
            XCTAssertEqual(error as? ConnectProxyConfigurationError, ConnectProxyConfigurationError(proxy: "proxy", unknownTarget: "missing"))
        }
        XCTAssertEqual(server.listenerStatistics, [])
        // A proxy is not a tunnel target either.
        var chained = ConnectProxyConfiguration()
        chained.addRoute("api.example.test:443", to: "proxy")
        XCTAssertThrowsError(try server.start([.connectProxy(name: "proxy", proxy: ConnectProxyConfiguration()),
                                               .connectProxy(name: "second", proxy: chained)]))
    }
}
