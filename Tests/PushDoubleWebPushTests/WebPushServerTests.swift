import Foundation
import XCTest
import PushDoubleTestSupport
import PushDoubleCore
import PushDoubleCrypto
import PushDouble
@testable import PushDoubleWebPush

/// The shipped double (every registered module, the embedded test credentials) on ephemeral
/// ports, and what a sender is told (``SenderKit``).
struct RunningDouble {
    let server: PushDoubleServer
    let kit: SenderKit

    /// `proxy`: with the CONNECT proxy listener (`HTTPS_PROXY` in the sender environment).
    static func start(_ test: XCTestCase, proxy: Bool = false) throws -> RunningDouble {
        var config = PushDoubleConfiguration.ephemeral()
        config.eventLoopCount = 1
        config.proxy = proxy
        let server = PushDoubleServer(configuration: config)
        try server.start()
        let kit = try server.senderKit()
        test.addTeardownBlock { server.stop(); kit.remove() }
        return RunningDouble(server: server, kit: kit)
    }

    func env(_ name: String) throws -> String {
        try XCTUnwrap(kit.environment.first { $0.0 == name }?.1, "\(name) not in the sender environment")
    }
}

/// Real sockets: the `webpush` listener and the admin routes with curl, over TLS with ALPN h2
/// and http/1.1, configured only with the sender material.
final class WebPushSocketTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "curl", "python3") }

    func curl(_ args: [String]) throws -> ProcessResult { try runCommand(["curl", "-sS"] + args, timeout: 30) }

    func testCurlPushesOverHTTP2AndHTTP1AndTheBrowserDecrypts() throws {
        try requireTool("curl")
        let d = try RunningDouble.start(self)
        let admin = try d.env("PUSHDOUBLE_ADMIN_URL"), ca = try d.env("PUSHDOUBLE_CA_FILE")
        let webpushURL = try d.env("WEBPUSH_URL")
        let created = try curl(["-X", "POST", admin + "/webpush/subscriptions", "--data-binary", #"{"id":"c1","service":"fcm"}"#])
        let sub = try JSONValue.parse(Array(created.stdout.utf8))
        let endpoint = try XCTUnwrap(sub["endpoint"]?.stringValue)
        XCTAssertTrue(endpoint.hasPrefix(webpushURL + "/fcm/send/"), endpoint)

        // What a sender does with the subscription JSON and VAPID_PRIVATE_KEY_FILE.
        let key = try P256PrivateKey(pem: String(contentsOfFile: try d.env("VAPID_PRIVATE_KEY_FILE"), encoding: .utf8))
        let k = Base64URL.encode(try key.publicKey.rawRepresentation)
        XCTAssertEqual(k, try d.env("VAPID_PUBLIC_KEY"))
        let jwt = try vapidJWT(["aud": .string(webpushURL), "exp": .int(Int64(Date().timeIntervalSince1970) + 3600),
                                "sub": .string(try d.env("VAPID_SUBJECT"))], key: key)
        let ua = try P256PublicKey(rawRepresentation: Base64URL.decode(try XCTUnwrap(sub["keys"]?["p256dh"]?.stringValue)))
        let auth = try Base64URL.decode(try XCTUnwrap(sub["keys"]?["auth"]?.stringValue))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wp-curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }

        for (i, version) in ["--http2", "--http1.1"].enumerated() {
            let body = dir.appendingPathComponent("body\(i)")
            try Data(try WebPushCipher.encrypt(plaintext: Array("curl \(version) ✓".utf8), uaPublicKey: ua, authSecret: auth)).write(to: body)
            let r = try curl([version, "--cacert", ca, "-o", "/dev/null", "-D", "-", "-X", "POST",
                              "-H", "TTL: 30", "-H", "Content-Encoding: aes128gcm", "-H", "Urgency: high",
                              "-H", "Authorization: vapid t=\(jwt), k=\(k)", "--data-binary", "@" + body.path, endpoint])
            XCTAssertTrue(r.stdout.hasPrefix(version == "--http2" ? "HTTP/2 201" : "HTTP/1.1 201"), r.stdout + r.stderr)
            XCTAssertTrue(r.stdout.lowercased().contains("location: \(endpoint.lowercased())/m/"), r.stdout)
        }
        let messages = try JSONValue.parse(Array(try curl([admin + "/webpush/subscriptions/c1/messages"]).stdout.utf8))
        XCTAssertEqual(messages.arrayValue?.map { $0["payload"]?["data"] }, ["curl --http2 ✓", "curl --http1.1 ✓"])
        XCTAssertEqual(messages.arrayValue?.first?["urgency"], "high")
        XCTAssertEqual(d.server.history.all.filter { $0.provider == .webpush }.map(\.transport.version), [.http2, .http1_1])
        XCTAssertEqual(d.server.history.all.first { $0.provider == .webpush }?.transport.connection.tls?.alpn, "h2")

        // Killed through the admin API: FCM's 410 with its 47-byte body.
        var device = try XCTUnwrap(d.server.devices.device(id: "c1"))
        device.state = .unregistered(since: Date())
        try d.server.devices.upsert(device)
        let gone = try curl(["--cacert", ca, "-D", "-", "-X", "POST", "-H", "TTL: 30", endpoint])
        XCTAssertTrue(gone.stdout.hasPrefix("HTTP/2 410"), gone.stdout)
        XCTAssertTrue(gone.stdout.contains("content-length: 47"), gone.stdout)
        XCTAssertTrue(gone.stdout.hasSuffix("\r\n\r\npush subscription has unsubscribed or expired.\n"), gone.stdout)
    }

    func testMagicSubscriptionAndFaultRuleOverTheWire() throws {
        try requireTool("curl")
        let d = try RunningDouble.start(self)
        let ca = try d.env("PUSHDOUBLE_CA_FILE"), url = try d.env("WEBPUSH_URL")
        let magic = WebPushMagicTokens.table.first { $0.code == "4290" }!.example
        let throttled = try curl(["--cacert", ca, "-D", "-", "-o", "/dev/null", "-X", "POST", "-H", "TTL: 0", url + "/wpush/v1/" + magic])
        XCTAssertTrue(throttled.stdout.hasPrefix("HTTP/2 503"), throttled.stdout)
        XCTAssertTrue(throttled.stdout.contains("retry-after: 120"), throttled.stdout)
        try d.server.faults.add(FaultRule(id: "x", match: FaultMatch(provider: .webpush), action: .respond(ResponseSpec(reason: "stale")), times: 1))
        let stale = try curl(["--cacert", ca, "-X", "POST", "-H", "TTL: 0", "-w", "\n%{http_code}", url + "/fcm/send/anyToken"])
        XCTAssertEqual(stale.stdout, "A valid push subscription endpoint should be specified in the URL as such: https://fcm.googleapis.com/wp/\n404")
    }
}

