import Foundation
import PushDoubleCore
import PushDoubleCrypto

/// The claims of a provider JWT whose signature verified, plus what the fake knows about
/// the key that signed it.
public struct APNsVerifiedToken: Sendable, Equatable {
    public var keyID: String
    public var teamID: String
    /// `iat`, whole seconds since the epoch (for the history).
    public var issuedAt: Int64
    /// `iat` exactly as sent, fraction kept: the age rules apply to this value.
    public var issuedAtSeconds: Double
    /// How `iat` was written (integer, fraction or digit string; all accepted, as Apple does).
    public var issuedAtForm: NumericDateClaim.Form
    /// The environments the signing key may be used in.
    public var keyEnvironments: APNsKeyEnvironments
    /// The topics (bundle ids) the key may push to; nil = every topic of the team.
    public var keyTopics: Set<String>?
    /// Keys of one family may replace each other on a connection (counted as token updates);
    /// nil = the key is only related to itself.
    public var keyFamily: String?

    public init(keyID: String, teamID: String, issuedAt: Int64, issuedAtSeconds: Double? = nil,
                issuedAtForm: NumericDateClaim.Form = .integer, keyEnvironments: APNsKeyEnvironments = .both,
                keyTopics: Set<String>? = nil, keyFamily: String? = nil) {
        self.keyID = keyID; self.teamID = teamID; self.issuedAt = issuedAt
        self.issuedAtSeconds = issuedAtSeconds ?? Double(issuedAt); self.issuedAtForm = issuedAtForm
        self.keyEnvironments = keyEnvironments; self.keyTopics = keyTopics; self.keyFamily = keyFamily
    }

    /// The ``AuthIdentity/extra`` key that records how `iat` was written
    /// (``NumericDateClaim/Form`` raw value), so the conformance runner can warn.
    public static let iatFormKey = "iatForm"

    /// The identity recorded in the history.
    public var identity: AuthIdentity {
        AuthIdentity(scheme: "apns-jwt", keyID: keyID, issuer: teamID, issuedAt: issuedAt, valid: true,
                     extra: ["alg": "ES256", Self.iatFormKey: issuedAtForm.rawValue])
    }
}

/// Which APNs environments a signing key may be used in (2025 team-scoped / topic-specific keys).
public enum APNsKeyEnvironments: String, Sendable, Codable, Equatable {
    case production, sandbox, both

    public func allows(_ environment: APNsEnvironment) -> Bool {
        switch self {
        case .both: return true
        case .production: return environment == .production
        case .sandbox: return environment == .sandbox
        }
    }
}

/// The timing rules of provider tokens (docs/apns.md §5), configurable for tests.
public struct APNsTokenTiming: Sendable, Equatable {
    /// A token whose `iat` is more than this many seconds old is refused with
    /// 403 ExpiredProviderToken. Apple: one hour.
    public var maxAge: Double
    /// A connection's token may be replaced no sooner than this many seconds after the
    /// current one was accepted; earlier → 429 TooManyProviderTokenUpdates. Apple: 20 min.
    public var minRefreshInterval: Double
    /// A token whose `iat` lies more than this many seconds in the future (e.g. `iat` in
    /// milliseconds) is refused with 403 InvalidProviderToken. UNCONFIRMED: Apple documents
    /// no figure; senders whose clock runs ahead report InvalidProviderToken.
    public var maxFutureSkew: Double
    public init(maxAge: Double = 3600, minRefreshInterval: Double = 1200, maxFutureSkew: Double = 300) {
        self.maxAge = maxAge; self.minRefreshInterval = minRefreshInterval; self.maxFutureSkew = maxFutureSkew
    }
}

/// Per-connection token-auth state, kept in ``ConnectionControl/storage``.
///
/// Loop-confined: only the event-loop thread that owns the connection touches it, so it
/// needs no locking (and is deliberately not Sendable).
public final class APNsConnectionState {
    /// The team the connection is bound to (first accepted token).
    public internal(set) var teamID: String?
    /// The key the connection is bound to (first accepted token) and its family.
    public internal(set) var keyID: String?
    public internal(set) var keyFamily: String?
    /// The JWT string currently in force on this connection, its claims and when it was accepted.
    public internal(set) var currentToken: String?
    /// The whole `authorization` value that carried ``currentToken`` (fast-path comparison).
    var currentAuthorization: String?
    public internal(set) var currentClaims: APNsVerifiedToken?
    /// ``APNsVerifiedToken/identity`` of ``currentClaims``, built once.
    var currentIdentity: AuthIdentity?
    public internal(set) var currentTokenAcceptedAt: Date?
    /// While set and in the future, every request is answered 429 TooManyProviderTokenUpdates.
    public internal(set) var blockedUntil: Date?
    /// How many times the token was replaced (accepted updates).
    public internal(set) var tokenUpdates = 0
    /// The last JWT this connection answered 403 ExpiredProviderToken (by its age check or
    /// through a fault rule): it stays refused on this connection, so a request still
    /// carrying it after the sender refreshed cannot become current again.
    public internal(set) var expiredToken: String?
    /// Whether SETTINGS_MAX_CONCURRENT_STREAMS was already raised.
    public internal(set) var streamsRaised = false
    /// Cache: the last bundle id found allowed, and the configuration generation it was checked at.
    var allowedBundle: String?
    var allowedBundleGeneration: UInt64 = 0
    /// Cache: the last `:authority` seen and the environment it meant on this connection.
    var lastAuthority: String?
    var lastEnvironment: APNsEnvironment?
    /// Whether the connection authenticates with a client certificate, read at its first request.
    var certificateAuth: APNsCertificateAuth = .unknown

