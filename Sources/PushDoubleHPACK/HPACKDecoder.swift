#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
/// Decodes HPACK header blocks (RFC 7541) into header fields, keeping the dynamic table.
///
/// A value type with no I/O: feed it each complete header block (HEADERS plus any
/// CONTINUATION payloads joined) of one connection, in order. Any ``HPACKError`` other
/// than ``HPACKError/headerListTooLarge(size:limit:)`` leaves the table out of sync with
/// the peer's encoder, and the connection must end with COMPRESSION_ERROR.
///
/// Threading: a plain value; use it from one place at a time (the connection's loop).
public struct HPACKDecoder: Sendable {
    private var table: IndexedHeaderTable
    /// Set when ``maxTableSize`` dropped below the table's capacity: the peer's next
    /// block must begin with a size update (RFC 7541 §4.2).
    private var sizeUpdateRequired = false
    /// Long Huffman literals decoded lately (a bearer token, which encoders send as a literal
    /// on every request and never index): a repeat costs a compare instead of a decode.
    private var recentLiterals = RecentHuffmanLiterals()

    /// The SETTINGS_HEADER_TABLE_SIZE we advertised. A size update above it is an error;
    /// lowering it below the current capacity requires the next block to start with a
    /// size update. Set it when the peer has acknowledged the new setting.
    public var maxTableSize: Int {
        didSet {
            if maxTableSize < table.dynamic.capacity { sizeUpdateRequired = true }
        }
    }

    /// Largest decoded header list accepted (RFC 9113 §6.5.2 accounting: name + value +
    /// 32 per field), usually our SETTINGS_MAX_HEADER_LIST_SIZE.
    public var maxHeaderListSize: Int

    /// Current dynamic table size in RFC 7541 §4.1 octets (for tests and diagnostics).
    public var dynamicTableSize: Int { table.dynamic.size }
    /// Current dynamic table capacity (the last size update, or the initial size).
    public var dynamicTableCapacity: Int { table.dynamic.capacity }
    /// Number of entries in the dynamic table.
    public var dynamicTableCount: Int { table.dynamic.count }

    public init(maxTableSize: Int = 4096, maxHeaderListSize: Int = 16384) {
        self.maxTableSize = maxTableSize
        self.maxHeaderListSize = maxHeaderListSize
        table = IndexedHeaderTable(capacity: maxTableSize, tracksLookups: false)
    }

    /// The dynamic table entry at a 1-based HPACK index (62 = newest), for tests.
    public func dynamicEntry(hpackIndex index: Int) -> HeaderField? {
        guard let nv = try? table.field(at: index), index > StaticHeaderTable.count else { return nil }
        return HeaderField(name: nv.name, value: nv.value)
    }

