/// The container around the DEFLATE data.
public enum InflateFormat: Sendable, Equatable {
    /// Bare RFC 1951 data, no header or checksum.
    case raw
    /// RFC 1950: 2-byte header, DEFLATE data, Adler-32 trailer.
    case zlib
    /// RFC 1952: one or more members (header, DEFLATE data, CRC-32 + ISIZE), all decoded.
    case gzip
    /// HTTP `Content-Encoding: deflate`: zlib-wrapped per RFC 9110 §8.4.1.2, but raw DEFLATE is
    /// accepted too (many servers send it). Decided on the first two bytes: a valid zlib header
    /// (CM 8, CINFO ≤ 7, check bits) means zlib, anything else raw. A raw stream can only look
    /// like a zlib header if it starts with a non-final stored block with non-zero padding bits,
    /// which no compressor writes.
    case zlibOrRaw
}

/// Hard bounds on what one stream may produce.
public struct InflateLimits: Sendable, Equatable {
    /// The decoded size the stream may reach; one more byte throws `.outputLimitExceeded`.
    public var maxOutputBytes: Int
    /// If set, the decoded size may not exceed this many times the compressed bytes fed so far…
    public var maxExpansionRatio: Int?
    /// …once it is past this many bytes (small inputs legitimately expand a lot).
    public var ratioAllowanceBytes: Int

    public init(maxOutputBytes: Int, maxExpansionRatio: Int? = nil, ratioAllowanceBytes: Int = 64 * 1024) {
        precondition(maxOutputBytes >= 0 && ratioAllowanceBytes >= 0, "limits must not be negative")
        precondition(maxExpansionRatio.map { $0 >= 1 } ?? true, "maxExpansionRatio must be at least 1")
        self.maxOutputBytes = maxOutputBytes
        self.maxExpansionRatio = maxExpansionRatio
        self.ratioAllowanceBytes = ratioAllowanceBytes
    }
}

/// What to do with bytes after the end of the stream (after the last gzip member).
public enum TrailingDataPolicy: Sendable, Equatable {
    /// Throw `.trailingData` (the default: a request body should be exactly one stream).
    case reject
    /// Discard them, as gzip(1) does ("trailing garbage ignored"). For gzip, bytes that start
    /// with 1f 8b are still decoded as a further member.
    case ignore
}
