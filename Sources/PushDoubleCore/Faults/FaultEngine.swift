import Foundation
import PushDoubleTransport
import Synchronization

/// The facts about a request that fault rules match on.
public struct FaultRequest: Sendable, Equatable {
    public var provider: ProviderID
    public var endpoint: String
    public var token: String?
    /// Registered device id, if the token resolved to one.
    public var deviceID: String?
    public var topic: String?
    public var environment: String?
    /// The other recipients of a multi-recipient request (tokens and registered device ids):
    /// a rule naming a token or device matches when any recipient is it.
    public var otherTokens: [String] = []
    public var otherDeviceIDs: [String] = []
    /// The broadcast channel the request addresses (``Admission/channel``).
    public var channel: String? = nil
    public init(provider: ProviderID, endpoint: String, token: String? = nil, deviceID: String? = nil,
                topic: String? = nil, environment: String? = nil) {
        self.provider = provider; self.endpoint = endpoint; self.token = token; self.deviceID = deviceID
        self.topic = topic; self.environment = environment
    }
}

/// A rule that fired for a request: what to do, and why (for the history).
public struct FaultHit: Sendable, Equatable {
    public var ruleID: String
    /// The action to apply. For a quota this is already the rate-limit response with its
    /// `Retry-After` filled in.
    public var action: FaultAction
    /// True when a quota fired (history stage `.quota`).
    public var isQuota: Bool
    /// For quotas: the truthful Retry-After in whole seconds.
    public var retryAfterSeconds: Int?
}

/// What the rules decided for one request: the rule that fired, if any, and whether the
/// normal answer waits for a GOAWAY that a rule is about to send.
public struct FaultDecision: Sendable, Equatable {
    public var hit: FaultHit?
    /// No rule fired, but a `goaway` rule with `nth` matched this request on its way to its
    /// nth: the answer is kept back until the connection's GOAWAY (or
    /// ``FaultEngine/goAwayHoldSeconds``), so the client still has this processed stream
    /// open when the GOAWAY arrives, whatever the timing (RFC 9113 §6.8).
    public var holdForGoAway: Bool
}

/// A rule with its live counters, as the admin API shows it.
public struct FaultRuleStatus: Sendable, Encodable, Equatable {
    public var rule: FaultRule
    /// Requests that matched the static criteria so far.
    public var matched: Int
    /// Times the rule fired.
    public var fired: Int
    /// True while ``fired`` is 0: a rule that never fired is listed as such by the admin API
    /// and the kits' failure reports (a test whose fault never hit tested nothing).
    public var neverFired: Bool { fired == 0 }
    /// When the rule was loaded: time windows and fixed-window quotas count from here.
    public var loadedAt: Date

    enum CodingKeys: String, CodingKey { case rule, matched, fired, neverFired, loadedAt }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(rule, forKey: .rule)
        try c.encode(matched, forKey: .matched)
        try c.encode(fired, forKey: .fired)
        try c.encode(neverFired, forKey: .neverFired)
        try c.encode(DateFormats.iso8601(loadedAt), forKey: .loadedAt)
    }
}

/// Evaluates fault rules and quotas, in order, first firing rule wins.
///
/// Counting: every rule counts every request that meets its static criteria (so `nth: 2`
/// means the second such request, whatever earlier rules did with the first); only rules
/// up to the firing one test `nth`/`everyNth`/`times`, draw from the generator or
/// consume quota.
///
/// Thread-safe: one lock per evaluation, held only to read and update counters, quota
/// state and the seeded generator; rendering the chosen action happens outside. With no
/// rule loaded an evaluation takes no lock and builds no ``FaultRequest`` (``ruleCount``).
///
/// Determinism: the generator (SplitMix64) is drawn only for a request that reached a
/// rule's probability test, so the same seed and the same request sequence give the same
/// answers. ``reseed(_:)`` restarts the sequence.
public final class FaultEngine: Sendable {
    private struct Bucket { var tokens: Double; var last: Date }
    private struct Window { var index: Int64; var count: Int }

