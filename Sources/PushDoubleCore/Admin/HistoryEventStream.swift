import Foundation
import PushDoubleTransport

/// Streams history exchanges as server-sent events (`text/event-stream`): first the
/// stored ones matching the query, then each new one as it is appended, until the client
/// goes away. The work is done by the history's ``HistoryEventHub``.
///
/// Event format: `id: <seq>` / `event: exchange` / `data: <compact JSON>` / blank line, in
/// `seq` order. A comment line (`: keepalive`) every `heartbeat` seconds keeps proxies from
/// timing the stream out and makes a vanished client visible even when no exchange matches.
/// A client that falls behind gets `event: lagged` with `data: {"reason":"lagged","resumeFrom":N}`
/// and is disconnected; it reconnects with `Last-Event-ID: N` (or `?after=N`) to continue.
public final class HistoryEventStream: ResponseBodySource {
    private let history: HistoryStore
    private let query: HistoryQuery
    private let heartbeat: Double?

    public init(history: HistoryStore, query: HistoryQuery, heartbeat: Double? = 15) {
        self.history = history
        self.query = query
        self.heartbeat = heartbeat
    }

    public static func event(_ e: Exchange) -> [UInt8] {
        event(seq: e.seq, json: ExchangeEncoding.json(e))
    }

    static func event(seq: UInt64, json: [UInt8]) -> [UInt8] {
        var out = Array("id: \(seq)\nevent: exchange\ndata: ".utf8)
        out.append(contentsOf: json)
        out.append(contentsOf: [0x0a, 0x0a])
        return out
    }

    static func lagged(resumeFrom: UInt64) -> [UInt8] {
        Array("event: lagged\ndata: {\"reason\":\"lagged\",\"resumeFrom\":\(resumeFrom)}\n\n".utf8)
    }

    public func start(_ sink: ResponseBodySink) {
        history.eventHub.attach(sink, query: query, heartbeat: heartbeat)
    }
}

/// Fans the history out to every server-sent-event client from one background thread.
///
/// The request path does not know the clients: it queues a reference on the hub's
/// ``HistoryFeed`` (one per history, not one per client). Every ``tick`` seconds the hub
/// takes up to ``maxPerTick`` exchanges from it, encodes each at most once (only if a
/// client wants it), and writes each client's share in one piece. Bounds, so a reader can neither slow the push
/// path nor grow memory without limit:
/// - the feed holds at most ``feedCapacity`` exchanges; if the hub falls that far behind,
///   every client gets `lagged` (resume from the last event it got) and is disconnected;
/// - a new client's backlog is at most ``maxBacklog`` events, then `lagged`;
/// - a client whose sink reports more than ``maxUnsent`` bytes not yet sent
///   (``ResponseBodySink/unsentBytes``) gets `lagged` and is disconnected.
/// The thread runs only while clients are attached, at a low priority.
public final class HistoryEventHub: Sendable {
    public static let tick = 0.02
    public static let feedCapacity = 8192
    public static let maxBacklog = 1000
    public static let maxUnsent = 1 << 20
    /// Exchanges handed out per tick at most: bounds what one tick writes to a client (and
    /// the hub's CPU); beyond that rate the feed fills and the clients hear `lagged`.
    public static let maxPerTick = 512

    private final class Client: @unchecked Sendable {
        // @unchecked: `lastSent`, `nextBeat`, `out` are touched only by the hub thread.
        let id: UInt64
        let sink: ResponseBodySink
        let filter: HistoryQuery
        let after: UInt64?
        let heartbeat: Double?
        var lastSent: UInt64
        var nextBeat: Double
        var out: [UInt8] = []
        init(id: UInt64, sink: ResponseBodySink, filter: HistoryQuery, after: UInt64?, heartbeat: Double?, now: Double) {
            self.id = id; self.sink = sink; self.filter = filter; self.after = after; self.heartbeat = heartbeat
            self.lastSent = after ?? 0
            self.nextBeat = now + (heartbeat ?? .infinity)
        }
    }

    private enum Phase { case idle, running(HistoryFeed) }
    private struct State {
        var phase = Phase.idle
        var joining: [Client] = []
        var clients: [Client] = []
        var closed: Set<UInt64> = []
        var nextID: UInt64 = 1
        /// Last seq the hub has dispatched (or learnt was dropped from its feed).
        var lastDispatched: UInt64 = 0
    }

    private unowned let history: HistoryStore
    private let state = Locked(State())

    init(history: HistoryStore) { self.history = history }

    /// Clients attached (joining or live).
    public var clientCount: Int { state.withLock { $0.joining.count + $0.clients.count } }

