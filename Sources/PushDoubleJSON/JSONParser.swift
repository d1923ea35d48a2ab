/// Why JSON text was refused: what was wrong, what was expected, and the byte offset.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The kind of problem.
    public enum Kind: Equatable, Sendable {
        /// The input ended early.
        case unexpectedEnd
        /// A byte that cannot start or continue the value here.
        case unexpectedByte(UInt8)
        /// A number that breaks the RFC 8259 grammar (leading zero, `1.`, `-`, `1e`).
        case invalidNumber
        /// A number whose magnitude is beyond `Double` (e.g. `1e999`).
        case numberOutOfRange
        /// `\x` with an unknown `x`, or a bad `\uXXXX`.
        case invalidEscape
        /// A `\u` escape of a lone UTF-16 surrogate.
        case loneSurrogate
        /// An unescaped control character (U+0000–U+001F) in a string.
        case controlCharacter
        /// String bytes that are not UTF-8.
        case invalidUTF8
        /// Arrays/objects nested deeper than the limit.
        case tooDeep(limit: Int)
        /// Something after the one top-level value.
        case trailingData
        /// A member name repeated in one object (only with `rejectDuplicateKeys`).
        case duplicateKey(String)
    }

    /// Byte offset of the problem in the input.
    public let offset: Int
    public let kind: Kind
    /// What the parser was looking for (e.g. `"',' or '}'"`, `"a value"`).
    public let expected: String

    public init(offset: Int, kind: Kind, expected: String) {
        self.offset = offset; self.kind = kind; self.expected = expected
    }

    /// One-line reason without the offset.
    public var message: String {
        switch kind {
        case .unexpectedEnd: return "unexpected end of input, expected \(expected)"
        case .unexpectedByte(let b):
            let shown = b >= 0x20 && b < 0x7F ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x" + String(b, radix: 16)
            return "unexpected \(shown), expected \(expected)"
        case .invalidNumber: return "invalid number, expected \(expected)"
        case .numberOutOfRange: return "number out of range"
        case .invalidEscape: return "invalid escape, expected \(expected)"
        case .loneSurrogate: return "lone surrogate in \\u escape"
        case .controlCharacter: return "control character in string"
        case .invalidUTF8: return "invalid UTF-8 in string"
        case .tooDeep(let limit): return "nested deeper than \(limit)"
        case .trailingData: return "trailing data after the JSON value"
        case .duplicateKey(let k): return "duplicate member name \"\(k)\""
        }
    }

    public var description: String { "\(message) at byte \(offset)" }
}

extension JSONValue {
    /// Parses one JSON text (RFC 8259; surrounding whitespace allowed, nothing else).
    /// See ``JSONParser`` for the exact rules. `rejectDuplicateKeys` refuses an object that
    /// repeats a member name (JOSE); by default duplicates are kept in order.
    @inlinable
    public static func parse<Bytes: Collection>(_ bytes: Bytes, maxDepth: Int = JSONParser.defaultMaxDepth,
                                                rejectDuplicateKeys: Bool = false) throws(JSONParseError) -> JSONValue
    where Bytes.Element == UInt8 {
        let r: Result<JSONValue, JSONParseError>? = bytes.withContiguousStorageIfAvailable { buf in
            var p = JSONParser(buf, maxDepth: maxDepth, rejectDuplicateKeys: rejectDuplicateKeys)
            do throws(JSONParseError) { return .success(try p.parseDocument()) } catch { return .failure(error) }
        }
        if let r { return try r.get() }
        return try parse(Array(bytes), maxDepth: maxDepth, rejectDuplicateKeys: rejectDuplicateKeys)
    }

    /// Parses the UTF-8 of `text`.
    public static func parse(_ text: String, maxDepth: Int = JSONParser.defaultMaxDepth) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }
}

