/// Two-level decoding tables for DEFLATE prefix codes (RFC 1951 §3.2.2), built the way zlib's
/// `inflate_table` validates code lengths.
///
/// A table is `1 << rootBits` primary entries indexed by the next `rootBits` input bits
/// (LSB-first, so codes are stored bit-reversed), followed by sub-tables for longer codes.
/// Each entry is a packed `UInt32`:
///
/// | bits  | meaning |
/// |-------|---------|
/// | 0–3   | bits to consume (the code length; `rootBits` for a sub-table pointer) |
/// | 4–7   | extra bits after the code (length / distance), or a sub-table's index bits |
/// | 8–10  | `HuffmanEntry.Kind` |
/// | 16–31 | literal byte, length or distance base, sub-table offset, or the bad symbol |
enum HuffmanEntry {
    enum Kind: UInt32 {
        case literal = 0, base = 1, endOfBlock = 2, subTable = 3, invalidCode = 4, invalidSymbol = 5
    }

    @inline(__always) static func make(_ kind: Kind, value: Int, length: Int, extra: Int = 0) -> UInt32 {
        UInt32(value) << 16 | kind.rawValue << 8 | UInt32(extra) << 4 | UInt32(length)
    }
    @inline(__always) static func length(_ e: UInt32) -> UInt32 { e & 0xF }
    @inline(__always) static func extra(_ e: UInt32) -> UInt32 { (e >> 4) & 0xF }
    @inline(__always) static func kind(_ e: UInt32) -> UInt32 { (e >> 8) & 0x7 }
    @inline(__always) static func value(_ e: UInt32) -> Int { Int(e >> 16) }

    /// An entry that decodes nothing: bit patterns an incomplete tree leaves unused.
    static let invalid = make(.invalidCode, value: 0, length: 1)
}

/// The fixed facts of RFC 1951 §3.2.5 and §3.2.6–3.2.7.
enum DeflateConstants {
    /// Length base for symbols 257…285.
    static let lengthBase: [Int] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                    35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                     3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    /// Distance base for symbols 0…29.
    static let distanceBase: [Int] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
                                      257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
                                      8193, 12289, 16385, 24577]
    static let distanceExtra: [Int] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
                                       7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]
    /// The order the HCLEN code-length code lengths arrive in.
    static let codeLengthOrder: [Int] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    static let literalLengthRootBits = 10
    static let distanceRootBits = 8
    static let codeLengthRootBits = 7
    /// Worst-case table sizes: every sub-table pointer covers at least two codes, so at most
    /// 288/2 (30/2) sub-tables of at most 2^(15-root) entries each.
    static let literalLengthTableSize = (1 << 10) + 144 * (1 << 5)
    static let distanceTableSize = (1 << 8) + 16 * (1 << 7)
    static let codeLengthTableSize = 1 << 7
}

enum HuffmanBuilder {
    /// Builds the table for `count` code lengths at `lengths` into `table`.
    /// Returns nil on success, or why the lengths are refused.
    static func build(lengths: UnsafePointer<UInt8>, count: Int, tree: HuffmanTree,
                      rootBits: Int, table: UnsafeMutablePointer<UInt32>, capacity: Int) -> HuffmanTreeProblem? {
        var counts = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &counts) { raw -> HuffmanTreeProblem? in
            let bl = raw.baseAddress!.assumingMemoryBound(to: Int.self)
            for i in 0..<count { bl[Int(lengths[i])] += 1 }
            var maxLen = 0
            for len in stride(from: 15, through: 1, by: -1) where bl[len] != 0 { maxLen = len; break }
            let rootSize = 1 << rootBits
            if maxLen == 0 {
                // No codes at all: zlib accepts this (it matters only for the distance code,
                // where a block of literals needs none); every pattern is an invalid code.
                if tree == .codeLengths { return .incomplete }
                table.update(repeating: HuffmanEntry.invalid, count: rootSize)
                return nil
            }
            var left = 1
            for len in 1...15 {
                left <<= 1
                left -= bl[len]
                if left < 0 { return .overSubscribed }
            }
            if left > 0 {
                if tree == .codeLengths || maxLen != 1 { return .incomplete }
                table.update(repeating: HuffmanEntry.invalid, count: rootSize)
            }
            // Canonical first code per length (RFC 1951 §3.2.2 step 2).
            var next = [Int](repeating: 0, count: 16)
            var code = 0
            bl[0] = 0
            for len in 1...15 {
                code = (code + bl[len - 1]) << 1
                next[len] = code
            }
            // Sub-table sizes: per root prefix, the longest code under it.
            if maxLen > rootBits {
                var subBits = [UInt8](repeating: 0, count: rootSize)
                var probe = next
                for sym in 0..<count {
                    let len = Int(lengths[sym])
                    guard len > rootBits else { continue }
                    let c = probe[len]
                    probe[len] += 1
                    let prefix = reverse(c >> (len - rootBits), rootBits)
                    subBits[prefix] = max(subBits[prefix], UInt8(len - rootBits))
                }
                var offset = rootSize
                for prefix in 0..<rootSize where subBits[prefix] != 0 {
                    let bits = Int(subBits[prefix])
                    precondition(offset + (1 << bits) <= capacity, "Huffman table capacity")
                    table[prefix] = HuffmanEntry.make(.subTable, value: offset, length: rootBits, extra: bits)
                    offset += 1 << bits
                }
            }
            for sym in 0..<count {
                let len = Int(lengths[sym])
                guard len != 0 else { continue }
                let c = next[len]
                next[len] += 1
                let r = reverse(c, len)
                let entry = entryFor(symbol: sym, length: len, tree: tree)
                if len <= rootBits {
                    var i = r
                    while i < rootSize { table[i] = entry; i += 1 << len }
                } else {
                    let pointer = table[r & (rootSize - 1)]
                    let base = HuffmanEntry.value(pointer)
                    let size = 1 << Int(HuffmanEntry.extra(pointer))
                    var i = r >> rootBits
                    while i < size { table[base + i] = entry; i += 1 << (len - rootBits) }
                }
            }
            return nil
        }
    }

    @inline(__always) static func reverse(_ code: Int, _ length: Int) -> Int {
        var c = code, r = 0
        for _ in 0..<length { r = (r << 1) | (c & 1); c >>= 1 }
        return r
    }

    static func entryFor(symbol: Int, length: Int, tree: HuffmanTree) -> UInt32 {
        switch tree {
        case .codeLengths:
            return HuffmanEntry.make(.literal, value: symbol, length: length)
        case .literalLength:
            if symbol < 256 { return HuffmanEntry.make(.literal, value: symbol, length: length) }
            if symbol == 256 { return HuffmanEntry.make(.endOfBlock, value: 0, length: length) }
            if symbol <= 285 {
                return HuffmanEntry.make(.base, value: DeflateConstants.lengthBase[symbol - 257], length: length,
                                         extra: DeflateConstants.lengthExtra[symbol - 257])
            }
            return HuffmanEntry.make(.invalidSymbol, value: symbol, length: length)
        case .distance:
            if symbol < 30 {
                return HuffmanEntry.make(.base, value: DeflateConstants.distanceBase[symbol], length: length,
                                         extra: DeflateConstants.distanceExtra[symbol])
            }
            return HuffmanEntry.make(.invalidSymbol, value: symbol, length: length)
        }
    }
}
