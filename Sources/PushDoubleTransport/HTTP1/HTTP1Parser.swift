/// Why the HTTP/1.1 parser refused a request: the limit or rule broken, in words, and the
/// request head when it was already complete.
struct HTTP1ParseError: Error, Equatable {
    var kind: LimitViolation.Kind
    var message: String
    var head: HTTP1RequestHead?

    static func malformed(_ m: String, _ head: HTTP1RequestHead? = nil) -> HTTP1ParseError { .init(kind: .malformedRequest, message: m, head: head) }
}

/// A parsed HTTP/1.1 request line plus header section, with the framing facts derived
/// from it.
struct HTTP1RequestHead: Equatable {
    var method: String
    var target: String
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    var minorVersion: Int
    var headers: HTTPHeaders
    var host: String?
    /// Content-Length, when present.
    var contentLength: Int?
    var chunked: Bool
    /// False after `Connection: close`, or for HTTP/1.0 without `Connection: keep-alive`.
    var keepAlive: Bool
    var expectContinue: Bool

    var hasBody: Bool { chunked || (contentLength ?? 0) > 0 }
}

/// A strict, incremental HTTP/1.1 request parser (RFC 9112): a pure value fed bytes,
/// producing head / body / end events. No I/O, no allocation per byte.
///
/// Use: call ``parse(_:)`` with the unconsumed input; it returns how many bytes it used
/// and at most one event. `(0, nil)` means "need more bytes": keep the rest and call again
/// with it plus whatever arrives next.
struct HTTP1RequestParser {
    enum Event {
        case head(HTTP1RequestHead)
        case body(UnsafeRawBufferPointer)
        /// The request is complete; trailer fields of a chunked body, if any.
        case end(trailers: HTTPHeaders)
    }

    private enum State {
        case head(scanned: Int)
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers(scanned: Int)
    }

    let maxHeadSize: Int
    let maxBodySize: Int
    private var state: State = .head(scanned: 0)
    private var bodyReceived = 0
    private var currentHead: HTTP1RequestHead?

    init(maxHeadSize: Int, maxBodySize: Int) {
        self.maxHeadSize = maxHeadSize
        self.maxBodySize = maxBodySize
    }

    /// True between requests (no partial request buffered in the parser's view).
    var isIdle: Bool { if case .head(0) = state { return true }; return false }

