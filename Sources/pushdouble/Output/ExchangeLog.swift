import Foundation
import PushDoubleCore

/// How exchanges are printed by `serve` (one line) and `replay` (in detail).
enum ExchangeLog {
    /// `07:35:08.123 #12 apns apns.push POST /3/device/abcd… → 410 Unregistered [device d1] conn=3 stream=5`
static func line(_ e: Exchange) -> String { line(ExchangeSummary(e)) }

    /// The one-line form from the facts it shows.
static func line(_ s: ExchangeSummary) -> String {
        var out: [UInt8] = []
        appendLine(s, into: &out)
        out.removeLast()  // the newline
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the one-line form and a newline as UTF-8 (no intermediate strings for the
    /// fixed parts: the log writer formats tens of thousands of lines a second).
static func appendLine(_ s: ExchangeSummary, into out: inout [UInt8]) {
        appendTime(s.receivedAt, into: &out)
        out.append(contentsOf: " #".utf8); appendDecimal(s.seq, into: &out)
        out.append(0x20); out.append(contentsOf: s.provider.rawValue.utf8)
        out.append(0x20); out.append(contentsOf: s.endpoint.utf8)
        out.append(0x20); out.append(contentsOf: s.method.utf8)
        out.append(0x20)
        if s.path.utf8.count > 60 && s.path.count > 60 {
            out.append(contentsOf: s.path.prefix(57).utf8); out.append(contentsOf: "…".utf8)
        } else {
            out.append(contentsOf: s.path.utf8)
        }
        out.append(contentsOf: " → ".utf8)
        appendOutcome(status: s.status, action: s.action, reason: s.reason, decidedBy: s.decidedBy, into: &out)
        out.append(contentsOf: " conn=".utf8); appendDecimal(s.connectionID, into: &out)
        out.append(contentsOf: " stream=".utf8); appendDecimal(UInt64(s.streamID), into: &out)
        out.append(0x0a)
    }

    /// `410 Unregistered [device d1]`, `reset [fault f1]`, `200 delayed [accepted registered]`.
    private static func outcome(status: Int?, action: String, reason: String?, decidedBy: Decision) -> String {
        var out: [UInt8] = []
        appendOutcome(status: status, action: action, reason: reason, decidedBy: decidedBy, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// ``outcome(status:action:reason:decidedBy:)`` appended as UTF-8 (no string per part).
    private static func appendOutcome(status: Int?, action: String, reason: String?, decidedBy: Decision, into out: inout [UInt8]) {
        if let status { appendDecimal(UInt64(max(0, status)), into: &out) } else { out.append(contentsOf: action.utf8) }
        if action != "respond" && status != nil { out.append(0x20); out.append(contentsOf: action.utf8) }
        if let r = reason { out.append(0x20); out.append(contentsOf: r.utf8) }
        out.append(contentsOf: " [".utf8); out.append(contentsOf: decidedBy.stage.rawValue.utf8)
        if let d = decidedBy.detail { out.append(0x20); out.append(contentsOf: d.utf8) }
        out.append(0x5d)
    }

    /// `HH:MM:SS.mmm` in UTC, milliseconds rounded like ``DateFormats/iso8601(_:)``.
    private static func appendTime(_ d: Date, into out: inout [UInt8]) {
        let ms = Int64((d.timeIntervalSince1970 * 1000).rounded())
        let secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let frac = ms - secs * 1000
        var day = secs % 86_400
        if day < 0 { day += 86_400 }
        func two(_ v: Int64) { out.append(0x30 + UInt8(v / 10)); out.append(0x30 + UInt8(v % 10)) }
        two(day / 3600); out.append(0x3a); two(day / 60 % 60); out.append(0x3a); two(day % 60)
        out.append(0x2e); out.append(0x30 + UInt8(frac / 100)); two(frac % 100)
    }

    private static func appendDecimal(_ v: UInt64, into out: inout [UInt8]) {
        if v < 10 { out.append(0x30 + UInt8(v)); return }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        var x = v
        withUnsafeMutableBytes(of: &digits) { d in
            while x > 0 { d[n] = 0x30 + UInt8(x % 10); x /= 10; n += 1 }
            for i in stride(from: n - 1, through: 0, by: -1) { out.append(d[i]) }
        }
    }

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
        if let b = e.request.body, !b.isEmpty { s += "   > " + b.replacingOccurrences(of: "\n", with: "\n   > ") + "\n" }
        else if e.request.bodyBase64 != nil { s += "   > (\(e.request.bodySize) bytes, not UTF-8)\n" }
        var facts: [String] = []
        if let t = e.token { facts.append("token=\(t)") }
        if let d = e.deviceID { facts.append("device=\(d)") }
        if let t = e.topic { facts.append("topic=\(t)") }
        if let env = e.environment { facts.append("environment=\(env)") }
        if let a = e.auth { facts.append("auth=\(a.scheme)\(a.valid ? "" : " (invalid)")\(a.keyID.map { " kid=" + $0 } ?? "")") }
        if !facts.isEmpty { s += "   " + facts.joined(separator: " ") + "\n" }
        s += "   < \(outcome(status: e.response.status, action: e.response.action, reason: e.response.reason, decidedBy: e.decidedBy))\n"
        if let d = e.response.delaySeconds { s += "   < after \(d) s\n" }
        for h in e.response.headers where h.count == 2 { s += "   < \(h[0]): \(h[1])\n" }
        if let b = e.response.body, !b.isEmpty { s += "   < " + b + "\n" }
        if let d = e.response.detail { s += "   (\(d))\n" }
        return s
    }
}

/// Writes the exchange log of `serve` / `replay` off the request path.
///
/// The history queues a reference per exchange on a bounded ``HistoryFeed`` (nothing is
/// formatted on an event loop); one background thread takes the queue every `interval`
/// seconds, formats the lines and hands them to the console in one large write. The log is
/// complete and in order; when the console is slower than the traffic the feed fills and
/// further lines are counted instead of queued, and `… N log lines dropped` is printed where
/// they were. ``stop()`` writes what is still queued.
final class ExchangeLogWriter: Sendable {
    /// One line per exchange, or the detailed block.
enum Style: Sendable { case line, detailed }
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
                case .line: ExchangeLog.appendLine(item.summary, into: &out)
                case .detailed: out.append(contentsOf: ExchangeLog.detailed(item.exchange).utf8)
                }
            case .dropped(let n):
                out.append(contentsOf: "… \(n) log lines dropped (output slower than the traffic)\n".utf8)
            }
        }
        return out
    }

    /// Writes what is still queued and stops the thread.
func stop() { pump.stop() }
}
