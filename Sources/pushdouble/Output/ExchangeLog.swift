import Foundation
import PushDoubleCore

/// How exchanges are printed by `serve` (one line, ``ExchangeLine``) and `replay` (in detail).
enum ExchangeLog {
    /// `07:35:08.123 #12 apns apns.push POST /3/device/abcd… → 410 Unregistered [device d1] conn=3 stream=5`
    static func line(_ e: Exchange) -> String { ExchangeLine.text(ExchangeSummary(e)) }

    /// A multi-line block: transport, request head and body, decoded facts, response.
    static func detailed(_ e: Exchange) -> String {
        var s = "── #\(e.seq) \(DateFormats.iso8601(e.receivedAt)) \(e.provider) \(e.endpoint)\n"
        let c = e.transport.connection
        s += "   connection \(c.id) (\(c.listener), \(c.peer)\(c.tls.map { ", " + $0.version + ($0.alpn.map { " alpn=" + $0 } ?? "") } ?? "")) \(e.transport.version.rawValue) stream \(e.transport.streamID)\n"
        s += "   > \(e.request.method) \(e.request.path)\n"
        for h in e.request.headers where h.count == 2 {
            let value = h[0].lowercased() == "authorization" && h[1].count > 48 ? String(h[1].prefix(45)) + "…" : h[1]
            s += "   > \(h[0]): \(value)\n"
        }
        if let b = e.request.body, !b.isEmpty { s += prefixed("   > ", b) }
        else if e.request.bodyBase64 != nil { s += "   > (\(e.request.bodySize) bytes, not UTF-8)\n" }
        var facts: [String] = []
        if let t = e.token { facts.append("token=\(t)") }
        if let d = e.deviceID { facts.append("device=\(d)") }
        if let t = e.topic { facts.append("topic=\(t)") }
        if let env = e.environment { facts.append("environment=\(env)") }
        if let a = e.auth { facts.append("auth=\(a.scheme)\(a.valid ? "" : " (invalid)")\(a.keyID.map { " kid=" + $0 } ?? "")") }
        if !facts.isEmpty { s += "   " + facts.joined(separator: " ") + "\n" }
        s += "   < \(ExchangeLine.outcome(status: e.response.status, action: e.response.action, reason: e.response.reason, decidedBy: e.decidedBy))\n"
        if let d = e.response.delaySeconds { s += "   < after \(d) s\n" }
        for h in e.response.headers where h.count == 2 { s += "   < \(h[0]): \(h[1])\n" }
        if let b = e.response.body, !b.isEmpty { s += prefixed("   < ", b) }
        if let d = e.response.detail { s += "   (\(d))\n" }
        return s
    }

    /// Every line of a body behind `marker` (a final newline ends the last line, it does not
    /// start an empty one), so a multi-line body stays inside its request or response.
    static func prefixed(_ marker: String, _ body: String) -> String {
        let text = body.hasSuffix("\n") ? String(body.dropLast()) : body
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { marker + $0 + "\n" }.joined()
    }
}

/// Writes the exchange log of `serve` / `replay` off the request path: one line per exchange,
/// the detailed block, or (`serve --log-format json`) one JSON object per line, the
/// exchange as `GET /history?format=jsonl` gives it, for a log pipeline.
///
/// The history queues a reference per exchange on a bounded ``HistoryFeed`` (nothing is
/// formatted on an event loop); one background thread takes the queue every `interval`
/// seconds, formats the lines and hands them to the console in one large write. The log is
/// complete and in order; when the console is slower than the traffic the feed fills and
/// further lines are counted instead of queued, and `… N log lines dropped` is printed where
/// they were. ``stop()`` writes what is still queued.
final class ExchangeLogWriter: Sendable {
    /// One line per exchange, or the detailed block.
    enum Style: Sendable { case line, detailed, json }
    private let pump: HistoryFeedPump

    /// - Parameters:
    ///   - capacity: unwritten exchanges queued at most before lines are dropped (and counted).
    ///   - interval: seconds between flushes.
    init(history: HistoryStore, console: Console, style: Style, capacity: Int = 65_536, interval: Double = 0.1) {
        let (feed, _) = history.feed(capacity: capacity)
        pump = HistoryFeedPump(feed: feed, interval: interval, name: "pushdouble.log") { events in
            console.write(utf8: Self.renderUTF8(events, style: style))
        }
    }

    /// The text for a batch of feed events.
    static func render(_ events: [HistoryFeedEvent], style: Style) -> String {
        String(decoding: renderUTF8(events, style: style), as: UTF8.self)
    }

    /// ``render(_:style:)`` as UTF-8, as the console writes it.
    static func renderUTF8(_ events: [HistoryFeedEvent], style: Style) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(events.count * (style == .line ? 120 : 600))
        for event in events {
            switch event {
            case .exchange(let item):
                switch style {
                case .line: item.appendLine(into: &out)
                case .detailed: out.append(contentsOf: ExchangeLog.detailed(item.exchange).utf8)
                case .json:
                    out.append(contentsOf: ExchangeEncoding.json(item.exchange))
                    out.append(0x0a)
                }
            case .dropped(let n) where style == .json:
                out.append(contentsOf: "{\"dropped\":\(n),\"detail\":\"log lines dropped (output slower than the traffic)\"}\n".utf8)
            case .dropped(let n):
                out.append(contentsOf: "… \(n) log lines dropped (output slower than the traffic)\n".utf8)
            }
        }
        return out
    }

    /// Writes what is still queued and stops the thread.
    func stop() { pump.stop() }
}
