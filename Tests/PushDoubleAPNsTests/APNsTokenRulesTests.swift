import XCTest
import PushDoubleCore
@testable import PushDoubleAPNs

final class APNsTokenRulesTests: XCTestCase {
    let clock = ManualClock()
    let timing = APNsTokenTiming()
    var now: Int64 { Int64(clock.now().timeIntervalSince1970) }

    func claims(key: String = "KEY1234567", team: String = "TEAM123456", iatOffset: Int64 = 0,
                env: APNsKeyEnvironments = .both, topics: Set<String>? = nil, family: String? = nil) -> APNsVerifiedToken {
        APNsVerifiedToken(keyID: key, teamID: team, issuedAt: now + iatOffset, keyEnvironments: env, keyTopics: topics, keyFamily: family)
    }

    func eval(_ token: String, _ c: APNsVerifiedToken, _ state: APNsConnectionState, env: APNsEnvironment = .production,
              topic: String = "com.example.pushdouble") -> APNsReason? {
        APNsTokenRules.evaluate(token: token, claims: c, state: state, environment: env, topic: topic, bundleID: topic,
                                now: clock.now(), timing: timing)
    }

    func testFirstTokenBindsTeamAndKey() {
        let s = APNsConnectionState()
        XCTAssertNil(eval("jwt1", claims(), s))
        XCTAssertEqual(s.teamID, "TEAM123456")
        XCTAssertEqual(s.keyID, "KEY1234567")
        XCTAssertEqual(s.currentToken, "jwt1")
        // Reuse is free.
        clock.advance(100)
        XCTAssertNil(eval("jwt1", s.currentClaims!, s))
    }

    func testExpiry() {
        let s = APNsConnectionState()
        XCTAssertNil(eval("jwt1", claims(iatOffset: -3600), s))
        let c = s.currentClaims!
        clock.advance(1)
        XCTAssertEqual(eval("jwt1", c, s), .expiredProviderToken)
        XCTAssertEqual(eval("old", claims(iatOffset: -3601), APNsConnectionState()), .expiredProviderToken)
        XCTAssertEqual(eval("future", claims(iatOffset: 301), APNsConnectionState()), .invalidProviderToken)
        XCTAssertNil(eval("slightly-ahead", claims(iatOffset: 300), APNsConnectionState()))
        // iat in milliseconds is far in the future.
        let ms = APNsVerifiedToken(keyID: "KEY1234567", teamID: "TEAM123456", issuedAt: now * 1000)
        XCTAssertEqual(eval("ms", ms, APNsConnectionState()), .invalidProviderToken)
    }

    func testExpiredTokenIsDroppedSoTheRefreshIsNotAnUpdate() {
        let s = APNsConnectionState()
        // A token 50 min old when first accepted expires 10 min later, well inside the 20-min interval.
        XCTAssertNil(eval("old", claims(iatOffset: -3000), s))
        let oldClaims = s.currentClaims!
        clock.advance(601)
        XCTAssertEqual(eval("old", oldClaims, s), .expiredProviderToken)
        XCTAssertNil(s.currentToken)
        XCTAssertEqual(s.expiredToken, "old")
        // The fresh token is accepted at once and is not an update.
        XCTAssertNil(eval("fresh", claims(), s))
        XCTAssertEqual(s.currentToken, "fresh")
        XCTAssertEqual(s.tokenUpdates, 0)
        XCTAssertEqual(s.keyID, "KEY1234567")
        // The expired token stays refused; another new token right away is still an update.
        XCTAssertEqual(eval("old", oldClaims, s), .expiredProviderToken)
        XCTAssertNil(eval("another", claims(), s))  // the old token's refusal dropped "fresh" again
        clock.advance(10)
        XCTAssertEqual(eval("third", claims(), s), .tooManyProviderTokenUpdates)
    }

    func testOtherTeamIsInvalidProviderToken() {
        let s = APNsConnectionState()
        XCTAssertNil(eval("jwt1", claims(), s))
        clock.advance(1300)
        XCTAssertEqual(eval("jwt2", claims(key: "OTHERKEY01", team: "OTHERTEAM1"), s), .invalidProviderToken)
        XCTAssertEqual(s.currentToken, "jwt1")
    }

    func testUnrelatedKey() {
        let s = APNsConnectionState()
        XCTAssertNil(eval("jwt1", claims(), s))
        clock.advance(1300)
        XCTAssertEqual(eval("jwt2", claims(key: "KEY7654321"), s), .unrelatedKeyIdInToken)
        // Keys of one family replace each other, counted as a token update.
        let f = APNsConnectionState()
        XCTAssertNil(eval("jwtA", claims(family: "fam"), f))
        clock.advance(1300)
        XCTAssertNil(eval("jwtB", claims(key: "KEY7654321", family: "fam"), f))
        XCTAssertEqual(f.tokenUpdates, 1)
    }

    func testEnvironmentRestrictedKey() {
        XCTAssertEqual(eval("j", claims(env: .sandbox), APNsConnectionState(), env: .production), .badEnvironmentKeyInToken)
        XCTAssertEqual(eval("j", claims(env: .production), APNsConnectionState(), env: .sandbox), .badEnvironmentKeyInToken)
        XCTAssertNil(eval("j", claims(env: .sandbox), APNsConnectionState(), env: .sandbox))
        XCTAssertNil(eval("j", claims(env: .both), APNsConnectionState(), env: .sandbox))
    }

    func testTopicRestrictedKey() {
        XCTAssertEqual(eval("j", claims(topics: ["com.other"]), APNsConnectionState()), .invalidProviderToken)
        XCTAssertNil(eval("j", claims(topics: ["com.example.pushdouble"]), APNsConnectionState()))
    }

    func testTooManyProviderTokenUpdatesBlocksTheConnection() {
        let s = APNsConnectionState()
        let start = clock.now()
        XCTAssertNil(eval("jwt1", claims(), s))
        clock.advance(600)
        XCTAssertEqual(eval("jwt2", claims(), s), .tooManyProviderTokenUpdates)
        XCTAssertEqual(s.blockedUntil, start.addingTimeInterval(1200))
        // Blocked: every request, old token included, until acceptedAt + 1200 s.
        XCTAssertEqual(APNsTokenRules.blockedReason(state: s, now: clock.now()), .tooManyProviderTokenUpdates)
        clock.advance(599)
        XCTAssertEqual(APNsTokenRules.blockedReason(state: s, now: clock.now()), .tooManyProviderTokenUpdates)
        clock.advance(1)
        XCTAssertNil(APNsTokenRules.blockedReason(state: s, now: clock.now()))
        XCTAssertNil(s.blockedUntil)
        XCTAssertNil(eval("jwt2", claims(), s))
        XCTAssertEqual(s.currentToken, "jwt2")
        XCTAssertEqual(s.tokenUpdates, 1)
    }

    func testUpdateAfterIntervalIsAccepted() {
        let s = APNsConnectionState()
        XCTAssertNil(eval("jwt1", claims(), s))
        clock.advance(1200)
        XCTAssertNil(eval("jwt2", claims(), s))
        XCTAssertNil(s.blockedUntil)
        XCTAssertEqual(s.tokenUpdates, 1)
    }

    func testRejectedTokenDoesNotBindOrCount() {
        let s = APNsConnectionState()
        XCTAssertEqual(eval("j", claims(env: .sandbox), s), .badEnvironmentKeyInToken)
        XCTAssertNil(s.teamID)
        XCTAssertNil(s.currentToken)
        XCTAssertNil(eval("k", claims(), s))
        XCTAssertEqual(s.tokenUpdates, 0)
    }
}
