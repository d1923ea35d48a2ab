/// A string as ``JSONParser`` read it: the byte range inside the quotes when the text needs
/// no decoding (no escape, ASCII only), else the decoded text (escapes resolved, UTF-8
/// checked).
@usableFromInline enum JSONStringToken {
    case ascii(start: Int, end: Int)
    case decoded(String)

    /// The text, for a token read from `b`.
    @inline(__always) func text(in b: UnsafeBufferPointer<UInt8>) -> String {
        switch self {
        case .ascii(let start, let end): return String(decoding: UnsafeBufferPointer(rebasing: b[start..<end]), as: UTF8.self)
        case .decoded(let s): return s
        }
    }
}

/// What a parse builds. ``JSONParser`` owns the grammar (one for every representation) and
/// calls its sink in document order: a container's `begin…`, then for an object each
/// member's `key`, its value's calls and `member`, then `end…`. Two sinks exist: the
/// ``JSONValue`` tree (``JSONTreeSink``) and the flat index ``JSONTape``.
@usableFromInline protocol JSONParseSink {
    associatedtype Value
    /// An object being read.
    associatedtype Members
    /// An array being read.
    associatedtype Items
    /// A member name as the sink keeps it until its value is read.
    associatedtype Key
    mutating func null() -> Value
    mutating func bool(_ b: Bool) -> Value
    mutating func int(_ v: Int64) -> Value
    mutating func double(_ d: Double) -> Value
    mutating func string(_ s: JSONStringToken) -> Value
    mutating func beginObject() -> Members
    /// The next member's name; nil refuses it as a repeat (the parser then fails with
    /// ``JSONParseError/Kind/duplicateKey(_:)``).
    mutating func key(_ k: JSONStringToken, in members: inout Members) -> Key?
    /// A member: the name `key` gave and its value.
    mutating func member(_ key: consuming Key, _ v: consuming Value, in members: inout Members)
    mutating func endObject(_ members: inout Members) -> Value
    mutating func beginArray() -> Items
    mutating func element(_ v: consuming Value, in items: inout Items)
    mutating func endArray(_ items: inout Items) -> Value
}

/// Builds the ``JSONValue`` tree (``JSONValue/parse(_:maxDepth:rejectDuplicateKeys:)``).
@usableFromInline struct JSONTreeSink: JSONParseSink {
    let b: UnsafeBufferPointer<UInt8>
    let rejectDuplicateKeys: Bool

    @usableFromInline init(_ b: UnsafeBufferPointer<UInt8>, rejectDuplicateKeys: Bool) {
        self.b = b; self.rejectDuplicateKeys = rejectDuplicateKeys
    }

    @usableFromInline struct Members {
        var list: [(String, JSONValue)] = []
        /// Member names once the object has many (duplicate check without quadratic time).
        var seen: Set<String>? = nil
    }

    @usableFromInline func null() -> JSONValue { .null }
    @usableFromInline func bool(_ v: Bool) -> JSONValue { .bool(v) }
    @usableFromInline func int(_ v: Int64) -> JSONValue { .int(v) }
    @usableFromInline func double(_ d: Double) -> JSONValue { .double(d) }
    @usableFromInline func string(_ s: JSONStringToken) -> JSONValue { .string(s.text(in: b)) }

    @usableFromInline func beginObject() -> Members { Members() }

    @usableFromInline func key(_ k: JSONStringToken, in m: inout Members) -> String? {
        let key = k.text(in: b)
        if rejectDuplicateKeys, Self.isDuplicate(key, in: m.list, seen: &m.seen) { return nil }
        return key
    }

    @usableFromInline func member(_ key: consuming String, _ v: consuming JSONValue, in m: inout Members) {
        // Most objects are small: one allocation up front instead of growing 1, 2, 4.
        if m.list.isEmpty { m.list.reserveCapacity(4) }
        m.list.append((key, v))
    }
    @usableFromInline func endObject(_ m: inout Members) -> JSONValue {
        var list: [(String, JSONValue)] = []
        swap(&list, &m.list)  // moved out, not copied
        return .object(list)
    }

    @usableFromInline func beginArray() -> [JSONValue] { [] }
    @usableFromInline func element(_ v: consuming JSONValue, in items: inout [JSONValue]) {
        if items.isEmpty { items.reserveCapacity(4) }
        items.append(v)
    }
    @usableFromInline func endArray(_ items: inout [JSONValue]) -> JSONValue {
        var list: [JSONValue] = []
        swap(&list, &items)
        return .array(list)
    }

    /// Linear search while the object is small, a set once it grows (hostile input with
    /// thousands of members must not cost quadratic time).
    static func isDuplicate(_ key: String, in members: [(String, JSONValue)], seen: inout Set<String>?) -> Bool {
        if seen != nil { return !seen!.insert(key).inserted }
        if members.contains(where: { $0.0 == key }) { return true }
        if members.count >= 16 { seen = Set(members.map(\.0)); seen!.insert(key) }
        return false
    }
}
