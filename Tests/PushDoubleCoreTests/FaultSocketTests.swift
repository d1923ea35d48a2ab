import Foundation
import XCTest
import PushDoubleTestSupport
import PushDoubleCore
import PushDoubleTransport
@testable import PushDouble

/// Each fault action end to end over real sockets (curl, HTTP/2 cleartext and HTTP/1.1).
final class FaultSocketTests: XCTestCase {
    var server: PushDoubleServer!
    override func setUpWithError() throws { try requireInteropTier(needs: "curl"); server = try startTestServer() }
    override func tearDown() { server?.stop() }

    private func rule(_ json: String) throws {
        let r = try JSONDecoder().decode(FaultRule.self, from: Data(json.utf8))
        try server.faults.add(r)
    }

    private func push(_ token: String = "abc", h2: Bool = true, timeout: Double = 10) throws -> Curl {
        try Curl.call("POST", server.fakeURL + "/push/" + token, body: "{}", headers: ["authorization: ok"],
                      extra: h2 ? ["--http2-prior-knowledge"] : ["--http1.1"], timeout: timeout)
    }

    func testRespondWithReasonStatusHeadersAndHTTPDate() throws {
        try rule(#"{"id":"r","action":{"type":"respond","reason":"TooManyRequests","headers":{"x-extra":"1"},"retryAfter":{"dateIn":30}}}"#)
        let before = Date()
        let c = try push()
        XCTAssertEqual(c.code, 429)
        XCTAssertEqual(c.body, #"{"reason":"TooManyRequests"}"#)
        XCTAssertEqual(c.header("x-extra"), "1")
        let ra = try XCTUnwrap(c.header("retry-after"))
        XCTAssertTrue([DateFormats.httpDate(before + 30), DateFormats.httpDate(before + 31)].contains(ra), ra)
    }

    func testDelayThenContinue() throws {
        try rule(#"{"id":"d","action":{"type":"delay","seconds":0.6}}"#)
        let c = try push()
        XCTAssertEqual(c.code, 200)
        XCTAssertGreaterThanOrEqual(c.seconds, 0.6)
        XCTAssertEqual(server.history.all.last?.response.action, "delayed")
        let deadline = Date().addingTimeInterval(3)
        while !(server.history.all.last?.response.detail?.contains("outcome:") ?? false) && Date() < deadline { usleep(10_000) }
        XCTAssertTrue(server.history.all.last?.response.detail?.contains("outcome: completed at ") ?? false,
                      server.history.all.last?.response.detail ?? "")
    }

    func testDropConnection() throws {
        try rule(#"{"id":"x","action":{"type":"drop"}}"#)
        for h2 in [true, false] {
            let c = try push(h2: h2)
            XCTAssertNotEqual(c.exit, 0, "curl must fail on a dropped connection (h2: \(h2))")
            XCTAssertEqual(c.code, 0)
        }
    }

    func testResetStream() throws {
        try rule(#"{"id":"x","match":{"nth":1},"action":{"type":"reset","errorCode":"INTERNAL_ERROR"}}"#)
        let c = try push()
        XCTAssertEqual(c.exit, 92, c.stderr)
        XCTAssertTrue(c.stderr.contains("INTERNAL_ERROR"), c.stderr)
        // REFUSED_STREAM tells the client the request was not processed: curl retries it.
        server.faults.reset()
        try rule(#"{"id":"r","match":{"nth":1},"action":{"type":"reset","errorCode":"REFUSED_STREAM"}}"#)
        XCTAssertEqual(try push().code, 200)
        XCTAssertEqual(server.history.all.suffix(2).map(\.response.action), ["reset", "respond"])
    }

    func testGoAwayBeforeThisStreamThenProcessedOne() throws {
        try rule(#"{"id":"g1","match":{"nth":1},"action":{"type":"goaway","lastStreamId":"before","errorCode":"NO_ERROR","debugJSON":{"reason":"Shutdown"}}}"#)
        try rule(#"{"id":"g2","match":{"nth":2},"action":{"type":"goaway","lastStreamId":"this","errorCode":"NO_ERROR","debugData":"bye"}}"#)
        let first = try push(timeout: 5)
        XCTAssertNotEqual(first.code, 200, "stream above last-stream-id is not processed: \(first.stderr)")
        let second = try push()
        XCTAssertEqual(second.code, 200, second.stderr)
        let hist = server.history.all
        XCTAssertEqual(hist.first?.response.action, "goaway")
        XCTAssertTrue(hist.first?.response.detail?.contains(#"debug={"reason":"Shutdown"}"#) ?? false)
    }

    func testStall() throws {
        try rule(#"{"id":"s","action":{"type":"stall"}}"#)
        let c = try push(timeout: 1)
        XCTAssertEqual(c.exit, 28, "curl timed out waiting")
        // The client gave up: the history says how the stalled answer ended.
        let deadline = Date().addingTimeInterval(5)
        while !(server.history.all.last?.response.detail?.contains("outcome:") ?? false) && Date() < deadline { usleep(10_000) }
        let detail = server.history.all.last?.response.detail ?? ""
        XCTAssertTrue(detail.contains("outcome: reset") || detail.contains("outcome: connectionDropped") || detail.contains("outcome: abandoned"), detail)
    }

    func testDribbleDeliversWholeBodySlowly() throws {
        try server.devices.register(Device(id: "d", provider: "test", token: "gone", state: .expired))
        try rule(#"{"id":"dr","action":{"type":"dribble","chunkSize":5,"interval":0.1}}"#)
        for h2 in [true, false] {
            let c = try push("gone", h2: h2)
            XCTAssertEqual(c.code, 410)
            XCTAssertEqual(c.body, #"{"reason":"ExpiredToken"}"#, "25 bytes in 5 pieces")
            XCTAssertGreaterThanOrEqual(c.seconds, 0.4)
        }
    }

    func testTruncateCutsTheBody() throws {
        try rule(#"{"id":"t","action":{"type":"truncate","bodyBytes":4,"response":{"status":200,"body":"{\"ok\":true}"}}}"#)
        let c = try push(h2: false)
        XCTAssertEqual(c.exit, 18, "partial body: \(c.stderr)")
        XCTAssertEqual(c.body, #"{"ok"#)
    }

    func testQuotaOverTheWire() throws {
        try rule(#"{"id":"q","match":{"provider":"test"},"action":{"type":"quota","fixedWindow":{"limit":2,"seconds":60},"per":"token"}}"#)
        XCTAssertEqual(try push("a").code, 200)
        XCTAssertEqual(try push("a").code, 200)
        let c = try push("a")
        XCTAssertEqual(c.code, 429)
        XCTAssertEqual(c.body, #"{"reason":"TooManyRequests"}"#)
        let ra = try XCTUnwrap(Int(c.header("retry-after") ?? ""))
        XCTAssertTrue((58...60).contains(ra), "\(ra)")
        XCTAssertEqual(try push("b").code, 200, "per token")
        XCTAssertEqual(server.history.all[2].decidedBy, Decision(.quota, "q"))
    }

    func testTimesLimitOverTheWire() throws {
        try rule(#"{"id":"f","action":{"type":"respond","reason":"InternalServerError"},"times":2}"#)
        XCTAssertEqual(try [push(), push(), push(), push()].map(\.code), [500, 500, 200, 200])
    }

    func testSeededProbabilitySameHistoryTwice() throws {
        func run() throws -> [Int] {
            let s = try startTestServer()
            defer { s.stop() }
            s.faults.reseed(1234)
            try s.faults.add(JSONDecoder().decode(FaultRule.self, from: Data(#"{"id":"p","match":{"probability":0.5},"action":{"type":"respond","reason":"ServiceUnavailable"}}"#.utf8)))
            for i in 0..<12 { _ = try Curl.call("POST", s.fakeURL + "/push/t\(i)", body: "{}", headers: ["authorization: ok"]) }
            return s.history.all.compactMap(\.response.status)
        }
        let a = try run()
        XCTAssertEqual(a.count, 12)
        XCTAssertEqual(a, try run())
        XCTAssertTrue(a.contains(503) && a.contains(200), "\(a)")
    }
}
