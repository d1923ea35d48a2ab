import XCTest
import PushDoubleCrypto
import PushDoubleJSON
@testable import PushDoubleWebPush

final class WebPushSubscriptionTests: XCTestCase {
    /// docs/webpush.md §6.1–§6.4: each service's endpoint shape.
    func testEndpointShapesPerService() throws {
        let key = try P256PrivateKey.generate()
        let auth = [UInt8](repeating: 7, count: 16)
        func endpoint(_ s: WebPushService, restricted: Bool = false) throws -> String {
            try WebPushSubscription(service: s, token: "TOKEN", privateKey: key, authSecret: auth,
                                    applicationServerKey: restricted ? try vapidTestKey().publicKey : nil).endpoint
        }
        XCTAssertEqual(try endpoint(.mozilla), "https://updates.push.services.mozilla.com/wpush/v1/TOKEN")
        XCTAssertEqual(try endpoint(.mozilla, restricted: true), "https://updates.push.services.mozilla.com/wpush/v2/TOKEN")
        XCTAssertEqual(try endpoint(.fcm), "https://fcm.googleapis.com/fcm/send/TOKEN")
        XCTAssertEqual(try endpoint(.fcm, restricted: true), "https://fcm.googleapis.com/wp/TOKEN", "docs/webpush.md §6.1b")
        XCTAssertEqual(WebPushEndpointPath.parse("/wp/TOKEN"), WebPushEndpointPath(service: .fcm, token: "TOKEN", restricted: true))
        XCTAssertEqual(WebPushEndpointPath.parse("/fcm/send/TOKEN"), WebPushEndpointPath(service: .fcm, token: "TOKEN", restricted: false))
        XCTAssertNil(WebPushEndpointPath.parse("/wp/"))
        // A /fcm/send/ request for a /wp/ subscription: FCM's text naming the valid URL (§6.1b).
        let moved = WebPushServiceStyle(.fcm).response(forWrongShape: WebPushEndpointPath(service: .fcm, token: "TOKEN", restricted: false),
                                                      of: WebPushEndpointPath(service: .fcm, token: "TOKEN", restricted: true))
        XCTAssertEqual(moved.status, 404)
        XCTAssertEqual(String(decoding: moved.body, as: UTF8.self),
                       "A valid push subscription endpoint should be specified in the URL as such: https://fcm.googleapis.com/wp/TOKEN")
        XCTAssertEqual(try endpoint(.apple), "https://web.push.apple.com/TOKEN")
        XCTAssertEqual(try endpoint(.wns), "https://wns.notify.windows.com/w/?token=TOKEN")
    }

    /// A fake passes its own origin; the service still shapes the path.
    func testOriginOfTheFake() throws {
        let s = try WebPushSubscription(service: .fcm, origin: "https://127.0.0.1:8443", token: "abc")
        XCTAssertEqual(s.endpoint, "https://127.0.0.1:8443/fcm/send/abc")
        XCTAssertEqual(s.origin, "https://127.0.0.1:8443")
    }

    /// Fixed keys reproduce the RFC 8291 Appendix A subscription (docs/webpush.md §3.1: `p256dh` is
    /// ua_public, `auth` the auth secret) and its browser JSON byte for byte.
    func testFixedKeysAndBrowserJSON() throws {
        let s = try RFC8291.subscription()
        XCTAssertEqual(s.p256dh, RFC8291.uaPublic)
        XCTAssertEqual(s.auth, RFC8291.auth)
        XCTAssertFalse(s.isRestricted)
        XCTAssertEqual(s.jsonText,
                       #"{"endpoint":"https://push.example.net/wpush/v1/JzLQ3raZJfFBR0aqvOMsLrt54w4rJUsV","expirationTime":null,"keys":{"p256dh":"BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4","auth":"BTBZMqHH6r4Tts7J_aSIgg"}}"#)
    }

    /// Fresh subscriptions: a real key pair (its p256dh is a valid point matching the private
    /// key: ECDH agrees both ways), a 16-byte auth secret, a random token; two differ.
    func testFreshSubscriptionsAreRealAndDistinct() throws {
        let a = try WebPushSubscription(service: .mozilla)
        let b = try WebPushSubscription(service: .mozilla)
        XCTAssertEqual(try Base64URL.decode(a.auth).count, 16)
        let point = try P256PublicKey(rawRepresentation: Base64URL.decode(a.p256dh))
        let other = try P256PrivateKey.generate()
        XCTAssertEqual(try other.sharedSecret(with: point), try a.privateKey.sharedSecret(with: other.publicKey))
        XCTAssertNotEqual(a.p256dh, b.p256dh)
        XCTAssertNotEqual(a.auth, b.auth)
        XCTAssertNotEqual(a.token, b.token)
        XCTAssertEqual(try Base64URL.decode(a.token).count, 32)
        // The JSON parses back to the same values.
        let j = try JSONValue.parse(a.jsonText)
        XCTAssertEqual(j["endpoint"]?.stringValue, a.endpoint)
        XCTAssertEqual(j["expirationTime"], .null)
        XCTAssertEqual(j["keys"]?["p256dh"]?.stringValue, a.p256dh)
        XCTAssertEqual(j["keys"]?["auth"]?.stringValue, a.auth)
    }

    func testApplicationServerKeyRestricts() throws {
        let k = try vapidTestKey().publicKey
        let s = try WebPushSubscription(service: .apple, applicationServerKey: k)
        XCTAssertTrue(s.isRestricted)
        XCTAssertEqual(s.applicationServerKey, k)
        XCTAssertEqual(Base64URL.encode(k.rawRepresentation), try vapidTestPublicText())
    }

    func testAuthSecretMustBe16Bytes() throws {
        XCTAssertThrowsError(try WebPushSubscription(service: .fcm, privateKey: P256PrivateKey.generate(), authSecret: [1, 2, 3])) {
            XCTAssertEqual($0 as? CryptoError, .invalidKeyLength(what: "auth secret", expected: 16, actual: 3))
        }
    }
}
