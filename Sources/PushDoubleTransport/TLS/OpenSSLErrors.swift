import COpenSSL

/// Renders and empties the calling thread's OpenSSL error queue (one helper for the server
/// and the client's, which is another module of this package: `package` access).
package enum OpenSSLErrors {
    /// The queued errors as `"error:…; error:…"`, oldest first; empty when none.
    package static func drain() -> String {
        var parts: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buf = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buf, buf.count)
            parts.append(String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return parts.joined(separator: "; ")
    }
}