    private struct RuleState {
        var rule: FaultRule
        var loadedAt: Date
        var matched = 0
        var fired = 0
        var window: [String: Window] = [:]
        var bucket: [String: Bucket] = [:]
    }

    private struct State {
        var rules: [RuleState] = []
        /// Endpoints a rule hits only when it names them (``setNamedOnlyEndpoints(_:)``).
        var namedOnly: Set<String> = []
        var rng: SplitMix64
        var seed: UInt64
    }

    /// Per-token quota state is forgotten beyond this many tokens per rule (bounded memory).
    public static let maxQuotaKeys = 65_536

    private let state: Locked<State>
    /// `state.rules.count`, stored under the lock after every change and read without it.
    private let ruleCount = Atomic<Int>(0)
    public let clock: any DoubleClock

    public init(clock: any DoubleClock = SystemClock(), seed: UInt64 = 0) {
        self.clock = clock
        state = Locked(State(rng: SplitMix64(seed: seed), seed: seed))
    }

    // MARK: administration

    /// Appends a rule (evaluated after the existing ones). Throws if the id is taken.
    public func add(_ rule: FaultRule) throws {
        let now = clock.now()
        try changeRules { s in
            if s.rules.contains(where: { $0.rule.id == rule.id }) { throw FaultEngineError.duplicateID(rule.id) }
            s.rules.append(RuleState(rule: rule, loadedAt: now))
        }
    }

    /// Appends several rules atomically (none are added if one id is taken).
    public func add(contentsOf rules: [FaultRule]) throws {
        let now = clock.now()
        try changeRules { s in
            var ids = Set(s.rules.map(\.rule.id))
            for r in rules where !ids.insert(r.id).inserted { throw FaultEngineError.duplicateID(r.id) }
            s.rules.append(contentsOf: rules.map { RuleState(rule: $0, loadedAt: now) })
        }
    }

    @discardableResult
    public func remove(id: String) -> Bool {
        changeRules { s in
            guard let i = s.rules.firstIndex(where: { $0.rule.id == id }) else { return false }
            s.rules.remove(at: i)
            return true
        }
    }

    /// Replaces the rule `id` in place (same position in the evaluation order) with `rule`,
    /// whose id may differ if no other rule has it. Its counters, quota state and load time
    /// start afresh: an edited rule is a new rule. Returns false if there is no rule `id`.
    @discardableResult
    public func replace(id: String, with rule: FaultRule) throws -> Bool {
        let now = clock.now()
        return try changeRules { s in
            guard let i = s.rules.firstIndex(where: { $0.rule.id == id }) else { return false }
            if rule.id != id, s.rules.contains(where: { $0.rule.id == rule.id }) { throw FaultEngineError.duplicateID(rule.id) }
            s.rules[i] = RuleState(rule: rule, loadedAt: now)
            return true
        }
    }

    /// Switches the rule `id` on or off, keeping its counters. Returns false if there is no rule `id`.
    @discardableResult
    public func setEnabled(id: String, _ enabled: Bool) -> Bool {
        changeRules { s in
            guard let i = s.rules.firstIndex(where: { $0.rule.id == id }) else { return false }
            s.rules[i].rule.enabled = enabled
            return true
        }
    }

    /// Rules in evaluation order, with their counters.
    public func list() -> [FaultRuleStatus] {
        state.withLock { s in s.rules.map { FaultRuleStatus(rule: $0.rule, matched: $0.matched, fired: $0.fired, loadedAt: $0.loadedAt) } }
    }

    public func rule(id: String) -> FaultRuleStatus? {
        list().first { $0.rule.id == id }
    }

    /// Removes every rule (or those whose `match.provider` is `provider`) and restarts the
    /// generator from the current seed.
    public func reset(provider: ProviderID? = nil) {
        changeRules { s in
            if let p = provider { s.rules.removeAll { $0.rule.match.provider == p } } else { s.rules.removeAll() }
            s.rng = SplitMix64(seed: s.seed)
        }
    }

