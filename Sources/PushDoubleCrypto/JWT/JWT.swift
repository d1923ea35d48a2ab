/// The JWS algorithms PushDouble signs and verifies (RFC 7518 §3).
public enum JWTAlgorithm: String, Sendable, Equatable {
    /// ECDSA P-256 + SHA-256, signature raw `r‖s` (APNs provider tokens, VAPID).
    case es256 = "ES256"
    /// RSASSA-PKCS1-v1_5 + SHA-256 (Google service-account assertions).
    case rs256 = "RS256"
}

/// A private key together with the JWS algorithm it signs with.
public enum JWTSigningKey: Sendable {
    case es256(P256PrivateKey)
    case rs256(RSAPrivateKey)

    public var algorithm: JWTAlgorithm {
        switch self { case .es256: return .es256; case .rs256: return .rs256 }
    }
    var keyType: CryptoError.KeyType {
        switch self { case .es256: return .p256; case .rs256: return .rsa }
    }
}

/// A public key together with the JWS algorithm it verifies.
public enum JWTVerificationKey: Sendable {
    case es256(P256PublicKey)
    case rs256(RSAPublicKey)
}

/// Creates and parses JWS compact serialisations (`header.claims.signature`, RFC 7515 §7.1).
///
/// Signing writes compact JSON in the order the members were given, so
/// `JWT.sign(header: ["alg": "ES256", "kid": kid], claims: ["iss": team, "iat": now], key: .es256(k))`
/// produces exactly `{"alg":"ES256","kid":"…"}` and `{"iss":"…","iat":…}` as APNs expects.
public enum JWT {
    /// Signs `claims` with `key`. If `header` has no `alg`, the key's algorithm is put first;
    /// if it names another algorithm, throws `jwtAlgorithmKeyMismatch`.
    public static func sign(header: JOSEObject = [:], claims: JOSEObject, key: JWTSigningKey) throws(CryptoError) -> String {
        var h = header
        if let alg = h["alg"] {
            guard alg.stringValue == key.algorithm.rawValue else {
                throw .jwtAlgorithmKeyMismatch(algorithm: alg.stringValue ?? alg.compactJSON, key: key.keyType)
            }
        } else {
            h = JOSEObject([("alg", .string(key.algorithm.rawValue))] + header.members.map { ($0.key, $0.value) })
        }
        var input = Base64URL.encodeToBytes(h.compactJSONBytes)
        input.append(UInt8(ascii: "."))
        input += Base64URL.encodeToBytes(claims.compactJSONBytes)
        let signature: [UInt8]
        switch key {
        case .es256(let k): signature = try k.signature(for: input)
        case .rs256(let k): signature = try k.signature(for: input)
        }
        input.append(UInt8(ascii: "."))
        input += Base64URL.encodeToBytes(signature)
        return String(decoding: input, as: UTF8.self)
    }

    /// ES256 convenience: header `{"alg":"ES256","kid":keyID}` (plus `typ` if given).
    public static func signES256(keyID: String?, type: String? = nil, claims: JOSEObject, key: P256PrivateKey) throws(CryptoError) -> String {
        var h: JOSEObject = ["alg": "ES256"]
        if let type { h["typ"] = .string(type) }
        if let keyID { h["kid"] = .string(keyID) }
        return try sign(header: h, claims: claims, key: .es256(key))
    }

    /// RS256 convenience: header `{"alg":"RS256","typ":"JWT","kid":keyID}` (Google's form).
    public static func signRS256(keyID: String?, claims: JOSEObject, key: RSAPrivateKey) throws(CryptoError) -> String {
        var h: JOSEObject = ["alg": "RS256", "typ": "JWT"]
        if let keyID { h["kid"] = .string(keyID) }
        return try sign(header: h, claims: claims, key: .rs256(key))
    }

    /// Parses a compact JWS without verifying it. Refuses, each with its own error: a segment
    /// count other than 3, bad base64url in any segment (padding included), a header or
    /// claims segment that is not a JSON object, a missing `alg`, `alg: none`, and any `alg`
    /// other than ES256/RS256.
    public static func parse(_ token: String) throws(CryptoError) -> ParsedJWT {
        var t = token
        let r = t.withUTF8 { buf in Result { () throws(CryptoError) -> ParsedJWT in try parse(bytes: UnsafeRawBufferPointer(buf)) } }
        return try r.get()
    }

