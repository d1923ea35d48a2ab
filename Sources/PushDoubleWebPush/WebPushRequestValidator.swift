import PushDoubleCrypto

/// Checks a Web Push delivery request (RFC 8030 `POST <endpoint>`, docs/webpush.md §1, §4, §5)
/// and returns the ``WebPushAcceptedRequest`` or the ``WebPushRejection``.
///
/// Header names are compared ignoring case. The checks run in this order (docs/webpush.md does
/// not record the order of any real service; this is RFC section order with VAPID last,
/// because its identical-key rule needs the content coding parsed):
/// 1. `TTL` (§1.1: required, delta-seconds);
/// 2. `Urgency` (one value of four), `Topic` (≤ 32 base64url characters);
/// 3. content coding: `Content-Encoding` present when there is a body, `aes128gcm` or
///    `aesgcm`; for `aesgcm`, `Encryption: salt=` and (if `Crypto-Key` is sent) `dh=`; for
///    `aes128gcm`, no `salt` / `dh` in headers (§4);
/// 4. body size (§1.2 413);
/// 5. VAPID (§5): see ``VAPIDVerifier``.
public struct WebPushRequestValidator: Sendable {
    public var configuration: WebPushValidatorConfiguration
    /// Verified VAPID signatures to reuse (nil: every signature is verified).
    public var signatureCache: VAPIDSignatureCache?

    public init(configuration: WebPushValidatorConfiguration = WebPushValidatorConfiguration(), signatureCache: VAPIDSignatureCache? = nil) {
        self.configuration = configuration
        self.signatureCache = signatureCache
    }

    /// Validates `request` sent to a subscription.
    /// - Parameters:
    ///   - applicationServerKey: the subscription's, if it was made with one (then VAPID is
    ///     required and `k` must be it).
    ///   - origin: the origin the request reached (`https://host[:port]`): what `aud` must be.
    ///   - now: the current time, seconds since the epoch (for `exp`).
    public func validate(_ request: WebPushRequest, applicationServerKey: P256PublicKey?, origin: String,
                         now: Int64) throws(WebPushRejection) -> WebPushAcceptedRequest {
        let ttl = try Self.ttl(request)
        let urgency = try Self.urgency(request)
        let topic = try Self.topic(request)
        let coding = try contentCoding(request)
        guard request.body.count <= configuration.maxBodyBytes else {
            throw WebPushRejection(.payloadTooLarge, "body of \(request.body.count) bytes, limit \(configuration.maxBodyBytes)")
        }
        let verifier = VAPIDVerifier(configuration: configuration, cache: signatureCache)
        let vapid = try verifier.verify(request, applicationServerKey: applicationServerKey, origin: origin,
                                        now: now, ecdhKey: coding.ecdhKey)
        return WebPushAcceptedRequest(ttl: ttl, urgency: urgency, topic: topic, contentEncoding: coding.encoding,
                                      encryptionHeader: request.value("Encryption"), cryptoKeyHeader: request.value("Crypto-Key"),
                                      vapid: vapid, body: request.body)
    }

    /// Validates `request` sent to `subscription`, reached at `origin` (default: the
    /// subscription's own origin).
    public func validate(_ request: WebPushRequest, for subscription: WebPushSubscription, origin: String? = nil,
                         now: Int64) throws(WebPushRejection) -> WebPushAcceptedRequest {
        try validate(request, applicationServerKey: subscription.applicationServerKey, origin: origin ?? subscription.origin, now: now)
    }

    // MARK: Phase 1: TTL, Urgency, Topic (docs/webpush.md §1.1)

    /// `TTL`: exactly one field, delta-seconds (`1*DIGIT`). A value beyond Int64 is taken as
    /// Int64.max (accepting; docs/webpush.md records no upper bound for the request).
    static func ttl(_ r: WebPushRequest) throws(WebPushRejection) -> Int64 {
        let values = r.values("TTL")
        guard let raw = values.first else { throw WebPushRejection(.missingTTL, "no TTL header") }
        guard values.count == 1 else { throw WebPushRejection(.invalidTTL, "\(values.count) TTL headers") }
        let v = trim(raw)
        if v.hasPrefix("-"), v.count > 1, v.dropFirst().allSatisfy(\.isASCIIDigit) {
            throw WebPushRejection(.negativeTTL, "TTL \(v)")
        }
        guard !v.isEmpty, v.allSatisfy(\.isASCIIDigit) else { throw WebPushRejection(.invalidTTL, "TTL \"\(v)\" is not delta-seconds") }
        return Int64(v) ?? Int64.max
    }

    /// `Urgency`: absent → `normal`; one value of the four, else refused.
    static func urgency(_ r: WebPushRequest) throws(WebPushRejection) -> WebPushUrgency {
        let values = r.values("Urgency").flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map { trim(String($0)) }
        guard let first = values.first else { return .normal }
        guard values.count == 1 else { throw WebPushRejection(.multipleUrgency, "Urgency values \(values)") }
        guard let u = WebPushUrgency(rawValue: first) else { throw WebPushRejection(.invalidUrgency, "Urgency \"\(first)\"") }
        return u
    }

