import PushDoubleCore

/// Why a payload could not be decoded as JSON (recorded in the history, never sent:
/// Apple documents no reason for invalid JSON, so the fake accepts such a push).
public struct APNsPayloadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset of the problem.
    public var offset: Int
    public var message: String
    public var description: String { "invalid JSON at byte \(offset): \(message)" }
}

/// A small JSON parser over bytes producing ``JSONValue`` with object keys in document
/// order and integers kept apart from doubles (JSONSerialization does neither).
/// Depth is bounded (``maxDepth``) so hostile input cannot exhaust the stack.
public struct APNsPayloadDecoder {
    public static let maxDepth = 64

    /// Parses one JSON text (surrounding whitespace allowed).
    public static func decode(_ bytes: [UInt8]) -> Result<JSONValue, APNsPayloadError> {
        bytes.withUnsafeBufferPointer { buf in
            var p = Parser(b: buf, i: 0)
            do {
                p.skipWhitespace()
                let v = try p.value(depth: 0)
                p.skipWhitespace()
                if p.i != buf.count { throw p.fail("trailing data after the JSON value") }
                return .success(v)
            } catch let e as APNsPayloadError {
                return .failure(e)
            } catch {
                return .failure(APNsPayloadError(offset: p.i, message: "\(error)"))
            }
        }
    }

    struct Parser {
        let b: UnsafeBufferPointer<UInt8>
        var i: Int

        func fail(_ m: String) -> APNsPayloadError { APNsPayloadError(offset: i, message: m) }

        mutating func skipWhitespace() {
            while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
        }

        mutating func value(depth: Int) throws -> JSONValue {
            guard depth < APNsPayloadDecoder.maxDepth else { throw fail("nested deeper than \(APNsPayloadDecoder.maxDepth)") }
            guard i < b.count else { throw fail("unexpected end of input") }
            switch b[i] {
            case 0x7B: return try object(depth: depth + 1)
            case 0x5B: return try array(depth: depth + 1)
            case 0x22: return .string(try string())
            case 0x74: try literal("true"); return .bool(true)
            case 0x66: try literal("false"); return .bool(false)
            case 0x6E: try literal("null"); return .null
            case 0x2D, 0x30...0x39: return try number()
            default: throw fail("unexpected character")
            }
        }

        mutating func literal(_ word: StaticString) throws {
            let n = word.utf8CodeUnitCount
            guard i + n <= b.count else { throw fail("unexpected end of input") }
            let w = UnsafeBufferPointer(start: word.utf8Start, count: n)
            for k in 0..<n where b[i + k] != w[k] { throw fail("invalid literal") }
            i += n
        }

        mutating func object(depth: Int) throws -> JSONValue {
            i += 1
            var members: [(String, JSONValue)] = []
            skipWhitespace()
            if i < b.count && b[i] == 0x7D { i += 1; return .object(members) }
            while true {
                skipWhitespace()
                guard i < b.count, b[i] == 0x22 else { throw fail("expected a string key") }
                let key = try string()
                skipWhitespace()
                guard i < b.count, b[i] == 0x3A else { throw fail("expected ':'") }
                i += 1
                skipWhitespace()
                members.append((key, try value(depth: depth)))
                skipWhitespace()
                guard i < b.count else { throw fail("unexpected end of input") }
                if b[i] == 0x2C { i += 1; continue }
                if b[i] == 0x7D { i += 1; return .object(members) }
                throw fail("expected ',' or '}'")
            }
        }

        mutating func array(depth: Int) throws -> JSONValue {
            i += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if i < b.count && b[i] == 0x5D { i += 1; return .array(items) }
            while true {
                skipWhitespace()
                items.append(try value(depth: depth))
                skipWhitespace()
                guard i < b.count else { throw fail("unexpected end of input") }
                if b[i] == 0x2C { i += 1; continue }
                if b[i] == 0x5D { i += 1; return .array(items) }
                throw fail("expected ',' or ']'")
            }
        }

