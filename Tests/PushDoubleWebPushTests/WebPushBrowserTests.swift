import Foundation
import XCTest
@testable import PushDoubleCrypto
import PushDoubleJSON
@testable import PushDoubleWebPush

/// Decryption by the subscription's keys (docs/webpush.md §2–§4) and the received-message record.
final class WebPushBrowserTests: XCTestCase {
    func accepted(_ body: [UInt8], _ encoding: WebPushContentEncoding? = .aes128gcm, encryption: String? = nil,
                  cryptoKey: String? = nil, ttl: Int64 = 10, urgency: WebPushUrgency = .normal, topic: String? = nil) -> WebPushAcceptedRequest {
        WebPushAcceptedRequest(ttl: ttl, urgency: urgency, topic: topic, contentEncoding: encoding, encryptionHeader: encryption,
                               cryptoKeyHeader: cryptoKey, vapid: nil, body: body)
    }

    /// The RFC 8291 §5 example request (docs/webpush.md §3: body of 144 bytes, not the printed 145)
    /// through the validator and the browser.
    func testRFC8291AppendixAVector() throws {
        let sub = try RFC8291.subscription()
        let body = try Base64URL.decode(RFC8291.body)
        XCTAssertEqual(body.count, 144)
        let request = WebPushRequest(["TTL": "10", "Content-Encoding": "aes128gcm"], body: body)
        let a = try WebPushRequestValidator().validate(request, for: sub, now: testNow)
        let browser = WebPushBrowser(subscription: sub)
        XCTAssertEqual(try browser.decrypt(a).get(), Array(RFC8291.plaintext.utf8))
        let m = browser.receive(a, at: Date(timeIntervalSince1970: 1_780_000_000.25))
        XCTAssertEqual(m.jsonText,
                       #"{"receivedAt":"2026-05-28T20:26:40.250Z","ttl":10,"urgency":"normal","topic":null,"encoding":"aes128gcm","payload":{"data":"When I grow up, I want to be a watermelon","base64":false}}"#)
    }

    func testLegacyAESGCMRoundTrip() throws {
        let sub = try WebPushSubscription(service: .mozilla)
        let enc = try WebPushCipher.encryptLegacyAESGCM(plaintext: Array("legacy ✓".utf8), uaPublicKey: sub.publicKey,
                                                        authSecret: sub.authSecret, padding: 3)
        let m = WebPushBrowser(subscription: sub).receive(
            accepted(enc.body, .aesgcm, encryption: enc.encryptionHeader, cryptoKey: enc.cryptoKeyHeader, ttl: 5, urgency: .high, topic: "t1"),
            at: Date(timeIntervalSince1970: 0))
        XCTAssertEqual(m.payload, .text("legacy ✓"))
        XCTAssertEqual(m.jsonText, #"{"receivedAt":"1970-01-01T00:00:00.000Z","ttl":5,"urgency":"high","topic":"t1","encoding":"aesgcm","payload":{"data":"legacy ✓","base64":false}}"#)
    }

    func testBinaryPayloadIsBase64WithFlag() throws {
        let sub = try WebPushSubscription(service: .fcm)
        let bytes: [UInt8] = [0xFF, 0x00, 0xFE, 0x80]
        let body = try WebPushCipher.encrypt(plaintext: bytes, uaPublicKey: sub.publicKey, authSecret: sub.authSecret, padding: 10)
        let m = WebPushBrowser(subscription: sub).receive(accepted(body), at: Date(timeIntervalSince1970: 0))
        XCTAssertEqual(m.payload, .binary(bytes))
        XCTAssertEqual(m.json["payload"], ["data": "/wD+gA==", "base64": true])
    }

    func testNoBody() throws {
        let sub = try WebPushSubscription(service: .fcm)
        let m = WebPushBrowser(subscription: sub).receive(accepted([], nil), at: Date(timeIntervalSince1970: 0))
        XCTAssertEqual(m.payload, .none)
        XCTAssertEqual(m.json["payload"], .null)
        XCTAssertEqual(m.json["encoding"], .null)
    }

    // MARK: Every decryption failure

    func failure(_ sub: WebPushSubscription, _ a: WebPushAcceptedRequest, file: StaticString = #filePath, line: UInt = #line) -> WebPushDecryptionFailure? {
        switch WebPushBrowser(subscription: sub).decrypt(a) {
        case .success(let p): XCTFail("decrypted: \(String(describing: p))", file: file, line: line); return nil
        case .failure(let f): return f
        }
    }

    func testWrongKeysAndTampering() throws {
        let sub = try RFC8291.subscription()
        let body = try Base64URL.decode(RFC8291.body)
        let other = try WebPushSubscription(service: .mozilla)  // another browser's keys
        XCTAssertEqual(failure(other, accepted(body)), .authenticationFailed(record: 0))
        let wrongAuth = try WebPushSubscription(service: .mozilla, privateKey: sub.privateKey, authSecret: [UInt8](repeating: 1, count: 16))
        XCTAssertEqual(failure(wrongAuth, accepted(body)), .authenticationFailed(record: 0))
        var tampered = body
        tampered[100] ^= 0x40
        XCTAssertEqual(failure(sub, accepted(tampered)), .authenticationFailed(record: 0))
        let m = WebPushBrowser(subscription: other).receive(accepted(body), at: Date(timeIntervalSince1970: 0))
        XCTAssertEqual(m.json["payload"]?["error"], "authenticationFailed")
        XCTAssertNotNil(m.json["payload"]?["detail"]?.stringValue)
    }

    /// An aes128gcm body whose records are sealed exactly as given (data, delimiter and
    /// padding written by the test), with the RFC 8291 sender key and salt, so that padding
    /// and framing can be wrong on purpose. Key schedule: PushDoubleCrypto's.
    func body(records: [[UInt8]], recordSize: Int = 4096, sub: WebPushSubscription) throws -> [UInt8] {
        let sender = try P256PrivateKey(rawPrivateScalar: Base64URL.decode(RFC8291.asPrivate))
        let asPublic = try sender.publicKey.rawRepresentation
        let ikm = try WebPushCipher.webPushIKM(privateKey: sender, peer: sub.publicKey, authSecret: sub.authSecret,
                                               uaPublic: sub.publicKey.rawRepresentation, asPublic: asPublic)
        let salt = try Base64URL.decode(RFC8291.salt)
        let (key, nonce) = AES128GCMContentCoding.deriveKeyAndNonce(ikm: ikm, salt: salt)
        let aead = try AES128GCM(key: key)
        var out = AES128GCMContentCoding.Header(salt: salt, recordSize: recordSize, keyID: asPublic).encoded
        for (i, r) in records.enumerated() {
            out += try aead.seal(nonce: AES128GCMContentCoding.recordNonce(nonce, i), plaintext: r[...])
        }
        return out
    }

    /// A one-record aesgcm body sealed exactly as given (2-byte padding length written by the
    /// test), and its headers.
    func legacyBody(_ record: [UInt8], sub: WebPushSubscription) throws -> (body: [UInt8], encryption: String, cryptoKey: String) {
        let sender = try P256PrivateKey.generate()
        let salt = [UInt8](repeating: 9, count: 16)
        let asPublic = try sender.publicKey.rawRepresentation
        let (key, nonce) = WebPushCipher.legacyKeyAndNonce(ecdh: try sender.sharedSecret(with: sub.publicKey), authSecret: sub.authSecret,
                                                           salt: salt, uaPublic: sub.publicKey.rawRepresentation, asPublic: asPublic)
        let sealed = try AES128GCM(key: key).seal(nonce: nonce, plaintext: record[...])
        return (sealed, "salt=" + Base64URL.encode(salt), "dh=" + Base64URL.encode(asPublic))
    }

    func testBadPadding() throws {
        let sub = try RFC8291.subscription()
        XCTAssertEqual(try WebPushBrowser(subscription: sub).decrypt(accepted(try body(records: [Array("ok".utf8) + [2, 0, 0]], sub: sub))).get(),
                       Array("ok".utf8))
        XCTAssertEqual(failure(sub, accepted(try body(records: [[0, 0, 0]], sub: sub))), .missingPaddingDelimiter(record: 0))
        XCTAssertEqual(failure(sub, accepted(try body(records: [Array("ok".utf8) + [1, 0]], sub: sub))), .wrongPaddingDelimiter(record: 0, delimiter: 1))
        // aesgcm (§4): a padding length beyond the record, and non-zero padding bytes.
        let legacySub = try WebPushSubscription(service: .mozilla)
        for record: [UInt8] in [[0, 9, 0x41], [0, 2, 0, 7, 0x41]] {
            let l = try legacyBody(record, sub: legacySub)
            XCTAssertEqual(failure(legacySub, accepted(l.body, .aesgcm, encryption: l.encryption, cryptoKey: l.cryptoKey)), .invalidPadding(record: 0))
        }
        let fine = try legacyBody([0, 1, 0, 0x41], sub: legacySub)
        XCTAssertEqual(try WebPushBrowser(subscription: legacySub).decrypt(accepted(fine.body, .aesgcm, encryption: fine.encryption,
                                                                                    cryptoKey: fine.cryptoKey)).get(), [0x41])
    }

    /// Legacy `aesgcm` to a Chrome subscription is one record too (Chromium's
    /// `WebPushEncryptionDraft03::ValidateCiphertextSize`, docs/webpush.md §4a): a two-record
    /// body is undecryptable there, decrypts when the rule is off; one full record still passes.
    func testMultiRecordAESGCMIsNotASingleRecord() throws {
        let sub = try RFC8291.subscription()
        let plaintext = Array(String(repeating: "p", count: 30).utf8)
        let two = try WebPushCipher.encryptLegacyAESGCM(plaintext: plaintext, uaPublicKey: sub.publicKey, authSecret: sub.authSecret, recordSize: 24)
        let message = accepted(two.body, .aesgcm, encryption: two.encryptionHeader, cryptoKey: two.cryptoKeyHeader)
        XCTAssertGreaterThan(two.body.count, 24 + 16, "the body holds two records")
        XCTAssertEqual(failure(sub, message), .notASingleRecord(recordSize: 24, ciphertextLength: two.body.count))
        XCTAssertEqual(WebPushBrowser(subscription: sub).receive(message, at: Date()).payload, .undecryptable(.notASingleRecord(recordSize: 24, ciphertextLength: two.body.count)))
        var lenient = WebPushBrowser(subscription: sub)
        lenient.requireSingleRecord = false
        XCTAssertEqual(try lenient.decrypt(message).get(), plaintext)
        // Within rs + tag: one record, accepted.
        let one = try WebPushCipher.encryptLegacyAESGCM(plaintext: Array(plaintext[..<21]), uaPublicKey: sub.publicKey, authSecret: sub.authSecret, recordSize: 24)
        XCTAssertEqual(one.body.count, 2 + 21 + 16)
        XCTAssertEqual(try WebPushBrowser(subscription: sub).decrypt(accepted(one.body, .aesgcm, encryption: one.encryptionHeader,
                                                                                cryptoKey: one.cryptoKeyHeader)).get(), Array(plaintext[..<21]))
    }

    /// The failure text writes a delimiter as two hex digits.
    func testDelimiterIsPrintedInHex() {
        XCTAssertEqual(WebPushDecryptionFailure.wrongPaddingDelimiter(record: 0, delimiter: 0xAB).description, "record 0 has delimiter 0xab in the wrong place")
        XCTAssertEqual(WebPushDecryptionFailure.wrongPaddingDelimiter(record: 3, delimiter: 1).description, "record 3 has delimiter 0x01 in the wrong place")
    }

    func testRecordSizeProblems() throws {
        let sub = try RFC8291.subscription()
        // rs below 18 (RFC 8188).
        var small = try Base64URL.decode(RFC8291.body)
        small[16...19] = [0, 0, 0, 17]
        XCTAssertEqual(failure(sub, accepted(small)), .recordSizeTooSmall(recordSize: 17, minimum: 18))
        // A valid two-record RFC 8188 body: not a single record (§2.2); decrypts when allowed.
        let two = try body(records: [Array("abc".utf8) + [1], Array("de".utf8) + [2]], recordSize: 20, sub: sub)
        XCTAssertEqual(failure(sub, accepted(two)), .notASingleRecord(recordSize: 20, ciphertextLength: 20 + 19))
        var lenient = WebPushBrowser(subscription: sub)
        lenient.requireSingleRecord = false
        XCTAssertEqual(try lenient.decrypt(accepted(two)).get(), Array("abcde".utf8))
        // aesgcm: rs=2 in Encryption.
        let enc = try WebPushCipher.encryptLegacyAESGCM(plaintext: Array("x".utf8), uaPublicKey: sub.publicKey, authSecret: sub.authSecret)
        XCTAssertEqual(failure(sub, accepted(enc.body, .aesgcm, encryption: enc.encryptionHeader + ";rs=2", cryptoKey: enc.cryptoKeyHeader)),
                       .recordSizeTooSmall(recordSize: 2, minimum: 3))
    }

    func testTruncation() throws {
        let sub = try RFC8291.subscription()
        let body = try Base64URL.decode(RFC8291.body)
        XCTAssertEqual(failure(sub, accepted(Array(body[..<20]))), .truncatedHeader(length: 20, required: 21))
        XCTAssertEqual(failure(sub, accepted(Array(body[..<50]))), .truncatedHeader(length: 50, required: 86))
        XCTAssertEqual(failure(sub, accepted(Array(body[..<86]))), .truncatedRecord(record: 0, length: 0))
        XCTAssertEqual(failure(sub, accepted(Array(body[..<100]))), .truncatedRecord(record: 0, length: 14))
        XCTAssertEqual(failure(sub, accepted(Array(body[..<143]))), .authenticationFailed(record: 0))  // tag cut short
    }

    func testSenderKeyAndLegacyHeaders() throws {
        let sub = try RFC8291.subscription()
        var body = try Base64URL.decode(RFC8291.body)
        body[21] = 0x05  // keyid no longer an uncompressed point
        guard case .invalidSenderKey? = failure(sub, accepted(body)) else { return XCTFail("expected invalidSenderKey") }
        var short = try Base64URL.decode(RFC8291.body)
        short[20] = 10  // idlen 10
        guard case .invalidSenderKey? = failure(sub, accepted(short)) else { return XCTFail("expected invalidSenderKey") }
        let enc = try WebPushCipher.encryptLegacyAESGCM(plaintext: Array("x".utf8), uaPublicKey: sub.publicKey, authSecret: sub.authSecret)
        XCTAssertEqual(failure(sub, accepted(enc.body, .aesgcm, encryption: enc.encryptionHeader, cryptoKey: nil)),
                       .missingHeaderParameter(header: "Crypto-Key", parameter: "dh"))
        XCTAssertEqual(failure(sub, accepted(enc.body, .aesgcm, encryption: nil, cryptoKey: enc.cryptoKeyHeader)),
                       .missingHeaderParameter(header: "Encryption", parameter: "salt"))
        guard case .invalidHeaderParameter? = failure(sub, accepted(enc.body, .aesgcm, encryption: "salt=AAAA", cryptoKey: enc.cryptoKeyHeader)) else {
            return XCTFail("expected invalidHeaderParameter")
        }
        XCTAssertEqual(failure(sub, accepted(enc.body, nil)), .noContentEncoding)
        XCTAssertEqual(failure(sub, accepted(Array(enc.body.prefix(10)), .aesgcm, encryption: enc.encryptionHeader, cryptoKey: enc.cryptoKeyHeader)),
                       .truncatedRecord(record: 0, length: 10))
    }
}
