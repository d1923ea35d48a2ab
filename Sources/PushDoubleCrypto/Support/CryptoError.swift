/// Every failure PushDoubleCrypto reports: one case per distinct cause, each carrying the
/// values that show what was wrong (offsets, lengths, the algorithm seen, OpenSSL's text).
///
/// Callers (the provider fakes) map these to provider wire errors; tests assert the exact
/// case, so a new cause gets a new case rather than a new message on an old one.
public enum CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    // MARK: base64url
    /// A byte outside the base64url alphabet (`A–Z a–z 0–9 - _`, plus `=` padding where allowed).
    case base64URLInvalidCharacter(offset: Int, byte: UInt8)
    /// A length no base64 encoding can have (4n+1 characters), or padding that does not fit.
    case base64URLInvalidLength(length: Int)
    /// `=` where padding is not allowed (inside the text, or at all for JWS segments).
    case base64URLUnexpectedPadding(offset: Int)
    /// The last character carries bits that are not zero, so the text is not the canonical
    /// encoding of any byte string.
    case base64URLNonCanonical

    // MARK: keys
    /// The text holds no PEM block with the expected label(s).
    case pemBlockNotFound(expected: [String])
    /// OpenSSL could not decode a key or certificate; `detail` is OpenSSL's error text.
    case keyDecodingFailed(format: String, detail: String)
    /// A key of one type was given where another was required (e.g. RSA for ES256).
    case wrongKeyType(expected: KeyType, actual: KeyType)
    /// An EC key on a curve other than P-256.
    case unsupportedCurve(String)
    /// A raw key, secret or point of the wrong size.
    case invalidKeyLength(what: String, expected: Int, actual: Int)
    /// 65 bytes that are not an uncompressed point on P-256 (bad prefix or off the curve).
    case invalidPublicPoint(detail: String)

    // MARK: JWT / JWS
    /// A compact JWS must have exactly three `.`-separated segments.
    case jwtSegmentCount(Int)
    /// A segment is not valid unpadded base64url.
    case jwtSegmentEncoding(segment: JWTSegment, reason: String)
    /// The header or claims segment is not a JSON object (or has duplicate member names).
    case jwtMalformedJSON(segment: JWTSegment, reason: String)
    /// The header has no `alg` member (or it is not a string).
    case jwtMissingAlgorithm
    /// `"alg":"none"`: an unsecured JWS, always refused.
    case jwtAlgorithmNone
    /// An `alg` other than ES256 / RS256.
    case jwtUnsupportedAlgorithm(String)
    /// The header `alg` does not match the key given to sign or verify.
    case jwtAlgorithmKeyMismatch(algorithm: String, key: KeyType)
    /// The signature has the wrong length for its algorithm (ES256 is exactly 64 bytes).
    case signatureLength(expected: Int, actual: Int)
    /// The signature does not verify with the given key.
    case signatureInvalid

    // MARK: Web Push content coding (RFC 8188 / RFC 8291 / draft aesgcm)
    /// The body is shorter than its fixed header (21 bytes + keyid) requires.
    case truncatedHeader(length: Int, required: Int)
    /// `rs` too small: aes128gcm needs rs ≥ 18 (16-byte tag + delimiter + 1); with encrypt,
    /// too small to fit the requested padding as well.
    case recordSizeTooSmall(recordSize: Int, minimum: Int)
    /// A record whose plaintext holds no `0x01`/`0x02` delimiter (all zeros).
    case missingPaddingDelimiter(record: Int)
    /// A delimiter that does not match the record's place: `0x02` before the last record,
    /// or `0x01` in the last one.
    case wrongPaddingDelimiter(record: Int, delimiter: UInt8)
    /// A record that fails AES-GCM authentication: tampered ciphertext, wrong key, or a
    /// wrong auth secret (which yields a different key, so it shows up here).
    case authenticationFailed(record: Int)
    /// A record shorter than the 16-byte tag, or a body that ends with a record of the
    /// full size (so the last record is missing), or trailing data after the last record.
    case truncatedRecord(record: Int, length: Int)
    /// The keyid in an aes128gcm header does not have the 65 bytes of a P-256 point.
    case invalidKeyIDLength(Int)
    /// The legacy `aesgcm` headers (`Encryption`, `Crypto-Key`) lack a required parameter.
    case missingHeaderParameter(header: String, parameter: String)
    /// The legacy `aesgcm` padding length prefix exceeds the record.
    case invalidPadding(record: Int)

    /// A caller-supplied parameter that cannot work (e.g. a record plan that does not cover
    /// the plaintext, or a header parameter that is not a number).
    case invalidArgument(String)

    // MARK: X.509 / OpenSSL / files
    /// An OpenSSL call failed; `operation` names the step, `detail` is the error queue.
    case openSSL(operation: String, detail: String)
    /// Reading or writing a credential file failed.
    case fileIO(path: String, reason: String)

    /// The key types this module knows, used in errors.
    public enum KeyType: String, Sendable, Equatable {
        case p256 = "EC P-256"
        case ecOtherCurve = "EC (other curve)"
        case rsa = "RSA"
        case other = "other"
    }

    /// The three parts of a compact JWS.
    public enum JWTSegment: String, Sendable, Equatable {
        case header, claims, signature
    }

    public var description: String {
        switch self {
        case let .base64URLInvalidCharacter(offset, byte):
            return "base64url: invalid character 0x\(String(byte, radix: 16)) at offset \(offset)"
        case let .base64URLInvalidLength(length): return "base64url: impossible length \(length)"
        case let .base64URLUnexpectedPadding(offset): return "base64url: unexpected '=' at offset \(offset)"
        case .base64URLNonCanonical: return "base64url: non-zero trailing bits (not canonical)"
        case let .pemBlockNotFound(expected): return "PEM: no block labelled \(expected.joined(separator: " or "))"
        case let .keyDecodingFailed(format, detail): return "cannot decode \(format): \(detail)"
        case let .wrongKeyType(expected, actual): return "wrong key type: expected \(expected.rawValue), got \(actual.rawValue)"
        case let .unsupportedCurve(c): return "unsupported EC curve \(c) (only P-256)"
        case let .invalidKeyLength(what, expected, actual): return "\(what): expected \(expected) bytes, got \(actual)"
        case let .invalidPublicPoint(detail): return "invalid P-256 public point: \(detail)"
        case let .jwtSegmentCount(n): return "JWT: expected 3 segments, got \(n)"
        case let .jwtSegmentEncoding(segment, reason): return "JWT \(segment.rawValue): bad base64url (\(reason))"
        case let .jwtMalformedJSON(segment, reason): return "JWT \(segment.rawValue): bad JSON (\(reason))"
        case .jwtMissingAlgorithm: return "JWT: header has no alg"
        case .jwtAlgorithmNone: return "JWT: alg none is not accepted"
        case let .jwtUnsupportedAlgorithm(a): return "JWT: unsupported alg \(a)"
        case let .jwtAlgorithmKeyMismatch(a, k): return "JWT: alg \(a) cannot use a \(k.rawValue) key"
        case let .signatureLength(e, a): return "signature: expected \(e) bytes, got \(a)"
        case .signatureInvalid: return "signature does not verify"
        case let .truncatedHeader(l, r): return "content coding: header truncated (\(l) bytes, need \(r))"
        case let .recordSizeTooSmall(rs, min): return "content coding: record size \(rs) too small (minimum \(min))"
        case let .missingPaddingDelimiter(r): return "content coding: record \(r) has no padding delimiter"
        case let .wrongPaddingDelimiter(r, d): return "content coding: record \(r) has delimiter 0x0\(d) in the wrong place"
        case let .authenticationFailed(r): return "content coding: record \(r) failed authentication (tampered, or wrong key/auth secret)"
        case let .truncatedRecord(r, l): return "content coding: record \(r) truncated (\(l) bytes)"
        case let .invalidKeyIDLength(l): return "content coding: keyid is \(l) bytes, expected 65"
        case let .missingHeaderParameter(h, p): return "content coding: \(h) header lacks \(p)"
        case let .invalidPadding(r): return "content coding: record \(r) has invalid padding"
        case let .invalidArgument(why): return "invalid argument: \(why)"
        case let .openSSL(op, detail): return "OpenSSL \(op) failed: \(detail)"
        case let .fileIO(path, reason): return "\(path): \(reason)"
        }
    }
}
