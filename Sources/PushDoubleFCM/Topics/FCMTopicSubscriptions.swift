import Foundation
import Synchronization
import PushDoubleCore

/// Which registration tokens are subscribed to which topics: state of the double that the
/// topic-management APIs change (docs/fcm.md "Topic subscriptions": the Instance ID API and
/// FCM's `topicSubscriptions` resource) and a topic or condition send reads (its audience).
///
/// Two sources, one answer: a registered FCM device may declare topics (its `topics`
/// attribute, e.g. in a scenario file); the APIs add subscriptions for any token and remove
/// declared or added ones. ``topics(of:declared:)`` is the one place that combines them.
/// Thread-safe (one `Mutex`); bounded by ``maxTokens`` tokens with API-made changes.
public final class FCMTopicSubscriptions: Sendable {
    /// Topics one app instance may be subscribed to (docs/fcm.md "Topic subscriptions": 2000).
    public static let maxTopicsPerToken = 2000
    /// Most tokens whose subscriptions the APIs changed; beyond it the oldest token is forgotten.
    public let maxTokens: Int

    /// The API-made changes of one token: topics added (with when) and declared topics removed.
    struct Changes: Sendable {
        var added: [String: Double] = [:]
        var addedOrder: [String] = []
        var removed: Set<String> = []
        var isEmpty: Bool { added.isEmpty && removed.isEmpty }
    }
    struct State: Sendable {
        var byToken: [String: Changes] = [:]
        var order: [String] = []
    }
    private let state = Mutex(State())

    public init(maxTokens: Int = 100_000) { self.maxTokens = maxTokens }

    /// What a subscribe did.
    public enum AddResult: Sendable, Equatable {
        case added, alreadySubscribed, tooManyTopics
    }

    /// Subscribes `token` to `topic` (`declared`: the token's device's declared topics).
    public func subscribe(_ token: String, to topic: String, declared: [String], now: Double) -> AddResult {
        state.withLock { s in
            var c = s.byToken[token] ?? Changes()
            if Self.effective(declared: declared, c).contains(topic) { return .alreadySubscribed }
            guard Self.effective(declared: declared, c).count < Self.maxTopicsPerToken else { return .tooManyTopics }
            if c.removed.remove(topic) == nil || !declared.contains(topic) {
                c.added[topic] = now
                c.addedOrder.append(topic)
            }
            store(c, for: token, in: &s)
            return .added
        }
    }

    /// Unsubscribes `token` from `topic`; true when it was subscribed.
    @discardableResult
    public func unsubscribe(_ token: String, from topic: String, declared: [String]) -> Bool {
        state.withLock { s in
            var c = s.byToken[token] ?? Changes()
            guard Self.effective(declared: declared, c).contains(topic) else { return false }
            if c.added.removeValue(forKey: topic) != nil { c.addedOrder.removeAll { $0 == topic } }
            if declared.contains(topic) { c.removed.insert(topic) }
            store(c, for: token, in: &s)
            return true
        }
    }

    /// The topics `token` is subscribed to, in order (declared first), each with the time an
    /// API added it (nil for a declared one).
    public func topics(of token: String, declared: [String]) -> [(topic: String, addedAt: Double?)] {
        let c = state.withLock { $0.byToken[token] } ?? Changes()
        var out: [(String, Double?)] = declared.filter { !c.removed.contains($0) }.map { ($0, nil) }
        var seen = Set(out.map(\.0))
        for t in c.addedOrder where seen.insert(t).inserted { out.append((t, c.added[t])) }
        return out
    }

    /// Tokens with API-made subscriptions that are no registered device's (open world), in
    /// the order they were first changed.
    public func tokensWithChanges() -> [String] { state.withLock { $0.order } }

    /// Forgets every API-made change (declared topics count again).
    public func reset() { state.withLock { $0 = State() } }

    private static func effective(declared: [String], _ c: Changes) -> Set<String> {
        Set(declared).subtracting(c.removed).union(c.added.keys)
    }

    private func store(_ c: Changes, for token: String, in s: inout State) {
        if c.isEmpty {
            if s.byToken.removeValue(forKey: token) != nil { s.order.removeAll { $0 == token } }
            return
        }
        if s.byToken.updateValue(c, forKey: token) == nil {
            s.order.append(token)
            if s.order.count > maxTokens { s.byToken.removeValue(forKey: s.order.removeFirst()) }
        }
    }
}
