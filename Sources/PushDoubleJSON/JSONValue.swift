/// One JSON value: integers kept apart from doubles and booleans, object members kept in
/// document (or literal) order, duplicates included.
///
/// `JSONValue.parse(_:)` reads JSON text (RFC 8259, strict, see ``JSONParser``);
/// `compactJSON` / `serialized(_:)` write it (see ``JSONWriter``). Literals build values
/// directly: `["alg": "ES256", "iat": 1_700_000_000]` is an object with an `.int` member.
public enum JSONValue: Sendable, Equatable, Codable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByFloatLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    case null
    case bool(Bool)
    /// A number literal without fraction or exponent that fits `Int64`.
    case int(Int64)
    /// Any other number (fraction, exponent, or an integer beyond `Int64`).
    case double(Double)
    case string(String)
    case array([JSONValue])
    /// Members in document order; a repeated name appears as often as it was written.
    case object([(String, JSONValue)])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(elements) }

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.int(x), .int(y)): return x == y
        case let (.double(x), .double(y)): return x == y
        case let (.string(x), .string(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// Member of an object by key (first match), nil otherwise.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self {
            for m in members where m.0 == key { return m.1 }
        }
        return nil
    }
    /// The string, if this is a string.
    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    /// The integer, for `.int` and for a `.double` with an exact `Int64` value.
    public var intValue: Int64? {
        switch self { case .int(let i): return i; case .double(let d) where d == d.rounded(): return Int64(exactly: d); default: return nil }
    }
    /// The number as a double, for integers and doubles.
    public var doubleValue: Double? {
        switch self { case .int(let i): return Double(i); case .double(let d): return d; default: return nil }
    }
    /// The boolean, if this is a boolean.
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    /// The members in order, if this is an object.
    public var objectValue: [(String, JSONValue)]? { if case .object(let o) = self { return o }; return nil }
    /// Whether this is `null`.
    public var isNull: Bool { if case .null = self { return true }; return false }

    // MARK: Codable

    /// Decodes through any `Decoder`. Codable does not expose document order, so object
    /// keys come out sorted; use ``parse(_:maxDepth:)`` on the bytes to keep the order.
    public init(from decoder: Decoder) throws {
        if var arr = try? decoder.unkeyedContainer() {
            var out: [JSONValue] = []
            while !arr.isAtEnd { out.append(try arr.decode(JSONValue.self)) }
            self = .array(out); return
        }
        if let obj = try? decoder.container(keyedBy: AnyKey.self) {
            var out: [(String, JSONValue)] = []
            for k in obj.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                out.append((k.stringValue, try obj.decode(JSONValue.self, forKey: k)))
            }
            self = .object(out); return
        }
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int64.self) { self = .int(i) }
        else if let d = try? c.decode(Double.self) { self = .double(d) }
        else { self = .string(try c.decode(String.self)) }
    }

    public func encode(to encoder: Encoder) throws {
        switch self {
        case .null: var c = encoder.singleValueContainer(); try c.encodeNil()
        case .bool(let b): var c = encoder.singleValueContainer(); try c.encode(b)
        case .int(let i): var c = encoder.singleValueContainer(); try c.encode(i)
        case .double(let d): var c = encoder.singleValueContainer(); try c.encode(d)
        case .string(let s): var c = encoder.singleValueContainer(); try c.encode(s)
        case .array(let a):
            var c = encoder.unkeyedContainer()
            for v in a { try c.encode(v) }
        case .object(let o):
            var c = encoder.container(keyedBy: AnyKey.self)
            for (k, v) in o { try c.encode(v, forKey: AnyKey(k)) }
        }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { return nil }
    }
}
