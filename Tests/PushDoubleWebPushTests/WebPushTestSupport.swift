import Foundation
import XCTest
import PushDoubleCrypto
import PushDoubleJSON
@testable import PushDoubleWebPush

/// The repository root (for Certificates/), from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Certificates/vapid-test-private.pem: the shipped VAPID test key.
func vapidTestKey() throws -> P256PrivateKey {
    let pem = try String(contentsOf: repositoryRoot.appendingPathComponent("Certificates/vapid-test-private.pem"), encoding: .utf8)
    return try P256PrivateKey(pem: pem)
}

/// Certificates/vapid-test-public.txt: the same key's `k` value.
func vapidTestPublicText() throws -> String {
    try String(contentsOf: repositoryRoot.appendingPathComponent("Certificates/vapid-test-public.txt"), encoding: .utf8)
        .trimmingCharacters(in: .whitespacesAndNewlines)
}

/// A fixed instant for claim checks.
let testNow: Int64 = 1_780_000_000

/// RFC 8291 Appendix A inputs (docs/webpush.md §3.1).
enum RFC8291 {
    static let plaintext = "When I grow up, I want to be a watermelon"
    static let asPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    static let uaPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    static let uaPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"
    static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    /// docs/webpush.md §3.3 "full body = header ‖ ciphertext", 144 bytes.
    static let body = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

    static func subscription(service: WebPushService = .mozilla) throws -> WebPushSubscription {
        try WebPushSubscription(service: service, origin: "https://push.example.net", token: "JzLQ3raZJfFBR0aqvOMsLrt54w4rJUsV",
                                privateKey: P256PrivateKey(rawPrivateScalar: Base64URL.decode(uaPrivate)),
                                authSecret: Base64URL.decode(auth))
    }
}

/// Signs VAPID claims with `key` (header `{"typ":"JWT","alg":"ES256"}`, docs/webpush.md §5).
func vapidJWT(_ claims: JOSEObject, key: P256PrivateKey) throws -> String {
    try JWT.sign(header: ["typ": "JWT", "alg": "ES256"], claims: claims, key: .es256(key))
}

/// Claims that pass for `origin` at ``testNow``: `aud`, `exp` = now + 12 h (the libraries'
/// default, docs/webpush.md §5), `sub` mailto.
func goodClaims(origin: String = "https://updates.push.services.mozilla.com", exp: Int64 = testNow + 12 * 3600,
                sub: JSONValue? = "mailto:ops@example.com") -> JOSEObject {
    var c: JOSEObject = ["aud": .string(origin), "exp": .int(exp)]
    if let sub { c["sub"] = sub }
    return c
}

/// `vapid t=<jwt>, k=<key>` for the test key.
func vapidHeader(_ claims: JOSEObject = goodClaims(), space: Bool = true) throws -> String {
    let key = try vapidTestKey()
    let k = Base64URL.encode(try key.publicKey.rawRepresentation)
    return "vapid t=\(try vapidJWT(claims, key: key)),\(space ? " " : "")k=\(k)"
}

/// An aes128gcm request for `sub` with `plaintext`, TTL 60 and the given extra headers.
func aes128gcmRequest(_ sub: WebPushSubscription, _ plaintext: String = "hello",
                      headers extra: [WebPushRequest.Header] = [], ttl: String? = "60") throws -> WebPushRequest {
    let body = try WebPushCipher.encrypt(plaintext: Array(plaintext.utf8), uaPublicKey: sub.publicKey, authSecret: sub.authSecret)
    var h: [WebPushRequest.Header] = []
    if let ttl { h.append(.init(name: "TTL", value: ttl)) }
    h.append(.init(name: "Content-Encoding", value: "aes128gcm"))
    return WebPushRequest(headers: h + extra, body: body)
}

/// Validates and fails the test if refused.
@discardableResult
func accept(_ r: WebPushRequest, _ sub: WebPushSubscription, _ config: WebPushValidatorConfiguration = .init(),
            origin: String? = nil, file: StaticString = #filePath, line: UInt = #line) -> WebPushAcceptedRequest? {
    do { return try WebPushRequestValidator(configuration: config).validate(r, for: sub, origin: origin, now: testNow) } catch {
        XCTFail("refused: \(error)", file: file, line: line)
        return nil
    }
}

/// Validates and expects a refusal by `rule`.
@discardableResult
func refuse(_ r: WebPushRequest, _ sub: WebPushSubscription, _ rule: WebPushRule, _ config: WebPushValidatorConfiguration = .init(),
            origin: String? = nil, file: StaticString = #filePath, line: UInt = #line) -> WebPushRejection? {
    do {
        let a = try WebPushRequestValidator(configuration: config).validate(r, for: sub, origin: origin, now: testNow)
        XCTFail("accepted, expected \(rule): \(a)", file: file, line: line)
        return nil
    } catch {
        XCTAssertEqual(error.rule, rule, "\(error.detail)", file: file, line: line)
        return error
    }
}

extension WebPushRequest {
    /// A copy with one more header.
    func adding(_ name: String, _ value: String) -> WebPushRequest {
        var r = self
        r.headers.append(.init(name: name, value: value))
        return r
    }

    /// A copy without the headers named `name`.
    func removing(_ name: String) -> WebPushRequest {
        var r = self
        r.headers.removeAll { $0.name.lowercased() == name.lowercased() }
        return r
    }
}
