import Foundation
import PushDoubleCrypto

/// The Expo part of the shipped **test-only** credentials (`Certificates/`, embedded in the
/// binary): an access token for "enhanced push security", never a real Expo token.
public enum ExpoTestCredentials {
    /// The token file.
    public static let accessTokenFileName = "expo-test-access-token.txt"
    /// The shipped token, from the embedded copy.
    public static var accessToken: String { EmbeddedTestCredentials.contents(of: accessTokenFileName) }
}

extension ExpoModule: TestCredentialSource {
    public var credentialFiles: [(name: String, secret: Bool)] { [(ExpoTestCredentials.accessTokenFileName, false)] }

    /// `pdtest_expo_` and 24 random bytes in base64url.
    public func generateCredentialFiles() throws(CryptoError) -> [String: String] {
        [ExpoTestCredentials.accessTokenFileName: "pdtest_expo_" + Base64URL.encode(try SecureRandom.bytes(24))]
    }

    public var certificateHostNames: [String] { TestCredentials.hostNames(of: ExpoModule.realHosts) }

    public var credentialsSummary: String { "an Expo access token (\(ExpoTestCredentials.accessTokenFileName))" }
}
