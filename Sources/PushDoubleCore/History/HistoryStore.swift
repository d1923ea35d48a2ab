import Foundation
import Synchronization
import PushDoubleTransport

/// Which exchanges a history query returns. Every field present must hold.
public struct HistoryQuery: Sendable, Equatable {
    public var provider: ProviderID?
    /// Matches the registered device id or the token (of any recipient of a multi-recipient request).
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
        // A multi-recipient request matches when any recipient is the device or token.
        let others = e.recipients ?? []
        if let d = device, e.deviceID != d && e.token != d, !others.contains(where: { $0.deviceID == d || $0.token == d }) { return false }
        if let t = token, e.token != t, !others.contains(where: { $0.token == t }) { return false }
        if let ep = endpoint, e.endpoint != ep { return false }
        if let s = since, e.receivedAt < s { return false }
        if let u = until, e.receivedAt >= u { return false }
        if let a = afterSeq, e.seq <= a { return false }
        return true
    }
}

/// Handle returned by ``HistoryStore/subscribe(_:)``; pass it to `unsubscribe`.
public struct HistorySubscription: Hashable, Sendable { public let id: UInt64 }

/// An exchange as the request path records it: the request as received, the decoded facts
/// and the action as returned, by reference, no text conversion, no encoding. The history
/// packs it (``HistoryStore/RecordBox``) and makes an ``Exchange`` when someone reads it.
public struct ExchangeRecord: Sendable {
    public var provider: ProviderID
    public var endpoint: String
    /// The request as received.
    public var request: HTTPRequest
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
    /// Per-recipient outcomes of a multi-recipient request (see ``Exchange/recipients``).
    public var recipients: [RecipientOutcome]?
    /// Whether the fake may add facts to this record later (``HistoryOutcome/annotate(_:_:)``).
    public var annotatable = false

    public init(provider: ProviderID, endpoint: String, request: HTTPRequest, token: String?, topic: String?, environment: String?,
                deviceID: String?, auth: AuthIdentity?, notification: JSONValue?, action: ResponseAction, reason: String?,
                detail: String?, decidedBy: Decision, receivedAt: Date, respondedAt: Date,
                notificationMaker: (@Sendable (HTTPRequest) -> JSONValue?)? = nil, recipients: [RecipientOutcome]? = nil,
                annotatable: Bool = false) {
        self.notificationMaker = notificationMaker
        self.recipients = recipients
        self.annotatable = annotatable
        self.provider = provider; self.endpoint = endpoint; self.request = request; self.token = token; self.topic = topic
        self.environment = environment; self.deviceID = deviceID; self.auth = auth; self.notification = notification
        self.action = action; self.reason = reason; self.detail = detail; self.decidedBy = decidedBy
        self.receivedAt = receivedAt; self.respondedAt = respondedAt
    }

    /// The full history record.
    public func exchange(seq: UInt64) -> Exchange {
        var response = RecordedResponse(action)
        response.reason = reason
        if let detail { response.detail = response.detail.map { detail + "; " + $0 } ?? detail }
        return Exchange(seq: seq, provider: provider, endpoint: endpoint, transport: request.info, request: RecordedRequest(request),
                        token: token, topic: topic, environment: environment, deviceID: deviceID, auth: auth,
                        notification: notification ?? notificationMaker?(request), response: response, decidedBy: decidedBy,
                        receivedAt: receivedAt, respondedAt: respondedAt, recipients: recipients)
    }
}

/// The few facts of an exchange a one-line log needs, read from a stored record without
/// building the whole ``Exchange`` (no header arrays, no body text, no notification).
public struct ExchangeSummary: Sendable, Equatable {
    public var seq: UInt64
    public var receivedAt: Date
    public var provider: ProviderID
    public var endpoint: String
    public var method: String
    public var path: String
    /// HTTP status sent, if any.
    public var status: Int?
    /// ``RecordedResponse/action`` ("respond", "delayed", "reset", …).
    public var action: String
    public var reason: String?
    public var decidedBy: Decision
    public var connectionID: UInt64
    public var streamID: UInt32

