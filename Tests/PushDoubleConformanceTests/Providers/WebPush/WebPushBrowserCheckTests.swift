import XCTest
@testable import PushDoubleConformance
import PushDoubleCore

/// The pieces of the real-browser case that need no browser: how the check reads the relay's
/// and the service worker's annotations, when the runner stops waiting, how Firefox is found
/// and what its profile says.
final class WebPushBrowserCheckTests: XCTestCase {
    func notes(_ delivery: String, code: Int64? = nil, read: JSONValue? = nil) -> JSONValue {
        var relay: [(String, JSONValue)] = [("delivery", .string(delivery))]
        if let code { relay.append(("code", .int(code))) }
        var members: [(String, JSONValue)] = [("browser", .object(relay))]
        if let read { members.append(("serviceWorker", read)) }
        return .object(members)
    }

    func testBrowserProblem() {
        let read: JSONValue = ["text": "hello", "at": "2026-01-01T00:00:00.000Z"]
        XCTAssertNil(WebPushChecks.browserProblem(notes("acked", code: 100, read: read), bodyBytes: 120))
        XCTAssertEqual(WebPushChecks.browserProblem(notes("acked", code: 101), bodyBytes: 120),
                       "Firefox could not decrypt it (ack code 101, decryption error)")
        XCTAssertEqual(WebPushChecks.browserProblem(notes("acked", code: 100), bodyBytes: 120),
                       "acked, but the service worker reported no push event")
        XCTAssertEqual(WebPushChecks.browserProblem(notes("acked", code: 100, read: ["text": .null]), bodyBytes: 120),
                       "the service worker read no data from a message with a body")
        XCTAssertNil(WebPushChecks.browserProblem(notes("acked", code: 100, read: ["text": .null]), bodyBytes: 0))
        XCTAssertEqual(WebPushChecks.browserProblem(notes("nacked", code: 301), bodyBytes: 1), "the service worker failed on it (nack code 301)")
        XCTAssertEqual(WebPushChecks.browserProblem(notes("sent"), bodyBytes: 1), "not acknowledged by the browser (delivery sent)")
    }

    /// A JSON payload's decoded strings (Python's json.dumps escapes every non-ASCII character).
    func testJSONPayloadStringsAreDecoded() throws {
        let text = #"{"title": "Caf\u00e9 \u2615", "data": {"list": ["\ud83c\udf89", 3]}}"#
        XCTAssertEqual(WebPushChecks.strings(try JSONValue.parse(text)), ["Café ☕", "🎉"])
    }

    func testSettledWaitsForAckAndRead() {
        XCTAssertFalse(WebPushBrowserDevices.settled(annotations: [notes("sent")]))
        XCTAssertFalse(WebPushBrowserDevices.settled(annotations: [notes("queued")]))
        XCTAssertFalse(WebPushBrowserDevices.settled(annotations: [notes("acked", code: 100)]))
        XCTAssertTrue(WebPushBrowserDevices.settled(annotations: [notes("acked", code: 100, read: ["text": "x"])]))
        XCTAssertTrue(WebPushBrowserDevices.settled(annotations: [notes("acked", code: 101)]))
        XCTAssertTrue(WebPushBrowserDevices.settled(annotations: [notes("dropped"), nil]))
    }

    func testFindingFirefox() throws {
        XCTAssertEqual(FirefoxProcess.find(environment: ["PUSHDOUBLE_FIREFOX": "/opt/ff/firefox", "PATH": "/nonexistent"]), "/opt/ff/firefox")
        XCTAssertNil(FirefoxProcess.find(environment: ["PATH": "/nonexistent"]))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ff-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/firefox", contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755]))
        XCTAssertEqual(FirefoxProcess.find(environment: ["PATH": "/nonexistent:" + dir]), dir + "/firefox")
        XCTAssertEqual(WebPushBrowserDevices.notFound, "Firefox not found (firefox-esr)")
    }

    func testProfilePointsFirefoxAtTheDouble() {
        let js = FirefoxProcess.userJS(serverURL: "ws://127.0.0.1:8727")
        for line in ["user_pref(\"dom.push.serverURL\", \"ws://127.0.0.1:8727\");", "user_pref(\"dom.push.connection.enabled\", true);",
                     "user_pref(\"dom.push.testing.allowInsecureServerURL\", true);", "user_pref(\"network.proxy.type\", 0);"] {
            XCTAssertTrue(js.contains(line), line)
        }
    }
}
