import XCTest
import PushDoubleTestSupport
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport
@testable import PushDoubleAPNs

final class APNsFakeTests: XCTestCase {
    func testSuccessOnProduction() {
        let h = APNsHarness()
        let conn = FakeConnection()
        let r = h.send(headers: [("apns-topic", Fixture.topic), ("apns-id", "0A9B8C7D-6E5F-4A3B-9C2D-1E0F9A8B7C6D")], connection: conn)
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.framing, .headersOnly)
        XCTAssertEqual(r.body, [])
        XCTAssertEqual(r.headers.fields, [HTTPHeaders.Field(name: "apns-id", value: "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d")])
        // Without apns-id one is generated.
        let r2 = h.send(connection: conn)
        XCTAssertEqual(r2.status, 200)
        XCTAssertNotNil(APNsMessageID.canonical(r2.headers["apns-id"] ?? ""))
        // MAX_CONCURRENT_STREAMS raised once, after the first valid token.
        XCTAssertEqual(conn.settingsUpdates, [1000])
    }

    func testStreamsNotRaisedBeforeAValidToken() {
        let h = APNsHarness()
        let conn = FakeConnection()
        XCTAssertEqual(reason(h.send(omitAuthorization: true, connection: conn)), "MissingProviderToken")
        XCTAssertEqual(reason(h.send(headers: [], connection: conn)), "MissingTopic")
        XCTAssertEqual(conn.settingsUpdates, [])
        h.send(body: "", connection: conn)  // PayloadEmpty, but the token was valid
        XCTAssertEqual(conn.settingsUpdates, [1000])
    }

    func testSandboxAddsUniqueID() {
        let h = APNsHarness()
        let r = h.send(connection: FakeConnection(listener: "apns-sandbox"))
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.headers.fields.map(\.name), ["apns-id", "apns-unique-id"])
        XCTAssertNotNil(APNsMessageID.canonical(r.headers["apns-unique-id"] ?? ""))
    }

    func testEnvironmentByAuthorityAndSNI() {
        let h = APNsHarness()
        let req = { (authority: String?, listener: String, sni: String?) -> APNsEnvironment in
            h.fake.environment(of: Fixture.request(authority: authority, connection: FakeConnection(listener: listener, sni: sni)))
        }
        XCTAssertEqual(req("localhost:2197", "apns-production", nil), .production)
        XCTAssertEqual(req("localhost:2198", "apns-sandbox", nil), .sandbox)
        XCTAssertEqual(req("api.sandbox.push.apple.com", "apns-production", nil), .sandbox)
        XCTAssertEqual(req("api.development.push.apple.com:443", "apns-production", nil), .sandbox)
        XCTAssertEqual(req("API.PUSH.APPLE.COM:2197", "apns-sandbox", nil), .production)
        XCTAssertEqual(req("localhost", "apns-production", "api.sandbox.push.apple.com"), .sandbox)
        XCTAssertEqual(req("api.push.apple.com", "apns-sandbox", "api.sandbox.push.apple.com"), .production)
        XCTAssertEqual(req(nil, "other", nil), .production)
        // The sandbox answer carries apns-unique-id even on the production listener.
        let r = h.send(authority: "api.sandbox.push.apple.com", connection: FakeConnection())
        XCTAssertNotNil(r.headers["apns-unique-id"])
    }

    func testHeaderFailuresThroughThePipeline() {
        let h = APNsHarness()
        let conn = FakeConnection()
        XCTAssertEqual(h.send(method: "GET", connection: conn).status, 405)
        let badPath = h.send(path: "/3/dev/x", connection: conn)
        XCTAssertEqual(badPath.status, 404)
        XCTAssertEqual(String(decoding: badPath.body, as: UTF8.self), #"{"reason":"BadPath"}"#)
        XCTAssertEqual(badPath.framing, .singleDataFrame)
        XCTAssertEqual(badPath.headers["content-type"], "application/json")
        XCTAssertNotNil(APNsMessageID.canonical(badPath.headers["apns-id"] ?? ""))
        // The request's apns-id is echoed on errors too.
        let e = h.send(headers: [("apns-topic", Fixture.topic), ("apns-id", "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d"), ("apns-priority", "7")], connection: conn)
        XCTAssertEqual(reason(e), "BadPriority")
        XCTAssertEqual(e.headers["apns-id"], "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d")
    }

    func testMissingProviderToken() {
        let h = APNsHarness()
        for auth in ["bearer", "bearer   ", "Basic abc", "bear", ""] {
            let r = h.send(authorization: auth, connection: FakeConnection())
            XCTAssertEqual(r.status, 403, auth)
            XCTAssertEqual(reason(r), "MissingProviderToken", auth)
        }
        XCTAssertEqual(reason(h.send(omitAuthorization: true, connection: FakeConnection())), "MissingProviderToken")
    }

    func testBearerSchemeIsCaseInsensitive() {
        let h = APNsHarness()
        for scheme in ["bearer", "Bearer", "BEARER"] {
            XCTAssertEqual(h.send(authorization: "\(scheme) \(h.jwt())", connection: FakeConnection()).status, 200, scheme)
        }
    }

    func testInvalidProviderToken() throws {
        let h = APNsHarness()
        let other = TestKey(keyID: "OTHERKEY01", teamID: "TEAM123456")
        let b64 = { (s: String) in Base64URL.encode(Array(s.utf8)) }
        let claims = b64(#"{"iss":"TEAM123456","iat":\#(h.now)}"#)
        let realSig = h.jwt().split(separator: ".")[2]
        let cases: [(String, String)] = [
            ("garbage", "not-a-jwt"),
            ("alg none", b64(#"{"alg":"none","kid":"KEY1234567"}"#) + "." + claims + "."),
            ("alg HS256", b64(#"{"alg":"HS256","kid":"KEY1234567"}"#) + "." + claims + "." + realSig),
            ("alg RS256", b64(#"{"alg":"RS256","kid":"KEY1234567"}"#) + "." + claims + "." + realSig),
            ("unknown kid", other.jwt(iat: h.now)),
            ("signed by another key", other.jwt(iat: h.now, kid: "KEY1234567")),
            ("wrong team", h.key.jwt(iat: h.now, iss: "TEAM999999")),
            ("iat a boolean", try JWT.signES256(keyID: "KEY1234567", claims: JOSEObject([("iss", .string("TEAM123456")), ("iat", .bool(true))]), key: h.key.privateKey)),
            ("iat a non-numeric string", try JWT.signES256(keyID: "KEY1234567", claims: JOSEObject([("iss", .string("TEAM123456")), ("iat", .string("yesterday"))]), key: h.key.privateKey)),
            ("iat negative", try JWT.signES256(keyID: "KEY1234567", claims: JOSEObject([("iss", .string("TEAM123456")), ("iat", .double(-1.5))]), key: h.key.privateKey)),
            ("no iat", try JWT.signES256(keyID: "KEY1234567", claims: JOSEObject([("iss", .string("TEAM123456"))]), key: h.key.privateKey)),
            ("no kid", try JWT.signES256(keyID: nil, claims: JOSEObject([("iss", .string("TEAM123456")), ("iat", .int(h.now))]), key: h.key.privateKey)),
            ("iat in milliseconds", h.key.jwt(iat: h.now * 1000)),
        ]
        for (name, token) in cases {
            let r = h.send(authorization: "bearer \(token)", connection: FakeConnection())
            XCTAssertEqual(r.status, 403, name)
            XCTAssertEqual(reason(r), "InvalidProviderToken", name)
        }
        // The history keeps what could be decoded, marked invalid.
        let last = h.double.history.all.last
        XCTAssertEqual(last?.auth?.valid, false)
        XCTAssertEqual(last?.auth?.keyID, "KEY1234567")
        XCTAssertEqual(last?.decidedBy.stage, .auth)
    }

    func testExtraClaimsAcceptedByDefaultRefusedWhenStrict() {
        let lenient = APNsHarness()
        XCTAssertEqual(lenient.send(authorization: "bearer " + lenient.key.jwt(iat: lenient.now, claims: [("exp", .int(lenient.now + 60))]), connection: FakeConnection()).status, 200)
        let strict = APNsHarness(configure: { $0.requireExactClaims = true })
        let r = strict.send(authorization: "bearer " + strict.key.jwt(iat: strict.now, claims: [("exp", .int(strict.now + 60))]), connection: FakeConnection())
        XCTAssertEqual(reason(r), "InvalidProviderToken")
    }

    /// Python clients send `iat` as `time.time()` or as a digit string; Apple accepts both
    /// (docs/apns.md "Leniency" and "Sources"). The form is recorded for the conformance runner.
    func testIatAsFractionOrDigitStringIsAccepted() throws {
        let h = APNsHarness()
        let forms: [(JOSEValue, String)] = [
            (.int(h.now), "integer"),
            (.double(Double(h.now) + 0.123456), "fraction"),
            (.string(String(h.now)), "string"),
            (.string("\(h.now).25"), "string"),
            (.double(Double(h.now) * 1.0 + 1e-9), "fraction"),
        ]
        for (iat, form) in forms {
            let token = try JWT.signES256(keyID: "KEY1234567", claims: JOSEObject([("iss", .string("TEAM123456")), ("iat", iat)]), key: h.key.privateKey)
            XCTAssertEqual(h.send(authorization: "bearer " + token, connection: FakeConnection()).status, 200, "\(iat)")
            let auth = try XCTUnwrap(h.double.history.all.last?.auth)
            XCTAssertEqual(auth.valid, true)
            XCTAssertEqual(auth.issuedAt, h.now, "\(iat)")
            XCTAssertEqual(auth.extra["iatForm"], form, "\(iat)")
        }
    }

    /// The age rules apply to the value, whatever its form.
    func testAgeRulesApplyToFractionalAndStringIat() throws {
        let h = APNsHarness()
        let old = Double(h.now - 3601) + 0.5
        for iat in [JOSEValue.double(old), .string(String(format: "%.1f", old)), .string(String(h.now - 3601))] {
            let token = try JWT.signES256(keyID: "KEY1234567", claims: JOSEObject([("iss", .string("TEAM123456")), ("iat", iat)]), key: h.key.privateKey)
            XCTAssertEqual(reason(h.send(authorization: "bearer " + token, connection: FakeConnection())), "ExpiredProviderToken", "\(iat)")
        }
        // 3599.5 s old: still fresh.
        let fresh = try JWT.signES256(keyID: "KEY1234567", claims: JOSEObject([("iss", .string("TEAM123456")), ("iat", .double(Double(h.now - 3600) + 0.5))]), key: h.key.privateKey)
        XCTAssertEqual(h.send(authorization: "bearer " + fresh, connection: FakeConnection()).status, 200)
    }

    /// Header extras (`typ`), `Bearer`/`bearer`, surrounding whitespace and upper-case token hex.
    func testLenientHeaderAndTokenForms() throws {
        let h = APNsHarness()
        let typ = try JWT.sign(header: ["alg": "ES256", "kid": "KEY1234567", "typ": "JWT"],
                               claims: ["iss": .string("TEAM123456"), "iat": .int(h.now)], key: .es256(h.key.privateKey))
        XCTAssertEqual(h.send(authorization: "Bearer " + typ, connection: FakeConnection()).status, 200)
        XCTAssertEqual(h.send(authorization: "bearer   \(h.jwt())  ", connection: FakeConnection()).status, 200)
        XCTAssertEqual(h.send(token: Fixture.token.uppercased(), connection: FakeConnection()).status, 200)
    }

    func testExpiredProviderToken() {
        let h = APNsHarness()
        let conn = FakeConnection()
        XCTAssertEqual(h.send(connection: conn).status, 200)
        h.clock.advance(3601)
        let r = h.send(connection: conn)
        XCTAssertEqual(r.status, 403)
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), #"{"reason":"ExpiredProviderToken"}"#)
        XCTAssertEqual(reason(h.send(authorization: "bearer " + h.mint(-3601), connection: FakeConnection())), "ExpiredProviderToken")
    }

    func testOwnExpiredProviderTokenLetsTheRefreshThroughOnTheSameConnection() {
        let h = APNsHarness()
        let conn = FakeConnection()
        let stale = h.mint(-3000)  // accepted, but it expires 600 s later
        XCTAssertEqual(h.send(authorization: "bearer " + stale, connection: conn).status, 200)
        h.clock.advance(601)
        XCTAssertEqual(reason(h.send(authorization: "bearer " + stale, connection: conn)), "ExpiredProviderToken")
        // A new JWT only 601 s after the stale one was accepted: accepted, not TooManyProviderTokenUpdates.
        let fresh = h.mint()
        XCTAssertEqual(h.send(authorization: "bearer " + fresh, connection: conn).status, 200)
        XCTAssertEqual(h.send(authorization: "bearer " + fresh, connection: conn).status, 200)
        let state = try! XCTUnwrap(conn.storage as? APNsConnectionState)
        XCTAssertEqual(state.tokenUpdates, 0)
        XCTAssertEqual(state.currentToken, fresh)
        // Without an ExpiredProviderToken in between, a further new token is still an update.
        h.clock.advance(5)
        XCTAssertEqual(reason(h.send(authorization: "bearer " + h.mint(), connection: conn)), "TooManyProviderTokenUpdates")
    }

    func testFaultExpiredProviderTokenDropsTheConnectionsToken() throws {
        let h = APNsHarness()
        try h.double.faults.add(FaultRule(id: "expired", match: FaultMatch(provider: .apns, nth: 1),
                                          action: .respond(ResponseSpec(reason: "ExpiredProviderToken"))))
        let conn = FakeConnection()
        let first = h.mint()
        let r = h.send(authorization: "bearer " + first, connection: conn)
        XCTAssertEqual(r.status, 403)
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), #"{"reason":"ExpiredProviderToken"}"#)
        XCTAssertEqual(h.double.history.all.last?.decidedBy.stage, .fault)
        // The JWT the rule called expired stays expired on this connection (a request sent
        // before the sender refreshed), decided by the fake's auth stage.
        XCTAssertEqual(reason(h.send(authorization: "bearer " + first, connection: conn)), "ExpiredProviderToken")
        XCTAssertEqual(h.double.history.all.last?.decidedBy.stage, .auth)
        // The sender's new JWT, seconds later on the same connection: accepted, no update counted.
        h.clock.advance(1)
        let fresh = h.mint()
        XCTAssertEqual(h.send(authorization: "bearer " + fresh, connection: conn).status, 200)
        let state = try XCTUnwrap(conn.storage as? APNsConnectionState)
        XCTAssertEqual(state.tokenUpdates, 0)
        // On another connection the first JWT was never refused.
        XCTAssertEqual(h.send(authorization: "bearer " + first, connection: FakeConnection(id: 2)).status, 200)
        // Other fault reasons do not touch the token.
        try h.double.faults.add(FaultRule(id: "busy", match: FaultMatch(provider: .apns), action: .respond(ResponseSpec(reason: "ServiceUnavailable")), times: 1))
        XCTAssertEqual(h.send(authorization: "bearer " + fresh, connection: conn).status, 503)
        XCTAssertEqual(state.currentToken, fresh)
    }

    /// A body over the transport's 1 MiB limit is refused before the fake sees it (the
    /// transport calls the pipeline's `limitExceeded` with the head only), still with APNs'
    /// own answer and a history entry. (curl reports the RST_STREAM NO_ERROR that follows the
    /// answer to an unfinished upload as error 92, so this is checked at the pipeline.)
    func testBodyOverTheTransportLimitGetsTheAPNsAnswer() throws {
        let h = APNsHarness()
        let conn = FakeConnection()
        let head = Fixture.request(headers: [("authorization", "bearer " + h.jwt()), ("apns-topic", Fixture.topic),
                                             ("apns-id", "0A9B8C7D-6E5F-4A3B-9C2D-1E0F9A8B7C6D")], body: "", connection: conn)
        let violation = LimitViolation(kind: .bodyTooLarge, message: "request body (content-length 2000000) larger than 1048576 bytes")
        let r = try XCTUnwrap(h.production.limitExceeded(violation, head: head, context: RequestContext(connection: conn)))
        XCTAssertEqual(r.status, 413)
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), #"{"reason":"PayloadTooLarge"}"#)
        XCTAssertEqual(r.framing, .singleDataFrame)
        XCTAssertEqual(r.headers.fields.map(\.name), ["apns-id", "content-type"])
        XCTAssertEqual(r.headers["apns-id"], "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d")
        let e = try XCTUnwrap(h.double.history.all.last)
        XCTAssertEqual(e.endpoint, APNsFake.endpoint)
        XCTAssertEqual(e.response.reason, "PayloadTooLarge")
        XCTAssertEqual(e.token, Fixture.token)
        XCTAssertEqual(e.environment, "production")
        XCTAssertEqual(e.decidedBy.stage, .validation)
        // A header list over MAX_HEADER_LIST_SIZE keeps the transport's answer (Apple names no reason), recorded too.
        let big = try XCTUnwrap(h.production.limitExceeded(LimitViolation(kind: .headerListTooLarge, message: "header list too large"),
                                                           head: head, context: RequestContext(connection: conn)))
        XCTAssertEqual(big.status, 431)
        XCTAssertEqual(h.double.history.all.last?.endpoint, "transport.limit")
        XCTAssertEqual(h.double.history.all.count, 2)
    }

    func testTokenRefreshRulesOnOneConnection() {
        let h = APNsHarness()
        let conn = FakeConnection()
        XCTAssertEqual(h.send(connection: conn).status, 200)
        h.clock.advance(60)
        // A new token 60 s later: 429, and the connection is blocked until 1200 s after the first.
        let early = h.send(authorization: "bearer " + h.mint(), connection: conn)
        XCTAssertEqual(early.status, 429)
        XCTAssertEqual(String(decoding: early.body, as: UTF8.self), #"{"reason":"TooManyProviderTokenUpdates"}"#)
        XCTAssertEqual(reason(h.send(connection: conn)), "TooManyProviderTokenUpdates")  // old token too
        XCTAssertEqual(reason(h.send(method: "GET", connection: conn)), "TooManyProviderTokenUpdates")  // everything
        // Other connections are unaffected.
        XCTAssertEqual(h.send(connection: FakeConnection(id: 2)).status, 200)
        h.clock.advance(1139)
        XCTAssertEqual(reason(h.send(connection: conn)), "TooManyProviderTokenUpdates")
        h.clock.advance(1)
        XCTAssertEqual(h.send(connection: conn).status, 200)
        // A refresh 20 min after the token was accepted is fine.
        XCTAssertEqual(h.send(authorization: "bearer " + h.mint(), connection: conn).status, 200)
    }

    func testUnrelatedKeyAndOtherTeam() {
        let second = TestKey(keyID: "KEY7654321", teamID: "TEAM123456")
        let otherTeam = TestKey(keyID: "KEYOTHER01", teamID: "TEAMOTHER1")
        let h = APNsHarness(extraKeys: [second.signingKey(), otherTeam.signingKey()])
        let conn = FakeConnection()
        XCTAssertEqual(h.send(connection: conn).status, 200)
        let r = h.send(authorization: "bearer " + second.jwt(iat: h.now), connection: conn)
        XCTAssertEqual(r.status, 403)
        XCTAssertEqual(reason(r), "UnrelatedKeyIdInToken")
        XCTAssertEqual(reason(h.send(authorization: "bearer " + otherTeam.jwt(iat: h.now), connection: conn)), "InvalidProviderToken")
        // Each works on a fresh connection.
        XCTAssertEqual(h.send(authorization: "bearer " + second.jwt(iat: h.now), connection: FakeConnection(id: 2)).status, 200)
        XCTAssertEqual(h.send(authorization: "bearer " + otherTeam.jwt(iat: h.now), connection: FakeConnection(id: 3)).status, 200)
    }

    func testBadEnvironmentKeyInToken() {
        let sandboxKey = TestKey(keyID: "SANDBOXKEY", teamID: "TEAM123456")
        let h = APNsHarness(extraKeys: [sandboxKey.signingKey(environments: .sandbox)])
        let r = h.send(authorization: "bearer " + sandboxKey.jwt(iat: h.now), connection: FakeConnection())
        XCTAssertEqual(r.status, 403)
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), #"{"reason":"BadEnvironmentKeyInToken"}"#)
        XCTAssertEqual(h.send(authorization: "bearer " + sandboxKey.jwt(iat: h.now), connection: FakeConnection(listener: "apns-sandbox")).status, 200)
        // It takes precedence over BadDeviceToken (docs/apns.md §8).
        let sandboxToken = "000000004002" + String(repeating: "0", count: 52)
        XCTAssertEqual(reason(h.send(token: sandboxToken, authorization: "bearer " + sandboxKey.jwt(iat: h.now), connection: FakeConnection())),
                       "BadEnvironmentKeyInToken")

        let doc = APNsHarness(configure: { $0.environmentKeySpelling = .documented }, extraKeys: [sandboxKey.signingKey(environments: .sandbox)])
        XCTAssertEqual(reason(doc.send(authorization: "bearer " + sandboxKey.jwt(iat: doc.now), connection: FakeConnection())),
                       "BadEnvironmentKeyIdInToken")
        XCTAssertEqual(doc.double.history.all.last?.response.reason, "BadEnvironmentKeyIdInToken")
    }

    func testTopicDisallowedAndKeyTopics() {
        let restricted = TestKey(keyID: "TOPICKEY01", teamID: "TEAM123456")
        let h = APNsHarness(extraKeys: [restricted.signingKey(topics: ["com.example.keyonly"])])
        let r = h.send(headers: [("apns-topic", "com.example.notmine")], connection: FakeConnection())
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(reason(r), "TopicDisallowed")
        // Suffixes of an allowed bundle id are allowed.
        XCTAssertEqual(h.send(headers: [("apns-topic", Fixture.topic + ".voip"), ("apns-push-type", "voip")], connection: FakeConnection()).status, 200)
        // A topic-restricted key: other topics are InvalidProviderToken (pushy), its own topics are allowed.
        XCTAssertEqual(reason(h.send(authorization: "bearer " + restricted.jwt(iat: h.now), connection: FakeConnection())), "InvalidProviderToken")
        XCTAssertEqual(h.send(headers: [("apns-topic", "com.example.keyonly")], authorization: "bearer " + restricted.jwt(iat: h.now), connection: FakeConnection()).status, 200)
        // Bundle ids can be added at runtime.
        h.fake.keys.addBundleID("com.example.notmine")
        XCTAssertEqual(h.send(headers: [("apns-topic", "com.example.notmine")], connection: FakeConnection()).status, 200)
        // nil = all allowed.
        let open = APNsHarness(configure: { $0.allowedBundleIDs = nil })
        XCTAssertEqual(open.send(headers: [("apns-topic", "org.any.app")], connection: FakeConnection()).status, 200)
    }

    func testKeysAddedAtRuntime() {
        let h = APNsHarness()
        let late = TestKey(keyID: "LATEKEY001", teamID: "TEAMLATE01")
        let token = late.jwt(iat: h.now)
        XCTAssertEqual(reason(h.send(authorization: "bearer " + token, connection: FakeConnection())), "InvalidProviderToken")
        h.fake.addKey(late.signingKey())
        XCTAssertEqual(h.send(authorization: "bearer " + token, connection: FakeConnection()).status, 200)
        h.fake.keys.removeKey(id: "LATEKEY001")
        XCTAssertEqual(reason(h.send(authorization: "bearer " + token, connection: FakeConnection())), "InvalidProviderToken")
    }

    func testVerificationIsCached() {
        let h = APNsHarness()
        for i in 0..<5 { XCTAssertEqual(h.send(connection: FakeConnection(id: UInt64(i))).status, 200) }
        XCTAssertEqual(h.fake.verifier.cachedCount, 1)
    }

    func testPayloadRules() {
        let h = APNsHarness()
        let conn = FakeConnection()
        let empty = h.send(body: "", connection: conn)
        XCTAssertEqual(empty.status, 400)
        XCTAssertEqual(reason(empty), "PayloadEmpty")
        func body(_ n: Int) -> String {
            let prefix = #"{"aps":{"alert":""#, suffix = #""}}"#
            return prefix + String(repeating: "x", count: n - prefix.utf8.count - suffix.utf8.count) + suffix
        }
        XCTAssertEqual(h.send(body: body(4096), connection: conn).status, 200)
        let big = h.send(body: body(4097), connection: conn)
        XCTAssertEqual(big.status, 413)
        XCTAssertEqual(String(decoding: big.body, as: UTF8.self), #"{"reason":"PayloadTooLarge"}"#)
        let voip = [("apns-topic", Fixture.topic + ".voip"), ("apns-push-type", "voip")]
        XCTAssertEqual(h.send(headers: voip, body: body(5120), connection: conn).status, 200)
        XCTAssertEqual(reason(h.send(headers: voip, body: body(5121), connection: conn)), "PayloadTooLarge")
        // Invalid JSON is not refused (Apple documents no reason), but recorded.
        XCTAssertEqual(h.send(body: "{not json", connection: conn).status, 200)
        XCTAssertNotNil(h.double.history.all.last?.notification?["payloadError"])
    }

    func testMalformedTokenIsBadDeviceToken() {
        let h = APNsHarness()
        for token in ["abc", String(repeating: "z", count: 64), String(repeating: "a", count: 63), String(repeating: "a", count: 202)] {
            let r = h.send(token: token, connection: FakeConnection())
            XCTAssertEqual(r.status, 400, token)
            XCTAssertEqual(reason(r), "BadDeviceToken", token)
        }
    }

    func testMagicTokens() {
        let h = APNsHarness()
        let expected: [String: (Int, String?)] = [
            "4100": (410, "Unregistered"), "4101": (410, "ExpiredToken"), "4000": (400, "BadDeviceToken"),
            "4001": (400, "DeviceTokenNotForTopic"), "4002": (400, "BadDeviceToken"), "4003": (200, nil),
            "4290": (429, "TooManyRequests"), "2000": (200, nil),
        ]
        XCTAssertEqual(Set(expected.keys), Set(APNsMagicTokens.table.map(\.code)))
        for entry in APNsMagicTokens.table {
            let r = h.send(token: entry.example, connection: FakeConnection())
            XCTAssertEqual(r.status, expected[entry.code]!.0, entry.code)
            XCTAssertEqual(reason(r), expected[entry.code]!.1, entry.code)
        }
        let unregistered = h.send(token: APNsMagicTokens.table[0].example, connection: FakeConnection())
        XCTAssertEqual(String(decoding: unregistered.body, as: UTF8.self), #"{"reason":"Unregistered","timestamp":1704067200000}"#)
        // Environment-bound magic tokens on the sandbox.
        let sandbox = FakeConnection(listener: "apns-sandbox")
        XCTAssertEqual(h.send(token: "000000004002" + String(repeating: "0", count: 52), connection: sandbox).status, 200)
        XCTAssertEqual(reason(h.send(token: "000000004003" + String(repeating: "0", count: 52), connection: sandbox)), "BadDeviceToken")
    }

    func testRegisteredDevices() throws {
        let h = APNsHarness()
        let since = Date(timeIntervalSince1970: 1_799_999_000.123)
        let dead = String(repeating: "d", count: 64), other = String(repeating: "e", count: 64), sandboxOnly = String(repeating: "f", count: 64)
        try h.double.devices.register(Device(id: "dead", provider: .apns, token: dead, state: .unregistered(since: since)))
        try h.double.devices.register(Device(id: "other", provider: .apns, token: other, topic: "com.example.else"))
        try h.double.devices.register(Device(id: "sb", provider: .apns, token: sandboxOnly, environment: "sandbox"))
        let r = h.send(token: dead, connection: FakeConnection())
        XCTAssertEqual(r.status, 410)
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), #"{"reason":"Unregistered","timestamp":1799999000123}"#)
        XCTAssertEqual(reason(h.send(token: other, connection: FakeConnection())), "DeviceTokenNotForTopic")
        XCTAssertEqual(reason(h.send(token: sandboxOnly, connection: FakeConnection())), "BadDeviceToken")
        XCTAssertEqual(h.send(token: sandboxOnly, connection: FakeConnection(listener: "apns-sandbox")).status, 200)
        let expired = h.send(token: APNsMagicTokens.table[1].example, connection: FakeConnection())
        XCTAssertEqual(String(decoding: expired.body, as: UTF8.self), #"{"reason":"ExpiredToken","timestamp":\#(Int64(h.clock.now().timeIntervalSince1970 * 1000))}"#)
        XCTAssertEqual(h.double.history.all.last?.decidedBy.stage, .device)
    }

    func testTokensAreMatchedCaseInsensitively() throws {
        let h = APNsHarness()
        let dead = String(repeating: "ab", count: 32)
        try h.double.devices.register(Device(id: "dead", provider: .apns, token: dead, state: .unregistered(since: Date(timeIntervalSince1970: 1))))
        XCTAssertEqual(h.send(token: dead.uppercased(), connection: FakeConnection()).status, 410)
        XCTAssertEqual(h.double.history.all.last?.token, dead)
        XCTAssertEqual(h.double.history.all.last?.request.path, "/3/device/" + dead.uppercased())
    }

    func testClosedWorldUnknownTokenIsBadDeviceToken() {
        let h = APNsHarness()
        h.double.devices.setWorld(.closed, for: .apns)
        XCTAssertEqual(reason(h.send(connection: FakeConnection())), "BadDeviceToken")
        XCTAssertEqual(h.send(token: APNsMagicTokens.table[7].example, connection: FakeConnection()).status, 200)
    }

    func testPerDeviceRateLimit() {
        let h = APNsHarness(configure: { $0.tooManyRequestsPerDevice = 2 })
        let conn = FakeConnection()
        XCTAssertEqual(h.send(connection: conn).status, 200)
        XCTAssertEqual(h.send(connection: conn).status, 200)
        let r = h.send(connection: conn)
        XCTAssertEqual(r.status, 429)
        XCTAssertEqual(reason(r), "TooManyRequests")
        h.clock.advance(1)
        XCTAssertEqual(h.send(connection: conn).status, 200)
    }

    func testFaultRulesRenderThroughTheSameBuilder() throws {
        let h = APNsHarness()
        try h.double.faults.add(FaultRule(id: "shutdown", match: FaultMatch(provider: .apns), action: .respond(ResponseSpec(reason: "Shutdown")), times: 1))
        let r = h.send(connection: FakeConnection())
        XCTAssertEqual(r.status, 503)
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), #"{"reason":"Shutdown"}"#)
        XCTAssertEqual(r.framing, .singleDataFrame)
        XCTAssertEqual(h.double.history.all.last?.decidedBy.stage, .fault)

        let request = Fixture.request(headers: [("apns-id", "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d")])
        let adm = Admission(endpoint: APNsFake.endpoint)
        let u = try XCTUnwrap(h.fake.errorResponse(reason: "Unregistered", status: nil, headers: ["retry-after": "5"], request: request, admission: adm))
        XCTAssertEqual(String(decoding: u.body, as: UTF8.self), #"{"reason":"Unregistered","timestamp":\#(Int64(h.clock.now().timeIntervalSince1970 * 1000))}"#)
        XCTAssertEqual(u.headers.fields.map(\.name), ["apns-id", "content-type", "retry-after"])
        XCTAssertEqual(u.headers["apns-id"], "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d")
        let forced = try XCTUnwrap(h.fake.errorResponse(reason: "TooManyRequests", status: 503, headers: [:], request: request, admission: adm))
        XCTAssertEqual(forced.status, 503)
        XCTAssertEqual(String(decoding: try XCTUnwrap(h.fake.errorResponse(reason: "BadEnvironmentKeyIdInToken", status: nil, headers: [:], request: request, admission: adm)).body, as: UTF8.self),
                       #"{"reason":"BadEnvironmentKeyIdInToken"}"#)
        XCTAssertNil(h.fake.errorResponse(reason: "NoSuchReason", status: nil, headers: [:], request: request, admission: adm))
        // A reason Apple does not document still gets APNs's error shape.
        let unknown = h.fake.unknownReasonResponse(reason: "NoSuchReason", status: 418, headers: ["retry-after": "5"])
        XCTAssertEqual(unknown.status, 418)
        XCTAssertEqual(String(decoding: unknown.body, as: UTF8.self), #"{"reason":"NoSuchReason"}"#)
        XCTAssertEqual(unknown.headers["content-type"], "application/json")
        XCTAssertEqual(unknown.headers["retry-after"], "5")
        XCTAssertEqual(h.fake.unknownReasonResponse(reason: nil, status: 500, headers: [:]).body, [])
        XCTAssertEqual(h.fake.rateLimitReason, "TooManyRequests")
    }

    func testHistoryRecordsNotificationAndIdentity() throws {
        let h = APNsHarness()
        h.send(headers: [("apns-topic", Fixture.topic), ("apns-push-type", "alert"), ("apns-priority", "5"), ("apns-collapse-id", "c1")],
               body: #"{"aps":{"alert":{"title":"T"},"badge":2},"custom":{"k":1}}"#, connection: FakeConnection())
        let e = try XCTUnwrap(h.double.history.all.last)
        XCTAssertEqual(e.endpoint, "apns.push")
        XCTAssertEqual(e.token, Fixture.token)
        XCTAssertEqual(e.topic, Fixture.topic)
        XCTAssertEqual(e.environment, "production")
        XCTAssertEqual(e.auth?.scheme, "apns-jwt")
        XCTAssertEqual(e.auth?.keyID, "KEY1234567")
        XCTAssertEqual(e.auth?.issuer, "TEAM123456")
        XCTAssertEqual(e.auth?.issuedAt, h.now)
        XCTAssertEqual(e.auth?.valid, true)
        let n = try XCTUnwrap(e.notification)
        XCTAssertEqual(n["payload"]?["aps"]?["badge"], .int(2))
        XCTAssertEqual(n["payload"]?["custom"]?["k"], .int(1))
        XCTAssertEqual(n["headers"]?["apns-priority"], .string("5"))
        XCTAssertEqual(n["headers"]?["apns-collapse-id"], .string("c1"))
        XCTAssertEqual(n["pushType"], .string("alert"))
        XCTAssertEqual(n["priority"], .int(5))
        XCTAssertNil(n["payloadError"])
        XCTAssertEqual(e.decidedBy.stage, .accepted)
    }

    /// Every reason of docs/apns.md §7.2 is produced by the fake: by its own checks, or (for the
    /// server-side and certificate reasons) through fault rules rendered by `errorResponse`.
    func testEveryReasonOfTheTableIsReachable() throws {
        var seen = Set<String>()
        let sandboxKey = TestKey(keyID: "SANDBOXKEY", teamID: "TEAM123456")
        let second = TestKey(keyID: "KEY7654321", teamID: "TEAM123456")
        let h = APNsHarness(configure: { $0.tooManyRequestsPerDevice = 1 }, extraKeys: [sandboxKey.signingKey(environments: .sandbox), second.signingKey()])
        func note(_ r: HTTPResponse) { if let s = reason(r) { seen.insert(s) } }
        let t = Fixture.topic
        note(h.send(method: "PUT", connection: FakeConnection()))
        note(h.send(path: "/3/device/", connection: FakeConnection()))
        note(h.send(path: "/4/device/x", connection: FakeConnection()))
        note(h.send(headers: [("apns-topic", t), ("apns-topic", t)], connection: FakeConnection()))
        note(h.send(headers: [("apns-topic", t), ("apns-id", "1")], connection: FakeConnection()))
        note(h.send(headers: [], connection: FakeConnection()))
        note(h.send(headers: [("apns-topic", t), ("apns-collapse-id", String(repeating: "c", count: 65))], connection: FakeConnection()))
        note(h.send(headers: [("apns-topic", t), ("apns-priority", "2")], connection: FakeConnection()))
        note(h.send(headers: [("apns-topic", t), ("apns-push-type", "loud")], connection: FakeConnection()))
        note(h.send(headers: [("apns-topic", "a b")], connection: FakeConnection()))
        note(h.send(headers: [("apns-topic", t), ("apns-expiration", "tomorrow")], connection: FakeConnection()))
        note(h.send(omitAuthorization: true, connection: FakeConnection()))
        note(h.send(authorization: "bearer x.y.z", connection: FakeConnection()))
        note(h.send(authorization: "bearer " + h.mint(-4000), connection: FakeConnection()))
        note(h.send(authorization: "bearer " + sandboxKey.jwt(iat: h.now), connection: FakeConnection()))
        let pinned = FakeConnection()
        h.send(connection: pinned)
        note(h.send(authorization: "bearer " + second.jwt(iat: h.now), connection: pinned))
        note(h.send(authorization: "bearer " + h.mint(), connection: pinned))
        note(h.send(headers: [("apns-topic", "org.not.allowed")], connection: FakeConnection()))
        note(h.send(body: "", connection: FakeConnection()))
        note(h.send(body: String(repeating: " ", count: 4097), connection: FakeConnection()))
        note(h.send(token: "xyz", connection: FakeConnection()))
        for entry in APNsMagicTokens.table { note(h.send(token: entry.example, connection: FakeConnection())) }
        let busy = String(repeating: "b", count: 64)
        h.send(token: busy, connection: FakeConnection())
        note(h.send(token: busy, connection: FakeConnection()))
        // Reasons only a fault rule produces (server errors, certificates, Forbidden, IdleTimeout).
        for r in ["InternalServerError", "ServiceUnavailable", "Shutdown", "IdleTimeout", "Forbidden", "BadCertificate", "BadCertificateEnvironment"] {
            let rule = FaultRule(id: r, match: FaultMatch(provider: .apns), action: .respond(ResponseSpec(reason: r)), times: 1)
            try h.double.faults.add(rule)
            let resp = h.send(token: String(repeating: "c", count: 64), connection: FakeConnection())
            XCTAssertEqual(resp.status, APNsReason(rawValue: r)!.status, r)
            note(resp)
        }
        XCTAssertEqual(seen, Set(APNsReason.providerAPIReasons.map(\.rawValue)),
                       "missing: \(Set(APNsReason.providerAPIReasons.map(\.rawValue)).subtracting(seen).sorted())")
    }
}

final class APNsFakeConfigurationTests: XCTestCase {
    func testFaultTimestampsUseTheDoublesClockOnceKnown() throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_500_000_000))
        let double = DoubleState(clock: clock)
        let key = TestKey()
        let fake = APNsFake(configuration: APNsConfiguration(keys: [key.signingKey()], allowedBundleIDs: nil))  // system clock
        let pipeline = double.pipeline(for: fake, environment: "production")
        let conn = FakeConnection()
        let request = Fixture.request(headers: [("authorization", "bearer " + key.jwt(iat: 1_500_000_000)), ("apns-topic", Fixture.topic)],
                                      connection: conn)
        _ = pipeline.respond(to: request, context: RequestContext(connection: conn))
        let r = try XCTUnwrap(fake.errorResponse(reason: "Unregistered", status: nil, headers: [:], request: request,
                                                 admission: Admission(endpoint: APNsFake.endpoint)))
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), #"{"reason":"Unregistered","timestamp":1500000000000}"#)
    }

    func testKeySpecJSON() throws {
        let key = TestKey(keyID: "SPECKEY001", teamID: "SPECTEAM01")
        let pem = try key.privateKey.publicKey.pem
        let json = #"{"keyID":"SPECKEY001","teamID":"SPECTEAM01","environments":"sandbox","topics":["com.acme.app"],"pem":"\#(pem.replacingOccurrences(of: "\n", with: "\\n"))"}"#
        let spec = try JSONDecoder().decode(APNsKeySpec.self, from: Data(json.utf8))
        let signing = try spec.signingKey()
        XCTAssertEqual(signing.environments, .sandbox)
        XCTAssertEqual(signing.topics, ["com.acme.app"])
        XCTAssertEqual(signing.publicKey, try key.privateKey.publicKey)
        // The private .p8 form works too, and a fake accepts the key at runtime.
        let fake = APNsFake(configuration: APNsConfiguration(keys: []))
        try fake.addKey(APNsKeySpec(keyID: "SPECKEY001", teamID: "SPECTEAM01", pem: try key.privateKey.pemPKCS8))
        XCTAssertEqual(fake.keys.key(id: "SPECKEY001")?.environments, .both)
        XCTAssertThrowsError(try APNsKeySpec(keyID: "X", teamID: "Y", pem: "not a key").signingKey())
    }

    func testShippedConfiguration() throws {
        let config = APNsConfiguration.shipped
        XCTAssertEqual(config.keys.map(\.keyID), [APNsTestCredentials.keyID])
        XCTAssertEqual(config.keys.first?.teamID, APNsTestCredentials.teamID)
        XCTAssertEqual(config.allowedBundleIDs, [APNsTestCredentials.topic])
        // A token signed with the shipped private key verifies with the shipped configuration.
        let fake = APNsFake()
        let jwt = try JWT.signES256(keyID: APNsTestCredentials.keyID,
                                    claims: JOSEObject([("iss", .string(APNsTestCredentials.teamID)), ("iat", .int(1))]),
                                    key: try P256PrivateKey(pem: APNsTestCredentials.keyPEM))
        guard case .valid(let claims) = fake.verifier.verify(jwt) else { return XCTFail("shipped key does not verify") }
        XCTAssertEqual(claims.teamID, APNsTestCredentials.teamID)
        let specs = fake.listenerSpecs()
        XCTAssertEqual(specs.map(\.name), ["apns-production", "apns-sandbox"])
        XCTAssertEqual(specs.map(\.defaultPort), [APNsModule.productionPort, APNsModule.sandboxPort])
        XCTAssertEqual(specs.map(\.environment), ["production", "sandbox"])
        for s in specs {
            XCTAssertEqual(s.alpn, ["h2"])
            XCTAssertFalse(s.allowHTTP1)
            XCTAssertTrue(s.useTLS)
            XCTAssertEqual(s.http2.initialMaxConcurrentStreams, 1)
            XCTAssertEqual(s.http2.headerTableSize, 4096)
            XCTAssertEqual(s.http2.initialWindowSize, 65535)
            XCTAssertEqual(s.http2.maxFrameSize, 16384)
            XCTAssertEqual(s.limits.maxHeaderListSize, 8000)
            XCTAssertEqual(s.limits.maxConcurrentStreams, 1000)
            XCTAssertEqual(s.limits.idleTimeout, 3600)
        }
    }
}

/// Hostile input never crashes the fake: random bytes in every field always get an APNs answer.
final class APNsRobustnessTests: XCTestCase {
    func testRandomInputAlwaysGetsAnAPNsAnswer() {
        let h = APNsHarness()
        var rng = SeededRandomNumberGenerator(seed: 42)
        let alphabet = Array("abcdef0123456789ABCDEF{}[]\":,.-/ ?\\é\u{0}\n".unicodeScalars)
        func junk(_ max: Int) -> String {
            String(String.UnicodeScalarView((0..<Int.random(in: 0...max, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }))
        }
        let names = ["apns-topic", "apns-id", "apns-priority", "apns-push-type", "apns-expiration", "apns-collapse-id", "authorization", "x-other"]
        for _ in 0..<1500 {
            var headers: [(String, String)] = []
            for _ in 0..<Int.random(in: 0...6, using: &rng) { headers.append((names.randomElement(using: &rng)!, junk(80))) }
            if Bool.random(using: &rng) { headers.append(("apns-topic", Fixture.topic)) }
            let path = Bool.random(using: &rng) ? "/3/device/" + junk(130) : junk(40)
            let body = Bool.random(using: &rng) ? junk(300) : String(repeating: "[", count: Int.random(in: 0...5000, using: &rng))
            let auth: String? = Bool.random(using: &rng) ? nil : "bearer " + junk(300)
            let r = h.send(path: path, method: Bool.random(using: &rng) ? "POST" : junk(6), headers: headers, authorization: auth,
                           body: body, connection: FakeConnection())
            XCTAssertTrue([200, 400, 403, 404, 405, 410, 413, 429].contains(r.status), "status \(r.status)")
            if r.status == 200 {
                XCTAssertEqual(r.framing, .headersOnly)
            } else {
                XCTAssertEqual(r.framing, .singleDataFrame)
                XCTAssertNotNil(reason(r).flatMap(APNsReason.init(wireString:)), String(decoding: r.body, as: UTF8.self))
            }
        }
    }
}