    /// The endpoints a rule without `match.endpoint` does not hit: the providers' non-send
    /// endpoints (token, receipts, …; ``NameCatalogue/namedOnlyEndpoints``). Empty = every
    /// endpoint, for an engine used without provider catalogues.
    public func setNamedOnlyEndpoints(_ endpoints: Set<String>) {
        state.withLock { $0.namedOnly = endpoints }
    }

    /// Sets a new seed and restarts the generator.
    public func reseed(_ seed: UInt64) {
        state.withLock { s in s.seed = seed; s.rng = SplitMix64(seed: seed) }
    }

    public var seed: UInt64 { state.withLock { $0.seed } }

    /// Runs `change` on the state under the lock, then publishes the rule count.
    private func changeRules<R>(_ change: (inout State) throws -> R) rethrows -> R {
        try state.withLock { s in
            defer { ruleCount.store(s.rules.count, ordering: .releasing) }
            return try change(&s)
        }
    }

    // MARK: request path

    /// The first rule that fires for `request`, updating counters and quota state.
    /// `rateLimitReason` is the provider's reason for a quota without its own reason.
    /// `request` is made only when a rule is loaded.
    public func evaluate(_ request: @autoclosure () -> FaultRequest, rateLimitReason: String? = nil, now: Date? = nil) -> FaultHit? {
        decision(request(), rateLimitReason: rateLimitReason, now: now).hit
    }

    /// Longest a processed answer waits for a pending GOAWAY rule (``FaultDecision/holdForGoAway``):
    /// a sender that pipelines its batch reaches the rule's nth request well within it; a
    /// sender that waits for each answer before the next loses this much per held push.
    public static let goAwayHoldSeconds = 0.25

    /// ``evaluate(_:rateLimitReason:now:)``, also saying whether the normal answer is held
    /// for a GOAWAY rule that has not reached its nth yet.
    public func decision(_ request: @autoclosure () -> FaultRequest, rateLimitReason: String? = nil, now: Date? = nil) -> FaultDecision {
        guard ruleCount.load(ordering: .acquiring) > 0 else { return FaultDecision(hit: nil, holdForGoAway: false) }
        let request = request()
        let now = now ?? clock.now()
        return state.withLock { s -> FaultDecision in
            var hit: FaultHit? = nil
            var goAwayPending = false
            for i in s.rules.indices {
                guard Self.matchesStatically(s.rules[i], request, namedOnly: s.namedOnly, now: now) else { continue }
                s.rules[i].matched = s.rules[i].matched.saturatingIncrement
                if hit == nil {
                    hit = Self.decide(&s.rules[i], request, now: now, rng: &s.rng, rateLimitReason: rateLimitReason)
                }
                goAwayPending = goAwayPending || Self.awaitsItsGoAway(s.rules[i])
            }
            return FaultDecision(hit: hit, holdForGoAway: hit == nil && goAwayPending)
        }
    }

    /// A `goaway` rule counting towards its `nth` (not there yet, not used up).
    private static func awaitsItsGoAway(_ r: RuleState) -> Bool {
        guard case .goAway = r.rule.action, let n = r.rule.match.nth, r.matched < n else { return false }
        if let t = r.rule.times, r.fired >= t { return false }
        return true
    }

    /// The static criteria (none for a switched-off rule): provider, endpoint (a named-only endpoint only when named), token,
    /// device, topic, environment, channel, time window.
    private static func matchesStatically(_ r: RuleState, _ q: FaultRequest, namedOnly: Set<String>, now: Date) -> Bool {
        guard r.rule.enabled else { return false }
        let m = r.rule.match
        if let p = m.provider, p != q.provider { return false }
        if let e = m.endpoint { if e != q.endpoint { return false } } else if namedOnly.contains(q.endpoint) { return false }
        if let t = m.token, t != q.token, !q.otherTokens.contains(t) { return false }
        if let d = m.device, d != q.deviceID, !q.otherDeviceIDs.contains(d) { return false }
        if let t = m.topic, t != q.topic { return false }
        if let e = m.environment, e != q.environment { return false }
        if let c = m.channel, c != q.channel { return false }
        let elapsed = now.timeIntervalSince(r.loadedAt)
        if let f = m.from, elapsed < f { return false }
        if let u = m.until, elapsed >= u { return false }
        return true
    }