    public init(seq: UInt64, receivedAt: Date, provider: ProviderID, endpoint: String, method: String, path: String, status: Int?,
                action: String, reason: String?, decidedBy: Decision, connectionID: UInt64, streamID: UInt32) {
        self.seq = seq; self.receivedAt = receivedAt; self.provider = provider; self.endpoint = endpoint; self.method = method
        self.path = path; self.status = status; self.action = action; self.reason = reason; self.decidedBy = decidedBy
        self.connectionID = connectionID; self.streamID = streamID
    }

    /// The summary of a full exchange (same facts).
    public init(_ e: Exchange) {
        self.init(seq: e.seq, receivedAt: e.receivedAt, provider: e.provider, endpoint: e.endpoint, method: e.request.method,
                  path: e.request.path, status: e.response.status, action: e.response.action, reason: e.response.reason,
                  decidedBy: e.decidedBy, connectionID: e.transport.connection.id, streamID: e.transport.streamID)
    }
}

/// One stored exchange as handed out by the history (pages, feeds): its sequence number and
/// a reference to the stored record. Cheap to copy; ``exchange`` and ``summary`` are made
/// on the reader's thread.
public struct HistoryItem: Sendable {
    public let seq: UInt64
    let entry: HistoryStore.Entry

    init(_ entry: HistoryStore.Entry) { self.seq = entry.seq; self.entry = entry }

    /// The full exchange.
    public var exchange: Exchange { entry.exchange }
    /// The facts a log line needs.
    public var summary: ExchangeSummary { entry.summary }
    /// Whether the exchange matches every filter of `query` (`limit` is not a filter).
    public func matches(_ query: HistoryQuery) -> Bool { entry.matches(query) }
}

/// What a ``HistoryFeed`` hands its reader, in append order.
public enum HistoryFeedEvent: Sendable {
    case exchange(HistoryItem)
    /// This many exchanges were not queued here because the reader was behind by the
    /// feed's capacity (they are still in the history).
    case dropped(UInt64)
}

/// A bounded queue of the exchanges appended from now on, for one reader on its own thread
/// (the `serve` log, the server-sent-event fan-out): the append path only adds a reference
/// under the lock it already holds, never formats or encodes, never blocks on the reader.
/// Beyond `capacity` unread exchanges, further ones are counted instead of queued, and the
/// count is delivered in order (``HistoryFeedEvent/dropped(_:)``).
public final class HistoryFeed: Sendable {
    let id: UInt64
    public let capacity: Int
    private let store: HistoryStore

    init(id: UInt64, capacity: Int, store: HistoryStore) { self.id = id; self.capacity = capacity; self.store = store }

    /// Everything queued since the last call (empty if nothing), oldest first.
    public func take() -> [HistoryFeedEvent] { store.takeFeed(id) }

    /// The oldest `max` queued events at most; the rest stay queued.
    public func take(max: Int) -> [HistoryFeedEvent] { store.takeFeed(id, max: max) }

    /// Stops queueing; what was not taken is discarded.
    public func cancel() { store.cancelFeed(id) }
}

