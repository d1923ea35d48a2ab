#if canImport(Glibc)
import Glibc
#endif
import PushDoubleHPACK

/// Builds and checks an HTTP/2 request head from decoded header fields (RFC 9113 §8.2,
/// §8.3.1), one field at a time, stopping at the first rule broken.
///
/// A request that breaks any rule is malformed: §8.1.1 "Malformed requests or responses
/// that are detected MUST be treated as a stream error of type PROTOCOL_ERROR."
public struct HTTP2RequestHeadValidator: Sendable {
    public private(set) var method: String?
    public private(set) var path: String?
    public private(set) var scheme: String?
    public private(set) var authority: String?
    public private(set) var headers = HTTPHeaders()
    /// The parsed `content-length`, if present.
    public private(set) var contentLength: Int?
    /// The first rule broken, if any.
    public private(set) var failure: String?
    private var sawRegular = false
    private let isTrailers: Bool

    /// - Parameters:
    ///   - trailers: validate a trailer section (no pseudo-headers at all).
    ///   - fieldCount: how many fields the block holds, when known: room for them is made once.
    public init(trailers: Bool = false, fieldCount: Int = 0) {
        isTrailers = trailers
        if fieldCount > 0 { headers.reserveCapacity(fieldCount) }
    }

    /// Adds one decoded field; returns false once the head is malformed (see `failure`).
    @discardableResult
    public mutating func add(name: consuming String, value: consuming String) -> Bool {
        if failure != nil { return false }
        if let reason = check(name: name, value: value) {
            failure = reason
            return false
        }
        return true
    }

    /// What a field name means to the rules, found in the same pass that validates it.
    private enum NameKind {
        case invalid(String)
        case regular
        case method, path, scheme, authority, unknownPseudo
        case connectionSpecific, te, contentLength
    }

    private static func classify(_ n: UnsafeBufferPointer<UInt8>) -> NameKind {
        if n.isEmpty { return .invalid("empty header field name") }
        // §8.2.1: no 0x00-0x20, no uppercase 0x41-0x5a, no 0x7f-0xff; a colon only as the
        // pseudo-header prefix.
        var i = 0
        while i < n.count {
            let c = n[i]
            if c <= 0x20 || c >= 0x7f { return .invalid("invalid character 0x\(String(c, radix: 16)) in header field name") }
            if c >= 0x41 && c <= 0x5a { return .invalid("uppercase character in header field name") }
            if c == 0x3a && i != 0 { return .invalid("colon inside header field name") }
            i += 1
        }
        // Byte comparisons keyed by length: no String comparison on the hot path.
        @inline(__always) func eq(_ lit: StaticString) -> Bool {
            lit.utf8CodeUnitCount == n.count && memcmp(lit.utf8Start, n.baseAddress!, n.count) == 0
        }
        if n[0] == 0x3a {
            switch n.count {
            case 5 where eq(":path"): return .path
            case 7 where eq(":method"): return .method
            case 7 where eq(":scheme"): return .scheme
            case 10 where eq(":authority"): return .authority
            default: return .unknownPseudo
            }
        }
        switch n.count {
        case 2 where eq("te"): return .te
        case 14 where eq("content-length"): return .contentLength
        default: return HTTPHeaders.isConnectionSpecific(utf8: n) ? .connectionSpecific : .regular
        }
    }

