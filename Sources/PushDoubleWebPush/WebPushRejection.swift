/// Every check ``WebPushRequestValidator`` makes, with the docs/webpush.md section it comes from.
/// How each is answered depends on the service imitated: ``WebPushServiceStyle``.
public enum WebPushRule: String, Sendable, Equatable, Hashable, CaseIterable {
    // MARK: RFC 8030 headers (docs/webpush.md §1.1)
    /// No `TTL` header: "A push service MUST reply 400" (§1.1, RFC 8030 §5.2).
    case missingTTL
    /// `TTL` is not delta-seconds (digits only), or is sent more than once (§1.1; autopush
    /// errno 111 "absent or unparseable", §6.2).
    case invalidTTL
    /// `TTL` is a negative number (autopush errno 114 "for a negative TTL", §6.2).
    case negativeTTL
    /// `Urgency` not one of `very-low|low|normal|high` (§1.1, RFC 8030 §5.3).
    case invalidUrgency
    /// More than one `Urgency` value: "MUST reply 400" (§1.1, RFC 8030 §5.3).
    case multipleUrgency
    /// `Topic` longer than 32 characters or outside the base64url alphabet (§1.1, RFC 8030 §5.4).
    case invalidTopic
    /// Body larger than the limit (§1.2 413, RFC 8030 §7.2: MUST accept ≤ 4096 octets).
    case payloadTooLarge

    // MARK: content coding (docs/webpush.md §1.1, §4, §6.2 errno 110)
    /// A body without `Content-Encoding` (§1.1 "whenever there is a body"; autopush
    /// `Missing Content-Encoding header`).
    case missingContentEncoding
    /// A `Content-Encoding` other than `aes128gcm` / `aesgcm` (`Unknown Content-Encoding header`).
    case unknownContentEncoding
    /// `aesgcm` without an `Encryption` header (§4 autopush validation; `Missing Encryption header`).
    case missingEncryptionHeader
    /// `aesgcm` whose `Encryption` has no `salt`, or a salt that is not 16 bytes of base64url
    /// (§4; `Invalid salt value in Encryption header`).
    case invalidSalt
    /// `aesgcm` with a `Crypto-Key` header that has no `dh` (§4: "a `dh` in `Crypto-Key` if
    /// that header is present").
    case missingDH
    /// `aesgcm` whose `dh` is not a base64url P-256 point (§4).
    case invalidDH
    /// `aes128gcm` carrying `salt` (in `Encryption`) or `dh` (in `Crypto-Key`) (§4 "must
    /// **not** carry `salt` or `dh` in headers").
    case legacyParametersWithAES128GCM

    // MARK: VAPID (docs/webpush.md §5, §6.2 "Autopush VAPID checks", §6.3)
    /// No `Authorization` on a restricted subscription (§5: "401 if absent").
    case vapidMissing
    /// An `Authorization` scheme other than `vapid` / `WebPush` (/ `Bearer`) (§6.2 `Unknown auth scheme`).
    case unknownAuthScheme
    /// The header does not have the recorded shape: no `t` / `k`, duplicate parameters,
    /// several `Authorization` headers, or the legacy form without `Crypto-Key: p256ecdsa=` (§5).
    case vapidMalformed
    /// `k` (or `p256ecdsa`) is not base64url of a 65-byte uncompressed P-256 point (§5).
    case vapidInvalidKey
    /// `t` is not a compact ES256 JWS (§5 JWT header `{"typ":"JWT","alg":"ES256"}`).
    case vapidTokenMalformed
    /// The ES256 signature does not verify with `k` (§5; Apple: "signed with the wrong private key", §6.3).
    case vapidSignatureInvalid
    /// `aud` missing or not the origin the request reached (§5, §6.2 `Invalid VAPID audience`).
    case vapidAudience
    /// `exp` missing or not a NumericDate (§6.2: `exp` is a required claim; `Invalid VAPID expiry`).
    case vapidExpiryInvalid
    /// `exp` not in the future (`Invalid VAPID expiry`).
    case vapidExpired
    /// `exp` more than 24 h ahead (§5 "MUST NOT be more than 24 hours"; §6.2
    /// `The VAPID token expiration is too long`; §6.3 "more than one day ahead").
    case vapidExpiryTooLong
    /// No `sub` (§6.2 `Missing sub`, §6.3 "A missing `sub` → BadJwtToken").
    case vapidSubjectMissing
    /// `sub` neither `mailto:` nor `https:` (§5 SHOULD, §6.3 [A]), or one of the stricter
    /// forms a configuration refuses (§6.3: `localhost`, angle brackets, `mailto: ` with a space).
    case vapidSubjectInvalid
    /// `k` is not the subscription's `applicationServerKey` (§6.2 `VAPID public key mismatch`).
    case vapidKeyMismatch
    /// `k` equals the message's ECDH key (§1.2: "identical `k` / ECDH key values", RFC 8292 §3.2 → 400).
    case vapidKeyEqualsECDHKey

    /// The status RFC 8030 / RFC 8292 give (docs/webpush.md §1.2): 400 for header and
    /// content-coding faults and identical keys, 413 for size, 401 for absent VAPID, 403 for
    /// invalid VAPID. Each service style answers with its own (``WebPushServiceStyle``).
    public var rfcStatus: Int {
        switch self {
        case .payloadTooLarge: return 413
        case .vapidMissing: return 401
        case .vapidKeyEqualsECDHKey: return 400
        default: return isVAPID ? 403 : 400
        }
    }

    /// Whether the rule is about VAPID identification (`vapidKeyEqualsECDHKey` included).
    public var isVAPID: Bool {
        switch self {
        case .vapidMissing, .unknownAuthScheme, .vapidMalformed, .vapidInvalidKey, .vapidTokenMalformed,
             .vapidSignatureInvalid, .vapidAudience, .vapidExpiryInvalid, .vapidExpired, .vapidExpiryTooLong,
             .vapidSubjectMissing, .vapidSubjectInvalid, .vapidKeyMismatch, .vapidKeyEqualsECDHKey:
            return true
        default: return false
        }
    }
}

/// A refused delivery request: the rule that refused it and what exactly was wrong.
public struct WebPushRejection: Error, Sendable, Equatable, CustomStringConvertible {
    public let rule: WebPushRule
    /// Human-readable detail (the offending value, the limit); not sent on the wire.
    public let detail: String

    public init(_ rule: WebPushRule, _ detail: String) {
        self.rule = rule
        self.detail = detail
    }

    public var description: String { "\(rule.rawValue): \(detail)" }
}
