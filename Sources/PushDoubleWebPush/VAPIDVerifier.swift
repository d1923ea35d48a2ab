import PushDoubleCrypto
import Synchronization

/// `Authorization` headers ``VAPIDVerifier`` already verified: a sender that reuses its VAPID
/// header (web-push-php's `reuseVAPIDHeaders`, a cached header per audience) costs a dictionary
/// lookup instead of parsing the header and an ECDSA verification. Only the form, key and
/// signature are remembered: the claims (`aud`, `exp`, `sub`) and the key rules are checked on
/// every request. An RFC 8292 `vapid t=…, k=…` header is remembered whole (its parsing depends
/// on no setting); a legacy form (`WebPush <JWT>` + `Crypto-Key`, whose schemes are a setting
/// of each service) is parsed every time and only its JWT and key text are remembered.
/// Bounded: emptied when full.
public final class VAPIDSignatureCache: Sendable {
    private let entries = Mutex<[String: Verified]>([:])
    public let capacity: Int

    /// A verified signature: the credentials it came in, the key, the parsed JWT.
    struct Verified: Sendable {
        var form: VAPIDForm
        var jwt: String
        var key: P256PublicKey
        var parsed: ParsedJWT
    }

    public init(capacity: Int = 4096) { self.capacity = capacity }

    func lookup(_ cacheKey: String) -> Verified? { entries.withLock { $0[cacheKey] } }

    func insert(_ cacheKey: String, _ verified: Verified) {
        entries.withLock { e in
            if e.count >= capacity { e.removeAll(keepingCapacity: true) }
            e[cacheKey] = verified
        }
    }

    /// The key of a whole `vapid` header, and of a legacy form's JWT and key text.
    static func headerKey(_ header: String) -> String { "h " + header }
    static func signatureKey(jwt: String, keyText: String) -> String { "s " + jwt + " " + keyText }

    /// How many signatures are remembered.
    public var count: Int { entries.withLock { $0.count } }
}

/// The VAPID phase of ``WebPushRequestValidator`` (docs/webpush.md §5, §6.2 "Autopush VAPID
/// checks", §6.3 Apple's causes), in this order:
/// 1. `Authorization` present (required for restricted subscriptions or by configuration),
///    exactly once;
/// 2. its form: `vapid t=<JWT>, k=<key>` (space after the comma optional, parameters in any
///    order, values possibly quoted), or legacy `WebPush <JWT>` (`Bearer` too, §6.2) with
///    `Crypto-Key: p256ecdsa=<key>`; scheme names are compared ignoring case;
/// 3. the key: base64url of a 65-byte uncompressed P-256 point;
/// 4. the JWT: compact ES256 JWS (parsed by PushDoubleCrypto's ``JWT``), signature verified
///    with the key;
/// 5. claims: `aud` = the origin reached, `exp` a NumericDate in the future and at most
///    24 h ahead, `sub` present and `mailto:` / `https:` (plus the configured strict forms);
/// 6. `k` = the subscription's `applicationServerKey`, and `k` ≠ the message's ECDH key.
struct VAPIDVerifier {
    let configuration: WebPushValidatorConfiguration
    /// Verified signatures to reuse (nil: verify every time).
    var cache: VAPIDSignatureCache? = nil

    /// The key and JWT text the `Authorization` form carried.
    struct Credentials {
        var form: VAPIDForm
        var jwt: String
        var keyText: String
    }

    func verify(_ r: WebPushRequest, applicationServerKey: P256PublicKey?, origin: String, now: Int64,
                ecdhKey: [UInt8]?) throws(WebPushRejection) -> VAPIDIdentity? {
        let auth = r.values("Authorization")
        guard let header = auth.first else {
            if applicationServerKey != nil { throw WebPushRejection(.vapidMissing, "restricted subscription, no Authorization") }
            if configuration.requireVAPID { throw WebPushRejection(.vapidMissing, "no Authorization") }
            return nil
        }
        guard auth.count == 1 else { throw WebPushRejection(.vapidMalformed, "\(auth.count) Authorization headers") }
        let verified = try verifiedCredentials(header, cryptoKey: r.value("Crypto-Key"))
        let key = verified.key
        let (exp, subject) = try checkClaims(verified.parsed, origin: origin, now: now)
        if let applicationServerKey, applicationServerKey != key {
            throw WebPushRejection(.vapidKeyMismatch, "k is not the subscription's applicationServerKey")
        }
        if configuration.rejectVAPIDKeyEqualToECDHKey, let ecdhKey, ecdhKey == key.rawRepresentation {
            throw WebPushRejection(.vapidKeyEqualsECDHKey, "k equals the message's ECDH public key")
        }
        return VAPIDIdentity(form: verified.form, publicKey: key, audience: origin, expiresAt: exp, subject: subject,
                             jwt: verified.jwt)
    }