    /// The field is kept (moved into ``headers`` or a pseudo-header) when it passes.
    private mutating func check(name: consuming String, value: consuming String) -> String? {
        let kind = UTF8Bytes.of(name) { Self.classify($0) }
        if case .invalid(let reason) = kind { return reason }
        if let v = Self.checkValue(value) { return "\(v) in the value of \(name)" }
        switch kind {
        case .method, .path, .scheme, .authority, .unknownPseudo:
            // §8.3: "Pseudo-header fields MUST NOT appear in a trailer section" and
            // "All pseudo-header fields MUST appear in a field block before all regular field lines".
            if isTrailers { return "pseudo-header \(name) in trailers" }
            if sawRegular { return "pseudo-header \(name) after a regular header field" }
            switch kind {
            case .method: if method != nil { return "duplicate :method" }; method = value
            case .path: if path != nil { return "duplicate :path" }; path = value
            case .scheme: if scheme != nil { return "duplicate :scheme" }; scheme = value
            case .authority: if authority != nil { return "duplicate :authority" }; authority = value
            default:
                // "Endpoints MUST treat a request or response that contains undefined or
                // invalid pseudo-header fields as malformed."
                return "pseudo-header \(name) not allowed in a request"
            }
            return nil
        case .connectionSpecific:
            // §8.2.2: connection-specific header fields make the message malformed.
            return "connection-specific header field \(name)"
        case .te:
            // §8.2.2: "The only exception to this is the TE header field, which MAY be present in
            // an HTTP/2 request; when it is, it MUST NOT contain any value other than "trailers"."
            if value != "trailers" { return "te header with a value other than \"trailers\"" }
        case .contentLength:
            guard let n = Self.parseContentLength(value) else { return "invalid content-length \"\(value)\"" }
            if let prev = contentLength, prev != n { return "conflicting content-length values" }
            contentLength = n
        case .regular, .invalid:
            break
        }
        sawRegular = true
        headers.add(name: name, value: value)
        return nil
    }


    /// §8.2.1: "A field value MUST NOT contain the zero value (ASCII NUL, 0x00), line feed
    /// (ASCII LF, 0x0a), or carriage return (ASCII CR, 0x0d) at any position" and "MUST NOT
    /// start or end with an ASCII whitespace character (ASCII SP or HTAB, 0x20 or 0x09)".
    static func checkValue(_ value: String) -> String? {
        return UTF8Bytes.of(value) { v -> String? in
            guard let first = v.first, let last = v.last else { return nil }
            if first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09 { return "leading or trailing whitespace" }
            return containsNULCRLF(UnsafeRawBufferPointer(v)) ? "NUL, CR or LF" : nil
        }
    }

    /// Whether `v` holds 0x00, 0x0a or 0x0d; eight bytes per step (SWAR zero-byte test),
    /// since header values (a 200-byte JWT, a 70-byte path) are scanned on every request.
    @inline(__always)
    static func containsNULCRLF(_ v: UnsafeRawBufferPointer) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func hasZero(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        var i = 0
        let n = v.count
        while i + 8 <= n {
            let w = v.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if hasZero(w) || hasZero(w ^ (ones &* 0x0a)) || hasZero(w ^ (ones &* 0x0d)) { return true }
            i += 8
        }
        while i < n {
            let c = v[i]
            if c == 0 || c == 0x0a || c == 0x0d { return true }
            i += 1
        }
        return false
    }

    static func parseContentLength(_ s: String) -> Int? {
        var n = 0
        var any = false
        for c in s.utf8 {
            guard c >= 0x30 && c <= 0x39 else { return nil }
            any = true
            let (m, o1) = n.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int(c - 0x30))
            if o1 || o2 { return nil }
            n = a
        }
        return any ? n : nil
    }

    /// Checks the required pseudo-headers once the whole block is in; returns the reason
    /// the request is malformed, or nil.
    public mutating func finish() -> String? {
        if let failure { return failure }
        if isTrailers { return nil }
        guard let method else { return fail("missing :method") }
        if method == "CONNECT" {
            // §8.5: CONNECT carries :method and :authority only.
            if scheme != nil || path != nil { return fail("CONNECT request with :scheme or :path") }
            if authority == nil { return fail("CONNECT request without :authority") }
            return nil
        }
        guard let scheme else { return fail("missing :scheme") }
        guard let path else { return fail("missing :path") }
        // §8.3.1: ":path ... MUST NOT be empty for "http" or "https" URIs"; it is "/"-rooted,
        // or "*" for OPTIONS.
        if path.isEmpty { return fail("empty :path") }
        if scheme == "http" || scheme == "https" {
            if path.utf8.first != 0x2f && !(method == "OPTIONS" && path == "*") { return fail(":path \"\(path)\" is not absolute") }
        }
        return nil
    }

    private mutating func fail(_ reason: String) -> String {
        failure = reason
        return reason
    }
}

/// The request head takes the fields straight from the HPACK decoder (no field list).
extension HTTP2RequestHeadValidator: HPACKFieldSink {
    public mutating func field(name: consuming String, value: consuming String, neverIndex: Bool) {
        add(name: name, value: value)
    }
}
