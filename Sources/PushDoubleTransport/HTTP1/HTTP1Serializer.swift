#if canImport(Glibc)
import Glibc
#endif

/// Writes HTTP/1.1 response heads and chunks as bytes.
enum HTTP1Serializer {
    static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)

    /// Appends a status line and header section.
    /// - Parameters:
    ///   - contentLength: added as `content-length` unless the headers already carry one; nil = none.
    ///   - chunked: add `transfer-encoding: chunked`.
    ///   - close: add `connection: close` (unless a connection header is present).
    static func writeHead(status: Int, headers: HTTPHeaders, contentLength: Int?, chunked: Bool, close: Bool,
                          keepAliveHeader: Bool, date: [UInt8], into out: inout [UInt8]) {
        out.append(contentsOf: statusLine(status))
        var hasDate = false, hasConnection = false, hasLength = false, hasTE = false
        for f in headers {
            switch f.name.utf8.count {
            case 4: if HTTPHeaders.equalsIgnoringCase(f.name, "date") { hasDate = true }
            case 10: if HTTPHeaders.equalsIgnoringCase(f.name, "connection") { hasConnection = true }
            case 14: if HTTPHeaders.equalsIgnoringCase(f.name, "content-length") { hasLength = true }
            case 17: if HTTPHeaders.equalsIgnoringCase(f.name, "transfer-encoding") { hasTE = true }
            default: break
            }
            out.append(contentsOf: f.name.utf8)
            out.append(58); out.append(32)
            out.append(contentsOf: f.value.utf8)
            out.append(13); out.append(10)
        }
        if chunked {
            if !hasTE { appendLiteral("transfer-encoding: chunked\r\n", &out) }
        } else if let cl = contentLength, !hasLength {
            appendLiteral("content-length: ", &out)
            appendDecimal(cl, &out)
            out.append(13); out.append(10)
        }
        if !hasDate {
            appendLiteral("date: ", &out)
            out.append(contentsOf: date)
            out.append(13); out.append(10)
        }
        if !hasConnection {
            if close { appendLiteral("connection: close\r\n", &out) } else if keepAliveHeader { appendLiteral("connection: keep-alive\r\n", &out) }
        }
        out.append(13); out.append(10)
    }

    /// Appends one chunk (`size CRLF data CRLF`); empty input appends nothing.
    static func writeChunk(_ bytes: ArraySlice<UInt8>, into out: inout [UInt8]) {
        guard !bytes.isEmpty else { return }
        appendHex(bytes.count, &out)
        out.append(13); out.append(10)
        out.append(contentsOf: bytes)
        out.append(13); out.append(10)
    }

    /// Statuses that never carry a body (RFC 9110 §6.4.1).
    static func statusForbidsBody(_ s: Int) -> Bool { (100..<200).contains(s) || s == 204 || s == 304 }

    @inline(__always)
    static func appendLiteral(_ s: StaticString, _ out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    static func appendDecimal(_ v: Int, _ out: inout [UInt8]) {
        if v == 0 { out.append(48); return }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        var x = v
        withUnsafeMutableBytes(of: &digits) { d in
            while x > 0 { d[n] = UInt8(48 + x % 10); x /= 10; n += 1 }
            for i in stride(from: n - 1, through: 0, by: -1) { out.append(d[i]) }
        }
    }

    static func appendHex(_ v: Int, _ out: inout [UInt8]) {
        let hex: StaticString = "0123456789abcdef"
        var shift = (Int.bitWidth - v.leadingZeroBitCount + 3) / 4 * 4 - 4
        if v == 0 { out.append(48); return }
        while shift >= 0 {
            out.append(hex.utf8Start[(v >> shift) & 0xf])
            shift -= 4
        }
    }

    /// "HTTP/1.1 200 OK\r\n", cached for common statuses.
    static func statusLine(_ status: Int) -> [UInt8] {
        if status >= 100 && status < 600, let cached = statusLines[status] { return cached }
        var out: [UInt8] = Array("HTTP/1.1 ".utf8)
        appendDecimal(min(max(status, 0), 999), &out)
        out.append(32)
        out.append(contentsOf: reasonPhrase(status).utf8)
        out.append(13); out.append(10)
        return out
    }

    private static let statusLines: [Int: [UInt8]] = {
        var d: [Int: [UInt8]] = [:]
        for s in [100, 101, 200, 201, 202, 204, 206, 301, 302, 303, 304, 307, 308, 400, 401, 403, 404, 405, 406, 408, 409, 410, 411, 413, 414, 415, 417, 421, 429, 431, 500, 501, 502, 503, 504, 505] {
            d[s] = Array("HTTP/1.1 \(s) \(reasonPhrase(s))\r\n".utf8)
        }
        return d
    }()

    static func reasonPhrase(_ s: Int) -> String {
        switch s {
        case 100: "Continue"; case 101: "Switching Protocols"
        case 200: "OK"; case 201: "Created"; case 202: "Accepted"; case 204: "No Content"; case 206: "Partial Content"
        case 301: "Moved Permanently"; case 302: "Found"; case 303: "See Other"; case 304: "Not Modified"
        case 307: "Temporary Redirect"; case 308: "Permanent Redirect"
        case 400: "Bad Request"; case 401: "Unauthorized"; case 403: "Forbidden"; case 404: "Not Found"
        case 405: "Method Not Allowed"; case 406: "Not Acceptable"; case 408: "Request Timeout"; case 409: "Conflict"
        case 410: "Gone"; case 411: "Length Required"; case 413: "Content Too Large"; case 414: "URI Too Long"
        case 415: "Unsupported Media Type"; case 417: "Expectation Failed"; case 421: "Misdirected Request"
        case 429: "Too Many Requests"; case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"; case 501: "Not Implemented"; case 502: "Bad Gateway"
        case 503: "Service Unavailable"; case 504: "Gateway Timeout"; case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }
}

/// The IMF-fixdate for the `date` header, recomputed at most once per second.
struct HTTPDateCache {
    private var second: Int = -1
    private var cached: [UInt8] = []

    mutating func current() -> [UInt8] {
        let now = time(nil)
        if now != second {
            second = now
            cached = Self.format(now)
        }
        return cached
    }

    static func format(_ t: Int) -> [UInt8] {
        var tt = t
        var tmv = tm()
        gmtime_r(&tt, &tmv)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let s = "\(days[Int(tmv.tm_wday)]), \(two(tmv.tm_mday)) \(months[Int(tmv.tm_mon)]) \(tmv.tm_year + 1900) \(two(tmv.tm_hour)):\(two(tmv.tm_min)):\(two(tmv.tm_sec)) GMT"
        return Array(s.utf8)
    }
}
