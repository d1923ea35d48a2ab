import Foundation

/// How a single attempt ended, as seen by the retry logic.
enum AttemptResult: Sendable {
    /// The server answered (any status).
    case response(WireResponse)
    /// No answer: see ``TransportFailure`` for what is known about processing.
    case failure(TransportFailure)
}

/// A provider's HTTP answer: status, headers and body.
struct WireResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    /// The connection had received a GOAWAY before this answer arrived (RFC 9113 §6.8).
    var afterGoAway = false

    init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], afterGoAway: Bool = false) {
        self.status = status; self.headers = headers; self.body = body; self.afterGoAway = afterGoAway
    }

    func header(_ name: String) -> String? {
        headers.first(where: { $0.name.lowercased() == name })?.value
    }
}

/// A request that got no HTTP answer.
enum TransportFailure: Error, Sendable, Equatable {
    /// The server certainly did not process it (stream above a GOAWAY's last-stream-id,
    /// REFUSED_STREAM): resend on another connection; not a failed attempt (RFC 9113 §8.7).
    case notProcessed(String)
    /// It may or may not have been processed (connection lost mid-flight, stream reset,
    /// timeout): retry with the same message id (APNs `apns-id`) so the provider can drop a duplicate.
    case outcomeUnknown(String)
    /// The connection could not be set up (TCP, TLS, preface): nothing was sent.
    case connectFailed(String)

    var reason: String {
        switch self {
        case .notProcessed(let r), .outcomeUnknown(let r), .connectFailed(let r): return r
        }
    }
}

/// Backoff and attempt limits. Values keep the whole conformance suite fast.
struct RetryPolicy: Sendable {
    /// First backoff step (seconds).
    var base: Double = 0.2
    /// Largest backoff step (seconds).
    var cap: Double = 5
    /// Attempts that count as failures (the first try included).
    var maxAttempts: Int = 4
    /// Resends of requests the server did not process (GOAWAY, REFUSED_STREAM, Shutdown).
    var maxUnprocessedResends: Int = 6
    /// A Retry-After longer than this is not waited for: the push ends `failed`.
    var maxRetryAfter: Double = 30
    /// No retry starts later than this after the push's first attempt, so a `send` stays
    /// inside the runner's 60 s reply deadline.
    var maxTotalSeconds: Double = 45

    /// Growth factor between steps. 3 rather than 2: the growth must stay visible on the
    /// wire even when network and scheduling latency add ~0.1–0.2 s to every gap.
    var multiplier: Double = 3
    /// Share of each step that is random (the rest is fixed), for ``Jitter/partial``.
    var jitterShare: Double = 0.1
    /// How the delay is drawn from the step.
    var jitter: Jitter = .partial

    /// Backoff schemes (AWS Architecture Blog, "Exponential Backoff And Jitter", 2015).
    enum Jitter: Sendable, Equatable {
        /// The default: delay uniform in [step·(1−jitterShare), step].
        case partial
        /// Delay uniform in [0, step].
        case full
        /// Delay step/2 + uniform [0, step/2].
        case equal
        /// Delay min(cap, uniform [base, 3 × previous delay]); the first previous is `base`.
        case decorrelated
        /// No jitter, urllib3's schedule: the first retry at once, then 0.5 s doubling (the
        /// `no-jitter` mutant: concurrent sends retry in lockstep).
        case none
    }

    /// The policy of a `--variant` (the default policy when it changes no backoff).
    static func forVariant(_ variant: Variant?) -> RetryPolicy {
        var p = RetryPolicy()
        guard let j = variant?.jitter else { return p }
        p.jitter = j
        p.multiplier = 2  // the textbook doubling: these schemes' growth is judged on the envelope
        return p
    }

    /// This policy as the `no-jitter` mutant has it (unchanged for any other).
    func planting(_ mutant: MutantSet) -> RetryPolicy {
        guard mutant.contains(.noJitter) else { return self }
        var p = self
        p.jitter = .none
        return p
    }

    /// Exponential backoff with jitter before retry number `retry` (1 = first retry):
    /// step = min(cap, base·multiplier^(retry−1)), the delay drawn from it by ``jitter``.
    /// The default, partial jitter, keeps each delay clearly longer than the one before
    /// (the growth is observable) while concurrent retries still spread out.
    /// - Parameter previous: the delay before the previous retry (decorrelated jitter).
    func backoff(retry: Int, previous: Double? = nil, random: Double) -> Double {
        let r = min(max(random, 0), 1)
        let step = min(cap, base * pow(multiplier, Double(max(0, retry - 1))))
        switch jitter {
        case .partial: return step * (1 - jitterShare) + step * jitterShare * r
        case .full: return step * r
        case .equal: return step / 2 + step / 2 * r
        case .decorrelated:
            let upper = max(base, 3 * (previous ?? base))
            return min(cap, base + (upper - base) * r)
        case .none:
            return retry <= 1 ? 0 : min(cap, 0.5 * pow(2, Double(retry - 2)))
        }
    }
}

/// Parses `Retry-After` (RFC 9110 §10.2.3): delta-seconds or an HTTP-date, into seconds
/// from `now`. Recipients must accept all three HTTP-date forms (RFC 9110 §5.6.7).
enum RetryAfter {
    static func seconds(_ value: String, now: Double) -> Double? {
        let v = value.trimmingCharacters(in: .whitespaces)
        if !v.isEmpty, v.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            return Double(v) ?? .infinity  // a huge number: wait "forever" (capped by the policy)
        }
        for format in formats {
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = TimeZone(identifier: "GMT")
            f.dateFormat = format
            if let d = f.date(from: v) { return max(0, d.timeIntervalSince1970 - now) }
        }
        return nil
    }

    /// IMF-fixdate, obsolete RFC 850, asctime.
    static let formats = ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"]
}

/// What to do after an attempt.
enum RetryStep: Sendable, Equatable {
    /// Done: report this.
    case finish(Outcome, reason: String?, markDead: Bool)
    /// Try again.
    case retry(RetryAction)
}

/// How to retry.
struct RetryAction: Sendable, Equatable {
    /// A failed attempt (counts toward `maxAttempts`), or a resend of an unprocessed request.
    var counted: Bool
    /// Wait before the retry: exponential backoff (true) or none (false).
    var backoff: Bool = false
    /// `Retry-After` in seconds, a minimum wait.
    var retryAfter: Double? = nil
    /// Stop opening streams on the connection used (GOAWAY, Shutdown, IdleTimeout, …).
    var retireConnection: Bool = false
    /// Mint a new provider JWT first (ExpiredProviderToken).
    var refreshToken: Bool = false
    var reason: String
}

/// Per-push retry bookkeeping.
struct RetryState: Sendable {
    var failedAttempts = 0
    var unprocessedResends = 0
    var refreshedToken = false
    var reconnectedForKey = false
    /// The last backoff delay waited (decorrelated jitter grows from it).
    var lastBackoff: Double?
}
