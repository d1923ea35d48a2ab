import XCTest
import PushDoubleTestSupport
@testable import PushDoubleCrypto

/// The test CA and server certificates, checked with `openssl verify` and `openssl x509 -text`.
final class CertificateAuthorityTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "openssl") }

    func testGeneratedChainVerifiesWithOpenSSL() throws {
        let dir = try temporaryDirectory(self)
        let ca = try CertificateAuthority.generate(commonName: "Unit Test CA", validityDays: 30)
        let leaf = try ca.issueServerCertificate(commonName: "unit.test", dnsNames: ["unit.test", "localhost"],
                                                 ipAddresses: ["127.0.0.1", "::1"], validityDays: 10)
        let caPath = try writeFile(dir, "ca.pem", ca.certificate.pem)
        let leafPath = try writeFile(dir, "leaf.pem", leaf.certificatePEM)
        XCTAssertEqual(try openssl(["verify", "-CAfile", caPath, "-purpose", "sslserver", leafPath]).trimmingCharacters(in: .whitespacesAndNewlines),
                       "\(leafPath): OK")
        XCTAssertTrue(ca.certificate.isCertificateAuthority)
        XCTAssertFalse(leaf.certificate.isCertificateAuthority)
        XCTAssertTrue(leaf.certificate.isSigned(by: ca.certificate))
        XCTAssertFalse(leaf.certificate.isSigned(by: leaf.certificate))
        XCTAssertEqual(leaf.certificate.dnsNames, ["unit.test", "localhost"])
        XCTAssertEqual(leaf.certificate.ipAddresses, ["127.0.0.1", "::1"])
        XCTAssertEqual(leaf.certificate.subjectCommonName, "unit.test")
        XCTAssertEqual(leaf.certificate.issuerCommonName, "Unit Test CA")

        let caText = try openssl(["x509", "-in", caPath, "-noout", "-text"])
        XCTAssertTrue(caText.contains("CA:TRUE"), caText)
        XCTAssertTrue(caText.contains("Certificate Sign, CRL Sign"), caText)
        let leafText = try openssl(["x509", "-in", leafPath, "-noout", "-text"])
        XCTAssertTrue(leafText.contains("TLS Web Server Authentication"), leafText)
        XCTAssertTrue(leafText.contains("X509v3 Subject Key Identifier"))
        XCTAssertTrue(leafText.contains("X509v3 Authority Key Identifier"))
        XCTAssertTrue(leafText.contains("CA:FALSE"))

        // A certificate from another CA is refused by openssl (the check can fail).
        let other = try CertificateAuthority.generate(commonName: "Other CA", validityDays: 30)
        let otherPath = try writeFile(dir, "other.pem", other.certificate.pem)
        XCTAssertNotEqual(try runOpenSSL(["verify", "-CAfile", otherPath, leafPath]).status, 0)
    }

    func testValidityPeriods() throws {
        let ca = try CertificateAuthority.generate(commonName: "Validity CA")
        let leaf = try ca.issueServerCertificate(commonName: "v", dnsNames: ["v"], ipAddresses: [])
        let caDays = try XCTUnwrap(ca.certificate.notAfter).timeIntervalSince(try XCTUnwrap(ca.certificate.notBefore)) / 86400
        let leafDays = try XCTUnwrap(leaf.certificate.notAfter).timeIntervalSince(try XCTUnwrap(leaf.certificate.notBefore)) / 86400
        XCTAssertEqual(caDays, Double(CertificateAuthority.defaultCAValidityDays), accuracy: 0.1)
        XCTAssertEqual(leafDays, Double(CertificateAuthority.defaultServerValidityDays), accuracy: 0.1)
        XCTAssertLessThan(try XCTUnwrap(leaf.certificate.notBefore), Date())
    }

    func testReloadedCAIssuesVerifiableCertificates() throws {
        let ca = try CertificateAuthority.generate(commonName: "Reload CA", validityDays: 5)
        let again = try CertificateAuthority(certificatePEM: ca.certificate.pem, privateKeyPEM: ca.privateKey.pemPKCS8)
        let leaf = try again.issueServerCertificate(commonName: "x", dnsNames: ["x"], ipAddresses: [], validityDays: 1)
        XCTAssertTrue(leaf.certificate.isSigned(by: ca.certificate))
        let stranger = try P256PrivateKey.generate()
        assertThrows(matching: { if case .keyDecodingFailed = $0 { return true }; return false }) {
            try CertificateAuthority(certificatePEM: ca.certificate.pem, privateKeyPEM: stranger.pemPKCS8)
        }
    }

    func testBadSANEntryIsRefused() throws {
        let ca = try CertificateAuthority.generate(commonName: "SAN CA", validityDays: 5)
        assertThrows(.invalidArgument("subjectAltName entry \"a,b\"")) {
            try ca.issueServerCertificate(commonName: "x", dnsNames: ["a,b"], ipAddresses: [])
        }
        assertThrows(matching: { if case .openSSL = $0 { return true }; return false }) {
            try ca.issueServerCertificate(commonName: "x", dnsNames: [], ipAddresses: ["not-an-ip"])
        }
    }
}

extension CertificateAuthorityTests {
    func testClientCertificateLikeAnAPNsProviderCertificate() throws {
        let dir = try temporaryDirectory(self)
        let ca = try CertificateAuthority.generate(commonName: "Client CA", validityDays: 5)
        let client = try ca.issueClientCertificate(
            commonName: "Apple Push Services: com.example.pushdouble",
            subjectEntries: [("UID", "com.example.pushdouble"), ("OU", "PDTESTTEAM")], validityDays: 2)
        let caPath = try writeFile(dir, "ca.pem", ca.certificate.pem)
        let path = try writeFile(dir, "client.pem", client.certificatePEM)
        XCTAssertEqual(try openssl(["verify", "-CAfile", caPath, "-purpose", "sslclient", path]).trimmingCharacters(in: .whitespacesAndNewlines),
                       "\(path): OK")
        // Not usable as a server certificate.
        XCTAssertNotEqual(try runOpenSSL(["verify", "-CAfile", caPath, "-purpose", "sslserver", path]).status, 0)
        let subject = try openssl(["x509", "-in", path, "-noout", "-subject", "-nameopt", "RFC2253"])
        XCTAssertTrue(subject.contains("UID=com.example.pushdouble"), subject)
        XCTAssertTrue(subject.contains("OU=PDTESTTEAM"), subject)
        XCTAssertEqual(client.certificate.subjectCommonName, "Apple Push Services: com.example.pushdouble")
        assertThrows(matching: { if case .invalidArgument = $0 { return true }; return false }) {
            try ca.issueClientCertificate(commonName: "x", subjectEntries: [("NOSUCHFIELD", "v")])
        }
    }
}
