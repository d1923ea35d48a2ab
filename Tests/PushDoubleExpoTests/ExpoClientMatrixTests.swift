import Foundation
import XCTest
import PushDoubleTestSupport
import PushDoubleCore
import PushDouble
@testable import PushDoubleExpo

/// The Expo real-client matrix (docs/expo.md "Real clients"): Expo push client libraries from
/// PyPI, each driven by its own script Tests/Interop/expo_<library>.py against the fake in
/// `PushDoubleServer`, given only the base URL, the test CA and the access token. Each script
/// checks tickets, receipts and the library's own error types; this side checks what the
/// fake's history saw (chunking, HTTP version, receipts annotated onto the sends).
final class ExpoClientMatrixTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "python3 (Expo client libraries)") }

    static let interop = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interop")
    static let packageRoot = interop.deletingLastPathComponent().deletingLastPathComponent()
    static let ca = packageRoot.appendingPathComponent("Certificates/pushdouble-test-ca.pem").path
    /// Where Tests/run.sh installs async-expo-push-notifications (it shares the module name
    /// `exponent_server_sdk` with exponent-server-sdk, so it cannot live beside it).
    static let asyncExpoPath = packageRoot.appendingPathComponent(".build/interop-python/async-expo").path

    func startServer(_ options: JSONValue? = nil) throws -> PushDoubleServer { try startExpoServer(options) }

    func run(_ script: String, distribution: String, arguments: [String], pythonPath: String? = nil) throws -> JSONValue {
        var command = ["env"]
        if let pythonPath { command.append("PYTHONPATH=" + pythonPath) }
        command += ["python3", Self.interop.appendingPathComponent(script).path] + arguments
        let r = try runCommand(command, timeout: 180)
        let line = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
        if r.status == 2 {
            XCTFail(line.isEmpty ? "\(distribution) is not installed (run bash Tests/run.sh or pip install \(distribution))" : line)
            return .null
        }
        XCTAssertEqual(r.status, 0, "\(distribution) stdout: \(r.stdout)\nstderr: \(r.stderr.suffix(3000))")
        let result = (try? JSONValue.parse(line)) ?? .null
        XCTAssertEqual(result["library"], .string(distribution), "no JSON result line\nstdout: \(r.stdout)\nstderr: \(r.stderr.suffix(3000))")
        XCTAssertEqual(result["failures"], JSONValue.array([]), distribution)
        return result
    }

    func sends(_ server: PushDoubleServer) -> [Exchange] { server.history.all.filter { $0.endpoint == ExpoSendFake.endpoint } }

    func testExponentServerSDK() throws {
        let server = try startServer()
        let url = try XCTUnwrap(server.endpoint(named: "expo")?.url)
        let result = try run("expo_exponent_server_sdk.py", distribution: "exponent_server_sdk",
                             arguments: ["--url", url, "--ca", Self.ca, "--access-token", ExpoFakeConfiguration.shippedAccessToken])
        for name in ["publish_ok", "ticket_device_not_registered", "publish_multiple_150", "check_receipts", "check_receipts_multiple",
                     "unknown_receipt_omitted", "message_too_big", "too_many_notifications", "unauthorized"] {
            XCTAssertNotNil(result["results"]?[name], name)
        }
        let sends = self.sends(server)
        XCTAssertTrue(sends.contains { $0.recipients?.count == 100 } && sends.contains { $0.recipients?.count == 50 },
                      "the SDK split 150 messages into 100 + 50")
        XCTAssertEqual(sends.filter { $0.response.reason == "PUSH_TOO_MANY_NOTIFICATIONS" }.count, 1)
        XCTAssertEqual(sends.filter { $0.response.reason == "invalid_token" }.count, 1, "a wrong token: docs/expo.md §3.2a")
        XCTAssertTrue(sends.allSatisfy { $0.request.headers.contains { $0.first?.lowercased() == "user-agent" && $0.last?.hasPrefix("python-requests/") == true } })
        // The receipts the SDK fetched are on the sends' entries.
        let annotated = sends.compactMap { $0.annotations?["receipts"]?.objectValue }.flatMap { $0 }
        XCTAssertGreaterThanOrEqual(annotated.count, 150 + 5 + 1)
        XCTAssertTrue(annotated.contains { $0.1["receipt"]?["details"]?["error"] == "InvalidCredentials" })
    }

    func testAsyncExpoPushNotifications() throws {
        let server = try startServer()
        let url = try XCTUnwrap(server.endpoint(named: "expo")?.url)
        let result = try run("expo_async_expo_push.py", distribution: "async-expo-push-notifications",
                             arguments: ["--url", url, "--ca", Self.ca, "--access-token", ExpoFakeConfiguration.shippedAccessToken],
                             pythonPath: Self.asyncExpoPath)
        XCTAssertEqual(result["results"]?["publish_multiple_150"], 150)
        XCTAssertEqual(result["results"]?["unauthorized"], 401)
        let sends = self.sends(server)
        XCTAssertFalse(sends.isEmpty)
        XCTAssertTrue(sends.allSatisfy { $0.transport.version == .http2 }, "httpx with http2=True negotiated h2")
        XCTAssertEqual(sends.filter { $0.response.reason == "PUSH_TOO_MANY_NOTIFICATIONS" }.count, 1)
    }

    func testAioexponent() throws {
        let open = try startServer(["requireAccessToken": false])
        let secure = try startServer()
        let result = try run("expo_aioexponent.py", distribution: "aioexponent",
                             arguments: ["--url", try XCTUnwrap(open.endpoint(named: "expo")?.url), "--ca", Self.ca,
                                         "--secure-url", try XCTUnwrap(secure.endpoint(named: "expo")?.url)])
        XCTAssertEqual(result["results"]?["publish_multiple_100"], 100)
        XCTAssertEqual(self.sends(secure).map(\.response.status), [401])
        XCTAssertEqual(self.sends(open).compactMap(\.recipients?.count), [2, 100])
    }
}

extension XCTestCase {
    /// A double serving only the Expo fake (no admin API, one loop; `proxy`: with the CONNECT
    /// proxy), stopped at the test's teardown.
    func startExpoServer(_ options: JSONValue? = nil, proxy: Bool = false) throws -> PushDoubleServer {
        var config = PushDoubleConfiguration.ephemeral()
        config.modules = [ExpoModule()]
        config.admin = false
        config.proxy = proxy
        config.eventLoopCount = 1
        if let options { config.providerOptions = ["expo": options] }
        let server = PushDoubleServer(configuration: config)
        try server.start()
        addTeardownBlock { server.stop() }
        return server
    }
}