        mutating func hex4() throws -> UInt32 {
            guard i + 4 <= b.count else { throw fail("truncated \\u escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = b[i]
                let d: UInt32
                switch c {
                case 0x30...0x39: d = UInt32(c - 0x30)
                case 0x41...0x46: d = UInt32(c - 0x41 + 10)
                case 0x61...0x66: d = UInt32(c - 0x61 + 10)
                default: throw fail("invalid \\u escape")
                }
                v = v << 4 | d
                i += 1
            }
            return v
        }

        mutating func string() throws -> String {
            i += 1
            let start = i
            // Fast path: no escapes; ASCII needs no UTF-8 validation.
            var ascii = true
            while i < b.count {
                let c = b[i]
                if c == 0x22 {
                    let slice = UnsafeBufferPointer(rebasing: b[start..<i])
                    let s = ascii ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
                    guard let s else { throw fail("invalid UTF-8 in string") }
                    i += 1
                    return s
                }
                if c == 0x5C { break }
                if c < 0x20 { throw fail("control character in string") }
                if c >= 0x80 { ascii = false }
                i += 1
            }
            var out = Array(b[start..<i])
            while i < b.count {
                let c = b[i]
                if c == 0x22 {
                    i += 1
                    guard let s = String(validating: out, as: UTF8.self) else { throw fail("invalid UTF-8 in string") }
                    return s
                }
                if c < 0x20 { throw fail("control character in string") }
                if c != 0x5C { out.append(c); i += 1; continue }
                i += 1
                guard i < b.count else { break }
                let e = b[i]
                i += 1
                switch e {
                case 0x22, 0x5C, 0x2F: out.append(e)
                case 0x62: out.append(0x08)
                case 0x66: out.append(0x0C)
                case 0x6E: out.append(0x0A)
                case 0x72: out.append(0x0D)
                case 0x74: out.append(0x09)
                case 0x75:
                    var scalar = try hex4()
                    if scalar >= 0xD800 && scalar < 0xDC00 {
                        guard i + 2 <= b.count, b[i] == 0x5C, b[i + 1] == 0x75 else { throw fail("unpaired surrogate") }
                        i += 2
                        let low = try hex4()
                        guard low >= 0xDC00 && low < 0xE000 else { throw fail("unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if scalar >= 0xDC00 && scalar < 0xE000 {
                        throw fail("unpaired surrogate")
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw fail("invalid scalar") }
                    out.append(contentsOf: UTF8.encode(u)!)
                default: throw fail("invalid escape")
                }
            }
            throw fail("unterminated string")
        }

        mutating func number() throws -> JSONValue {
            let start = i
            if b[i] == 0x2D { i += 1 }
            guard i < b.count, b[i] >= 0x30 && b[i] <= 0x39 else { throw fail("invalid number") }
            if b[i] == 0x30 { i += 1 } else { while i < b.count, b[i] >= 0x30 && b[i] <= 0x39 { i += 1 } }
            var isInteger = true
            if i < b.count, b[i] == 0x2E {
                isInteger = false
                i += 1
                guard i < b.count, b[i] >= 0x30 && b[i] <= 0x39 else { throw fail("invalid fraction") }
                while i < b.count, b[i] >= 0x30 && b[i] <= 0x39 { i += 1 }
            }
            if i < b.count, b[i] == 0x65 || b[i] == 0x45 {
                isInteger = false
                i += 1
                if i < b.count, b[i] == 0x2B || b[i] == 0x2D { i += 1 }
                guard i < b.count, b[i] >= 0x30 && b[i] <= 0x39 else { throw fail("invalid exponent") }
                while i < b.count, b[i] >= 0x30 && b[i] <= 0x39 { i += 1 }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
            if isInteger, let v = Int64(text) { return .int(v) }
            guard let d = Double(text) else { throw fail("invalid number") }
            return .double(d)
        }
    }
}
