/// Encodes header lists into HPACK header blocks (RFC 7541), keeping the dynamic table.
///
/// A value type with no I/O: encode each header block of one connection, in the order
/// the blocks go on the wire. Choices it makes:
/// - a field in the static or dynamic table is sent as an index;
/// - `authorization`, `proxy-authorization` and fields with `neverIndex` are sent as
///   "never indexed" literals (RFC 7541 §7.1.3), referencing only a table name;
/// - with ``IndexingPolicy/automatic``, fields whose values rarely repeat (`:path`,
///   `date`, `content-length`, `apns-id`, …) are not added to the dynamic table once
///   their name is there; everything else is added with incremental indexing, unless it
///   would take more than 3/4 of the table;
/// - strings are Huffman-coded when that is not longer and `useHuffman` is on.
///
/// Threading: a plain value; use it from one place at a time (the connection's loop).
public struct HPACKEncoder: Sendable {
    /// Which literals go into the dynamic table.
    public enum IndexingPolicy: Sendable, Equatable {
        /// Index what is likely to repeat (the default; see the type's documentation).
        case automatic
        /// Incremental indexing for every literal except never-indexed ones (what the
        /// RFC 7541 Appendix C examples do).
        case always
        /// Never add to the dynamic table (literals without indexing).
        case never
    }

    /// Upper bound on the table size the encoder uses, whatever the peer allows.
    public static let tableSizeCeiling = 65536

    /// Names whose values are sensitive: always sent as never-indexed literals.
    static let neverIndexedNames: Set<String> = ["authorization", "proxy-authorization"]
    /// Names whose values rarely repeat: under `.automatic` their values stay out of the
    /// dynamic table once the name can be referenced.
    static let uniqueValueNames: Set<String> = [
        ":path", "content-length", "date", "etag", "age", "last-modified", "location",
        "set-cookie", "if-modified-since", "if-none-match", "x-request-id",
    ]

    /// Everything the encoder knows about a name, found with one hash per field.
    struct NameTraits: Sendable {
        var staticEntry: StaticHeaderTable.NameEntry?
        var neverIndex = false
        var uniqueValue = false
    }

    static let traits: [String: NameTraits] = {
        var map: [String: NameTraits] = [:]
        for (name, entry) in StaticHeaderTable.byName { map[name] = NameTraits(staticEntry: entry) }
        for name in neverIndexedNames { map[name, default: NameTraits()].neverIndex = true }
        for name in uniqueValueNames { map[name, default: NameTraits()].uniqueValue = true }
        return map
    }()

    private var table: IndexedHeaderTable
    /// Size updates owed at the start of the next block (RFC 7541 §4.2): the smallest
    /// size set since the last block, then the final one.
    private var pendingMinimum: Int?
    private var pendingFinal: Int?

    public var useHuffman: Bool
    public var indexingPolicy: IndexingPolicy = .automatic

    /// Current dynamic table size in RFC 7541 §4.1 octets (for tests and diagnostics).
    public var dynamicTableSize: Int { table.dynamic.size }
    /// Current dynamic table capacity.
    public var dynamicTableCapacity: Int { table.dynamic.capacity }
    /// Number of entries in the dynamic table.
    public var dynamicTableCount: Int { table.dynamic.count }

    /// - Parameter maxTableSize: the dynamic table size both sides start from (4096 in
    ///   HTTP/2 until the peer's SETTINGS say otherwise).
    ///   - uniqueValueNames: more names whose values rarely repeat (a provider's per-message
    ///     ids, e.g. APNs's `apns-id`), treated like the built-in ones under `.automatic`.
    public init(maxTableSize: Int = 4096, useHuffman: Bool = true, uniqueValueNames: Set<String> = []) {
        table = IndexedHeaderTable(capacity: min(maxTableSize, Self.tableSizeCeiling), tracksLookups: true)
        self.useHuffman = useHuffman
        self.extraUniqueValueNames = uniqueValueNames
    }

    /// The caller's names of rarely repeating values (empty for most: no extra lookup then).
    private let extraUniqueValueNames: Set<String>

    /// Applies the peer's SETTINGS_HEADER_TABLE_SIZE: the encoder uses
    /// `min(size, tableSizeCeiling)` and announces it with a dynamic table size update at
    /// the start of the next block (two updates if it shrank and then grew again).
    public mutating func setMaxTableSize(_ size: Int) {
        let size = max(0, min(size, Self.tableSizeCeiling))
        pendingMinimum = min(pendingMinimum ?? size, size)
        pendingFinal = size
    }

    /// Appends one header block encoding `headers`, in order.
    public mutating func encode(_ headers: [HeaderField], into buffer: inout [UInt8]) {
        buffer.reserveCapacity(buffer.count + headers.count * 16)
        emitPendingSizeUpdates(into: &buffer)
        for h in headers { encodeField(name: h.name, value: h.value, neverIndex: h.neverIndex, into: &buffer) }
    }

    /// Appends one header block encoding `(name, value)` pairs, in order.
    public mutating func encode(_ headers: [(String, String)], into buffer: inout [UInt8]) {
        buffer.reserveCapacity(buffer.count + headers.count * 16)
        emitPendingSizeUpdates(into: &buffer)
        for (name, value) in headers { encodeField(name: name, value: value, neverIndex: false, into: &buffer) }
    }

    /// Begins a block field by field without building an array (for hot paths): call
    /// ``beginBlock(into:)`` once, then ``encodeField(name:value:neverIndex:into:)``.
    public mutating func beginBlock(into buffer: inout [UInt8]) {
        emitPendingSizeUpdates(into: &buffer)
    }

