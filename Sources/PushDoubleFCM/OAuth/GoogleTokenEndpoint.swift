import PushDoubleCrypto
import PushDoubleJSON

/// A service account the token endpoint knows: its `client_email`, the public key(s) its
/// assertions verify with, and the projects its tokens may send for.
public struct GoogleKnownAccount: Sendable {
    public var clientEmail: String
    /// Keys by `private_key_id` (the assertion's `kid`, docs/fcm.md §6.1/§6.2).
    public var keys: [(keyID: String?, key: RSAPublicKey)]
    public var projects: Set<String>

    public init(clientEmail: String, keys: [(keyID: String?, key: RSAPublicKey)], projects: Set<String>) {
        self.clientEmail = clientEmail; self.keys = keys; self.projects = projects
    }

    /// From a key file: its key, and `project_id` plus any `projectNumbers` (docs/fcm.md §1: the
    /// number is accepted in place of the id; the key file does not hold it).
    public init(serviceAccount sa: GoogleServiceAccount, projectNumbers: Set<String> = []) throws(CryptoError) {
        self.init(clientEmail: sa.clientEmail, keys: [(sa.privateKeyID, try sa.publicKey())],
                  projects: projectNumbers.union(sa.projectID.map { [$0] } ?? []))
    }
}

/// Every check the token endpoint makes, in order, with its default answer.
public enum GoogleTokenRule: String, Error, Sendable, Equatable, Hashable, CaseIterable {
    /// Body not form-decodable, or a parameter repeated (RFC 6749 §3.2) → `invalid_request`.
    case malformedBody
    /// No `grant_type` → `invalid_request` (RFC 6749 §5.2).
    case missingGrantType
    /// `grant_type` not `urn:ietf:params:oauth:grant-type:jwt-bearer` (docs/fcm.md §6.2) → `unsupported_grant_type`.
    case unsupportedGrantType
    /// No `assertion` → `invalid_request`.
    case missingAssertion
    /// Not a compact JWS → `invalid_grant` (no description recorded).
    case malformedAssertion
    /// `alg` not RS256 (docs/fcm.md §6.2 header) → `Invalid JWT Signature.`.
    case wrongAlgorithm
    /// `iss` not a known `client_email` (docs/fcm.md §6.2; "unknown key", §6.3) → `Invalid JWT Signature.`.
    case unknownIssuer
    /// `kid` not a key id of the account (only with `checkKeyID`; node-gtoken sends none, §6.2).
    case unknownKeyID
    /// Signature does not verify (docs/fcm.md §6.3) → `Invalid JWT Signature.`.
    case badSignature
    /// `iat`/`exp` missing, more than 1 h apart, in the future or expired (docs/fcm.md §6.2/§6.3) →
    /// the timeframe text.
    case badTimeframe
    /// `aud` not the token URL (docs/fcm.md §6.2) → `invalid_grant` (no description recorded).
    case wrongAudience
    /// `scope` missing, empty, or naming something that is not a Google OAuth scope (docs/fcm.md
    /// §6.3a) → `invalid_scope`, "Invalid OAuth scope or ID token audience provided.".
    case invalidScope
    /// Only with ``GoogleTokenEndpointConfiguration/requireFCMScope``: valid scopes, none of them
    /// `firebase.messaging` / `cloud-platform` → `invalid_scope`. Google itself mints such a token
    /// and FCM refuses the send (docs/fcm.md §6.3a).
    case insufficientScope
}

/// The knobs of ``GoogleTokenEndpoint``.
public struct GoogleTokenEndpointConfiguration: Sendable {
    /// Accepted `aud` values: Google's token URL (docs/fcm.md §6.2) plus the fake's own URL(s),
    /// which the wiring adds (the shipped key file's `token_uri`).
    public var audiences: Set<String> = [GoogleTokenEndpoint.googleTokenURL]
    /// Any one of these scopes allows FCM (docs/fcm.md §1, §6.2).
    public var fcmScopes: Set<String> = [GoogleTokenEndpoint.firebaseMessagingScope, GoogleTokenEndpoint.cloudPlatformScope]
    /// Refuse assertions without an FCM scope at the token endpoint. Off (the default, as Google
    /// does, docs/fcm.md §6.3a): the token is minted with its scopes recorded
    /// (``FCMAccessGrant/scopes``) and the send endpoint refuses it (403 `PERMISSION_DENIED`,
    /// "Request had insufficient authentication scopes.").
    public var requireFCMScope = false
    /// Largest `exp − iat` (docs/fcm.md §6.2: at most 1 hour).
    public var maxAssertionLifetime: Double = 3600
    /// Clock-skew allowance in seconds for `iat` in the future and `exp` in the past.
    /// docs/fcm.md records no number (only that Google asks clients to allow for skew, §6.3);
    /// 300 s is PushDouble's accepting default.
    public var clockSkew: Double = 300
    /// Refuse a `kid` that names no key of the account (not recorded in docs/fcm.md, so off).
    public var checkKeyID = false
    public var timeframeWording = GoogleOAuthError.TimeframeWording.v2023
    /// Error bodies replacing a rule's default (e.g. with a description).
    public var errorOverrides: [GoogleTokenRule: GoogleOAuthError] = [:]
    /// Whitespace of error bodies (UNCONFIRMED, docs/fcm.md §6.3).
    public var errorLayout = GoogleOAuthError.Layout.compact

