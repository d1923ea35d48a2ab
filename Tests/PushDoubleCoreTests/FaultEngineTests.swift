import Foundation
import XCTest
@testable import PushDoubleCore
import PushDoubleTransport

final class FaultEngineTests: XCTestCase {
    let req = FaultRequest(provider: "test", endpoint: "test.push", token: "t1", deviceID: "d1", topic: "com.x", environment: "production")

    private func fired(_ e: FaultEngine, _ q: FaultRequest? = nil, count: Int) -> [Bool] {
        (0..<count).map { _ in e.evaluate(q ?? req) != nil }
    }

    func testStaticCriteriaAllMustHold() throws {
        let e = FaultEngine()
        try e.add(FaultRule(id: "r", match: FaultMatch(provider: "test", endpoint: "test.push", token: "t1", device: "d1", topic: "com.x", environment: "production"), action: .drop))
        XCTAssertEqual(e.evaluate(req)?.ruleID, "r")
        for other in [FaultRequest(provider: "fcm", endpoint: "test.push", token: "t1", deviceID: "d1", topic: "com.x", environment: "production"),
                      FaultRequest(provider: "test", endpoint: "x", token: "t1", deviceID: "d1", topic: "com.x", environment: "production"),
                      FaultRequest(provider: "test", endpoint: "test.push", token: "t2", deviceID: "d1", topic: "com.x", environment: "production"),
                      FaultRequest(provider: "test", endpoint: "test.push", token: "t1", deviceID: nil, topic: "com.x", environment: "production"),
                      FaultRequest(provider: "test", endpoint: "test.push", token: "t1", deviceID: "d1", topic: "com.y", environment: "production"),
                      FaultRequest(provider: "test", endpoint: "test.push", token: "t1", deviceID: "d1", topic: "com.x", environment: "sandbox")] {
            XCTAssertNil(e.evaluate(other), "\(other)")
        }
    }

    func testNthAndEveryNthCountMatchingRequestsOnly() throws {
        let e = FaultEngine()
        try e.add(FaultRule(id: "third", match: FaultMatch(token: "t1", nth: 3), action: .drop))
        let other = FaultRequest(provider: "test", endpoint: "test.push", token: "zz")
        XCTAssertNil(e.evaluate(other))
        XCTAssertEqual(fired(e, count: 5), [false, false, true, false, false])
        XCTAssertEqual(e.list()[0].matched, 5)
        XCTAssertEqual(e.list()[0].fired, 1)

        let e2 = FaultEngine()
        try e2.add(FaultRule(id: "every2", match: FaultMatch(everyNth: 2), action: .stall))
        XCTAssertEqual(fired(e2, count: 6), [false, true, false, true, false, true])
    }

    /// Requests on the way to a goaway rule's nth are held for its GOAWAY; the nth fires it;
    /// later ones, other actions and rules without nth hold nothing.
    func testRequestsBeforeAGoAwayRulesNthAreHeld() throws {
        let goaway = FaultAction.goAway(lastStream: .beforeThisStream, errorCode: .noError, debugData: .none, then: nil)
        let e = FaultEngine()
        try e.add(FaultRule(id: "g", match: FaultMatch(token: "t1", nth: 3), action: goaway, times: 1))
        let decisions = (0..<5).map { _ in e.decision(req) }
        XCTAssertEqual(decisions.map(\.holdForGoAway), [true, true, false, false, false])
        XCTAssertEqual(decisions.map { $0.hit?.ruleID }, [nil, nil, "g", nil, nil])
        XCTAssertFalse(e.decision(FaultRequest(provider: "test", endpoint: "test.push", token: "zz")).holdForGoAway, "not matched")

        let drop = FaultEngine()
        try drop.add(FaultRule(id: "d", match: FaultMatch(nth: 3), action: .drop))
        XCTAssertEqual((0..<3).map { _ in drop.decision(req).holdForGoAway }, [false, false, false])
        let every = FaultEngine()
        try every.add(FaultRule(id: "e", match: FaultMatch(everyNth: 2), action: goaway))
        XCTAssertEqual((0..<3).map { _ in every.decision(req).holdForGoAway }, [false, false, false])
    }

