import Foundation
import XCTest
import PushDouble
import PushDoubleTestSupport

/// Plaintext mode with curl: every fake over h2c with prior knowledge and over HTTP/1.1,
/// delivering as over TLS, the history marking each exchange plaintext with its version.
final class PlaintextCurlTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "curl") }

    /// curl with `version` (`--http2-prior-knowledge` / `--http1.1`): (status, body, HTTP version).
    func curl(_ version: String, _ url: String, headers: [String], body: [UInt8]) throws -> (status: Int, body: String, version: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pd-lib-curl-\(UUID().uuidString)")
        try Data(body).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var args = ["curl", "-sS", version, "-X", "POST", "--data-binary", "@" + file.path, "-w", "\n%{http_code} %{http_version}"]
        for h in headers { args += ["-H", h] }
        let r = try runCommand(args + [url], timeout: 20)
        XCTAssertEqual(r.status, 0, r.stderr)
        var lines = r.stdout.components(separatedBy: "\n")
        let last = (lines.popLast() ?? "").split(separator: " ")
        return (Int(last.first ?? "") ?? 0, lines.joined(separator: "\n"), last.count > 1 ? String(last[1]) : "")
    }

    func testCurlReachesEveryFakeOverH2CPriorKnowledgeAndHTTP1() throws {
        try requireTool("curl")
        let double = try startPushDouble(.ephemeral(tls: false))
        let jwt = try SenderSide.apnsJWT()
        let account = try SenderSide.serviceAccount(double)
        let (webPushEndpoint, subscription) = try SenderSide.webPushSubscription(double, id: "browser")
        let apns = try XCTUnwrap(double.endpoint(named: "apns-sandbox")).url
        let expo = try XCTUnwrap(double.endpoint(named: "expo")).url
        let versions = [("--http2-prior-knowledge", "2", HTTPVersion.http2), ("--http1.1", "1.1", HTTPVersion.http1_1)]
        for (flag, wire, _) in versions {
            let a = try curl(flag, apns + "/3/device/" + SenderSide.apnsToken,
                             headers: ["authorization: bearer " + jwt, "apns-topic: " + APNsTestCredentials.topic, "apns-push-type: alert"],
                             body: Array(#"{"aps":{"alert":{"title":"curl \#(wire)"}}}"#.utf8))
            XCTAssertEqual(a.status, 200, a.body)
            XCTAssertEqual(a.version, wire)

            let t = try curl(flag, try XCTUnwrap(account["token_uri"]?.stringValue),
                             headers: ["content-type: application/x-www-form-urlencoded"], body: Array(try SenderSide.oauthForm(account).utf8))
            XCTAssertEqual(t.status, 200, t.body)
            let accessToken = try XCTUnwrap(try JSONValue.parse(t.body)["access_token"]?.stringValue)
            let f = try curl(flag, try SenderSide.fcmSendURL(double),
                             headers: ["authorization: Bearer " + accessToken, "content-type: application/json"],
                             body: Array(#"{"message":{"token":"fcm-token-\#(wire)","notification":{"title":"curl \#(wire)"}}}"#.utf8))
            XCTAssertEqual(f.status, 200, f.body)

            let e = try curl(flag, expo + "/--/api/v2/push/send",
                             headers: ["content-type: application/json", "authorization: Bearer " + ExpoTestCredentials.accessToken],
                             body: Array(#"[{"to":"\#(SenderSide.expoToken)","title":"curl \#(wire)"}]"#.utf8))
            XCTAssertEqual(e.status, 200, e.body)

            let w = try curl(flag, webPushEndpoint,
                             headers: ["TTL: 60", "Content-Encoding: aes128gcm", "Authorization: " + (try SenderSide.vapidAuthorization(endpoint: webPushEndpoint))],
                             body: try SenderSide.webPushBody("curl \(wire)", for: subscription))
            XCTAssertEqual(w.status, 201, w.body)
        }
        // Each exchange: plaintext, over the version curl used, read through the typed views.
        let history = double.history.all
        XCTAssertEqual(history.count, 10)
        XCTAssertTrue(history.allSatisfy { $0.plaintext == true && $0.transport.connection.tls == nil })
        for (flag, wire, version) in versions {
            let pushes = double.history.apnsPushes.filter { $0.exchange.transport.version == version }
            XCTAssertEqual(pushes.map { $0.alert?.title }, ["curl \(wire)"], flag)
            XCTAssertEqual(double.history.fcmMessages.filter { $0.exchange.transport.version == version }.map { $0.notification?.title },
                           ["curl \(wire)"], flag)
            XCTAssertEqual(double.history.expoSends.filter { $0.exchange.transport.version == version }.flatMap(\.tickets).map(\.status), ["ok"], flag)
            XCTAssertEqual(double.history.webPushMessages.filter { $0.exchange.transport.version == version }.map(\.payload),
                           [.text("curl \(wire)")], flag)
        }
        let json = String(decoding: ExchangeEncoding.json(history[0]), as: UTF8.self)
        XCTAssertTrue(json.contains(#""plaintext":true"#), json)
    }
}
