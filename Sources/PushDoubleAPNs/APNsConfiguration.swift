import Foundation
import Synchronization
import PushDoubleCrypto

/// One provider-token signing key the fake trusts (the public half of a `.p8` key).
public struct APNsSigningKey: Sendable {
    /// The 10-character Key ID (`kid`).
    public var keyID: String
    /// The 10-character Team ID the key belongs to (`iss`).
    public var teamID: String
    public var publicKey: P256PublicKey
    /// Environments the key may be used in (2025 keys may be limited to one).
    public var environments: APNsKeyEnvironments
    /// Topics (bundle ids, or full topics) the key may push to; nil = every topic of the team.
    public var topics: Set<String>?
    /// Keys sharing a family may replace each other on one connection (the swap counts as a
    /// token update); nil = the key is related to no other key (``APNsReason/unrelatedKeyIdInToken``).
    public var family: String?

    public init(keyID: String, teamID: String, publicKey: P256PublicKey, environments: APNsKeyEnvironments = .both,
                topics: Set<String>? = nil, family: String? = nil) {
        self.keyID = keyID; self.teamID = teamID; self.publicKey = publicKey
        self.environments = environments; self.topics = topics; self.family = family
    }

    /// A key from a PEM public key (SubjectPublicKeyInfo) or private key (PKCS#8 `.p8`).
    public init(keyID: String, teamID: String, pem: String, environments: APNsKeyEnvironments = .both,
                topics: Set<String>? = nil, family: String? = nil) throws {
        let publicKey: P256PublicKey
        if pem.contains("PRIVATE KEY") { publicKey = try P256PrivateKey(pem: pem).publicKey }
        else { publicKey = try P256PublicKey(pem: pem) }
        self.init(keyID: keyID, teamID: teamID, publicKey: publicKey, environments: environments, topics: topics, family: family)
    }
}

/// The JSON form of a signing key, for scenario files and the admin API:
/// `{"keyID":"ABC123DEFG","teamID":"TEAM000001","pem":"-----BEGIN PUBLIC KEY-----…",
///   "environments":"sandbox","topics":["com.acme.app"],"family":"acme"}`.
/// `pem` may be the public key or the `.p8` private key; only `keyID`, `teamID` and `pem`
/// are required (environments default to `both`, topics to all).
public struct APNsKeySpec: Sendable, Equatable, Codable {
    public var keyID: String
    public var teamID: String
    public var pem: String
    public var environments: APNsKeyEnvironments?
    public var topics: [String]?
    public var family: String?

    public init(keyID: String, teamID: String, pem: String, environments: APNsKeyEnvironments? = nil,
                topics: [String]? = nil, family: String? = nil) {
        self.keyID = keyID; self.teamID = teamID; self.pem = pem; self.environments = environments
        self.topics = topics; self.family = family
    }

    /// The key; throws the crypto error when `pem` is not a P-256 key.
    public func signingKey() throws -> APNsSigningKey {
        try APNsSigningKey(keyID: keyID, teamID: teamID, pem: pem, environments: environments ?? .both,
                           topics: topics.map(Set.init), family: family)
    }
}

/// Settings of the APNs fake. A value: build it, then hand it to ``APNsFake``; keys and
/// bundle ids can still be added at runtime through ``APNsFake/keys``.
public struct APNsConfiguration: Sendable {
    /// Trusted signing keys.
    public var keys: [APNsSigningKey]
    /// Bundle ids the team may push to: a topic is allowed when its bundle id (topic minus
    /// push-type suffix) is listed here or in the authenticating key's `topics`; otherwise
    /// 400 TopicDisallowed. nil = every bundle id is allowed.
    public var allowedBundleIDs: Set<String>?
    /// More than this many pushes to one device token within one second → 429
    /// TooManyRequests. nil (default) = no limit: Apple publishes no figure, and a default
    /// limit would turn load tests into 429 storms. Scenarios set it, or use the magic
    /// token / device state `rateLimited`.
    public var tooManyRequestsPerDevice: Int?
    /// Provider-token timing (max age 3600 s, min refresh interval 1200 s).
    public var tokenTiming: APNsTokenTiming
    /// Refuse JWTs whose claims are anything but exactly `iss` and `iat` (InvalidProviderToken).
    /// Default false: Apple documents the two claims but is not known to refuse others, so the
    /// fake accepts them and the conformance runner warns (`apns.jwt-exact-members`, SHOULD).
    public var requireExactClaims: Bool
    /// The shipped provider certificate a sender is given (`providers.apns.certFile`) to
    /// authenticate with instead of the key: conformance cases for certificate-based senders
    /// (option `senderCertificate`: `sandbox`, `production`, `universal` or `expired`). nil:
    /// the key only.
    public var senderCertificate: APNsTestCredentials.ProviderCertificate? = nil
    /// Broadcast channels the double starts with (scenario option `channels`).
    public var channels: [APNsChannelSeed] = []
    /// Which spelling of the environment-key reason to send.
    public var environmentKeySpelling: APNsEnvironmentKeySpelling
    /// Seconds without traffic after which a connection is closed with GOAWAY (UNCONFIRMED:
    /// Apple documents no figure; clients are told to PING after about an hour).
    public var idleTimeout: Double
    /// SETTINGS_MAX_CONCURRENT_STREAMS before the first valid token (Apple: 1).
    public var initialMaxConcurrentStreams: UInt32
    /// SETTINGS_MAX_CONCURRENT_STREAMS sent after the first valid token (captures: 500, 1000).
    public var maxConcurrentStreamsAfterAuth: UInt32
    /// Verified-JWT cache entries (a reused JWT then costs one dictionary lookup).
    public var verificationCacheSize: Int
    /// Environment of a request when neither `:authority`, SNI nor the listener name one.
    public var defaultEnvironment: APNsEnvironment

