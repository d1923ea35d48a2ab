import Foundation
import PushDoubleTransport

/// Streams history exchanges as server-sent events (`text/event-stream`): first the
/// stored ones matching the query, then each new one as it is appended, until the client
/// goes away.
///
/// Event format: `id: <seq>` / `event: exchange` / `data: <compact JSON>` / blank line.
/// Ordering: one lock serialises backlog and live events, so events leave in `seq` order
/// of their append (concurrent appends on different loops may interleave by a few).
public final class HistoryEventStream: ResponseBodySource, @unchecked Sendable {
    // @unchecked: `pending`/`live` are touched only under `lock`; `history`/`query` are immutable.
    private let history: HistoryStore
    private let query: HistoryQuery
    private let lock = NSLock()
    private var pending: [Exchange] = []
    private var live = false

    public init(history: HistoryStore, query: HistoryQuery) {
        self.history = history
        self.query = query
    }

    public static func event(_ e: Exchange) -> [UInt8] {
        var out = Array("id: \(e.seq)\nevent: exchange\ndata: ".utf8)
        out.append(contentsOf: ExchangeEncoding.json(e))
        out.append(contentsOf: [0x0a, 0x0a])
        return out
    }

    public func start(_ sink: ResponseBodySink) {
        let filter = HistoryQuery(provider: query.provider, device: query.device, token: query.token, endpoint: query.endpoint,
                                  since: query.since, until: query.until)
        let (backlog, subscription) = history.subscribe(backlog: query) { [weak self] e in
            guard let self, filter.matches(e) else { return }
            self.lock.lock()
            defer { self.lock.unlock() }
            if self.live { sink.write(Self.event(e)) } else { self.pending.append(e) }
        }
        let history = self.history
        sink.onClose { history.unsubscribe(subscription) }
        lock.lock()
        var out: [UInt8] = Array(": pushdouble history stream\n\n".utf8)
        for e in backlog { out.append(contentsOf: Self.event(e)) }
        for e in pending { out.append(contentsOf: Self.event(e)) }
        pending = []
        live = true
        sink.write(out)
        lock.unlock()
    }
}
