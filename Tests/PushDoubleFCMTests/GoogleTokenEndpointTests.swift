import XCTest
import Synchronization
import PushDoubleCrypto
import PushDoubleJSON
@testable import PushDoubleFCM

/// The token endpoint (docs/fcm.md §6): assertions signed with the shipped test service account
/// (Certificates/firebase-test-service-account.json), every outcome and its exact body.
final class GoogleTokenEndpointTests: XCTestCase {
    static let now: Double = 1_764_583_200
    static let fcmScope = "https://www.googleapis.com/auth/firebase.messaging"

    var account: GoogleServiceAccount!
    var key: RSAPrivateKey!

    override func setUpWithError() throws {
        account = try GoogleServiceAccount(json: Array(try shippedServiceAccountJSON()))
        key = try account.privateKey()
    }

    /// A store whose tokens are `ya29.test-1`, `ya29.test-2`, …
    func makeStore(lifetime: Int = 3599) -> FCMAccessTokenStore {
        let counter = Mutex(0)
        return FCMAccessTokenStore(lifetime: lifetime, tokenGenerator: {
            "ya29.test-\(counter.withLock { n in n += 1; return n })"
        })
    }

    func makeEndpoint(_ configure: (inout GoogleTokenEndpointConfiguration) -> Void = { _ in }) throws -> GoogleTokenEndpoint {
        var c = GoogleTokenEndpointConfiguration()
        c.audiences.insert(FCMTestCredentials.tokenURI)
        configure(&c)
        return GoogleTokenEndpoint(accounts: [try GoogleKnownAccount(serviceAccount: account, projectNumbers: ["123456789"])],
                                   store: makeStore(), configuration: c)
    }

    /// The claims every client library sends (docs/fcm.md §6.2), with overrides.
    func claims(_ overrides: [(String, JSONValue?)] = []) -> JOSEObject {
        var c: JOSEObject = ["iss": .string(account.clientEmail), "scope": .string(Self.fcmScope),
                             "aud": .string(account.tokenURI!), "iat": .int(Int64(Self.now)), "exp": .int(Int64(Self.now) + 3600)]
        for (k, v) in overrides { c[k] = v }
        return c
    }

    func assertion(_ overrides: [(String, JSONValue?)] = [], key: RSAPrivateKey? = nil) throws -> String {
        try JWT.signRS256(keyID: account.privateKeyID, claims: claims(overrides), key: key ?? self.key)
    }

    /// `grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=<JWT>` (docs/fcm.md §6.2).
    func form(_ assertion: String) -> [UInt8] {
        Array("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)".utf8)
    }

    func assertRefused(_ outcome: GoogleTokenOutcome, _ rule: GoogleTokenRule, body: String,
                       file: StaticString = #filePath, line: UInt = #line) {
        guard case .refused(let r, _, let b) = outcome else { return XCTFail("issued, expected \(rule)", file: file, line: line) }
        XCTAssertEqual(r, rule, file: file, line: line)
        XCTAssertEqual(String(decoding: b, as: UTF8.self), body, file: file, line: line)
        XCTAssertEqual(outcome.httpStatus, 400, file: file, line: line)
    }

    @discardableResult
    func assertIssued(_ outcome: GoogleTokenOutcome, file: StaticString = #filePath, line: UInt = #line) -> FCMAccessGrant? {
        guard case .issued(let g, _) = outcome else {
            if case .refused(let r, let e, _) = outcome { XCTFail("refused \(r): \(e)", file: file, line: line) }
            return nil
        }
        XCTAssertEqual(outcome.httpStatus, 200, file: file, line: line)
        return g
    }

    static let invalidSignatureBody = #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#
    static let timeframeBody = #"{"error":"invalid_grant","error_description":"Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."}"#

    // MARK: Success (docs/fcm.md §6.3)

