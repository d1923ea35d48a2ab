import Foundation
import PushDoubleCrypto

/// The Web Push part of the shipped **test-only** credentials (`Certificates/`, embedded in
/// the binary): a VAPID key pair (RFC 8292) — the private key as PKCS#8 PEM and as the
/// base64url 32-byte scalar some libraries take (node web-push), the public key as base64url of
/// the 65-byte uncompressed point (the `applicationServerKey` of a subscription).
public enum WebPushTestCredentials {
    public static let privateKeyFileName = "vapid-test-private.pem"
    public static let privateKeyRawFileName = "vapid-test-private.txt"
    public static let publicKeyFileName = "vapid-test-public.txt"

    /// The shipped private key (PEM), from the embedded copy.
    public static var privateKeyPEM: String { EmbeddedTestCredentials.contents(of: privateKeyFileName) }
    /// The shipped public key (base64url of the uncompressed point).
    public static var publicKey: String { EmbeddedTestCredentials.contents(of: publicKeyFileName) }
}

extension WebPushModule: TestCredentialSource {
    public var credentialFiles: [(name: String, secret: Bool)] {
        [(WebPushTestCredentials.privateKeyFileName, true), (WebPushTestCredentials.privateKeyRawFileName, true),
         (WebPushTestCredentials.publicKeyFileName, false)]
    }

    public func generateCredentialFiles() throws(CryptoError) -> [String: String] {
        let key = try P256PrivateKey.generate()
        return [WebPushTestCredentials.privateKeyFileName: try key.pemPKCS8,
                WebPushTestCredentials.privateKeyRawFileName: Base64URL.encode(try key.rawPrivateScalar),
                WebPushTestCredentials.publicKeyFileName: Base64URL.encode(try key.publicKey.rawRepresentation)]
    }

    /// Every push service's real host (docs/webpush.md §6.1–§6.4), FCM's included.
    public var certificateHostNames: [String] { WebPushService.allCases.map(\.realHost) }

    public var credentialsSummary: String {
        "a VAPID key pair (\(WebPushTestCredentials.privateKeyFileName), \(WebPushTestCredentials.privateKeyRawFileName), "
            + "\(WebPushTestCredentials.publicKeyFileName))"
    }
}
