import Foundation
import PushDoubleCore

/// One attempt at one recipient: what a provider's judge (``ConformanceProvider``) makes of
/// one recorded request for one of its targets. A request with one target (an APNs push)
/// yields one attempt; a batch (an Expo send of up to 100 messages) yields one per target,
/// all sharing the exchange, its seq, connection and timing.
///
/// The generic checks (Checks/Generic) read attempts only, never a provider's wire format.
public struct Attempt: Sendable {
    /// What the answer means for this recipient, in the driver protocol's provider-neutral terms.
    public enum Classification: String, Sendable, CaseIterable {
        /// The provider took the notification for this recipient.
        case accepted
        /// The token is unusable from now on (never retry, never use again).
        case dead
        /// Refused for good for this message (never retry), the token stays usable.
        case permanent
        /// A request error: must not be resent unchanged (a changed request may be).
        case requestError = "request-error"
        /// Throttled or a server error (429, 5xx, a GOAWAY without an answer): retry later.
        case transient
        /// The fake ended the exchange so that the sender never saw an answer (drop, reset,
        /// truncate, stall): the sender cannot know whether it arrived, so it retries.
        case lostResponse = "lost-response"
        /// Refused for a reason the sender may fix and then retry (e.g. a stale provider
        /// credential); none of the rules above apply.
        case retryable
    }

    /// The server asked the sender to wait without saying how long (no Retry-After).
    public enum BackoffRequest: Sendable, Equatable {
        case none
        /// 429.
        case throttled
        /// 5xx.
        case serverError
    }

    public var provider: ProviderID
    public var exchange: Exchange
    /// Which of the exchange's targets this is (0 for single-target requests).
    public var recipient: Int
    /// The device token (or subscription id) as the request named it.
    public var token: String
    /// The scenario device id (or the token when no device matches).
    public var device: String
    /// Index into `CheckContext.steps` of the send step this attempt belongs to (-1: before any).
    public var step: Int
    public var classification: Attempt.Classification
    /// HTTP status of the answer, nil when none was sent.
    public var status: Int?
    /// The provider's reason string for this recipient, if any.
    public var reason: String?
    /// The Retry-After value of the answer, as sent.
    public var retryAfter: String?
    public var backoff: BackoffRequest
    /// The fake ended the connection with this exchange (drop, GOAWAY, truncate).
    public var endsConnection: Bool
    /// Which connection pool the attempt belongs to (APNs: the environment host).
    public var pool: String
    /// When the request head arrived.
    public var start: Date
    /// When the stream was answered (including a fault's delay).
    public var end: Date
    /// The request minus what legitimately changes between identical retries (ids, credentials).
    public var comparableRequest: String

    public var seq: UInt64 { exchange.seq }
    public var connection: UInt64 { exchange.transport.connection.id }
    public var stream: UInt32 { exchange.transport.streamID }
    /// The fault action the fake took ("respond" when it answered normally).
    public var action: String { exchange.response.action }

    public var accepted: Bool { classification == .accepted }
    public var deadToken: Bool { classification == .dead }
    /// Must never be retried.
    public var neverRetry: Bool { classification == .dead || classification == .permanent }
    /// Must not be resent unchanged.
    public var requestError: Bool { classification == .requestError }
    /// Calls for a retry.
    public var transientFailure: Bool { classification == .transient || classification == .lostResponse }
    /// Seconds Retry-After asked for, counted from the answer; nil when absent or unparseable.
    public var retryAfterSeconds: Double? { retryAfter.flatMap { PushDoubleConformance.retryAfterSeconds($0, now: end) } }

    public init(provider: ProviderID, exchange: Exchange, recipient: Int = 0, token: String, device: String, step: Int,
                classification: Attempt.Classification, status: Int?, reason: String?, retryAfter: String?,
                backoff: BackoffRequest, endsConnection: Bool, pool: String, start: Date, end: Date, comparableRequest: String) {
        self.provider = provider; self.exchange = exchange; self.recipient = recipient; self.token = token; self.device = device
        self.step = step; self.classification = classification; self.status = status; self.reason = reason
        self.retryAfter = retryAfter; self.backoff = backoff; self.endsConnection = endsConnection; self.pool = pool
        self.start = start; self.end = end; self.comparableRequest = comparableRequest
    }
}

