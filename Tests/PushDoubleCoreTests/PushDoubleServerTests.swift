import Foundation
import XCTest
import PushDoubleTestSupport
#if canImport(Glibc)
import Glibc
#endif
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport
@testable import PushDouble

/// The in-process server with its default wiring (APNs over TLS with the embedded credentials).
final class PushDoubleServerTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "curl") }

    func testDefaultConfigurationServesAPNsOverTLSAndAdmin() throws {
        var config = PushDoubleConfiguration.ephemeral()
        config.eventLoopCount = 1
        let server = PushDoubleServer(configuration: config)
        try server.start()
        defer { server.stop() }
        // Every registered module's listeners (APNs, FCM, …) and the admin API.
        // (The CONNECT proxy is off by default in the library; `serve` turns it on.)
        XCTAssertEqual(Set(server.endpoints.map(\.name)), Set(FakeRegistry.listenerDefaults.map(\.name)).subtracting(["proxy"]))
        XCTAssertTrue(Set(server.endpoints.map(\.name)).isSuperset(of: ["admin", "apns-production", "apns-sandbox"]))
        let production = try XCTUnwrap(server.endpoint(named: "apns-production"))
        XCTAssertTrue(production.url.hasPrefix("https://127.0.0.1:"))
        XCTAssertEqual(production.provider, .apns)
        XCTAssertEqual(production.environment, "production")
        XCTAssertEqual(server.endpoint(named: "admin")?.url.hasPrefix("http://127.0.0.1:"), true)

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pd-srv-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let ca = dir.appendingPathComponent("ca.pem")
        try Data(try XCTUnwrap(config.credentials).caPEM.utf8).write(to: ca)

        // No provider token: refused by the APNs fake's admit stage, recorded all the same.
        let token = String(repeating: "ab", count: 32)
        let c = try Curl.call("POST", production.url + "/3/device/" + token, body: #"{"aps":{"alert":"hi"}}"#,
                              headers: ["apns-topic: com.example.pushdouble"], extra: ["--http2", "--cacert", ca.path])
        XCTAssertEqual(c.code, 403, c.stderr)
        let e = try XCTUnwrap(server.history.all.first)
        XCTAssertEqual(e.provider, .apns)
        XCTAssertEqual(e.token, token)
        XCTAssertEqual(e.decidedBy.stage, .auth)
        XCTAssertEqual(e.transport.connection.tls?.alpn, "h2")
        XCTAssertEqual(e.environment, "production")
    }

    func testStartErrorsAndLifecycle() throws {
        let spec = FakeListenerSpec(name: "test", defaultPort: 0, fake: TestFake(), useTLS: true)
        var config = PushDoubleConfiguration(fakes: [spec], credentials: nil)
        config.ephemeralPorts = true
        XCTAssertThrowsError(try PushDoubleServer(configuration: config).start()) {
            XCTAssertEqual($0 as? PushDoubleServerError, .missingCredentials("test"))
        }
        let plain = FakeListenerSpec(name: "test", defaultPort: 0, fake: TestFake(), useTLS: false)
        config.fakes = [plain, plain]
        XCTAssertThrowsError(try PushDoubleServer(configuration: config).start()) {
            XCTAssertEqual($0 as? PushDoubleServerError, .duplicateListener("test"))
        }
        config.fakes = [plain]
        config.eventLoopCount = 1
        let s = PushDoubleServer(configuration: config)
        try s.start()
        XCTAssertThrowsError(try s.start()) { XCTAssertEqual($0 as? PushDoubleServerError, .alreadyStarted) }
        // A fixed port another server holds is reported (even though the transport binds
        // with SO_REUSEPORT), and the first server keeps serving.
        var clash = config
        clash.ephemeralPorts = false
        clash.ports = ["test": s.endpoint(named: "test")!.port, "admin": 0]
        XCTAssertThrowsError(try PushDoubleServer(configuration: clash).start()) {
            XCTAssertEqual($0 as? PushDoubleServerError, .portInUse(name: "test", port: s.endpoint(named: "test")!.port))
        }
        XCTAssertEqual(try Curl.call("POST", s.fakeURL + "/push/abc", headers: ["authorization: ok"]).code, 200)
        s.stop()
        s.stop()
        XCTAssertTrue(s.endpoints.isEmpty)
        XCTAssertThrowsError(try s.start()) { XCTAssertEqual($0 as? PushDoubleServerError, .stopped) }
    }
}
