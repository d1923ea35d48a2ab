import XCTest
import PushDoubleCrypto
@testable import PushDoubleWebPush

/// RFC 8030 headers and the content-coding checks (docs/webpush.md §1.1, §4).
final class WebPushRequestValidatorTests: XCTestCase {
    var sub: WebPushSubscription!

    override func setUpWithError() throws { sub = try WebPushSubscription(service: .mozilla) }

    // MARK: TTL (§1.1, RFC 8030 §5.2)

    func testTTLRequiredAndParsed() throws {
        let r = try aes128gcmRequest(sub)
        XCTAssertEqual(accept(r, sub)?.ttl, 60)
        refuse(r.removing("TTL"), sub, .missingTTL)
        XCTAssertEqual(accept(try aes128gcmRequest(sub, ttl: "0"), sub)?.ttl, 0)  // pywebpush's default (§7.2)
        XCTAssertEqual(accept(try aes128gcmRequest(sub, ttl: "2419200"), sub)?.ttl, 2_419_200)  // node web-push's (§7.1)
        XCTAssertEqual(accept(try aes128gcmRequest(sub, ttl: "99999999999999999999999"), sub)?.ttl, Int64.max)
    }

    func testTTLHeaderNameIsCaseInsensitive() throws {
        let r = try aes128gcmRequest(sub, ttl: nil).adding("ttl", "30")  // pywebpush sends lowercase (§7.2)
        XCTAssertEqual(accept(r, sub)?.ttl, 30)
        XCTAssertEqual(accept(try aes128gcmRequest(sub, ttl: nil).adding("tTl", " 5 "), sub)?.ttl, 5)
    }

    func testTTLRefusals() throws {
        for bad in ["", "abc", "1.5", "+5", "10 s", "0x10", "5,6"] {
            refuse(try aes128gcmRequest(sub, ttl: bad), sub, .invalidTTL)
        }
        refuse(try aes128gcmRequest(sub, ttl: "-1"), sub, .negativeTTL)
        refuse(try aes128gcmRequest(sub).adding("TTL", "60"), sub, .invalidTTL)  // two TTL fields
    }

    // MARK: Urgency (§1.1, RFC 8030 §5.3)

    func testUrgencyValues() throws {
        XCTAssertEqual(accept(try aes128gcmRequest(sub), sub)?.urgency, .normal)  // default
        for u in WebPushUrgency.allCases {
            XCTAssertEqual(accept(try aes128gcmRequest(sub).adding("urgency", u.rawValue), sub)?.urgency, u)
        }
        for bad in ["urgent", "", "HIGH", "very low", "verylow"] {
            refuse(try aes128gcmRequest(sub).adding("Urgency", bad), sub, .invalidUrgency)
        }
        refuse(try aes128gcmRequest(sub).adding("Urgency", "low, high"), sub, .multipleUrgency)
        refuse(try aes128gcmRequest(sub).adding("Urgency", "low").adding("Urgency", "low"), sub, .multipleUrgency)
    }

    // MARK: Topic (§1.1, RFC 8030 §5.4)

    func testTopic() throws {
        XCTAssertNil(accept(try aes128gcmRequest(sub), sub)!.topic)
        let max = String(repeating: "a", count: 30) + "-_"
        XCTAssertEqual(accept(try aes128gcmRequest(sub).adding("Topic", max), sub)?.topic, max)
        XCTAssertEqual(accept(try aes128gcmRequest(sub).adding("topic", "AZaz09"), sub)?.topic, "AZaz09")
        refuse(try aes128gcmRequest(sub).adding("Topic", max + "b"), sub, .invalidTopic)  // 33
        for bad in ["a+b", "a/b", "a=", "a b", "ü", "a.b"] {
            refuse(try aes128gcmRequest(sub).adding("Topic", bad), sub, .invalidTopic)
        }
    }

    // MARK: Size (§1.2 413, RFC 8030 §7.2)

    func testBodyLimit4096() throws {
        // 4096 bytes: 86 header + 3993 plaintext + 1 delimiter + 16 tag (§2.2).
        let atLimit = try aes128gcmRequest(sub, String(repeating: "x", count: 3993))
        XCTAssertEqual(atLimit.body.count, 4096)
        XCTAssertNotNil(accept(atLimit, sub))
        let over = try aes128gcmRequest(sub, String(repeating: "x", count: 3994))
        XCTAssertEqual(over.body.count, 4097)
        let r = refuse(over, sub, .payloadTooLarge)
        XCTAssertEqual(r?.rule.rfcStatus, 413)
        // Presets: autopush 5630 (§6.2), WNS 5000 (§6.4).
        XCTAssertNotNil(accept(over, sub, .preset(for: .mozilla)))
        XCTAssertEqual(WebPushValidatorConfiguration.preset(for: .wns).maxBodyBytes, 5000)
        XCTAssertEqual(WebPushValidatorConfiguration.preset(for: .fcm).maxBodyBytes, 4096)
    }

