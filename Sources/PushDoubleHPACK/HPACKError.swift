/// Why an HPACK header block could not be decoded; each case carries the evidence.
///
/// Every decoding failure is one of these (the decoder never traps on input). An HTTP/2
/// endpoint answers all of them except ``headerListTooLarge`` with a connection error
/// of type COMPRESSION_ERROR (RFC 9113 §4.3); ``headerListTooLarge`` leaves the
/// decoder's dynamic table consistent, so the connection may continue and only the
/// stream be refused.
public enum HPACKError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Index 0, or an index past the end of the static + dynamic table
    /// (RFC 7541 §2.3.3: "Indices strictly greater than the sum of the lengths of both
    /// tables MUST be treated as a decoding error"). `tableEntries` is the number of
    /// valid indices (61 + dynamic entries) at that moment.
    case invalidIndex(index: Int, tableEntries: Int)
    /// A prefix integer ran past the end of the block (`offset`: where it started).
    case truncatedInteger(offset: Int)
    /// A prefix integer did not fit the implementation limit (`limit`), RFC 7541 §5.1
    /// "Integer encodings that exceed implementation limits ... MUST be treated as
    /// decoding errors".
    case integerOverflow(offset: Int, limit: Int)
    /// A string literal's declared length runs past the end of the block.
    case stringPastEnd(offset: Int, length: Int, available: Int)
    /// The block ended in the middle of a representation (e.g. after the first byte
    /// of a literal, before its string).
    case truncatedBlock(offset: Int)
    /// Huffman padding longer than 7 bits, or not all ones (RFC 7541 §5.2).
    case invalidHuffmanPadding(paddingBits: Int)
    /// The EOS symbol appeared inside a Huffman string (RFC 7541 §5.2: "MUST be
    /// treated as a decoding error").
    case huffmanEOS(offset: Int)
    /// A dynamic table size update above the advertised maximum (RFC 7541 §6.3).
    case tableSizeUpdateTooLarge(requested: Int, limit: Int)
    /// A dynamic table size update after the first header field of a block
    /// (RFC 7541 §4.2).
    case tableSizeUpdateNotAtStart(offset: Int)
    /// The advertised maximum was lowered below the table's capacity but the block did
    /// not begin with the size update the encoder owes (RFC 7541 §4.2).
    case missingTableSizeUpdate(limit: Int, current: Int)
    /// The decoded header list exceeds the limit (RFC 9113 §6.5.2 size: name + value +
    /// 32 per field). The whole block was still decoded, so the dynamic table is in sync.
    case headerListTooLarge(size: Int, limit: Int)

    public var description: String {
        switch self {
        case let .invalidIndex(index, entries): "HPACK: invalid index \(index) (table has \(entries) entries)"
        case let .truncatedInteger(offset): "HPACK: truncated integer at offset \(offset)"
        case let .integerOverflow(offset, limit): "HPACK: integer at offset \(offset) exceeds \(limit)"
        case let .stringPastEnd(offset, length, available):
            "HPACK: string at offset \(offset) declares \(length) bytes, \(available) left"
        case let .truncatedBlock(offset): "HPACK: block truncated at offset \(offset)"
        case let .invalidHuffmanPadding(bits): "HPACK: invalid Huffman padding (\(bits) bits)"
        case let .huffmanEOS(offset): "HPACK: EOS inside Huffman string at offset \(offset)"
        case let .tableSizeUpdateTooLarge(requested, limit):
            "HPACK: table size update to \(requested) above the limit \(limit)"
        case let .tableSizeUpdateNotAtStart(offset): "HPACK: table size update at offset \(offset), not at block start"
        case let .missingTableSizeUpdate(limit, current):
            "HPACK: expected a table size update to at most \(limit) (table is \(current))"
        case let .headerListTooLarge(size, limit): "HPACK: header list size \(size) exceeds \(limit)"
        }
    }
}
