import Foundation
import XCTest
import PushDouble

/// What a sender computes from the shipped test credentials, for the library's tests.
enum SenderSide {
    static let apnsToken = String(repeating: "5a", count: 32)
    static let expoToken = "ExponentPushToken[libraryTest0000000000]"

    /// An APNs provider token (ES256, `kid` + `iss` + `iat`) from the shipped key.
    static func apnsJWT() throws -> String {
        try JWT.signES256(keyID: APNsTestCredentials.keyID,
                          claims: ["iss": .string(APNsTestCredentials.teamID), "iat": .int(Int64(Date().timeIntervalSince1970))],
                          key: try P256PrivateKey(pem: APNsTestCredentials.keyPEM))
    }

    /// The running double's key file (its `token_uri` is the bound token endpoint).
    static func serviceAccount(_ double: PushDoubleServer) throws -> JSONValue {
        try JSONValue.parse(FCMTestCredentials.serviceAccountJSON(for: double.endpoints))
    }

    /// The RFC 7523 JWT-bearer form body a Google auth library posts to `token_uri`.
    static func oauthForm(_ account: JSONValue) throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        let claims: JOSEObject = ["iss": .string(account["client_email"]?.stringValue ?? ""),
                                  "scope": "https://www.googleapis.com/auth/firebase.messaging",
                                  "aud": .string(account["token_uri"]?.stringValue ?? ""), "iat": .int(now), "exp": .int(now + 3600)]
        let assertion = try JWT.signRS256(keyID: account["private_key_id"]?.stringValue, claims: claims,
                                          key: try RSAPrivateKey(pem: account["private_key"]?.stringValue ?? ""))
        return "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion
    }

    /// The FCM HTTP v1 send URL of the running double for the shipped project.
    static func fcmSendURL(_ double: PushDoubleServer) throws -> String {
        try XCTUnwrap(double.endpoint(named: "fcm")).url + "/v1/projects/\(FCMTestCredentials.projectID)/messages:send"
    }

    /// A subscription the double's browser holds (registered, so the history decrypts).
    static func webPushSubscription(_ double: PushDoubleServer, id: String) throws -> (endpoint: String, subscription: WebPushSubscription) {
        let s = try WebPushSubscription(service: .mozilla)
        _ = try double.devices.register(Device(id: id, provider: .webpush, token: "", attributes: WebPushDeviceSchema.attributes(of: s)))
        return (try XCTUnwrap(double.endpoint(named: "webpush")).url + s.endpointPath, s)
    }

    /// A VAPID `Authorization` value for `endpoint`'s origin, signed with the shipped key.
    static func vapidAuthorization(endpoint: String) throws -> String {
        let url = try XCTUnwrap(URL(string: endpoint))
        let origin = "\(url.scheme!)://\(url.host!)" + (url.port.map { ":\($0)" } ?? "")
        let key = try P256PrivateKey(pem: WebPushTestCredentials.privateKeyPEM)
        let jwt = try JWT.sign(header: ["typ": "JWT", "alg": "ES256"],
                               claims: ["aud": .string(origin), "exp": .int(Int64(Date().timeIntervalSince1970) + 3600),
                                        "sub": "mailto:tests@example.com"], key: .es256(key))
        return "vapid t=\(jwt), k=\(Base64URL.encode(try key.publicKey.rawRepresentation))"
    }

    /// `text` encrypted for the subscription (RFC 8291, aes128gcm).
    static func webPushBody(_ text: String, for s: WebPushSubscription) throws -> [UInt8] {
        try WebPushCipher.encrypt(plaintext: Array(text.utf8), uaPublicKey: s.publicKey, authSecret: s.authSecret)
    }
}
