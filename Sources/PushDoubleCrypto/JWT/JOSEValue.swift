/// A JSON value as JOSE uses it: integers kept apart from doubles and booleans, object
/// members kept in document (or literal) order so that serialising is stable.
///
/// Literals build values directly: `["alg": "ES256", "kid": "ABC123DEFG"]` is a `JOSEObject`
/// whose members keep that order, and `1_700_000_000` is `.int`.
public enum JOSEValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByFloatLiteral, ExpressibleByNilLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JOSEValue])
    case object(JOSEObject)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: JOSEValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JOSEValue)...) { self = .object(JOSEObject(elements)) }

    /// The string, if this is a string.
    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    /// The integer, if this is an integer (a JSON number without fraction or exponent).
    public var intValue: Int64? { if case .int(let i) = self { return i }; return nil }
    /// The number as a double, for integers and doubles.
    public var doubleValue: Double? {
        switch self { case .int(let i): return Double(i); case .double(let d): return d; default: return nil }
    }
    /// The boolean, if this is a boolean.
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    /// The elements, if this is an array.
    public var arrayValue: [JOSEValue]? { if case .array(let a) = self { return a }; return nil }
    /// The object, if this is an object.
    public var objectValue: JOSEObject? { if case .object(let o) = self { return o }; return nil }

    /// Compact JSON text (no whitespace, `/` not escaped, object members in order).
    public var compactJSON: String { String(decoding: JOSEJSON.serialize(self), as: UTF8.self) }

    /// Parses JSON text (RFC 8259, strict: no trailing commas, comments or duplicate member names).
    public static func parse<Bytes: Collection>(json: Bytes) throws(JOSEJSON.ParseError) -> JOSEValue where Bytes.Element == UInt8 {
        var parser = JOSEJSON.Parser(Array(json))
        return try parser.parseDocument()
    }
}

/// A JSON object with members in a fixed order; member names are unique.
public struct JOSEObject: Sendable, Equatable, ExpressibleByDictionaryLiteral, Sequence {
    /// Members in order.
    public private(set) var members: [(name: String, value: JOSEValue)]

    public init() { members = [] }
    public init(_ members: [(String, JOSEValue)]) {
        self.members = []
        self.members.reserveCapacity(members.count)
        for (k, v) in members { self[k] = v }
    }
    public init(dictionaryLiteral elements: (String, JOSEValue)...) { self.init(elements) }

    /// The value for `name`; setting `nil` removes it, setting an existing name replaces it in place.
    public subscript(name: String) -> JOSEValue? {
        get {
            for m in members where m.name == name { return m.value }
            return nil
        }
        set {
            if let i = members.firstIndex(where: { $0.name == name }) {
                if let newValue { members[i].value = newValue } else { members.remove(at: i) }
            } else if let newValue {
                members.append((name, newValue))
            }
        }
    }

    /// Member names in order.
    public var keys: [String] { members.map(\.name) }
    /// Member names as a set (for "exactly these claims" checks).
    public var keySet: Set<String> { Set(members.map(\.name)) }
    public var count: Int { members.count }

    /// The string member `name`, if present and a string.
    public func string(_ name: String) -> String? { self[name]?.stringValue }
    /// The integer member `name`, if present and an integer.
    public func int(_ name: String) -> Int64? { self[name]?.intValue }

    /// Compact JSON text, members in order.
    public var compactJSON: String { JOSEValue.object(self).compactJSON }
    /// Compact JSON bytes, members in order.
    public var compactJSONBytes: [UInt8] { JOSEJSON.serialize(.object(self)) }

    public func makeIterator() -> IndexingIterator<[(name: String, value: JOSEValue)]> { members.makeIterator() }

    public static func == (a: JOSEObject, b: JOSEObject) -> Bool {
        a.members.count == b.members.count && zip(a.members, b.members).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}

/// The JSON reader and writer behind `JOSEValue`: small, strict, and allocation-light.
public enum JOSEJSON {
    /// Why JSON text was refused, with the byte offset.
    public struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        public let offset: Int
        public let reason: String
        public var description: String { "\(reason) at offset \(offset)" }
    }

    /// Nesting deeper than this is refused (bounded recursion on hostile input).
    public static let maximumDepth = 64

