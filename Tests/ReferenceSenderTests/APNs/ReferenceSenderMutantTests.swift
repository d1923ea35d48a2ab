import Foundation
import XCTest

/// Each `--mutant` plants exactly its bug: the same scripted scenario run against the
/// correct sender and the mutant shows the difference the conformance suite must catch.
final class ReferenceSenderMutantTests: XCTestCase {
    typealias F = ReferenceSenderFixtures

    private func path(_ r: [String: Any]) -> String { r["path"] as? String ?? "" }

    func testRetryDeadTokens() throws {
        let s = try startScriptedSender(mutant: "retry-dead-tokens")
        try s.script([["token": F.token(1), "status": 410, "reason": "Unregistered", "times": -1]])
        let r = try s.send(["title": "x"], [F.device("d", token: F.token(1))])
        XCTAssertNotEqual(r["d"]?.outcome(), "dead")
        XCTAssertGreaterThan(try s.requests().count, 1, "retried a 410")
        let again = try s.send(["title": "y"], [F.device("d", token: F.token(1))])
        XCTAssertNotEqual(again["d"]?.outcome(), "skipped", "kept sending to the dead token")
    }

    func testJWTPerRequest() throws {
        let s = try startScriptedSender(mutant: "jwt-per-request")
        _ = try s.send(["title": "x"], (0..<3).map { F.device("d\($0)", token: F.token($0)) })
        try s.advanceClock(1)
        _ = try s.send(["title": "x"], (3..<5).map { F.device("d\($0)", token: F.token($0)) })
        let reqs = try s.requests()
        XCTAssertEqual(Set(reqs.compactMap { $0.headers()["authorization"] }).count, 5, "a new JWT for every request")
        let iats = reqs.compactMap { (($0["jwt"] as? [String: Any])?["claims"] as? [String: Any])?["iat"] as? Int }
        XCTAssertEqual(Set(iats), [1_800_000_000, 1_800_000_001], "iat is the current time, never in the future")
        XCTAssertEqual(try s.stats()["jwtMints"], 5)
    }

    func testIgnoreRetryAfter() throws {
        let s = try startScriptedSender(mutant: "ignore-retry-after")
        try s.script([["token": F.token(1), "status": 429, "reason": "TooManyRequests", "headers": ["Retry-After": "7"]]])
        _ = try s.send(["title": "x"], [F.device("d", token: F.token(1))])
        let reqs = try s.requests()
        XCTAssertEqual(reqs.count, 2)
        XCTAssertLessThan((reqs[1]["time"] as? Double ?? 0) - (reqs[0]["time"] as? Double ?? 0), 7)
    }

    func testNoBackoff() throws {
        let s = try startScriptedSender(mutant: "no-backoff")
        try s.script([["token": F.token(1), "status": 500, "reason": "InternalServerError", "times": 3]])
        _ = try s.send(["title": "x"], [F.device("d", token: F.token(1))])
        XCTAssertEqual(try s.requests().count, 4)
        XCTAssertEqual(try s.sleeps(), [0, 0, 0])
    }

    func testConnectionPerPush() throws {
        let s = try startScriptedSender(mutant: "connection-per-push")
        _ = try s.send(["title": "x"], (0..<5).map { F.device("d\($0)", token: F.token($0)) })
        XCTAssertEqual(Set(try s.requests().compactMap { $0["connection"] as? Int }).count, 5)
    }

    func testOversizedPayloads() throws {
        let s = try startScriptedSender(mutant: "oversized-payloads")
        let r = try s.send(["body": String(repeating: "a", count: 5000)], [F.device("d", token: F.token(1))])
        XCTAssertEqual(r["d"]?.outcome(), "sent", "the scripted APNs does not check size; the mutant sent it")
        XCTAssertGreaterThan(try s.requests().first?["size"] as? Int ?? 0, 4096)
    }

    func testWrongTopicSuffix() throws {
        let s = try startScriptedSender(mutant: "wrong-topic-suffix")
        _ = try s.send(["title": "x", "pushType": "voip"], [F.device("d", token: F.token(1))])
        XCTAssertEqual(try s.requests().first?.headers()["apns-topic"], F.topic)
    }

