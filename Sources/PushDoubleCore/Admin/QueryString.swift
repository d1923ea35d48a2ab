/// Parses `a=1&b=x%20y` query strings (application/x-www-form-urlencoded rules: `+` is a space).
public enum QueryString {
    /// Name/value pairs in order; names and values percent-decoded.
    public static func parse(_ query: Substring?) -> [(String, String)] {
        guard let q = query, !q.isEmpty else { return [] }
        return q.split(separator: "&", omittingEmptySubsequences: true).map { part in
            if let eq = part.firstIndex(of: "=") {
                return (decode(part[..<eq]), decode(part[part.index(after: eq)...]))
            }
            return (decode(part), "")
        }
    }

    /// Percent-decodes (and `+` → space unless `plusAsSpace` is false, as in path
    /// segments); invalid escapes are kept literally.
    public static func decode(_ s: Substring, plusAsSpace: Bool = true) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(s.utf8.count)
        var it = Array(s.utf8)[...]
        while let c = it.popFirst() {
            if plusAsSpace && c == UInt8(ascii: "+") { bytes.append(0x20); continue }
            if c == UInt8(ascii: "%"), it.count >= 2, let h = hex(it[it.startIndex]), let l = hex(it[it.startIndex + 1]) {
                bytes.append(h << 4 | l)
                it = it.dropFirst(2)
                continue
            }
            bytes.append(c)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: return c - 48
        case 65...70: return c - 55
        case 97...102: return c - 87
        default: return nil
        }
    }
}