    public init() {}

    /// The answer for `rule` (overrides first).
    public func error(for rule: GoogleTokenRule) -> GoogleOAuthError {
        if let o = errorOverrides[rule] { return o }
        switch rule {
        case .malformedBody, .missingGrantType, .missingAssertion: return .invalidRequest
        case .unsupportedGrantType: return .unsupportedGrantType
        case .malformedAssertion, .wrongAudience: return .invalidGrant
        case .wrongAlgorithm, .unknownIssuer, .unknownKeyID, .badSignature: return .invalidSignature
        case .badTimeframe: return .invalidTimeframe(timeframeWording)
        case .insufficientScope, .invalidScope: return .invalidScope
        }
    }
}

/// An assertion that passed every check of ``GoogleTokenEndpoint``: who signed it and the
/// scopes it asks for.
public struct GoogleVerifiedAssertion: Sendable {
    public let jwt: ParsedJWT
    public let account: GoogleKnownAccount
    public let scopes: [String]
}

/// A refused token request: the rule, Google's error and the bytes to answer with, plus the
/// assertion as far as it parsed (for the history).
public struct GoogleTokenRefusal: Error, Sendable {
    public let rule: GoogleTokenRule
    public let error: GoogleOAuthError
    public let body: [UInt8]
    public let jwt: ParsedJWT?
}

/// The token endpoint's answer.
public enum GoogleTokenOutcome: Sendable {
    /// 200 with `{"access_token":…,"expires_in":…,"token_type":"Bearer"}`.
    case issued(FCMAccessGrant, body: [UInt8])
    case refused(GoogleTokenRule, GoogleOAuthError, body: [UInt8])

    public var httpStatus: Int {
        switch self { case .issued: return 200; case .refused(_, let e, _): return e.httpStatus }
    }
    public var body: [UInt8] {
        switch self { case .issued(_, let b), .refused(_, _, let b): return b }
    }
}

/// The logic of Google's OAuth2 token endpoint for the service-account JWT-bearer grant
/// (RFC 7523; docs/fcm.md §6): form body → assertion checks → an access token from the store.
///
/// Checks, in order (first failure answers; ``GoogleTokenRule`` has each answer):
/// form decoding and no repeated parameter; `grant_type`; `assertion`; JWS syntax;
/// `alg` RS256; `iss` a known `client_email`; `kid` (optional); RS256 signature; `iat`/`exp`
/// (any NumericDate form, ``NumericDateClaim``); `aud`; `scope`.
public struct GoogleTokenEndpoint: Sendable {
    public static let googleTokenURL = "https://oauth2.googleapis.com/token"
    public static let jwtBearerGrantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    public static let firebaseMessagingScope = "https://www.googleapis.com/auth/firebase.messaging"
    public static let cloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

    public var configuration: GoogleTokenEndpointConfiguration
    public let accounts: [String: GoogleKnownAccount]
    public let store: FCMAccessTokenStore

    public init(accounts: [GoogleKnownAccount], store: FCMAccessTokenStore,
                configuration: GoogleTokenEndpointConfiguration = GoogleTokenEndpointConfiguration()) {
        var byEmail: [String: GoogleKnownAccount] = [:]
        for a in accounts { byEmail[a.clientEmail] = a }
        self.accounts = byEmail
        self.store = store
        self.configuration = configuration
    }

    /// Handles one token request body at time `now` (epoch seconds): ``check(body:now:extraAudiences:)``
    /// then ``issue(_:now:)``.
    public func handle<Bytes: Collection>(body: Bytes, now: Double, extraAudiences: Set<String> = []) -> GoogleTokenOutcome
    where Bytes.Element == UInt8 {
        switch check(body: body, now: now, extraAudiences: extraAudiences) {
        case .success(let verified): return issue(verified, now: now)
        case .failure(let refusal): return .refused(refusal.rule, refusal.error, body: refusal.body)
        }
    }