/// One target of a recorded request, as a provider's judge starts from it.
public struct AttemptTarget: Sendable, Equatable {
    /// Index among the exchange's targets (``Attempt/recipient``).
    public var recipient: Int
    public var token: String
    /// The registered device the core resolved the token to, if any.
    public var deviceID: String?
    /// The fake's per-recipient verdict of a multi-recipient request; nil for a
    /// single-target request (its HTTP answer is the verdict).
    public var accepted: Bool?
    /// The per-recipient reason of a multi-recipient request.
    public var reason: String?

    /// The targets of `exchange`: one per recorded recipient (``Exchange/recipients``, an
    /// Expo batch), else its single token (an APNs push), else none.
    public static func of(_ exchange: Exchange) -> [AttemptTarget] {
        if let rs = exchange.recipients, !rs.isEmpty {
            return rs.enumerated().map { i, r in
                AttemptTarget(recipient: i, token: r.token, deviceID: r.deviceID, accepted: r.accepted, reason: r.reason)
            }
        }
        guard let t = exchange.token else { return [] }
        return [AttemptTarget(recipient: 0, token: t, deviceID: exchange.deviceID, accepted: nil, reason: nil)]
    }
}

/// What a provider answers, in the words the generic classifier needs (one table per
/// provider, each fact cited in the provider's docs page).
public struct ProviderFacts: Sendable {
    /// Reasons that mean the token is unusable.
    public var deadReasons: Set<String>
    /// Statuses that mean the token is unusable whatever the reason.
    public var deadStatuses: Set<Int>
    /// Reasons the sender must never retry.
    public var neverRetryReasons: Set<String>
    /// Statuses the sender must never retry.
    public var neverRetryStatuses: Set<Int>
    /// 4xx reasons that are not request errors (the sender may retry, perhaps after a fix).
    public var retryableReasons: Set<String>
    /// 429/5xx reasons that ask for an immediate resend elsewhere rather than a backoff.
    public var resendAtOnceReasons: Set<String>

    public init(deadReasons: Set<String>, deadStatuses: Set<Int> = [], neverRetryReasons: Set<String>,
                neverRetryStatuses: Set<Int> = [], retryableReasons: Set<String>, resendAtOnceReasons: Set<String> = []) {
        self.deadReasons = deadReasons; self.deadStatuses = deadStatuses; self.neverRetryReasons = neverRetryReasons
        self.neverRetryStatuses = neverRetryStatuses; self.retryableReasons = retryableReasons
        self.resendAtOnceReasons = resendAtOnceReasons
    }

    /// Fault actions (the core's, every provider's) after which the sender never got the answer.
    public static let lostResponseActions: Set<String> = ["drop", "reset", "truncate", "stall"]
    /// Fault actions that end the connection.
    public static let connectionEndingActions: Set<String> = ["drop", "goaway", "truncate"]

    /// The classification of one recipient's answer.
    public func classify(status: Int?, reason: String?, action: String) -> Attempt.Classification {
        if Self.lostResponseActions.contains(action) { return .lostResponse }
        guard let s = status else { return action == "goaway" ? .transient : .retryable }
        if (200..<300).contains(s) { return .accepted }
        if deadStatuses.contains(s) || reason.map(deadReasons.contains) == true { return .dead }
        if neverRetryStatuses.contains(s) || reason.map(neverRetryReasons.contains) == true { return .permanent }
        if (400..<500).contains(s) && s != 429 && reason.map(retryableReasons.contains) != true { return .requestError }
        if s == 429 || s >= 500 { return .transient }
        return .retryable
    }

    /// Whether the answer asked for a backoff of unstated length.
    public func backoff(status: Int?, reason: String?, retryAfter: String?, classification: Attempt.Classification) -> Attempt.BackoffRequest {
        guard let s = status, classification != .accepted, retryAfter == nil,
              reason.map(resendAtOnceReasons.contains) != true else { return .none }
        if s >= 500 { return .serverError }
        return s == 429 ? .throttled : .none
    }
}