    // MARK: Content coding (§1.1, §4)

    func testNoBodyNeedsNoEncoding() throws {
        let a = accept(WebPushRequest(["TTL": "0"]), sub)
        XCTAssertNil(a?.contentEncoding)
        XCTAssertEqual(a?.body, [])
    }

    func testContentEncoding() throws {
        let r = try aes128gcmRequest(sub)
        XCTAssertEqual(accept(r, sub)?.contentEncoding, .aes128gcm)
        refuse(r.removing("Content-Encoding"), sub, .missingContentEncoding)
        refuse(r.removing("Content-Encoding").adding("Content-Encoding", "gzip"), sub, .unknownContentEncoding)
        refuse(r.removing("Content-Encoding").adding("Content-Encoding", "aes256gcm"), sub, .unknownContentEncoding)
        XCTAssertEqual(accept(r.removing("Content-Encoding").adding("content-encoding", "AES128GCM"), sub)?.contentEncoding, .aes128gcm)
    }

    func testAES128GCMMustNotCarrySaltOrDH() throws {
        let r = try aes128gcmRequest(sub)
        refuse(r.adding("Encryption", "salt=DGv6ra1nlYgDCS1FRnbzlw"), sub, .legacyParametersWithAES128GCM)
        refuse(r.adding("Crypto-Key", "dh=\(RFC8291.uaPublic)"), sub, .legacyParametersWithAES128GCM)
        var lenient = WebPushValidatorConfiguration()
        lenient.rejectLegacyParametersWithAES128GCM = false
        XCTAssertNotNil(accept(r.adding("Encryption", "salt=DGv6ra1nlYgDCS1FRnbzlw"), sub, lenient))
        // A Crypto-Key with only p256ecdsa is not a dh.
        XCTAssertNotNil(accept(r.adding("Crypto-Key", "p256ecdsa=\(RFC8291.uaPublic)"), sub))
    }

    /// Legacy aesgcm (§4): `Encryption: salt=`, `Crypto-Key: dh=` when present.
    func testLegacyAESGCMHeaders() throws {
        let enc = try WebPushCipher.encryptLegacyAESGCM(plaintext: Array("hi".utf8), uaPublicKey: sub.publicKey, authSecret: sub.authSecret)
        let good = WebPushRequest(["TTL": "60", "Content-Encoding": "aesgcm", "Encryption": enc.encryptionHeader,
                                   "Crypto-Key": enc.cryptoKeyHeader], body: enc.body)
        let a = accept(good, sub)
        XCTAssertEqual(a?.contentEncoding, .aesgcm)
        XCTAssertEqual(a?.encryptionHeader, enc.encryptionHeader)
        XCTAssertEqual(a?.cryptoKeyHeader, enc.cryptoKeyHeader)
        refuse(good.removing("Encryption"), sub, .missingEncryptionHeader)
        refuse(good.removing("Encryption").adding("Encryption", "rs=4096"), sub, .invalidSalt)
        refuse(good.removing("Encryption").adding("Encryption", "salt=AAAA"), sub, .invalidSalt)
        refuse(good.removing("Encryption").adding("Encryption", "salt=not base64!"), sub, .invalidSalt)
        refuse(good.removing("Crypto-Key").adding("Crypto-Key", "p256ecdsa=abc"), sub, .missingDH)
        refuse(good.removing("Crypto-Key").adding("Crypto-Key", "dh=AAAA"), sub, .invalidDH)
        // "a dh in Crypto-Key if that header is present": absent is accepted.
        XCTAssertNotNil(accept(good.removing("Crypto-Key"), sub))
        // Quoted values and ';' / ',' separators.
        XCTAssertNotNil(accept(good.removing("Encryption").adding("Encryption", "keyid=p256dh; " + enc.encryptionHeader.replacingOccurrences(of: "salt=", with: "salt=\"") + "\""), sub))
    }

    /// Every rule is reachable from these tests (one place that lists them).
    func testRuleStatuses() {
        XCTAssertEqual(WebPushRule.missingTTL.rfcStatus, 400)
        XCTAssertEqual(WebPushRule.invalidTopic.rfcStatus, 400)
        XCTAssertEqual(WebPushRule.vapidMissing.rfcStatus, 401)
        XCTAssertEqual(WebPushRule.vapidSignatureInvalid.rfcStatus, 403)
        XCTAssertEqual(WebPushRule.vapidKeyEqualsECDHKey.rfcStatus, 400)
        XCTAssertEqual(WebPushRule.payloadTooLarge.rfcStatus, 413)
        XCTAssertEqual(WebPushRule.allCases.filter(\.isVAPID).count, 14)
    }
}