    func testValidAssertionGetsTheRecordedSuccessBody() throws {
        let endpoint = try makeEndpoint()
        let outcome = endpoint.handle(body: form(try assertion()), now: Self.now)
        let grant = assertIssued(outcome)
        XCTAssertEqual(String(decoding: outcome.body, as: UTF8.self), #"{"access_token":"ya29.test-1","expires_in":3599,"token_type":"Bearer"}"#)
        XCTAssertEqual(grant?.clientEmail, FCMTestCredentials.clientEmail)
        XCTAssertEqual(grant?.projects, [FCMTestCredentials.projectID, "123456789"])
        XCTAssertEqual(grant?.scopes, [Self.fcmScope])
        XCTAssertEqual(grant?.expiresAt, Self.now + 3599)
        XCTAssertEqual(endpoint.store.lookup("ya29.test-1", now: Self.now + 10), grant.map { .valid($0) })
        XCTAssertEqual(grant?.covers(project: "123456789"), true)
        XCTAssertEqual(grant?.covers(project: "other"), false)
    }

    func testLifetimeOfTheStoreIsExpiresIn() throws {
        let endpoint = GoogleTokenEndpoint(accounts: [try GoogleKnownAccount(serviceAccount: account)], store: makeStore(lifetime: 600))
        let outcome = endpoint.handle(body: form(try assertion([("aud", .string(GoogleTokenEndpoint.googleTokenURL))])), now: Self.now)
        XCTAssertEqual(String(decoding: outcome.body, as: UTF8.self), #"{"access_token":"ya29.test-1","expires_in":600,"token_type":"Bearer"}"#)
    }

    // MARK: Form (docs/fcm.md §6.2, RFC 6749 §5.2)

    func testGrantTypeAndAssertionParameters() throws {
        let endpoint = try makeEndpoint()
        let a = try assertion()
        assertRefused(endpoint.handle(body: Array("assertion=\(a)".utf8), now: Self.now), .missingGrantType, body: #"{"error":"invalid_request"}"#)
        assertRefused(endpoint.handle(body: Array("grant_type=client_credentials&assertion=\(a)".utf8), now: Self.now),
                      .unsupportedGrantType, body: #"{"error":"unsupported_grant_type"}"#)
        assertRefused(endpoint.handle(body: Array("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer".utf8), now: Self.now),
                      .missingAssertion, body: #"{"error":"invalid_request"}"#)
        assertRefused(endpoint.handle(body: form("") , now: Self.now), .missingAssertion, body: #"{"error":"invalid_request"}"#)
        assertRefused(endpoint.handle(body: form(a) + Array("&grant_type=x".utf8), now: Self.now), .malformedBody, body: #"{"error":"invalid_request"}"#)
        assertRefused(endpoint.handle(body: form(a + "%G0"), now: Self.now), .malformedBody, body: #"{"error":"invalid_request"}"#)
        // The URN unencoded, parameters in the other order: the same request.
        assertIssued(endpoint.handle(body: Array("assertion=\(a)&grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer".utf8), now: Self.now))
    }

    // MARK: Signature and issuer (docs/fcm.md §6.2, §6.3)

    func testWrongKeyGetsTheRecordedInvalidSignatureBody() throws {
        let other = try RSAPrivateKey.generate(bits: 2048)
        assertRefused(try makeEndpoint().handle(body: form(try assertion(key: other)), now: Self.now), .badSignature, body: Self.invalidSignatureBody)
    }

    func testTamperedClaimsAreABadSignature() throws {
        let parts = try assertion().split(separator: ".").map(String.init)
        let forged = Base64URL.encode(Array(claims([("scope", "https://www.googleapis.com/auth/cloud-platform")]).compactJSONBytes))
        assertRefused(try makeEndpoint().handle(body: form(parts[0] + "." + forged + "." + parts[2]), now: Self.now), .badSignature, body: Self.invalidSignatureBody)
    }

    func testUnknownIssuer() throws {
        assertRefused(try makeEndpoint().handle(body: form(try assertion([("iss", "someone@else.iam.gserviceaccount.com")])), now: Self.now),
                      .unknownIssuer, body: Self.invalidSignatureBody)
        assertRefused(try makeEndpoint().handle(body: form(try assertion([("iss", nil)])), now: Self.now), .unknownIssuer, body: Self.invalidSignatureBody)
    }

    func testAlgorithmOtherThanRS256() throws {
        let ec = try P256PrivateKey.generate()
        let es = try JWT.signES256(keyID: account.privateKeyID, claims: claims(), key: ec)
        assertRefused(try makeEndpoint().handle(body: form(es), now: Self.now), .wrongAlgorithm, body: Self.invalidSignatureBody)
        // {"alg":"none"}.{}.  and {"alg":"HS256"}.{}.x
        assertRefused(try makeEndpoint().handle(body: form("eyJhbGciOiJub25lIn0.e30."), now: Self.now), .wrongAlgorithm, body: Self.invalidSignatureBody)
        assertRefused(try makeEndpoint().handle(body: form("eyJhbGciOiJIUzI1NiJ9.e30.eA"), now: Self.now), .wrongAlgorithm, body: Self.invalidSignatureBody)
    }

    func testMalformedAssertion() throws {
        for bad in ["abc", "a.b", "e30.e30.e30.e30", "!!!.e30.e30"] {
            assertRefused(try makeEndpoint().handle(body: form(bad), now: Self.now), .malformedAssertion, body: #"{"error":"invalid_grant"}"#)
        }
    }

    func testKeyIDIsIgnoredUnlessChecked() throws {
        let wrongKid = try JWT.signRS256(keyID: "not-the-key-id", claims: claims(), key: key)
        assertIssued(try makeEndpoint().handle(body: form(wrongKid), now: Self.now))
        let checking = try makeEndpoint { $0.checkKeyID = true }
        assertRefused(checking.handle(body: form(wrongKid), now: Self.now), .unknownKeyID, body: Self.invalidSignatureBody)
        assertIssued(checking.handle(body: form(try assertion()), now: Self.now))
        // googleapis/node-gtoken sends only {"alg":"RS256"} (docs/fcm.md §6.2).
        let gtoken = try JWT.sign(header: ["alg": "RS256"], claims: claims(), key: .rs256(key))
        XCTAssertTrue(gtoken.hasPrefix(Base64URL.encode(Array(#"{"alg":"RS256"}"#.utf8)) + "."))
        assertIssued(checking.handle(body: form(gtoken), now: Self.now))
    }

    func testRotatedKeysOfOneAccount() throws {
        let old = try RSAPrivateKey.generate(bits: 2048)
        let acct = GoogleKnownAccount(clientEmail: account.clientEmail,
                                      keys: [("old", try old.publicKey), (account.privateKeyID, try key.publicKey)], projects: ["p"])
        let endpoint = GoogleTokenEndpoint(accounts: [acct], store: makeStore())
        let a = try JWT.signRS256(keyID: "old", claims: claims([("aud", .string(GoogleTokenEndpoint.googleTokenURL))]), key: old)
        XCTAssertEqual(assertIssued(endpoint.handle(body: form(a), now: Self.now))?.projects, ["p"])
    }

    // MARK: Times (docs/fcm.md §6.2, §6.3; skew allowance configurable)

    func testLifetimeAtMostOneHour() throws {
        let e = try makeEndpoint()
        assertIssued(e.handle(body: form(try assertion([("exp", .int(Int64(Self.now) + 3600))])), now: Self.now))
        assertRefused(e.handle(body: form(try assertion([("exp", .int(Int64(Self.now) + 3601))])), now: Self.now), .badTimeframe, body: Self.timeframeBody)
        assertRefused(e.handle(body: form(try assertion([("exp", .int(Int64(Self.now)))])), now: Self.now), .badTimeframe, body: Self.timeframeBody)
        assertRefused(e.handle(body: form(try assertion([("exp", .int(Int64(Self.now) - 10))])), now: Self.now), .badTimeframe, body: Self.timeframeBody)
    }

    func testClockSkewAllowance() throws {
        let e = try makeEndpoint()
        let t = Int64(Self.now)
        // Expired assertions within the allowance (300 s) still pass; beyond it they do not.
        assertIssued(e.handle(body: form(try assertion([("iat", .int(t - 3900)), ("exp", .int(t - 300))])), now: Self.now))
        assertRefused(e.handle(body: form(try assertion([("iat", .int(t - 3901)), ("exp", .int(t - 301))])), now: Self.now), .badTimeframe, body: Self.timeframeBody)
        // Issued in the future: within the allowance or not.
        assertIssued(e.handle(body: form(try assertion([("iat", .int(t + 300)), ("exp", .int(t + 3900))])), now: Self.now))
        assertRefused(e.handle(body: form(try assertion([("iat", .int(t + 301)), ("exp", .int(t + 3901))])), now: Self.now), .badTimeframe, body: Self.timeframeBody)
        let strict = try makeEndpoint { $0.clockSkew = 0 }
        assertRefused(strict.handle(body: form(try assertion([("iat", .int(t + 1)), ("exp", .int(t + 3601))])), now: Self.now), .badTimeframe, body: Self.timeframeBody)
    }

    func testIssuedAtInEveryNumericDateForm() throws {
        let e = try makeEndpoint()
        // A fraction (Python time.time()), a digit string, an exponent form.
        assertIssued(e.handle(body: form(try assertion([("iat", .double(Self.now + 0.25)), ("exp", .double(Self.now + 3600.25))])), now: Self.now))
        assertIssued(e.handle(body: form(try assertion([("iat", .string("1764583200")), ("exp", .string("1764586800"))])), now: Self.now))
        assertIssued(e.handle(body: form(try assertion([("iat", .double(1.7645832e9))])), now: Self.now))
        // Not dates at all.
        assertRefused(e.handle(body: form(try assertion([("iat", nil)])), now: Self.now), .badTimeframe, body: Self.timeframeBody)
        assertRefused(e.handle(body: form(try assertion([("exp", "soon")])), now: Self.now), .badTimeframe, body: Self.timeframeBody)
        assertRefused(e.handle(body: form(try assertion([("iat", .bool(true))])), now: Self.now), .badTimeframe, body: Self.timeframeBody)
    }

    func testTimeframeWordings() throws {
        for wording in GoogleOAuthError.TimeframeWording.allCases {
            let e = try makeEndpoint { $0.timeframeWording = wording }
            let outcome = e.handle(body: form(try assertion([("exp", .int(Int64(Self.now) + 7200))])), now: Self.now)
            let body = try JSONValue.parse(outcome.body)
            XCTAssertEqual(body["error"], "invalid_grant")
            XCTAssertEqual(body["error_description"]?.stringValue, wording.text)
        }
        XCTAssertEqual(GoogleOAuthError.TimeframeWording.v2016.text, "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe")
        XCTAssertEqual(GoogleOAuthError.TimeframeWording.v2018.text, "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values and use a clock with skew to account for clock differences between systems.")
    }

    // MARK: Audience and scope (docs/fcm.md §6.2, §1)

    func testAudience() throws {
        let e = try makeEndpoint()
        assertIssued(e.handle(body: form(try assertion([("aud", .string(GoogleTokenEndpoint.googleTokenURL))])), now: Self.now))
        assertIssued(e.handle(body: form(try assertion([("aud", .string(FCMTestCredentials.tokenURI))])), now: Self.now))
        assertIssued(e.handle(body: form(try assertion([("aud", ["https://x", .string(GoogleTokenEndpoint.googleTokenURL)])])), now: Self.now))
        for bad: JSONValue? in ["https://oauth2.googleapis.com/token/", "https://accounts.google.com/o/oauth2/token", nil, 5] {
            assertRefused(e.handle(body: form(try assertion([("aud", bad)])), now: Self.now), .wrongAudience, body: #"{"error":"invalid_grant"}"#)
        }
        // The fake's own URL is accepted only when the wiring adds it.
        let bare = GoogleTokenEndpoint(accounts: [try GoogleKnownAccount(serviceAccount: account)], store: makeStore())
        assertRefused(bare.handle(body: form(try assertion()), now: Self.now), .wrongAudience, body: #"{"error":"invalid_grant"}"#)
    }

    func testScope() throws {
        let e = try makeEndpoint()
        let python = ["cloud-platform", "datastore", "devstorage.read_write", "firebase", "identitytoolkit", "userinfo.email"]
            .map { "https://www.googleapis.com/auth/" + $0 }.joined(separator: " ")
        let node = ["cloud-platform", "firebase.database", "firebase.messaging", "identitytoolkit", "userinfo.email"]
            .map { "https://www.googleapis.com/auth/" + $0 }.joined(separator: " ")
        XCTAssertEqual(assertIssued(e.handle(body: form(try assertion([("scope", .string(python))])), now: Self.now))?.scopes.count, 6)
        assertIssued(e.handle(body: form(try assertion([("scope", .string(node))])), now: Self.now))
        assertIssued(e.handle(body: form(try assertion([("scope", "https://www.googleapis.com/auth/cloud-platform")])), now: Self.now))
        // docs/fcm.md §6.3a: a valid scope that does not allow FCM is minted, with its scopes recorded.
        XCTAssertEqual(assertIssued(e.handle(body: form(try assertion([("scope", "https://www.googleapis.com/auth/userinfo.email")])), now: Self.now))?.scopes,
                       ["https://www.googleapis.com/auth/userinfo.email"])
        let invalid = #"{"error":"invalid_scope","error_description":"Invalid OAuth scope or ID token audience provided."}"#
        for bad: JSONValue? in ["firebase.messaging", "", nil, "https://www.googleapis.com/auth/", "https://example.com/auth/x",
                                "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/a b"] {
            assertRefused(e.handle(body: form(try assertion([("scope", bad)])), now: Self.now), .invalidScope, body: invalid)
        }
        let strict = try makeEndpoint { $0.requireFCMScope = true }
        assertRefused(strict.handle(body: form(try assertion([("scope", "https://www.googleapis.com/auth/userinfo.email")])), now: Self.now),
                      .insufficientScope, body: invalid)
        assertIssued(strict.handle(body: form(try assertion([("scope", "https://www.googleapis.com/auth/firebase.messaging")])), now: Self.now))
    }

    // MARK: Body layout and overrides (docs/fcm.md §6.3: whitespace UNCONFIRMED)

    func testPrettyOneSpaceLayoutIsTheCapturedForm() throws {
        let e = try makeEndpoint { $0.errorLayout = .prettyOneSpace }
        let other = try RSAPrivateKey.generate(bits: 2048)
        // docs/fcm.md §6.3: '{\n "error": "invalid_grant",\n "error_description": "Invalid JWT Signature."\n}'
        assertRefused(e.handle(body: form(try assertion(key: other)), now: Self.now), .badSignature,
                      body: "{\n \"error\": \"invalid_grant\",\n \"error_description\": \"Invalid JWT Signature.\"\n}")
        XCTAssertEqual(String(decoding: GoogleOAuthError.invalidRequest.body(layout: .prettyOneSpace), as: UTF8.self), "{\n \"error\": \"invalid_request\"\n}")
    }

    func testErrorOverride() throws {
        let e = try makeEndpoint { $0.errorOverrides[.wrongAudience] = GoogleOAuthError(error: "invalid_grant", description: "bad aud", httpStatus: 401) }
        let outcome = e.handle(body: form(try assertion([("aud", "x")])), now: Self.now)
        XCTAssertEqual(outcome.httpStatus, 401)
        XCTAssertEqual(String(decoding: outcome.body, as: UTF8.self), #"{"error":"invalid_grant","error_description":"bad aud"}"#)
    }

    func testDefaultAnswerOfEveryRule() {
        let c = GoogleTokenEndpointConfiguration()
        let expected: [GoogleTokenRule: String] = [
            .malformedBody: "invalid_request", .missingGrantType: "invalid_request", .unsupportedGrantType: "unsupported_grant_type",
            .missingAssertion: "invalid_request", .malformedAssertion: "invalid_grant", .wrongAlgorithm: "invalid_grant",
            .unknownIssuer: "invalid_grant", .unknownKeyID: "invalid_grant", .badSignature: "invalid_grant",
            .badTimeframe: "invalid_grant", .wrongAudience: "invalid_grant", .insufficientScope: "invalid_scope", .invalidScope: "invalid_scope"]
        for rule in GoogleTokenRule.allCases {
            XCTAssertEqual(c.error(for: rule).error, expected[rule], rule.rawValue)
            XCTAssertEqual(c.error(for: rule).httpStatus, 400, rule.rawValue)
        }
    }
}