    /// Parses a compact JWS given as ASCII bytes (e.g. straight from a request header).
    public static func parse(bytes: UnsafeRawBufferPointer) throws(CryptoError) -> ParsedJWT {
        var dots: [Int] = []
        dots.reserveCapacity(2)
        for i in 0..<bytes.count where bytes[i] == UInt8(ascii: ".") {
            dots.append(i)
            if dots.count > 2 { break }
        }
        guard dots.count == 2 else {
            throw .jwtSegmentCount(dots.count > 2 ? bytes.reduce(1) { $0 + ($1 == UInt8(ascii: ".") ? 1 : 0) } : dots.count + 1)
        }
        let h = UnsafeRawBufferPointer(rebasing: bytes[0..<dots[0]])
        let c = UnsafeRawBufferPointer(rebasing: bytes[(dots[0] + 1)..<dots[1]])
        let s = UnsafeRawBufferPointer(rebasing: bytes[(dots[1] + 1)...])

        let headerJSON = try decodeSegment(h, .header)
        let header = try object(headerJSON, .header)
        guard let algValue = header["alg"], let alg = algValue.stringValue else { throw .jwtMissingAlgorithm }
        if alg.lowercased() == "none" { throw .jwtAlgorithmNone }
        guard let algorithm = JWTAlgorithm(rawValue: alg) else { throw .jwtUnsupportedAlgorithm(alg) }

        let claimsJSON = try decodeSegment(c, .claims)
        let claims = try object(claimsJSON, .claims)
        let signature = try decodeSegment(s, .signature)
        return ParsedJWT(algorithm: algorithm, header: header, claims: claims, headerJSON: headerJSON,
                         claimsJSON: claimsJSON, signingInput: Array(bytes[0..<dots[1]]), signature: signature)
    }

    private static func decodeSegment(_ seg: UnsafeRawBufferPointer, _ which: CryptoError.JWTSegment) throws(CryptoError) -> [UInt8] {
        do { return try Base64URL.decode(bytes: seg, allowPadding: false) } catch {
            throw .jwtSegmentEncoding(segment: which, reason: error.description)
        }
    }

    private static func object(_ json: [UInt8], _ which: CryptoError.JWTSegment) throws(CryptoError) -> JOSEObject {
        let v: JOSEValue
        do { v = try JOSEValue.parse(json: json) } catch {
            throw .jwtMalformedJSON(segment: which, reason: error.description)
        }
        // The parser already refused repeated member names, so this only fails for non-objects.
        guard let o = v.jsonObject else { throw .jwtMalformedJSON(segment: which, reason: "not a JSON object") }
        return o
    }
}

/// A parsed (not yet verified) compact JWS: decoded header and claims, their exact JSON
/// bytes, the signing input and the signature.
///
/// Parsing does no crypto; `verify(with:)` does one signature check and nothing else (no
/// time or audience rules: those belong to each provider fake).
public struct ParsedJWT: Sendable {
    /// The header's `alg`, already restricted to ES256/RS256.
    public let algorithm: JWTAlgorithm
    /// The protected header, members in document order.
    public let header: JOSEObject
    /// The claims set, members in document order.
    public let claims: JOSEObject
    /// The header's JSON exactly as sent (decoded from base64url).
    public let headerJSON: [UInt8]
    /// The claims' JSON exactly as sent.
    public let claimsJSON: [UInt8]
    /// `base64url(header) '.' base64url(claims)` as ASCII bytes: what the signature covers.
    public let signingInput: [UInt8]
    /// The decoded signature (ES256: raw `r‖s`).
    public let signature: [UInt8]

    /// Header `kid`.
    public var keyID: String? { header.string("kid") }
    /// Header `typ`.
    public var type: String? { header.string("typ") }
    /// Claim `iss`.
    public var issuer: String? { claims.string("iss") }
    /// Claim `iat` as whole seconds, in any form ``NumericDateClaim`` accepts (integer,
    /// fraction, digit string); nil when absent or not a date.
    public var issuedAt: Int64? { numericDate("iat")?.wholeSeconds }
    /// Claim `exp` as whole seconds, in any form ``NumericDateClaim`` accepts.
    public var expiresAt: Int64? { numericDate("exp")?.wholeSeconds }
    /// A NumericDate claim (`iat`, `exp`, `nbf`) as the sender wrote it; nil when absent or
    /// not a date.
    public func numericDate(_ name: String) -> NumericDateClaim? { claims[name].flatMap(NumericDateClaim.init) }
    /// Claim `aud` if it is a single string.
    public var audience: String? { claims.string("aud") }
    /// Claim `aud` as a list: one string, or every string of an array (RFC 7519 §4.1.3).
    public var audiences: [String] {
        switch claims["aud"] {
        case .string(let s)?: return [s]
        case .array(let a)?: return a.compactMap(\.stringValue)
        default: return []
        }
    }
    /// Claim `sub`.
    public var subject: String? { claims.string("sub") }
    /// Claim `scope` (Google assertions: space-separated scopes).
    public var scope: String? { claims.string("scope") }
    /// The claim names, for "exactly these claims" checks.
    public var claimNames: Set<String> { claims.keySet }

