#if canImport(Glibc)
import Glibc
#endif
/// An ordered list of HTTP header fields with case-insensitive lookup.
///
/// Names are kept as received (HTTP/2 carries them lowercase; HTTP/1.1 may not), in
/// order, repeats included, because providers answer a repeated header with their own
/// error (APNs `DuplicateHeaders`). Pseudo-headers are never stored here: they live in
/// the typed fields of ``HTTPRequest`` and ``HTTPResponse``.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field: a name and a value, as received.
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String
        public init(name: String, value: String) { self.name = name; self.value = value }
    }

    public private(set) var fields: [Field]

    public init() { fields = [] }
    public init(_ pairs: [(String, String)]) { fields = pairs.map { Field(name: $0.0, value: $0.1) } }
    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// Appends a field, keeping any earlier field of the same name.
    public mutating func add(name: consuming String, value: consuming String) { fields.append(Field(name: name, value: value)) }
    /// Room for `count` fields in all, so adding them one by one allocates once.
    public mutating func reserveCapacity(_ count: Int) { fields.reserveCapacity(count) }
    /// Replaces every field of that name (case-insensitive) with one field.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        fields.append(Field(name: name, value: value))
    }
    /// Removes every field of that name (case-insensitive).
    public mutating func remove(name: String) {
        fields.removeAll { Self.equalsIgnoringCase($0.name, name) }
    }
    /// The first value of that name (case-insensitive), if any.
    public subscript(name: String) -> String? { first(name: name) }
    public func first(name: String) -> String? {
        for f in fields where Self.equalsIgnoringCase(f.name, name) { return f.value }
        return nil
    }
    /// Every value of that name (case-insensitive), in order.
    public func values(name: String) -> [String] {
        fields.filter { Self.equalsIgnoringCase($0.name, name) }.map(\.value)
    }
    /// How many fields carry that name (case-insensitive).
    public func count(name: String) -> Int {
        var n = 0
        for f in fields where Self.equalsIgnoringCase(f.name, name) { n += 1 }
        return n
    }
    public func contains(name: String) -> Bool { first(name: name) != nil }

    /// ASCII case-insensitive comparison without allocating.
    @inlinable
    public static func equalsIgnoringCase(_ a: String, _ b: String) -> Bool {
        // Lengths first (O(1) for native strings): a search compares a name with many it is not.
        guard a.utf8.count == b.utf8.count else { return false }
        return UTF8Bytes.of(a) { ua in
            UTF8Bytes.of(b) { ub in
                guard ua.count == ub.count else { return false }
                for i in 0..<ua.count {
                    var x = ua[i], y = ub[i]
                    if x >= 65 && x <= 90 { x |= 0x20 }
                    if y >= 65 && y <= 90 { y |= 0x20 }
                    if x != y { return false }
                }
                return true
            }
        }
    }
}

extension HTTPHeaders {
    /// RFC 9113 §8.2.2: the connection-specific fields HTTP/2 must not carry, lowercase.
    /// One list for the HTTP/2 server and client and the core's check of rule headers.
    public static let connectionSpecificNames = ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"]
    /// Bit `n` set when a name of ``connectionSpecificNames`` is `n` bytes long.
    @usableFromInline static let connectionSpecificLengths: UInt64 =
        connectionSpecificNames.reduce(0) { $0 | (1 << UInt64($1.utf8.count)) }
    /// Bit `b & 63` set when a name of ``connectionSpecificNames`` starts with byte `b`.
    @usableFromInline static let connectionSpecificFirstBytes: UInt64 =
        connectionSpecificNames.reduce(0) { $0 | (1 << UInt64($1.utf8.first! & 63)) }

    /// Whether `name` (lowercase) is one of ``connectionSpecificNames``.
    @inlinable
    public static func isConnectionSpecific(_ name: String) -> Bool {
        // Length first (O(1) for a native string): nearly every name asked about is none of them.
        guard mayBeConnectionSpecific(length: name.utf8.count) else { return false }
        return connectionSpecificNames.contains(name)
    }

    /// ``isConnectionSpecific(_:)`` of a name given as its bytes (the HTTP/2 request-head check).
    @inlinable
    public static func isConnectionSpecific(utf8 name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard mayBeConnectionSpecific(length: name.count) else { return false }
        // The first byte next: names of these lengths (`apns-topic`, `user-agent`) seldom
        // start like one of them; then the bytes of each name in place (a `String.UTF8View`
        // compare costs tens of instructions a byte).
        guard connectionSpecificFirstBytes & (1 << UInt64(name[0] & 63)) != 0 else { return false }
        return connectionSpecificNames.contains { n in
            UTF8Bytes.of(n) { $0.count == name.count && memcmp($0.baseAddress!, name.baseAddress!, name.count) == 0 }
        }
    }

    @inlinable
    static func mayBeConnectionSpecific(length n: Int) -> Bool {
        n < 64 && connectionSpecificLengths & (1 << UInt64(n)) != 0
    }
}

/// RFC 9110 §5.6.2 `token` characters (`tchar`): what a field name and a method are made of.
/// One table for the HTTP/1.1 parser and for the core's check of rule-supplied header names.
public enum HTTPToken {
    /// Whether `b` is a tchar: `!#$%&'*+-.^_`|~`, digits, letters.
    @inlinable
    public static func isTChar(_ b: UInt8) -> Bool {
        switch b {
        case 48...57, 65...90, 97...122: return true
        case 33, 35, 36, 37, 38, 39, 42, 43, 45, 46, 94, 95, 96, 124, 126: return true
        default: return false
        }
    }
}
