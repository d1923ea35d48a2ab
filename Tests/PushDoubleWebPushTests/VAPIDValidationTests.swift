import XCTest
import PushDoubleCrypto
import PushDoubleJSON
@testable import PushDoubleWebPush

/// RFC 8292 VAPID (docs/webpush.md §5, §6.2 autopush checks, §6.3 Apple), JWTs signed here with
/// Certificates/vapid-test-private.pem.
final class VAPIDValidationTests: XCTestCase {
    let origin = "https://updates.push.services.mozilla.com"
    var sub: WebPushSubscription!
    var restricted: WebPushSubscription!

    override func setUpWithError() throws {
        sub = try WebPushSubscription(service: .mozilla)
        restricted = try WebPushSubscription(service: .mozilla, applicationServerKey: vapidTestKey().publicKey)
    }

    func request(_ authorization: String?, to s: WebPushSubscription? = nil, cryptoKey: String? = nil) throws -> WebPushRequest {
        var r = try aes128gcmRequest(s ?? sub)
        if let authorization { r = r.adding("Authorization", authorization) }
        if let cryptoKey { r = r.adding("Crypto-Key", cryptoKey) }
        return r
    }

    // MARK: Forms (§5)

    func testVAPIDFormWithAndWithoutSpace() throws {
        for space in [true, false] {  // node web-push / py_vapid
            let a = accept(try request(vapidHeader(space: space), to: restricted), restricted)
            XCTAssertEqual(a?.vapid?.form, .vapid)
            XCTAssertEqual(a?.vapid?.subject, "mailto:ops@example.com")
            XCTAssertEqual(a?.vapid?.audience, origin)
            XCTAssertEqual(a?.vapid?.expiresAt, testNow + 12 * 3600)
            XCTAssertEqual(a?.vapid.map { Base64URL.encode($0.publicKey.rawRepresentation) }, try vapidTestPublicText())
        }
    }

    func testAuthorizationHeaderNameIsCaseInsensitive() throws {
        let r = try aes128gcmRequest(restricted).adding("authorization", try vapidHeader())
        XCTAssertEqual(accept(r, restricted)?.vapid?.form, .vapid)
        let t = try vapidJWT(goodClaims(), key: vapidTestKey())
        let legacy = try aes128gcmRequest(restricted).adding("AUTHORIZATION", "webpush \(t)").adding("crypto-key", "p256ecdsa=\(try vapidTestPublicText())")
        XCTAssertEqual(accept(legacy, restricted)?.vapid?.form, .legacy(scheme: "webpush"))
    }

    func testVAPIDParameterVariants() throws {
        let key = try vapidTestKey()
        let t = try vapidJWT(goodClaims(), key: key), k = try vapidTestPublicText()
        for h in ["vapid k=\(k), t=\(t)", "VAPID t=\(t),k=\(k)", "Vapid t=\"\(t)\", k=\"\(k)\"", "vapid  t=\(t) ,  k=\(k)"] {
            XCTAssertNotNil(accept(try request(h, to: restricted), restricted), h)
        }
        for h in ["vapid t=\(t)", "vapid k=\(k)", "vapid", "vapid t=\(t), k=\(k), t=\(t)", "vapid t=\(t), k", "vapid t=, k=\(k)"] {
            refuse(try request(h, to: restricted), restricted, .vapidMalformed)
        }
        refuse(try request("vapid t=\(t), k=\(k)").adding("Authorization", "vapid t=\(t), k=\(k)"), sub, .vapidMalformed)
    }

    /// Legacy draft-01 `WebPush <JWT>` + `Crypto-Key: p256ecdsa=` (§5), and autopush's `bearer` (§6.2).
    func testLegacyWebPushForm() throws {
        let key = try vapidTestKey()
        let t = try vapidJWT(goodClaims(), key: key), k = try vapidTestPublicText()
        let a = accept(try request("WebPush \(t)", to: restricted, cryptoKey: "p256ecdsa=\(k)"), restricted)
        XCTAssertEqual(a?.vapid?.form, .legacy(scheme: "webpush"))
        XCTAssertEqual(accept(try request("Bearer \(t)", to: restricted, cryptoKey: "p256ecdsa=\(k)"), restricted)?.vapid?.form,
                       .legacy(scheme: "bearer"))
        // With aesgcm, Crypto-Key carries dh and p256ecdsa together (§4).
        let enc = try WebPushCipher.encryptLegacyAESGCM(plaintext: Array("x".utf8), uaPublicKey: restricted.publicKey, authSecret: restricted.authSecret)
        let legacy = WebPushRequest(["TTL": "60", "Content-Encoding": "aesgcm", "Encryption": enc.encryptionHeader,
                                     "Crypto-Key": enc.cryptoKeyHeader + ";p256ecdsa=" + k, "Authorization": "WebPush " + t], body: enc.body)
        XCTAssertEqual(accept(legacy, restricted)?.vapid?.form, .legacy(scheme: "webpush"))
        refuse(try request("WebPush \(t)", to: restricted), restricted, .vapidMalformed)  // no Crypto-Key
        refuse(try request("WebPush \(t)", to: restricted, cryptoKey: "keyid=a"), restricted, .vapidMalformed)
        refuse(try request("WebPush", to: restricted, cryptoKey: "p256ecdsa=\(k)"), restricted, .vapidMalformed)
        var noBearer = WebPushValidatorConfiguration()
        noBearer.legacyAuthSchemes = ["webpush"]
        refuse(try request("Bearer \(t)", to: restricted, cryptoKey: "p256ecdsa=\(k)"), restricted, .unknownAuthScheme, noBearer)
    }