    mutating func parse(_ buf: UnsafeRawBufferPointer) throws(HTTP1ParseError) -> (consumed: Int, event: Event?) {
        switch state {
        case .head(let scanned):
            // RFC 9112 §2.2: ignore at least one empty line before the request-line.
            if buf.count >= 2 && buf[0] == 13 && buf[1] == 10 { return (2, nil) }
            if buf.count >= 1 && buf[0] == 10 { return (1, nil) }
            guard let end = Self.findHeadEnd(buf, from: scanned) else {
                if buf.count > maxHeadSize {
                    throw HTTP1ParseError(kind: .headerListTooLarge, message: "The request head is larger than the limit of \(maxHeadSize) bytes.")
                }
                state = .head(scanned: max(0, buf.count - 3))
                return (0, nil)
            }
            if end > maxHeadSize {
                throw HTTP1ParseError(kind: .headerListTooLarge, message: "The request head is larger than the limit of \(maxHeadSize) bytes.")
            }
            let head = try Self.parseHead(UnsafeRawBufferPointer(rebasing: buf[0..<end]), maxBodySize: maxBodySize)
            bodyReceived = 0
            if head.chunked {
                state = .chunkSize
            } else if let cl = head.contentLength, cl > 0 {
                state = .fixedBody(remaining: cl)
            } else {
                state = .head(scanned: 0)
            }
            currentHead = head
            return (end, .head(head))

        case .fixedBody(let remaining):
            let n = min(remaining, buf.count)
            if n == 0 { return (0, nil) }
            let chunk = UnsafeRawBufferPointer(rebasing: buf[0..<n])
            if remaining - n == 0 {
                // Emit the body; the caller sees `.end` on the next call with zero input.
                state = .head(scanned: 0)
                pendingEnd = true
            } else {
                state = .fixedBody(remaining: remaining - n)
            }
            return (n, .body(chunk))

        case .chunkSize:
            guard let lineEnd = Self.findCRLF(buf, from: 0) else {
                if buf.count > 4096 { throw .malformed("A chunk-size line is longer than 4096 bytes.", currentHead) }
                return (0, nil)
            }
            var size = 0
            var i = 0
            var digits = 0
            while i < lineEnd, let d = Self.hexValue(buf[i]) {
                if size > (Int.max >> 4) { throw HTTP1ParseError(kind: .bodyTooLarge, message: "The chunked body is larger than the limit of \(maxBodySize) bytes.", head: currentHead) }
                size = size << 4 | d
                i += 1; digits += 1
            }
            if digits == 0 { throw .malformed("A chunk-size line does not start with a hexadecimal size.", currentHead) }
            // Anything after the size must be chunk extensions (";..."), possibly after BWS.
            while i < lineEnd && (buf[i] == 32 || buf[i] == 9) { i += 1 }
            if i < lineEnd && buf[i] != 59 { throw .malformed("A chunk-size line has unexpected bytes after the size.", currentHead) }
            for j in i..<lineEnd where buf[j] < 32 && buf[j] != 9 || buf[j] == 127 {
                throw .malformed("A chunk extension contains a control character.", currentHead)
            }
            if bodyReceived + size > maxBodySize {
                throw HTTP1ParseError(kind: .bodyTooLarge, message: "The request body is larger than the limit of \(maxBodySize) bytes.", head: currentHead)
            }
            bodyReceived += size
            state = size == 0 ? .trailers(scanned: 0) : .chunkData(remaining: size)
            return (lineEnd + 2, nil)

        case .chunkData(let remaining):
            let n = min(remaining, buf.count)
            if n == 0 { return (0, nil) }
            state = remaining - n == 0 ? .chunkDataEnd : .chunkData(remaining: remaining - n)
            return (n, .body(UnsafeRawBufferPointer(rebasing: buf[0..<n])))

        case .chunkDataEnd:
            if buf.count < 2 { return (0, nil) }
            guard buf[0] == 13 && buf[1] == 10 else { throw .malformed("Chunk data is not followed by CRLF.", currentHead) }
            state = .chunkSize
            return (2, nil)

        case .trailers(let scanned):
            if buf.count >= 2 && buf[0] == 13 && buf[1] == 10 {
                state = .head(scanned: 0)
                return (2, .end(trailers: HTTPHeaders()))
            }
            guard let end = Self.findHeadEnd(buf, from: scanned) else {
                if buf.count > maxHeadSize { throw trailersTooLarge() }
                state = .trailers(scanned: max(0, buf.count - 3))
                return (0, nil)
            }
            // The same limit when the whole section arrived at once (as for the head).
            if end > maxHeadSize { throw trailersTooLarge() }
            var trailers = HTTPHeaders()
            try Self.parseFields(UnsafeRawBufferPointer(rebasing: buf[0..<(end - 2)]), into: &trailers, head: currentHead)
            state = .head(scanned: 0)
            return (end, .end(trailers: trailers))
        }
    }

    private func trailersTooLarge() -> HTTP1ParseError {
        HTTP1ParseError(kind: .headerListTooLarge, message: "The trailer section is larger than the limit of \(maxHeadSize) bytes.", head: currentHead)
    }

    /// Set after the last byte of a Content-Length body; cleared by ``takeEnd()``.
    private(set) var pendingEnd = false
    mutating func takeEnd() -> Bool {
        if pendingEnd { pendingEnd = false; return true }
        return false
    }

    // MARK: helpers

    @inline(__always)
    static func hexValue(_ b: UInt8) -> Int? {
        switch b {
        case 48...57: return Int(b - 48)
        case 65...70: return Int(b - 55)
        case 97...102: return Int(b - 87)
        default: return nil
        }
    }

    /// Index just past "\r\n\r\n", searching from `from`.
    static func findHeadEnd(_ buf: UnsafeRawBufferPointer, from: Int) -> Int? {
        let n = buf.count
        if n < 4 { return nil }
        var i = from
        while i + 3 < n {
            if buf[i + 3] == 10 {
                if buf[i] == 13 && buf[i + 1] == 10 && buf[i + 2] == 13 { return i + 4 }
                i += 1
            } else if buf[i + 3] == 13 {
                i += 1
            } else {
                i += 4
            }
        }
        return nil
    }

