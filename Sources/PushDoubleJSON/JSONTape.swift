/// One JSON text read into a flat index over its bytes: no value tree, no string made until
/// asked for. For validators that look at a document once and keep a few of its strings
/// (the FCM send body, read on every request).
///
/// Same grammar and the same errors as ``JSONValue/parse(_:maxDepth:rejectDuplicateKeys:)``
/// (one ``JSONParser``); ``value(_:)`` gives the very ``JSONValue`` that parse gives for
/// any node. Nodes are ``Index`` values in document order, the root first: a container is
/// followed by its contents (an object by key, value, key, value …), and knows where its
/// contents end, so walking a member list skips nested values in one step.
public struct JSONTape: Sendable {
    /// A node of the document.
    public typealias Index = Int

    /// The JSON type of a node.
    public enum Kind: UInt8, Sendable { case null, bool, int, double, string, array, object }

    @usableFromInline struct Entry: Sendable {
        @usableFromInline enum Tag: UInt8, Sendable { case null, bool, int, double, asciiString, decodedString, array, object }
        @usableFromInline var tag: Tag
        /// bool: 0/1; int: the value; double: its bit pattern; asciiString: start byte;
        /// decodedString: index in `decoded`; array/object: element/member count.
        @usableFromInline var a: Int
        /// asciiString: end byte; array/object: the index after its last descendant.
        @usableFromInline var b: Int
        init(tag: Tag, a: Int, b: Int) { self.tag = tag; self.a = a; self.b = b }
    }

    @usableFromInline let bytes: [UInt8]
    @usableFromInline var entries: [Entry] = []
    /// Strings that needed decoding (escapes or non-ASCII), made while parsing.
    @usableFromInline var decoded: [String] = []

