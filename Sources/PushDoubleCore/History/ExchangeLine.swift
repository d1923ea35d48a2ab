import Foundation
import PushDoubleTransport

/// The one-line text form of an exchange, as `serve` logs it and `replay` lists it:
///
/// `07:35:08.123 #12 apns apns.push POST /3/device/abcd… → 410 Unregistered [device d1] conn=3 stream=5`
///
/// One formatter for both sources of the facts: an ``ExchangeSummary`` (strings), and a
/// stored record read in place (``HistoryItem/appendLine(into:)``), which copies the packed
/// bytes straight into the line without making a string per field (the `serve` log formats
/// one line per request, tens of thousands a second, on its own thread).
public enum ExchangeLine {
    /// A path longer than this many characters is cut to `pathPrefix` characters and `…`.
    static let pathLimit = 60
    static let pathPrefix = 57

    /// The line of `s`, without a newline.
    public static func text(_ s: ExchangeSummary) -> String {
        var out: [UInt8] = []
        append(s, into: &out)
        out.removeLast()
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the line of `s` and a newline as UTF-8.
    public static func append(_ s: ExchangeSummary, into out: inout [UInt8]) {
        Fields(s).append(into: &out)
    }

    /// `410 Unregistered [device d1]`, `reset [fault f1]`, `200 delayed [accepted registered]`:
    /// the outcome part of the line (also the detailed form's response line).
    public static func outcome(status: Int?, action: String, reason: String?, decidedBy: Decision) -> String {
        var out: [UInt8] = []
        Fields.appendOutcome(status: status, action: .string(action), reason: reason.map(Text.string),
                             stage: decidedBy.stage, detail: decidedBy.detail.map(Text.string), into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// A text field of the line: bytes of a stored record or a string of its pool generation,
    /// both read in place (valid only while the record is being read), or a string.
    enum Text {
        case bytes(UnsafeBufferPointer<UInt8>)
        /// String `id` of a pool generation, read in place (not retained).
        case pooled(Unmanaged<StringPool.ValueStore>, Int)
        case string(String)

        func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            switch self {
            case .bytes(let b): return body(b)
            case .pooled(let store, let id): return store._withUnsafeGuaranteedRef { $0.withUTF8(id, body) }
            case .string(let s): return UTF8Bytes.of(s, body)
            }
        }

        func append(into out: inout [UInt8]) {
            withBytes { out.append(contentsOf: $0) }
        }

        var string: String {
            switch self {
            case .bytes(let b): return String(decoding: b, as: UTF8.self)
            case .pooled(let store, let id): return store.takeUnretainedValue().value(id)
            case .string(let s): return s
            }
        }

        func equals(_ literal: StaticString) -> Bool {
            func same(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
                b.count == literal.utf8CodeUnitCount && (b.count == 0 || memcmp(b.baseAddress!, literal.utf8Start, b.count) == 0)
            }
            return withBytes(same)
        }

        /// Appends the path, cut after ``pathPrefix`` characters when longer than ``pathLimit``.
        func appendPath(into out: inout [UInt8]) {
            if case .bytes(let b) = self {
                // ASCII without CR (CR LF would be one Character): characters are bytes.
                guard b.count > ExchangeLine.pathLimit else { return out.append(contentsOf: b) }
                if !b.contains(where: { $0 >= 0x80 || $0 == 0x0d }) {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: b[..<ExchangeLine.pathPrefix]))
                    out.append(contentsOf: "…".utf8)
                    return
                }
            }
            let s = string
            if s.utf8.count > ExchangeLine.pathLimit && s.count > ExchangeLine.pathLimit {
                out.append(contentsOf: s.prefix(ExchangeLine.pathPrefix).utf8); out.append(contentsOf: "…".utf8)
            } else {
                out.append(contentsOf: s.utf8)
            }
        }
    }

    /// The facts of one line, from either source.
    struct Fields {
        var seq: UInt64
        var receivedAt: Date
        var provider: String
        var endpoint: Text
        var method: Text
        var path: Text
        var status: Int?
        var action: Text
        var reason: Text?
        var stage: Decision.Stage
        var decisionDetail: Text?
        var connectionID: UInt64
        var streamID: UInt32

        init(seq: UInt64, receivedAt: Date, provider: String, endpoint: Text, method: Text, path: Text, status: Int?, action: Text,
             reason: Text?, stage: Decision.Stage, decisionDetail: Text?, connectionID: UInt64, streamID: UInt32) {
            self.seq = seq; self.receivedAt = receivedAt; self.provider = provider; self.endpoint = endpoint; self.method = method
            self.path = path; self.status = status; self.action = action; self.reason = reason; self.stage = stage
            self.decisionDetail = decisionDetail; self.connectionID = connectionID; self.streamID = streamID
        }

