import Foundation
import XCTest
import PushDouble
import PushDoubleCore
import PushDoubleClient
import PushDoubleTransport
@testable import PushDoubleInbox

/// The inbox routes over a real socket against the in-process server (fast tier: the
/// project's own HTTP/1.1 client, no external tool): the page for browsers and the JSON
/// index for everyone else, the assets, and the scenario export's round trip.
final class InboxRouteTests: XCTestCase {
    private var server: PushDoubleServer!
    private var connection: HTTPClientConnection!

    override func setUp() async throws {
        server = PushDoubleServer(configuration: .ephemeral())
        try server.start()
        let admin = try XCTUnwrap(server.endpoint(named: "admin"))
        connection = try await HTTPClientConnection.connect(host: admin.host, port: admin.port, tls: false,
                                                            configuration: HTTPClientConfiguration(alpn: ["http/1.1"], connectTimeout: 5, requestTimeout: 10))
    }

    override func tearDown() async throws {
        connection?.close()
        server?.stop()
    }

    private func call(_ path: String, method: String = "GET", headers: [(String, String)] = [], body: String? = nil) async throws -> HTTPClientResponse {
        var h = HTTPHeaders()
        for (n, v) in headers { h.add(name: n, value: v) }
        if body != nil { h.add(name: "content-type", value: "application/json") }
        return try await connection.send(HTTPClientRequest(method: method, path: path, authority: "127.0.0.1", scheme: "http",
                                                           headers: h, body: Array((body ?? "").utf8)))
    }

    private func text(_ r: HTTPClientResponse) -> String { String(decoding: r.body, as: UTF8.self) }

    /// Devices as JSON with sorted keys: provider attributes are free-form JSON whose member
    /// order a decode does not keep, so equal devices are compared by their canonical text.
    private func canonical(_ devices: [Device]) throws -> String {
        String(decoding: try ExchangeEncoding.makeEncoder().encode(devices), as: UTF8.self)
    }