/// Independent Web Push libraries from PyPI (Tests/Interop/webpush_<library>.py), each given
/// only the admin URL (to make subscriptions like a browser), the VAPID key file and subject,
/// and the CA; each asserts delivery (the decrypted plaintext read back byte for byte) and its
/// own error types. This side checks what the fake recorded.
final class WebPushClientMatrixTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "python3 (Web Push client libraries)") }

    static let interop = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interop")

    /// pywebpush 2.x: `webpush` (requests, HTTP/1.1) and `webpush_async` (aiohttp), aes128gcm and aesgcm.
    func testPywebpush() throws {
        let exchanges = try run("webpush_pywebpush.py", distribution: "pywebpush",
                                expect: ["delivered_mozilla", "delivered_fcm", "delivered_apple", "delivered_wns", "delivered_aesgcm",
                                         "async_aes128gcm", "async_aesgcm", "gone_fcm", "gone_mozilla", "async_gone", "too_large",
                                         "vapid_fcm", "vapid_mozilla", "vapid_apple", "delivered_fcm_wp", "fcm_send_to_wp"])
        let accepted = exchanges.filter { $0.response.status == 201 }
        XCTAssertEqual(accepted.count, 8)  // four services, aesgcm, two async, a /wp/ subscription
        XCTAssertTrue(accepted.contains { $0.request.path.hasPrefix("/wp/") }, "delivered to /wp/<token> (docs/webpush.md §6.1b)")
        XCTAssertTrue(exchanges.contains { $0.request.path.hasPrefix("/fcm/send/") && $0.response.status == 404 }, "the old shape of a /wp/ token")
        XCTAssertEqual(Set(accepted.compactMap { $0.notification?["encoding"]?.stringValue }), ["aes128gcm", "aesgcm"])
        XCTAssertEqual(Set(accepted.map(\.transport.version)), [.http1_1])
        XCTAssertEqual(Set(accepted.compactMap(\.auth?.extra["form"])), ["vapid"])
    }

    /// webpush 1.x (delvinru/webpush-py): its own encryption and VAPID, sent with httpx over HTTP/2.
    func testWebpushPy() throws {
        let exchanges = try run("webpush_webpushpy.py", distribution: "webpush",
                                expect: ["aud_without_port", "delivered_mozilla", "delivered_fcm", "delivered_apple", "delivered_wns",
                                         "gone", "vapid_apple", "delivered_fcm_wp"])
        let accepted = exchanges.filter { $0.response.status == 201 }
        XCTAssertEqual(accepted.count, 5)
        XCTAssertTrue(accepted.contains { $0.request.path.hasPrefix("/wp/") }, "delivered to /wp/<token> (docs/webpush.md §6.1b)")
        XCTAssertEqual(Set(accepted.map(\.transport.version)), [.http2])
        let refusedAud = try XCTUnwrap(exchanges.first { $0.response.reason == "vapidAudience" })
        XCTAssertEqual(refusedAud.auth?.extra["rule"], "vapidAudience")
    }

    /// Runs one script against a fresh double; returns the fake's webpush exchanges.
    func run(_ script: String, distribution: String, expect: [String]) throws -> [Exchange] {
        try requireTool("python3")
        let d = try RunningDouble.start(self)
        let r = try runCommand(["python3", Self.interop.appendingPathComponent(script).path,
                                "--admin", try d.env("PUSHDOUBLE_ADMIN_URL"), "--ca", try d.env("PUSHDOUBLE_CA_FILE"),
                                "--vapid-key", try d.env("VAPID_PRIVATE_KEY_FILE"), "--subject", try d.env("VAPID_SUBJECT")], timeout: 120)
        let line = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
        if r.status == 2 {
            XCTFail(line.isEmpty ? "\(distribution) is not installed (run bash .ci/run or pip install \(distribution))" : line)
            return []
        }
        XCTAssertEqual(r.status, 0, "\(distribution) stdout: \(r.stdout)\nstderr: \(r.stderr.suffix(3000))")
        guard let result = try? JSONValue.parse(Array(line.utf8)) else {
            XCTFail("\(distribution): no JSON result line\nstdout: \(r.stdout)\nstderr: \(r.stderr.suffix(3000))")
            return []
        }
        XCTAssertEqual(result["library"], .string(distribution))
        XCTAssertEqual(result["failures"], JSONValue.array([]), distribution)
        for name in expect { XCTAssertNotNil(result["results"]?[name], "\(distribution): no result for \(name)") }
        d.server.double.quiesce()
        let exchanges = d.server.history.all.filter { $0.provider == .webpush }
        // Every accepted message decrypted to text; every refusal has the reason that decided it.
        for e in exchanges where e.response.status == 201 {
            XCTAssertNotNil(e.notification?["payload"]?["data"]?.stringValue, "\(distribution): \(String(describing: e.notification))")
            XCTAssertEqual(e.auth?.valid, true)
        }
        for e in exchanges where (e.response.status ?? 0) >= 400 { XCTAssertNotNil(e.response.reason, "\(e.decidedBy)") }
        return exchanges
    }
}
