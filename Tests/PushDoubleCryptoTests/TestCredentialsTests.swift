import XCTest
import PushDoubleTestSupport
@testable import PushDoubleCrypto
import PushDoubleCore
import PushDouble
import PushDoubleAPNs
import PushDoubleFCM
import PushDoubleExpo
import PushDoubleWebPush

/// The shipped test credentials in Certificates/ (the shared CA and server certificate, and every
/// registered provider's files): every file parses, the chain verifies with openssl, the SAN
/// list is complete, and the embedded constants equal the files.
final class TestCredentialsTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "openssl") }

    let certificates = repositoryRoot.appendingPathComponent("Certificates")

    func path(_ name: String) -> String { certificates.appendingPathComponent(name).path }
    func text(_ name: String) throws -> String { try String(contentsOfFile: path(name), encoding: .utf8) }

    func testEveryShippedFileParses() throws {
        typealias F = TestCredentials.FileName
        let names = [F.caCertificate, F.caKey, F.serverCertificate, F.serverKey]
            + FakeRegistry.credentialSources.flatMap(\.credentialFiles).map(\.name)
        XCTAssertEqual(names.count, Set(names).count, "each file once")
        for name in names { XCTAssertTrue(FileManager.default.fileExists(atPath: path(name)), name) }
        let ca = try CertificateAuthority(certificatePEM: text(F.caCertificate), privateKeyPEM: text(F.caKey))
        XCTAssertTrue(ca.certificate.isCertificateAuthority)
        XCTAssertEqual(ca.certificate.subjectCommonName, TestCredentials.caCommonName)
        let server = try X509Certificate(pem: text(F.serverCertificate))
        XCTAssertEqual(try server.p256PublicKey, try P256PrivateKey(pem: text(F.serverKey)).publicKey)
        XCTAssertTrue(server.isSigned(by: ca.certificate))

        let apns = try P256PrivateKey(pem: text(APNsTestCredentials.keyFileName))
        let info = try XCTUnwrap(JOSEValue.parse(json: Array(text(APNsTestCredentials.keyInfoFileName).utf8)).jsonObject)
        XCTAssertEqual(info.string("keyId"), "PDTESTKEY1")
        XCTAssertEqual(info.string("teamId"), "PDTESTTEAM")
        XCTAssertEqual(info.string("topic"), "com.example.pushdouble")
        let token = try JWT.signES256(keyID: "PDTESTKEY1", claims: ["iss": "PDTESTTEAM", "iat": 1], key: apns)
        try JWT.parse(token).verify(with: apns.publicKey)

        let sa = try XCTUnwrap(JOSEValue.parse(json: Array(text(FCMTestCredentials.serviceAccountFileName).utf8)).jsonObject)
        XCTAssertEqual(sa.keys, ["type", "project_id", "private_key_id", "private_key", "client_email", "client_id", "auth_uri",
                                 "token_uri", "auth_provider_x509_cert_url", "client_x509_cert_url", "universe_domain"])
        XCTAssertEqual(sa.string("type"), "service_account")
        XCTAssertEqual(sa.string("project_id"), "pushdouble-test")
        XCTAssertEqual(sa.string("client_email"), "pushdouble-test@pushdouble-test.iam.gserviceaccount.com")
        XCTAssertEqual(sa.string("token_uri"), "https://127.0.0.1:8724/token")
        XCTAssertEqual(sa.string("private_key_id")?.count, 40)
        XCTAssertEqual(sa.string("client_id")?.count, 21)
        let rsa = try RSAPrivateKey(pem: XCTUnwrap(sa.string("private_key")))
        XCTAssertEqual(rsa.bits, 2048)
        let assertion = try JWT.signRS256(keyID: sa.string("private_key_id"), claims: [
            "iss": .string(FCMTestCredentials.clientEmail), "scope": "https://www.googleapis.com/auth/firebase.messaging",
            "aud": "https://oauth2.googleapis.com/token", "iat": 1, "exp": 3601,
        ], key: rsa)
        try JWT.parse(assertion).verify(with: rsa.publicKey)

        XCTAssertFalse(try text(ExpoTestCredentials.accessTokenFileName).isEmpty)

        // APNs provider certificates: signed by the test CA, Apple's subject and extensions,
        // the PKCS#12 copy opens with the documented password and holds the same certificate.
        for kind in APNsTestCredentials.ProviderCertificate.allCases {
            let pem = try text(kind.pemFileName)
            let cert = try X509Certificate(pem: pem)
            XCTAssertTrue(cert.isSigned(by: ca.certificate), kind.rawValue)
            XCTAssertEqual(try cert.p256PublicKey, try P256PrivateKey(pem: pem).publicKey, kind.rawValue)
            let parsed = try APNsProviderCertificate(der: cert.der)
            XCTAssertEqual(parsed.bundleID, APNsTestCredentials.topic)
            XCTAssertEqual(parsed.environments, kind.environments, kind.rawValue)
            XCTAssertEqual(parsed.topics, kind.topics, kind.rawValue)
            XCTAssertEqual(cert.subjectEntry("CN"), "Apple Push Services: \(APNsTestCredentials.topic)")
            XCTAssertEqual(cert.subjectEntry("OU"), APNsTestCredentials.teamID)
            XCTAssertEqual((cert.notAfter ?? .distantPast) < Date(), kind == .expired, kind.rawValue)
            let p12 = try runCommand(["openssl", "pkcs12", "-in", path(kind.pkcs12FileName), "-passin",
                                      "pass:\(APNsTestCredentials.certificatePassword)", "-nokeys", "-clcerts"])
            XCTAssertEqual(p12.status, 0, p12.stderr)
            XCTAssertTrue(p12.stdout.contains(try cert.pem.trimmingCharacters(in: .whitespacesAndNewlines)), kind.rawValue)
        }
        let vapid = try P256PrivateKey(pem: text(WebPushTestCredentials.privateKeyFileName))
        XCTAssertEqual(try Base64URL.decode(text(WebPushTestCredentials.publicKeyFileName)), try vapid.publicKey.rawRepresentation)
        XCTAssertEqual(try Base64URL.decode(text(WebPushTestCredentials.privateKeyRawFileName)), try vapid.rawPrivateScalar)
    }

    func testShippedServerCertificateVerifiesWithOpenSSLAndHasEverySAN() throws {
        typealias F = TestCredentials.FileName
        let out = try openssl(["verify", "-CAfile", path(F.caCertificate), "-purpose", "sslserver", path(F.serverCertificate)])
        XCTAssertEqual(out.trimmingCharacters(in: .whitespacesAndNewlines), "\(path(F.serverCertificate)): OK")
        let text = try openssl(["x509", "-in", path(F.serverCertificate), "-noout", "-text"])
        // The line after "X509v3 Subject Alternative Name:" lists "DNS:a, DNS:b, IP Address:…".
        let lines = text.components(separatedBy: "\n")
        let i = try XCTUnwrap(lines.firstIndex { $0.contains("X509v3 Subject Alternative Name") })
        let entries = lines[i + 1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let dns = entries.filter { $0.hasPrefix("DNS:") }.map { String($0.dropFirst(4)) }
        let ips = entries.filter { $0.hasPrefix("IP Address:") }.map { String($0.dropFirst(11)) }
        XCTAssertEqual(Set(dns), ["localhost", "api.push.apple.com", "api.sandbox.push.apple.com", "api.development.push.apple.com",
                                  "fcm.googleapis.com", "oauth2.googleapis.com", "iid.googleapis.com", "exp.host",
                                  "updates.push.services.mozilla.com", "web.push.apple.com", "*.notify.windows.com",
                                  "api-manage-broadcast.push.apple.com", "api-manage-broadcast.sandbox.push.apple.com"])
        // openssl 3.0 prints ::1 in full form.
        XCTAssertEqual(Set(ips), ["127.0.0.1", "0:0:0:0:0:0:0:1"])
        XCTAssertTrue(text.contains("TLS Web Server Authentication"))
        let server = try X509Certificate(pem: try String(contentsOfFile: path(F.serverCertificate), encoding: .utf8))
        XCTAssertEqual(server.dnsNames, TestCredentials.serverDNSNames(sources: FakeRegistry.credentialSources))
        XCTAssertEqual(server.ipAddresses, TestCredentials.serverIPAddresses)
    }

    func testEmbeddedConstantsEqualTheFiles() throws {
        let fromFiles = try GeneratedCredentialSet.load(from: certificates, sources: FakeRegistry.credentialSources)
        XCTAssertEqual(fromFiles, GeneratedCredentialSet.embedded)
        XCTAssertEqual(APNsTestCredentials.keyID, "PDTESTKEY1")
        XCTAssertEqual(APNsTestCredentials.teamID, "PDTESTTEAM")
        XCTAssertEqual(APNsTestCredentials.topic, "com.example.pushdouble")
        // And the generated source file is exactly what the generator makes from the files.
        let source = repositoryRoot.appendingPathComponent("Sources/PushDoubleCrypto/TestCredentials/EmbeddedTestCredentials.swift")
        XCTAssertEqual(try String(contentsOf: source, encoding: .utf8), TestCredentials.embeddedSwiftSource(for: fromFiles))
        // The derived file matches its ids too.
        XCTAssertEqual(try text(APNsTestCredentials.keyInfoFileName), APNsTestCredentials.keyInfoJSON)
    }

    func testGenerateIntoDirectoryWritesALoadableSet() throws {
        let dir = try temporaryDirectory(self).appendingPathComponent("nested/certs")
        let set = try TestCredentials.generate(into: dir, sources: FakeRegistry.credentialSources)
        XCTAssertEqual(try GeneratedCredentialSet.load(from: dir, sources: FakeRegistry.credentialSources), set)
        XCTAssertEqual(set.files.map(\.name), GeneratedCredentialSet.embedded.files.map(\.name))
        XCTAssertNotEqual(set, GeneratedCredentialSet.embedded, "fresh keys each time")
        let attrs = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(APNsTestCredentials.keyFileName).path)
        XCTAssertEqual((attrs[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let ca = dir.appendingPathComponent(TestCredentials.FileName.caCertificate).path
        let server = dir.appendingPathComponent(TestCredentials.FileName.serverCertificate).path
        XCTAssertEqual(try openssl(["verify", "-CAfile", ca, server]).trimmingCharacters(in: .whitespacesAndNewlines), "\(server): OK")
    }

    func testLoadFromMissingDirectoryIsAFileError() {
        assertThrows(matching: { if case .fileIO = $0 { return true }; return false }) {
            try GeneratedCredentialSet.load(from: URL(fileURLWithPath: "/nonexistent/pushdouble"), sources: FakeRegistry.credentialSources)
        }
    }
}

/// Each provider's share of the credentials, without tools: the registry finds every module's
/// source, the certificate names cover every real host a listener stands in for, and each
/// source generates exactly the files it declares.
final class TestCredentialSourcesTests: XCTestCase {
    func testEveryRegisteredProviderContributesItsCredentials() throws {
        XCTAssertEqual(FakeRegistry.credentialSources.count, FakeRegistry.modules.count)
        let names = TestCredentials.serverDNSNames(sources: FakeRegistry.credentialSources)
        for m in FakeRegistry.modules {
            for host in TestCredentials.hostNames(of: m.listenerDefaults.flatMap(\.realHosts)) {
                XCTAssertTrue(names.contains(host), "\(m.provider): \(host) is not a name of the server certificate")
            }
        }
        XCTAssertEqual(names.count, Set(names).count, "each name once")
        let ca = try CertificateAuthority(certificatePEM: EmbeddedTestCredentials.caPEM, privateKeyPEM: EmbeddedTestCredentials.caKeyPEM)
        for source in FakeRegistry.credentialSources {
            let made = try source.generateCredentialFiles(issuer: ca)
            XCTAssertEqual(Set(made.keys), Set(source.credentialFiles.map(\.name)))
            XCTAssertFalse(source.credentialsSummary.isEmpty)
        }
        let all = FakeRegistry.credentialSources.flatMap(\.credentialFiles).map(\.name)
        XCTAssertEqual(all.count, Set(all).count, "no two providers ship a file of the same name")
    }

    /// A provider registered after the shipped set was made gets its files without touching the
    /// others (what `Certificates/regenerate.sh --server-certificate` writes).
    func testAddingMissingFilesKeepsEveryExistingFile() throws {
        let shipped = GeneratedCredentialSet.embedded
        var without = shipped
        without.files.removeAll { $0.name == ExpoTestCredentials.accessTokenFileName }
        let completed = try TestCredentials.addingMissingFiles(to: without, sources: FakeRegistry.credentialSources)
        XCTAssertEqual(Set(completed.files.map(\.name)), Set(shipped.files.map(\.name)))
        XCTAssertNotEqual(completed.contents(of: ExpoTestCredentials.accessTokenFileName), shipped.contents(of: ExpoTestCredentials.accessTokenFileName),
                          "a fresh token")
        XCTAssertEqual(completed.files.filter { $0.name != ExpoTestCredentials.accessTokenFileName }, without.files)
        XCTAssertEqual(try TestCredentials.addingMissingFiles(to: shipped, sources: FakeRegistry.credentialSources), shipped)
    }
}