    private mutating func emitPendingSizeUpdates(into buffer: inout [UInt8]) {
        guard let final = pendingFinal, let minimum = pendingMinimum else { return }
        pendingFinal = nil
        pendingMinimum = nil
        // §4.2: "If the maximum size is reduced ... and then increased, the smallest
        // maximum table size that occurs in that interval MUST be signaled".
        if minimum < final {
            encodeInteger(minimum, prefixBits: 5, flags: 0x20, into: &buffer)
            table.dynamic.setCapacity(minimum)
        }
        encodeInteger(final, prefixBits: 5, flags: 0x20, into: &buffer)
        table.dynamic.setCapacity(final)
    }

    /// Appends `:status` as one indexed byte when the static table holds it with that value
    /// (RFC 7541 Appendix A: 200, 204, 206, 304, 400, 404, 500) and returns true: the bytes
    /// ``encodeField(name:value:neverIndex:into:)`` writes for it, without its name and value
    /// lookups (the static full match comes first there, and the tables are left unchanged).
    /// Returns false, writing nothing, for any other status.
    public mutating func encodeStaticStatus(_ status: Int, into buffer: inout [UInt8]) -> Bool {
        guard status >= 0, status < StaticHeaderTable.statusIndex.count else { return false }
        let index = StaticHeaderTable.statusIndex[status]
        guard index != 0 else { return false }
        // §6.1 Indexed Header Field: 1xxxxxxx, the index fits the 7-bit prefix.
        buffer.append(0x80 | index)
        return true
    }

    /// Appends the representation of one field (after ``beginBlock(into:)``).
    public mutating func encodeField(name: String, value: String, neverIndex: Bool, into buffer: inout [UInt8]) {
        let traits = Self.traits[name]
        if neverIndex || traits?.neverIndex == true {
            // §6.2.3 Literal Header Field Never Indexed: 0001xxxx, name reference only.
            let nameIndex = traits?.staticEntry?.firstIndex
                ?? table.dynamic.index(ofName: name).map { $0 + StaticHeaderTable.count + 1 }
            if let i = nameIndex {
                encodeInteger(i, prefixBits: 4, flags: 0x10, into: &buffer)
            } else {
                buffer.append(0x10)
                writeString(name, into: &buffer)
            }
            writeString(value, into: &buffer)
            return
        }
        let uniqueValue = indexingPolicy == .automatic
            && (traits?.uniqueValue == true || (!extraUniqueValueNames.isEmpty && extraUniqueValueNames.contains(name)))
        let match = table.find(name: name, value: value, staticEntry: traits?.staticEntry,
                               matchDynamicValue: !uniqueValue)
        switch match {
        case .full(let i):
            // §6.1 Indexed Header Field.
            encodeInteger(i, prefixBits: 7, flags: 0x80, into: &buffer)
        case .name(let i):
            if shouldIndex(name: name, value: value, nameKnown: true, uniqueValue: uniqueValue) {
                // §6.2.1 Literal Header Field with Incremental Indexing, indexed name.
                encodeInteger(i, prefixBits: 6, flags: 0x40, into: &buffer)
                writeString(value, into: &buffer)
                table.dynamic.add(name: name, value: value)
            } else {
                // §6.2.2 Literal Header Field without Indexing, indexed name.
                encodeInteger(i, prefixBits: 4, flags: 0x00, into: &buffer)
                writeString(value, into: &buffer)
            }
        case .none:
            if shouldIndex(name: name, value: value, nameKnown: false, uniqueValue: uniqueValue) {
                buffer.append(0x40)
                writeString(name, into: &buffer)
                writeString(value, into: &buffer)
                table.dynamic.add(name: name, value: value)
            } else {
                buffer.append(0x00)
                writeString(name, into: &buffer)
                writeString(value, into: &buffer)
            }
        }
    }

    @inline(__always)
    private func shouldIndex(name: String, value: String, nameKnown: Bool, uniqueValue: Bool) -> Bool {
        switch indexingPolicy {
        case .never: return false
        case .always: return DynamicHeaderTable.entrySize(name: name, value: value) <= table.dynamic.capacity
        case .automatic:
            guard DynamicHeaderTable.entrySize(name: name, value: value) * 4 <= table.dynamic.capacity * 3 else {
                return false
            }
            // A unique-value field is indexed only to put its name in the table.
            return !nameKnown || !uniqueValue
        }
    }

    /// §5.2 String Literal, Huffman-coded when shorter.
    @inline(__always)
    private func writeString(_ string: String, into buffer: inout [UInt8]) {
        var s = string
        let huffman = useHuffman
        s.withUTF8 { bytes in
            if huffman {
                let encoded = HuffmanCoding.encodedLength(bytes)
                if encoded <= bytes.count {  // ties go to Huffman, as in RFC 7541 C.6.2
                    encodeInteger(encoded, prefixBits: 7, flags: 0x80, into: &buffer)
                    let start = buffer.count
                    buffer.append(contentsOf: repeatElement(0, count: encoded))
                    buffer.withUnsafeMutableBufferPointer { out in
                        HuffmanCoding.encode(bytes, into: UnsafeMutableBufferPointer(rebasing: out[start...]))
                    }
                    return
                }
            }
            encodeInteger(bytes.count, prefixBits: 7, flags: 0x00, into: &buffer)
            buffer.append(contentsOf: bytes)
        }
    }
}
