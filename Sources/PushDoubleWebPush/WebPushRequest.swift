import PushDoubleCrypto
import PushDoubleTransport

/// A delivery request as the transport received it (RFC 8030 §5, docs/webpush.md §1): header
/// fields in arrival order (names compared ignoring ASCII case) and the body.
public struct WebPushRequest: Sendable, Equatable {
    /// One header field as received.
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String
        public init(name: String, value: String) { self.name = name; self.value = value }
    }

    public var headers: [Header]
    public var body: [UInt8]

    public init(headers: [Header], body: [UInt8] = []) {
        self.headers = headers
        self.body = body
    }

    /// Convenience: `WebPushRequest(["TTL": "60"], body: …)` (order kept).
    public init(_ headers: KeyValuePairs<String, String>, body: [UInt8] = []) {
        self.init(headers: headers.map { Header(name: $0.key, value: $0.value) }, body: body)
    }

    /// Every value of the fields named `name` (ASCII case-insensitive), in order.
    public func values(_ name: String) -> [String] {
        var out: [String] = []
        for h in headers where Self.sameName(h.name, name) { out.append(h.value) }
        return out
    }

    /// The first value of `name`, or nil when absent.
    public func value(_ name: String) -> String? { headers.first { Self.sameName($0.name, name) }?.value }

    /// `a.lowercased() == b.lowercased()`, on the bytes without building strings when both are
    /// ASCII (every name the transport passes); other text keeps the Unicode comparison.
    static func sameName(_ a: String, _ b: String) -> Bool {
        let ascii: Bool?? = UTF8Bytes.of(a) { x in UTF8Bytes.of(b) { y in asciiCaseEqual(x, y) } }
        if let r = ascii ?? nil { return r }
        return a.lowercased() == b.lowercased()
    }

    /// Whether `x` and `y` are equal ignoring ASCII case; nil when either is not ASCII.
    private static func asciiCaseEqual(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool? {
        var high: UInt8 = 0
        for c in x { high |= c }
        for c in y { high |= c }
        if high >= 0x80 { return nil }
        guard x.count == y.count else { return false }
        for i in 0..<x.count where x[i] != y[i] {
            let l = x[i] | 0x20
            guard l == y[i] | 0x20, l >= 0x61, l <= 0x7A else { return false }
        }
        return true
    }
}

/// `Urgency` values (RFC 8030 §5.3, docs/webpush.md §1.1), default `normal`.
public enum WebPushUrgency: String, Sendable, Equatable, CaseIterable {
    case veryLow = "very-low"
    case low
    case normal
    case high
}

/// The body's content coding (docs/webpush.md §1.1 `aes128gcm`, §4 legacy `aesgcm`).
public enum WebPushContentEncoding: String, Sendable, Equatable {
    case aes128gcm
    case aesgcm
}

/// Which `Authorization` form carried VAPID (docs/webpush.md §5).
public enum VAPIDForm: Sendable, Equatable {
    /// RFC 8292: `vapid t=<JWT>, k=<key>` (space after the comma optional).
    case vapid
    /// Draft-01: `WebPush <JWT>` (or, autopush, `Bearer <JWT>`) + `Crypto-Key: p256ecdsa=<key>`;
    /// `scheme` is as received, lowercased.
    case legacy(scheme: String)
}

/// A checked VAPID identification (docs/webpush.md §5).
public struct VAPIDIdentity: Sendable, Equatable {
    public let form: VAPIDForm
    /// The application server's public key (`k` / `p256ecdsa`), already verified to sign `jwt`.
    public let publicKey: P256PublicKey
    public let audience: String
    public let expiresAt: Int64
    public let subject: String
    /// The JWT as sent.
    public let jwt: String
}

/// A request ``WebPushRequestValidator`` accepted: the parsed headers a browser and a
/// service style need, and the body untouched.
public struct WebPushAcceptedRequest: Sendable, Equatable {
    /// `TTL` in seconds, as requested (a service style may report a lower one used).
    public let ttl: Int64
    public let urgency: WebPushUrgency
    public let topic: String?
    /// nil for a request with no body and no `Content-Encoding`.
    public let contentEncoding: WebPushContentEncoding?
    /// `Encryption` header value (legacy `aesgcm`).
    public let encryptionHeader: String?
    /// `Crypto-Key` header value (legacy `aesgcm`: `dh=`, and `p256ecdsa=` for draft VAPID).
    public let cryptoKeyHeader: String?
    /// nil when no `Authorization` was sent and none was required.
    public let vapid: VAPIDIdentity?
    public let body: [UInt8]
}
