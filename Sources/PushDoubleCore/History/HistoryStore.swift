import Foundation
import Synchronization
import PushDoubleTransport

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

/// An exchange as the request path records it: references only (the request as received,
/// the action as returned), no copies, no text conversion, no encoding. It becomes an
/// ``Exchange`` when someone reads the history.
public struct ExchangeRecord: Sendable {
    public var provider: ProviderID
    public var endpoint: String
    /// The request as received (kept packed in one buffer, see ``PackedRequest``).
    public var request: HTTPRequest {
        get { packedRequest.request }
        set { packedRequest = PackedRequest(newValue) }
    }
    private var packedRequest: PackedRequest
    public var token: String?
    public var topic: String?
    public var environment: String?
    public var deviceID: String?
    public var auth: AuthIdentity?
    public var notification: JSONValue?
    /// Makes the notification from `request` on read when `notification` is nil
    /// (see ``Admission/notificationMaker``).
    public var notificationMaker: (@Sendable (HTTPRequest) -> JSONValue?)?
    /// What was done (rendered to a ``RecordedResponse`` on read).
    public var action: ResponseAction
    public var reason: String?
    /// Prefix for the recorded response's detail (e.g. "fault f1: delay").
    public var detail: String?
    public var decidedBy: Decision
    public var receivedAt: Date
    public var respondedAt: Date

    public init(provider: ProviderID, endpoint: String, request: HTTPRequest, token: String?, topic: String?, environment: String?,
                deviceID: String?, auth: AuthIdentity?, notification: JSONValue?, action: ResponseAction, reason: String?,
                detail: String?, decidedBy: Decision, receivedAt: Date, respondedAt: Date,
                notificationMaker: (@Sendable (HTTPRequest) -> JSONValue?)? = nil) {
        self.notificationMaker = notificationMaker
        self.provider = provider; self.endpoint = endpoint; self.packedRequest = PackedRequest(request); self.token = token; self.topic = topic
        self.environment = environment; self.deviceID = deviceID; self.auth = auth; self.notification = notification
        self.action = action; self.reason = reason; self.detail = detail; self.decidedBy = decidedBy
        self.receivedAt = receivedAt; self.respondedAt = respondedAt
    }

    /// The full history record.
    public func exchange(seq: UInt64) -> Exchange {
        var response = RecordedResponse(action)
        response.reason = reason
        if let detail { response.detail = response.detail.map { detail + "; " + $0 } ?? detail }
        let request = packedRequest.request
        return Exchange(seq: seq, provider: provider, endpoint: endpoint, transport: request.info, request: RecordedRequest(request),
                        token: token, topic: topic, environment: environment, deviceID: deviceID, auth: auth,
                        notification: notification ?? notificationMaker?(request), response: response, decidedBy: decidedBy,
                        receivedAt: receivedAt, respondedAt: respondedAt)
    }
}

/// The append-only record of every exchange, bounded by a cap with a visible `dropped` count.
///
/// Thread-safe. `append` takes the lock once, assigns the sequence number and stores the
/// record as it came (an ``ExchangeRecord`` holds references only); ``Exchange`` values and
/// JSON are made when the history is read. An exchange evicted by the cap is released
/// after the lock. Subscribers are called after the lock is released, on the appending
/// thread, so they must be quick and thread-safe. When the cap is reached the oldest
/// exchange is dropped and `dropped` grows: never silent.
public final class HistoryStore: Sendable {
    /// A record on the heap, so the ring holds one reference per exchange (copies of an
    /// entry cost one retain, not one per field).
    final class RecordBox: Sendable {
        let record: ExchangeRecord
        /// What finally happened to the answer, if tracked (see ``HistoryOutcome``):
        /// 0 = unknown, else 1 + `ResponseOutcome.Kind` index; and when, in ms since 1970.
        let outcomeKind = Atomic<UInt8>(0)
        let outcomeAtMillis = Atomic<Int64>(0)
        init(_ record: consuming ExchangeRecord) { self.record = record }

        var exchange: (UInt64) -> Exchange {
            { seq in
                var e = self.record.exchange(seq: seq)
                let k = self.outcomeKind.load(ordering: .acquiring)
                if k > 0 {
                    let kinds: [ResponseOutcome.Kind] = [.completed, .reset, .connectionDropped, .abandoned]
                    let at = Date(timeIntervalSince1970: Double(self.outcomeAtMillis.load(ordering: .relaxed)) / 1000)
                    let text = "outcome: \(kinds[Int(k) - 1].rawValue) at \(DateFormats.iso8601(at))"
                    e.response.detail = e.response.detail.map { $0 + "; " + text } ?? text
                }
                return e
            }
        }
    }

    /// One stored exchange, in its cheap or its full form.
    enum Entry: Sendable {
        case record(UInt64, RecordBox)
        case exchange(Exchange)

        var seq: UInt64 { switch self { case .record(let s, _): return s; case .exchange(let e): return e.seq } }
        var provider: ProviderID { switch self { case .record(_, let r): return r.record.provider; case .exchange(let e): return e.provider } }

        func matches(_ q: HistoryQuery) -> Bool {
            switch self {
            case .exchange(let e): return q.matches(e)
            case .record(let seq, let box):
                let r = box.record
                if let p = q.provider, r.provider != p { return false }
                if let d = q.device, r.deviceID != d && r.token != d { return false }
                if let t = q.token, r.token != t { return false }
                if let ep = q.endpoint, r.endpoint != ep { return false }
                if let s = q.since, r.receivedAt < s { return false }
                if let u = q.until, r.receivedAt >= u { return false }
                if let a = q.afterSeq, seq <= a { return false }
                return true
            }
        }