/// The strict RFC 8259 byte parser behind ``JSONValue/parse(_:maxDepth:)`` and
/// ``JSONTape/parse(_:maxDepth:)``: one grammar, handing what it reads to a
/// ``JSONParseSink`` (the tree or the tape).
///
/// Rules: one value with optional surrounding whitespace (space, tab, CR, LF); no
/// comments, trailing commas, single quotes, leading zeros, `NaN`/`Infinity`; strings must
/// be valid UTF-8 without raw control characters; `\u` surrogates must pair; an integer
/// literal that fits `Int64` is `.int`, every other number `.double` (overflow to
/// infinity is refused); object members keep document order, duplicates included;
/// containers nest at most `maxDepth` deep (recursion is bounded). Errors are typed
/// (``JSONParseError``) and carry the byte offset. Not thread-shared: one parse per value.
public struct JSONParser {
    /// Default nesting limit for arrays and objects.
    public static let defaultMaxDepth = 64

    @usableFromInline let b: UnsafeBufferPointer<UInt8>
    @usableFromInline let maxDepth: Int
    @usableFromInline let rejectDuplicateKeys: Bool
    @usableFromInline var i = 0
    var depth = 0

    @usableFromInline init(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, rejectDuplicateKeys: Bool = false) {
        b = bytes; self.maxDepth = maxDepth; self.rejectDuplicateKeys = rejectDuplicateKeys
    }

    func fail(_ kind: JSONParseError.Kind, _ expected: String) -> JSONParseError {
        JSONParseError(offset: i, kind: kind, expected: expected)
    }

    func unexpected(_ expected: String) -> JSONParseError {
        i < b.count ? fail(.unexpectedByte(b[i]), expected) : fail(.unexpectedEnd, expected)
    }

