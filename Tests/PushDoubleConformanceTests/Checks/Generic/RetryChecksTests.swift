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

    /// Three devices (d1–d3) answered 500 until their last attempt; `delays[i]` are device
    /// i's waits between an answer and the next attempt.
    private func serverErrors(_ delays: [[Double]], reason: String = "InternalServerError", retryAfter: String? = nil) -> HistoryBuilder {
        var b = HistoryBuilder()
        b.send(delays.indices.map { "d\($0 + 1)" }, at: 0, end: 20)
        let answer = 0.005  // each attempt is answered 5 ms after it arrives
        for (i, gaps) in delays.enumerated() {
            var t = 0.001 * Double(i)
            for g in gaps {
                b.push("d\(i + 1)", at: t, status: 500, reason: reason, responseHeaders: retryAfter.map { [["retry-after", $0]] } ?? [],
                       duration: answer)
                t += answer + g
            }
            b.push("d\(i + 1)", at: t)
        }
        return b
    }

    func testBackoffGrows() {
        XCTAssertEqual(RetryChecks.backoffGrows.severity, .should)
        // Partial jitter, steps tripling: grows.
        XCTAssertVerdict(serverErrors([[0.19, 0.58, 1.7], [0.2, 0.55, 1.75], [0.18, 0.6, 1.62]]).run(RetryChecks.backoffGrows), .pass)
        // Full jitter: single messages shrink (0.19 → 0.02), the envelope grows.
        XCTAssertVerdict(serverErrors([[0.19, 0.02, 0.1], [0.05, 0.35, 0.7], [0.1, 0.2, 0.03]]).run(RetryChecks.backoffGrows), .pass)
        // Decorrelated jitter: 0.55 → 0.25 → 0.4 for one message, the others grow.
        XCTAssertVerdict(serverErrors([[0.55, 0.25, 0.4], [0.3, 0.8, 2.1], [0.4, 1.0, 0.6]]).run(RetryChecks.backoffGrows), .pass)
        // Equal jitter on a loaded machine: one first retry held up 0.3 s lifts that retry's
        // largest and mean delay above the later ones, the median still grows.
        XCTAssertVerdict(serverErrors([[0.48, 0.3], [0.16, 0.33], [0.13, 0.27]]).run(RetryChecks.backoffGrows), .pass)
        // Constant delays: no growth (a SHOULD, so a warning).
        let flat = serverErrors([[0.1, 0.1, 0.1], [0.1, 0.1, 0.1], [0.1, 0.1, 0.1]]).run(RetryChecks.backoffGrows)
        XCTAssertVerdict(flat, .warn)
        XCTAssertTrue(flat.message.contains("does not grow"), flat.message)
        XCTAssertVerdict(serverErrors([[0.001, 0.001, 0.002], [0.001, 0.001, 0.001], [0.002, 0.001, 0.001]]).run(RetryChecks.backoffGrows), .warn)
        // Fewer than three messages retried twice: growth of a jittered backoff not observable.
        XCTAssertVerdict(serverErrors([[0.1, 0.1, 0.1], [0.1, 0.1, 0.1]]).run(RetryChecks.backoffGrows), .notApplicable)
        // 503 Shutdown is resent at once (not a backoff), so not judged.
        XCTAssertVerdict(serverErrors([[0.001, 0.001], [0.001, 0.001], [0.001, 0.001]], reason: "Shutdown").run(RetryChecks.backoffGrows),
                         .notApplicable)
    }

    func testNoTightRetryLoop() {
        XCTAssertEqual(RetryChecks.noTightRetryLoop.severity, .must)
        // Retrying straight away, message after message: a tight loop.
        let tight = serverErrors([[0.001, 0.001, 0.002], [0.001, 0.003, 0.001], [0.002, 0.001, 0.001]]).run(RetryChecks.noTightRetryLoop)
        XCTAssertVerdict(tight, .fail)
        XCTAssertTrue(tight.message.contains("tight retry loop"), tight.message)
        XCTAssertEqual(tight.evidence.count, 3)
        // Full jitter with one delay of 2 ms among normal ones: the sequence is judged, not one delay.
        XCTAssertVerdict(serverErrors([[0.002, 0.3, 0.5], [0.1, 0.05, 0.7], [0.15, 0.2, 0.003]]).run(RetryChecks.noTightRetryLoop), .pass)
        // One quick retry per message (nothing retried twice): not a loop.
        XCTAssertVerdict(serverErrors([[0.001], [0.001], [0.001]]).run(RetryChecks.noTightRetryLoop), .notApplicable)
        // Retry-After answers are apns.retry-after's business; Shutdown is resent at once.
        XCTAssertVerdict(serverErrors([[0.001, 0.001, 0.001]], retryAfter: "0").run(RetryChecks.noTightRetryLoop), .notApplicable)
        XCTAssertVerdict(serverErrors([[0.001, 0.001, 0.001]], reason: "Shutdown").run(RetryChecks.noTightRetryLoop), .notApplicable)
        // 429 without Retry-After counts too; the threshold is a parameter.
        var throttled = HistoryBuilder()
        throttled.send(["d1"], at: 0, end: 5)
        for i in 0..<4 { throttled.push("d1", at: 0.01 * Double(i), status: 429, reason: "TooManyRequests") }
        throttled.push("d1", at: 0.05)
        XCTAssertVerdict(throttled.run(RetryChecks.noTightRetryLoop), .fail)
        XCTAssertVerdict(throttled.run(RetryChecks.noTightRetryLoop, params(#"{"minMeanDelay":0.001}"#)), .pass)
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
        XCTAssertVerdict(goawayRun(resendProcessed: false).run(GoAwayCheck.check), .pass)
        let r = goawayRun(resendProcessed: true).run(GoAwayCheck.check)
        XCTAssertVerdict(r, .fail)
        XCTAssertEqual(r.evidence.count, 2)
        // Unprocessed stream never resent.
        var lost = HistoryBuilder()
        lost.send(["d1", "d2"], at: 0, end: 2)
        lost.push("d1", at: 0.1, conn: 1, stream: 1)
        lost.push("d2", at: 0.2, conn: 1, stream: 3, status: nil, action: "goaway", detail: "GOAWAY last=1 NO_ERROR")
        XCTAssertVerdict(lost.run(GoAwayCheck.check), .fail)
        // New stream on the dead connection.
        var reuse = HistoryBuilder()
        reuse.send(["d1", "d2"], at: 0, end: 2)
        reuse.push("d1", at: 0.1, conn: 1, stream: 1, status: nil, action: "goaway", detail: "GOAWAY last=before-this-stream NO_ERROR")
        reuse.push("d1", at: 0.5, conn: 1, stream: 3)
        XCTAssertVerdict(reuse.run(GoAwayCheck.check), .fail)
        XCTAssertVerdict(HistoryBuilder().run(GoAwayCheck.check), .notApplicable)
    }
}
