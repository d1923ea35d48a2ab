/// One-shot decoding of a whole buffer in any `InflateFormat`.
public enum Inflate {
    /// Decodes the complete stream in `bytes`. The result never exceeds `limits`; its storage is
    /// grown by hand so it is never reserved beyond `maxOutputBytes` either.
    public static func decompress(_ bytes: [UInt8], format: InflateFormat, limits: InflateLimits,
                                  trailingData: TrailingDataPolicy = .reject) throws(InflateError) -> [UInt8] {
        let stream = InflateStream(format: format, limits: limits, trailingData: trailingData)
        var out: [UInt8] = []
        let cap = limits.maxOutputBytes
        try stream.feed(bytes) { piece in
            let needed = out.count + piece.count
            if needed > out.capacity { out.reserveCapacity(min(cap, max(needed, out.capacity * 2))) }
            out.append(contentsOf: piece)
        }
        try stream.finish()
        return out
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