    static func serialize(_ v: JOSEValue) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(64)
        write(v, into: &out)
        return out
    }

    static func write(_ v: JOSEValue, into out: inout [UInt8]) {
        switch v {
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .int(let i): out += Array(String(i).utf8)
        case .double(let d):
            if d.isFinite { out += Array(String(d).utf8) } else { out += Array("null".utf8) }
        case .string(let s): writeString(s, into: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, e) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(e, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            for (i, m) in o.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeString(m.name, into: &out)
                out.append(UInt8(ascii: ":"))
                write(m.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let hex = Array("0123456789abcdef".utf8)
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out += [0x5C, 0x22]
            case UInt8(ascii: "\\"): out += [0x5C, 0x5C]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0x08: out += [0x5C, UInt8(ascii: "b")]
            case 0x0C: out += [0x5C, UInt8(ascii: "f")]
            case 0..<0x20: out += [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 15)]]
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    struct Parser {
        let b: [UInt8]
        var i = 0
        var depth = 0

        init(_ bytes: [UInt8]) { b = bytes }

        func fail(_ reason: String) -> ParseError { ParseError(offset: i, reason: reason) }

        mutating func parseDocument() throws(ParseError) -> JOSEValue {
            skipSpace()
            let v = try parseValue()
            skipSpace()
            guard i == b.count else { throw fail("trailing data") }
            return v
        }

        mutating func skipSpace() {
            while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
        }

        mutating func literal(_ word: String, _ value: JOSEValue) throws(ParseError) -> JOSEValue {
            let w = Array(word.utf8)
            guard i + w.count <= b.count, Array(b[i..<(i + w.count)]) == w else { throw fail("invalid literal") }
            i += w.count
            return value
        }

        mutating func parseValue() throws(ParseError) -> JOSEValue {
            guard i < b.count else { throw fail("unexpected end") }
            switch b[i] {
            case UInt8(ascii: "{"): return .object(try parseObject())
            case UInt8(ascii: "["): return try parseArray()
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
            default: throw fail("unexpected character")
            }
        }

        mutating func parseObject() throws(ParseError) -> JOSEObject {
            depth += 1
            guard depth <= JOSEJSON.maximumDepth else { throw fail("nesting too deep") }
            defer { depth -= 1 }
            i += 1
            var members: [(name: String, value: JOSEValue)] = []
            // Linear search for duplicates while small, a set once objects grow (hostile input
            // with thousands of members must not cost quadratic time).
            var seen: Set<String>? = nil
            skipSpace()
            if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return JOSEObject() }
            while true {
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw fail("expected member name") }
                let start = i
                let name = try parseString()
                let duplicate: Bool
                if var set = seen {
                    duplicate = !set.insert(name).inserted
                    seen = set
                } else {
                    duplicate = members.contains(where: { $0.name == name })
                    if members.count >= 16 { seen = Set(members.map(\.name) + [name]) }
                }
                if duplicate { throw ParseError(offset: start, reason: "duplicate member \"\(name)\"") }
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                i += 1
                skipSpace()
                members.append((name, try parseValue()))
                skipSpace()
                guard i < b.count else { throw fail("unexpected end in object") }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                if b[i] == UInt8(ascii: "}") { i += 1; break }
                throw fail("expected ',' or '}'")
            }
            var o = JOSEObject()
            o.appendUnchecked(members)
            return o
        }

        mutating func parseArray() throws(ParseError) -> JOSEValue {
            depth += 1
            guard depth <= JOSEJSON.maximumDepth else { throw fail("nesting too deep") }
            defer { depth -= 1 }
            i += 1
            var out: [JOSEValue] = []
            skipSpace()
            if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return .array(out) }
            while true {
                skipSpace()
                out.append(try parseValue())
                skipSpace()
                guard i < b.count else { throw fail("unexpected end in array") }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                if b[i] == UInt8(ascii: "]") { i += 1; break }
                throw fail("expected ',' or ']'")
            }
            return .array(out)
        }

        mutating func hex4() throws(ParseError) -> UInt32 {
            guard i + 4 <= b.count else { throw fail("short \\u escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = b[i]
                let d: UInt8
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
                default: throw fail("bad hex digit in \\u escape")
                }
                v = v << 4 | UInt32(d)
                i += 1
            }
            return v
        }

        mutating func parseString() throws(ParseError) -> String {
            i += 1
            let start = i
            // Fast path: no escapes.
            while i < b.count, b[i] != UInt8(ascii: "\""), b[i] != UInt8(ascii: "\\"), b[i] >= 0x20 { i += 1 }
            guard i < b.count else { throw fail("unterminated string") }
            if b[i] == UInt8(ascii: "\"") {
                let s = b[start..<i]
                i += 1
                guard let str = String(validating: s, as: UTF8.self) else { throw ParseError(offset: start, reason: "invalid UTF-8") }
                return str
            }
            var out = Array(b[start..<i])
            while true {
                guard i < b.count else { throw fail("unterminated string") }
                let c = b[i]
                if c == UInt8(ascii: "\"") { i += 1; break }
                if c < 0x20 { throw fail("control character in string") }
                if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
                i += 1
                guard i < b.count else { throw fail("unterminated escape") }
                let e = b[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard i + 6 <= b.count, b[i] == 0x5C, b[i + 1] == UInt8(ascii: "u") else { throw fail("lone high surrogate") }
                        i += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("bad low surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw fail("lone low surrogate")
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw fail("bad code point") }
                    out += Array(String(Character(u)).utf8)
                default: throw fail("bad escape")
                }
            }
            guard let str = String(validating: out, as: UTF8.self) else { throw ParseError(offset: start, reason: "invalid UTF-8") }
            return str
        }

        mutating func parseNumber() throws(ParseError) -> JOSEValue {
            let start = i
            if b[i] == UInt8(ascii: "-") { i += 1 }
            func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
            guard i < b.count, isDigit(b[i]) else { throw fail("bad number") }
            if b[i] == 0x30 {
                i += 1
                if i < b.count, isDigit(b[i]) { throw fail("leading zero") }
            } else {
                while i < b.count, isDigit(b[i]) { i += 1 }
            }
            var integral = true
            if i < b.count, b[i] == UInt8(ascii: ".") {
                integral = false
                i += 1
                guard i < b.count, isDigit(b[i]) else { throw fail("bad fraction") }
                while i < b.count, isDigit(b[i]) { i += 1 }
            }
            if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
                integral = false
                i += 1
                if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
                guard i < b.count, isDigit(b[i]) else { throw fail("bad exponent") }
                while i < b.count, isDigit(b[i]) { i += 1 }
            }
            let text = String(decoding: b[start..<i], as: UTF8.self)
            if integral, let v = Int64(text) { return .int(v) }
            guard let d = Double(text) else { throw ParseError(offset: start, reason: "bad number") }
            return .double(d)
        }
    }
}

extension JOSEObject {
    /// Appends members already checked for unique names (parser use).
    mutating func appendUnchecked(_ ms: [(name: String, value: JOSEValue)]) { members += ms }
}