    func testRootServesThePageToBrowsersAndTheJSONIndexToEveryoneElse() async throws {
        let browser = try await call("/", headers: [("accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")])
        XCTAssertEqual(browser.status, 200)
        XCTAssertEqual(browser.headers["content-type"], "text/html; charset=utf-8")
        XCTAssertTrue(text(browser).contains("data-testid=\"timeline\""))
        XCTAssertEqual(browser.headers["vary"], "accept")
        for accept in [nil, "*/*", "application/json", "text/plain"] {
            let r = try await call("/", headers: accept.map { [("accept", $0)] } ?? [])
            XCTAssertEqual(r.status, 200)
            XCTAssertEqual(r.headers["content-type"], "application/json", "accept: \(accept ?? "none")")
            let doc = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any])
            let routes = try XCTUnwrap(doc["routes"] as? [String])
            for route in ["GET /health", "GET /scenario/export", "GET /inbox", "GET /inbox/*"] {
                XCTAssertTrue(routes.contains(route), "\(route) missing from \(routes)")
            }
        }
        let page = try await call("/inbox")
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.body, browser.body)
    }

    /// Which `accept` values get the page: a media range naming text/html exactly, any case,
    /// with or without parameters; not `*/*`, `text/*` or XHTML alone.
    func testAcceptNamingTextHTMLGetsThePage() {
        func request(_ accept: [String]) -> HTTPRequest {
            var h = HTTPHeaders()
            for a in accept { h.add(name: "accept", value: a) }
            let now = Date()
            let info = RequestInfo(connection: ConnectionInfo(id: 1, listener: "admin", peer: "127.0.0.1:1", localPort: 8720, tls: nil, acceptedAt: now),
                                   streamID: 1, version: .http1_1, headReceivedAt: now, bodyReceivedAt: now)
            return HTTPRequest(method: "GET", path: "/", scheme: "http", authority: "127.0.0.1", headers: h, body: [], info: info)
        }
        for yes in [["text/html"], ["Text/HTML; q=0.9"], ["application/json", "text/html"], ["*/*;q=0.8, text/html ,x/y"]] {
            XCTAssertTrue(AdminPage.acceptsHTML(request(yes)), "\(yes)")
        }
        for no in [[], ["*/*"], ["text/*"], ["application/xhtml+xml"], ["application/json"], ["text/htmlx"]] {
            XCTAssertFalse(AdminPage.acceptsHTML(request(no)), "\(no)")
        }
    }

    func testAssetsAreServedWithTheirTypeCacheHeadersAndEntityTags() async throws {
        let expected = ["/inbox/inbox.js": "text/javascript; charset=utf-8", "/inbox/inbox.css": "text/css; charset=utf-8"]
        for (path, type) in expected {
            let r = try await call(path)
            XCTAssertEqual(r.status, 200, path)
            XCTAssertEqual(r.headers["content-type"], type, path)
            XCTAssertEqual(r.headers["cache-control"], "no-cache", path)
            XCTAssertEqual(r.headers["x-content-type-options"], "nosniff", path)
            XCTAssertEqual(r.body, Array(try XCTUnwrap(InboxPage.asset(at: path)).text.utf8), path)
            let tag = try XCTUnwrap(r.headers["etag"], path)
            let again = try await call(path, headers: [("if-none-match", tag)])
            XCTAssertEqual(again.status, 304, path)
            XCTAssertTrue(again.body.isEmpty, path)
            let stale = try await call(path, headers: [("if-none-match", "\"0\"")])
            XCTAssertEqual(stale.status, 200, path)
        }
        let page = try await call("/inbox")
        XCTAssertEqual(page.headers["content-security-policy"], InboxPage.contentSecurityPolicy)
    }

    func testUnknownAssetsAre404JSON() async throws {
        for path in ["/inbox/nope.js", "/inbox/../health", "/inbox/inbox.js.map"] {
            let r = try await call(path)
            XCTAssertEqual(r.status, 404, path)
            XCTAssertEqual(r.headers["content-type"], "application/json", path)
            XCTAssertTrue(text(r).contains("\"error\""), path)
        }
    }

    /// Every `href`/`src` of the page names an asset the listener serves.
    func testEveryAssetThePageReferencesExists() async throws {
        let refs = InboxAssetChecks.references(in: InboxPage.page.text)
        XCTAssertFalse(refs.isEmpty)
        for ref in refs where ref.hasPrefix("/") {
            let r = try await call(ref)
            XCTAssertEqual(r.status, 200, "the page references \(ref)")
        }
        XCTAssertEqual(refs.filter { !$0.hasPrefix("/") && !$0.hasPrefix("#") && !$0.hasPrefix("data:") }, [],
                       "only same-origin, fragment or data: references")
    }

    func testExportIsAnAttachmentThatRoundTripsThroughPOSTScenarios() async throws {
        let setUp: [(String, String, String)] = [
            ("POST", "/devices", #"[{"id":"phone","provider":"apns","token":"\#(String(repeating: "ab", count: 32))","environment":"sandbox","topic":"com.example.app","transitions":[{"afterDeliveries":2,"state":"unregistered"}]},"# +
                #"{"id":"dead","provider":"fcm","token":"fcm-dead","state":"unregistered","unregisteredAt":"2026-01-02T03:04:05.000Z"},"# +
                #"{"id":"slow","provider":"expo","token":"ExponentPushToken[slow]","state":"rateLimited"}]"#),
            ("POST", "/webpush/subscriptions", #"{"id":"browser","service":"fcm"}"#),
            ("POST", "/faults", #"[{"id":"busy","match":{"provider":"apns","nth":2},"action":{"type":"respond","reason":"ServiceUnavailable","retryAfter":7},"times":1},"# +
                #"{"id":"slow-down","match":{"provider":"fcm"},"action":{"type":"delay","seconds":0.5,"then":{"type":"continue"}}},"# +
                #"{"id":"q","action":{"type":"quota","fixedWindow":{"limit":10,"seconds":60},"per":"token"}}]"#),
            ("PUT", "/providers/expo", #"{"world":"closed"}"#),
        ]
        for (method, path, body) in setUp {
            let r = try await call(path, method: method, body: body)
            XCTAssertLessThan(r.status, 300, "\(method) \(path): \(text(r))")
        }
        let devicesBefore = server.devices.list()
        let rulesBefore = server.faults.list().map(\.rule)
        XCTAssertEqual(devicesBefore.count, 4)
        XCTAssertEqual(rulesBefore.count, 3)

        let export = try await call("/scenario/export")
        XCTAssertEqual(export.status, 200)
        XCTAssertEqual(export.headers["content-disposition"], "attachment; filename=\"pushdouble-scenario.json\"")
        XCTAssertEqual(export.headers["content-type"], "application/json")
        let scenario = try ScenarioLoader.decode(Data(export.body), file: "export")
        XCTAssertEqual(scenario.providers["expo"]?.world, .closed)
        XCTAssertEqual(scenario.providers["apns"]?.world, .open)

        let reset = try await call("/reset", method: "POST")
        XCTAssertEqual(reset.status, 200)
        XCTAssertTrue(server.devices.list().isEmpty)
        server.devices.setWorld(.open, for: "expo")

        let load = try await call("/scenarios", method: "POST", body: text(export))
        XCTAssertEqual(load.status, 201, text(load))
        XCTAssertEqual(try canonical(server.devices.list()), try canonical(devicesBefore))
        XCTAssertEqual(server.devices.list().map(\.id), devicesBefore.map(\.id))
        XCTAssertEqual(server.faults.list().map(\.rule), rulesBefore)
        XCTAssertEqual(server.devices.world(for: "expo"), .closed)

        // What `pushdouble replay FILE` reads: the same bytes from a file.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pd-export-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(export.body).write(to: file)
        let fromFile = try ScenarioLoader.load(path: file.path)
        XCTAssertEqual(fromFile, scenario)
        XCTAssertEqual(try canonical(fromFile.devices), try canonical(devicesBefore))
        XCTAssertEqual(fromFile.rules, rulesBefore)
    }

    func testExportCarriesTheFakeOptionsTheServerWasBuiltWith() throws {
        var config = PushDoubleConfiguration.ephemeral()
        config.providerOptions = ["apns": ["tokenMinRefreshSeconds": 60]]
        let s = PushDoubleServer(configuration: config)
        let scenario = ScenarioExport.scenario(of: s.double, fakeOptions: config.providerOptions)
        let back = try ScenarioLoader.decode(Data(ScenarioExport.document(scenario)), file: "export")
        XCTAssertEqual(back.fakeOptions, ["apns": ["tokenMinRefreshSeconds": 60]])
        XCTAssertEqual(back, scenario)
    }
}
