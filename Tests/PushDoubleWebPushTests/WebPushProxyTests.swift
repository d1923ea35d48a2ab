import Foundation
import XCTest
import PushDoubleTestSupport
import PushDoubleCore
import PushDoubleCrypto
import PushDouble
@testable import PushDoubleWebPush

/// The Web Push services by their real names through the CONNECT proxy (docs/webpush.md "Real host names"): production-
/// shaped subscription endpoints (`endpointOrigin` of `POST /webpush/subscriptions`), the four
/// hosts (`updates.push.services.mozilla.com`, `fcm.googleapis.com/fcm/send/…` on the FCM
/// listener by ``HostRoute``, `web.push.apple.com`, `*.notify.windows.com`), the VAPID `aud` of
/// the real origin, and an unmodified pywebpush given only `HTTPS_PROXY` and the CA.
/// Tools: curl, python3 (pywebpush; Tests/Interop/webpush_pywebpush_proxy.py).
final class WebPushProxyTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "curl", "python3") }

    static let interop = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interop")

    /// `POST /webpush/subscriptions` through curl; the answer's JSON and status.
    func subscribe(_ d: RunningDouble, _ body: String) throws -> (status: Int, json: JSONValue) {
        let r = try runCommand(["curl", "-sS", "-w", "\n%{http_code}", "-H", "content-type: application/json",
                                "--data-binary", body, try d.env("PUSHDOUBLE_ADMIN_URL") + "/webpush/subscriptions"])
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.last ?? "") ?? -1
        return (status, (try? JSONValue.parse(lines.dropLast().joined(separator: "\n"))) ?? .null)
    }

    /// curl through the proxy: an empty push message (TTL only; no body needs no encryption, no
    /// VAPID for an unrestricted subscription) to `url`. (CONNECT status, final status, headers.)
    func push(_ d: RunningDouble, _ url: String, extra: [String] = []) throws -> (connect: Int, status: Int, headers: String) {
        let headers = FileManager.default.temporaryDirectory.appendingPathComponent("pd-wp-proxy-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: headers) }
        let r = try runCommand(["curl", "-sS", "--noproxy", "", "--proxy", try d.env("HTTPS_PROXY"), "--cacert", try d.env("PUSHDOUBLE_CA_FILE"),
                                "-o", "/dev/null", "-D", headers, "-w", "%{http_connect} %{http_code}", "-X", "POST", "-H", "TTL: 60"]
                               + extra + [url])
        let codes = r.stdout.split(separator: " ").map { Int($0) ?? -1 }
        return (codes.first ?? -1, codes.count > 1 ? codes[1] : -1, (try? String(contentsOfFile: headers, encoding: .utf8)) ?? "")
    }

    func testProductionShapedEndpointsReachTheFakeByEachRealHost() throws {
        let d = try RunningDouble.start(self, proxy: true)
        let cases: [(service: String, origin: String, prefix: String, listener: String)] = [
            ("mozilla", "production", "https://updates.push.services.mozilla.com/wpush/v1/", WebPushModule.listenerName),
            ("fcm", "production", "https://fcm.googleapis.com/fcm/send/", "fcm"),
            ("apple", "production", "https://web.push.apple.com/", WebPushModule.listenerName),
            ("wns", "production", "https://wns.notify.windows.com/w/?token=", WebPushModule.listenerName),
            ("wns", "https://db5p.notify.windows.com", "https://db5p.notify.windows.com/w/?token=", WebPushModule.listenerName),
        ]
        for (i, c) in cases.enumerated() {
            let made = try subscribe(d, #"{"id":"real-\#(i)","service":"\#(c.service)","endpointOrigin":"\#(c.origin)"}"#)
            XCTAssertEqual(made.status, 201, "\(made.json)")
            let endpoint = try XCTUnwrap(made.json["endpoint"]?.stringValue)
            XCTAssertTrue(endpoint.hasPrefix(c.prefix), endpoint)
            let sent = try push(d, endpoint)
            XCTAssertEqual(sent.connect, 200, endpoint)
            XCTAssertEqual(sent.status, 201, "\(endpoint): \(sent.headers)")
            d.server.double.quiesce()
            let e = try XCTUnwrap(d.server.history.all.last)
            XCTAssertEqual(e.provider, .webpush)
            XCTAssertEqual(e.deviceID, "real-\(i)", "matched to the subscription")
            XCTAssertEqual(e.environment, c.service)
            XCTAssertEqual(e.transport.connection.listener, c.listener)
            let host = String(c.prefix.dropFirst("https://".count).prefix { $0 != "/" })
            XCTAssertEqual(e.transport.connection.tls?.serverName, host)
            if c.service == "mozilla" {
                // autopush's Location is the endpoint + /m/<id> (docs/webpush.md §6.2): the real origin.
                XCTAssertTrue(sent.headers.lowercased().contains("location: " + endpoint.lowercased() + "/m/"), sent.headers)
            }
        }
    }

    /// FCM's own API on the same host stays the FCM fake's; only `/fcm/send/<token>` addressed to
    /// `fcm.googleapis.com` is Web Push's.
    func testFCMHostKeepsItsOwnPathsAndTheRouteNeedsTheRealHost() throws {
        let d = try RunningDouble.start(self, proxy: true)
        let v1 = try push(d, "https://fcm.googleapis.com/v1/projects/pushdouble-test/messages:send",
                          extra: ["-H", "content-type: application/json", "--data-binary", "{}"])
        XCTAssertEqual(v1.status, 401, v1.headers)
        d.server.double.quiesce()
        XCTAssertEqual(d.server.history.all.last?.provider, .fcm)
        // The local FCM URL is not fcm.googleapis.com: its /fcm/send/ is FCM's (no such path).
        let local = try runCommand(["curl", "-sS", "--cacert", try d.env("PUSHDOUBLE_CA_FILE"), "-o", "/dev/null", "-w", "%{http_code}",
                                    "-X", "POST", "-H", "TTL: 60", try d.env("FCM_URL") + "/fcm/send/abc"])
        XCTAssertNotEqual(local.stdout, "201")
        d.server.double.quiesce()
        XCTAssertEqual(d.server.history.all.last?.provider, .fcm)
    }

    /// A real service's host serves only its own endpoint shape; the wildcard is one label.
    func testRealHostsServeOnlyTheirShapeAndTheWildcardIsOneLabel() throws {
        let d = try RunningDouble.start(self, proxy: true)
        let mozillaShape = try push(d, "https://web.push.apple.com/wpush/v1/" + String(repeating: "A", count: 20))
        XCTAssertEqual(mozillaShape.status, 410, "Apple answers invalidEndpoint with its gone status")
        d.server.double.quiesce()
        XCTAssertEqual(d.server.history.all.last?.response.reason, WebPushGoneReason.invalidEndpoint.rawValue)
        XCTAssertEqual(d.server.history.all.last?.environment, "apple")
        for host in ["a.b.notify.windows.com", "notify.windows.com", "push.services.mozilla.com"] {
            XCTAssertEqual(try push(d, "https://\(host)/w/?token=abc").connect, 403, host)
        }
    }

    func testEndpointOriginMustBeTheServicesOwn() throws {
        let d = try RunningDouble.start(self)
        for (service, origin) in [("mozilla", "https://evil.example"), ("apple", "https://updates.push.services.mozilla.com"),
                                  ("wns", "https://a.b.notify.windows.com"), ("fcm", "http://fcm.googleapis.com"), ("mozilla", "elsewhere")] {
            let r = try subscribe(d, #"{"service":"\#(service)","endpointOrigin":"\#(origin)"}"#)
            XCTAssertEqual(r.status, 400, "\(service) \(origin)")
            XCTAssertTrue(r.json["error"]?.stringValue?.hasPrefix("endpointOrigin:") ?? false, "\(r.json)")
        }
        // Default: the local URL, as before.
        let local = try subscribe(d, #"{"service":"apple"}"#)
        XCTAssertTrue(local.json["endpoint"]?.stringValue?.hasPrefix(try d.env("WEBPUSH_URL") + "/") ?? false, "\(local.json)")
    }

    /// pywebpush as shipped, only `HTTPS_PROXY`, `REQUESTS_CA_BUNDLE` and `NO_PROXY` set: 201 to
    /// each production-shaped endpoint with `aud` = the real origin, WebPushException 410 for a
    /// dead subscription, 401 for the local origin as `aud` at the real host.
    func testUnmodifiedPywebpushToProductionEndpointsThroughTheProxy() throws {
        try requireTool("python3")
        let d = try RunningDouble.start(self, proxy: true)
        let r = try runCommand(["env", "-u", "SSL_CERT_FILE", "-u", "CURL_CA_BUNDLE",
                                "HTTPS_PROXY=" + (try d.env("HTTPS_PROXY")), "REQUESTS_CA_BUNDLE=" + (try d.env("PUSHDOUBLE_CA_FILE")),
                                "NO_PROXY=127.0.0.1,localhost",
                                "python3", Self.interop.appendingPathComponent("webpush_pywebpush_proxy.py").path,
                                "--admin", try d.env("PUSHDOUBLE_ADMIN_URL"), "--vapid-key", try d.env("VAPID_PRIVATE_KEY_FILE"),
                                "--vapid-public", try d.env("VAPID_PUBLIC_KEY"), "--subject", try d.env("VAPID_SUBJECT")], timeout: 120)
        let line = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertNotEqual(r.status, 2, "pywebpush is not installed: \(line)")
        XCTAssertEqual(r.status, 0, "stdout: \(r.stdout)\nstderr: \(r.stderr.suffix(3000))")
        let result = try XCTUnwrap(try? JSONValue.parse(line), r.stdout)
        XCTAssertEqual(result["failures"], JSONValue.array([]))
        for name in ["endpoint_mozilla", "delivered_mozilla", "delivered_fcm", "delivered_apple", "delivered_wns",
                     "gone_fcm", "gone_mozilla", "local_aud_refused"] {
            XCTAssertNotNil(result["results"]?[name], "no result for \(name)")
        }
        d.server.double.quiesce()
        let accepted = d.server.history.all.filter { $0.provider == .webpush && $0.response.status.map { (200..<300).contains($0) } == true }
        XCTAssertEqual(Set(accepted.compactMap(\.auth?.audience)),
                       ["https://updates.push.services.mozilla.com", "https://fcm.googleapis.com", "https://web.push.apple.com",
                        "https://db5p.notify.windows.com"])
        XCTAssertEqual(Set(accepted.compactMap(\.transport.connection.tls?.serverName)),
                       ["updates.push.services.mozilla.com", "fcm.googleapis.com", "web.push.apple.com", "db5p.notify.windows.com"])
        let refusedAud = try XCTUnwrap(d.server.history.all.first { $0.response.reason == "vapidAudience" })
        XCTAssertEqual(refusedAud.response.status, 401)
    }
}
