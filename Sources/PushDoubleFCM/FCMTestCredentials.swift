import Foundation
import PushDoubleCore
import PushDoubleCrypto

/// The FCM part of the shipped **test-only** credentials (`Certificates/`, embedded in the
/// binary): a Google service-account file for project `pushdouble-test` whose RS256 key the
/// fake's token endpoint accepts and whose `token_uri` is the fake's default address.
public enum FCMTestCredentials {
    public static let projectID = "pushdouble-test"
    public static let clientEmail = "pushdouble-test@pushdouble-test.iam.gserviceaccount.com"
    /// The `token_uri` of the shipped file: the fake OAuth token endpoint on its default port
    /// (`serve` without `--ephemeral`). A double on other ports hands out a copy naming its own
    /// endpoint: ``serviceAccountJSON(for:)``, or the sender kit's file.
    public static let tokenURI = "https://127.0.0.1:8724/token"
    /// The service-account file.
    public static let serviceAccountFileName = "firebase-test-service-account.json"

    /// The shipped service-account JSON, from the embedded copy.
    public static var serviceAccountJSON: String { EmbeddedTestCredentials.contents(of: serviceAccountFileName) }

    /// The token endpoint URL of a running double (`PushDoubleServer.endpoints`):
    /// `https://127.0.0.1:<port>/token`, `http://…` in plaintext mode; nil when not bound.
    public static func tokenURL(in endpoints: [DoubleEndpoint]) -> String? {
        endpoints.first { $0.name == FCMFake.tokenListener }.map { $0.url + FCMFake.tokenPath }
    }

    /// The shipped service account with its `token_uri` pointing at the token endpoint of the
    /// running double whose `endpoints` are given (kept as shipped when that is not bound):
    /// the key file a sender under test loads.
    public static func serviceAccountJSON(for endpoints: [DoubleEndpoint]) throws -> String {
        try FCMInstance.serviceAccountJSON(serviceAccountJSON, tokenURI: tokenURL(in: endpoints))
    }

    /// A Google-style service-account file: the same fields in the same order and layout
    /// (2-space indent, `/` unescaped) as the JSON the Google Cloud console downloads.
    static func serviceAccountJSON(privateKeyID: String, privateKeyPEM: String, clientID: String) -> String {
        TestCredentials.prettyJSON([
            ("type", "service_account"),
            ("project_id", projectID),
            ("private_key_id", privateKeyID),
            ("private_key", privateKeyPEM),
            ("client_email", clientEmail),
            ("client_id", clientID),
            ("auth_uri", "https://accounts.google.com/o/oauth2/auth"),
            ("token_uri", tokenURI),
            ("auth_provider_x509_cert_url", "https://www.googleapis.com/oauth2/v1/certs"),
            ("client_x509_cert_url", "https://www.googleapis.com/robot/v1/metadata/x509/" + clientEmail.replacingOccurrences(of: "@", with: "%40")),
            ("universe_domain", "googleapis.com"),
        ])
    }
}

extension FCMModule: TestCredentialSource {
    public var credentialFiles: [(name: String, secret: Bool)] { [(FCMTestCredentials.serviceAccountFileName, true)] }

    /// A new RSA-2048 key with a random key id and a random 21-digit client id.
    public func generateCredentialFiles() throws(CryptoError) -> [String: String] {
        let key = try RSAPrivateKey.generate(bits: 2048)
        let clientID = "1" + (try SecureRandom.bytes(20)).map { String($0 % 10) }.joined()
        return [FCMTestCredentials.serviceAccountFileName: FCMTestCredentials.serviceAccountJSON(
            privateKeyID: try SecureRandom.bytes(20).map { String(format: "%02x", $0) }.joined(), privateKeyPEM: try key.pem, clientID: clientID)]
    }

    /// The send host and Google's OAuth 2.0 token host.
    public var certificateHostNames: [String] { [FCMFake.sendHost, FCMFake.tokenHost, FCMFake.iidHost] }

    public var credentialsSummary: String {
        "a Firebase service-account JSON (\(FCMTestCredentials.serviceAccountFileName): project \(FCMTestCredentials.projectID))"
    }
}