    /// Verifies the signature with an ES256 key. Throws `wrongKeyType` when the token is RS256,
    /// `signatureLength` when the signature is not 64 bytes, `signatureInvalid` otherwise.
    public func verify(with key: P256PublicKey) throws(CryptoError) {
        guard algorithm == .es256 else { throw .wrongKeyType(expected: .rsa, actual: .p256) }
        try key.verify(signature: signature, for: signingInput)
    }

    /// Verifies the signature with an RS256 key. Throws `wrongKeyType` when the token is ES256.
    public func verify(with key: RSAPublicKey) throws(CryptoError) {
        guard algorithm == .rs256 else { throw .wrongKeyType(expected: .p256, actual: .rsa) }
        try key.verify(signature: signature, for: signingInput)
    }

    /// Verifies with whichever key kind is given.
    public func verify(with key: JWTVerificationKey) throws(CryptoError) {
        switch key {
        case .es256(let k): try verify(with: k)
        case .rs256(let k): try verify(with: k)
        }
    }
}

/// A JWT NumericDate (RFC 7519 §2: "a JSON numeric value … seconds since the epoch", which
/// may be non-integer) together with the form the sender used.
///
/// Real services are more lenient than the RFC: client libraries send `time.time()`
/// (`1764582000.123`) and decimal strings (`"1764582000"`) and APNs accepts both
/// (docs/apns.md, leniency table). So the three forms parse; anything else (negative,
/// not finite, beyond year 5138, other strings, booleans) is not a date.
public struct NumericDateClaim: Sendable, Equatable {
    /// How the value was written.
    public enum Form: String, Sendable, Equatable {
        /// A JSON integer literal: the form every provider documents.
        case integer
        /// A JSON number with a fraction or exponent (RFC 7519 allows it).
        case fraction
        /// A JSON string of decimal digits, optionally with a fraction (not a NumericDate per
        /// RFC 7519, tolerated because providers accept it).
        case string
    }

    /// The largest accepted value, 10^11 s (year 5138): keeps every conversion to Int64 exact.
    public static let maximumSeconds: Double = 1e11

    /// Seconds since the epoch, fraction kept.
    public let seconds: Double
    public let form: Form

    public init?(seconds: Double, form: Form) {
        guard seconds.isFinite, seconds >= 0, seconds <= Self.maximumSeconds else { return nil }
        self.seconds = seconds; self.form = form
    }

    /// Parses a claim value; nil when it is not one of the three forms.
    public init?(_ value: JSONValue) {
        switch value {
        case .int(let i): self.init(seconds: Double(i), form: .integer)
        case .double(let d): self.init(seconds: d, form: .fraction)
        case .string(let s):
            guard let d = Self.decimalSeconds(s) else { return nil }
            self.init(seconds: d, form: .string)
        default: return nil
        }
    }

    /// The value rounded down to whole seconds.
    public var wholeSeconds: Int64 { Int64(seconds.rounded(.down)) }

    /// `digits` or `digits.digits`, nothing else (no sign, exponent or spaces).
    static func decimalSeconds(_ s: String) -> Double? {
        var sawDigit = false, sawPoint = false, digitsAfterPoint = 0
        for c in s.utf8 {
            if c >= 0x30 && c <= 0x39 { sawDigit = true; if sawPoint { digitsAfterPoint += 1 } }
            else if c == 0x2E && !sawPoint && sawDigit { sawPoint = true }
            else { return nil }
        }
        guard sawDigit, !sawPoint || digitsAfterPoint > 0, s.utf8.count <= 32 else { return nil }
        return Double(s)
    }
}
