import Foundation
import XCTest
@testable import PushDoubleCore
import PushDoubleTransport

final class DoublePipelineTests: XCTestCase {
    var clock: ManualClock!
    var double: DoubleState!
    var pipeline: DoublePipeline!
    let h = Harness()

    override func setUp() {
        clock = ManualClock()
        double = DoubleState(clock: clock, historyCap: 100, seed: 1)
        pipeline = double.pipeline(for: TestFake(), environment: "production")
    }

    private func push(_ token: String = "abc", headers: [(String, String)] = [("authorization", "ok")]) -> ResponseAction {
        h.send(pipeline, "/push/" + token, headers: headers)
    }

    func testRefusalIsRecordedAndAnswered() {
        let a = push(headers: [])
        XCTAssertStatus(a, 403)
        let e = double.history.all[0]
        XCTAssertEqual(e.decidedBy.stage, .auth)
        XCTAssertEqual(e.response.reason, "Forbidden")
        XCTAssertEqual(e.response.status, 403)
        XCTAssertEqual(e.environment, "production")
    }

    func testTransportLimitRefusalsAreRecorded() throws {
        // TestFake shapes nothing: the transport's plain text, recorded under `transport.limit`.
        let violation = LimitViolation(kind: .bodyTooLarge, message: "request body exceeds 1048576 bytes")
        let r = try XCTUnwrap(pipeline.limitExceeded(violation, head: h.request("/push/abc"), context: RequestContext(connection: h.connection)))
        XCTAssertEqual(r.status, 413)
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), "request body exceeds 1048576 bytes\n")
        let e = try XCTUnwrap(double.history.all.last)
        XCTAssertEqual(e.endpoint, "transport.limit")
        XCTAssertEqual(e.response.status, 413)
        XCTAssertEqual(e.decidedBy.stage, .validation)
        XCTAssertEqual(e.environment, "production")
    }

    func testOpenWorldDeliveryAndHistory() {
        XCTAssertStatus(push(), 200)
        let e = double.history.all[0]
        XCTAssertEqual(e.seq, 1)
        XCTAssertEqual(e.provider, "test")
        XCTAssertEqual(e.endpoint, "test.push")
        XCTAssertEqual(e.token, "abc")
        XCTAssertNil(e.deviceID)
        XCTAssertEqual(e.decidedBy.stage, .accepted)
        XCTAssertEqual(e.response.action, "respond")
        XCTAssertEqual(e.response.headers, [["apns-id", "id-1"]])
        XCTAssertEqual(e.request.path, "/push/abc")
        XCTAssertEqual(e.receivedAt, clock.now())
    }

    func testClosedWorldAndMagicTokens() {
        double.devices.setWorld(.closed, for: "test")
        XCTAssertStatus(push("abc"), 400)
        XCTAssertStatus(push("magic-dead"), 410)
        XCTAssertEqual(push("magic-dead").bodyText, #"{"reason":"Unregistered","timestamp":1700000000000}"#)
    }

    func testDeviceDiesAfterSecondPush() throws {
        try double.devices.register(Device(id: "d1", provider: "test", token: "abc", transitions: [DeviceTransition(.afterDeliveries(2), to: .unregistered)]))
        XCTAssertStatus(push(), 200)
        clock.advance(1)
        XCTAssertStatus(push(), 200)
        let diedAt = clock.now()
        clock.advance(1)
        let third = push()
        XCTAssertStatus(third, 410)
        XCTAssertEqual(third.bodyText, "{\"reason\":\"Unregistered\",\"timestamp\":\(Int64(diedAt.timeIntervalSince1970 * 1000))}")
        XCTAssertEqual(double.devices.device(id: "d1")?.deliveries, 2)
        XCTAssertEqual(double.history.all.map(\.deviceID), ["d1", "d1", "d1"])
        XCTAssertEqual(double.history.all[2].decidedBy, Decision(.device, "d1"))
    }

    func testRespondWithProviderReasonAndRetryAfterForms() throws {
        try double.faults.add(FaultRule(id: "f", match: FaultMatch(nth: 1), action: .respond(ResponseSpec(reason: "ServiceUnavailable", retryAfter: .seconds(7)))))
        try double.faults.add(FaultRule(id: "g", match: FaultMatch(nth: 2), action: .respond(ResponseSpec(reason: "TooManyRequests", headers: [.init("x-extra", "1")], retryAfter: .dateIn(seconds: 120)))))
        let a = push()
        XCTAssertStatus(a, 503)
        XCTAssertEqual(a.response?.headers["retry-after"], "7")
        XCTAssertEqual(a.bodyText, #"{"reason":"ServiceUnavailable"}"#)
        let b = push()
        XCTAssertStatus(b, 429)
        XCTAssertEqual(b.response?.headers["retry-after"], DateFormats.httpDate(clock.now() + 120))
        XCTAssertEqual(b.response?.headers["x-extra"], "1")
        XCTAssertStatus(push(), 200)
        let hist = double.history.all
        XCTAssertEqual(hist[0].decidedBy, Decision(.fault, "f"))
        XCTAssertEqual(hist[0].response.reason, "ServiceUnavailable")
        XCTAssertEqual(hist[2].decidedBy.stage, .accepted)
    }

    func testRawResponseAndUnknownReason() throws {
        try double.faults.add(FaultRule(id: "html", match: FaultMatch(nth: 1), action: .respond(ResponseSpec(status: 502, body: "<html>Bad Gateway</html>", contentType: "text/html"))))
        try double.faults.add(FaultRule(id: "json", match: FaultMatch(nth: 2), action: .respond(ResponseSpec(status: 500, body: "{\"x\":1}"))))
        try double.faults.add(FaultRule(id: "unknown", match: FaultMatch(nth: 3), action: .respond(ResponseSpec(reason: "NoSuchReason", status: 418))))
        let a = push()
        XCTAssertEqual(a.status, 502)
        XCTAssertEqual(a.response?.headers["content-type"], "text/html")
        XCTAssertEqual(a.bodyText, "<html>Bad Gateway</html>")
        XCTAssertEqual(push().response?.headers["content-type"], "application/json")
        // A reason the fake does not know: the fake's own error shape (this stub keeps the
        // core default, plain text; APNs answers {"reason":…}, see APNsFakeTests).
        let c = push()
        XCTAssertEqual(c.status, 418)
        XCTAssertEqual(c.response?.headers["content-type"], "text/plain; charset=utf-8")
        XCTAssertEqual(c.bodyText, "NoSuchReason\n")
    }

    func testDelayThenContinueCountsDelivery() throws {
        try double.devices.register(Device(id: "d1", provider: "test", token: "abc"))
        try double.faults.add(FaultRule(id: "slow", action: .delay(seconds: 2, then: .continue), times: 1))
        guard case .delayed(let s, let then) = push() else { return XCTFail("expected delayed") }
        XCTAssertEqual(s, 2)
        XCTAssertStatus(then, 200)
        XCTAssertEqual(double.devices.device(id: "d1")?.deliveries, 1)
        let e = double.history.all[0]
        XCTAssertEqual(e.response.action, "delayed")
        XCTAssertEqual(e.response.delaySeconds, 2)
        XCTAssertEqual(e.response.status, 200)
        XCTAssertEqual(e.decidedBy.stage, .accepted, "the answer itself was the fake's")
        XCTAssertTrue(e.response.detail?.contains("fault slow: delay") ?? false, e.response.detail ?? "")
    }

    func testDelayThenAnotherAction() throws {
        try double.faults.add(FaultRule(id: "x", action: .delay(seconds: 0.5, then: .respond(ResponseSpec(reason: "InternalServerError")))))
        guard case .delayed(0.5, let then) = push() else { return XCTFail() }
        XCTAssertStatus(then, 500)
        XCTAssertEqual(double.history.all[0].decidedBy, Decision(.fault, "x"))
    }

    func testConnectionLevelActions() throws {
        try double.faults.add(FaultRule(id: "drop", match: FaultMatch(nth: 1), action: .drop))
        try double.faults.add(FaultRule(id: "rst", match: FaultMatch(nth: 2), action: .reset(.refusedStream)))
        try double.faults.add(FaultRule(id: "stall", match: FaultMatch(nth: 3), action: .stall))
        try double.faults.add(FaultRule(id: "ga", match: FaultMatch(nth: 4), action: .goAway(lastStream: .beforeThisStream, errorCode: .noError, debugData: .json(.object([("reason", .string("Shutdown"))])), then: nil)))
        try double.faults.add(FaultRule(id: "ga2", match: FaultMatch(nth: 5), action: .goAway(lastStream: .thisStream, errorCode: .enhanceYourCalm, debugData: .text("calm"), then: .continue)))
        guard case .dropConnection = push() else { return XCTFail() }
        guard case .resetStream(.refusedStream) = push() else { return XCTFail() }
        guard case .stall = push() else { return XCTFail() }
        guard case .goAway(.beforeThisStream, .noError, let debug, nil) = push() else { return XCTFail() }
        XCTAssertEqual(String(decoding: debug, as: UTF8.self), #"{"reason":"Shutdown"}"#)
        guard case .goAway(.thisStream, .enhanceYourCalm, let d2, let then?) = push() else { return XCTFail() }
        XCTAssertEqual(d2, Array("calm".utf8))
        XCTAssertStatus(then, 200)
        XCTAssertEqual(double.history.all.map(\.response.action), ["drop", "reset", "stall", "goaway", "goaway"])
        XCTAssertEqual(double.history.all[3].response.detail, #"fault ga: goaway; GOAWAY last=before-this-stream NO_ERROR debug={"reason":"Shutdown"}"#)
        XCTAssertEqual(double.history.all[4].response.status, 200)
    }

    func testDribbleAndTruncateWrapTheNormalAnswer() throws {
        try double.devices.register(Device(id: "d1", provider: "test", token: "dead", state: .expired))
        try double.faults.add(FaultRule(id: "dr", match: FaultMatch(nth: 1), action: .dribble(chunkSize: 2, interval: 0.1, response: nil)))
        try double.faults.add(FaultRule(id: "tr", match: FaultMatch(nth: 2), action: .truncate(bodyBytes: 3, response: nil)))
        try double.faults.add(FaultRule(id: "tr2", match: FaultMatch(nth: 3), action: .truncate(bodyBytes: 1, response: ResponseSpec(status: 200, body: "{\"ok\":true}"))))
        guard case .dribble(let r, 2, 0.1) = push("dead") else { return XCTFail() }
        XCTAssertEqual(r.status, 410)
        guard case .truncate(let r2, 3) = push("dead") else { return XCTFail() }
        XCTAssertEqual(String(decoding: r2.body, as: UTF8.self), #"{"reason":"ExpiredToken"}"#)
        guard case .truncate(let r3, 1) = push("dead") else { return XCTFail() }
        XCTAssertEqual(r3.status, 200)
        XCTAssertEqual(double.history.all.map(\.response.action), ["dribble", "truncate", "truncate"])
        XCTAssertEqual(double.history.all[0].decidedBy, Decision(.device, "d1"))
    }

    func testQuotaRendersProviderReasonWithTruthfulRetryAfter() throws {
        try double.faults.add(FaultRule(id: "q", action: .quota(QuotaSpec(.fixedWindow(limit: 2, seconds: 10)))))
        XCTAssertStatus(push(), 200)
        XCTAssertStatus(push(), 200)
        clock.advance(3.2)
        let a = push()
        XCTAssertStatus(a, 429)
        XCTAssertEqual(a.bodyText, #"{"reason":"TooManyRequests"}"#)
        XCTAssertEqual(a.response?.headers["retry-after"], "7")
        XCTAssertEqual(double.history.all[2].decidedBy, Decision(.quota, "q"))
        clock.advance(7)
        XCTAssertStatus(push(), 200)
    }

    func testMatchOnRegisteredDeviceIDAndTopic() throws {
        try double.devices.register(Device(id: "phone", provider: "test", token: "abc"))
        try double.faults.add(FaultRule(id: "f", match: FaultMatch(device: "phone", topic: "com.x"), action: .respond(ResponseSpec(reason: "InternalServerError"))))
        XCTAssertStatus(push("abc", headers: [("authorization", "ok"), ("x-topic", "com.x")]), 500)
        XCTAssertStatus(push("abc", headers: [("authorization", "ok"), ("x-topic", "com.y")]), 200)
        XCTAssertStatus(push("other", headers: [("authorization", "ok"), ("x-topic", "com.x")]), 200)
    }

    func testSameSeedSameHistory() throws {
        func run() throws -> [Int?] {
            let d = DoubleState(clock: ManualClock(), seed: 99)
            let p = d.pipeline(for: TestFake())
            try d.faults.add(FaultRule(id: "p", match: FaultMatch(probability: 0.25), action: .respond(ResponseSpec(reason: "ServiceUnavailable"))))
            let hh = Harness()
            for i in 0..<100 { _ = hh.send(p, "/push/t\(i % 7)") }
            return d.history.all.map(\.response.status)
        }
        let a = try run()
        XCTAssertEqual(a, try run())
        XCTAssertTrue(a.contains(503) && a.contains(200))
    }

    func testHistoryCapKeepsNewestAndCountsDropped() {
        let d = DoubleState(historyCap: 5)
        let p = d.pipeline(for: TestFake())
        for _ in 0..<12 { _ = h.send(p, "/push/abc") }
        XCTAssertEqual(d.history.count, 5)
        XCTAssertEqual(d.history.dropped, 7)
        XCTAssertEqual(d.history.all.first?.seq, 8)
    }

    func testResetByProvider() throws {
        try double.devices.register(Device(id: "d", provider: "test", token: "abc"))
        try double.faults.add(FaultRule(id: "f", match: FaultMatch(provider: "test"), action: .drop))
        _ = push()
        double.reset(provider: "test")
        XCTAssertTrue(double.devices.list().isEmpty)
        XCTAssertTrue(double.faults.list().isEmpty)
        XCTAssertEqual(double.history.count, 0)
        XCTAssertEqual(double.providers, ["test"])
    }
}

/// Not a timed assertion: prints the pipeline's in-process cost for the report.
final class DoublePipelineCostTests: XCTestCase {
    func testPipelineCostPerRequest() throws {
        let d = DoubleState(historyCap: 10_000)
        let p = d.pipeline(for: TestFake())
        try d.devices.register(Device(id: "d", provider: "test", token: "registered"))
        let h = Harness()
        let requests = (0..<1000).map { h.request("/push/" + ($0 % 2 == 0 ? "registered" : "t\($0)"), headers: [("authorization", "ok"), ("x-topic", "com.example")], body: #"{"aps":{"alert":"hello"}}"#) }
        let ctx = RequestContext(connection: h.connection)
        let n = 100_000
        let start = Date()
        for i in 0..<n { _ = p.respond(to: requests[i % requests.count], context: ctx) }
        let secs = Date().timeIntervalSince(start)
        print("pipeline: \(Int(Double(n) / secs)) requests/s on one thread (\(String(format: "%.2f", secs * 1e6 / Double(n))) µs each, history cap 10000)")
        XCTAssertEqual(d.history.count, 10_000)
        XCTAssertEqual(d.history.dropped, UInt64(n - 10_000))
        XCTAssertEqual(d.devices.device(id: "d")?.deliveries, n / 2)
    }
}