    public init() {}

    /// After 403 ExpiredProviderToken for `token`: forgets the current token (the next
    /// valid JWT becomes current without counting as an update, since Apple tells the
    /// provider to mint a new one) and remembers `token` as expired. The team and key the
    /// connection is bound to stay.
    public func tokenExpired(_ token: String?) {
        if let token { expiredToken = token }
        currentToken = nil
        currentAuthorization = nil
        currentClaims = nil
        currentIdentity = nil
        currentTokenAcceptedAt = nil
    }
}

/// The connection-level rules of token auth (docs/apns.md §5), as a pure function of a verified
/// token, the connection state and the clock. Signature checking happens before (see
/// ``APNsTokenVerifier``); this decides pinning, environment, age, topic and refresh rate.
public enum APNsTokenRules {
    /// Whether the connection is blocked after a too-early token update. Clears the block
    /// once it has passed.
    public static func blockedReason(state: APNsConnectionState, now: Date) -> APNsReason? {
        guard let until = state.blockedUntil else { return nil }
        if now < until { return .tooManyProviderTokenUpdates }
        state.blockedUntil = nil
        return nil
    }

    /// Applies the rules in this order, first failure wins, and on success makes `token`
    /// the connection's current token:
    ///
    /// 1. another team than the connection's            → 403 InvalidProviderToken
    /// 2. a key unrelated to the connection's key        → 403 UnrelatedKeyIdInToken
    /// 3. key not valid in this environment              → 403 BadEnvironmentKeyInToken
    /// 4. `iat` more than `maxAge` old, or the JWT was already answered ExpiredProviderToken
    ///    on this connection                             → 403 ExpiredProviderToken, and the
    ///    connection forgets its current token (``APNsConnectionState/tokenExpired(_:)``)
    ///    (`iat` more than `maxFutureSkew` ahead          → 403 InvalidProviderToken)
    /// 5. key limited to other topics                    → 403 InvalidProviderToken
    /// 6. a different JWT string less than `minRefreshInterval` after the current one was
    ///    accepted                                       → 429 TooManyProviderTokenUpdates,
    ///    and the connection is blocked until `acceptedAt(current) + minRefreshInterval`.
    public static func evaluate(token: String, claims: APNsVerifiedToken, state: APNsConnectionState,
                                environment: APNsEnvironment, topic: String?, bundleID: String?,
                                now: Date, timing: APNsTokenTiming) -> APNsReason? {
        if let team = state.teamID, team != claims.teamID { return .invalidProviderToken }
        if let key = state.keyID, key != claims.keyID {
            let related = state.keyFamily != nil && state.keyFamily == claims.keyFamily
            if !related { return .unrelatedKeyIdInToken }
        }
        if !claims.keyEnvironments.allows(environment) { return .badEnvironmentKeyInToken }
        let nowSeconds = now.timeIntervalSince1970
        let iat = claims.issuedAtSeconds
        if nowSeconds - iat > timing.maxAge || (state.expiredToken != nil && token == state.expiredToken) {
            state.tokenExpired(token)
            return .expiredProviderToken
        }
        if iat - nowSeconds > timing.maxFutureSkew { return .invalidProviderToken }
        if let topics = claims.keyTopics {
            let ok = (topic.map { topics.contains($0) } ?? false) || (bundleID.map { topics.contains($0) } ?? false)
            if !ok { return .invalidProviderToken }
        }
        if token != state.currentToken {
            if let accepted = state.currentTokenAcceptedAt, now.timeIntervalSince(accepted) < timing.minRefreshInterval {
                state.blockedUntil = accepted.addingTimeInterval(timing.minRefreshInterval)
                return .tooManyProviderTokenUpdates
            }
            if state.currentToken != nil { state.tokenUpdates += 1 }
            state.currentToken = token
            state.currentClaims = claims
            state.currentIdentity = claims.identity
            state.currentTokenAcceptedAt = now
            if state.teamID == nil { state.teamID = claims.teamID }
            if state.keyID == nil { state.keyID = claims.keyID; state.keyFamily = claims.keyFamily }
        }
        return nil
    }
}
