import Foundation
import PushDoubleTransport

/// Streams history exchanges as server-sent events (`text/event-stream`): first the
/// stored ones matching the query, then each new one as it is appended, until the client
/// goes away.
///
/// Event format: `id: <seq>` / `event: exchange` / `data: <compact JSON>` / blank line.
/// Ordering: one lock serialises backlog and live events, so events leave in `seq` order
/// of their append (concurrent appends on different loops may interleave by a few).
/// A comment line (`: keepalive`) every `heartbeat` seconds keeps proxies from timing the
/// stream out and makes a vanished client visible even when no exchange matches.
public final class HistoryEventStream: ResponseBodySource, @unchecked Sendable {
    // @unchecked: `pending`/`live`/`timer` are touched only under `lock`; the rest is immutable.
    private let history: HistoryStore
    private let query: HistoryQuery
    private let heartbeat: Double?
    private let lock = NSLock()
    private var pending: [Exchange] = []
    private var live = false
    private var timer: DispatchSourceTimer?

    public init(history: HistoryStore, query: HistoryQuery, heartbeat: Double? = 15) {
        self.history = history
        self.query = query
        self.heartbeat = heartbeat
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
        // Strong capture on purpose: the subscription keeps this stream alive until the
        // client goes away (`onClose` unsubscribes, which releases it).
        let (backlog, subscription) = history.subscribe(backlog: query) { e in
            guard filter.matches(e) else { return }
            self.lock.lock()
            defer { self.lock.unlock() }
            if self.live { sink.write(Self.event(e)) } else { self.pending.append(e) }
        }
        let history = self.history
        lock.lock()
        if let h = heartbeat, h > 0 {
            let t = DispatchSource.makeTimerSource(queue: .global())
            t.schedule(deadline: .now() + h, repeating: h)
            t.setEventHandler { sink.write(Array(": keepalive\n\n".utf8)) }
            t.resume()
            timer = t
        }
        lock.unlock()
        sink.onClose { [self] in
            history.unsubscribe(subscription)
            self.lock.lock()
            self.timer?.cancel()
            self.timer = nil
            self.lock.unlock()
        }
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