    func testUnknownScheme() throws {
        refuse(try request("key=AAAA"), sub, .unknownAuthScheme)  // GCM API key form (§7.1)
        refuse(try request("Basic dXNlcjpwYXNz"), sub, .unknownAuthScheme)
    }

    // MARK: Presence (§5 restricted subscriptions)

    func testMissingVAPID() throws {
        XCTAssertNil(accept(try request(nil), sub)?.vapid)  // unrestricted: optional
        let r = refuse(try request(nil, to: restricted), restricted, .vapidMissing)
        XCTAssertEqual(r?.rule.rfcStatus, 401)
        var strict = WebPushValidatorConfiguration()
        strict.requireVAPID = true
        refuse(try request(nil), sub, .vapidMissing, strict)
        // An unrestricted subscription still checks VAPID when it is sent.
        refuse(try request(vapidHeader(goodClaims(origin: "https://evil.example"))), sub, .vapidAudience)
    }

    // MARK: Key and signature

    func testKeyMustBeAPoint() throws {
        let t = try vapidJWT(goodClaims(), key: vapidTestKey())
        for k in ["AAAA", "not*base64", Base64URL.encode([UInt8](repeating: 4, count: 65)), Base64URL.encode([UInt8](repeating: 0, count: 33))] {
            refuse(try request("vapid t=\(t), k=\(k)"), sub, .vapidInvalidKey)
        }
    }

    func testSignatureCheckedWithK() throws {
        let other = try P256PrivateKey.generate()
        let t = try vapidJWT(goodClaims(), key: other)  // signed with another key
        refuse(try request("vapid t=\(t), k=\(try vapidTestPublicText())"), sub, .vapidSignatureInvalid)
        // Flip one signature byte.
        let good = try vapidJWT(goodClaims(), key: vapidTestKey())
        var parts = good.split(separator: ".").map(String.init)
        var sig = try Base64URL.decode(parts[2])
        sig[10] ^= 1
        parts[2] = Base64URL.encode(sig)
        refuse(try request("vapid t=\(parts.joined(separator: ".")), k=\(try vapidTestPublicText())"), sub, .vapidSignatureInvalid)
    }

    func testTokenMustBeES256JWS() throws {
        let k = try vapidTestPublicText()
        for t in ["abc", "a.b", "a.b.c.d", "e30.e30.", Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + ".e30."] {
            refuse(try request("vapid t=\(t), k=\(k)"), sub, .vapidTokenMalformed)
        }
        let rsa = try RSAPrivateKey.generate(bits: 2048)
        let rs = try JWT.sign(claims: goodClaims(), key: .rs256(rsa))
        refuse(try request("vapid t=\(rs), k=\(k)"), sub, .vapidTokenMalformed)
    }

    func testKeyMustBeTheApplicationServerKey() throws {
        let other = try P256PrivateKey.generate()
        let t = try vapidJWT(goodClaims(), key: other)
        let h = "vapid t=\(t), k=\(Base64URL.encode(try other.publicKey.rawRepresentation))"
        XCTAssertNotNil(accept(try request(h), sub))  // unrestricted: any key that signs
        refuse(try request(h, to: restricted), restricted, .vapidKeyMismatch)
    }

    /// RFC 8292 §3.2 (docs/webpush.md §1.2): `k` identical to the ECDH key → 400.
    func testKeyEqualToECDHKey() throws {
        let key = try vapidTestKey()
        let body = try WebPushCipher.encrypt(plaintext: Array("x".utf8), uaPublicKey: sub.publicKey, authSecret: sub.authSecret,
                                             senderPrivateKey: key)
        let r = WebPushRequest(["TTL": "1", "Content-Encoding": "aes128gcm", "Authorization": try vapidHeader()], body: body)
        let rej = refuse(r, sub, .vapidKeyEqualsECDHKey)
        XCTAssertEqual(rej?.rule.rfcStatus, 400)
        var off = WebPushValidatorConfiguration()
        off.rejectVAPIDKeyEqualToECDHKey = false
        XCTAssertNotNil(accept(r, sub, off))
    }