/// Runs a reader of a ``HistoryFeed`` on its own thread: every `interval` seconds it takes
/// what is queued and hands it to `handler` (in one batch, so the reader can write in large
/// pieces). ``stop()`` hands over the rest, then returns.
public final class HistoryFeedPump: Sendable {
    private enum Phase { case running, stopping, stopped }
    private let feed: HistoryFeed
    private let phase = Locked(Phase.running)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    public init(feed: HistoryFeed, interval: Double, name: String, handler: @escaping @Sendable ([HistoryFeedEvent]) -> Void) {
        self.feed = feed
        let thread = Thread { [feed, phase, wake, finished] in
            while phase.withLock({ $0 }) == .running {
                _ = wake.wait(timeout: .now() + interval)
                let events = feed.take()
                if !events.isEmpty { handler(events) }
            }
            let rest = feed.take()
            if !rest.isEmpty { handler(rest) }
            feed.cancel()
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Hands over what is still queued and stops the thread (idempotent).
    public func stop() {
        let first = phase.withLock { p -> Bool in
            guard p == .running else { return false }
            p = .stopping
            return true
        }
        guard first else { return }
        wake.signal()
        finished.wait()
        phase.withLock { $0 = .stopped }
    }
}

/// The append-only record of every exchange, bounded by a count cap and a byte cap with a
/// visible `dropped` count.
///
/// Thread-safe. `append` packs the record (``RecordBox``: one buffer, repeated strings
/// pooled, see ``StringPool``), then takes the lock once to assign the sequence number,
/// store it and queue a reference on each ``HistoryFeed``. ``Exchange`` values and JSON are
/// made when the history is read, by the reader. An exchange evicted by the cap is released
/// after the lock. Synchronous subscribers (``subscribe(_:)``) are called after the lock on
/// the appending thread with a full ``Exchange``, so they cost the request path; readers that
/// can lag behind use a feed instead. When either cap is reached the oldest exchanges are
/// dropped and `dropped` grows: never silent.
public final class HistoryStore: Sendable {
    /// One stored exchange, in its packed or its full form. `indirect`: an ``Exchange`` is
    /// over a kilobyte inline, and every ring slot would be that large.
    enum Entry: Sendable {
        case record(UInt64, RecordBox)
        indirect case exchange(Exchange)

        var seq: UInt64 { switch self { case .record(let s, _): return s; case .exchange(let e): return e.seq } }
        var provider: ProviderID { switch self { case .record(_, let r): return r.provider; case .exchange(let e): return e.provider } }
        /// Bytes charged against the byte cap.
        var charge: Int { switch self { case .record(_, let r): return r.charge; case .exchange(let e): return HistoryFootprint.exchange(e) } }

        func matches(_ q: HistoryQuery) -> Bool {
            switch self {
            case .exchange(let e): return q.matches(e)
            case .record(let seq, let box):
                if let p = q.provider, box.provider != p { return false }
                if let s = q.since, box.receivedAt < s { return false }
                if let u = q.until, box.receivedAt >= u { return false }
                if let a = q.afterSeq, seq <= a { return false }
                if q.device == nil && q.token == nil && q.endpoint == nil { return true }
                let f = box.filterFields
                let others = box.recipients ?? []
                if let d = q.device, f.deviceID != d && f.token != d, !others.contains(where: { $0.deviceID == d || $0.token == d }) { return false }
                if let t = q.token, f.token != t, !others.contains(where: { $0.token == t }) { return false }
                if let ep = q.endpoint, f.endpoint != ep { return false }
                return true
            }
        }

        var exchange: Exchange {
            switch self { case .record(let seq, let r): return r.exchange(seq); case .exchange(let e): return e }
        }

        var summary: ExchangeSummary {
            switch self { case .record(let seq, let r): return r.summary(seq); case .exchange(let e): return ExchangeSummary(e) }
        }
    }

    /// One feed's queue (guarded by the store's lock).
    private struct FeedQueue {
        let id: UInt64
        let capacity: Int
        var events: [HistoryFeedEvent] = []
        var queued = 0
        var droppedRun: UInt64 = 0

        mutating func push(_ entry: Entry) {
            if queued >= capacity { droppedRun += 1; return }
            if droppedRun > 0 { events.append(.dropped(droppedRun)); droppedRun = 0 }
            events.append(.exchange(HistoryItem(entry)))
            queued += 1
        }

        /// At most `max` events (a `.dropped` count is delivered once everything before it is).
        mutating func take(max: Int) -> [HistoryFeedEvent] {
            guard events.count > max else { return take() }
            let out = Array(events[0..<max])
            events.removeFirst(max)
            for e in out { if case .exchange = e { queued -= 1 } }
            return out
        }

        mutating func take() -> [HistoryFeedEvent] {
            var out = events
            if droppedRun > 0 { out.append(.dropped(droppedRun)); droppedRun = 0 }
            events = []
            events.reserveCapacity(min(capacity, max(16, queued)))
            queued = 0
            return out
        }
    }

    private struct State {
        /// The stored entries as a ring: `count` of its places are used, the oldest at `head`.
        var slots: [Entry?] = []
        var head = 0
        var count = 0
        /// Sum of the stored entries' charges (``HistoryFootprint``).
        var bytes = 0
        var nextSeq: UInt64 = 1
        var dropped: UInt64 = 0
        var cap: Int
        var maxBytes: Int
        var subscribers: [UInt64: @Sendable (Exchange) -> Void] = [:]
        var nextSubscriber: UInt64 = 1
        var feeds: [FeedQueue] = []

        /// The entry at logical position `k` (0 = oldest).
        @inline(__always) func at(_ k: Int) -> Entry { slots[(head + k) % slots.count]! }

        /// Stores an entry made from the next sequence number, then drops the oldest entries
        /// while the count or the bytes are over their caps (the newest entry is always kept);
        /// returns the seq, the subscribers to call and the evicted entries (released by the
        /// caller, unlocked; `more` is empty unless the byte cap dropped several).
        mutating func store(_ make: (UInt64) -> Entry) -> (UInt64, [@Sendable (Exchange) -> Void], Entry?, [Entry]) {
            let seq = nextSeq
            nextSeq += 1
            let entry = make(seq)
            for i in feeds.indices { feeds[i].push(entry) }
            var first: Entry? = count >= cap ? removeOldest() : nil
            var more: [Entry] = []
            if count == slots.count { grow() }
            slots[(head + count) % slots.count] = entry
            count += 1
            bytes += entry.charge
            while bytes > maxBytes && count > 1 {
                let e = removeOldest()
                if first == nil { first = e } else { more.append(e) }
            }
            return (seq, subscribers.isEmpty ? [] : Array(subscribers.values), first, more)
        }

        /// Removes the oldest entry and counts it as dropped.
        private mutating func removeOldest() -> Entry {
            let e = slots[head].take()!
            head = (head + 1) % slots.count
            count -= 1
            bytes -= e.charge
            dropped += 1
            return e
        }

        /// More places (doubling, up to the count cap), the oldest entry moved to place 0.
        private mutating func grow() {
            let size = min(cap, max(1024, slots.count * 2))
            var bigger = [Entry?](repeating: nil, count: size)
            for k in 0..<count { bigger[k] = at(k) }
            slots = bigger
            head = 0
        }

        /// Replaces the stored entries with `kept` (oldest first); returns the old places.
        mutating func replace(with kept: [Entry]) -> [Entry?] {
            let old = slots
            slots = kept.map { $0 }
            head = 0
            count = kept.count
            bytes = kept.reduce(0) { $0 + $1.charge }
            return old
        }

        /// Logical position (0 = oldest) of the first entry with seq > `after`.
        func firstPosition(after: UInt64?) -> Int {
            guard let after else { return 0 }
            var lo = 0, hi = count
            while lo < hi {
                let mid = (lo + hi) / 2
                if at(mid).seq <= after { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }

        /// Up to `count` stored entries with seq > `after`, oldest first, unfiltered.
        func window(after: UInt64?, count: Int) -> [Entry] {
            let start = firstPosition(after: after)
            let end = min(self.count, start + count)
            guard start < end else { return [] }
            var out: [Entry] = []
            out.reserveCapacity(end - start)
            for k in start..<end { out.append(at(k)) }
            return out
        }

        func entries(_ query: HistoryQuery) -> [Entry] {
            var out: [Entry] = []
            for k in firstPosition(after: query.afterSeq)..<count {
                let e = at(k)
                if e.matches(query) {
                    out.append(e)
                    if let l = query.limit, out.count >= l { break }
                }
            }
            return out
        }
    }

    private let state: Locked<State>
    private let pool = StringPool()
    private let nextFeed = Atomic<UInt64>(1)
    private let hub = Locked<HistoryEventHub?>(nil)

    /// The server-sent-event fan-out of this history (made on first use).
    public var eventHub: HistoryEventHub {
        hub.withLock { h in
            if let h { return h }
            let made = HistoryEventHub(history: self)
            h = made
            return made
        }
    }

    /// The default byte cap: 256 MiB of accounted history, so a load test fits a laptop or
    /// a CI runner whatever the request sizes (docs/core.md "History").
    public static let defaultMaxBytes = 256 << 20

    /// - Parameters:
    ///   - cap: most exchanges kept (older ones are dropped and counted).
    ///   - maxBytes: most bytes of stored exchanges, as ``HistoryFootprint`` charges them
    ///     (older ones are dropped and counted the same way; the newest is always kept).
    public init(cap: Int = 50_000, maxBytes: Int = HistoryStore.defaultMaxBytes) {
        state = Locked(State(cap: max(1, cap), maxBytes: max(1, maxBytes)))
    }

    /// Stores a record from the request path with the next sequence number; returns it.
    @discardableResult
    public func append(_ record: consuming ExchangeRecord) -> UInt64 {
        appendTracked(record).0
    }

    /// ``append(_:)-(ExchangeRecord)`` returning also a handle to record, later, what finally
    /// happened to the answer (for delayed, dribbled, stalled … answers).
    @discardableResult
    public func appendTracked(_ record: borrowing ExchangeRecord) -> (UInt64, HistoryOutcome) {
        store(RecordBox(record, pool: pool))
    }

    /// ``appendTracked(_:)`` from an ``ExchangeRecord``'s fields, borrowed: what the request
    /// path calls, so the request and the decoded facts are packed where they are, never
    /// copied into a record first (a record is ~30 references to retain and release).
    @discardableResult
    public func appendTracked(provider: ProviderID, endpoint: borrowing String, request: borrowing HTTPRequest,
                              token: borrowing String?, topic: borrowing String?, environment: borrowing String?,
                              deviceID: borrowing String?, auth: borrowing AuthIdentity?, notification: borrowing JSONValue?,
                              notificationMaker: (@Sendable (HTTPRequest) -> JSONValue?)?, action: borrowing ResponseAction,
                              reason: borrowing String?, detail: borrowing String?, decidedBy: borrowing Decision,
                              receivedAt: Date, respondedAt: Date, recipients: borrowing [RecipientOutcome]?,
                              annotatable: Bool) -> (UInt64, HistoryOutcome) {
        store(RecordBox(provider: provider, endpoint: endpoint, request: request, token: token, topic: topic,
                        environment: environment, deviceID: deviceID, auth: auth, notification: notification,
                        notificationMaker: notificationMaker, action: action, reason: reason, detail: detail,
                        decidedBy: decidedBy, receivedAt: receivedAt, respondedAt: respondedAt, recipients: recipients,
                        annotatable: annotatable, pool: pool))
    }

    private func store(_ box: RecordBox) -> (UInt64, HistoryOutcome) {
        let (seq, subs, evicted, more) = state.withLock { $0.store { .record($0, box) } }
        _ = (evicted, more)  // released here, outside the lock
        if !subs.isEmpty {
            let e = box.exchange(seq)
            for f in subs { f(e) }
        }
        return (seq, HistoryOutcome(box: box))
    }

    /// Stores `exchange` with the next sequence number (its `seq` is overwritten) and
    /// returns that number.
    @discardableResult
    public func append(_ exchange: Exchange) -> UInt64 {
        var stored = exchange
        let (seq, subs, evicted, more) = state.withLock { s in
            s.store { seq in stored.seq = seq; return .exchange(stored) }
        }
        _ = (evicted, more)
        for f in subs { f(stored) }
        return seq
    }

    /// The next sequence number `append` will assign.
    public var nextSeq: UInt64 { state.withLock { $0.nextSeq } }
    /// Exchanges dropped because of the count cap or the byte cap since the last `clear`.
    public var dropped: UInt64 { state.withLock { $0.dropped } }
    public var count: Int { state.withLock { $0.count } }
    public var cap: Int { state.withLock { $0.cap } }
    /// The byte cap (see ``init(cap:maxBytes:)``).
    public var maxBytes: Int { state.withLock { $0.maxBytes } }
    /// Bytes the stored exchanges are charged (``HistoryFootprint``); at most ``maxBytes``
    /// unless the newest exchange alone is larger.
    public var bytes: Int { state.withLock { $0.bytes } }

    /// Exchanges matching `query`, oldest first (made into ``Exchange`` values outside the lock).
    public func query(_ query: HistoryQuery = HistoryQuery()) -> [Exchange] {
        state.withLock { $0.entries(query) }.map(\.exchange)
    }

    /// Every exchange, oldest first.
    public var all: [Exchange] { query() }

    /// Up to `count` stored exchanges with seq > `after` (all from the oldest when nil),
    /// oldest first and unfiltered: the lock is held only to copy references, so a reader
    /// walks the whole history in windows without holding up the request path.
    public func items(after: UInt64?, count: Int) -> [HistoryItem] {
        state.withLock { $0.window(after: after, count: count) }.map(HistoryItem.init)
    }

    /// Forgets every exchange and the dropped count; sequence numbers keep increasing.
    public func clear() {
        let old = state.withLock { s -> [Entry?] in
            s.dropped = 0
            return s.replace(with: [])
        }
        _ = old
    }

    /// Forgets the exchanges of one provider (the dropped count is kept).
    public func clear(provider: ProviderID) {
        let old = state.withLock { s -> [Entry?] in
            var kept: [Entry] = []
            for k in 0..<s.count { let e = s.at(k); if e.provider != provider { kept.append(e) } }
            return s.replace(with: kept)
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

    /// A feed of every exchange appended from now on (see ``HistoryFeed``); `nextSeq` is the
    /// sequence number of the first one it will carry, taken atomically with the subscription.
    public func feed(capacity: Int = 65_536) -> (feed: HistoryFeed, nextSeq: UInt64) {
        let id = nextFeed.wrappingAdd(1, ordering: .relaxed).oldValue
        let next = state.withLock { s -> UInt64 in
            s.feeds.append(FeedQueue(id: id, capacity: max(1, capacity)))
            return s.nextSeq
        }
        return (HistoryFeed(id: id, capacity: capacity, store: self), next)
    }

    /// Feeds currently attached.
    public var feedCount: Int { state.withLock { $0.feeds.count } }

    func takeFeed(_ id: UInt64, max: Int = .max) -> [HistoryFeedEvent] {
        state.withLock { s -> [HistoryFeedEvent] in
            guard let i = s.feeds.firstIndex(where: { $0.id == id }) else { return [] }
            return s.feeds[i].take(max: max)
        }
    }

    func cancelFeed(_ id: UInt64) {
        let dropped = state.withLock { s -> [FeedQueue] in
            let gone = s.feeds.filter { $0.id == id }
            s.feeds.removeAll { $0.id == id }
            return gone
        }
        _ = dropped  // queued references released outside the lock
    }
}

/// Records what finally happened to one recorded answer (shown in the exchange's
/// `response.detail` as `outcome: reset at …`). Thread-safe; the first report wins.
public struct HistoryOutcome: Sendable {
    let box: HistoryStore.RecordBox

    /// Adds a named fact to the recorded exchange (``Exchange/annotations``), e.g. the Expo
    /// receipt a sender fetched later; a repeated name replaces the earlier value.
    public func annotate(_ name: String, _ value: JSONValue) {
        box.annotations?.withLock { list in
            if let i = list.firstIndex(where: { $0.0 == name }) { list[i].1 = value } else { list.append((name, value)) }
        }
    }

    /// A handle that does not keep the exchange alive (``WeakHistoryOutcome``).
    public var weak: WeakHistoryOutcome { WeakHistoryOutcome(box) }

    static let kinds: [ResponseOutcome.Kind] = [.completed, .reset, .connectionDropped, .abandoned]

    public func record(_ outcome: ResponseOutcome) {
        let k = UInt8((Self.kinds.firstIndex(of: outcome.kind) ?? 0) + 1)
        box.outcomeAtMillis.store(Int64((outcome.at.timeIntervalSince1970 * 1000).rounded()), ordering: .relaxed)
        _ = box.outcomeKind.compareExchange(expected: 0, desired: k, ordering: .releasing)
    }
}

/// A ``HistoryOutcome`` that does not keep its exchange in memory: for an owner that may
/// outlive the history's caps (the Expo receipt store keeps the owners of its receipts for a
/// day). Once the history dropped the exchange, annotating it does nothing.
public struct WeakHistoryOutcome: Sendable {
    weak var box: HistoryStore.RecordBox?

    init(_ box: HistoryStore.RecordBox) { self.box = box }

    /// ``HistoryOutcome/annotate(_:_:)`` while the exchange is stored.
    public func annotate(_ name: String, _ value: JSONValue) {
        if let box { HistoryOutcome(box: box).annotate(name, value) }
    }
}