/// Every attempt of a case (of every registered provider, or of the one an old id scopes
/// the check to), grouped the way the generic checks need it.
public struct AttemptLog: Sendable {
    /// In arrival order (start, seq, recipient).
    public var attempts: [Attempt]
    /// Time zero of the case (the first step's start), for evidence.
    public var t0: Date

    public init(_ ctx: CheckContext) {
        let judges = ConformanceProviders.all.filter { ctx.scope == nil || $0.provider == ctx.scope }
        self.init(judges.flatMap { $0.attempts(ctx) }, t0: Self.timeZero(ctx))
    }

    public init(_ attempts: [Attempt], t0: Date) {
        self.attempts = attempts.sorted { ($0.start, $0.seq, $0.recipient) < ($1.start, $1.seq, $1.recipient) }
        self.t0 = t0
    }

    /// The first step's start, else the first exchange's arrival.
    public static func timeZero(_ ctx: CheckContext) -> Date {
        ctx.steps.first?.startedAt ?? ctx.history.first?.transport.headReceivedAt ?? Date(timeIntervalSince1970: 0)
    }

    /// The send step an exchange that arrived at `start` belongs to: the last one started before it (-1: none).
    public static func step(at start: Date, _ steps: [StepRecord]) -> Int {
        steps.last(where: { $0.type == "send" && $0.startedAt <= start })?.index ?? -1
    }

    /// Attempts per (send step, device), each list in arrival order: the attempts at one message.
    public var groups: [[Attempt]] { Self.messages(attempts, step: \.step, device: \.device) }

    /// Items per (send step, device), in first-seen order, each list in the given order.
    public static func messages<T>(_ items: [T], step: (T) -> Int, device: (T) -> String) -> [[T]] {
        var order: [String] = []
        var map: [String: [T]] = [:]
        for a in items {
            let k = "\(step(a))|\(device(a))"
            if map[k] == nil { order.append(k) }
            map[k, default: []].append(a)
        }
        return order.map { map[$0]! }
    }

    /// "d1 conn 3 stream 5 → 503 ServiceUnavailable at +0.512 s"
    public func describe(_ a: Attempt) -> String {
        Self.describe(device: a.device, exchange: a.exchange, status: a.status, reason: a.reason, at: a.start, t0: t0)
    }
    /// The evidence line of one recipient of `exchange` (shared by the provider folders' own logs).
    public static func describe(device: String, exchange: Exchange, status: Int?, reason: String?, at start: Date, t0: Date) -> String {
        let action = exchange.response.action
        var answer: String
        if let s = status { answer = "\(s)" + (reason.map { " " + $0 } ?? "") } else { answer = action }
        if action != "respond" && status != nil { answer += " (\(action))" }
        return "\(device) conn \(exchange.transport.connection.id) stream \(exchange.transport.streamID) → \(answer) at "
            + time(start, t0: t0)
    }
    public func time(_ d: Date) -> String { Self.time(d, t0: t0) }
    static func time(_ d: Date, t0: Date) -> String { String(format: "+%.3f s", d.timeIntervalSince(t0)) }
    public func evidence(_ a: Attempt, _ note: String = "") -> Evidence {
        Evidence(describe(a) + (note.isEmpty ? "" : "; " + note), seqs: [a.seq])
    }
}

/// Parses a Retry-After value: delta-seconds or an HTTP-date (RFC 9110 §10.2.3), as the
/// number of seconds to wait counted from `now`.
public func retryAfterSeconds(_ value: String, now: Date) -> Double? {
    let v = value.trimmingCharacters(in: .whitespaces)
    if let n = Int(v), n >= 0 { return Double(n) }
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.timeZone = TimeZone(identifier: "GMT")
    for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
        f.dateFormat = format
        if let d = f.date(from: v) { return max(0, d.timeIntervalSince(now)) }
    }
    return nil
}
