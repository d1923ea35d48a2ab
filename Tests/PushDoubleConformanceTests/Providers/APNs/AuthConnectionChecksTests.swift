import XCTest
@testable import PushDoubleConformance
import PushDoubleAPNs
import PushDoubleCore

final class AuthConnectionChecksTests: XCTestCase {
    func testJWTContentsPass() {
        var b = HistoryBuilder()
        b.send(["d1"], at: 0, end: 1)
        b.push("d1", at: 0.1)
        b.push("d2", at: 0.2, jwt: HistoryBuilder.jwt(header: #"{"alg":"ES256","kid":"ABC123DEFG","typ":"JWT"}"#))
        XCTAssertVerdict(b.run(AuthConnectionChecks.jwtContents), .pass)
        // What APNs tolerates is no MUST failure: iat as a fraction or a digit string, extra
        // claims and header members (apns.jwt-iat-integer / apns.jwt-exact-members warn).
        for tolerated in [
            HistoryBuilder.jwt(claims: #"{"iss":"TEAM123456","iat":1800000000.123}"#),
            HistoryBuilder.jwt(claims: #"{"iss":"TEAM123456","iat":"1800000000"}"#),
            HistoryBuilder.jwt(claims: #"{"iss":"TEAM123456","iat":1800000000,"exp":1800003600}"#),
            HistoryBuilder.jwt(header: #"{"alg":"ES256","kid":"ABC123DEFG","x-extra":1}"#),
        ] {
            var t = HistoryBuilder()
            t.send(["d1"], at: 0, end: 1)
            t.push("d1", at: 0.1, jwt: tolerated)
            XCTAssertVerdict(t.run(AuthConnectionChecks.jwtContents), .pass)
        }
        XCTAssertEqual(DecodedJWT(HistoryBuilder.jwt(claims: #"{"iss":"T","iat":1800000000.9}"#))?.issuedAt, 1_800_000_000)
        XCTAssertEqual(DecodedJWT(HistoryBuilder.jwt(claims: #"{"iss":"T","iat":"1800000000"}"#))?.issuedAt, 1_800_000_000)
        XCTAssertNil(DecodedJWT(HistoryBuilder.jwt(claims: #"{"iss":"T","iat":"-5"}"#))?.issuedAt)
    }

    func testJWTExactMembers() {
        XCTAssertEqual(AuthConnectionChecks.jwtExactMembers.severity, .should)
        var ok = HistoryBuilder()
        ok.send(["d1"], at: 0, end: 1)
        ok.push("d1", at: 0.1)
        ok.push("d2", at: 0.2, jwt: HistoryBuilder.jwt(header: #"{"alg":"ES256","kid":"ABC123DEFG","typ":"JWT"}"#))
        XCTAssertVerdict(ok.run(AuthConnectionChecks.jwtExactMembers), .pass)
        let extra: [(String, String)] = [
            (HistoryBuilder.jwt(claims: #"{"iss":"TEAM123456","iat":1800000000,"exp":1800003600}"#), "claims have [\"exp\"]"),
            (HistoryBuilder.jwt(header: #"{"alg":"ES256","kid":"ABC123DEFG","x5u":"https://x"}"#), "header has [\"x5u\"]"),
        ]
        for (token, expected) in extra {
            var b = HistoryBuilder()
            b.send(["d1"], at: 0, end: 1)
            b.push("d1", at: 0.1, jwt: token)
            let r = b.run(AuthConnectionChecks.jwtExactMembers)
            XCTAssertVerdict(r, .warn)
            XCTAssertTrue(r.evidence.first?.note.contains(expected) ?? false, "\(expected) in \(r.evidence)")
        }
        var none = HistoryBuilder()
        none.send(["d1"], at: 0, end: 1)
        none.push("d1", at: 0.1, jwt: "not-a-jwt")
        XCTAssertVerdict(none.run(AuthConnectionChecks.jwtExactMembers), .notApplicable)
    }

    func testJWTIatInteger() {
        XCTAssertEqual(AuthConnectionChecks.jwtIatInteger.severity, .should)
        func run(_ claims: String?, recorded: String? = nil) -> CheckResult {
            var b = HistoryBuilder()
            b.send(["d1"], at: 0, end: 1)
            b.push("d1", at: 0.1, jwt: claims.map { HistoryBuilder.jwt(claims: $0) } ?? HistoryBuilder.defaultJWT)
            if let recorded { b.history[0].auth?.extra[APNsVerifiedToken.iatFormKey] = recorded }
            return b.run(AuthConnectionChecks.jwtIatInteger)
        }
        XCTAssertVerdict(run(nil), .pass)
        XCTAssertVerdict(run(nil, recorded: "integer"), .pass)
        let fraction = run(#"{"iss":"TEAM123456","iat":1800000000.123}"#)
        XCTAssertVerdict(fraction, .warn)
        XCTAssertTrue(fraction.evidence.first?.note.contains("fraction") ?? false, "\(fraction.evidence)")
        let string = run(#"{"iss":"TEAM123456","iat":"1800000000"}"#)
        XCTAssertVerdict(string, .warn)
        XCTAssertTrue(string.evidence.first?.note.contains("string") ?? false, "\(string.evidence)")
        // The fake's own record (auth.extra["iatForm"]) is what counts when it made one.
        XCTAssertVerdict(run(nil, recorded: "string"), .warn)
        XCTAssertVerdict(run(#"{"iss":"TEAM123456","iat":"1800000000"}"#, recorded: "integer"), .pass)
        // No readable iat: apns.jwt-contents' business, not this check's.
        XCTAssertVerdict(run(#"{"iss":"TEAM123456"}"#), .notApplicable)
    }

    func testJWTContentsFailures() {
        let bad: [(String, String)] = [
            (HistoryBuilder.jwt(header: #"{"alg":"HS256","kid":"ABC123DEFG"}"#), "not ES256"),
            (HistoryBuilder.jwt(header: #"{"alg":"ES256"}"#), "no kid"),
            (HistoryBuilder.jwt(header: #"{"alg":"ES256","kid":"OTHERKEY00"}"#), "is not the key id"),
            (HistoryBuilder.jwt(claims: #"{"iss":"OTHERTEAM0","iat":1800000000}"#), "is not the team id"),
            (HistoryBuilder.jwt(claims: #"{"iss":"TEAM123456"}"#), "iat is missing"),
            (HistoryBuilder.jwt(claims: #"{"iss":"TEAM123456","iat":"soon"}"#), "not a number of seconds"),
            (HistoryBuilder.jwt(sigBytes: 72), "not 64"),
            ("not-a-jwt", "not a JWT"),
        ]
        for (token, expected) in bad {
            var b = HistoryBuilder()
            b.send(["d1"], at: 0, end: 1)
            b.push("d1", at: 0.1, jwt: token)
            let r = b.run(AuthConnectionChecks.jwtContents)
            XCTAssertVerdict(r, .fail)
            XCTAssertTrue(r.evidence.first?.note.contains(expected) ?? false, "\(expected) in \(r.evidence)")
        }
        var noAuth = HistoryBuilder()
        noAuth.send(["d1"], at: 0, end: 1)
        noAuth.push("d1", at: 0.1, jwt: nil)
        XCTAssertVerdict(noAuth.run(AuthConnectionChecks.jwtContents), .fail)
    }

    func testJWTReuse() {
        var b = HistoryBuilder()
        b.send(["d1", "d2", "d3"], at: 0, end: 1)
        for (i, d) in ["d1", "d2", "d3"].enumerated() { b.push(d, at: 0.1 * Double(i + 1)) }
        XCTAssertVerdict(b.run(AuthConnectionChecks.jwtReuse), .pass)

        var perRequest = HistoryBuilder()
        perRequest.send(["d1", "d2", "d3"], at: 0, end: 1)
        for (i, d) in ["d1", "d2", "d3"].enumerated() {
            perRequest.push(d, at: 0.1 * Double(i + 1), jwt: HistoryBuilder.jwt(salt: UInt8(i + 1)))
        }
        XCTAssertVerdict(perRequest.run(AuthConnectionChecks.jwtReuse), .fail)

        // One JWT per connection: Apple counts token updates per connection, so a connection's
        // first JWT is no update (pass), however many connections there are; the team-wide
        // rate (one token refreshed every 20–60 min) warns.
        var perConn = HistoryBuilder()
        perConn.send(["d1", "d2", "d3"], at: 0, end: 1)
        for (i, d) in ["d1", "d2", "d3"].enumerated() {
            perConn.push(d, at: 0.1 * Double(i + 1), conn: UInt64(i + 1), jwt: HistoryBuilder.jwt(salt: UInt8(i + 1)))
        }
        XCTAssertVerdict(perConn.run(AuthConnectionChecks.jwtReuse), .pass)
        XCTAssertVerdict(perConn.run(AuthConnectionChecks.jwtTeamRate), .warn)
        XCTAssertVerdict(b.run(AuthConnectionChecks.jwtTeamRate), .pass)
        // A pool whose connections each reuse their own JWT: the same verdicts whether it opened
        // two or four connections (the count the client happened to open does not flip it).
        for size in [2, 4] {
            var pool = HistoryBuilder()
            pool.send(["d1", "d2", "d3", "d4", "d5", "d6"], at: 0, end: 1)
            for (i, d) in ["d1", "d2", "d3", "d4", "d5", "d6"].enumerated() {
                let c = i % size + 1
                pool.push(d, at: 0.1 * Double(i + 1), conn: UInt64(c), jwt: HistoryBuilder.jwt(salt: UInt8(c)))
            }
            XCTAssertVerdict(pool.run(AuthConnectionChecks.jwtReuse), .pass, "pool of \(size)")
            XCTAssertVerdict(pool.run(AuthConnectionChecks.jwtTeamRate), .warn, "pool of \(size)")
        }

        // A refresh after 20+ minutes is fine.
        var refresh = HistoryBuilder()
        refresh.send(["d1", "d2"], at: 0, end: 2000)
        refresh.push("d1", at: 0.1)
        refresh.push("d2", at: 1300, jwt: HistoryBuilder.jwt(iat: 1_800_001_300, salt: 9))
        XCTAssertVerdict(refresh.run(AuthConnectionChecks.jwtReuse), .pass)

        // A sender that starts with a shared token ~50 min old and refreshes it at 50 min on
        // a new connection: two JWTs for three pushes, the change justified by the iat.
        var shared = HistoryBuilder()
        shared.send(["d1", "d2", "d3"], at: 0, end: 2)
        shared.push("d1", at: 0.1, conn: 1, jwt: HistoryBuilder.jwt(iat: 1_800_000_000 - 2999))
        shared.push("d2", at: 1.1, conn: 2, jwt: HistoryBuilder.jwt(iat: 1_800_000_001, salt: 4))
        shared.push("d3", at: 1.2, conn: 2, jwt: HistoryBuilder.jwt(iat: 1_800_000_001, salt: 4))
        XCTAssertVerdict(shared.run(AuthConnectionChecks.jwtReuse), .pass)
        XCTAssertVerdict(shared.run(AuthConnectionChecks.jwtTeamRate), .pass)
        // The same sender when a request that took the old token just before the refresh reaches
        // the wire after the first one carrying the new token (on another connection): still
        // one refresh 50 min apart by iat, whatever the wire order.
        var late = HistoryBuilder()
        late.send(["d1", "d2", "d3"], at: 0, end: 2)
        late.push("d1", at: 0.1, conn: 2, jwt: HistoryBuilder.jwt(iat: 1_800_000_001, salt: 4))
        late.push("d2", at: 0.2, conn: 1, jwt: HistoryBuilder.jwt(iat: 1_800_000_000 - 2999))
        late.push("d3", at: 0.3, conn: 2, jwt: HistoryBuilder.jwt(iat: 1_800_000_001, salt: 4))
        XCTAssertVerdict(late.run(AuthConnectionChecks.jwtReuse), .pass)
        XCTAssertVerdict(late.run(AuthConnectionChecks.jwtTeamRate), .pass)
        // Reordering by iat does not hide a second token minted within 20 min, in either wire order.
        for reversed in [false, true] {
            var twice = HistoryBuilder()
            twice.send(["d1", "d2"], at: 0, end: 2)
            let older = HistoryBuilder.jwt(iat: 1_800_000_000, salt: 4), newer = HistoryBuilder.jwt(iat: 1_800_000_600, salt: 5)
            twice.push("d1", at: 0.1, conn: 1, jwt: reversed ? newer : older)
            twice.push("d2", at: 0.2, conn: 2, jwt: reversed ? older : newer)
            XCTAssertVerdict(twice.run(AuthConnectionChecks.jwtTeamRate), .warn, reversed ? "newer first" : "older first")
        }

        // After ExpiredProviderToken, a request that took the old JWT before the refresh
        // arrives after the new one (it waited for a stream): not a new mint.
        var stale = HistoryBuilder()
        stale.send(["d1", "d2"], at: 0, end: 1)
        stale.push("d1", at: 0.10, status: 403, reason: "ExpiredProviderToken")
        stale.push("d1", at: 0.11, jwt: HistoryBuilder.jwt(salt: 6))
        stale.push("d2", at: 0.12)
        XCTAssertVerdict(stale.run(AuthConnectionChecks.jwtReuse), .pass)
        XCTAssertVerdict(stale.run(AuthConnectionChecks.jwtTeamRate), .pass)
        // Switching back and forth is still caught at the first switch.
        var flip = HistoryBuilder()
        flip.send(["d1", "d2", "d3"], at: 0, end: 1)
        flip.push("d1", at: 0.10)
        flip.push("d2", at: 0.11, jwt: HistoryBuilder.jwt(salt: 6))
        flip.push("d3", at: 0.12)
        XCTAssertVerdict(flip.run(AuthConnectionChecks.jwtReuse), .fail)
    }

    func testJWTRefreshAfterExpired() {
        let stale = HistoryBuilder.jwt(iat: 1_799_990_000)
        let fresh = HistoryBuilder.jwt(iat: 1_800_000_000, salt: 7)
        var b = HistoryBuilder()
        b.send(["d1"], at: 0, end: 1)
        b.push("d1", at: 0.1, status: 403, reason: "ExpiredProviderToken", jwt: stale)
        b.push("d1", at: 0.2, jwt: fresh)
        XCTAssertVerdict(b.run(AuthConnectionChecks.jwtRefreshAfterExpired), .pass)
        XCTAssertVerdict(b.run(AuthConnectionChecks.jwtReuse), .pass)

        var same = HistoryBuilder()
        same.send(["d1"], at: 0, end: 1)
        same.push("d1", at: 0.1, status: 403, reason: "ExpiredProviderToken", jwt: stale)
        same.push("d1", at: 0.2, status: 403, reason: "ExpiredProviderToken", jwt: stale)
        XCTAssertVerdict(same.run(AuthConnectionChecks.jwtRefreshAfterExpired), .fail)

        var none = HistoryBuilder()
        none.send(["d1"], at: 0, end: 1)
        none.push("d1", at: 0.1, status: 403, reason: "ExpiredProviderToken", jwt: stale)
        XCTAssertVerdict(none.run(AuthConnectionChecks.jwtRefreshAfterExpired), .fail)
        XCTAssertVerdict(HistoryBuilder().run(AuthConnectionChecks.jwtRefreshAfterExpired), .notApplicable)

        // Only one retry: fresh JWT refused as expired too → stop.
        var loop = HistoryBuilder()
        loop.send(["d1"], at: 0, end: 1)
        loop.push("d1", at: 0.1, status: 403, reason: "ExpiredProviderToken", jwt: stale)
        loop.push("d1", at: 0.2, status: 403, reason: "ExpiredProviderToken", jwt: fresh)
        XCTAssertVerdict(loop.run(AuthConnectionChecks.jwtRefreshAfterExpired), .pass)
        loop.push("d1", at: 0.3, status: 403, reason: "ExpiredProviderToken", jwt: HistoryBuilder.jwt(iat: 1_800_000_000, salt: 8))
        XCTAssertVerdict(loop.run(AuthConnectionChecks.jwtRefreshAfterExpired), .fail)
    }

    func testJWTMaxAge() {
        var b = HistoryBuilder()
        b.send(["d1"], at: 0, end: 1)
        b.push("d1", at: 0.1, jwt: HistoryBuilder.jwt(iat: 1_800_000_000 - 3000))
        XCTAssertVerdict(b.run(AuthConnectionChecks.jwtMaxAge), .pass)
        var old = HistoryBuilder()
        old.send(["d1"], at: 0, end: 1)
        old.push("d1", at: 0.1, jwt: HistoryBuilder.jwt(iat: 1_800_000_000 - 3700))
        XCTAssertVerdict(old.run(AuthConnectionChecks.jwtMaxAge), .fail)
    }

    func testConnectionReuse() {
        var b = HistoryBuilder()
        b.send(["d1", "d2", "d3", "d4"], at: 0, end: 1)
        for (i, d) in ["d1", "d2", "d3", "d4"].enumerated() { b.push(d, at: 0.1 * Double(i + 1), conn: 1) }
        XCTAssertVerdict(b.run(ConnectionChecks.connectionReuse), .pass)
        var each = HistoryBuilder()
        each.send(["d1", "d2", "d3", "d4"], at: 0, end: 1)
        for (i, d) in ["d1", "d2", "d3", "d4"].enumerated() { each.push(d, at: 0.1 * Double(i + 1), conn: UInt64(i + 1)) }
        XCTAssertVerdict(each.run(ConnectionChecks.connectionReuse), .fail)
        // Reconnecting after a drop is allowed.
        var dropped = HistoryBuilder()
        dropped.send(["d1", "d2", "d3"], at: 0, end: 1)
        dropped.push("d1", at: 0.1, conn: 1, status: nil, action: "drop")
        dropped.push("d1", at: 0.2, conn: 2, status: nil, action: "drop")
        dropped.push("d1", at: 0.3, conn: 3)
        dropped.push("d2", at: 0.4, conn: 3)
        XCTAssertVerdict(dropped.run(ConnectionChecks.connectionReuse), .pass)
        // A pool of three connections used round-robin, each reused: reuse, not a failure.
        var pool = HistoryBuilder()
        pool.send(["d1", "d2", "d3", "d4", "d5"], at: 0, end: 1)
        for (i, d) in ["d1", "d2", "d3", "d4", "d5"].enumerated() { pool.push(d, at: 0.1 * Double(i + 1), conn: UInt64(i % 3 + 1)) }
        XCTAssertVerdict(pool.run(ConnectionChecks.connectionReuse), .pass)
        // An HTTP/1.1 pool of six under thread-per-message sends: some connections carry one
        // request, others several; that is reuse.
        var six = HistoryBuilder()
        six.send(["d1", "d2", "d3", "d4", "d5", "d6"], at: 0, end: 1)
        for (i, d) in ["d1", "d2", "d3", "d4", "d5", "d6"].enumerated() { six.push(d, at: 0.1, conn: UInt64(i + 1), duration: 0.05) }
        six.send(["d1", "d2", "d3", "d4", "d5", "d6"], at: 2, end: 3)
        for (i, d) in ["d1", "d2", "d3", "d4", "d5", "d6"].enumerated() { six.push(d, at: 2.1 + 0.01 * Double(i), conn: UInt64(i % 3 + 1)) }
        XCTAssertVerdict(six.run(ConnectionChecks.connectionReuse), .pass)
        // One concurrent burst over as many connections as requests, never used again: nothing
        // shows a connection opened while another stood idle, so it is not judged a failure.
        var burst = HistoryBuilder()
        burst.send(["d1", "d2", "d3", "d4"], at: 0, end: 1)
        for (i, d) in ["d1", "d2", "d3", "d4"].enumerated() { burst.push(d, at: 0.1, conn: UInt64(i + 1), duration: 0.05) }
        XCTAssertVerdict(burst.run(ConnectionChecks.connectionReuse), .pass)
    }

    func testMaxConcurrentStreams() {
        var b = HistoryBuilder()
        b.send(["d1", "d2", "d3"], at: 0, end: 1)
        b.push("d1", at: 0.10, duration: 0.2)
        b.push("d2", at: 0.15, duration: 0.2)
        b.push("d3", at: 0.35, duration: 0.2) // d1 done at 0.30
        XCTAssertVerdict(b.run(AuthConnectionChecks.maxConcurrentStreams, params(#"{"limit":2}"#)), .pass)
        XCTAssertVerdict(b.run(AuthConnectionChecks.maxConcurrentStreams, params(#"{"limit":1}"#)), .fail)
        XCTAssertVerdict(b.run(AuthConnectionChecks.maxConcurrentStreams), .notApplicable)
        // Delayed answers keep the stream open.
        var delayed = HistoryBuilder()
        delayed.send(["d1", "d2"], at: 0, end: 1)
        delayed.push("d1", at: 0.10, action: "delayed", delay: 0.5)
        delayed.push("d2", at: 0.20)
        XCTAssertVerdict(delayed.run(AuthConnectionChecks.maxConcurrentStreams, params(#"{"limit":1}"#)), .fail)
        // Initial limit until the fake admitted the first valid JWT (its body arrived at 0.20).
        var initial = HistoryBuilder()
        initial.send(["d1", "d2", "d3"], at: 0, end: 1)
        initial.push("d1", at: 0.10, duration: 0.1, bodyDelay: 0.1)
        initial.push("d2", at: 0.15, duration: 0.1)
        XCTAssertVerdict(initial.run(AuthConnectionChecks.maxConcurrentStreams, params(#"{"limit":10,"initialLimit":1}"#)), .fail)
        XCTAssertVerdict(initial.run(AuthConnectionChecks.maxConcurrentStreams, params(#"{"limit":10}"#)), .pass)
        // A second stream opened after the first was admitted (limit raised) but before its delayed answer is fine.
        var raised = HistoryBuilder()
        raised.send(["d1", "d2"], at: 0, end: 1)
        raised.push("d1", at: 0.10, action: "delayed", delay: 0.3)
        raised.push("d2", at: 0.15)
        XCTAssertVerdict(raised.run(AuthConnectionChecks.maxConcurrentStreams, params(#"{"limit":3,"initialLimit":1}"#)), .pass)
    }

    // MARK: A8, A11, A10 PRIORITY

    func testTokenUpdatesKeepJWT() {
        // Correct: same JWT, retried 0.2 s later.
        var ok = HistoryBuilder()
        ok.send(["d1", "d2"], at: 0, end: 2)
        ok.push("d1", at: 0.1, status: 429, reason: "TooManyProviderTokenUpdates")
        ok.push("d2", at: 0.12)
        ok.push("d1", at: 0.32)
        XCTAssertVerdict(ok.run(AuthConnectionChecks.keepTokenAfterTooManyUpdates), .pass)

        // Full jitter may retry a few milliseconds later: the gap is not judged (one delay proves nothing about a scheme).
        var jittered = HistoryBuilder()
        jittered.send(["d1"], at: 0, end: 2)
        jittered.push("d1", at: 0.1, status: 429, reason: "TooManyProviderTokenUpdates")
        jittered.push("d1", at: 0.108)
        XCTAssertVerdict(jittered.run(AuthConnectionChecks.keepTokenAfterTooManyUpdates), .pass)

        // Re-minted (another JWT, same iat) and retried at once.
        var remint = HistoryBuilder()
        remint.send(["d1"], at: 0, end: 2)
        remint.push("d1", at: 0.1, status: 429, reason: "TooManyProviderTokenUpdates")
        remint.push("d1", at: 0.106, status: 429, reason: "TooManyProviderTokenUpdates", jwt: HistoryBuilder.jwt(salt: 2))
        let r = remint.run(AuthConnectionChecks.keepTokenAfterTooManyUpdates)
        XCTAssertVerdict(r, .fail)
        XCTAssertTrue(r.evidence.contains { $0.note.contains("minted a new JWT") }, "\(r.evidence)")

        // A new JWT 20+ min newer by iat (a scheduled refresh) is not a re-mint.
        var scheduled = HistoryBuilder()
        scheduled.send(["d1", "d2"], at: 0, end: 2)
        scheduled.push("d1", at: 0.1, status: 429, reason: "TooManyProviderTokenUpdates", jwt: HistoryBuilder.jwt(iat: 1_800_000_000 - 2999))
        scheduled.push("d2", at: 0.5, conn: 2, jwt: HistoryBuilder.jwt(iat: 1_800_000_001, salt: 5))
        XCTAssertVerdict(scheduled.run(AuthConnectionChecks.keepTokenAfterTooManyUpdates), .pass)

        // A new JWT the fake asked for (ExpiredProviderToken in between) is fine.
        var expired = HistoryBuilder()
        expired.send(["d1"], at: 0, end: 2)
        expired.push("d1", at: 0.1, status: 429, reason: "TooManyProviderTokenUpdates")
        expired.push("d1", at: 0.4, status: 403, reason: "ExpiredProviderToken")
        expired.push("d1", at: 0.5, jwt: HistoryBuilder.jwt(iat: 1_800_000_001, salt: 3))
        XCTAssertVerdict(expired.run(AuthConnectionChecks.keepTokenAfterTooManyUpdates), .pass)

        var none = HistoryBuilder()
        none.send(["d1"], at: 0, end: 1)
        none.push("d1", at: 0.1)
        XCTAssertVerdict(none.run(AuthConnectionChecks.keepTokenAfterTooManyUpdates), .notApplicable)
    }

    func testUnrelatedKeyNewConnection() {
        // A sender holding one key cannot meet UnrelatedKeyIdInToken in production: INFO.
        XCTAssertEqual(AuthConnectionChecks.unrelatedKeyNewConnection.severity, .may)
        var ok = HistoryBuilder()
        ok.send(["d1"], at: 0, end: 1)
        ok.push("d1", at: 0.1, conn: 1, status: 403, reason: "UnrelatedKeyIdInToken")
        ok.push("d1", at: 0.2, conn: 2)
        ok.send(["d1"], at: 2, end: 3)
        ok.push("d1", at: 2.1, conn: 2)
        XCTAssertVerdict(ok.run(AuthConnectionChecks.unrelatedKeyNewConnection), .pass)

        var same = HistoryBuilder()
        same.send(["d1"], at: 0, end: 1)
        same.push("d1", at: 0.1, conn: 1, status: 403, reason: "UnrelatedKeyIdInToken")
        same.push("d1", at: 0.2, conn: 1)
        let r = same.run(AuthConnectionChecks.unrelatedKeyNewConnection)
        XCTAssertVerdict(r, .info)
        XCTAssertTrue(r.evidence.contains { $0.note.contains("same connection") }, "\(r.evidence)")

        var loop = HistoryBuilder()
        loop.send(["d1"], at: 0, end: 1)
        for i in 0..<4 { loop.push("d1", at: 0.1 + 0.1 * Double(i), conn: UInt64(i + 1), status: 403, reason: "UnrelatedKeyIdInToken") }
        let l = loop.run(AuthConnectionChecks.unrelatedKeyNewConnection)
        XCTAssertVerdict(l, .info)
        XCTAssertTrue(l.evidence.contains { $0.note.contains("still retrying") }, "\(l.evidence)")

        // Another device's later push on the refusing connection: the connection was not retired.
        var reused = HistoryBuilder()
        reused.send(["d1", "d2"], at: 0, end: 1)
        reused.push("d1", at: 0.1, conn: 1, status: 403, reason: "UnrelatedKeyIdInToken")
        reused.push("d1", at: 0.2, conn: 2)
        reused.push("d2", at: 0.5, conn: 1)
        XCTAssertVerdict(reused.run(AuthConnectionChecks.unrelatedKeyNewConnection), .info)
    }

    func testNoPriorityFrames() {
        var ok = HistoryBuilder()
        ok.send(["d1", "d2"], at: 0, end: 1)
        ok.push("d1", at: 0.1)
        ok.push("d2", at: 0.2, conn: 2)
        XCTAssertVerdict(ok.run(AuthConnectionChecks.noPriorityFrames), .pass)

        var bad = ok
        bad.push("d1", at: 0.3, conn: 2)
        bad.history[bad.history.count - 1].transport.priorityFramesReceived = 3
        let r = bad.run(AuthConnectionChecks.noPriorityFrames)
        XCTAssertVerdict(r, .warn)
        XCTAssertEqual(r.evidence.count, 1)
        XCTAssertTrue(r.evidence[0].note.contains("connection 2: 3 PRIORITY"), "\(r.evidence)")
        XCTAssertEqual(AuthConnectionChecks.noPriorityFrames.severity, .should)

        XCTAssertVerdict(HistoryBuilder().run(AuthConnectionChecks.noPriorityFrames), .notApplicable)
    }
}