    func testBackgroundPriority10() throws {
        let s = try startScriptedSender(mutant: "background-priority-10")
        _ = try s.send(["contentAvailable": true], [F.device("d", token: F.token(1))])
        let h = try s.requests().first?.headers() ?? [:]
        XCTAssertEqual(h["apns-push-type"], "background")
        XCTAssertEqual(h["apns-priority"], "10")
    }

    func testResendAllAfterGoaway() throws {
        let s = try startScriptedSender(mutant: "resend-all-after-goaway")
        try s.script([["token": F.token(2), "error": "goAway", "delayMs": 100]])
        let r = try s.send(["title": "x"], [F.device("a", token: F.token(1)), F.device("b", token: F.token(2))])
        XCTAssertEqual(r["a"]?.outcome(), "sent")
        let a = try s.requests().filter { path($0).hasSuffix(F.token(1)) }
        XCTAssertEqual(a.count, 2, "the processed push was sent again")
    }

    func testNeverRetryTransient() throws {
        let s = try startScriptedSender(mutant: "never-retry-transient")
        try s.script([["token": F.token(1), "status": 503, "reason": "ServiceUnavailable"]])
        let r = try s.send(["title": "x"], [F.device("d", token: F.token(1))])
        XCTAssertEqual(r["d"]?.outcome(), "failed")
        XCTAssertEqual(try s.requests().count, 1)
    }

    func testReportSentAlways() throws {
        let s = try startScriptedSender(mutant: "report-sent-always")
        try s.script([["token": F.token(1), "status": 410, "reason": "Unregistered"]])
        let r = try s.send(["title": "x"], [F.device("d", token: F.token(1)),
                                            F.device("big", token: F.token(2))])
        XCTAssertEqual(r["d"]?.outcome(), "sent")
        let r2 = try s.send(["body": String(repeating: "a", count: 5000)], [F.device("big", token: F.token(2))])
        XCTAssertEqual(r2["big"]?.outcome(), "sent")
        XCTAssertEqual(try s.requests().count, 2, "the oversized payload was still not sent; only the report lies")
    }

    func testRemintOnTokenUpdateError() throws {
        let s = try startScriptedSender(mutant: "remint-on-token-update-error")
        try s.script([["token": F.token(1), "status": 429, "reason": "TooManyProviderTokenUpdates"]])
        let r = try s.send(["title": "x"], [F.device("d", token: F.token(1))])
        XCTAssertEqual(r["d"]?.outcome(), "sent")
        let reqs = try s.requests()
        XCTAssertEqual(reqs.count, 2)
        XCTAssertNotEqual(reqs[0].headers()["authorization"], reqs[1].headers()["authorization"], "a new JWT was minted")
        XCTAssertTrue(try s.sleeps().allSatisfy { $0 == 0 }, "and no wait")
        XCTAssertEqual(try s.stats()["jwtMints"], 2)
    }

    /// `--mutant` given twice plants both bugs (the last one does not replace the first), and
    /// an unknown name among known ones still refuses to start.
    func testStackedMutantsPlantEveryBug() throws {
        let s = try startScriptedSender(stacked: ["connection-per-push", "ignore-retry-after"])
        try s.script([["token": F.token(9), "status": 429, "reason": "TooManyRequests", "headers": ["Retry-After": "7"]]])
        _ = try s.send(["title": "x"], (0..<3).map { F.device("d\($0)", token: F.token($0)) } + [F.device("r", token: F.token(9))])
        let reqs = try s.requests()
        XCTAssertEqual(Set(reqs.compactMap { $0["connection"] as? Int }).count, reqs.count, "a connection per push (first mutant)")
        let retried = reqs.filter { path($0).hasSuffix(F.token(9)) }
        XCTAssertEqual(retried.count, 2)
        XCTAssertLessThan((retried[1]["time"] as? Double ?? 0) - (retried[0]["time"] as? Double ?? 0), 7, "Retry-After ignored (second mutant)")
        let log = s.finalStderr(timeout: 0.5)  // still running: what it logged so far
        XCTAssertTrue(log.contains("mutant connection-per-push,ignore-retry-after"), log)

        let bad = try ReferenceSenderProcess(arguments: ["--mutant", "no-backoff", "--mutant", "no-such-bug"])
        XCTAssertEqual(try bad.waitForExit(), 2)
        XCTAssertTrue(bad.finalStderr().contains("unknown mutant \"no-such-bug\""), bad.finalStderr())
    }
}
