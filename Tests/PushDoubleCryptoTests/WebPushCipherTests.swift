import XCTest
import PushDoubleTestSupport
@testable import PushDoubleCrypto

/// RFC 8291 Web Push encryption (Appendix A vector) and the legacy `aesgcm` coding.
final class WebPushCipherTests: XCTestCase {
    // RFC 8291 Appendix A (copied from docs/webpush.md §3).
    static let plaintext = Array("When I grow up, I want to be a watermelon".utf8)
    static let asPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    static let asPublic = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
    static let uaPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    static let uaPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
    static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    static let body = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

    func uaKey() throws -> P256PrivateKey { try P256PrivateKey(rawPrivateScalar: b64(Self.uaPrivate)) }
    func asKey() throws -> P256PrivateKey { try P256PrivateKey(rawPrivateScalar: b64(Self.asPrivate)) }

    func testRFC8291KeysAndIntermediates() throws {
        XCTAssertEqual(try uaKey().publicKey.rawRepresentation, b64(Self.uaPublic))
        XCTAssertEqual(try asKey().publicKey.rawRepresentation, b64(Self.asPublic))
        let ecdh = try asKey().sharedSecret(with: uaKey().publicKey)
        XCTAssertEqual(ecdh, b64("kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs"))
        XCTAssertEqual(try uaKey().sharedSecret(with: asKey().publicKey), ecdh)
        let ikm = try WebPushCipher.webPushIKM(privateKey: asKey(), peer: uaKey().publicKey, authSecret: b64(Self.authSecret),
                                               uaPublic: b64(Self.uaPublic), asPublic: b64(Self.asPublic))
        XCTAssertEqual(ikm, b64("S4lYMb_L0FxCeq0WhDx813KgSYqU26kOyzWUdsXYyrg"))
        let (cek, nonce) = AES128GCMContentCoding.deriveKeyAndNonce(ikm: ikm, salt: b64(Self.salt))
        XCTAssertEqual(cek, b64("oIhVW04MRdy2XN9CiKLxTg"))
        XCTAssertEqual(nonce, b64("4h_95klXJ5E_qnoN"))
    }

    func testRFC8291AppendixADecrypt() throws {
        let body = b64(Self.body)
        XCTAssertEqual(body.count, 144)
        let m = try WebPushCipher.decrypt(body: body, uaPrivateKey: uaKey(), authSecret: b64(Self.authSecret))
        XCTAssertEqual(m.plaintext, Self.plaintext)
        XCTAssertEqual(m.contentEncoding, .aes128gcm)
        XCTAssertEqual(m.salt, b64(Self.salt))
        XCTAssertEqual(m.recordSize, 4096)
        XCTAssertEqual(m.senderPublicKey.rawRepresentation, b64(Self.asPublic))
        XCTAssertEqual(m.recordCount, 1)
        XCTAssertEqual(m.paddingLength, 0)
    }

    func testRFC8291AppendixAEncryptByteExact() throws {
        let out = try WebPushCipher.encrypt(plaintext: Self.plaintext, uaPublicKey: uaKey().publicKey, authSecret: b64(Self.authSecret),
                                            salt: b64(Self.salt), senderPrivateKey: asKey())
        XCTAssertEqual(out, b64(Self.body))
    }