    public init(keys: [APNsSigningKey], allowedBundleIDs: Set<String>? = nil, tooManyRequestsPerDevice: Int? = nil,
                tokenTiming: APNsTokenTiming = APNsTokenTiming(), requireExactClaims: Bool = false,
                environmentKeySpelling: APNsEnvironmentKeySpelling = .wire, idleTimeout: Double = 3600,
                initialMaxConcurrentStreams: UInt32 = 1, maxConcurrentStreamsAfterAuth: UInt32 = 1000,
                verificationCacheSize: Int = 1024, defaultEnvironment: APNsEnvironment = .production) {
        self.keys = keys; self.allowedBundleIDs = allowedBundleIDs; self.tooManyRequestsPerDevice = tooManyRequestsPerDevice
        self.tokenTiming = tokenTiming; self.requireExactClaims = requireExactClaims
        self.environmentKeySpelling = environmentKeySpelling; self.idleTimeout = idleTimeout
        self.initialMaxConcurrentStreams = initialMaxConcurrentStreams
        self.maxConcurrentStreamsAfterAuth = maxConcurrentStreamsAfterAuth
        self.verificationCacheSize = verificationCacheSize; self.defaultEnvironment = defaultEnvironment
    }
}

extension APNsConfiguration {
    /// The key shipped in ``EmbeddedTestCredentials`` (`PDTESTKEY1`, team `PDTESTTEAM`, valid in
    /// both environments).
    public static var shippedKey: APNsSigningKey {
        get throws {
            try APNsSigningKey(keyID: APNsTestCredentials.keyID, teamID: APNsTestCredentials.teamID,
                               pem: APNsTestCredentials.keyPEM)
        }
    }

    /// The default configuration: the shipped key, bundle id `com.example.pushdouble`
    /// (``EmbeddedTestCredentials/apnsTopic``) as the only allowed bundle id, Apple's timings.
    public static var shipped: APNsConfiguration {
        // The embedded PEM is a constant checked by PushDoubleCrypto's and this module's tests.
        let key = try? shippedKey
        return APNsConfiguration(keys: key.map { [$0] } ?? [], allowedBundleIDs: [APNsTestCredentials.topic])
    }
}

/// The trusted keys and allowed bundle ids, changeable at runtime (admin API, scenario
/// files) while requests are being answered.
///
/// Thread-safe: one mutex around the tables; a generation counter (atomic) lets readers
/// keep per-connection caches and notice changes without taking the lock.
public final class APNsKeyStore: Sendable {
    struct Tables {
        var keys: [String: APNsSigningKey]
        var bundles: Set<String>?
    }
    private let tables: Mutex<Tables>
    private let generationCounter = Atomic<UInt64>(1)

    public init(keys: [APNsSigningKey], allowedBundleIDs: Set<String>?) {
        var map: [String: APNsSigningKey] = [:]
        for k in keys { map[k.keyID] = k }
        tables = Mutex(Tables(keys: map, bundles: allowedBundleIDs))
    }

    /// Increases whenever a key or bundle id is added or removed.
    public var generation: UInt64 { generationCounter.load(ordering: .acquiring) }

    /// Adds (or replaces, by Key ID) a trusted key.
    public func addKey(_ key: APNsSigningKey) {
        tables.withLock { $0.keys[key.keyID] = key }
        generationCounter.add(1, ordering: .releasing)
    }

    /// Forgets a key (tokens signed with it become InvalidProviderToken). True if it existed.
    @discardableResult
    public func removeKey(id: String) -> Bool {
        let removed = tables.withLock { $0.keys.removeValue(forKey: id) != nil }
        generationCounter.add(1, ordering: .releasing)
        return removed
    }

    /// Allows pushing to `bundleID` (no effect when every bundle id is allowed).
    public func addBundleID(_ bundleID: String) {
        tables.withLock { t in _ = t.bundles?.insert(bundleID) }
        generationCounter.add(1, ordering: .releasing)
    }

    /// Sets the allowed bundle ids (nil = all).
    public func setAllowedBundleIDs(_ ids: Set<String>?) {
        tables.withLock { $0.bundles = ids }
        generationCounter.add(1, ordering: .releasing)
    }

    public func key(id: String) -> APNsSigningKey? { tables.withLock { $0.keys[id] } }
    public var allKeys: [APNsSigningKey] { tables.withLock { Array($0.keys.values) }.sorted { $0.keyID < $1.keyID } }
    public var allowedBundleIDs: Set<String>? { tables.withLock { $0.bundles } }

    /// Whether `bundleID` (or the full `topic`) may be pushed to by a key allowing `keyTopics`.
    public func isAllowed(bundleID: String, topic: String, keyTopics: Set<String>?) -> Bool {
        if let kt = keyTopics, kt.contains(bundleID) || kt.contains(topic) { return true }
        return tables.withLock { t in
            guard let b = t.bundles else { return true }
            return b.contains(bundleID)
        }
    }
}
