/// `application/x-www-form-urlencoded` bodies (the token request, docs/fcm.md §6.2): `name=value`
/// pairs joined by `&`, `+` meaning space, `%XX` escapes (WHATWG URL standard §5.1, the
/// encoding RFC 6749 Appendix B names).
public enum FormURLEncoding {
    /// Why a body could not be decoded.
    public enum DecodeError: Error, Sendable, Equatable {
        /// `%` not followed by two hex digits, at this byte offset.
        case badPercentEscape(offset: Int)
        /// A name or value that is not UTF-8 once decoded.
        case invalidUTF8
    }

    /// The pairs in order (repeats kept). Empty pieces (`a=1&&b=2`) are skipped; a piece
    /// without `=` is a name with an empty value.
    public static func decode<Bytes: Collection>(_ body: Bytes) throws(DecodeError) -> [(name: String, value: String)] where Bytes.Element == UInt8 {
        let bytes = Array(body)
        var out: [(name: String, value: String)] = []
        var start = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 0x26 { end += 1 }
            if end > start {
                let piece = bytes[start..<end]
                let eq = piece.firstIndex(of: 0x3D)
                let name = try decodeComponent(piece[start..<(eq ?? end)], offset: start)
                let value = try eq.map { i throws(DecodeError) in try decodeComponent(piece[(i + 1)..<end], offset: i + 1) } ?? ""
                out.append((name, value))
            }
            start = end + 1
        }
        return out
    }

    /// Decodes one name or value: `+` → space, `%XX` → that byte.
    public static func decodeComponent(_ bytes: ArraySlice<UInt8>, offset: Int = 0) throws(DecodeError) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let c = bytes[i]
            if c == 0x2B { out.append(0x20); i += 1; continue }
            if c == 0x25 {
                guard i + 2 < bytes.endIndex,
                      let h = hexValue(bytes[i + 1]), let l = hexValue(bytes[i + 2]) else {
                    throw .badPercentEscape(offset: offset + (i - bytes.startIndex))
                }
                out.append(h << 4 | l)
                i += 3
                continue
            }
            out.append(c)
            i += 1
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw .invalidUTF8 }
        return s
    }

    /// Encodes one name or value: unreserved bytes as is, space as `+`, the rest `%XX`.
    public static func encodeComponent(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x2A: out.unicodeScalars.append(Unicode.Scalar(b))
            case 0x20: out += "+"
            default: out += "%" + String(b >> 4, radix: 16, uppercase: true) + String(b & 0xF, radix: 16, uppercase: true)
            }
        }
        return out
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }
}
