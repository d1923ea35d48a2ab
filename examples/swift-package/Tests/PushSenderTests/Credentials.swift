import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PushDouble

/// What the app would do with its real credentials, done with the double's test credentials
/// (everything through `import PushDouble`).
enum TestCredentials {
    /// An APNs provider token signed with the shipped test key.
    static func apnsProviderToken() throws -> String {
        try JWT.signES256(keyID: APNsTestCredentials.keyID,
                          claims: ["iss": .string(APNsTestCredentials.teamID), "iat": .int(Int64(Date().timeIntervalSince1970))],
                          key: try P256PrivateKey(pem: APNsTestCredentials.keyPEM))
    }

    /// An FCM access token from the double's own token endpoint: the shipped service account,
    /// whose `token_uri` follows the double's bound port, and the JWT-bearer grant over URLSession.
    static func fcmAccessToken(_ double: PushDoubleServer) async throws -> String {
        let account = try JSONValue.parse(FCMTestCredentials.serviceAccountJSON(for: double.endpoints))
        let tokenURI = account["token_uri"]?.stringValue ?? ""
        let now = Int64(Date().timeIntervalSince1970)
        let assertion = try JWT.signRS256(keyID: account["private_key_id"]?.stringValue,
                                          claims: ["iss": .string(account["client_email"]?.stringValue ?? ""),
                                                   "scope": "https://www.googleapis.com/auth/firebase.messaging",
                                                   "aud": .string(tokenURI), "iat": .int(now), "exp": .int(now + 3600)],
                                          key: try RSAPrivateKey(pem: account["private_key"]?.stringValue ?? ""))
        var request = URLRequest(url: URL(string: tokenURI)!)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "content-type")
        request.httpBody = Data("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)".utf8)
        let (data, _) = try await URLSession.shared.data(for: request)
        return try JSONValue.parse(Array(data))["access_token"]?.stringValue ?? ""
    }
}
