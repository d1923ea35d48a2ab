/// An editable JSON object: members in a fixed order, unique keys (JOSE headers and
/// claims, payloads being built). `["alg": "ES256", "kid": "ABC123DEFG"]` keeps that order.
///
/// Assigning an existing key replaces its value in place; assigning `nil` removes it.
/// ``JSONValue/object(_:)-swift.type.method`` and ``JSONValue/jsonObject`` convert.
public struct JSONObject: Sendable, Equatable, ExpressibleByDictionaryLiteral, Sequence {
    /// Members in order.
    public private(set) var members: [(key: String, value: JSONValue)]

    public init() { members = [] }
    /// Builds from members in order; a repeated key keeps its first position and last value.
    public init(_ members: [(String, JSONValue)]) {
        self.members = []
        self.members.reserveCapacity(members.count)
        for (k, v) in members { self[k] = v }
    }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self.init(elements) }

    /// The value for `key`; setting `nil` removes it, setting an existing key replaces it in place.
    public subscript(key: String) -> JSONValue? {
        get {
            for m in members where m.key == key { return m.value }
            return nil
        }
        set {
            if let i = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[i].value = newValue } else { members.remove(at: i) }
            } else if let newValue {
                members.append((key, newValue))
            }
        }
    }

    /// Keys in order.
    public var keys: [String] { members.map(\.key) }
    /// Keys as a set (for "exactly these members" checks).
    public var keySet: Set<String> { Set(members.map(\.key)) }
    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    /// The string member `key`, if present and a string.
    public func string(_ key: String) -> String? { self[key]?.stringValue }
    /// The integer member `key`, if present and an integer literal (`.int`).
    public func int(_ key: String) -> Int64? {
        if case .int(let i)? = self[key] { return i }
        return nil
    }

    /// The object as a ``JSONValue``.
    public var jsonValue: JSONValue { .object(members.map { ($0.key, $0.value) }) }
    /// Compact JSON text, members in order.
    public var compactJSON: String { jsonValue.compactJSON }
    /// Compact JSON bytes, members in order.
    public var compactJSONBytes: [UInt8] { jsonValue.compactJSONBytes }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> { members.makeIterator() }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        a.members.count == b.members.count && zip(a.members, b.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

extension JSONValue {
    /// An object value from a ``JSONObject``.
    public static func object(_ o: JSONObject) -> JSONValue { o.jsonValue }

    /// The object as a ``JSONObject`` (a repeated key keeps its first position and last
    /// value), nil if this is not an object.
    public var jsonObject: JSONObject? {
        guard case .object(let o) = self else { return nil }
        return JSONObject(o)
    }
}

extension Array where Element == (String, JSONValue) {
    /// Member of an ordered member list by key (first match): `v.objectValue?["aps"]`.
    public subscript(key: String) -> JSONValue? {
        for m in self where m.0 == key { return m.1 }
        return nil
    }
}
