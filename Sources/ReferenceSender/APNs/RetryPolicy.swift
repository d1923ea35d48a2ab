import Foundation

/// How a single attempt ended, as seen by the retry logic.
enum AttemptResult: Sendable {
    /// The server answered (any status).
    case response(APNsResponse)
    /// No answer: see ``TransportFailure`` for what is known about processing.
    case failure(TransportFailure)
}

/// An APNs answer: status, headers and (for errors) the JSON body.
struct APNsResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status; self.headers = headers; self.body = body
    }

    func header(_ name: String) -> String? {
        headers.first(where: { $0.name.lowercased() == name })?.value
    }

    /// The `reason` of an error body (apns.md §7.1), if it parses.
    var reason: String? {
        guard !body.isEmpty, let json = try? JSON.parse(body) else { return nil }
        return json["reason"]?.stringValue
    }
}

/// A request that got no HTTP answer.
enum TransportFailure: Error, Sendable, Equatable {
    /// The server certainly did not process it (stream above a GOAWAY's last-stream-id,
    /// REFUSED_STREAM): resend on another connection; not a failed attempt (RFC 9113 §8.7).
    case notProcessed(String)
    /// It may or may not have been processed (connection lost mid-flight, stream reset,
    /// timeout): retry with the same apns-id so APNs can drop a duplicate.
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
    }

    /// The policy of a `--variant` (the default policy when it changes no backoff).
    static func forVariant(_ variant: Variant?) -> RetryPolicy {
        var p = RetryPolicy()
        guard let j = variant?.jitter else { return p }
        p.jitter = j
        p.multiplier = 2  // the textbook doubling: these schemes' growth is judged on the envelope
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

/// The decision table: one attempt's result → finish or retry (README G1–G5, A1–A8, A11).
/// Pure, so every row is testable without a network.
struct RetryDecider: Sendable {
    var policy: RetryPolicy
    var mutant: Mutant?

    func decide(_ result: AttemptResult, state: inout RetryState, now: Double) -> RetryStep {
        switch result {
        case .failure(let f):
            switch f {
            case .notProcessed(let r):
                return resend(reason: r, state: &state)
            case .outcomeUnknown(let r), .connectFailed(let r):
                return transient(RetryAction(counted: true, backoff: true, reason: r), state: &state)
            }
        case .response(let resp):
            return decide(resp, state: &state, now: now)
        }
    }

    private func decide(_ r: APNsResponse, state: inout RetryState, now: Double) -> RetryStep {
        let reason = r.reason ?? "HTTP \(r.status)"
        let retryAfter = r.header(APNs.Header.retryAfter).flatMap { RetryAfter.seconds($0, now: now) }
        switch r.status {
        case 200..<300:
            return .finish(.sent, reason: nil, markDead: false)
        case 410:
            return dead(reason: reason, retryAfter: retryAfter, state: &state)
        case 400 where reason == APNsReason.badDeviceToken || reason == APNsReason.deviceTokenNotForTopic:
            return dead(reason: reason, retryAfter: retryAfter, state: &state)
        case 400 where reason == APNsReason.idleTimeout:
            return resend(reason: reason, state: &state)
        case 403 where reason == APNsReason.expiredProviderToken:
            guard !state.refreshedToken else { return .finish(.failed, reason: reason, markDead: false) }
            state.refreshedToken = true
            // Apple: mint a new token and retry; the same connection stays usable (a refresh
            // the server asked for is not a TooManyProviderTokenUpdates update, apns.md §5, A7).
            return .retry(RetryAction(counted: false, refreshToken: true, reason: reason))
        case 403 where reason == APNsReason.unrelatedKeyIdInToken:
            guard !state.reconnectedForKey else { return .finish(.failed, reason: reason, markDead: false) }
            state.reconnectedForKey = true
            return .retry(RetryAction(counted: false, retireConnection: true, reason: reason))
        case 403 where APNsReason.credentialErrors.contains(reason):
            return .finish(.failed, reason: reason, markDead: false)
        case 429 where mutant == .remintOnTokenUpdateError && reason == APNsReason.tooManyProviderTokenUpdates:
            // Planted bug: a new token at once, as if the old one had expired (each retry counted).
            return transient(RetryAction(counted: true, refreshToken: true, reason: reason), state: &state)
        case 429:
            // TooManyRequests: that token only after a delay (A3). TooManyProviderTokenUpdates:
            // keep the current token and wait (A8) — the JWT cache never mints early anyway.
            return transient(RetryAction(counted: true, backoff: true, retryAfter: retryAfter, reason: reason), state: &state)
        case 503 where reason == APNsReason.shutdown:
            return resend(reason: reason, state: &state)
        case 500..<600:
            return transient(RetryAction(counted: true, backoff: true, retryAfter: retryAfter, reason: reason), state: &state)
        case 400..<500:
            return .finish(.rejected, reason: reason, markDead: false)
        default:
            return transient(RetryAction(counted: true, backoff: true, retryAfter: retryAfter, reason: reason), state: &state)
        }
    }

    private func dead(reason: String, retryAfter: Double?, state: inout RetryState) -> RetryStep {
        if mutant == .retryDeadTokens {
            return transient(RetryAction(counted: true, backoff: true, retryAfter: retryAfter, reason: reason), state: &state, isDeadToken: true)
        }
        return .finish(.dead, reason: reason, markDead: true)
    }

    /// Not processed by the server: resend on a fresh connection at once, not a failed attempt.
    private func resend(reason: String, state: inout RetryState) -> RetryStep {
        state.unprocessedResends += 1
        guard state.unprocessedResends <= policy.maxUnprocessedResends else { return .finish(.failed, reason: reason, markDead: false) }
        return .retry(RetryAction(counted: false, retireConnection: true, reason: reason))
    }

    private func transient(_ action: RetryAction, state: inout RetryState, isDeadToken: Bool = false) -> RetryStep {
        if mutant == .neverRetryTransient && !isDeadToken { return .finish(.failed, reason: action.reason, markDead: false) }
        state.failedAttempts += 1
        guard state.failedAttempts < policy.maxAttempts else { return .finish(.failed, reason: action.reason, markDead: false) }
        if let ra = action.retryAfter, ra > policy.maxRetryAfter, mutant != .ignoreRetryAfter {
            return .finish(.failed, reason: action.reason, markDead: false)
        }
        return .retry(action)
    }

    /// Seconds to wait before a retry, after `state.failedAttempts` failed attempts; records
    /// the backoff drawn in `state.lastBackoff`.
    func delay(for action: RetryAction, state: inout RetryState, random: Double) -> Double {
        guard action.backoff else { return 0 }
        if let ra = action.retryAfter {
            if mutant == .ignoreRetryAfter { return 0 }
            let jitter = mutant == .noBackoff ? 0 : drawBackoff(state: &state, random: random)
            return max(ra, jitter)
        }
        if mutant == .noBackoff { return 0 }
        return drawBackoff(state: &state, random: random)
    }

    private func drawBackoff(state: inout RetryState, random: Double) -> Double {
        let d = policy.backoff(retry: state.failedAttempts, previous: state.lastBackoff, random: random)
        state.lastBackoff = d
        return d
    }
}
