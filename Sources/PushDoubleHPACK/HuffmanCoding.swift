/// HPACK Huffman encoding and decoding (RFC 7541 §5.2) over the code in `HuffmanTable`.
///
/// Decoding is a table-driven state machine consuming 4 bits at a time: the states are
/// the 256 internal nodes of the Huffman tree, and each (state, nibble) entry says which
/// state follows, whether a symbol was completed on the way (at most one can be, the
/// shortest code being 5 bits), and whether the walk hit EOS. The table is built once
/// from the code, so it cannot disagree with it.
enum HuffmanCoding {
    // Entry layout: bits 0-7 next state, bits 8-15 emitted symbol, bits 16-18 flags.
    private static let flagEmit: UInt32 = 1 << 16
    private static let flagFail: UInt32 = 1 << 17
    private static let flagAccept: UInt32 = 1 << 18

    /// A decoding state machine plus, per state, the padding it stands for.
    struct DecodeTables: Sendable {
        /// `transitions[state << 4 | nibble]`.
        var transitions: [UInt32]
        /// Depth in bits of each state (internal node) below the root.
        var depth: [UInt8]
    }

    static let tables: DecodeTables = buildTables()

    private static func buildTables() -> DecodeTables {
        // children[node][bit]: >= 0 internal node id, < 0 leaf -(symbol + 1).
        var children: [[Int]] = [[0, 0]]
        var depth: [UInt8] = [0]
        var allOnes: [Bool] = [true]
        var filled: [[Bool]] = [[false, false]]
        for sym in 0...HuffmanTable.eos {
            let code = HuffmanTable.codes[sym]
            let len = Int(HuffmanTable.lengths[sym])
            var node = 0
            for i in stride(from: len - 1, through: 0, by: -1) {
                let bit = Int((code >> UInt32(i)) & 1)
                if i == 0 {
                    children[node][bit] = -(sym + 1)
                    filled[node][bit] = true
                } else if filled[node][bit] {
                    node = children[node][bit]
                } else {
                    let id = children.count
                    children.append([0, 0])
                    filled.append([false, false])
                    depth.append(depth[node] + 1)
                    allOnes.append(allOnes[node] && bit == 1)
                    children[node][bit] = id
                    filled[node][bit] = true
                    node = id
                }
            }
        }
        precondition(children.count == 256, "HPACK Huffman code is not a complete prefix code")
        // A state is a valid place to stop when the bits since the last symbol are a
        // proper prefix of EOS (all ones) of at most 7 bits (RFC 7541 §5.2).
        func accepting(_ node: Int) -> Bool { allOnes[node] && depth[node] <= 7 }
        var transitions = [UInt32](repeating: 0, count: 256 * 16)
        for state in 0..<256 {
            for nibble in 0..<16 {
                var node = state
                var entry: UInt32 = 0
                for i in stride(from: 3, through: 0, by: -1) {
                    let child = children[node][(nibble >> i) & 1]
                    if child >= 0 {
                        node = child
                        continue
                    }
                    let sym = -child - 1
                    if sym == HuffmanTable.eos {
                        entry |= flagFail
                        break
                    }
                    entry |= flagEmit | UInt32(sym) << 8
                    node = 0
                }
                if entry & flagFail == 0 {
                    entry |= UInt32(node)
                    if accepting(node) { entry |= flagAccept }
                }
                transitions[state << 4 | nibble] = entry
            }
        }
        return DecodeTables(transitions: transitions, depth: depth)
    }

    /// Number of bytes `bytes` takes once Huffman-encoded (padding included).
    @inline(__always)
    static func encodedLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        HuffmanTable.lengths.withUnsafeBufferPointer { lengths in
            var bits = 0
            for b in bytes { bits += Int(lengths[Int(b)]) }
            return (bits + 7) >> 3
        }
    }

    /// Appends the Huffman encoding of `bytes`, padded with the most significant bits of
    /// EOS (all ones) to a byte boundary.
    static func encode(_ bytes: UnsafeBufferPointer<UInt8>, into buffer: inout [UInt8]) {
        let start = buffer.count
        let length = encodedLength(bytes)
        buffer.append(contentsOf: repeatElement(0, count: length))
        buffer.withUnsafeMutableBufferPointer { out in
            encode(bytes, into: UnsafeMutableBufferPointer(rebasing: out[start...]))
        }
    }

    /// Writes the Huffman encoding of `bytes` into `out`, which must be exactly
    /// `encodedLength(bytes)` long.
    static func encode(_ bytes: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) {
        HuffmanTable.codes.withUnsafeBufferPointer { codes in
            HuffmanTable.lengths.withUnsafeBufferPointer { lengths in
                var acc: UInt64 = 0
                var bits: UInt64 = 0
                var o = 0
                for b in bytes {
                    let len = UInt64(lengths[Int(b)])
                    acc = (acc << len) | UInt64(codes[Int(b)])
                    bits += len
                    // Flush whole bytes; at most 30 + 7 bits are ever pending.
                    while bits >= 8 {
                        bits -= 8
                        out[o] = UInt8(truncatingIfNeeded: acc >> bits)
                        o += 1
                    }
                }
                if bits > 0 {
                    out[o] = UInt8(truncatingIfNeeded: (acc << (8 - bits)) | (0xff >> bits))
                    o += 1
                }
                precondition(o == out.count, "Huffman output buffer has the wrong size")
            }
        }
    }

    /// Decodes a Huffman string into `out` (which must hold `bytes.count * 8 / 5 + 1`
    /// bytes) and returns how many bytes were written.
    ///
    /// - Parameter baseOffset: offset of `bytes` in the header block, for error evidence.
    /// - Throws: ``HPACKError/huffmanEOS(offset:)``,
    ///   ``HPACKError/invalidHuffmanPadding(paddingBits:)``.
    static func decode(_ bytes: UnsafeRawBufferPointer, into out: UnsafeMutableBufferPointer<UInt8>,
                       baseOffset: Int) throws(HPACKError) -> Int {
        let result: Result<Int, HPACKError> = tables.transitions.withUnsafeBufferPointer { table in
            var state = 0
            var accept = true
            var written = 0
            for i in 0..<bytes.count {
                let byte = Int(bytes[i])
                var e = table[state << 4 | byte >> 4]
                if e & flagFail != 0 { return .failure(.huffmanEOS(offset: baseOffset + i)) }
                if e & flagEmit != 0 {
                    out[written] = UInt8(truncatingIfNeeded: e >> 8)
                    written += 1
                }
                state = Int(e & 0xff)
                e = table[state << 4 | byte & 0xf]
                if e & flagFail != 0 { return .failure(.huffmanEOS(offset: baseOffset + i)) }
                if e & flagEmit != 0 {
                    out[written] = UInt8(truncatingIfNeeded: e >> 8)
                    written += 1
                }
                state = Int(e & 0xff)
                accept = e & flagAccept != 0
            }
            if !accept { return .failure(.invalidHuffmanPadding(paddingBits: Int(tables.depth[state]))) }
            return .success(written)
        }
        return try result.get()
    }
}
