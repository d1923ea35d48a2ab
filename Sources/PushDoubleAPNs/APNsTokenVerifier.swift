import Foundation
import Synchronization
import PushDoubleCore
import PushDoubleCrypto

/// What checking a provider JWT on its own (no connection rules yet) gave.
public enum APNsTokenVerification: Sendable, Equatable {
    case valid(APNsVerifiedToken)
    /// 403 InvalidProviderToken; `identity` holds whatever could be decoded, `detail` why.
    case invalid(identity: AuthIdentity, detail: String)
}

/// Verifies provider JWTs against the trusted keys and caches the result per JWT string,
/// so a reused token costs one dictionary lookup (docs/apns.md §5):
///
/// - the token parses as a compact JWS and its `alg` is ES256 (`none` or any other → invalid);
/// - the header names a `kid` that is a trusted key;
/// - `iss` is a string and the key's team; `iat` is a NumericDate in any form Apple accepts
///   (integer, fraction, decimal-digit string: ``NumericDateClaim``); other claims and extra
///   header members (`typ`) are accepted unless ``APNsConfiguration/requireExactClaims`` is set;
/// - the ES256 signature (raw r‖s) verifies with that key.
///
/// Time is not checked here (the connection rules do it), so cached results stay true.
/// Thread-safe: the cache sits behind a mutex and is dropped whenever the key store changes
/// (keys added or removed). Bounded: when full it is emptied (simplest bound; a refill
/// costs one verification per live token).
public final class APNsTokenVerifier: Sendable {
    public let keys: APNsKeyStore
    public let requireExactClaims: Bool
    public let capacity: Int

    struct Cache {
        var generation: UInt64 = 0
        var entries: [String: APNsTokenVerification] = [:]
    }
    private let cache = Mutex(Cache())

    public init(keys: APNsKeyStore, requireExactClaims: Bool = false, capacity: Int = 1024) {
        self.keys = keys; self.requireExactClaims = requireExactClaims; self.capacity = max(1, capacity)
    }

    /// Number of cached results (for tests and stats).
    public var cachedCount: Int { cache.withLock { $0.entries.count } }

    public func verify(_ jwt: String) -> APNsTokenVerification {
        let generation = keys.generation
        if let hit = cache.withLock({ c -> APNsTokenVerification? in
            if c.generation != generation { c.entries.removeAll(keepingCapacity: true); c.generation = generation; return nil }
            return c.entries[jwt]
        }) { return hit }
        let result = verifyUncached(jwt)
        cache.withLock { c in
            guard c.generation == generation else { return }
            if c.entries.count >= capacity { c.entries.removeAll(keepingCapacity: true) }
            c.entries[jwt] = result
        }
        return result
    }

    /// The checks, without the cache.
    public func verifyUncached(_ jwt: String) -> APNsTokenVerification {
        var identity = AuthIdentity(scheme: "apns-jwt", valid: false)
        let parsed: ParsedJWT
        do { parsed = try JWT.parse(jwt) } catch {
            return .invalid(identity: identity, detail: "malformed JWT: \(error)")
        }
        identity.keyID = parsed.keyID
        identity.issuer = parsed.issuer
        let iatClaim = parsed.numericDate("iat")
        identity.issuedAt = iatClaim?.wholeSeconds
        if let form = iatClaim?.form { identity.extra[APNsVerifiedToken.iatFormKey] = form.rawValue }
        identity.extra["alg"] = parsed.algorithm.rawValue
        guard parsed.algorithm == .es256 else { return .invalid(identity: identity, detail: "alg \(parsed.algorithm.rawValue), APNs requires ES256") }
        guard let kid = parsed.keyID else { return .invalid(identity: identity, detail: "no kid in the JOSE header") }
        guard let iss = parsed.issuer else { return .invalid(identity: identity, detail: "no iss claim (string)") }
        guard let iat = iatClaim else {
            return .invalid(identity: identity, detail: "no iat claim (epoch seconds: a number or a digit string)")
        }
        if requireExactClaims && parsed.claimNames != ["iss", "iat"] {
            let names = parsed.claims.keys.joined(separator: ",")
            return .invalid(identity: identity, detail: "claims must be exactly iss and iat, got \(names)")
        }
        guard let key = keys.key(id: kid) else { return .invalid(identity: identity, detail: "unknown kid \(kid)") }
        guard key.teamID == iss else { return .invalid(identity: identity, detail: "iss \(iss) is not the team \(key.teamID) of key \(kid)") }
        do { try parsed.verify(with: key.publicKey) } catch {
            return .invalid(identity: identity, detail: "signature does not verify: \(error)")
        }
        return .valid(APNsVerifiedToken(keyID: kid, teamID: iss, issuedAt: iat.wholeSeconds, issuedAtSeconds: iat.seconds,
                                        issuedAtForm: iat.form, keyEnvironments: key.environments,
                                        keyTopics: key.topics, keyFamily: key.family))
    }
}