    /// For a statically matching request (already counted): nth / everyNth, times,
    /// probability, quota state.
    private static func decide(_ r: inout RuleState, _ q: FaultRequest, now: Date, rng: inout SplitMix64,
                               rateLimitReason: String?) -> FaultHit? {
        let m = r.rule.match
        if let n = m.nth, r.matched != n { return nil }
        if let n = m.everyNth, r.matched % n != 0 { return nil }
        if let t = r.rule.times, r.fired >= t { return nil }
        if let p = m.probability, !(rng.nextUnit() < p) { return nil }

        if case .quota(let quota) = r.rule.action {
            guard let wait = consume(&r, quota, key: quota.per == .token ? (q.token ?? "") : "", now: now) else { return nil }
            r.fired = r.fired.saturatingIncrement
            let spec = ResponseSpec(reason: quota.reason ?? rateLimitReason, status: quota.status, retryAfter: .seconds(wait))
            return FaultHit(ruleID: r.rule.id, action: .respond(spec), isQuota: true, retryAfterSeconds: wait)
        }
        r.fired = r.fired.saturatingIncrement
        return FaultHit(ruleID: r.rule.id, action: r.rule.action, isQuota: false, retryAfterSeconds: nil)
    }

    /// Counts one request against a quota: nil if allowed, else the whole seconds until the
    /// next request would be allowed (at least 1, at most ``InputLimits/retryAfterSeconds``).
    ///
    /// The decoder keeps the numbers in ``InputLimits``; the arithmetic here saturates
    /// anyway (a rule built in code, a clock set far away), so it never traps.
    private static func consume(_ r: inout RuleState, _ quota: QuotaSpec, key: String, now: Date) -> Int? {
        let elapsed = now.timeIntervalSince(r.loadedAt)
        let retryRange = 1...InputLimits.retryAfterSeconds.upperBound
        switch quota.kind {
        case .fixedWindow(let limit, let seconds):
            let index = Saturating.int64((max(0, elapsed) / seconds).rounded(.down))
            var w = r.window[key] ?? Window(index: index, count: 0)
            if w.index != index { w = Window(index: index, count: 0) }
            if w.count < limit {
                w.count += 1
                if r.window.count >= maxQuotaKeys && r.window[key] == nil { r.window.removeAll() }
                r.window[key] = w
                return nil
            }
            let resetAt = Double(index.saturatingIncrement) * seconds
            return Saturating.int((resetAt - elapsed - 1e-9).rounded(.up), in: retryRange)
        case .tokenBucket(let rate, let burst):
            var b = r.bucket[key] ?? Bucket(tokens: Double(burst), last: now)
            b.tokens = min(Double(burst), b.tokens + max(0, now.timeIntervalSince(b.last)) * rate)
            b.last = now
            defer {
                if r.bucket.count >= maxQuotaKeys && r.bucket[key] == nil { r.bucket.removeAll() }
                r.bucket[key] = b
            }
            if b.tokens >= 1 - 1e-9 {
                b.tokens = max(0, b.tokens - 1)
                return nil
            }
            return Saturating.int(((1 - b.tokens) / rate - 1e-9).rounded(.up), in: retryRange)
        }
    }
}

/// Why a fault rule could not be added.
public enum FaultEngineError: Error, Equatable, CustomStringConvertible {
    case duplicateID(String)
    public var description: String {
        switch self { case .duplicateID(let id): return "a fault rule with id \"\(id)\" already exists" }
    }
}

extension FixedWidthInteger {
    /// `self + 1`, staying at `max` instead of trapping.
    var saturatingIncrement: Self { self == .max ? self : self + 1 }
}