    func testTimesLimitsFiring() throws {
        let e = FaultEngine()
        try e.add(FaultRule(id: "twice", action: .respond(ResponseSpec(reason: "ServiceUnavailable")), times: 2))
        XCTAssertEqual(fired(e, count: 4), [true, true, false, false])
        let e2 = FaultEngine()
        try e2.add(FaultRule(id: "everyOther", match: FaultMatch(everyNth: 2), action: .drop, times: 1))
        XCTAssertEqual(fired(e2, count: 6), [false, true, false, false, false, false])
    }

    func testFirstMatchWinsInOrder() throws {
        let e = FaultEngine()
        try e.add(FaultRule(id: "a", match: FaultMatch(token: "t1"), action: .drop, times: 1))
        try e.add(FaultRule(id: "b", action: .stall))
        XCTAssertEqual(e.evaluate(req)?.ruleID, "a")
        XCTAssertEqual(e.evaluate(req)?.ruleID, "b")
        XCTAssertThrowsError(try e.add(FaultRule(id: "b", action: .drop)))
        XCTAssertTrue(e.remove(id: "b"))
        XCTAssertNil(e.evaluate(req))
    }

    func testTimeWindowFromUntilSinceLoad() throws {
        let clock = ManualClock()
        let e = FaultEngine(clock: clock)
        try e.add(FaultRule(id: "w", match: FaultMatch(from: 10, until: 20), action: .drop))
        clock.advance(9.99); XCTAssertNil(e.evaluate(req))
        clock.advance(0.01); XCTAssertNotNil(e.evaluate(req))
        clock.advance(9.99); XCTAssertNotNil(e.evaluate(req))
        clock.advance(0.01); XCTAssertNil(e.evaluate(req))
    }

    func testSplitMix64PublishedSequence() {
        // Reference outputs of splitmix64 for seed 1234567 (Vigna's splitmix64.c; also the
        // Rosetta Code "Pseudo-random numbers/Splitmix64" task).
        var g = SplitMix64(seed: 1234567)
        XCTAssertEqual((0..<5).map { _ in g.next() },
                       [6457827717110365317, 3203168211198807973, 9817491932198370423, 4593380528125082431, 16408922859458223821])
    }

