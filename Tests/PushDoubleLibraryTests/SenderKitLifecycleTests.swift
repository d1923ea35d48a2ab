import Foundation
import XCTest
import PushDouble

/// A double's credentials follow its bound ports, and its sender kits live only while it runs.
final class SenderKitLifecycleTests: XCTestCase {
    func makeDouble(tls: Bool) -> PushDoubleServer {
        var c = PushDoubleConfiguration.ephemeral(tls: tls)
        c.eventLoopCount = 1
        return PushDoubleServer(configuration: c)
    }

    func testKitBeforeStartAndAfterStopThrowsAndStopRemovesItsFiles() throws {
        let double = makeDouble(tls: true)
        XCTAssertThrowsError(try double.senderKit()) { XCTAssertEqual($0 as? PushDoubleServerError, .notStarted) }
        try double.start()
        let first = try double.senderKit(), second = try double.senderKit()
        for kit in [first, second] { XCTAssertTrue(FileManager.default.fileExists(atPath: kit.directory.path)) }
        double.stop()
        for kit in [first, second] { XCTAssertFalse(FileManager.default.fileExists(atPath: kit.directory.path), kit.directory.path) }
        XCTAssertThrowsError(try double.senderKit()) { XCTAssertEqual($0 as? PushDoubleServerError, .stopped) }
        XCTAssertTrue(double.endpoints.isEmpty)
    }

    func testServiceAccountTokenURIFollowsTheBoundTokenEndpoint() throws {
        for tls in [true, false] {
            let double = makeDouble(tls: tls)
            try double.start()
            defer { double.stop() }
            let oauth = try XCTUnwrap(double.endpoint(named: "google-oauth"))
            XCTAssertNotEqual(oauth.port, FCMModule.tokenPort)
            let expected = (tls ? "https://127.0.0.1:" : "http://127.0.0.1:") + String(oauth.port) + "/token"
            XCTAssertEqual(FCMTestCredentials.tokenURL(in: double.endpoints), expected)
            let inMemory = try JSONValue.parse(FCMTestCredentials.serviceAccountJSON(for: double.endpoints))
            XCTAssertEqual(inMemory["token_uri"]?.stringValue, expected)
            let kit = try double.senderKit()
            let file = try XCTUnwrap(kit.environment.first { $0.0 == "FCM_SERVICE_ACCOUNT_FILE" }?.1)
            let written = try JSONValue.parse(String(contentsOfFile: file, encoding: .utf8))
            XCTAssertEqual(written["token_uri"]?.stringValue, expected)
            XCTAssertEqual(kit.environment.first { $0.0 == "GOOGLE_OAUTH_TOKEN_URL" }?.1, expected)
        }
        // Not bound: the shipped file, unchanged.
        XCTAssertEqual(try JSONValue.parse(FCMTestCredentials.serviceAccountJSON(for: []))["token_uri"]?.stringValue, FCMTestCredentials.tokenURI)
    }

    func testPlaintextModeServesEveryFakeListenerInCleartextAndTLSModeNone() throws {
        for tls in [true, false] {
            let double = makeDouble(tls: tls)
            try double.start()
            defer { double.stop() }
            let fakes = double.endpoints.filter { $0.provider != nil }
            XCTAssertEqual(Set(fakes.map(\.name)), ["apns-production", "apns-sandbox", "apns-manage-production", "apns-manage-sandbox", "fcm", "google-oauth", "expo", "webpush", "webpush-autopush"])
            // The autopush WebSocket listener is plain ws:// in both modes (Firefox takes it with
            // dom.push.testing.allowInsecureServerURL, docs/webpush.md); every HTTP fake follows the mode.
            for e in fakes where e.name != "webpush-autopush" { XCTAssertTrue(e.url.hasPrefix(tls ? "https://" : "http://"), e.url) }
            XCTAssertEqual(double.endpoint(named: "admin")?.url.hasPrefix("http://"), true)
        }
    }
}
