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

    /// The test provider certificates (certificate-based authentication), issued by the test
    /// CA, which stands in for Apple's WWDR intermediate: each ships as one PEM with the
    /// certificate and its key, and as PKCS#12 (`.p12`) with ``certificatePassword``.
    public enum ProviderCertificate: String, Sendable, CaseIterable {
        /// Sandbox only, single topic (the bundle id), like Apple's "Development SSL" certificate.
        case sandbox
        /// Production only, single topic, like Apple's "Production SSL" certificate.
        case production
        /// Both environments; topics: the bundle id, `.voip` and `.complication`, like Apple's
        /// "Sandbox & Production" certificate.
        case universal
        /// The universal certificate's shape, expired (its validity ended a day ago).
        case expired

        public var environments: Set<APNsEnvironment> {
            switch self {
            case .sandbox: return [.sandbox]
            case .production: return [.production]
            case .universal, .expired: return [.sandbox, .production]
            }
        }
        /// The topics extension's topics (nil: a single-topic certificate).
        public var topics: [String]? {
            self == .universal || self == .expired ? [topic, topic + ".voip", topic + ".complication"] : nil
        }
        /// `apns-cert-<name>.pem`: certificate, then key (PKCS#8), as aioapns's `client_cert` and curl's `--cert` read it.
        public var pemFileName: String { "apns-cert-\(rawValue).pem" }
        /// `apns-cert-<name>.p12`, encrypted with ``certificatePassword``.
        public var pkcs12FileName: String { "apns-cert-\(rawValue).p12" }
        /// The shipped PEM (certificate and key).
        public var pem: String { EmbeddedTestCredentials.contents(of: pemFileName) }
    }

    /// The password of every shipped `.p12` (documented; they are test-only).
    public static let certificatePassword = "pushdouble"

    /// `apns-test-key.json`: the key's ids and topic.
    public static var keyInfoJSON: String {
        TestCredentials.prettyJSON([("keyId", keyID), ("teamId", teamID), ("topic", topic),
                                    ("keyFile", keyFileName), ("note", "TEST ONLY: PushDouble test credentials")])
    }
}

extension APNsModule: TestCredentialSource {
    public var credentialFiles: [(name: String, secret: Bool)] {
        [(APNsTestCredentials.keyFileName, true), (APNsTestCredentials.keyInfoFileName, false)]
            + APNsTestCredentials.ProviderCertificate.allCases.flatMap { [($0.pemFileName, true), ($0.pkcs12FileName, true)] }
    }

    public func generateCredentialFiles() throws(CryptoError) -> [String: String] {
        [APNsTestCredentials.keyFileName: try P256PrivateKey.generate().pemPKCS8,
         APNsTestCredentials.keyInfoFileName: APNsTestCredentials.keyInfoJSON]
    }

    /// The key files, and the provider certificates issued by `issuer` (the set's test CA).
    public func generateCredentialFiles(issuer: CertificateAuthority) throws(CryptoError) -> [String: String] {
        var files = try generateCredentialFiles()
        for kind in APNsTestCredentials.ProviderCertificate.allCases {
            let expired = kind == .expired
            let issued = try APNsProviderCertificate.issue(by: issuer, bundleID: APNsTestCredentials.topic, teamID: APNsTestCredentials.teamID,
                                                           environments: kind.environments, topics: kind.topics,
                                                           validityDays: expired ? 30 : CertificateAuthority.defaultServerValidityDays,
                                                           validFrom: expired ? -31 : 0)
            files[kind.pemFileName] = try issued.certificatePEM + issued.privateKeyPEM
            let p12 = try issued.pkcs12(password: APNsTestCredentials.certificatePassword,
                                        friendlyName: "Apple Push Services: \(APNsTestCredentials.topic) (TEST ONLY)")
            files[kind.pkcs12FileName] = Data(p12).base64EncodedString()
        }
        return files
    }

    /// Apple's provider API hosts, both environments (the sandbox's older alias included),
    /// and the channel management hosts.
    public var certificateHostNames: [String] {
        TestCredentials.hostNames(of: [APNsEnvironment.production, .sandbox].flatMap { $0.realHosts + $0.managementRealHosts })
    }

    public var credentialsSummary: String {
        "an APNs .p8 key (\(APNsTestCredentials.keyFileName): key ID \(APNsTestCredentials.keyID), team \(APNsTestCredentials.teamID), "
            + "topic \(APNsTestCredentials.topic)) and APNs provider certificates (apns-cert-{sandbox,production,universal,expired}.pem / .p12, "
            + "password \(APNsTestCredentials.certificatePassword))"
    }
}