    /// Steps 2–4 (or the cache's memory of a header that passed them): the form, the key, the
    /// JWT's form and its ES256 signature.
    func verifiedCredentials(_ header: String, cryptoKey: String?) throws(WebPushRejection) -> VAPIDSignatureCache.Verified {
        let headerKey = cache.map { _ in VAPIDSignatureCache.headerKey(header) }
        if let headerKey, let hit = cache?.lookup(headerKey) { return hit }
        let credentials = try parse(header, cryptoKey: cryptoKey)
        let whole: Bool
        if case .vapid = credentials.form { whole = true } else { whole = false }
        let verified = try verifiedSignature(credentials, remember: !whole)
        if whole, let headerKey { cache?.insert(headerKey, verified) }
        return verified
    }

    /// Steps 3–4: the key, the JWT's form and its ES256 signature (or the cache's memory of
    /// them, by JWT and key text, when `remember`).
    func verifiedSignature(_ credentials: Credentials, remember: Bool) throws(WebPushRejection) -> VAPIDSignatureCache.Verified {
        let cacheKey = remember && cache != nil ? VAPIDSignatureCache.signatureKey(jwt: credentials.jwt, keyText: credentials.keyText) : nil
        if let cacheKey, let hit = cache?.lookup(cacheKey) {
            return VAPIDSignatureCache.Verified(form: credentials.form, jwt: credentials.jwt, key: hit.key, parsed: hit.parsed)
        }
        let key = try publicKey(credentials.keyText)
        let jwt: ParsedJWT
        do { jwt = try JWT.parse(credentials.jwt) } catch { throw WebPushRejection(.vapidTokenMalformed, error.description) }
        guard jwt.algorithm == .es256 else { throw WebPushRejection(.vapidTokenMalformed, "alg \(jwt.algorithm.rawValue), expected ES256") }
        do { try jwt.verify(with: key) } catch { throw WebPushRejection(.vapidSignatureInvalid, error.description) }
        let verified = VAPIDSignatureCache.Verified(form: credentials.form, jwt: credentials.jwt, key: key, parsed: jwt)
        if let cacheKey { cache?.insert(cacheKey, verified) }
        return verified
    }

    // MARK: The Authorization forms (docs/webpush.md §5)

    func parse(_ header: String, cryptoKey: String?) throws(WebPushRejection) -> Credentials {
        let h = WebPushRequestValidator.trim(header)
        let space = h.firstIndex(where: { $0 == " " || $0 == "\t" }) ?? h.endIndex
        let scheme = h[..<space].lowercased()
        let rest = WebPushRequestValidator.trim(String(h[space...]))
        if scheme == "vapid" { return try parseVAPID(rest) }
        guard configuration.legacyAuthSchemes.contains(scheme) else {
            throw WebPushRejection(.unknownAuthScheme, "Authorization scheme \"\(h[..<space])\"")
        }
        guard !rest.isEmpty, !rest.contains(" "), !rest.contains(",") else {
            throw WebPushRejection(.vapidMalformed, "\(scheme) form needs exactly one token")
        }
        guard let cryptoKey, let k = HeaderParameters(cryptoKey)["p256ecdsa"] else {
            throw WebPushRejection(.vapidMalformed, "\(scheme) form without Crypto-Key: p256ecdsa=")
        }
        return Credentials(form: .legacy(scheme: scheme), jwt: rest, keyText: k)
    }