        init(_ s: ExchangeSummary) {
            self.init(seq: s.seq, receivedAt: s.receivedAt, provider: s.provider.rawValue, endpoint: .string(s.endpoint),
                      method: .string(s.method), path: .string(s.path), status: s.status, action: .string(s.action),
                      reason: s.reason.map(Text.string), stage: s.decidedBy.stage, decisionDetail: s.decidedBy.detail.map(Text.string),
                      connectionID: s.connectionID, streamID: s.streamID)
        }

        /// The summary these facts make (strings copied out).
        func summary() -> ExchangeSummary {
            ExchangeSummary(seq: seq, receivedAt: receivedAt, provider: ProviderID(rawValue: provider), endpoint: endpoint.string,
                            method: method.string, path: path.string, status: status, action: action.string, reason: reason?.string,
                            decidedBy: Decision(stage, decisionDetail?.string), connectionID: connectionID, streamID: streamID)
        }

        /// The line and a newline.
        func append(into out: inout [UInt8]) {
            Self.appendTime(receivedAt, into: &out)
            Self.literal(" #", into: &out); Self.appendDecimal(seq, into: &out)
            out.append(0x20); Text.string(provider).append(into: &out)
            out.append(0x20); endpoint.append(into: &out)
            out.append(0x20); method.append(into: &out)
            out.append(0x20); path.appendPath(into: &out)
            Self.literal(" → ", into: &out)
            Self.appendOutcome(status: status, action: action, reason: reason, stage: stage, detail: decisionDetail, into: &out)
            Self.literal(" conn=", into: &out); Self.appendDecimal(connectionID, into: &out)
            Self.literal(" stream=", into: &out); Self.appendDecimal(UInt64(streamID), into: &out)
            out.append(0x0a)
        }

        static func appendOutcome(status: Int?, action: Text, reason: Text?, stage: Decision.Stage, detail: Text?, into out: inout [UInt8]) {
            if let status { appendDecimal(UInt64(max(0, status)), into: &out) } else { action.append(into: &out) }
            if status != nil && !action.equals("respond") { out.append(0x20); action.append(into: &out) }
            if let reason { out.append(0x20); reason.append(into: &out) }
            literal(" [", into: &out); out.append(contentsOf: stage.rawValue.utf8)
            if let detail { out.append(0x20); detail.append(into: &out) }
            out.append(0x5d)
        }

        @inline(__always) static func literal(_ s: StaticString, into out: inout [UInt8]) {
            s.withUTF8Buffer { out.append(contentsOf: $0) }
        }

        /// `HH:MM:SS.mmm` in UTC, milliseconds rounded like ``DateFormats/iso8601(_:)``.
        static func appendTime(_ d: Date, into out: inout [UInt8]) {
            let ms = Int64((d.timeIntervalSince1970 * 1000).rounded())
            let secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
            let frac = ms - secs * 1000
            var day = secs % 86_400
            if day < 0 { day += 86_400 }
            let h = day / 3600, m = day / 60 % 60, sec = day % 60
            var text: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &text) { t in
                func two(_ v: Int64, at i: Int) { t[i] = 0x30 + UInt8(v / 10); t[i + 1] = 0x30 + UInt8(v % 10) }
                two(h, at: 0); t[2] = 0x3a; two(m, at: 3); t[5] = 0x3a; two(sec, at: 6); t[8] = 0x2e
                t[9] = 0x30 + UInt8(frac / 100); two(frac % 100, at: 10)
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: t[..<12]))
            }
        }

        /// `v` in decimal, appended in one copy.
        static func appendDecimal(_ v: UInt64, into out: inout [UInt8]) {
            if v < 10 { out.append(0x30 + UInt8(v)); return }
            var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)   // 24 bytes ≥ the 20 digits of UInt64.max
            withUnsafeMutableBytes(of: &digits) { d in
                var i = d.count
                var x = v
                while x > 0 { i -= 1; d[i] = 0x30 + UInt8(x % 10); x /= 10 }
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: d[i...]))
            }
        }
    }
}

extension HistoryItem {
    /// Appends this exchange's ``ExchangeLine`` and a newline, read in place from the stored
    /// record (no ``ExchangeSummary`` in between).
    public func appendLine(into out: inout [UInt8]) {
        switch entry {
        case .record(let seq, let box): box.withLineFields(seq) { $0.append(into: &out) }
        case .exchange(let e): ExchangeLine.append(ExchangeSummary(e), into: &out)
        }
    }
}
