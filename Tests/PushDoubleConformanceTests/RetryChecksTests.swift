import XCTest
@testable import PushDoubleConformance
import PushDoubleCore

final class RetryChecksTests: XCTestCase {
    func testNoRetryPermanent() {
        var ok = HistoryBuilder()
        ok.send(["d1"], at: 0, end: 1)
        ok.push("d1", at: 0.1, status: 400, reason: "BadDeviceToken")
        XCTAssertVerdict(ok.run(RetryChecks.noRetryPermanent), .pass)

        var bad = ok
        bad.push("d1", at: 0.3, status: 400, reason: "BadDeviceToken")
        let r = bad.run(RetryChecks.noRetryPermanent)
        XCTAssertVerdict(r, .fail)
        XCTAssertEqual(r.evidence[0].seqs, [1, 2])

        // 413 is never retried either.
        var big = HistoryBuilder()
        big.send(["d1"], at: 0, end: 1)
        big.push("d1", at: 0.1, status: 413, reason: "PayloadTooLarge")
        big.push("d1", at: 0.2, status: 413, reason: "PayloadTooLarge")
        XCTAssertVerdict(big.run(RetryChecks.noRetryPermanent), .fail)

        XCTAssertVerdict(HistoryBuilder().run(RetryChecks.noRetryPermanent), .notApplicable)
    }

    func testRequestErrorMayBeResentOnlyChanged() {
        var b = HistoryBuilder()
        b.send(["d1"], at: 0, end: 1)
        b.push("d1", at: 0.1, status: 400, reason: "BadCollapseId", extraHeaders: [("apns-collapse-id", String(repeating: "x", count: 70))])
        b.push("d1", at: 0.2) // changed: no collapse id
        XCTAssertVerdict(b.run(RetryChecks.noRetryPermanent), .pass)
        var same = HistoryBuilder()
        same.send(["d1"], at: 0, end: 1)
        same.push("d1", at: 0.1, status: 400, reason: "BadPriority")
        same.push("d1", at: 0.2, status: 400, reason: "BadPriority")
        XCTAssertVerdict(same.run(RetryChecks.noRetryPermanent), .fail)
    }

    func testDeadTokenNotReused() {
        var b = HistoryBuilder()
        b.send(["d1", "d2"], at: 0, end: 1)
        b.push("d1", at: 0.1, status: 410, reason: "Unregistered")
        b.push("d2", at: 0.1)
        b.send(["d1", "d2"], at: 2, end: 3)
        b.push("d2", at: 2.1)
        XCTAssertVerdict(b.run(RetryChecks.deadTokenNotReused), .pass)
        b.push("d1", at: 2.2, status: 410, reason: "Unregistered")
        let r = b.run(RetryChecks.deadTokenNotReused)
        XCTAssertVerdict(r, .fail)
        XCTAssertEqual(r.evidence[0].seqs, [1, 4])
    }

    func testRetryAfterDeltaSeconds() {
        var b = HistoryBuilder()
        b.send(["d1"], at: 0, end: 5)
        b.push("d1", at: 0.1, status: 429, reason: "TooManyRequests", responseHeaders: [["retry-after", "2"]])
        b.push("d1", at: 2.2)
        XCTAssertVerdict(b.run(RetryChecks.retryAfter), .pass)
        var early = HistoryBuilder()
        early.send(["d1"], at: 0, end: 5)
        early.push("d1", at: 0.1, status: 503, reason: "ServiceUnavailable", responseHeaders: [["Retry-After", "2"]])
        early.push("d1", at: 1.0)
        XCTAssertVerdict(early.run(RetryChecks.retryAfter), .fail)
    }

    func testRetryAfterHTTPDate() {
        let when = DateFormats.httpDate(HistoryBuilder.t0 + 3)
        var b = HistoryBuilder()
        b.send(["d1"], at: 0, end: 5)
        b.push("d1", at: 0.0, status: 503, reason: "ServiceUnavailable", responseHeaders: [["retry-after", when]])
        b.push("d1", at: 1.5)
        XCTAssertVerdict(b.run(RetryChecks.retryAfter), .fail)
        var late = HistoryBuilder()
        late.send(["d1"], at: 0, end: 5)
        late.push("d1", at: 0.0, status: 503, reason: "ServiceUnavailable", responseHeaders: [["retry-after", when]])
        late.push("d1", at: 3.1)
        XCTAssertVerdict(late.run(RetryChecks.retryAfter), .pass)
        XCTAssertEqual(retryAfterSeconds(when, now: HistoryBuilder.t0) ?? -1, 3, accuracy: 0.001)
        XCTAssertNil(retryAfterSeconds("soon", now: HistoryBuilder.t0))
    }

    func testTransientRetried() {
        var b = HistoryBuilder()
        b.send(["d1"], at: 0, end: 1, results: ["d1": .sent])
        b.push("d1", at: 0.1, status: 500, reason: "InternalServerError")
        b.push("d1", at: 0.4)
        XCTAssertVerdict(b.run(RetryChecks.transientRetried), .pass)
        var gaveUp = HistoryBuilder()
        gaveUp.send(["d1"], at: 0, end: 1, results: ["d1": .failed])
        gaveUp.push("d1", at: 0.1, status: nil, action: "drop")
        XCTAssertVerdict(gaveUp.run(RetryChecks.transientRetried), .fail)
        XCTAssertVerdict(HistoryBuilder().run(RetryChecks.transientRetried), .notApplicable)
    }

