/// The HPACK static table (RFC 7541 Appendix A): 61 fixed entries, indices 1...61.
///
/// The lookup used by the encoder (`byName`: first index and values per name) is a
/// dictionary built once, so encoding a header costs one hash, not a scan.
enum StaticHeaderTable {
    /// Number of entries; dynamic-table indices start at `count + 1` (RFC 7541 §2.3.3).
    static let count = 61

    /// `entries[i - 1]` is static index `i`.
    static let entries: [(name: String, value: String)] = [
        (":authority", ""),  // 1
        (":method", "GET"),  // 2
        (":method", "POST"),  // 3
        (":path", "/"),  // 4
        (":path", "/index.html"),  // 5
        (":scheme", "http"),  // 6
        (":scheme", "https"),  // 7
        (":status", "200"),  // 8
        (":status", "204"),  // 9
        (":status", "206"),  // 10
        (":status", "304"),  // 11
        (":status", "400"),  // 12
        (":status", "404"),  // 13
        (":status", "500"),  // 14
        ("accept-charset", ""),  // 15
        ("accept-encoding", "gzip, deflate"),  // 16
        ("accept-language", ""),  // 17
        ("accept-ranges", ""),  // 18
        ("accept", ""),  // 19
        ("access-control-allow-origin", ""),  // 20
        ("age", ""),  // 21
        ("allow", ""),  // 22
        ("authorization", ""),  // 23
        ("cache-control", ""),  // 24
        ("content-disposition", ""),  // 25
        ("content-encoding", ""),  // 26
        ("content-language", ""),  // 27
        ("content-length", ""),  // 28
        ("content-location", ""),  // 29
        ("content-range", ""),  // 30
        ("content-type", ""),  // 31
        ("cookie", ""),  // 32
        ("date", ""),  // 33
        ("etag", ""),  // 34
        ("expect", ""),  // 35
        ("expires", ""),  // 36
        ("from", ""),  // 37
        ("host", ""),  // 38
        ("if-match", ""),  // 39
        ("if-modified-since", ""),  // 40
        ("if-none-match", ""),  // 41
        ("if-range", ""),  // 42
        ("if-unmodified-since", ""),  // 43
        ("last-modified", ""),  // 44
        ("link", ""),  // 45
        ("location", ""),  // 46
        ("max-forwards", ""),  // 47
        ("proxy-authenticate", ""),  // 48
        ("proxy-authorization", ""),  // 49
        ("range", ""),  // 50
        ("referer", ""),  // 51
        ("refresh", ""),  // 52
        ("retry-after", ""),  // 53
        ("server", ""),  // 54
        ("set-cookie", ""),  // 55
        ("strict-transport-security", ""),  // 56
        ("transfer-encoding", ""),  // 57
        ("user-agent", ""),  // 58
        ("vary", ""),  // 59
        ("via", ""),  // 60
        ("www-authenticate", ""),  // 61
    ]

    /// What the static table holds for one name: its lowest index and its non-empty
    /// values, so a full match costs one hash of the name and a few short comparisons.
    struct NameEntry: Sendable {
        let firstIndex: Int
        let values: [(value: String, index: Int)]
    }

    /// `statusIndex[s]`: the static index of `:status` with the value `s` (200, 204, 206, 304,
    /// 400, 404, 500), 0 for every other status below 600.
    static let statusIndex: [UInt8] = {
        var map = [UInt8](repeating: 0, count: 600)
        for (i, e) in entries.enumerated() where e.name == ":status" { map[Int(e.value)!] = UInt8(i + 1) }
        return map
    }()

    static let byName: [String: NameEntry] = {
        var map: [String: NameEntry] = [:]
        for (i, e) in entries.enumerated() {
            let old = map[e.name]
            var values = old?.values ?? []
            if !e.value.isEmpty { values.append((e.value, i + 1)) }
            map[e.name] = NameEntry(firstIndex: old?.firstIndex ?? i + 1, values: values)
        }
        return map
    }()
}

/// A (name, value) pair used as a dictionary key by the header tables.
struct NameValue: Hashable, Sendable {
    var name: String
    var value: String
}
