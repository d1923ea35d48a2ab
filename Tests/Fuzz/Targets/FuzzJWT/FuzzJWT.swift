import FuzzSupport
import PushDoubleCrypto

/// The compact JWS parser (`JWT.parse`), as the APNs fake meets provider tokens.
///
/// Input: the token bytes.
/// Invariants: an accepted token has exactly two dots, its signing input is the bytes
/// before the second one, and the `String` entry point agrees with the bytes one;
/// verifying with the other algorithm's key throws `wrongKeyType`; re-signing the parsed
/// header and claims with the test key gives a token that parses to the same header and
/// claims and verifies.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWT(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let parsed: ParsedJWT
    do { parsed = try JWT.parse(bytes: bytes) } catch { return 0 }

    let dots = bytes.indices.filter { bytes[$0] == UInt8(ascii: ".") }
    fuzzCheck(dots.count == 2, "accepted a token with \(dots.count) dots")
    fuzzCheck(parsed.signingInput == Array(bytes[0..<dots[1]]), "signing input is not the first two segments")
    if let text = String(validating: bytes, as: UTF8.self) {
        do {
            let again = try JWT.parse(text)
            fuzzCheck(again.headerJSON == parsed.headerJSON && again.claimsJSON == parsed.claimsJSON
                      && again.signature == parsed.signature && again.algorithm == parsed.algorithm,
                      "parse(String) and parse(bytes:) disagree")
        } catch {
            fuzzCheck(false, "parse(String) refused what parse(bytes:) accepted: \(error)")
        }
    }
    // The accessors must not trap on whatever the claims hold.
    _ = (parsed.keyID, parsed.type, parsed.issuer, parsed.issuedAt, parsed.expiresAt, parsed.audience,
         parsed.audiences, parsed.subject, parsed.scope, parsed.claimNames)

    let keys = FuzzJWTKeys.shared
    let (mine, other): (JWTVerificationKey, JWTVerificationKey) = parsed.algorithm == .es256
        ? (.es256(keys.p256Public), .rs256(keys.rsaPublic)) : (.rs256(keys.rsaPublic), .es256(keys.p256Public))
    do { try parsed.verify(with: other); fuzzCheck(false, "verified with the other algorithm's key") } catch {
        guard case .wrongKeyType = error else { fuzzCheck(false, "other algorithm's key: \(error)"); return 0 }
    }
    _ = try? parsed.verify(with: mine)

    let signing: JWTSigningKey = parsed.algorithm == .es256 ? .es256(keys.p256) : .rs256(keys.rsa)
    do {
        let token = try JWT.sign(header: parsed.header, claims: parsed.claims, key: signing)
        let again = try JWT.parse(token)
        fuzzCheck(again.header == parsed.header && again.claims == parsed.claims, "re-signing changed the header or claims")
        try again.verify(with: mine)
    } catch {
        fuzzCheck(false, "re-signed token fails: \(error)")
    }
    return 0
}

/// The embedded test keys (APNs ES256 key, Firebase RS256 key), loaded once.
struct FuzzJWTKeys: Sendable {
    let p256: P256PrivateKey
    let p256Public: P256PublicKey
    let rsa: RSAPrivateKey
    let rsaPublic: RSAPublicKey

    static let shared: FuzzJWTKeys = {
        do {
            let p256 = try P256PrivateKey(pem: EmbeddedTestCredentials.contents(of: "AuthKey_PDTESTKEY1.p8"))
            let account = try JSONValue.parse(EmbeddedTestCredentials.contents(of: "firebase-test-service-account.json"))
            guard let pem = account["private_key"]?.stringValue else { fatalError("no private_key in the service account") }
            let rsa = try RSAPrivateKey(pem: pem)
            return FuzzJWTKeys(p256: p256, p256Public: try p256.publicKey, rsa: rsa, rsaPublic: try rsa.publicKey)
        } catch {
            fatalError("test keys: \(error)")
        }
    }()
}