    /// `t=<JWT>, k=<key>` or `t=<JWT>,k=<key>` (and any order, optional quotes).
    func parseVAPID(_ params: String) throws(WebPushRejection) -> Credentials {
        var t: String?, k: String?
        for part in params.split(separator: ",") {
            let p = WebPushRequestValidator.trim(String(part))
            guard let eq = p.firstIndex(of: "=") else { throw WebPushRejection(.vapidMalformed, "parameter \"\(p)\" has no =") }
            let name = WebPushRequestValidator.trim(String(p[..<eq])).lowercased()
            var value = WebPushRequestValidator.trim(String(p[p.index(after: eq)...]))
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            switch name {
            case "t":
                guard t == nil else { throw WebPushRejection(.vapidMalformed, "t given twice") }
                t = value
            case "k":
                guard k == nil else { throw WebPushRejection(.vapidMalformed, "k given twice") }
                k = value
            default: continue  // docs/webpush.md names only t and k; others are ignored
            }
        }
        guard let t, !t.isEmpty else { throw WebPushRejection(.vapidMalformed, "vapid without t=") }
        guard let k, !k.isEmpty else { throw WebPushRejection(.vapidMalformed, "vapid without k=") }
        return Credentials(form: .vapid, jwt: t, keyText: k)
    }

    func publicKey(_ text: String) throws(WebPushRejection) -> P256PublicKey {
        do { return try P256PublicKey(rawRepresentation: try Base64URL.decode(text)) } catch {
            throw WebPushRejection(.vapidInvalidKey, "key \"\(text)\": \(error.description)")
        }
    }

    // MARK: Claims (docs/webpush.md §5, §6.2, §6.3)

    func checkClaims(_ jwt: ParsedJWT, origin: String, now: Int64) throws(WebPushRejection) -> (exp: Int64, subject: String) {
        guard let aud = jwt.audience else { throw WebPushRejection(.vapidAudience, "no aud (string) claim") }
        guard aud == origin else { throw WebPushRejection(.vapidAudience, "aud \"\(aud)\", expected \"\(origin)\"") }
        guard let exp = jwt.expiresAt else { throw WebPushRejection(.vapidExpiryInvalid, "no exp NumericDate") }
        guard exp > now else { throw WebPushRejection(.vapidExpired, "exp \(exp) is not after now \(now)") }
        guard exp - now <= configuration.maxExpirySeconds else {
            throw WebPushRejection(.vapidExpiryTooLong, "exp \(exp) is \(exp - now) s ahead (at most \(configuration.maxExpirySeconds))")
        }
        guard let sub = jwt.subject, !sub.isEmpty else { throw WebPushRejection(.vapidSubjectMissing, "no sub claim") }
        try checkSubject(sub)
        return (exp, sub)
    }

    func checkSubject(_ sub: String) throws(WebPushRejection) {
        let lower = sub.lowercased()
        let isMailto = lower.hasPrefix("mailto:"), isHTTPS = lower.hasPrefix("https:")
        if configuration.requireSubjectScheme, !isMailto, !isHTTPS {
            throw WebPushRejection(.vapidSubjectInvalid, "sub \"\(sub)\" is neither mailto: nor https:")
        }
        if configuration.rejectMailtoSpace, isMailto, lower.dropFirst(7).first?.isWhitespace == true {
            throw WebPushRejection(.vapidSubjectInvalid, "sub \"\(sub)\" has a space after mailto:")
        }
        if configuration.rejectAngleBracketsInSubject, sub.contains("<") || sub.contains(">") {
            throw WebPushRejection(.vapidSubjectInvalid, "sub \"\(sub)\" has angle brackets")
        }
        if configuration.rejectLocalhostSubject, Self.domain(ofSubject: lower) == "localhost" {
            throw WebPushRejection(.vapidSubjectInvalid, "sub \"\(sub)\" has a localhost domain")
        }
    }

    /// The host of `mailto:user@host` / `https://host[:port]/…`, lowercased.
    static func domain(ofSubject lower: String) -> String? {
        if lower.hasPrefix("mailto:") {
            guard let at = lower.lastIndex(of: "@") else { return nil }
            return WebPushRequestValidator.trim(String(lower[lower.index(after: at)...])).trimmingTrailing(">")
        }
        guard lower.hasPrefix("https://") else { return nil }
        let rest = lower.dropFirst(8)
        let end = rest.firstIndex(where: { $0 == "/" || $0 == ":" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        return String(rest[..<end])
    }
}

extension String {
    func trimmingTrailing(_ c: Character) -> String {
        var s = self
        while s.last == c { s.removeLast() }
        return s
    }
}