    /// Every check of a token request without issuing a token (the fake checks when a request
    /// arrives and issues only when no fault rule intervenes). `extraAudiences` are accepted
    /// `aud` values besides ``GoogleTokenEndpointConfiguration/audiences`` (the URL the
    /// request actually reached).
    public func check<Bytes: Collection>(body: Bytes, now: Double, extraAudiences: Set<String> = [])
    -> Result<GoogleVerifiedAssertion, GoogleTokenRefusal> where Bytes.Element == UInt8 {
        var seen: ParsedJWT? = nil
        do throws(GoogleTokenRule) {
            let assertion = try readForm(body)
            seen = try? JWT.parse(assertion)
            let (jwt, account) = try authenticate(assertion)
            try checkTimes(jwt, now: now)
            let audiences = Set(jwt.audiences)
            guard !audiences.isDisjoint(with: configuration.audiences) || !audiences.isDisjoint(with: extraAudiences) else {
                throw GoogleTokenRule.wrongAudience
            }
            let scopes = (jwt.scope ?? "").split(separator: " ").map(String.init)
            guard !scopes.isEmpty, scopes.allSatisfy(Self.isGoogleScope) else { throw GoogleTokenRule.invalidScope }
            if configuration.requireFCMScope, Set(scopes).isDisjoint(with: configuration.fcmScopes) { throw GoogleTokenRule.insufficientScope }
            return .success(GoogleVerifiedAssertion(jwt: jwt, account: account, scopes: scopes))
        } catch {
            let e = configuration.error(for: error)
            return .failure(GoogleTokenRefusal(rule: error, error: e, body: e.body(layout: configuration.errorLayout), jwt: seen))
        }
    }

    /// Issues the access token for a verified assertion (the 200 answer).
    public func issue(_ verified: GoogleVerifiedAssertion, now: Double) -> GoogleTokenOutcome {
        let grant = store.issue(clientEmail: verified.account.clientEmail, projects: verified.account.projects,
                                scopes: verified.scopes, now: now)
        return .issued(grant, body: Self.successBody(token: grant.token, expiresIn: store.lifetime))
    }

    /// Phase 1: the form parameters; returns the assertion text.
    func readForm<Bytes: Collection>(_ body: Bytes) throws(GoogleTokenRule) -> String where Bytes.Element == UInt8 {
        let pairs: [(name: String, value: String)]
        do { pairs = try FormURLEncoding.decode(body) } catch { throw .malformedBody }
        var seen = Set<String>()
        for p in pairs where !seen.insert(p.name).inserted { throw .malformedBody }
        guard let grantType = pairs.first(where: { $0.name == "grant_type" })?.value else { throw .missingGrantType }
        guard grantType == Self.jwtBearerGrantType else { throw .unsupportedGrantType }
        guard let assertion = pairs.first(where: { $0.name == "assertion" })?.value, !assertion.isEmpty else { throw .missingAssertion }
        return assertion
    }

    /// Phase 2: who signed it, and the signature.
    func authenticate(_ assertion: String) throws(GoogleTokenRule) -> (ParsedJWT, GoogleKnownAccount) {
        let jwt: ParsedJWT
        do { jwt = try JWT.parse(assertion) } catch {
            // A JWS whose alg is not one PushDoubleCrypto parses is still a wrong algorithm.
            switch error {
            case .jwtAlgorithmNone, .jwtUnsupportedAlgorithm: throw .wrongAlgorithm
            default: throw .malformedAssertion
            }
        }
        guard jwt.algorithm == .rs256 else { throw .wrongAlgorithm }
        guard let iss = jwt.issuer, let account = accounts[iss] else { throw .unknownIssuer }
        var candidates = account.keys
        if let kid = jwt.keyID, configuration.checkKeyID {
            candidates = account.keys.filter { $0.keyID == kid }
            if candidates.isEmpty { throw .unknownKeyID }
        }
        for k in candidates where (try? jwt.verify(with: k.key)) != nil { return (jwt, account) }
        throw .badSignature
    }

    /// Phase 3: `iat` / `exp` (docs/fcm.md §6.2: exp at most 1 h after iat; §6.3 timeframe error).
    func checkTimes(_ jwt: ParsedJWT, now: Double) throws(GoogleTokenRule) {
        guard let iat = jwt.numericDate("iat")?.seconds, let exp = jwt.numericDate("exp")?.seconds else { throw .badTimeframe }
        let skew = configuration.clockSkew
        guard exp > iat, exp - iat <= configuration.maxAssertionLifetime,
              iat <= now + skew, exp >= now - skew else { throw .badTimeframe }
    }

    /// Whether `scope` is written as a Google OAuth scope: `https://www.googleapis.com/auth/<name>`
    /// (name of letters, digits, `.`, `_`, `-`), or `openid`, `email`, `profile` (docs/fcm.md §6.3a).
    /// Whether Google knows the name is not checked: any such scope is minted.
    static func isGoogleScope(_ scope: String) -> Bool {
        if ["openid", "email", "profile"].contains(scope) { return true }
        guard scope.hasPrefix(scopePrefix) else { return false }
        let name = scope.utf8.dropFirst(scopePrefix.utf8.count)
        return !name.isEmpty && name.allSatisfy { b in
            (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x2E || b == 0x5F || b == 0x2D
        }
    }
    static let scopePrefix = "https://www.googleapis.com/auth/"

    /// `{"access_token":"…","expires_in":3599,"token_type":"Bearer"}`: compact, in this
    /// member order, as docs/fcm.md §6.3 records the success body [O].
    public static func successBody(token: String, expiresIn: Int) -> [UInt8] {
        JSONValue.object([("access_token", .string(token)), ("expires_in", .int(Int64(expiresIn))),
                          ("token_type", "Bearer")]).compactJSONBytes
    }
}