    /// Decodes one complete header block.
    public mutating func decode(_ block: [UInt8]) throws(HPACKError) -> [HeaderField] {
        let result: Result<[HeaderField], HPACKError> = block.withUnsafeBytes { raw in
            do throws(HPACKError) { return .success(try self.decode(raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Decodes one complete header block held in raw memory (no copy is made).
    public mutating func decode(_ bytes: UnsafeRawBufferPointer) throws(HPACKError) -> [HeaderField] {
        var fields: [HeaderField] = []
        fields.reserveCapacity(12)
        try decode(bytes, into: &fields)
        return fields
    }

    /// Decodes one complete header block, handing each field to `sink` as it is decoded (no
    /// list in between: the strings move into the sink). Fields past
    /// ``maxHeaderListSize`` are decoded (the table stays in sync) but not handed over, and
    /// the block then ends with ``HPACKError/headerListTooLarge(size:limit:)``.
    public mutating func decode<Sink: HPACKFieldSink>(_ block: [UInt8], into sink: inout Sink) throws(HPACKError) {
        let failure: HPACKError? = block.withUnsafeBytes { raw in
            do throws(HPACKError) { try self.decode(raw, into: &sink); return nil } catch { return error }
        }
        if let failure { throw failure }
    }

    /// ``decode(_:into:)-([UInt8],_)`` of a block held in raw memory.
    public mutating func decode<Sink: HPACKFieldSink>(_ bytes: UnsafeRawBufferPointer, into sink: inout Sink) throws(HPACKError) {
        var offset = 0
        var sawField = false
        var listSize = 0
        let listLimit = maxHeaderListSize
        let end = bytes.count

        while offset < end {
            let first = bytes[offset]
            let start = offset
            if first & 0xe0 == 0x20 {
                // §6.3 Dynamic Table Size Update: 001xxxxx.
                // §4.2: "This dynamic table size update MUST occur at the beginning of
                // the first header block following the change to the dynamic table size."
                guard !sawField else { throw .tableSizeUpdateNotAtStart(offset: start) }
                let newSize = try decodeInteger(bytes, offset: &offset, prefixBits: 5)
                // §6.3: "The new maximum size MUST be lower than or equal to the limit
                // determined by the protocol using HPACK."
                guard newSize <= maxTableSize else {
                    throw .tableSizeUpdateTooLarge(requested: newSize, limit: maxTableSize)
                }
                table.dynamic.setCapacity(newSize)
                sizeUpdateRequired = false
                continue
            }
            if !sawField {
                guard !sizeUpdateRequired else {
                    throw .missingTableSizeUpdate(limit: maxTableSize, current: table.dynamic.capacity)
                }
                sawField = true
            }

            let name: String
            let value: String
            var neverIndex = false
            if first & 0x80 != 0 {
                // §6.1 Indexed Header Field: 1xxxxxxx. "The index value of 0 is not used.
                // It MUST be treated as a decoding error if found."
                let index = try decodeInteger(bytes, offset: &offset, prefixBits: 7)
                let nv = try table.field(at: index)
                name = nv.name
                value = nv.value
            } else {
                // §6.2.1 incremental indexing 01xxxxxx (6-bit index); §6.2.2 without
                // indexing 0000xxxx and §6.2.3 never indexed 0001xxxx (4-bit index).
                let incremental = first & 0x40 != 0
                neverIndex = !incremental && first & 0x10 != 0
                let index = try decodeInteger(bytes, offset: &offset, prefixBits: incremental ? 6 : 4)
                if index == 0 {
                    name = try readString(bytes, offset: &offset)
                } else {
                    name = try table.field(at: index).name
                }
                // A never-indexed value (§6.2.3: credentials such as `authorization`) comes
                // back literally in every request, so it is remembered whatever its length.
                value = try readString(bytes, offset: &offset, repeats: neverIndex)
                if incremental { table.dynamic.add(name: name, value: value) }
            }

            // RFC 9113 §6.5.2: "The size of a field list is calculated based on the
            // uncompressed size of fields, including the length of the name and value
            // in octets plus an overhead of 32 octets for each field." Keep decoding
            // past the limit so the dynamic table stays in sync, but stop collecting.
            listSize += name.utf8.count + value.utf8.count + 32
            if listSize <= listLimit {
                sink.field(name: name, value: value, neverIndex: neverIndex)
            }
        }
        if !sawField && sizeUpdateRequired {
            throw .missingTableSizeUpdate(limit: maxTableSize, current: table.dynamic.capacity)
        }
        if listSize > listLimit { throw .headerListTooLarge(size: listSize, limit: listLimit) }
    }

    /// §5.2 String Literal: H bit, 7-bit prefix length, then that many octets.
    @inline(__always)
    private mutating func readString(_ bytes: UnsafeRawBufferPointer, offset: inout Int, repeats: Bool = false) throws(HPACKError) -> String {
        guard offset < bytes.count else { throw .truncatedBlock(offset: offset) }
        let huffman = bytes[offset] & 0x80 != 0
        let start = offset
        let length = try decodeInteger(bytes, offset: &offset, prefixBits: 7)
        let available = bytes.count - offset
        guard length <= available else { throw .stringPastEnd(offset: start, length: length, available: available) }
        let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length])
        let base = offset
        offset += length
        guard huffman else { return String(decoding: slice, as: UTF8.self) }
        let remember = length >= (repeats ? RecentHuffmanLiterals.minimumRepeatedLength : RecentHuffmanLiterals.minimumLength)
        if remember, let known = recentLiterals.value(for: slice) { return known }
        var failure: HPACKError?
        // Huffman output is at most 8/5 of the input (the shortest code is 5 bits).
        let string = String(unsafeUninitializedCapacity: length * 8 / 5 + 1) { out in
            do throws(HPACKError) { return try HuffmanCoding.decode(slice, into: out, baseOffset: base) } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw failure }
        if remember { recentLiterals.remember(slice, as: string) }
        return string
    }
}

/// A few recently decoded long Huffman-coded literals, by their encoded bytes (identical
/// bytes decode identically, so a hit is exact). Round-robin replacement; strings shorter
/// than ``minimumLength`` encoded bytes are decoded every time (cheap, and often distinct).
struct RecentHuffmanLiterals: Sendable {
    /// Encoded length from which a literal is remembered (a JWT is ~150 bytes; paths less).
    static let minimumLength = 64
    /// The same for a never-indexed value (a Bearer access token of ~75 characters encodes
    /// to fewer than 64 bytes, and is sent literally in every request).
    static let minimumRepeatedLength = 16
    static let capacity = 4
    private var encoded: [[UInt8]] = []
    private var values: [String] = []
    private var next = 0

    func value(for bytes: UnsafeRawBufferPointer) -> String? {
        for i in encoded.indices where encoded[i].count == bytes.count {
            if encoded[i].withUnsafeBytes({ memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }) { return values[i] }
        }
        return nil
    }

    mutating func remember(_ bytes: UnsafeRawBufferPointer, as value: String) {
        if encoded.count < Self.capacity {
            encoded.append(Array(bytes)); values.append(value)
        } else {
            encoded[next] = Array(bytes); values[next] = value
            next = (next + 1) % Self.capacity
        }
    }
}
