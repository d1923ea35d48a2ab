import XCTest
import PushDoubleCrypto
@testable import PushDoubleWebPush

/// The byte-level forms of the Web Push request path give what their general forms give:
/// header-name matching, endpoint-path parsing, base64url encoding, and the VAPID cache
/// (a whole `vapid` header remembered; legacy forms still parsed under each setting).
final class WebPushFastPathTests: XCTestCase {
    func testHeaderNamesMatchAsLowercasedStrings() {
        let names = ["TTL", "ttl", "tTl", "TTM", "TT", "Crypto-Key", "crypto-key", "CRYPTO-KEY", "crypto_key", "crypto-\u{212A}ey",
                     "\u{130}", "i", "@", "`", "[", "{", "", "é", "É", "content-encoding"]
        for a in names {
            for b in names {
                XCTAssertEqual(WebPushRequest.sameName(a, b), a.lowercased() == b.lowercased(), "\(a) vs \(b)")
            }
        }
        let r = WebPushRequest(headers: [.init(name: "ttl", value: "1"), .init(name: "TTL", value: "2"), .init(name: "Urgency", value: "low")])
        XCTAssertEqual(r.values("TTL"), ["1", "2"])
        XCTAssertEqual(r.value("urgency"), "low")
        XCTAssertNil(r.value("topic"))
    }

    func testEndpointPathOnBytesIsTheCharacterParse() {
        var rng = SystemRandomNumberGenerator()
        let pieces = ["/", "wpush", "v1", "v2", "wp", "fcm", "send", "w", "?token=", "?", "tok", "A-_9", "=", " ", "\r\n", "\r", "\n", "", "x.y"]
        var targets = ["/wpush/v1/abc", "/wpush/v2/abc", "/wp/abc", "/fcm/send/abc", "/w/?token=abc", "/abc", "/", "", "//", "/wpush/v1/",
                       "/w/?token=", "/w/?token=a?b", "/fcm/send/a/b", "wpush/v1/abc", "/wpush/v1/a\r\nb", "/wpush/v1\r\n/abc"]
        for _ in 0..<4000 {
            targets.append((0..<Int.random(in: 1...7, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined())
        }
        for t in targets {
            XCTAssertEqual(WebPushEndpointPath.parseASCII(t), WebPushEndpointPath.parseCharacters(t), t.debugDescription)
            XCTAssertEqual(WebPushEndpointPath.parse(t), WebPushEndpointPath.parseCharacters(t), t.debugDescription)
        }
        // Non-ASCII targets take the Character parse.
        XCTAssertNil(WebPushEndpointPath.parse("/wpush/v1/ab\u{301}"))
        XCTAssertNil(WebPushEndpointPath.parse("/wpush/\u{301}v1/ab"))
    }

    func testBase64URLOfContiguousBytesIsTheIteratedEncoding() {
        for n in 0..<70 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let iterated = Base64URL.encode(AnySequenceCollection(bytes))
            XCTAssertEqual(Base64URL.encode(bytes), iterated)
            XCTAssertEqual(Base64URL.encode(bytes[...]), iterated)
            XCTAssertEqual(try Base64URL.decode(iterated), bytes)
        }
    }

    /// A legacy `WebPush <JWT>` header accepted by a service that allows the scheme is still
    /// refused by one that does not, although both validators share the cache.
    func testVAPIDCacheKeepsEachServicesLegacySchemes() throws {
        let cache = VAPIDSignatureCache()
        var allowing = WebPushValidatorConfiguration(), refusing = WebPushValidatorConfiguration()
        allowing.legacyAuthSchemes = ["webpush"]
        refusing.legacyAuthSchemes = []
        let a = WebPushRequestValidator(configuration: allowing, signatureCache: cache)
        let b = WebPushRequestValidator(configuration: refusing, signatureCache: cache)
        let sub = try WebPushSubscription(service: .mozilla)
        let key = try vapidTestKey()
        let k = Base64URL.encode(try key.publicKey.rawRepresentation)
        let jwt = try vapidJWT(goodClaims(), key: key)
        let legacy = try aes128gcmRequest(sub).adding("Authorization", "WebPush \(jwt)").adding("Crypto-Key", "p256ecdsa=\(k)")
        for _ in 0..<2 {
            XCTAssertNotNil(try a.validate(legacy, for: sub, now: testNow).vapid)
            XCTAssertThrowsError(try b.validate(legacy, for: sub, now: testNow)) { XCTAssertEqual(($0 as? WebPushRejection)?.rule, .unknownAuthScheme) }
        }
        // The RFC 8292 form is remembered whole: one entry, its identity the same on a hit.
        let vapid = try aes128gcmRequest(sub).adding("Authorization", "vapid t=\(jwt), k=\(k)")
        let first = try b.validate(vapid, for: sub, now: testNow).vapid
        let again = try a.validate(vapid, for: sub, now: testNow).vapid
        XCTAssertEqual(first, again)
        XCTAssertEqual(first?.form, .vapid)
        XCTAssertEqual(cache.count, 2, "the legacy JWT and key, the vapid header")
    }
}

/// A collection that is not contiguous (no `withContiguousStorageIfAvailable`).
private struct AnySequenceCollection: Collection {
    let base: [UInt8]
    init(_ base: [UInt8]) { self.base = base }
    var startIndex: Int { base.startIndex }
    var endIndex: Int { base.endIndex }
    subscript(i: Int) -> UInt8 { base[i] }
    func index(after i: Int) -> Int { i + 1 }
}
