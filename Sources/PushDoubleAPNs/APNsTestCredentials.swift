import Foundation
import PushDoubleCrypto

/// The APNs part of the shipped **test-only** credentials (`Certificates/`, embedded in the
/// binary): a token-auth signing key `AuthKey_PDTESTKEY1.p8` (P-256, PKCS#8 PEM, the `.p8`
/// format Apple's developer portal downloads) for key ID `PDTESTKEY1`, team `PDTESTTEAM`,
/// topic `com.example.pushdouble`, and `apns-test-key.json` with those ids for adapters that
/// read one file.
public enum APNsTestCredentials {
    public static let keyID = "PDTESTKEY1"
    public static let teamID = "PDTESTTEAM"
    /// The bundle id the shipped configuration allows (`apns-topic`).
    public static let topic = "com.example.pushdouble"
    /// The key file, named as Apple names it (`AuthKey_<key id>.p8`).
    public static let keyFileName = "AuthKey_\(keyID).p8"
    /// The key's ids and topic as JSON.
    public static let keyInfoFileName = "apns-test-key.json"

    /// The shipped key (PEM), from the embedded copy.
    public static var keyPEM: String { EmbeddedTestCredentials.contents(of: keyFileName) }

    /// `apns-test-key.json`: the key's ids and topic.
    public static var keyInfoJSON: String {
        TestCredentials.prettyJSON([("keyId", keyID), ("teamId", teamID), ("topic", topic),
                                    ("keyFile", keyFileName), ("note", "TEST ONLY: PushDouble test credentials")])
    }
}

extension APNsModule: TestCredentialSource {
    public var credentialFiles: [(name: String, secret: Bool)] {
        [(APNsTestCredentials.keyFileName, true), (APNsTestCredentials.keyInfoFileName, false)]
    }

    public func generateCredentialFiles() throws(CryptoError) -> [String: String] {
        [APNsTestCredentials.keyFileName: try P256PrivateKey.generate().pemPKCS8,
         APNsTestCredentials.keyInfoFileName: APNsTestCredentials.keyInfoJSON]
    }

    /// Apple's provider API hosts, both environments (the sandbox's older alias included).
    public var certificateHostNames: [String] {
        TestCredentials.hostNames(of: [APNsEnvironment.production, .sandbox].flatMap(\.realHosts))
    }

    public var credentialsSummary: String {
        "an APNs .p8 key (\(APNsTestCredentials.keyFileName): key ID \(APNsTestCredentials.keyID), team \(APNsTestCredentials.teamID), "
            + "topic \(APNsTestCredentials.topic))"
    }
}
