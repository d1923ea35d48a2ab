import Foundation
import PushDoubleTransport

/// One page of the history as a streamed response body: `GET /history` (the JSON document)
/// and `GET /history?format=jsonl` (JSON Lines).
///
/// Runs on its own dispatch queue, never on the event loop that received the request: it
/// copies references to the matching exchanges in windows (the history's lock is held only
/// for that), then encodes and writes them in chunks of about ``chunkSize`` bytes. At most
/// one page (``HistoryPaging/maxLimit`` exchanges) is encoded per request; the document's
/// `nextCursor` names where the next page starts (JSON Lines: the last line's `seq`; a page
/// shorter than `limit` is the last), so a full dump is a loop of bounded requests.
public final class HistoryPageSource: ResponseBodySource {
    /// How the page is written.
    public enum Format: Sendable { case document, jsonLines }

    /// Bytes per sink write.
    public static let chunkSize = 64 * 1024
    /// The writer waits while its sink holds more than this unsent (``ResponseBodySink/unsentBytes``).
    public static let highWater = 1 << 20

    let query: HistoryQuery
    let format: Format
    let history: HistoryStore
    private static let queue = DispatchQueue(label: "pushdouble.history.pages", qos: .utility, attributes: .concurrent)

    public init(history: HistoryStore, query: HistoryQuery, format: Format) {
        self.query = query; self.format = format; self.history = history
    }

    public func start(_ sink: ResponseBodySink) {
        let query = self.query, format = self.format, history = self.history
        Self.queue.async {
            // A dump must never slow the providers down (the queue's threads serve only this).
            BackgroundPriority.lowerCurrentThread()
            Self.write(history.page(query), format: format, to: sink)
        }
    }

    private static func write(_ page: HistoryPage, format: Format, to sink: ResponseBodySink) {
        let encoder = ExchangeEncoding.makeEncoder()
        var out: [UInt8] = []
        out.reserveCapacity(chunkSize + 8192)
        func flush() -> Bool {
            if sink.isClosed { return false }
            // Backpressure: wait while the connection still holds more than `highWater`.
            while sink.unsentBytes > highWater && !sink.isClosed { usleep(1000) }
            if !out.isEmpty { sink.write(out); out.removeAll(keepingCapacity: true) }
            return !sink.isClosed
        }
        if format == .document {
            out.append(contentsOf: "{\"count\":\(page.items.count),\"dropped\":\(page.dropped),\"exchanges\":[".utf8)
        }
        for (i, item) in page.items.enumerated() {
            if format == .document && i > 0 { out.append(0x2c) }
            if let d = try? encoder.encode(item.exchange) { out.append(contentsOf: d) } else { out.append(contentsOf: "{}".utf8) }
            if format == .jsonLines { out.append(0x0a) }
            if out.count >= chunkSize, !flush() { return }
        }
        if format == .document {
            out.append(contentsOf: "],\"nextCursor\":\(page.nextCursor.map(String.init) ?? "null"),\"nextSeq\":\(page.nextSeq)}".utf8)
        }
        if flush() { sink.finish() }
    }
}

/// The default and largest page of `GET /history`.
public enum HistoryPaging {
    /// Exchanges per page when the request names no `limit`.
    public static let defaultLimit = 1000
    /// The largest `limit` honoured (a larger one is lowered to this).
    public static let maxLimit = 5000
    /// References copied per lock acquisition while collecting a page.
    static let window = 1024
}

/// The exchanges of one page, by reference, plus the counters the document shows.
struct HistoryPage: Sendable {
    var items: [HistoryItem]
    /// Where the next page starts (the last seq of this one) when more may follow, else nil.
    var nextCursor: UInt64?
    var dropped: UInt64
    var nextSeq: UInt64
}

extension HistoryStore {
    /// Collects the page of exchanges matching `query` (filters, `afterSeq` as the cursor,
    /// `limit` bounded by ``HistoryPaging/maxLimit``), oldest first. The lock is taken per
    /// window of references; filtering and everything after happens outside it.
    func page(_ query: HistoryQuery) -> HistoryPage {
        let limit = min(query.limit ?? HistoryPaging.defaultLimit, HistoryPaging.maxLimit)
        let (dropped, nextSeq) = (self.dropped, self.nextSeq)
        var items: [HistoryItem] = []
        var cursor = query.afterSeq
        var more = false
        scan: while true {
            let window = self.items(after: cursor, count: HistoryPaging.window)
            for item in window {
                if item.matches(query) {
                    if items.count == limit { more = true; break scan }
                    items.append(item)
                }
                cursor = item.seq
            }
            if window.count < HistoryPaging.window { break }
        }
        return HistoryPage(items: items, nextCursor: more ? items.last?.seq : nil, dropped: dropped, nextSeq: nextSeq)
    }
}