        var exchange: Exchange {
            switch self { case .record(let seq, let r): return r.exchange(seq); case .exchange(let e): return e }
        }
    }

    private struct State {
        var ring: [Entry] = []
        /// Index in `ring` of the oldest element once the ring is full.
        var head = 0
        var nextSeq: UInt64 = 1
        var dropped: UInt64 = 0
        var cap: Int
        var subscribers: [UInt64: @Sendable (Exchange) -> Void] = [:]
        var nextSubscriber: UInt64 = 1

        /// Stores an entry made from the next sequence number; returns the seq, the
        /// subscribers to call and the evicted entry (released by the caller, unlocked).
        mutating func store(_ make: (UInt64) -> Entry) -> (UInt64, [@Sendable (Exchange) -> Void], Entry?) {
            let seq = nextSeq
            nextSeq += 1
            var entry = make(seq)
            var evicted: Entry? = nil
            if ring.count < cap {
                if ring.capacity == 0 { ring.reserveCapacity(min(cap, 1024)) }
                ring.append(entry)
            } else {
                swap(&ring[head], &entry)
                evicted = entry
                head = (head + 1) % cap
                dropped += 1
            }
            return (seq, subscribers.isEmpty ? [] : Array(subscribers.values), evicted)
        }

        func entries(_ query: HistoryQuery) -> [Entry] {
            var out: [Entry] = []
            let n = ring.count
            for k in 0..<n {
                let e = ring[(head + k) % n]
                if e.matches(query) {
                    out.append(e)
                    if let l = query.limit, out.count >= l { break }
                }
            }
            return out
        }
    }

    private let state: Locked<State>

    /// - Parameter cap: most exchanges kept (older ones are dropped and counted).
    public init(cap: Int = 50_000) {
        state = Locked(State(cap: max(1, cap)))
    }

    /// Stores a record from the request path with the next sequence number; returns it.
    @discardableResult
    public func append(_ record: consuming ExchangeRecord) -> UInt64 {
        appendTracked(record).0
    }

    /// ``append(_:)-(ExchangeRecord)`` returning also a handle to record, later, what finally
    /// happened to the answer (for delayed, dribbled, stalled … answers).
    @discardableResult
    public func appendTracked(_ record: consuming ExchangeRecord) -> (UInt64, HistoryOutcome) {
        let box = RecordBox(record)
        let (seq, subs, evicted) = state.withLock { $0.store { .record($0, box) } }
        _ = evicted  // released here, outside the lock
        if !subs.isEmpty {
            let e = box.record.exchange(seq: seq)
            for f in subs { f(e) }
        }
        return (seq, HistoryOutcome(box: box))
    }

    /// Stores `exchange` with the next sequence number (its `seq` is overwritten) and
    /// returns that number.
    @discardableResult
    public func append(_ exchange: Exchange) -> UInt64 {
        var stored = exchange
        let (seq, subs, evicted) = state.withLock { s in
            s.store { seq in stored.seq = seq; return .exchange(stored) }
        }
        _ = evicted
        for f in subs { f(stored) }
        return seq
    }

    /// The next sequence number `append` will assign.
    public var nextSeq: UInt64 { state.withLock { $0.nextSeq } }
    /// Exchanges dropped because of the cap since the last `clear`.
    public var dropped: UInt64 { state.withLock { $0.dropped } }
    public var count: Int { state.withLock { $0.ring.count } }
    public var cap: Int { state.withLock { $0.cap } }

    /// Exchanges matching `query`, oldest first (made into ``Exchange`` values outside the lock).
    public func query(_ query: HistoryQuery = HistoryQuery()) -> [Exchange] {
        state.withLock { $0.entries(query) }.map(\.exchange)
    }

    /// Every exchange, oldest first.
    public var all: [Exchange] { query() }

    /// Forgets every exchange and the dropped count; sequence numbers keep increasing.
    public func clear() {
        let old = state.withLock { s -> [Entry] in
            let o = s.ring
            s.ring = []; s.head = 0; s.dropped = 0
            return o
        }
        _ = old
    }

    /// Forgets the exchanges of one provider (the dropped count is kept).
    public func clear(provider: ProviderID) {
        let old = state.withLock { s -> [Entry] in
            let n = s.ring.count
            var kept: [Entry] = []
            for k in 0..<n { let e = s.ring[(s.head + k) % n]; if e.provider != provider { kept.append(e) } }
            let o = s.ring
            s.ring = kept; s.head = 0
            return o
        }
        _ = old
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
        var q = query
        q.limit = nil
        let (entries, sub) = state.withLock { s -> ([Entry], HistorySubscription) in
            let id = s.nextSubscriber
            s.nextSubscriber += 1
            s.subscribers[id] = handler
            return (s.entries(q), HistorySubscription(id: id))
        }
        return (entries.map(\.exchange), sub)
    }

    public func unsubscribe(_ subscription: HistorySubscription) {
        state.withLock { _ = $0.subscribers.removeValue(forKey: subscription.id) }
    }

    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }
}

/// Records what finally happened to one recorded answer (shown in the exchange's
/// `response.detail` as `outcome: reset at …`). Thread-safe; the first report wins.
public struct HistoryOutcome: Sendable {
    let box: HistoryStore.RecordBox

    public func record(_ outcome: ResponseOutcome) {
        let kinds: [ResponseOutcome.Kind] = [.completed, .reset, .connectionDropped, .abandoned]
        let k = UInt8((kinds.firstIndex(of: outcome.kind) ?? 0) + 1)
        box.outcomeAtMillis.store(Int64((outcome.at.timeIntervalSince1970 * 1000).rounded()), ordering: .relaxed)
        _ = box.outcomeKind.compareExchange(expected: 0, desired: k, ordering: .releasing)
    }
}
