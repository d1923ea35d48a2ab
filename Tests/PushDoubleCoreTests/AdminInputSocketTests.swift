import Foundation
import XCTest
import PushDoubleTestSupport
import PushDoubleCore
import PushDoubleTransport
@testable import PushDouble

/// The payloads that used to kill the server, over real sockets. They are refused
/// with a JSON 400 naming the field; the same rules built in code (past the validation)
/// still run without trapping; the server answers `/health` after each. Transport-level
/// refusals on the admin port are JSON too.
final class AdminInputSocketTests: XCTestCase {
    var server: PushDoubleServer!
    override func setUpWithError() throws { try requireInteropTier(needs: "curl", "python3"); server = try startTestServer() }
    override func tearDown() { server?.stop() }

    private func admin(_ method: String, _ path: String, _ body: String? = nil, headers: [String] = [], extra: [String] = []) throws -> Curl {
        try Curl.call(method, server.adminURL + path, body: body, headers: headers, extra: extra)
    }

    private func push(_ token: String = "abc") throws -> Curl {
        try Curl.call("POST", server.fakeURL + "/push/" + token, body: "{}", headers: ["authorization: ok"], extra: ["--http2-prior-knowledge"])
    }

    private func assertHealthy(file: StaticString = #filePath, line: UInt = #line) throws {
        let h = try admin("GET", "/health")
        XCTAssertEqual(h.code, 200, h.stderr, file: file, line: line)
        XCTAssertEqual((h.json as? [String: Any])?["status"] as? String, "ok", file: file, line: line)
    }

    private func assertJSONError(_ c: Curl, _ status: Int, _ message: String? = nil, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(c.code, status, c.body + c.stderr, file: file, line: line)
        XCTAssertEqual(c.header("content-type"), "application/json", file: file, line: line)
        let error = (c.json as? [String: Any])?["error"] as? String
        XCTAssertNotNil(error, c.body, file: file, line: line)
        if let message { XCTAssertEqual(error, message, file: file, line: line) }
    }

    static let crashPayloads: [(rule: String, field: String)] = [
        (#"{"id":"c1","action":{"type":"quota","fixedWindow":{"limit":1,"seconds":1e-300}}}"#, "action.fixedWindow.seconds"),
        (#"{"id":"c2","action":{"type":"quota","fixedWindow":{"limit":1,"seconds":1e300}}}"#, "action.fixedWindow.seconds"),
        (#"{"id":"c3","action":{"type":"quota","tokenBucket":{"rate":1e-300,"burst":1}}}"#, "action.tokenBucket.rate"),
        (#"{"id":"c4","action":{"type":"respond","status":429,"retryAfter":{"dateIn":9223372036854775807}}}"#, "action.retryAfter.dateIn"),
    ]

    func testCrashPayloadsAreRefusedAndTheServerKeepsServing() throws {
        for (rule, field) in Self.crashPayloads {
            let c = try admin("POST", "/faults", rule)
            assertJSONError(c, 400)
            let message = (c.json as? [String: Any])?["error"] as? String ?? ""
            XCTAssertTrue(message.hasPrefix(field + ": expected "), message)
            let s = try admin("POST", "/scenarios", #"{"id":"s","faults":["# + rule + "]}")
            assertJSONError(s, 400)
            XCTAssertTrue((s.json as? [String: Any])?["error"] as? String ?? "" == "request body: faults[0]." + message, s.body)
            XCTAssertEqual(try push().code, 200)
            XCTAssertEqual(try push().code, 200)
            try assertHealthy()
        }
        XCTAssertTrue(server.faults.list().isEmpty)
    }

    /// Second line of defence: the same numbers in rules built in code run without trapping.
    func testCrashNumbersInRulesBuiltInCodeDoNotTrap() throws {
        let rules: [FaultAction] = [
            .quota(QuotaSpec(.fixedWindow(limit: 1, seconds: 1e-300))),
            .quota(QuotaSpec(.fixedWindow(limit: 1, seconds: 1e300))),
            .quota(QuotaSpec(.tokenBucket(rate: 1e-300, burst: 1))),
            .respond(ResponseSpec(status: 429, retryAfter: .dateIn(seconds: .max))),
        ]
        for (i, action) in rules.enumerated() {
            server.faults.reset()
            try server.faults.add(FaultRule(id: "code\(i)", action: action))
            var codes: [Int] = []
            for _ in 0..<3 {
                let c = try push()
                codes.append(c.code)
                if c.code == 429 { XCTAssertNotNil(c.header("retry-after"), "\(action)") }
            }
            XCTAssertTrue(codes.contains(429), "\(action): \(codes)")
            try assertHealthy()
        }
        let last = try push()
        XCTAssertEqual(last.header("retry-after"), "Fri, 31 Dec 9999 23:59:59 GMT")
        XCTAssertEqual(try admin("GET", "/history").code, 200, "the history renders")
    }

    func testTransportRefusalsOnTheAdminPortAreJSON() throws {
        // 413: a body beyond the listener's 1 MiB limit.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pd-big-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(repeating: 0x20, count: 2 << 20).write(to: file)
        assertJSONError(try admin("POST", "/faults", headers: ["content-type: application/json"],
                                  extra: ["--http1.1", "--data-binary", "@" + file.path]), 413)
        // 431: a header list beyond 16 KiB.
        assertJSONError(try admin("GET", "/health", headers: ["x-big: " + String(repeating: "a", count: 20_000)], extra: ["--http1.1"]), 431)
        // 400: a request the HTTP/1.1 parser refuses (a header line without a colon).
        let port = try XCTUnwrap(server.endpoint(named: "admin")?.port)
        let script = """
        import socket, sys
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
        s.sendall(b"GET /health HTTP/1.1\\r\\nHost: x\\r\\nno colon here\\r\\n\\r\\n")
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk: break
            data += chunk
        sys.stdout.write(data.decode("latin-1"))
        """
        let r = try runCommand(["python3", "-c", script, String(port)], timeout: 10)
        XCTAssertTrue(r.stdout.hasPrefix("HTTP/1.1 400 "), r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.lowercased().contains("content-type: application/json\r\n"), r.stdout)
        let body = r.stdout.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
        XCTAssertNotNil((try? JSONValue.parse(body))?["error"]?.stringValue, body)
        try assertHealthy()
    }
}
