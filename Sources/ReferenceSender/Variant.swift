import Synchronization

/// A *correct* alternative behaviour (`--variant NAME`): each one is a way real senders
/// legitimately differ from the default, so the conformance suite must pass every variant
/// (DESIGN §5: false failures are tested as seriously as missed mutants).
enum Variant: String, CaseIterable, Sendable {
    case fullJitter = "full-jitter"
    case equalJitter = "equal-jitter"
    case decorrelatedJitter = "decorrelated-jitter"
    case multiConnection = "multi-connection"
    case jwtRefresh50min = "jwt-refresh-50min"
    case fcmEarlyRefresh = "fcm-early-refresh"
    case fcmRefreshOn401 = "fcm-refresh-on-401"

    /// One line: what this sender does differently.
    var summary: String {
        switch self {
        case .fullJitter: return "backoff delay uniform in [0, min(5 s, 0.2 s·2^(n−1))] (AWS \"full jitter\"); can retry within milliseconds"
        case .equalJitter: return "backoff delay = step/2 + uniform [0, step/2], step = min(5 s, 0.2 s·2^(n−1)) (AWS \"equal jitter\")"
        case .decorrelatedJitter: return "backoff delay = min(5 s, uniform [0.2 s, 3 × previous delay]) (AWS \"decorrelated jitter\"); may shrink"
        case .multiConnection: return "a pool of \(Variant.poolSize) HTTP/2 connections per endpoint (APNs, FCM), used round-robin, each reused"
        case .fcmEarlyRefresh: return "re-mints the FCM OAuth2 access token once half its expires_in has passed (not a minute before expiry), never per message"
        case .fcmRefreshOn401: return "keeps the FCM access token until FCM refuses it (401 UNAUTHENTICATED), then mints a new one once and retries"
        case .jwtRefresh50min: return "starts with a shared JWT already about 50 min old (as from a team-wide token cache), refreshes it when 50 min old and moves to a new connection with the new token"
        }
    }

    /// Connections per endpoint for `multi-connection`.
    static let poolSize = 3

    /// The backoff scheme this variant uses (nil: the default).
    var jitter: RetryPolicy.Jitter? {
        switch self {
        case .fullJitter: return .full
        case .equalJitter: return .equal
        case .decorrelatedJitter: return .decorrelated
        case .multiConnection, .jwtRefresh50min, .fcmEarlyRefresh, .fcmRefreshOn401: return nil
        }
    }
}

/// Uniform random numbers in [0, 1] for backoff jitter: seeded (`--seed N`) for
/// reproducible runs, else the system generator.
final class JitterSource: Sendable {
    private let seeded: Bool
    private let state: Mutex<UInt64>

    /// - Parameter seed: nil = `Double.random` (system generator).
    init(seed: UInt64?) {
        seeded = seed != nil
        state = Mutex(seed ?? 0)
    }

    /// The next number in [0, 1].
    func unit() -> Double {
        guard seeded else { return Double.random(in: 0...1) }
        let bits = state.withLock { s -> UInt64 in
            // SplitMix64 (Steele, Lea, Flood 2014): a full-period 64-bit generator.
            s &+= 0x9E37_79B9_7F4A_7C15
            var z = s
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        return Double(bits >> 11) / Double((UInt64(1) << 53) - 1)
    }
}
