import Synchronization

/// A *correct* alternative behaviour (`--variant NAME`): each one is a way real senders
/// legitimately differ from the default, so the conformance suite must pass every variant
/// (a false failure is as serious a bug of the suite as a missed mutant).
///
/// Like ``Mutant``, the variants every sender can take are declared here and each provider
/// declares its own next to its sender (``SenderProvider/variants``).
struct Variant: Hashable, Sendable {
    /// The `--variant` name.
    let rawValue: String
    /// One line: what this sender does differently.
    let summary: String
    /// The backoff scheme this variant uses (nil: the default).
    let jitter: RetryPolicy.Jitter?

    init(_ rawValue: String, _ summary: String, jitter: RetryPolicy.Jitter? = nil) {
        self.rawValue = rawValue
        self.summary = summary
        self.jitter = jitter
    }

    /// The variant of that name.
    init?(rawValue: String) {
        guard let v = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = v
    }

    static func == (a: Variant, b: Variant) -> Bool { a.rawValue == b.rawValue }
    func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// Every variant: the generic ones, then each registered provider's.
    static var allCases: [Variant] { generic + SenderProviders.all.flatMap { $0.variants } }

    /// Variants of the shared retry and connection logic.
    static let generic: [Variant] = [.fullJitter, .equalJitter, .decorrelatedJitter, .multiConnection, .v1NoFeatures, .registerCall]

    static let fullJitter = Variant("full-jitter",
        "backoff delay uniform in [0, min(5 s, 0.2 s·2^(n−1))] (AWS \"full jitter\"); can retry within milliseconds", jitter: .full)
    static let equalJitter = Variant("equal-jitter",
        "backoff delay = step/2 + uniform [0, step/2], step = min(5 s, 0.2 s·2^(n−1)) (AWS \"equal jitter\")", jitter: .equal)
    static let decorrelatedJitter = Variant("decorrelated-jitter",
        "backoff delay = min(5 s, uniform [0.2 s, 3 × previous delay]) (AWS \"decorrelated jitter\"); may shrink", jitter: .decorrelated)
    static let multiConnection = Variant("multi-connection",
        "a pool of \(Variant.poolSize) HTTP/2 connections per endpoint (APNs, FCM), used round-robin, each reused")

    static let v1NoFeatures = Variant("v1-no-features",
        "a driver-protocol v1 sender written before the optional features: declares no features and no targets, ignores registeredAt")
    static let registerCall = Variant("register-call",
        "hears of re-registered tokens through the register call (feature register) instead of the devices' registeredAt")

    /// Connections per endpoint for `multi-connection`.
    static let poolSize = 3
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