    @usableFromInline mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        var sink = JSONTreeSink(b, rejectDuplicateKeys: rejectDuplicateKeys)
        return try parseDocument(into: &sink)
    }

    /// The one grammar: reads the whole text and hands what it reads to `sink`.
    mutating func parseDocument<Sink: JSONParseSink>(into sink: inout Sink) throws(JSONParseError) -> Sink.Value {
        skipWhitespace()
        let v = try value(&sink)
        skipWhitespace()
        guard i == b.count else { throw fail(.trailingData, "end of input") }
        return v
    }

    @inline(__always) mutating func skipWhitespace() {
        while i < b.count {
            let c = b[i]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            i += 1
        }
    }

    mutating func value<Sink: JSONParseSink>(_ sink: inout Sink) throws(JSONParseError) -> Sink.Value {
        guard i < b.count else { throw fail(.unexpectedEnd, "a value") }
        switch b[i] {
        case 0x7B: return try object(&sink)
        case 0x5B: return try array(&sink)
        case 0x22: return sink.string(try string())
        case 0x74: try literal("true"); return sink.bool(true)
        case 0x66: try literal("false"); return sink.bool(false)
        case 0x6E: try literal("null"); return sink.null()
        case 0x2D, 0x30...0x39: return try number(&sink)
        default: throw unexpected("a value")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let n = word.utf8CodeUnitCount
        let w = word.utf8Start
        for k in 0..<n {
            guard i < b.count, b[i] == w[k] else { throw unexpected("'\(word)'") }
            i += 1
        }
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        guard depth <= maxDepth else { throw fail(.tooDeep(limit: maxDepth), "at most \(maxDepth) nested arrays/objects") }
    }

    mutating func object<Sink: JSONParseSink>(_ sink: inout Sink) throws(JSONParseError) -> Sink.Value {
        try enter()
        i += 1
        var members = sink.beginObject()
        skipWhitespace()
        if i < b.count && b[i] == 0x7D { i += 1; depth -= 1; return sink.endObject(&members) }
        while true {
            guard i < b.count, b[i] == 0x22 else { throw unexpected("a member name string") }
            let keyStart = i
            let token = try string()
            guard let key = sink.key(token, in: &members) else {
                throw JSONParseError(offset: keyStart, kind: .duplicateKey(token.text(in: b)), expected: "a member name not used before in this object")
            }
            skipWhitespace()
            guard i < b.count, b[i] == 0x3A else { throw unexpected("':'") }
            i += 1
            skipWhitespace()
            let v = try value(&sink)
            sink.member(consume key, consume v, in: &members)
            skipWhitespace()
            guard i < b.count else { throw fail(.unexpectedEnd, "',' or '}'") }
            if b[i] == 0x2C { i += 1; skipWhitespace(); continue }
            if b[i] == 0x7D { i += 1; depth -= 1; return sink.endObject(&members) }
            throw unexpected("',' or '}'")
        }
    }

    mutating func array<Sink: JSONParseSink>(_ sink: inout Sink) throws(JSONParseError) -> Sink.Value {
        try enter()
        i += 1
        var items = sink.beginArray()
        skipWhitespace()
        if i < b.count && b[i] == 0x5D { i += 1; depth -= 1; return sink.endArray(&items) }
        while true {
            let v = try value(&sink)
            sink.element(consume v, in: &items)
            skipWhitespace()
            guard i < b.count else { throw fail(.unexpectedEnd, "',' or ']'") }
            if b[i] == 0x2C { i += 1; skipWhitespace(); continue }
            if b[i] == 0x5D { i += 1; depth -= 1; return sink.endArray(&items) }
            throw unexpected("',' or ']'")
        }
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard i < b.count else { throw fail(.unexpectedEnd, "4 hex digits after \\u") }
            let c = b[i]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c &- 0x30)
            case 0x41...0x46: d = UInt32(c &- 0x41 &+ 10)
            case 0x61...0x66: d = UInt32(c &- 0x61 &+ 10)
            default: throw fail(.invalidEscape, "4 hex digits after \\u")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    /// Reads a string starting at its opening quote: its byte range when it needs no
    /// decoding (no escape, ASCII), else its decoded text.
    mutating func string() throws(JSONParseError) -> JSONStringToken {
        i += 1
        let start = i
        // Fast path: no escapes; pure ASCII needs no UTF-8 validation. The scan runs on
        // locals (the cursor is written back once) and stops at the first byte that is a
        // quote, a backslash or a control character.
        var high: UInt8 = 0
        var k = i
        let end = b.count
        // Eight bytes at a time while none of them is special (exact "has a byte equal to /
        // below" tests, Hacker's Delight 6-1); the byte loop below then finds the one that is.
        if let base = b.baseAddress {
            var wide: UInt64 = 0
            while k + 8 <= end {
                let w = UnsafeRawPointer(base + k).loadUnaligned(as: UInt64.self)
                if Self.hasSpecialByte(w) { break }
                wide |= w
                k += 8
            }
            if wide & Self.highBits != 0 { high = 0x80 }
        }
        while k < end {
            let c = b[k]
            if c == 0x22 || c == 0x5C || c < 0x20 { break }
            high |= c
            k += 1
        }
        i = k
        if k < end {
            let c = b[k]
            if c == 0x22 {
                if high < 0x80 { i += 1; return .ascii(start: start, end: k) }
                guard let s = String(validating: UnsafeBufferPointer(rebasing: b[start..<k]), as: UTF8.self) else { throw invalidUTF8(from: start) }
                i += 1
                return .decoded(s)
            }
            if c < 0x20 { throw fail(.controlCharacter, "'\"' or an escape") }
        }
        guard i < b.count else { throw fail(.unexpectedEnd, "'\"'") }
        var out = [UInt8]()
        out.reserveCapacity(i - start + 16)
        out.append(contentsOf: UnsafeBufferPointer(rebasing: b[start..<i]))
        while i < b.count {
            let c = b[i]
            if c == 0x22 {
                guard let s = String(validating: out, as: UTF8.self) else { throw invalidUTF8(from: start) }
                i += 1
                return .decoded(s)
            }
            if c < 0x20 { throw fail(.controlCharacter, "'\"' or an escape") }
            if c != 0x5C { out.append(c); i += 1; continue }
            i += 1
            guard i < b.count else { break }
            let e = b[i]
            switch e {
            case 0x22, 0x5C, 0x2F: out.append(e)
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x75:
                let at = i - 1
                i += 1
                var scalar = try hex4()
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    guard i + 1 < b.count, b[i] == 0x5C, b[i + 1] == 0x75 else {
                        throw JSONParseError(offset: at, kind: .loneSurrogate, expected: "a low surrogate \\uDC00-\\uDFFF")
                    }
                    i += 2
                    let low = try hex4()
                    guard low >= 0xDC00 && low < 0xE000 else {
                        throw JSONParseError(offset: at, kind: .loneSurrogate, expected: "a low surrogate \\uDC00-\\uDFFF")
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if scalar >= 0xDC00 && scalar < 0xE000 {
                    throw JSONParseError(offset: at, kind: .loneSurrogate, expected: "a high surrogate first")
                }
                // Surrogates are excluded above, so the scalar is valid.
                let u = Unicode.Scalar(scalar)!
                UTF8.encode(u) { out.append($0) }
                continue
            default: throw fail(.invalidEscape, "one of \" \\ / b f n r t u after '\\'")
            }
            i += 1
        }
        throw fail(.unexpectedEnd, "'\"'")
    }

    @usableFromInline static let highBits: UInt64 = 0x8080_8080_8080_8080
    /// Whether one of the 8 bytes of `w` is `"` (0x22), `\` (0x5C) or below 0x20: for each
    /// test, `(x - 0x0101…) & ~x & 0x8080…` is non-zero exactly when a byte of `x` is zero
    /// (resp. `x - 0x2020…` when a byte is below 0x20).
    @inline(__always) static func hasSpecialByte(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = w ^ 0x2222_2222_2222_2222, backslash = w ^ 0x5C5C_5C5C_5C5C_5C5C
        let special = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((w &- 0x2020_2020_2020_2020) & ~w)
        return special & highBits != 0
    }

    /// Offset of the first byte of the first invalid UTF-8 sequence after `start`.
    func invalidUTF8(from start: Int) -> JSONParseError {
        var k = start
        while k < i, b[k] < 0x80 { k += 1 }
        return JSONParseError(offset: k, kind: .invalidUTF8, expected: "UTF-8")
    }

    @inline(__always) func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }

    mutating func number<Sink: JSONParseSink>(_ sink: inout Sink) throws(JSONParseError) -> Sink.Value {
        let start = i
        let negative = b[i] == 0x2D
        if negative { i += 1 }
        guard i < b.count else { throw fail(.unexpectedEnd, "a digit") }
        guard isDigit(b[i]) else { throw fail(.invalidNumber, "a digit") }
        var magnitude: UInt64 = 0
        var overflow = false
        if b[i] == 0x30 {
            i += 1
            if i < b.count, isDigit(b[i]) { throw fail(.invalidNumber, "no leading zero") }
        } else {
            while i < b.count, isDigit(b[i]) {
                let (m1, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (m2, o2) = m1.addingReportingOverflow(UInt64(b[i] &- 0x30))
                overflow = overflow || o1 || o2
                magnitude = m2
                i += 1
            }
        }
        var integral = true
        if i < b.count, b[i] == 0x2E {
            integral = false
            i += 1
            guard i < b.count, isDigit(b[i]) else { throw unexpectedNumber("a digit after '.'") }
            while i < b.count, isDigit(b[i]) { i += 1 }
        }
        if i < b.count, b[i] == 0x65 || b[i] == 0x45 {
            integral = false
            i += 1
            if i < b.count, b[i] == 0x2B || b[i] == 0x2D { i += 1 }
            guard i < b.count, isDigit(b[i]) else { throw unexpectedNumber("a digit in the exponent") }
            while i < b.count, isDigit(b[i]) { i += 1 }
        }
        if integral && !overflow {
            if !negative, magnitude <= UInt64(Int64.max) { return sink.int(Int64(magnitude)) }
            if negative, magnitude <= UInt64(Int64.max) + 1 { return sink.int(Int64(truncatingIfNeeded: 0 &- magnitude)) }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
        guard let d = Double(text), d.isFinite else {
            throw JSONParseError(offset: start, kind: .numberOutOfRange, expected: "a number within Double range")
        }
        return sink.double(d)
    }

    func unexpectedNumber(_ expected: String) -> JSONParseError {
        i < b.count ? fail(.invalidNumber, expected) : fail(.unexpectedEnd, expected)
    }
}