    /// Reads `bytes` (the array is kept, not copied).
    public static func parse(_ bytes: [UInt8], maxDepth: Int = JSONParser.defaultMaxDepth) throws(JSONParseError) -> JSONTape {
        var sink = Builder(tape: JSONTape(bytes: bytes))
        // Typical JSON has about one node per 12 bytes (a 336-byte FCM send has 27): a sixteenth
        // plus 8 covers that for bodies of a few hundred bytes (29 here) while the reservation
        // stays under glibc's 1 KiB per-thread cache size; larger documents grow as needed.
        sink.tape.entries.reserveCapacity(min(bytes.count / 16 + 8, 4096))
        let failure: JSONParseError? = bytes.withUnsafeBufferPointer { b in
            var p = JSONParser(b, maxDepth: maxDepth)
            do throws(JSONParseError) { _ = try p.parseDocument(into: &sink); return nil } catch { return error }
        }
        if let failure { throw failure }
        return sink.tape
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    /// How many nodes the document has.
    @inlinable public var nodeCount: Int { entries.count }

    /// The root node.
    @inlinable
    public var root: Index { 0 }

    @inlinable
    public func kind(_ i: Index) -> Kind {
        switch entries[i].tag {
        case .null: return .null
        case .bool: return .bool
        case .int: return .int
        case .double: return .double
        case .asciiString, .decodedString: return .string
        case .array: return .array
        case .object: return .object
        }
    }

    @inlinable
    public func isNull(_ i: Index) -> Bool { entries[i].tag == .null }

    /// The text of a string node, nil for another kind.
    @inlinable
    public func string(_ i: Index) -> String? {
        let e = entries[i]
        switch e.tag {
        case .asciiString:
            return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[e.a..<e.b]), as: UTF8.self) }
        case .decodedString: return decoded[e.a]
        default: return nil
        }
    }

    /// `body` on the UTF-8 of a string node that needed no decoding (ASCII, no escape);
    /// nil for any other node (then ``string(_:)`` gives the text).
    @inlinable
    public func withASCIIBytes<R>(_ i: Index, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        guard let r = asciiRange(i) else { return nil }
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[r])) }
    }

    /// The byte range (in ``withBytes(_:)``) of a string node that needed no decoding
    /// (ASCII, no escape); nil for any other node.
    @inlinable
    public func asciiRange(_ i: Index) -> Range<Int>? {
        let e = entries[i]
        return e.tag == .asciiString ? e.a..<e.b : nil
    }

    /// `body` on the document's bytes.
    @inlinable
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R { try bytes.withUnsafeBufferPointer(body) }

    /// The boolean of a `true`/`false` node.
    @inlinable
    public func bool(_ i: Index) -> Bool? { entries[i].tag == .bool ? entries[i].a != 0 : nil }

    /// Members (objects) or elements (arrays); 0 for scalars.
    @inlinable
    public func count(_ i: Index) -> Int {
        let e = entries[i]
        return e.tag == .object || e.tag == .array ? e.a : 0
    }

    /// The index after node `i` and everything inside it.
    @inlinable
    public func end(_ i: Index) -> Index {
        let e = entries[i]
        return e.tag == .object || e.tag == .array ? e.b : i + 1
    }

    /// The members of an object node in document order (repeats included): each member's
    /// key node (a string) and value node. Empty for another kind.
    @inlinable
    public func members(_ i: Index) -> Members { Members(tape: self, object: i) }

    /// The elements of an array node in order; empty for another kind.
    @inlinable
    public func elements(_ i: Index) -> [Index] {
        guard entries[i].tag == .array else { return [] }
        var out: [Index] = []
        out.reserveCapacity(entries[i].a)
        var k = i + 1
        for _ in 0..<entries[i].a { out.append(k); k = end(k) }
        return out
    }

    /// The members of one object, walked without allocating.
    public struct Members: Sequence {
        @usableFromInline let tape: JSONTape
        @usableFromInline let object: Index
        @inlinable init(tape: JSONTape, object: Index) { self.tape = tape; self.object = object }
        @inlinable public func makeIterator() -> Iterator {
            let e = tape.entries[object]
            return Iterator(tape: tape, cursor: object + 1, left: e.tag == .object ? e.a : 0)
        }
        public struct Iterator: IteratorProtocol {
            @usableFromInline let tape: JSONTape
            @usableFromInline var cursor: Index
            @usableFromInline var left: Int
            @inlinable init(tape: JSONTape, cursor: Index, left: Int) { self.tape = tape; self.cursor = cursor; self.left = left }
            @inlinable public mutating func next() -> (key: Index, value: Index)? {
                guard left > 0 else { return nil }
                left -= 1
                let key = cursor
                cursor = tape.end(key + 1)
                return (key, key + 1)
            }
        }
    }

    /// The length of node `i` as compact JSON text: ``JSONWriter/compactLength(_:)`` of
    /// ``value(_:)``, without building it. An ASCII string without escapes is written as read
    /// (the parser let no quote, backslash or control character through unescaped).
    public func compactLength(_ i: Index) -> Int {
        let e = entries[i]
        switch e.tag {
        case .null: return 4
        case .bool: return e.a != 0 ? 4 : 5
        case .int: return JSONWriter.intLength(Int64(e.a))
        case .double: return JSONWriter.compactLength(value(i))
        case .asciiString: return 2 + e.b - e.a
        case .decodedString: return JSONWriter.stringLength(decoded[e.a])
        case .array:
            guard e.a > 0 else { return 2 }
            var n = 1 + e.a, k = i + 1
            for _ in 0..<e.a { n += compactLength(k); k = end(k) }
            return n
        case .object:
            guard e.a > 0 else { return 2 }
            var n = 1 + e.a
            for m in members(i) { n += compactLength(m.key) + 1 + compactLength(m.value) }
            return n
        }
    }

    /// Node `i` as the value tree ``JSONValue/parse(_:maxDepth:rejectDuplicateKeys:)`` gives.
    public func value(_ i: Index) -> JSONValue {
        let e = entries[i]
        switch e.tag {
        case .null: return .null
        case .bool: return .bool(e.a != 0)
        case .int: return .int(Int64(e.a))
        case .double: return .double(Double(bitPattern: UInt64(UInt(bitPattern: e.a))))
        case .asciiString, .decodedString: return .string(string(i)!)
        case .array: return .array(elements(i).map(value))
        case .object:
            var list: [(String, JSONValue)] = []
            list.reserveCapacity(e.a)
            for m in members(i) { list.append((string(m.key)!, value(m.value))) }
            return .object(list)
        }
    }

    /// Appends the nodes while ``JSONParser`` reads.
    struct Builder: JSONParseSink {
        var tape: JSONTape

        mutating func add(_ tag: Entry.Tag, _ a: Int = 0, _ b: Int = 0) { tape.entries.append(Entry(tag: tag, a: a, b: b)) }
        mutating func null() { add(.null) }
        mutating func bool(_ v: Bool) { add(.bool, v ? 1 : 0) }
        mutating func int(_ v: Int64) { add(.int, Int(v)) }
        mutating func double(_ d: Double) { add(.double, Int(bitPattern: UInt(d.bitPattern))) }
        mutating func string(_ s: JSONStringToken) {
            switch s {
            case .ascii(let start, let end): add(.asciiString, start, end)
            case .decoded(let text): add(.decodedString, tape.decoded.count); tape.decoded.append(text)
            }
        }
        /// A container: its entry's index and its count so far.
        struct Open { let at: Index; var count = 0 }
        mutating func beginObject() -> Open { add(.object); return Open(at: tape.entries.count - 1) }
        mutating func key(_ k: JSONStringToken, in o: inout Open) -> Void? { string(k); return () }
        mutating func member(_ key: Void, _ v: Void, in o: inout Open) { o.count += 1 }
        mutating func endObject(_ o: inout Open) { tape.entries[o.at].a = o.count; tape.entries[o.at].b = tape.entries.count }
        mutating func beginArray() -> Open { add(.array); return Open(at: tape.entries.count - 1) }
        mutating func element(_ v: Void, in o: inout Open) { o.count += 1 }
        mutating func endArray(_ o: inout Open) { tape.entries[o.at].a = o.count; tape.entries[o.at].b = tape.entries.count }
    }
}
