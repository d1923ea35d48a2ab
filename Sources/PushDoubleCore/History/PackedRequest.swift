import PushDoubleTransport

/// A request as the history keeps it: method, path, scheme, authority, header fields and
/// body copied into one byte buffer (plus the transport facts), unpacked to an
/// ``HTTPRequest`` only when the history is read.
///
/// Why: a history entry that held the request's own strings and arrays cost one cold
/// release per string when the cap evicted it, minutes later; one buffer costs one.
/// Swift strings are valid UTF-8, so their bytes round-trip exactly.
///
/// Layout: each string as a 4-byte little-endian length and its UTF-8 bytes (authority:
/// length 0xFFFF_FFFF when absent), then the field count, the fields as name/value
/// strings, then the body to the end of the buffer.
struct PackedRequest: Sendable {
    private let bytes: [UInt8]
    let info: RequestInfo
    private static let absent = UInt32.max

    init(_ r: HTTPRequest) {
        info = r.info
        var size = 4 * 5 + r.method.utf8.count + r.path.utf8.count + r.scheme.utf8.count
            + (r.authority?.utf8.count ?? 0) + r.body.count
        for f in r.headers.fields { size += 8 + f.name.utf8.count + f.value.utf8.count }
        // Written through one pointer: no per-append capacity checks, no captured state.
        bytes = [UInt8](unsafeUninitializedCapacity: size) { out, count in
            var w = Writer(base: out.baseAddress!)
            w.put(r.method); w.put(r.path); w.put(r.scheme)
            if let a = r.authority { w.put(a) } else { w.put(Self.absent) }
            w.put(UInt32(r.headers.fields.count))
            for f in r.headers.fields { w.put(f.name); w.put(f.value) }
            r.body.withUnsafeBufferPointer { w.put($0) }
            precondition(w.offset == size, "PackedRequest size mismatch")
            count = size
        }
    }

    /// Appends lengths and bytes at a raw pointer (the buffer is sized beforehand).
    private struct Writer {
        let base: UnsafeMutablePointer<UInt8>
        var offset = 0
        @inline(__always) mutating func put(_ n: UInt32) {
            base[offset] = UInt8(truncatingIfNeeded: n); base[offset + 1] = UInt8(truncatingIfNeeded: n >> 8)
            base[offset + 2] = UInt8(truncatingIfNeeded: n >> 16); base[offset + 3] = UInt8(truncatingIfNeeded: n >> 24)
            offset += 4
        }
        @inline(__always) mutating func put(_ u: UnsafeBufferPointer<UInt8>) {
            if let p = u.baseAddress, u.count > 0 { (base + offset).update(from: p, count: u.count) }
            offset += u.count
        }
        @inline(__always) mutating func put(_ s: String) {
            var s = s
            s.withUTF8 { u in put(UInt32(u.count)); put(u) }
        }
    }

    /// The request as it was received.
    var request: HTTPRequest {
        bytes.withUnsafeBufferPointer { u -> HTTPRequest in
            var o = 0
            func length() -> UInt32 {
                let n = UInt32(u[o]) | UInt32(u[o + 1]) << 8 | UInt32(u[o + 2]) << 16 | UInt32(u[o + 3]) << 24
                o += 4
                return n
            }
            func string(_ n: UInt32) -> String {
                let s = String(decoding: UnsafeBufferPointer(rebasing: u[o..<o + Int(n)]), as: UTF8.self)
                o += Int(n)
                return s
            }
            let method = string(length())
            let path = string(length())
            let scheme = string(length())
            let a = length()
            let authority = a == Self.absent ? nil : string(a)
            let count = Int(length())
            var headers = HTTPHeaders()
            for _ in 0..<count {
                let name = string(length())
                headers.add(name: name, value: string(length()))
            }
            return HTTPRequest(method: method, path: path, scheme: scheme, authority: authority, headers: headers,
                               body: Array(u[o...]), info: info)
        }
    }
}