    func testProbabilityIsDeterministicForASeed() throws {
        func run(seed: UInt64) throws -> [Bool] {
            let e = FaultEngine(seed: seed)
            try e.add(FaultRule(id: "p", match: FaultMatch(probability: 0.3), action: .drop))
            return fired(e, count: 200)
        }
        let a = try run(seed: 42), b = try run(seed: 42), c = try run(seed: 43)
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, c)
        let hits = a.filter { $0 }.count
        XCTAssertTrue((30...90).contains(hits), "\(hits) hits of 200 at p=0.3")
        // Reseeding restarts the sequence.
        let e = FaultEngine(seed: 7)
        try e.add(FaultRule(id: "p", match: FaultMatch(probability: 0.5), action: .drop))
        let first = fired(e, count: 50)
        e.reseed(7)
        XCTAssertEqual(fired(e, count: 50), first)
        // Probability 0 never fires, 1 always does.
        let z = FaultEngine(seed: 1)
        try z.add(FaultRule(id: "zero", match: FaultMatch(probability: 0), action: .drop))
        try z.add(FaultRule(id: "one", match: FaultMatch(probability: 1), action: .stall))
        XCTAssertEqual(Set((0..<50).map { _ in z.evaluate(req)?.ruleID }), ["one"])
    }

    func testFixedWindowRetryAfterAtWindowEdges() throws {
        let clock = ManualClock()
        let e = FaultEngine(clock: clock)
        try e.add(FaultRule(id: "q", action: .quota(QuotaSpec(.fixedWindow(limit: 2, seconds: 10)))))
        XCTAssertNil(e.evaluate(req))
        XCTAssertNil(e.evaluate(req))
        var hit = try XCTUnwrap(e.evaluate(req, rateLimitReason: "TooManyRequests"))
        XCTAssertTrue(hit.isQuota)
        XCTAssertEqual(hit.retryAfterSeconds, 10)
        XCTAssertEqual(hit.action, .respond(ResponseSpec(reason: "TooManyRequests", status: 429, retryAfter: .seconds(10))))
        clock.advance(0.5)
        XCTAssertEqual(e.evaluate(req)?.retryAfterSeconds, 10)  // 9.5 s rounded up
        clock.advance(8.5)
        XCTAssertEqual(e.evaluate(req)?.retryAfterSeconds, 1)   // exactly 1 s left
        clock.advance(0.999)
        XCTAssertEqual(e.evaluate(req)?.retryAfterSeconds, 1)   // 1 ms left rounds up to 1
        clock.advance(0.001)                                    // t = 10: new window
        XCTAssertNil(e.evaluate(req))
        XCTAssertNil(e.evaluate(req))
        hit = try XCTUnwrap(e.evaluate(req))
        XCTAssertEqual(hit.retryAfterSeconds, 10)
    }

    func testWaitingRetryAfterIsEnough() throws {
        // A client that waits exactly Retry-After is let through (truthful values).
        let clock = ManualClock()
        let e = FaultEngine(clock: clock)
        try e.add(FaultRule(id: "q", action: .quota(QuotaSpec(.fixedWindow(limit: 1, seconds: 7)))))
        XCTAssertNil(e.evaluate(req))
        clock.advance(2.3)
        let wait = try XCTUnwrap(e.evaluate(req)?.retryAfterSeconds)
        XCTAssertEqual(wait, 5)
        clock.advance(Double(wait))
        XCTAssertNil(e.evaluate(req))
    }

    func testTokenBucketRetryAfter() throws {
        let clock = ManualClock()
        let e = FaultEngine(clock: clock)
        try e.add(FaultRule(id: "b", action: .quota(QuotaSpec(.tokenBucket(rate: 0.5, burst: 3)))))
        XCTAssertEqual(fired(e, count: 3), [false, false, false])
        XCTAssertEqual(e.evaluate(req)?.retryAfterSeconds, 2)    // 1 token at 0.5/s
        clock.advance(1)
        XCTAssertEqual(e.evaluate(req)?.retryAfterSeconds, 1)    // half a token: 1 s more
        clock.advance(1)
        XCTAssertNil(e.evaluate(req))                            // one token: allowed
        XCTAssertEqual(e.evaluate(req)?.retryAfterSeconds, 2)
        clock.advance(100)                                       // refills to burst only
        XCTAssertEqual(fired(e, count: 4), [false, false, false, true])

        let fast = FaultEngine(clock: clock)
        try fast.add(FaultRule(id: "f", action: .quota(QuotaSpec(.tokenBucket(rate: 10, burst: 1)))))
        XCTAssertNil(fast.evaluate(req))
        XCTAssertEqual(fast.evaluate(req)?.retryAfterSeconds, 1)  // 0.1 s rounds up to 1
    }

    func testQuotaPerTokenAndPassThrough() throws {
        let e = FaultEngine()
        try e.add(FaultRule(id: "q", action: .quota(QuotaSpec(.fixedWindow(limit: 1, seconds: 60), per: .token, reason: "Custom"))))
        try e.add(FaultRule(id: "later", match: FaultMatch(token: "t2"), action: .stall))
        XCTAssertNil(e.evaluate(req))                              // t1: within quota, nothing else matches
        XCTAssertEqual(e.evaluate(req)?.action, .respond(ResponseSpec(reason: "Custom", status: 429, retryAfter: .seconds(60))))
        let t2 = FaultRequest(provider: "test", endpoint: "test.push", token: "t2")
        XCTAssertEqual(e.evaluate(t2)?.ruleID, "later")            // t2 has its own quota; passes on to the next rule
        XCTAssertEqual(e.evaluate(t2)?.ruleID, "q")
    }

    func testQuotaTimesLimit() throws {
        let e = FaultEngine()
        try e.add(FaultRule(id: "q", action: .quota(QuotaSpec(.fixedWindow(limit: 1, seconds: 60))), times: 1))
        XCTAssertEqual(fired(e, count: 4), [false, true, false, false])
    }

    func testResetByProviderAndAll() throws {
        let e = FaultEngine()
        try e.add(FaultRule(id: "a", match: FaultMatch(provider: "test"), action: .drop))
        try e.add(FaultRule(id: "b", match: FaultMatch(provider: "fcm"), action: .drop))
        e.reset(provider: "test")
        XCTAssertEqual(e.list().map(\.rule.id), ["b"])
        e.reset()
        XCTAssertTrue(e.list().isEmpty)
    }

    func testRuleJSONRoundTrips() throws {
        let rules: [FaultRule] = [
            FaultRule(id: "1", match: FaultMatch(provider: "apns", nth: 2, probability: 0.5),
                      action: .respond(ResponseSpec(reason: "ServiceUnavailable", headers: [.init("x-a", "b")], retryAfter: .dateIn(seconds: 7))), times: 3),
            FaultRule(id: "2", action: .delay(seconds: 1.5, then: .respond(ResponseSpec(status: 502, body: "<html>bad gateway</html>", contentType: "text/html")))),
            FaultRule(id: "3", action: .goAway(lastStream: .explicit(5), errorCode: .enhanceYourCalm, debugData: .json(.object([("reason", .string("Shutdown"))])), then: nil)),
            FaultRule(id: "4", action: .goAway(lastStream: .thisStream, errorCode: .noError, debugData: .text("bye"), then: .continue)),
            FaultRule(id: "5", action: .reset(.refusedStream)),
            FaultRule(id: "6", action: .dribble(chunkSize: 3, interval: 0.2, response: nil)),
            FaultRule(id: "7", action: .truncate(bodyBytes: 4, response: ResponseSpec(status: 200, body: "{\"a\":1}"))),
            FaultRule(id: "8", action: .quota(QuotaSpec(.tokenBucket(rate: 2, burst: 4), per: .token, reason: "TooManyRequests"))),
            FaultRule(id: "9", action: .stall), FaultRule(id: "10", action: .drop),
            FaultRule(id: "11", action: .respond(ResponseSpec(status: 429, retryAfter: .literal("Wed, 21 Oct 2026 07:28:00 GMT")))),
        ]
        let data = try JSONEncoder().encode(rules)
        XCTAssertEqual(try JSONDecoder().decode([FaultRule].self, from: data), rules)
    }

    /// With no rule loaded an evaluation builds no request (the pipeline's request is made
    /// only when something can match it); adding, removing and resetting rules keep that exact.
    func testRequestIsBuiltOnlyWhileARuleIsLoaded() throws {
        let e = FaultEngine()
        var built = 0
        func request() -> FaultRequest { built += 1; return req }
        XCTAssertNil(e.evaluate(request()))
        XCTAssertEqual(built, 0)
        try e.add(FaultRule(id: "r", match: FaultMatch(token: "t1"), action: .drop))
        XCTAssertEqual(e.evaluate(request())?.ruleID, "r")
        XCTAssertEqual(built, 1)
        XCTAssertTrue(e.remove(id: "r"))
        XCTAssertNil(e.evaluate(request()))
        XCTAssertEqual(built, 1)
        try e.add(contentsOf: [FaultRule(id: "a", match: FaultMatch(token: "t2"), action: .drop)])
        XCTAssertNil(e.evaluate(request()))  // loaded but not matching: built, no hit
        XCTAssertEqual(built, 2)
        e.reset()
        XCTAssertNil(e.evaluate(request()))
        XCTAssertEqual(built, 2)
    }
}
