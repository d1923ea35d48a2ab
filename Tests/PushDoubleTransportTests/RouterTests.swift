import Foundation
import XCTest
import PushDoubleTestSupport
@testable import PushDoubleTransport

/// A loop-free ConnectionControl for unit tests.
final class FakeControl: ConnectionControl {
    var info = ConnectionInfo(id: 1, listener: "unit", peer: "127.0.0.1:1", localPort: 443, tls: nil, acceptedAt: Date())
    var version: HTTPVersion = .http2
    var storage: AnyObject?
    func updateSettings(maxConcurrentStreams: UInt32?) {}
    func closeGracefully(errorCode: HTTP2ErrorCode, debugData: [UInt8]) {}
}

final class RouterTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "curl") }

    private func request(_ method: String, _ path: String, authority: String? = "api.push.test:443") -> HTTPRequest {
        let info = RequestInfo(connection: FakeControl().info, streamID: 1, version: .http2, headReceivedAt: Date(), bodyReceivedAt: Date())
        return HTTPRequest(method: method, path: path, scheme: "https", authority: authority, headers: HTTPHeaders(), body: [], info: info)
    }

    private func answer(_ r: RouterResponder, _ method: String, _ path: String, authority: String? = "api.push.test:443") -> HTTPResponse? {
        let control = FakeControl()
        if case .respond(let resp) = r.respond(to: request(method, path, authority: authority), context: RequestContext(connection: control)) { return resp }
        return nil
    }

    private func text(_ r: HTTPResponse?) -> String { String(decoding: r?.body ?? [], as: UTF8.self) }

    func testParametersLiteralsAndWildcard() {
        var router = Router()
        router.post("/3/device/:token") { _, p, _ in .respond(HTTPResponse(status: 200, contentType: "text/plain", body: "token=\(p["token"] ?? "-")")) }
        router.get("/v1/projects/:project/messages/:id") { _, p, _ in .respond(HTTPResponse(status: 200, contentType: "text/plain", body: "\(p["project"]!)/\(p["id"]!)")) }
        router.get("/static/*") { _, p, _ in .respond(HTTPResponse(status: 200, contentType: "text/plain", body: "rest=\(p.wildcard ?? "nil")")) }
        router.get("/") { _, _, _ in .respond(HTTPResponse(status: 200, contentType: "text/plain", body: "root")) }
        let r = router.build()
        XCTAssertEqual(text(answer(r, "POST", "/3/device/abc123?x=1")), "token=abc123")
        XCTAssertEqual(text(answer(r, "GET", "/v1/projects/p1/messages/m2")), "p1/m2")
        XCTAssertEqual(text(answer(r, "GET", "/static/a/b.css")), "rest=a/b.css")
        XCTAssertEqual(text(answer(r, "GET", "/static/")), "rest=")
        XCTAssertEqual(answer(r, "GET", "/static")?.status, 404)
        XCTAssertEqual(text(answer(r, "GET", "/")), "root")
        XCTAssertEqual(answer(r, "POST", "/3/device/")?.status, 404, "a parameter needs a non-empty segment")
        XCTAssertEqual(answer(r, "POST", "/3/device/abc/extra")?.status, 404)
        XCTAssertEqual(answer(r, "POST", "/3/devices/abc")?.status, 404)
    }

    func testMethodNotAllowedAndOverridableFallbacks() {
        var router = Router()
        router.post("/3/device/:token") { _, _, _ in .respond(HTTPResponse(status: 200)) }
        router.on("PUT", "/3/device/:token") { _, _, _ in .respond(HTTPResponse(status: 200)) }
        var r = router.build()
        let res = answer(r, "GET", "/3/device/abc")
        XCTAssertEqual(res?.status, 405)
        XCTAssertEqual(res?.headers["allow"], "POST, PUT")
        XCTAssertEqual(answer(r, "GET", "/nope")?.status, 404)

        router.notFound = { _, _ in .respond(HTTPResponse(status: 404, contentType: "application/json", body: "{\"reason\":\"BadPath\"}")) }
        router.methodNotAllowed = { _, _, _ in .respond(HTTPResponse(status: 405, contentType: "application/json", body: "{\"reason\":\"MethodNotAllowed\"}")) }
        r = router.build()
        XCTAssertEqual(text(answer(r, "GET", "/nope")), "{\"reason\":\"BadPath\"}")
        XCTAssertEqual(text(answer(r, "GET", "/3/device/abc")), "{\"reason\":\"MethodNotAllowed\"}")
    }

    func testHostMatch() {
        var router = Router()
        router.post("/3/device/:t", host: "api.push.apple.com") { _, _, _ in .respond(HTTPResponse(status: 200, contentType: "text/plain", body: "prod")) }
        router.post("/3/device/:t", host: "api.sandbox.push.apple.com") { _, _, _ in .respond(HTTPResponse(status: 200, contentType: "text/plain", body: "sandbox")) }
        router.post("/3/device/:t") { _, _, _ in .respond(HTTPResponse(status: 200, contentType: "text/plain", body: "any")) }
        let r = router.build()
        XCTAssertEqual(text(answer(r, "POST", "/3/device/a", authority: "API.push.apple.com:443")), "prod")
        XCTAssertEqual(text(answer(r, "POST", "/3/device/a", authority: "api.sandbox.push.apple.com")), "sandbox")
        XCTAssertEqual(text(answer(r, "POST", "/3/device/a", authority: "127.0.0.1:8443")), "any")
        XCTAssertEqual(text(answer(r, "POST", "/3/device/a", authority: nil)), "any")
        XCTAssertEqual(RouterResponder.hostOnly("[::1]:8443"), "[::1]")
    }

    /// Every string of up to 4 pieces over ASCII and non-ASCII pieces that change grapheme
    /// clusters (a combining mark after `?`/`:`, CR LF, a precomposed letter, a flag half):
    /// the byte searches, `pathWithoutQuery`, `query` and `hostOnly` agree with the
    /// `Character` searches they stand in for (the code before the byte path, as the oracle).
    func testByteSearchesAgreeWithCharacterSearches() {
        let pieces = ["a", "?", ":", "[", "]", "\r", "\n", "\u{301}", "é", "\u{1F1FA}"]
        var strings = [""]
        var frontier = [""]
        for _ in 0..<4 {
            frontier = frontier.flatMap { s in pieces.map { s + $0 } }
            strings += frontier
        }
        func oracleHost(_ a: String) -> Substring {
            if a.hasPrefix("[") {
                if let close = a.firstIndex(of: "]") { return a[...close] }
                return a[...]
            }
            if let colon = a.lastIndex(of: ":") { return a[..<colon] }
            return a[...]
        }
        var asciiChecked = 0
        for s in strings {
            for byte in [UInt8(ascii: "?"), UInt8(ascii: ":"), UInt8(ascii: "]")] {
                let c = Character(UnicodeScalar(byte))
                if let first = ASCIIText.firstIndex(of: byte, in: s) {
                    XCTAssertEqual(first, s.firstIndex(of: c), "first \(c) in \(s.debugDescription)"); asciiChecked += 1
                }
                if let last = ASCIIText.lastIndex(of: byte, in: s) { XCTAssertEqual(last, s.lastIndex(of: c), "last \(c) in \(s.debugDescription)") }
            }
            let r = request("GET", s)
            let q = s.firstIndex(of: "?")
            XCTAssertEqual(r.pathWithoutQuery, q.map { s[..<$0] } ?? s[...], s.debugDescription)
            XCTAssertEqual(r.query, q.map { s[s.index(after: $0)...] }, s.debugDescription)
            XCTAssertEqual(RouterResponder.hostOnly(s), oracleHost(s), s.debugDescription)
        }
        XCTAssertGreaterThan(asciiChecked, 1000)
        XCTAssertTrue(ASCIIText.firstIndex(of: UInt8(ascii: "?"), in: "a?\u{301}") == nil, "a non-ASCII string is left to the Character search")
    }

    func testInvalidPatternsAreTypedErrors() {
        var router = Router()
        XCTAssertThrowsError(try router.add("GET", "no-slash") { _, _, _ in .stall })
        XCTAssertThrowsError(try router.add("GET", "/a/*/b") { _, _, _ in .stall })
        XCTAssertThrowsError(try router.add("GET", "/a/:") { _, _, _ in .stall })
        XCTAssertThrowsError(try router.add("GET", "/a/:x/:x") { _, _, _ in .stall }) { e in
            XCTAssertEqual((e as? RoutePattern.Invalid)?.reason, "parameter :x appears twice")
        }
    }

    func testRouterOverRealSocketWithCustomLimitBody() throws {
        var router = Router()
        router.post("/3/device/:token") { req, p, ctx in
            .respond(HTTPResponse(status: 200, contentType: "text/plain", body: "\(p["token"]!) \(ctx.connection.version.rawValue) \(req.body.count)"))
        }
        router.limitExceeded = { v, _, _ in HTTPResponse(status: v.suggestedStatus, contentType: "application/json", body: "{\"reason\":\"PayloadTooLarge\"}") }
        let (_, port) = try startServer(self, configure: { $0.limits.maxBodySize = 8 }, responder: router.build())
        var res = try runCommand(["curl", "-sS", "--http1.1", "-d", "1234", "http://127.0.0.1:\(port)/3/device/tok"])
        XCTAssertEqual(res.stdout, "tok HTTP/1.1 4")
        res = try runCommand(["curl", "-sS", "--http2-prior-knowledge", "-d", "1234", "http://127.0.0.1:\(port)/3/device/tok"])
        XCTAssertEqual(res.stdout, "tok HTTP/2 4")
        res = try runCommand(["curl", "-sS", "--http1.1", "-d", "123456789", "http://127.0.0.1:\(port)/3/device/tok"])
        XCTAssertEqual(res.stdout, "{\"reason\":\"PayloadTooLarge\"}")
        res = try runCommand(["curl", "-sS", "--http1.1", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/3/device/tok"])
        XCTAssertEqual(res.stdout, "405")
    }
}