    func testRandomisedEncryptRoundTripsWithPadding() throws {
        let ua = try P256PrivateKey.generate()
        let auth = try WebPushCipher.randomBytes(16)
        let text = Array(#"{"title":"hello","body":"world"}"#.utf8)
        let a = try WebPushCipher.encrypt(plaintext: text, uaPublicKey: ua.publicKey, authSecret: auth, padding: 100)
        let b = try WebPushCipher.encrypt(plaintext: text, uaPublicKey: ua.publicKey, authSecret: auth)
        XCTAssertNotEqual(Array(a[0..<16]), Array(b[0..<16]), "fresh salt per message")
        XCTAssertEqual(a.count, 86 + text.count + 1 + 100 + 16)
        let m = try WebPushCipher.decrypt(body: a, uaPrivateKey: ua, authSecret: auth)
        XCTAssertEqual(m.plaintext, text)
        XCTAssertEqual(m.paddingLength, 100)
        XCTAssertEqual(try WebPushCipher.decrypt(body: b, uaPrivateKey: ua, authSecret: auth).plaintext, text)
    }

    // MARK: - bad input

    func testWrongAuthSecretShowsAsAuthenticationFailure() throws {
        var auth = b64(Self.authSecret)
        auth[0] ^= 1
        assertThrows(.authenticationFailed(record: 0)) {
            try WebPushCipher.decrypt(body: self.b64(Self.body), uaPrivateKey: self.uaKey(), authSecret: auth)
        }
    }

    func testTamperedCiphertext() throws {
        var body = b64(Self.body)
        body[100] ^= 0x80
        assertThrows(.authenticationFailed(record: 0)) {
            try WebPushCipher.decrypt(body: body, uaPrivateKey: self.uaKey(), authSecret: self.b64(Self.authSecret))
        }
    }

    func testWrongSubscriptionKey() throws {
        let other = try P256PrivateKey.generate()
        assertThrows(.authenticationFailed(record: 0)) {
            try WebPushCipher.decrypt(body: self.b64(Self.body), uaPrivateKey: other, authSecret: self.b64(Self.authSecret))
        }
    }

    func testTruncatedHeader() throws {
        let body = Array(b64(Self.body)[0..<60])
        assertThrows(.truncatedHeader(length: 60, required: 86)) {
            try WebPushCipher.decrypt(body: body, uaPrivateKey: self.uaKey(), authSecret: self.b64(Self.authSecret))
        }
    }

    func testBadKeyLengths() throws {
        assertThrows(.invalidKeyLength(what: "auth secret", expected: 16, actual: 15)) {
            try WebPushCipher.decrypt(body: self.b64(Self.body), uaPrivateKey: self.uaKey(), authSecret: [UInt8](repeating: 0, count: 15))
        }
        assertThrows(.invalidKeyLength(what: "P-256 public point", expected: 65, actual: 64)) {
            try P256PublicKey(rawRepresentation: Array(self.b64(Self.uaPublic).dropLast()))
        }
        assertThrows(.invalidKeyLength(what: "P-256 private scalar", expected: 32, actual: 31)) {
            try P256PrivateKey(rawPrivateScalar: [UInt8](repeating: 1, count: 31))
        }
        // A keyid of the wrong size in the header (idlen 64).
        var body = b64(Self.body)
        body[20] = 64
        assertThrows(.invalidKeyIDLength(64)) {
            try WebPushCipher.decrypt(body: body, uaPrivateKey: self.uaKey(), authSecret: self.b64(Self.authSecret))
        }
    }

    func testPointNotOnCurve() {
        var point = b64(Self.uaPublic)
        point[64] ^= 1
        assertThrows(.invalidPublicPoint(detail: "not on the P-256 curve")) { try P256PublicKey(rawRepresentation: point) }
        point = b64(Self.uaPublic)
        point[0] = 0x02
        assertThrows(matching: { if case .invalidPublicPoint = $0 { return true }; return false }) { try P256PublicKey(rawRepresentation: point) }
    }

    func testRecordSizeTooSmallForSingleRecord() throws {
        // RFC 8291 §4: rs must exceed plaintext + delimiter + padding + tag (41 + 1 + 0 + 16 = 58).
        assertThrows(.recordSizeTooSmall(recordSize: 58, minimum: 59)) {
            try WebPushCipher.encrypt(plaintext: Self.plaintext, uaPublicKey: self.uaKey().publicKey,
                                      authSecret: self.b64(Self.authSecret), recordSize: 58)
        }
        var body = b64(Self.body)
        body[16...19] = [0, 0, 0, 5]
        assertThrows(.recordSizeTooSmall(recordSize: 5, minimum: 18)) {
            try WebPushCipher.decrypt(body: body, uaPrivateKey: self.uaKey(), authSecret: self.b64(Self.authSecret))
        }
    }

    // MARK: - legacy aesgcm, vectors from mozilla-services/ecec (tests/test_webpush_aesgcm.c)

    func testLegacyECECRecordSize24() throws {
        let m = try WebPushCipher.decryptLegacyAESGCM(
            body: hex("3a8df8c3617d5559d33057cab5dc78f0065643d2e2f4ce836ae5895605d4"),
            encryptionHeader: "salt=zCU18Rw3A5aB_Xi-vfixmA; rs=24",
            cryptoKeyHeader: "dh=BCHFVrflyxibGLlgztLwKelsRZp4gqX3tNfAKFaxAcBhpvYeN1yIUMrxaDKiLh4LNKPtj0BOXGdr-IQ-QP82Wjo",
            uaPrivateKey: P256PrivateKey(rawPrivateScalar: hex("e21db71bf2a45c2f53bc148adafd10ec89a94b6600b9177c850c8dd2b140c018")),
            authSecret: hex("6930dce8979bcd1e9e49ccb6a0ba3845"))
        XCTAssertEqual(String(decoding: m.plaintext, as: UTF8.self), "Some message")
        XCTAssertEqual(m.contentEncoding, .aesgcm)
        XCTAssertEqual(m.recordSize, 24)
        XCTAssertEqual(m.recordCount, 1)
    }

    func testLegacyECECRecordSize8WithPaddingManyRecords() throws {
        let m = try WebPushCipher.decryptLegacyAESGCM(
            body: hex("b840b907fb51f9fb90ddd7a541caf3ac30a9e345ba8a93198c667bf14483279b0c8fee9b00e546dc02ba26a165f44e80a16881618bcc65fc13855c660e7c3a447b5578b2853390d6825d44c243a88701f61218830f480cde2a3e77bf562b338f644f6b0d6512bfae09b2d22649f5ff00341f001aef6d991e696c61e77106e7d40c38494526a1ee7b874c511a6c3178"),
            encryptionHeader: "salt=ZFhzj0S-n29g9P2p4-I7tA; rs=8",
            cryptoKeyHeader: "dh=BEaA4gzA3i0JDuirGhiLgymS4hfFX7TNTdEhSk_HBlLpkjgCpjPL5c-GL9uBGIfa_fhGNKKFhXz1k9Kyens2ZpQ",
            uaPrivateKey: P256PrivateKey(rawPrivateScalar: hex("e21db71bf2a45c2f53bc148adafd10ec89a94b6600b9177c850c8dd2b140c018")),
            authSecret: hex("ea99706674a95546c5ec03c35eeb3751"))
        XCTAssertEqual(String(decoding: m.plaintext, as: UTF8.self), "Yet another message")
        XCTAssertEqual(m.paddingLength, 16)
        XCTAssertEqual(m.recordCount, 6)
    }

    func testLegacyDraftExampleWithQuotedParameters() throws {
        // draft-ietf-httpbis-encryption-encoding-02 example as carried by ecec: quoted values, keyid.
        let m = try WebPushCipher.decryptLegacyAESGCM(
            body: hex("ea7a80414304f2136ac39277925f1ca55549ca55ca62a64e7ac7991bc52e78aa40"),
            encryptionHeader: #"keyid="dhkey"; salt="lngarbyKfMoi9Z75xYXmkg""#,
            cryptoKeyHeader: #"keyid="dhkey"; dh="BNoRDbb84JGm8g5Z5CFxurSqsXWJ11ItfXEWYVLE85Y7CYkDjXsIEc4aqxYaQ1G8BqkXCJ6DPpDrWtdWj_mugHU""#,
            uaPrivateKey: P256PrivateKey(rawPrivateScalar: hex("f455a5d79fd05100160da0f7937979d19059409e1abb6ec5d55e05d2e2d20ff3")),
            authSecret: hex("476f6f20676f6f206727206a6f6f6221"))
        XCTAssertEqual(String(decoding: m.plaintext, as: UTF8.self), "I am the walrus")
    }

    func testLegacyECECTruncatedWithoutTrailer() throws {
        assertThrows(.truncatedRecord(record: 1, length: 0)) {
            try WebPushCipher.decryptLegacyAESGCM(
                body: hex("606e05f9bd3acb9f748519674acc3fbee3b0eb657d233f"),
                encryptionHeader: "salt=xKWvs_jWWeg4KOsot_uBhA; rs=7",
                cryptoKeyHeader: "dh=BD_bsTUpxBMvSv8eksith3vijMLj44D4jhJjO51y7wK1ytbUlsyYBBYYyB5AAe5bnREA_WipTgemDVz00LiWcfM",
                uaPrivateKey: P256PrivateKey(rawPrivateScalar: hex("d9bbb8a5a38065b2f679fd6efb04f338db9321c0cf734d28d33509820e3a5d37")),
                authSecret: hex("4280e2d2eeaf72c9485492a2a2e5cc5f"))
        }
    }

    func testLegacyECECPadSizeLargerThanLastBlock() throws {
        assertThrows(matching: { e in
            if case .invalidPadding = e { return true }
            if case .truncatedRecord = e { return true } // a 1-byte last block is also too short for the pad prefix
            return false
        }) {
            try WebPushCipher.decryptLegacyAESGCM(
                body: hex("26f5fd1ec27894be60ccff3fb8229ceacd7989121a3610f8a450a0ab9f9d7f06d4a8470d524aaf"),
                encryptionHeader: "salt=ot8hzbwOo6CYe6ZhdlwKtg; rs=6",
                cryptoKeyHeader: "dh=BBNZNEi5Ew_ID5S4Y9jWBi1NeVDje6Mjs7SDLViUn6A8VAZj-6X3QAuYQ3j20BblqjwTgYst7PRnY6UGrKyLbmU",
                uaPrivateKey: P256PrivateKey(rawPrivateScalar: hex("0a8b0444055782f4efa21ed492b442d95fa25e836cd1b5e57bd23af2ace495eb")),
                authSecret: hex("42d199798f0c41f09aabe5f028e54605"))
        }
    }

    func testLegacyRoundTripAndErrors() throws {
        let ua = try P256PrivateKey.generate()
        let auth = try WebPushCipher.randomBytes(16)
        let text = Array(String(repeating: "legacy aesgcm ", count: 20).utf8)
        for rs in [3, 10, 4096] {
            let (body, enc, ck) = try WebPushCipher.encryptLegacyAESGCM(plaintext: text, uaPublicKey: ua.publicKey, authSecret: auth,
                                                                         recordSize: rs, padding: 1)
            let m = try WebPushCipher.decryptLegacyAESGCM(body: body, encryptionHeader: enc, cryptoKeyHeader: ck, uaPrivateKey: ua, authSecret: auth)
            XCTAssertEqual(m.plaintext, text, "rs \(rs)")
            XCTAssertEqual(m.paddingLength, 1)
        }
        let (body, enc, ck) = try WebPushCipher.encryptLegacyAESGCM(plaintext: text, uaPublicKey: ua.publicKey, authSecret: auth)
        assertThrows(.missingHeaderParameter(header: "Encryption", parameter: "salt")) {
            try WebPushCipher.decryptLegacyAESGCM(body: body, encryptionHeader: "rs=4096", cryptoKeyHeader: ck, uaPrivateKey: ua, authSecret: auth)
        }
        assertThrows(.missingHeaderParameter(header: "Crypto-Key", parameter: "dh")) {
            try WebPushCipher.decryptLegacyAESGCM(body: body, encryptionHeader: enc, cryptoKeyHeader: "p256ecdsa=AAAA", uaPrivateKey: ua, authSecret: auth)
        }
        var wrongAuth = auth
        wrongAuth[3] ^= 1
        assertThrows(.authenticationFailed(record: 0)) {
            try WebPushCipher.decryptLegacyAESGCM(body: body, encryptionHeader: enc, cryptoKeyHeader: ck, uaPrivateKey: ua, authSecret: wrongAuth)
        }
        assertThrows(.recordSizeTooSmall(recordSize: 2, minimum: 3)) {
            try WebPushCipher.decryptLegacyAESGCM(body: body, encryptionHeader: enc + ";rs=2", cryptoKeyHeader: ck, uaPrivateKey: ua, authSecret: auth)
        }
    }

    private func b64(_ s: String, file: StaticString = #filePath, line: UInt = #line) -> [UInt8] {
        PushDoubleCryptoTests.b64(s, file: file, line: line)
    }
}