    static func findCRLF(_ buf: UnsafeRawBufferPointer, from: Int) -> Int? {
        var i = from
        while i + 1 < buf.count {
            if buf[i] == 13 && buf[i + 1] == 10 { return i }
            i += 1
        }
        return nil
    }

    /// RFC 9110 tchar (``HTTPToken``).
    @inline(__always)
    static func isTChar(_ b: UInt8) -> Bool { HTTPToken.isTChar(b) }

    static func asciiLowerEquals(_ buf: UnsafeRawBufferPointer, _ lower: StaticString) -> Bool {
        guard buf.count == lower.utf8CodeUnitCount else { return false }
        let p = lower.utf8Start
        for i in 0..<buf.count {
            var b = buf[i]
            if b >= 65 && b <= 90 { b |= 0x20 }
            if b != p[i] { return false }
        }
        return true
    }

    /// Parses the request line and header fields; `buf` ends with the empty line.
    static func parseHead(_ buf: UnsafeRawBufferPointer, maxBodySize: Int) throws(HTTP1ParseError) -> HTTP1RequestHead {
        guard let lineEnd = findCRLF(buf, from: 0) else { throw .malformed("The request line is not terminated by CRLF.") }
        // method SP request-target SP HTTP-version
        var i = 0
        while i < lineEnd && isTChar(buf[i]) { i += 1 }
        guard i > 0, i < lineEnd, buf[i] == 32 else { throw .malformed("The request line does not start with a method token followed by one space.") }
        let method = String(decoding: UnsafeRawBufferPointer(rebasing: buf[0..<i]), as: UTF8.self)
        let tStart = i + 1
        var j = tStart
        while j < lineEnd && buf[j] > 32 && buf[j] != 127 { j += 1 }
        guard j > tStart, j < lineEnd, buf[j] == 32 else { throw .malformed("The request target is empty or contains a space or a control character.") }
        let target = String(decoding: UnsafeRawBufferPointer(rebasing: buf[tStart..<j]), as: UTF8.self)
        let v = UnsafeRawBufferPointer(rebasing: buf[(j + 1)..<lineEnd])
        let minor: Int
        if asciiEquals(v, "HTTP/1.1") { minor = 1 } else if asciiEquals(v, "HTTP/1.0") { minor = 0 } else {
            throw .malformed("The HTTP version is not HTTP/1.1 or HTTP/1.0.")
        }
        var head = HTTP1RequestHead(method: method, target: target, minorVersion: minor, headers: HTTPHeaders(), host: nil,
                                    contentLength: nil, chunked: false, keepAlive: minor == 1, expectContinue: false)
        // Fields: from after the request line to before the final empty line.
        let fieldsEnd = buf.count - 2
        let fields = lineEnd + 2 < fieldsEnd ? UnsafeRawBufferPointer(rebasing: buf[(lineEnd + 2)..<fieldsEnd]) : UnsafeRawBufferPointer(rebasing: buf[0..<0])
        var sawTE = false
        var hostCount = 0
        var connectionKeepAlive = false
        var connectionClose = false
        var headers = HTTPHeaders()
        try forEachField(fields, head: nil) { (name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(HTTP1ParseError) in
            let n = String(decoding: name, as: UTF8.self)
            let val = String(decoding: value, as: UTF8.self)
            headers.add(name: n, value: val)
            switch name.count {
            case 4 where asciiLowerEquals(name, "host"):
                hostCount += 1
                head.host = val
            case 14 where asciiLowerEquals(name, "content-length"):
                guard value.count > 0, value.count <= 18, value.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                    throw .malformed("Content-Length is not a decimal number.")
                }
                var cl = 0
                for b in value { cl = cl * 10 + Int(b - 48) }
                if let old = head.contentLength, old != cl { throw .malformed("The request has several different Content-Length values.") }
                head.contentLength = cl
            case 17 where asciiLowerEquals(name, "transfer-encoding"):
                sawTE = true
                // The final coding must be chunked (RFC 9112 §6.3).
                var k = value.count
                while k > 0 && (value[k - 1] == 32 || value[k - 1] == 9) { k -= 1 }
                var s = k
                while s > 0 && value[s - 1] != 44 { s -= 1 }
                var t = s
                while t < k && (value[t] == 32 || value[t] == 9) { t += 1 }
                head.chunked = asciiLowerEquals(UnsafeRawBufferPointer(rebasing: value[t..<k]), "chunked")
            case 10 where asciiLowerEquals(name, "connection"):
                for token in value.split(separator: 44) {
                    let tk = trimOWS(UnsafeRawBufferPointer(rebasing: token))
                    if asciiLowerEquals(tk, "close") { connectionClose = true }
                    if asciiLowerEquals(tk, "keep-alive") { connectionKeepAlive = true }
                }
            case 6 where asciiLowerEquals(name, "expect"):
                if asciiLowerEquals(value, "100-continue") { head.expectContinue = true }
            default: break
            }
        }
        head.headers = headers
        if connectionClose { head.keepAlive = false } else if minor == 0 && connectionKeepAlive { head.keepAlive = true }
        if sawTE {
            if head.contentLength != nil { throw .malformed("The request has both Transfer-Encoding and Content-Length.", head) }
            if minor == 0 { throw .malformed("Transfer-Encoding is not allowed in an HTTP/1.0 request.", head) }
            if !head.chunked { throw .malformed("The final transfer coding is not chunked.", head) }
        }
        if minor == 1 && hostCount != 1 {
            throw .malformed(hostCount == 0 ? "The request has no Host header." : "The request has more than one Host header.", head)
        }
        if let cl = head.contentLength, cl > maxBodySize {
            throw HTTP1ParseError(kind: .bodyTooLarge, message: "The request body (\(cl) bytes) is larger than the limit of \(maxBodySize) bytes.", head: head)
        }
        return head
    }

