import Foundation
import XCTest
import PushDoubleTestSupport
import PushDoubleCore
import PushDouble
@testable import PushDoubleExpo

/// A real single-message Expo sender against the fake: Symfony's Expo Notifier bridge
/// (Debian `php-symfony-expo-notifier`, Tests/Interop/expo_symfony_notifier.php) posts one
/// message object and reads `data.status` / `data.id` (docs/expo.md "One ticket object"). It is
/// reached through the double's CONNECT proxy by Expo's own host name, with only
/// `https_proxy` and the test CA given. With the default answer (one ticket object) its ok
/// and error paths work; with `singleTicket: "array"` the same unmodified sender breaks.
final class ExpoSingleTicketClientTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "php (php-symfony-expo-notifier)") }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interop/expo_symfony_notifier.php").path
    static let ca = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Certificates/pushdouble-test-ca.pem").path
    let ok = "ExponentPushToken[symfonysymfonysymfo1]"
    let dead = "ExponentPushToken[00000000DNRTsymfony]"

    func run(options: JSONValue?) throws -> (result: JSONValue, server: PushDoubleServer) {
        try requireTool("php")
        let server = try startExpoServer(options, proxy: true)
        let proxy = try XCTUnwrap(server.endpoint(named: PushDoubleServer.proxyListener)?.url)
        let r = try runCommand(["env", "https_proxy=" + proxy, "HTTPS_PROXY=" + proxy, "no_proxy=", "NO_PROXY=",
                                "php", Self.script, Self.ca, ExpoFakeConfiguration.shippedAccessToken, ok, dead], timeout: 60)
        let line = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertNotEqual(r.status, 2, "php-symfony-expo-notifier is not installed (bash Tests/run.sh installs it): \(line)")
        XCTAssertEqual(r.status, 0, "stdout: \(r.stdout)\nstderr: \(r.stderr.suffix(2000))")
        return ((try? JSONValue.parse(line)) ?? .null, server)
    }

    func testOneTicketObjectServesTheOkAndErrorPaths() throws {
        let (result, server) = try run(options: nil)
        XCTAssertEqual(result["library"], "symfony/expo-notifier", "\(result)")
        let sends = server.history.all.filter { $0.endpoint == ExpoSendFake.endpoint }
        XCTAssertEqual(sends.count, 2)
        XCTAssertTrue(sends.allSatisfy { if case .object = $0.notification { return true } else { return false } }, "one message object each")
        XCTAssertEqual(sends.first?.transport.connection.tls?.serverName, "exp.host", "reached by Expo's host name through the proxy")
        let ticketID = try XCTUnwrap(sends.first?.recipients?.first?.detail?["id"]?.stringValue)
        XCTAssertEqual(result["ok"]?["id"]?.stringValue, ticketID, "the sender read data.id: \(result)")
        let error = result["dead"]?["error"]?.stringValue ?? ""
        XCTAssertTrue(error.contains("TransportException") && error.contains("(DeviceNotRegistered)") && error.contains(dead),
                      "the sender read data.status, data.message and data.details.error: \(error)")
    }

    func testTheArrayFormBreaksTheUnmodifiedSender() throws {
        let (result, _) = try run(options: ["singleTicket": "array"])
        XCTAssertNil(result["ok"]?["id"]?.stringValue, "\(result)")
        XCTAssertNotNil(result["ok"]?["error"]?.stringValue, "data[0] is not data.id: \(result)")
        XCTAssertNil(result["dead"]?["error"]?.stringValue.map { $0.contains("DeviceNotRegistered") ? $0 : nil } ?? nil,
                     "the error ticket in an array is not read as one: \(result)")
    }
}
