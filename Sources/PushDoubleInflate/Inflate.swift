/// One-shot decoding of a whole buffer in any `InflateFormat`.
public enum Inflate {
    /// Decodes the complete stream in `bytes`. The result never exceeds `limits`; its storage is
    /// grown by hand so it is never reserved beyond `maxOutputBytes` either.
    public static func decompress(_ bytes: [UInt8], format: InflateFormat, limits: InflateLimits,
                                  trailingData: TrailingDataPolicy = .reject) throws(InflateError) -> [UInt8] {
        let stream = InflateStream(format: format, limits: limits, trailingData: trailingData)
        var out: [UInt8] = []
        let cap = limits.maxOutputBytes
        out.reserveCapacity(min(cap, sizeHint(bytes, format: format)))
        try stream.feed(bytes) { appendBounded(&out, $0, limit: cap) }
        try stream.finish()
        return out
    }

    /// Appends `piece`, growing `out` geometrically but never reserving past `limit`
    /// (the decoder has already checked that `out.count + piece.count <= limit`).
    @inline(__always) static func appendBounded(_ out: inout [UInt8], _ piece: UnsafeBufferPointer<UInt8>, limit: Int) {
        let needed = out.count + piece.count
        if needed > out.capacity { out.reserveCapacity(min(limit, max(needed, out.capacity * 2))) }
        out.append(contentsOf: piece)
    }

    /// A first reservation for the result: gzip's last ISIZE (a claim, capped by DEFLATE's
    /// best ratio, ~1032:1, so a lying trailer cannot make us reserve much), else 4× the input.
    static func sizeHint(_ bytes: [UInt8], format: InflateFormat) -> Int {
        let bound = 1032 * bytes.count + 1024
        guard format == .gzip, bytes.count >= 18 else { return min(4 * bytes.count, bound) }
        let n = bytes.count
        let isize = Int(bytes[n - 4]) | Int(bytes[n - 3]) << 8 | Int(bytes[n - 2]) << 16 | Int(bytes[n - 1]) << 24
        return min(isize, bound)
    }
}

/// gzip (RFC 1952) one-shot decoding: every member, CRC-32 and ISIZE checked.
public enum Gzip {
    /// Decodes every member in `bytes`; throws past `maxOutputBytes` decoded bytes.
    public static func decompress(_ bytes: [UInt8], maxOutputBytes: Int) throws(InflateError) -> [UInt8] {
        try Inflate.decompress(bytes, format: .gzip, limits: InflateLimits(maxOutputBytes: maxOutputBytes))
    }
}

/// zlib (RFC 1950) one-shot decoding, Adler-32 checked.
public enum Zlib {
    /// Decodes the zlib stream in `bytes`; throws past `maxOutputBytes` decoded bytes.
    public static func decompress(_ bytes: [UInt8], maxOutputBytes: Int) throws(InflateError) -> [UInt8] {
        try Inflate.decompress(bytes, format: .zlib, limits: InflateLimits(maxOutputBytes: maxOutputBytes))
    }
}

extension InflateFormat {
    /// The format for one HTTP content coding (RFC 9110 §8.4.1): `gzip` and `x-gzip` → `.gzip`,
    /// `deflate` → `.zlibOrRaw`. nil for `identity` and anything else (not compressed by us).
    public init?(httpContentCoding coding: String) {
        switch coding.lowercased() {
        case "gzip", "x-gzip": self = .gzip
        case "deflate": self = .zlibOrRaw
        default: return nil
        }
    }
}
