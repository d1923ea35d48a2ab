/// Every way a DEFLATE (RFC 1951), zlib (RFC 1950) or gzip (RFC 1952) stream can be refused.
/// Offsets are byte offsets into the whole compressed input fed so far (0-based).
public enum InflateError: Error, Equatable, Sendable {
    // MARK: Limits (decompression bombs)
    /// The output would exceed `InflateLimits.maxOutputBytes`; nothing past the limit was produced.
    case outputLimitExceeded(limit: Int)
    /// The output would exceed `maxExpansionRatio` × the compressed bytes fed so far (after the
    /// `ratioAllowanceBytes` grace).
    case expansionRatioExceeded(ratio: Int, inputBytes: Int, outputBytes: Int)

    // MARK: RFC 1951 DEFLATE
    /// BTYPE 11 (reserved), RFC 1951 §3.2.3.
    case invalidBlockType(offset: Int)
    /// A stored block whose NLEN is not the one's complement of LEN, RFC 1951 §3.2.4.
    case storedLengthMismatch(len: UInt16, nlen: UInt16, offset: Int)
    /// HLIT > 286 or HDIST > 30 in a dynamic block header (zlib's rule; RFC 1951 §3.2.7).
    case tooManyLengthOrDistanceSymbols(literalLength: Int, distance: Int, offset: Int)
    /// The code lengths do not form a usable prefix code (see `HuffmanTreeProblem`).
    case invalidHuffmanTree(HuffmanTree, HuffmanTreeProblem, offset: Int)
    /// Code-length symbol 16 ("repeat previous") as the very first code length.
    case repeatWithoutPreviousLength(offset: Int)
    /// A code-length repeat (16/17/18) runs past HLIT + HDIST lengths.
    case codeLengthRepeatOverflow(offset: Int)
    /// The literal/length code has no code for symbol 256 (end of block).
    case missingEndOfBlockCode(offset: Int)
    /// A bit pattern that no code of an (allowed) incomplete tree assigns.
    case invalidCode(HuffmanTree, offset: Int)
    /// Literal/length symbol 286 or 287 (only reachable through the fixed code).
    case invalidLiteralLengthSymbol(Int, offset: Int)
    /// Distance symbol 30 or 31 (only reachable through the fixed code).
    case invalidDistanceSymbol(Int, offset: Int)
    /// A back-reference before the start of the output (of this member).
    case distanceTooFarBack(distance: Int, available: Int, offset: Int)
    /// The input ended (at `finish()`) inside `part`.
    case truncatedInput(StreamPart)
    /// Bytes after the end of the stream, with `TrailingDataPolicy.reject`.
    case trailingData(offset: Int)

    // MARK: RFC 1952 gzip
    /// The member does not start with ID1 ID2 = 1f 8b.
    case notGzip(id1: UInt8, id2: UInt8, offset: Int)
    /// CM is not 8 (deflate), RFC 1952 §2.3.1.
    case unsupportedCompressionMethod(UInt8, offset: Int)
    /// FLG bits 5–7 are reserved and must be zero, RFC 1952 §2.3.1.2.
    case reservedFlagsSet(UInt8, offset: Int)
    /// FHCRC present and not the low 16 bits of the header's CRC-32.
    case headerChecksumMismatch(expected: UInt16, actual: UInt16)
    /// The member's CRC32 trailer does not match the decoded data.
    case crcMismatch(expected: UInt32, actual: UInt32)
    /// The member's ISIZE trailer does not match the decoded size mod 2^32.
    case sizeMismatch(expected: UInt32, actual: UInt32)

    // MARK: RFC 1950 zlib
    /// The 2-byte zlib header is not valid (see `ZlibHeaderProblem`).
    case invalidZlibHeader(ZlibHeaderProblem, cmf: UInt8, flg: UInt8)
    /// FDICT set: a preset dictionary is needed, which HTTP content codings never use.
    case presetDictionaryUnsupported
    /// The Adler-32 trailer does not match the decoded data.
    case adlerMismatch(expected: UInt32, actual: UInt32)
}

/// Which prefix code of a DEFLATE block an error is about.
public enum HuffmanTree: String, Sendable {
    /// The code-length code (HCLEN lengths, RFC 1951 §3.2.7).
    case codeLengths
    /// The literal/length code.
    case literalLength
    /// The distance code.
    case distance
}

/// Why a set of code lengths is refused (the rules zlib's `inflate_table` applies).
public enum HuffmanTreeProblem: String, Sendable {
    /// More codes than the code space holds (Kraft sum > 1).
    case overSubscribed
    /// Unused code space: allowed only for a literal/length or distance code made of a single
    /// code of length 1, and for a distance code with no codes at all.
    case incomplete
}

/// Why a zlib header is refused, RFC 1950 §2.2.
public enum ZlibHeaderProblem: String, Sendable {
    /// (CMF·256 + FLG) is not a multiple of 31.
    case checkBits
    /// CM is not 8.
    case method
    /// CINFO > 7 (window larger than 32 KiB).
    case windowSize
}

/// The part of the stream the input ended in.
public enum StreamPart: String, Sendable {
    case gzipHeader
    case zlibHeader
    case deflateData
    case trailer
}
