import Foundation
import XCTest

/// Bad input never crashes or hangs the reference sender: every line gets a JSON-RPC
/// reply, and the process keeps serving.
final class ReferenceSenderRobustnessTests: XCTestCase {
    typealias F = ReferenceSenderFixtures

    private func assertError(_ s: ReferenceSenderProcess, _ raw: String, code: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        s.write(raw: raw + "\n")
        let r = try s.readReply()
        XCTAssertEqual((r["error"] as? [String: Any])?["code"] as? Int, code, "\(raw.prefix(60))", file: file, line: line)
    }

    func testMalformedJSONVariants() throws {
        let s = try ReferenceSenderProcess()
        for bad in ["{", "}", "{\"a\":}", "{\"a\" 1}", "[1,]", "{\"a\":1,}", "tru", "nul", "01", "1.", "-", "1e",
                    "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"a\u{01}b\"", "{\"a\":1} x", "\u{feff}{}"] {
            try assertError(s, bad, code: -32700)
        }
        try assertError(s, String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000), code: -32700)
        XCTAssertNotNil(try s.result("settle"))
    }

    func testInvalidUTF8IsAParseError() throws {
        let s = try ReferenceSenderProcess()
        let pipe = s.process.standardInput as? Pipe
        pipe?.fileHandleForWriting.write(Data([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D, 0x0A]))  // {"a":"\xC3("}
        XCTAssertEqual((try s.readReply()["error"] as? [String: Any])?["code"] as? Int, -32700)
        XCTAssertNotNil(try s.result("settle"))
    }

    func testOverlongLineIsRefusedWithoutKillingTheServer() throws {
        let s = try ReferenceSenderProcess()
        let huge = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"settle\",\"params\":{\"x\":\"" + String(repeating: "a", count: 17 << 20) + "\"}}"
        try assertError(s, huge, code: -32600)
        XCTAssertNotNil(try s.result("settle"))
    }

    func testWrongTypesInRequests() throws {
        let s = try ReferenceSenderProcess()
        try assertError(s, "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"settle\"}", code: -32600)
        try assertError(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}", code: -32600)
        try assertError(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"settle\",\"params\":3}", code: -32600)
        try assertError(s, "{\"id\":1,\"method\":\"settle\"}", code: -32600)
        _ = try s.result("initialize", F.initializeParams)
        for n in [["title": 5], ["priority": "urgent"], ["badge": "3"], ["data": [1]], ["ttlSeconds": 1.5], ["sound": 7]] as [[String: Any]] {
            let r = try s.call("send", ["notification": n, "devices": [F.device("d", token: F.token(1))]])
            XCTAssertEqual((r["error"] as? [String: Any])?["code"] as? Int, -32602, "\(n)")
        }
        let env = try s.call("send", ["notification": ["title": "x"], "devices": [["id": "d", "token": "aa", "environment": "staging"]]])
        XCTAssertEqual((env["error"] as? [String: Any])?["code"] as? Int, -32602)
        // Notifications (no id) get no reply; the next request's reply comes next.
        s.write(raw: "{\"jsonrpc\":\"2.0\",\"method\":\"settle\"}\n")
        let r = try s.call("settle")
        XCTAssertNotNil(r["result"])
    }

    func testRandomBytesNeverKillTheProcess() throws {
        let s = try ReferenceSenderProcess()
        var rng = SystemRandomNumberGenerator()
        let pipe = s.process.standardInput as? Pipe
        for _ in 0..<200 {
            var bytes = (0..<Int.random(in: 1...200, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            bytes.removeAll { $0 == 0x0A }
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { bytes.append(0x41) }
            bytes.append(0x0A)
            pipe?.fileHandleForWriting.write(Data(bytes))
            let r = try s.readReply()
            XCTAssertNotNil(r["error"])
        }
        XCTAssertNotNil(try s.result("settle"))
        XCTAssertTrue(s.process.isRunning)
    }

    func testTokensThatWouldBreakThePathAreNotSent() throws {
        let s = try startScriptedSender()
        let r = try s.send(["title": "x"], [F.device("slash", token: "ab/../cd"), F.device("space", token: "ab cd"), F.device("empty", token: "")])
        XCTAssertEqual(r["slash"]?.outcome(), "dead")
        XCTAssertEqual(r["slash"]?.reason(), "BadDeviceToken")
        XCTAssertEqual(r["space"]?.outcome(), "dead")
        XCTAssertEqual(r["empty"]?.outcome(), "dead")
        XCTAssertEqual(r["empty"]?.reason(), "MissingDeviceToken")
        XCTAssertEqual(try s.requests().count, 0)
    }
}