    func testBoundedAttempts() {
        var b = HistoryBuilder()
        b.send(["d1"], at: 0, end: 5)
        for i in 0..<4 { b.push("d1", at: Double(i) * 0.1, status: 503, reason: "ServiceUnavailable") }
        XCTAssertVerdict(b.run(RetryChecks.boundedAttempts, params(#"{"maxAttempts":4}"#)), .pass)
        XCTAssertVerdict(b.run(RetryChecks.boundedAttempts, params(#"{"maxAttempts":3}"#)), .fail)
    }

    func testBackoffGrows() {
        var b = HistoryBuilder()
        b.send(["d1"], at: 0, end: 5)
        b.push("d1", at: 0.0, status: 500, reason: "InternalServerError")
        b.push("d1", at: 0.105, status: 500, reason: "InternalServerError")   // gap 0.1
        b.push("d1", at: 0.31, status: 500, reason: "InternalServerError")    // gap 0.2
        b.push("d1", at: 0.715)                                               // gap 0.4
        XCTAssertVerdict(b.run(RetryChecks.backoffGrows), .pass)
        var flat = HistoryBuilder()
        flat.send(["d1"], at: 0, end: 5)
        for i in 0..<3 { flat.push("d1", at: Double(i) * 0.105, status: 500, reason: "InternalServerError") }
        flat.push("d1", at: 0.315)
        let r = flat.run(RetryChecks.backoffGrows)
        XCTAssertVerdict(r, .fail)
        XCTAssertTrue(r.evidence[0].note.contains("do not grow"))
        var immediate = HistoryBuilder()
        immediate.send(["d1"], at: 0, end: 5)
        for i in 0..<4 { immediate.push("d1", at: Double(i) * 0.006, status: 500, reason: "InternalServerError") }
        XCTAssertVerdict(immediate.run(RetryChecks.backoffGrows), .fail)
    }

    func testBackoffJitterWarns() {
        func run(_ gaps: [Double]) -> CheckResult {
            var b = HistoryBuilder()
            b.send(["d1", "d2", "d3"], at: 0, end: 5)
            for (i, g) in gaps.enumerated() {
                b.push("d\(i + 1)", at: 0, conn: 1, status: 500, reason: "InternalServerError")
                b.push("d\(i + 1)", at: 0.005 + g, conn: 1)
            }
            return b.run(RetryChecks.backoffJitter)
        }
        XCTAssertVerdict(run([0.1, 0.1, 0.1]), .warn)
        XCTAssertVerdict(run([0.08, 0.11, 0.13]), .pass)
        XCTAssertEqual(RetryChecks.backoffJitter.severity, .should)
    }

    func testNoDuplicateDelivery() {
        var b = HistoryBuilder()
        b.send(["d1", "d2"], at: 0, end: 1)
        b.push("d1", at: 0.1)
        b.push("d2", at: 0.1)
        XCTAssertVerdict(b.run(RetryChecks.noDuplicateDelivery), .pass)
        b.push("d1", at: 0.5, conn: 2)
        XCTAssertVerdict(b.run(RetryChecks.noDuplicateDelivery), .fail)
    }

    func goawayRun(resendProcessed: Bool) -> HistoryBuilder {
        var b = HistoryBuilder()
        b.send(["d1", "d2", "d3", "d4"], at: 0, end: 2)
        b.push("d1", at: 0.10, conn: 1, stream: 1)
        b.push("d2", at: 0.11, conn: 1, stream: 3)
        b.push("d3", at: 0.12, conn: 1, stream: 5, status: nil, action: "goaway",
               detail: "fault g1: goaway; GOAWAY last=before-this-stream NO_ERROR")
        b.push("d3", at: 0.30, conn: 2, stream: 1)
        b.push("d4", at: 0.31, conn: 2, stream: 3)
        if resendProcessed {
            b.push("d1", at: 0.32, conn: 2, stream: 5)
            b.push("d2", at: 0.33, conn: 2, stream: 7)
        }
        return b
    }

    func testGoAway() {
        XCTAssertVerdict(goawayRun(resendProcessed: false).run(RetryChecks.goAway), .pass)
        let r = goawayRun(resendProcessed: true).run(RetryChecks.goAway)
        XCTAssertVerdict(r, .fail)
        XCTAssertEqual(r.evidence.count, 2)
        // Unprocessed stream never resent.
        var lost = HistoryBuilder()
        lost.send(["d1", "d2"], at: 0, end: 2)
        lost.push("d1", at: 0.1, conn: 1, stream: 1)
        lost.push("d2", at: 0.2, conn: 1, stream: 3, status: nil, action: "goaway", detail: "GOAWAY last=1 NO_ERROR")
        XCTAssertVerdict(lost.run(RetryChecks.goAway), .fail)
        // New stream on the dead connection.
        var reuse = HistoryBuilder()
        reuse.send(["d1", "d2"], at: 0, end: 2)
        reuse.push("d1", at: 0.1, conn: 1, stream: 1, status: nil, action: "goaway", detail: "GOAWAY last=before-this-stream NO_ERROR")
        reuse.push("d1", at: 0.5, conn: 1, stream: 3)
        XCTAssertVerdict(reuse.run(RetryChecks.goAway), .fail)
        XCTAssertVerdict(HistoryBuilder().run(RetryChecks.goAway), .notApplicable)
    }
}