    /// `Topic`: at most 32 characters of `A–Z a–z 0–9 - _`.
    static func topic(_ r: WebPushRequest) throws(WebPushRejection) -> String? {
        let values = r.values("Topic")
        guard let first = values.first else { return nil }
        guard values.count == 1 else { throw WebPushRejection(.invalidTopic, "\(values.count) Topic headers") }
        let t = trim(first)
        guard t.utf8.count <= 32 else { throw WebPushRejection(.invalidTopic, "Topic of \(t.utf8.count) characters (at most 32)") }
        guard t.utf8.allSatisfy(isBase64URLByte) else { throw WebPushRejection(.invalidTopic, "Topic \"\(t)\" is not base64url") }
        return t
    }

    // MARK: Phase 2: content coding (docs/webpush.md §1.1, §2.1, §4)

    /// The coding and, when the headers or body show it, the sender's ECDH public key.
    struct Coding {
        var encoding: WebPushContentEncoding?
        var ecdhKey: [UInt8]?
    }

    func contentCoding(_ r: WebPushRequest) throws(WebPushRejection) -> Coding {
        guard let raw = r.value("Content-Encoding") else {
            if r.body.isEmpty { return Coding(encoding: nil, ecdhKey: nil) }
            throw WebPushRejection(.missingContentEncoding, "a \(r.body.count)-byte body without Content-Encoding")
        }
        // Content codings are case-insensitive tokens (HTTP); docs/webpush.md writes them lowercase.
        let name = Self.trim(raw).lowercased()
        guard let encoding = WebPushContentEncoding(rawValue: name) else {
            throw WebPushRejection(.unknownContentEncoding, "Content-Encoding \"\(raw)\"")
        }
        let encryption = r.value("Encryption").map(HeaderParameters.init)
        let cryptoKey = r.value("Crypto-Key").map(HeaderParameters.init)
        switch encoding {
        case .aes128gcm:
            if configuration.rejectLegacyParametersWithAES128GCM {
                if encryption?["salt"] != nil { throw WebPushRejection(.legacyParametersWithAES128GCM, "aes128gcm with Encryption: salt=") }
                if cryptoKey?["dh"] != nil { throw WebPushRejection(.legacyParametersWithAES128GCM, "aes128gcm with Crypto-Key: dh=") }
            }
            // RFC 8188 §2.1: keyid at offset 21, idlen bytes (65 for Web Push, docs/webpush.md §2.1).
            let b = r.body
            let key: [UInt8]? = b.count >= 21 + 65 && b[20] == 65 ? Array(b[21..<86]) : nil
            return Coding(encoding: .aes128gcm, ecdhKey: key)
        case .aesgcm:
            guard let encryption else { throw WebPushRejection(.missingEncryptionHeader, "aesgcm without Encryption") }
            guard let saltText = encryption["salt"] else { throw WebPushRejection(.invalidSalt, "Encryption has no salt") }
            guard let salt = try? Base64URL.decode(saltText), salt.count == 16 else {
                throw WebPushRejection(.invalidSalt, "salt \"\(saltText)\" is not 16 bytes of base64url")
            }
            guard let cryptoKey else { return Coding(encoding: .aesgcm, ecdhKey: nil) }
            guard let dhText = cryptoKey["dh"] else { throw WebPushRejection(.missingDH, "Crypto-Key has no dh") }
            guard let dh = try? Base64URL.decode(dhText), (try? P256PublicKey(rawRepresentation: dh)) != nil else {
                throw WebPushRejection(.invalidDH, "dh \"\(dhText)\" is not a base64url P-256 point")
            }
            return Coding(encoding: .aesgcm, ecdhKey: dh)
        }
    }

    // MARK: Helpers

    /// `s` without leading and trailing blanks (SP, HTAB), over its UTF-8 bytes (a VAPID header
    /// is some 350 characters; walking it by Characters cost half of a request's time).
    static func trim(_ s: String) -> String {
        let u = s.utf8
        var start = u.startIndex, end = u.endIndex
        while start < end, u[start] == 0x20 || u[start] == 0x09 { start = u.index(after: start) }
        while end > start, u[u.index(before: end)] == 0x20 || u[u.index(before: end)] == 0x09 { end = u.index(before: end) }
        if start == u.startIndex && end == u.endIndex { return s }
        return String(Substring(u[start..<end]))
    }

    /// `A–Z a–z 0–9 - _`: the URL- and filename-safe base64 alphabet (RFC 4648 §5) of `Topic` and tokens.
    public static func isBase64URLByte(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x5F
    }
}

/// `a=b; c="d", e=f` → name → value: the parameter syntax of `Encryption` and `Crypto-Key`
/// (docs/webpush.md §4: entries separated by `;` or `,`, values possibly quoted). Names are
/// lowercased; the first occurrence wins.
/// The parameters of a legacy `Encryption` / `Crypto-Key` header, parsed by the one parser
/// the decryptor uses (``WebPushCipher/headerParameters(_:)``).
struct HeaderParameters {
    private let values: [String: String]
    init(_ header: String) { values = WebPushCipher.headerParameters(header) }
    subscript(name: String) -> String? { values[name] }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
