/// Base64url (RFC 4648 §5) without padding on output and with a strict decoder.
///
/// The decoder accepts optional `=` padding (unless `allowPadding` is false, as JWS
/// requires) and rejects, each with its own `CryptoError` case: characters outside the
/// alphabet (including `+`, `/`, whitespace), impossible lengths (4n+1), misplaced `=`,
/// and non-canonical trailing bits.
public enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0...63 for alphabet bytes, 0xFF otherwise.
    private static let decodeTable: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
        return t
    }()

    /// Encodes bytes as unpadded base64url text.
    public static func encode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        String(decoding: encodeToBytes(bytes), as: UTF8.self)
    }

    /// Encodes bytes as unpadded base64url ASCII bytes.
    public static func encodeToBytes<Bytes: Collection>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        // Contiguous bytes (an array, a slice of one) are encoded from a buffer: called from
        // another module this function is not specialized, and the generic iterator costs a
        // witness call per byte.
        if let out = bytes.withContiguousStorageIfAvailable({ encode(buffer: $0) }) { return out }
        return encode(iterating: bytes)
    }

    private static func encode(buffer b: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity((b.count * 4 + 2) / 3)
        alphabet.withUnsafeBufferPointer { a in
            var i = 0
            while i < b.count {
                let n1 = i + 1 < b.count, n2 = i + 2 < b.count
                let n = UInt32(b[i]) << 16 | (n1 ? UInt32(b[i + 1]) << 8 : 0) | (n2 ? UInt32(b[i + 2]) : 0)
                out.append(a[Int(n >> 18 & 63)])
                out.append(a[Int(n >> 12 & 63)])
                if n1 { out.append(a[Int(n >> 6 & 63)]) }
                if n2 { out.append(a[Int(n & 63)]) }
                i += 3
            }
        }
        return out
    }

    private static func encode<Bytes: Collection>(iterating bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        alphabet.withUnsafeBufferPointer { a in
            var it = bytes.makeIterator()
            while let b0 = it.next() {
                let b1 = it.next(), b2 = it.next()
                let n = UInt32(b0) << 16 | UInt32(b1 ?? 0) << 8 | UInt32(b2 ?? 0)
                out.append(a[Int(n >> 18 & 63)])
                out.append(a[Int(n >> 12 & 63)])
                if b1 != nil { out.append(a[Int(n >> 6 & 63)]) }
                if b2 != nil { out.append(a[Int(n & 63)]) }
            }
        }
        return out
    }

    /// Decodes base64url text. See the type's doc for what is rejected.
    public static func decode(_ string: String, allowPadding: Bool = true) throws(CryptoError) -> [UInt8] {
        var s = string
        let result = s.withUTF8 { buf in
            Result { () throws(CryptoError) -> [UInt8] in try decode(bytes: UnsafeRawBufferPointer(buf), allowPadding: allowPadding) }
        }
        return try result.get()
    }

    /// Decodes base64url ASCII bytes (e.g. a slice of a request header) without building a String.
    public static func decode(bytes input: UnsafeRawBufferPointer, allowPadding: Bool = true) throws(CryptoError) -> [UInt8] {
        // Trailing '=' is padding; anything else is checked character by character first, so a
        // bad character is reported as such even when the length is also wrong.
        var n = input.count
        while n > 0, input[n - 1] == UInt8(ascii: "=") { n -= 1 }
        let pad = input.count - n
        if pad > 0, !allowPadding { throw .base64URLUnexpectedPadding(offset: n) }
        var out = [UInt8]()
        out.reserveCapacity(n * 3 / 4)
        var acc: UInt32 = 0
        var bits = 0
        try decodeTable.withUnsafeBufferPointer { (t) throws(CryptoError) in
            for i in 0..<n {
                let c = input[i]
                let v = t[Int(c)]
                if v == 0xFF {
                    if c == UInt8(ascii: "=") { throw .base64URLUnexpectedPadding(offset: i) }
                    throw .base64URLInvalidCharacter(offset: i, byte: c)
                }
                acc = acc << 6 | UInt32(v)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
                    acc &= (1 << UInt32(bits)) - 1
                }
            }
        }
        if n % 4 == 1 { throw .base64URLInvalidLength(length: input.count) }
        // Padding, when present, must complete the last quantum exactly.
        if pad > 0, pad > 2 || (n + pad) % 4 != 0 { throw .base64URLInvalidLength(length: input.count) }
        // Leftover bits (2 or 4) must be zero for a canonical encoding.
        if acc != 0 { throw .base64URLNonCanonical }
        return out
    }
}

extension Sequence where Element == UInt8 {
    /// The bytes as lowercase hex, two digits each (fingerprints, key ids).
    var lowercaseHex: String { map { String(format: "%02x", $0) }.joined() }
}