    func attach(_ sink: ResponseBodySink, query: HistoryQuery, heartbeat: Double?) {
        var filter = query
        filter.afterSeq = nil
        filter.limit = nil
        let now = Self.now()
        let id = state.withLock { s -> UInt64 in
            let id = s.nextID
            s.nextID += 1
            s.joining.append(Client(id: id, sink: sink, filter: filter, after: query.afterSeq,
                                    heartbeat: heartbeat.flatMap { $0 > 0 ? $0 : nil }, now: now))
            if case .idle = s.phase {
                let (feed, next) = history.feed(capacity: Self.feedCapacity)
                s.lastDispatched = next - 1
                s.phase = .running(feed)
                let thread = Thread { [self] in self.run(feed) }
                thread.name = "pushdouble.sse"
                thread.start()
            }
            return id
        }
        sink.onClose { [self] in
            state.withLock { s in
                s.closed.insert(id)
                s.joining.removeAll { $0.id == id }
            }
        }
    }

    private static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }


    // MARK: the hub thread

    private func run(_ feed: HistoryFeed) {
        // Low priority: under load the hub falls behind, which its clients hear as
        // `lagged`, rather than slowing the pushes down.
        BackgroundPriority.lowerCurrentThread()
        while true {
            usleep(useconds_t(Self.tick * 1e6))
            let events = feed.take(max: Self.maxPerTick)
            let (joining, clients, stop) = state.withLock { s -> ([Client], [Client], Bool) in
                s.clients.removeAll { s.closed.contains($0.id) }
                s.closed.removeAll()
                if s.clients.isEmpty && s.joining.isEmpty {
                    s.phase = .idle
                    return ([], [], true)
                }
                let j = s.joining
                s.joining = []
                return (j, s.clients, false)
            }
            if stop { feed.cancel(); return }
            let lastBefore = state.withLock { $0.lastDispatched }
            var live = clients
            for c in joining where sendBacklog(c, upTo: lastBefore) { live.append(c) }
            let kept = dispatch(events, to: live)
            state.withLock { s in
                s.clients = kept.filter { !s.closed.contains($0.id) }
            }
        }
    }

    /// Writes a joining client's stored events up to `last`; false if it was cut off.
    private func sendBacklog(_ c: Client, upTo last: UInt64) -> Bool {
        var out: [UInt8] = Array(": pushdouble history stream\n\n".utf8)
        let encoder = ExchangeEncoding.makeEncoder()
        var cursor = c.after
        var sent = 0
        scan: while true {
            let window = history.items(after: cursor, count: HistoryPaging.window)
            for item in window {
                if item.seq > last { break scan }
                cursor = item.seq
                guard item.matches(c.filter) else { continue }
                if sent == Self.maxBacklog {
                    out.append(contentsOf: HistoryEventStream.lagged(resumeFrom: c.lastSent))
                    c.sink.write(out)
                    c.sink.finish()
                    return false
                }
                out.append(contentsOf: HistoryEventStream.event(seq: item.seq, json: Self.encode(item, encoder)))
                c.lastSent = item.seq
                sent += 1
                if out.count >= HistoryPageSource.chunkSize { c.sink.write(out); out.removeAll(keepingCapacity: true) }
            }
            if window.count < HistoryPaging.window { break }
        }
        c.sink.write(out)
        return true
    }

    /// Hands this tick's events to the live clients; returns those still attached.
    private func dispatch(_ events: [HistoryFeedEvent], to clients: [Client]) -> [Client] {
        let encoder = ExchangeEncoding.makeEncoder()
        var last = state.withLock { $0.lastDispatched }
        var lagging = false
        for event in events {
            switch event {
            case .exchange(let item):
                last = item.seq
                var json: [UInt8]? = nil
                for c in clients where item.seq > c.lastSent && item.matches(c.filter) {
                    if json == nil { json = Self.encode(item, encoder) }
                    c.out.append(contentsOf: HistoryEventStream.event(seq: item.seq, json: json!))
                    c.lastSent = item.seq
                }
            case .dropped(let n):
                last += n
                lagging = true
            }
            if lagging { break }
        }
        state.withLock { $0.lastDispatched = last }
        let now = Self.now()
        var kept: [Client] = []
        for c in clients {
            if c.sink.isClosed { continue }
            // This tick's share (`out`) is bounded by the feed; what counts is what the
            // connection still holds from earlier ticks, when the sink can tell.
            let unsent = c.sink.unsentBytes
            if lagging || unsent > Self.maxUnsent {
                c.out.append(contentsOf: HistoryEventStream.lagged(resumeFrom: c.lastSent))
                c.sink.write(c.out)
                c.sink.finish()
                continue
            }
            if now >= c.nextBeat, let h = c.heartbeat {
                c.out.append(contentsOf: ": keepalive\n\n".utf8)
                c.nextBeat = now + h
            }
            if !c.out.isEmpty {
                c.sink.write(c.out)
                c.out = []
            }
            kept.append(c)
        }
        return kept
    }

    private static func encode(_ item: HistoryItem, _ encoder: JSONEncoder) -> [UInt8] {
        (try? Array(encoder.encode(item.exchange))) ?? Array("{}".utf8)
    }
}
