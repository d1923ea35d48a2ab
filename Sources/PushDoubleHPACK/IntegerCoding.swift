/// HPACK prefix integers (RFC 7541 §5.1) as free functions: internal, exercised by tests.
///
/// A value below `2^N - 1` fits in the N-bit prefix; larger values fill the prefix with
/// ones and continue in 7-bit groups, least significant first, with the high bit of
/// each byte saying "more follows".

/// Largest integer the decoder accepts. Every HPACK integer is an index, a string length
/// or a table size, all far below this; anything larger is an "implementation limit"
/// decoding error (RFC 7541 §5.1), never a trap.
let hpackIntegerLimit = Int(Int32.max)

/// Appends `value` with an `prefixBits`-bit prefix; `flags` supplies the bits above the
/// prefix in the first byte (e.g. 0x80 for an indexed field).
@inline(__always)
func encodeInteger(_ value: Int, prefixBits: Int, flags: UInt8, into buffer: inout [UInt8]) {
    let max = (1 << prefixBits) - 1
    if value < max {
        buffer.append(flags | UInt8(truncatingIfNeeded: value))
        return
    }
    buffer.append(flags | UInt8(truncatingIfNeeded: max))
    var rest = UInt(value - max)
    while rest >= 128 {
        buffer.append(UInt8(truncatingIfNeeded: rest & 0x7f) | 0x80)
        rest >>= 7
    }
    buffer.append(UInt8(truncatingIfNeeded: rest))
}

/// Decodes a prefix integer starting at `offset` (the byte holding the prefix) and
/// advances `offset` past it.
///
/// - Throws: ``HPACKError/truncatedInteger(offset:)`` if the block ends first,
///   ``HPACKError/integerOverflow(offset:limit:)`` above ``hpackIntegerLimit`` or after
///   more continuation bytes than any value within the limit needs.
@inline(__always)
func decodeInteger(_ bytes: UnsafeRawBufferPointer, offset: inout Int, prefixBits: Int) throws(HPACKError) -> Int {
    let start = offset
    guard offset < bytes.count else { throw .truncatedInteger(offset: start) }
    let max = (1 << prefixBits) - 1
    let first = Int(bytes[offset]) & max
    offset += 1
    if first < max { return first }
    var value = max
    var shift = 0
    while true {
        guard offset < bytes.count else { throw .truncatedInteger(offset: start) }
        let b = Int(bytes[offset])
        offset += 1
        // Five 7-bit groups already cover 2^35 > limit: a sixth (even 0x80 padding) is junk.
        guard shift <= 28 else { throw .integerOverflow(offset: start, limit: hpackIntegerLimit) }
        value += (b & 0x7f) << shift
        guard value <= hpackIntegerLimit else { throw .integerOverflow(offset: start, limit: hpackIntegerLimit) }
        if b & 0x80 == 0 { return value }
        shift += 7
    }
}
