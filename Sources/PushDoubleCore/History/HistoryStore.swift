import Foundation

/// Which exchanges a history query returns. Every field present must hold.
public struct HistoryQuery: Sendable, Equatable {
    public var provider: ProviderID?
    /// Matches the registered device id or the token.
    public var device: String?
    public var token: String?
    public var endpoint: String?
    /// receivedAt ≥ since.
    public var since: Date?
    /// receivedAt < until.
    public var until: Date?
    /// seq > afterSeq.
    public var afterSeq: UInt64?
    /// At most this many (the oldest first).
    public var limit: Int?

    public init(provider: ProviderID? = nil, device: String? = nil, token: String? = nil, endpoint: String? = nil,
                since: Date? = nil, until: Date? = nil, afterSeq: UInt64? = nil, limit: Int? = nil) {
        self.provider = provider; self.device = device; self.token = token; self.endpoint = endpoint
        self.since = since; self.until = until; self.afterSeq = afterSeq; self.limit = limit
    }

    public func matches(_ e: Exchange) -> Bool {
        if let p = provider, e.provider != p { return false }
        if let d = device, e.deviceID != d && e.token != d { return false }
        if let t = token, e.token != t { return false }
        if let ep = endpoint, e.endpoint != ep { return false }
        if let s = since, e.receivedAt < s { return false }
        if let u = until, e.receivedAt >= u { return false }
        if let a = afterSeq, e.seq <= a { return false }
        return true
    }
}

/// Handle returned by ``HistoryStore/subscribe(_:)``; pass it to `unsubscribe`.
public struct HistorySubscription: Hashable, Sendable { public let id: UInt64 }

/// The append-only record of every exchange, bounded by a cap with a visible `dropped` count.
///
/// Thread-safe. `append` takes the lock once, assigns the sequence number and stores the
/// record as a struct (no encoding on the request path); subscribers are called after the
/// lock is released, on the appending thread, so they must be quick and thread-safe.
/// When the cap is reached the oldest exchange is dropped and `dropped` grows: never silent.
public final class HistoryStore: Sendable {
    private struct State {
        var ring: [Exchange] = []
        /// Index in `ring` of the oldest element once the ring is full.
        var head = 0
        var nextSeq: UInt64 = 1
        var dropped: UInt64 = 0
        var cap: Int
        var subscribers: [UInt64: @Sendable (Exchange) -> Void] = [:]
        var nextSubscriber: UInt64 = 1
    }

    private let state: Locked<State>

    /// - Parameter cap: most exchanges kept (older ones are dropped and counted).
    public init(cap: Int = 100_000) {
        state = Locked(State(cap: max(1, cap)))
    }

    /// Stores `exchange` with the next sequence number (its `seq` is overwritten) and
    /// returns that number.
    @discardableResult
    public func append(_ exchange: Exchange) -> UInt64 {
        var e = exchange
        let (seq, subs): (UInt64, [@Sendable (Exchange) -> Void]) = state.withLock { s in
            e.seq = s.nextSeq
            s.nextSeq += 1
            if s.ring.count < s.cap {
                s.ring.append(e)
            } else {
                s.ring[s.head] = e
                s.head = (s.head + 1) % s.cap
                s.dropped += 1
            }
            return (e.seq, s.subscribers.isEmpty ? [] : Array(s.subscribers.values))
        }
        for f in subs { f(e) }
        return seq
    }

    /// The next sequence number `append` will assign.
    public var nextSeq: UInt64 { state.withLock { $0.nextSeq } }
    /// Exchanges dropped because of the cap since the last `clear`.
    public var dropped: UInt64 { state.withLock { $0.dropped } }
    public var count: Int { state.withLock { $0.ring.count } }
    public var cap: Int { state.withLock { $0.cap } }

    /// Exchanges matching `query`, oldest first.
    public func query(_ query: HistoryQuery = HistoryQuery()) -> [Exchange] {
        state.withLock { s in
            var out: [Exchange] = []
            let n = s.ring.count
            for k in 0..<n {
                let e = s.ring[(s.head + k) % n]
                if query.matches(e) {
                    out.append(e)
                    if let l = query.limit, out.count >= l { break }
                }
            }
            return out
        }
    }

    /// Every exchange, oldest first.
    public var all: [Exchange] { query() }

    /// Forgets every exchange and the dropped count; sequence numbers keep increasing.
    public func clear() {
        state.withLock { s in s.ring.removeAll(keepingCapacity: false); s.head = 0; s.dropped = 0 }
    }

    /// Forgets the exchanges of one provider (the dropped count is kept).
    public func clear(provider: ProviderID) {
        state.withLock { s in
            let n = s.ring.count
            var kept: [Exchange] = []
            for k in 0..<n { let e = s.ring[(s.head + k) % n]; if e.provider != provider { kept.append(e) } }
            s.ring = kept; s.head = 0
        }
    }

    /// Calls `handler` for every exchange appended from now on (on the appending thread).
    public func subscribe(_ handler: @escaping @Sendable (Exchange) -> Void) -> HistorySubscription {
        state.withLock { s in
            let id = s.nextSubscriber
            s.nextSubscriber += 1
            s.subscribers[id] = handler
            return HistorySubscription(id: id)
        }
    }

    /// Atomically returns the stored exchanges matching `query` and subscribes `handler`
    /// for later ones, so a live stream neither misses nor repeats an exchange.
    public func subscribe(backlog query: HistoryQuery, _ handler: @escaping @Sendable (Exchange) -> Void) -> ([Exchange], HistorySubscription) {
        state.withLock { s in
            var out: [Exchange] = []
            let n = s.ring.count
            for k in 0..<n { let e = s.ring[(s.head + k) % n]; if query.matches(e) { out.append(e) } }
            let id = s.nextSubscriber
            s.nextSubscriber += 1
            s.subscribers[id] = handler
            return (out, HistorySubscription(id: id))
        }
    }

    public func unsubscribe(_ subscription: HistorySubscription) {
        state.withLock { _ = $0.subscribers.removeValue(forKey: subscription.id) }
    }

    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }
}