    // MARK: Claims (§5)

    func testAudienceIsTheOriginReached() throws {
        XCTAssertNotNil(accept(try request(vapidHeader(goodClaims(origin: "https://127.0.0.1:8443"))), sub, origin: "https://127.0.0.1:8443"))
        for aud in ["https://updates.push.services.mozilla.com/", "https://updates.push.services.mozilla.com/wpush/v1",
                    "http://updates.push.services.mozilla.com", "https://push.services.mozilla.com"] {
            refuse(try request(vapidHeader(goodClaims(origin: aud))), sub, .vapidAudience)
        }
        var noAud = goodClaims()
        noAud["aud"] = nil
        refuse(try request(vapidHeader(noAud)), sub, .vapidAudience)
    }

    func testExpiry() throws {
        XCTAssertNotNil(accept(try request(vapidHeader(goodClaims(exp: testNow + 86_400))), sub))  // exactly 24 h
        XCTAssertNotNil(accept(try request(vapidHeader(goodClaims(exp: testNow + 1))), sub))
        refuse(try request(vapidHeader(goodClaims(exp: testNow + 86_401))), sub, .vapidExpiryTooLong)
        refuse(try request(vapidHeader(goodClaims(exp: testNow))), sub, .vapidExpired)
        refuse(try request(vapidHeader(goodClaims(exp: testNow - 60))), sub, .vapidExpired)
        var noExp = goodClaims()
        noExp["exp"] = nil
        refuse(try request(vapidHeader(noExp)), sub, .vapidExpiryInvalid)
        var textExp = goodClaims()
        textExp["exp"] = "tomorrow"
        refuse(try request(vapidHeader(textExp)), sub, .vapidExpiryInvalid)
        var longer = WebPushValidatorConfiguration()
        longer.maxExpirySeconds = 2 * 86_400
        XCTAssertNotNil(accept(try request(vapidHeader(goodClaims(exp: testNow + 86_401))), sub, longer))
    }

    func testSubject() throws {
        for s in ["mailto:ops@example.com", "https://example.com/contact", "MAILTO:ops@example.com",
                  "mailto: admin@example.com",  // UNCONFIRMED at Apple (§6.3): accepted by default
                  "mailto:openclaw@localhost", "mailto:<ops@example.com>"] {
            XCTAssertNotNil(accept(try request(vapidHeader(goodClaims(sub: .string(s)))), sub), s)
        }
        refuse(try request(vapidHeader(goodClaims(sub: nil))), sub, .vapidSubjectMissing)
        refuse(try request(vapidHeader(goodClaims(sub: ""))), sub, .vapidSubjectMissing)
        refuse(try request(vapidHeader(goodClaims(sub: 5))), sub, .vapidSubjectMissing)
        for s in ["ops@example.com", "http://example.com", "tel:+123"] {
            refuse(try request(vapidHeader(goodClaims(sub: .string(s)))), sub, .vapidSubjectInvalid)
        }
        var any = WebPushValidatorConfiguration()
        any.requireSubjectScheme = false
        XCTAssertNotNil(accept(try request(vapidHeader(goodClaims(sub: "ops@example.com"))), sub, any))
    }

    /// Apple's stricter checks seen in practice (§6.3), via the preset; the space case stays
    /// accepted (UNCONFIRMED) unless switched on.
    func testAppleSubjectPreset() throws {
        let apple = WebPushValidatorConfiguration.preset(for: .apple)
        for s in ["mailto:openclaw@localhost", "https://localhost/x", "mailto:<ops@example.com>"] {
            refuse(try request(vapidHeader(goodClaims(sub: .string(s)))), sub, .vapidSubjectInvalid, apple)
        }
        XCTAssertNotNil(accept(try request(vapidHeader(goodClaims(sub: "mailto: admin@example.com"))), sub, apple))
        XCTAssertNotNil(accept(try request(vapidHeader(goodClaims(sub: "mailto:realuser@gmail.com"))), sub, apple))  // https://github.com/web-push-libs/web-push/issues/947 → 201
        var spaced = apple
        spaced.rejectMailtoSpace = true
        refuse(try request(vapidHeader(goodClaims(sub: "mailto: admin@example.com"))), sub, .vapidSubjectInvalid, spaced)
    }
}
