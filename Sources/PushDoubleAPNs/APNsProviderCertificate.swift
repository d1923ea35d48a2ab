import Foundation
import PushDoubleCore
import PushDoubleCrypto

/// What APNs reads from a provider (TLS client) certificate (docs/apns.md "Certificate-based
/// provider authentication"): the bundle id in the subject's `UID`, the environments from
/// Apple's extensions (`…6.3.1` development = sandbox, `…6.3.2` production; both = a
/// universal certificate) and the topics from the `…6.3.6` extension (absent: the
/// certificate covers its bundle id only).
public struct APNsProviderCertificate: Sendable, Equatable {
    /// Apple Push Notification service Development (sandbox) extension.
    public static let developmentOID = "1.2.840.113635.100.6.3.1"
    /// Apple Push Notification service Production extension.
    public static let productionOID = "1.2.840.113635.100.6.3.2"
    /// The topics a multi-topic certificate covers: a SEQUENCE of UTF8String topics, each
    /// followed by a SEQUENCE naming its kind (`app`, `voip`, `complication`).
    public static let topicsOID = "1.2.840.113635.100.6.3.6"

    /// The subject, RFC 2253 style.
    public var subject: String
    /// The subject's `UID`: the bundle id the certificate was made for.
    public var bundleID: String?
    public var environments: Set<APNsEnvironment>
    /// The topics extension's topics; nil when the certificate has none (single topic).
    public var topics: [String]?
    public var sha256Fingerprint: String
    public var notAfter: Date?

    /// Reads a verified client certificate.
    public init(der: [UInt8]) throws(CryptoError) {
        let cert = try X509Certificate(der: der)
        subject = cert.subjectLine
        bundleID = cert.subjectEntry("UID")
        var envs: Set<APNsEnvironment> = []
        if cert.extensionValue(oid: Self.developmentOID) != nil { envs.insert(.sandbox) }
        if cert.extensionValue(oid: Self.productionOID) != nil { envs.insert(.production) }
        environments = envs
        topics = cert.extensionValue(oid: Self.topicsOID).flatMap(DER.utf8StringsInSequence)?.filter { $0.contains(".") }
        sha256Fingerprint = cert.sha256Fingerprint
        notAfter = cert.notAfter
    }

    /// Every topic this certificate may push to.
    public var allowedTopics: [String] { topics ?? bundleID.map { [$0] } ?? [] }

    /// The topic used when a request carries no `apns-topic`: the single topic of a
    /// single-topic certificate; nil for a multi-topic one (APNs answers `MissingTopic`).
    public var defaultTopic: String? { allowedTopics.count == 1 ? allowedTopics[0] : nil }

    /// "sandbox", "production" or "sandbox+production" (universal).
    public var environmentLabel: String {
        APNsEnvironment.allCases.reversed().filter(environments.contains).map(\.rawValue).joined(separator: "+")
    }

    /// The history's view of a certificate-authenticated request.
    public var identity: AuthIdentity {
        AuthIdentity(scheme: "apns-certificate", subject: subject, valid: true,
                     extra: ["environment": environmentLabel, "bundleId": bundleID ?? "", "sha256": sha256Fingerprint,
                             "topics": allowedTopics.joined(separator: " ")])
    }

    /// The kind Apple names after each topic in the topics extension.
    static func kind(of topic: String, bundleID: String) -> String {
        topic == bundleID ? "app" : String(topic.dropFirst(bundleID.count + 1))
    }

    /// Issues a test provider certificate as Apple shapes them: subject `UID=<bundle id>,
    /// CN=Apple Push Services: <bundle id>, OU=<team id>`, EKU clientAuth, the environment
    /// extensions (value NULL) and, for more than one topic, the topics extension.
    public static func issue(by ca: CertificateAuthority, bundleID: String, teamID: String, environments: Set<APNsEnvironment>,
                             topics: [String]? = nil, validityDays: Int = CertificateAuthority.defaultServerValidityDays,
                             validFrom: Int = 0) throws(CryptoError) -> IssuedCertificate {
        var extensions: [(oid: String, der: [UInt8])] = []
        if environments.contains(.sandbox) { extensions.append((developmentOID, DER.null)) }
        if environments.contains(.production) { extensions.append((productionOID, DER.null)) }
        if let topics {
            extensions.append((topicsOID, DER.sequence(topics.flatMap {
                [DER.utf8String($0), DER.sequence([DER.utf8String(kind(of: $0, bundleID: bundleID))])]
            })))
        }
        return try ca.issueClientCertificate(commonName: "Apple Push Services: \(bundleID)",
                                             subjectEntries: [("UID", bundleID), ("OU", teamID)], validityDays: validityDays,
                                             customExtensions: extensions, validFrom: validFrom)
    }
}

/// How a connection authenticates, fixed at its first request (a client certificate is
/// part of the handshake): no certificate (token auth), a provider certificate, or a
/// verified certificate that is not one (no APNs environment extension).
enum APNsCertificateAuth {
    case unknown
    case none
    case certificate(APNsProviderCertificate)
    case notAProviderCertificate(subject: String)

    /// The provider certificate the connection authenticated with, if any.
    var providerCertificate: APNsProviderCertificate? {
        if case .certificate(let c) = self { return c }
        return nil
    }
}
