/// Writes ``JSONValue``s as UTF-8 JSON text: compact by default (no spaces, members in
/// stored order), optionally with sorted keys or pretty (2-space indentation).
///
/// Strings get minimal escaping: `"` `\` and the C0 controls (`\b \f \n \r \t`, others
/// as `\u00XX`); `/` and non-ASCII are written as is. Doubles use Swift's shortest
/// round-trip form (`0.1`, `1e-05`, `100.0`: an integral double keeps its `.0` so it
/// reads back as `.double`); non-finite doubles are written as `null`.
public struct JSONWriter: Sendable {
    /// Output options.
    public struct Options: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Object members sorted by key (byte order of UTF-8), stable for duplicates.
        public static let sortedKeys = Options(rawValue: 1)
        /// Newlines and 2-space indentation, `"key": value`.
        public static let pretty = Options(rawValue: 2)
    }

    public let options: Options
    public init(options: Options = []) { self.options = options }

    /// The JSON text of `value` as UTF-8 bytes.
    public func bytes(_ value: JSONValue) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(128)
        write(value, into: &out)
        return out
    }

    /// Appends the JSON text of `value` to `out`.
    public func write(_ value: JSONValue, into out: inout [UInt8]) {
        write(value, into: &out, indent: 0)
    }

    func write(_ v: JSONValue, into out: inout [UInt8], indent: Int) {
        switch v {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let n): JSONWriter.writeInt(n, into: &out)
        case .double(let d):
            if d.isFinite { out.append(contentsOf: d.description.utf8) } else { out.append(contentsOf: "null".utf8) }
        case .string(let s): JSONWriter.writeString(s, into: &out)
        case .array(let a):
            out.append(0x5B)
            if a.isEmpty { out.append(0x5D); return }
            for (n, e) in a.enumerated() {
                if n > 0 { out.append(0x2C) }
                newline(&out, indent + 1)
                write(e, into: &out, indent: indent + 1)
            }
            newline(&out, indent)
            out.append(0x5D)
        case .object(let o):
            out.append(0x7B)
            if o.isEmpty { out.append(0x7D); return }
            let members = options.contains(.sortedKeys) ? sorted(o) : o
            for (n, m) in members.enumerated() {
                if n > 0 { out.append(0x2C) }
                newline(&out, indent + 1)
                JSONWriter.writeString(m.0, into: &out)
                out.append(0x3A)
                if options.contains(.pretty) { out.append(0x20) }
                write(m.1, into: &out, indent: indent + 1)
            }
            newline(&out, indent)
            out.append(0x7D)
        }
    }

    private func sorted(_ o: [(String, JSONValue)]) -> [(String, JSONValue)] {
        // Stable: ties (duplicate keys) keep document order.
        o.enumerated().sorted { a, b in
            let (x, y) = (a.element.0, b.element.0)
            if x == y { return a.offset < b.offset }
            return x.utf8.lexicographicallyPrecedes(y.utf8)
        }.map(\.element)
    }

    @inline(__always) private func newline(_ out: inout [UInt8], _ level: Int) {
        guard options.contains(.pretty) else { return }
        out.append(0x0A)
        for _ in 0..<(2 * level) { out.append(0x20) }
    }

    static func writeInt(_ n: Int64, into out: inout [UInt8]) {
        if n >= 0 && n < 10 { out.append(0x30 &+ UInt8(n)); return }
        out.append(contentsOf: String(n).utf8)
    }

    private static let hex: StaticString = "0123456789abcdef"

    /// Appends `s` as a JSON string literal (RFC 8259 §7, minimal escaping).
    public static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(0x22)
        var s = s
        s.withUTF8 { u in
            var runStart = 0
            for k in 0..<u.count {
                let c = u[k]
                guard c < 0x20 || c == 0x22 || c == 0x5C else { continue }
                if runStart < k { out.append(contentsOf: UnsafeBufferPointer(rebasing: u[runStart..<k])) }
                runStart = k + 1
                out.append(0x5C)
                switch c {
                case 0x22, 0x5C: out.append(c)
                case 0x08: out.append(0x62)
                case 0x0C: out.append(0x66)
                case 0x0A: out.append(0x6E)
                case 0x0D: out.append(0x72)
                case 0x09: out.append(0x74)
                default:
                    out.append(contentsOf: [0x75, 0x30, 0x30])
                    out.append(hex.utf8Start[Int(c >> 4)])
                    out.append(hex.utf8Start[Int(c & 0xF)])
                }
            }
            if runStart < u.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: u[runStart..<u.count])) }
        }
        out.append(0x22)
    }

    /// The byte count of the compact JSON text of `v` (``JSONValue/compactJSONBytes``'s
    /// `count`), counted without writing it.
    public static func compactLength(_ v: JSONValue) -> Int {
        switch v {
        case .null: return 4
        case .bool(let b): return b ? 4 : 5
        case .int(let n): return intLength(n)
        case .double(let d): return d.isFinite ? d.description.utf8.count : 4
        case .string(let s): return stringLength(s)
        // `[` `]` and a comma between elements; `{` `}`, a comma between members, a colon in each.
        case .array(let a): return a.isEmpty ? 2 : a.reduce(1 + a.count) { $0 + compactLength($1) }
        case .object(let o): return o.isEmpty ? 2 : o.reduce(1 + o.count) { $0 + stringLength($1.0) + 1 + compactLength($1.1) }
        }
    }

    /// The number of characters of `n` in decimal, its sign included (no string made).
    static func intLength(_ n: Int64) -> Int {
        var k = n.magnitude, digits = 1
        while k >= 10 { k /= 10; digits += 1 }
        return digits + (n < 0 ? 1 : 0)
    }

    /// The length of `s` as ``writeString(_:into:)`` writes it: quotes, and 2 bytes for
    /// each escaped `"` `\` `\b` `\f` `\n` `\r` `\t`, 6 for the other C0 controls.
    static func stringLength(_ s: String) -> Int {
        var s = s
        return s.withUTF8 { u in
            var n = 2 + u.count
            for c in u where c < 0x20 || c == 0x22 || c == 0x5C {
                switch c {
                case 0x22, 0x5C, 0x08, 0x0C, 0x0A, 0x0D, 0x09: n += 1
                default: n += 5
                }
            }
            return n
        }
    }

    /// Appends `s` as a JSON string literal to a `String`.
    public static func writeString(_ s: String, into out: inout String) {
        var bytes = [UInt8]()
        bytes.reserveCapacity(s.utf8.count + 2)
        writeString(s, into: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }
}

extension JSONValue {
    /// The JSON text as UTF-8 bytes with the given options (compact by default).
    public func serialized(_ options: JSONWriter.Options = []) -> [UInt8] { JSONWriter(options: options).bytes(self) }
    /// Compact JSON text (`{"reason":"Shutdown"}`), members in stored order.
    public var compactJSON: String { String(decoding: serialized(), as: UTF8.self) }
    /// Compact JSON bytes, members in stored order.
    public var compactJSONBytes: [UInt8] { serialized() }
    /// Pretty JSON text (2-space indentation), members in stored order.
    public var prettyJSON: String { String(decoding: serialized(.pretty), as: UTF8.self) }

    /// Appends `s` as a JSON string literal (RFC 8259 §7 escaping).
    public static func writeString(_ s: String, into out: inout String) { JSONWriter.writeString(s, into: &out) }
}