    static func parseFields(_ buf: UnsafeRawBufferPointer, into headers: inout HTTPHeaders, head: HTTP1RequestHead?) throws(HTTP1ParseError) {
        try forEachField(buf, head: head) { (name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(HTTP1ParseError) in
            headers.add(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
        }
    }

    /// Splits "name: value\r\n" lines (the buffer ends with the last line's CRLF) and
    /// validates each one.
    static func forEachField(_ buf: UnsafeRawBufferPointer, head: HTTP1RequestHead?,
                             _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws(HTTP1ParseError) -> Void) throws(HTTP1ParseError) {
        var start = 0
        while start < buf.count {
            guard let end = findCRLF(buf, from: start) else { throw .malformed("A header line is not terminated by CRLF.", head) }
            if buf[start] == 32 || buf[start] == 9 { throw .malformed("Obsolete line folding is not accepted.", head) }
            var c = start
            while c < end && isTChar(buf[c]) { c += 1 }
            guard c > start, c < end, buf[c] == 58 else {
                throw .malformed("A header line has no valid field name followed by a colon.", head)
            }
            var vs = c + 1
            while vs < end && (buf[vs] == 32 || buf[vs] == 9) { vs += 1 }
            var ve = end
            while ve > vs && (buf[ve - 1] == 32 || buf[ve - 1] == 9) { ve -= 1 }
            for k in vs..<ve {
                let b = buf[k]
                if (b < 32 && b != 9) || b == 127 { throw .malformed("A header value contains a control character.", head) }
            }
            try body(UnsafeRawBufferPointer(rebasing: buf[start..<c]), UnsafeRawBufferPointer(rebasing: buf[vs..<ve]))
            start = end + 2
        }
    }

    static func trimOWS(_ b: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var s = 0, e = b.count
        while s < e && (b[s] == 32 || b[s] == 9) { s += 1 }
        while e > s && (b[e - 1] == 32 || b[e - 1] == 9) { e -= 1 }
        return UnsafeRawBufferPointer(rebasing: b[s..<e])
    }

    static func asciiEquals(_ buf: UnsafeRawBufferPointer, _ s: StaticString) -> Bool {
        guard buf.count == s.utf8CodeUnitCount else { return false }
        return memcmp(buf.baseAddress!, s.utf8Start, buf.count) == 0
    }
}

#if canImport(Glibc)
import Glibc
#endif
