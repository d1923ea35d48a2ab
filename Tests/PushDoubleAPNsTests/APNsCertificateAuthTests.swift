import Foundation
import XCTest
import PushDoubleTestSupport
import PushDoubleCore
import PushDoubleCrypto
@testable import PushDoubleAPNs
import PushDouble

/// Certificate-based provider authentication over real mTLS: curl `--cert` (PEM and
/// PKCS#12) and two Python stacks (httpx with a certificate, aioapns's `client_cert`) against
/// the in-process server with the shipped test credentials, as `pushdouble serve` runs it.
final class APNsCertificateAuthTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "curl", "python3 (httpx, aioapns)") }

    typealias Cert = APNsTestCredentials.ProviderCertificate

    struct Running {
        let server: PushDoubleServer
        let dir: URL
        let productionPort: Int
        let sandboxPort: Int
        var ca: String { dir.appendingPathComponent("ca.pem").path }
        func pem(_ c: Cert) -> String { dir.appendingPathComponent(c.pemFileName).path }
        func p12(_ c: Cert) -> String { dir.appendingPathComponent(c.pkcs12FileName).path }
    }

    func start() throws -> Running {
        let server = try startShippedAPNsServer()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pd-apns-cert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        try EmbeddedTestCredentials.caPEM.write(to: dir.appendingPathComponent("ca.pem"), atomically: true, encoding: .utf8)
        try APNsTestCredentials.keyPEM.write(to: dir.appendingPathComponent("key.p8"), atomically: true, encoding: .utf8)
        for c in Cert.allCases {
            try c.pem.write(to: dir.appendingPathComponent(c.pemFileName), atomically: true, encoding: .utf8)
            try XCTUnwrap(Data(base64Encoded: EmbeddedTestCredentials.contents(of: c.pkcs12FileName)))
                .write(to: dir.appendingPathComponent(c.pkcs12FileName))
        }
        func port(_ name: String) throws -> Int { try XCTUnwrap(URL(string: try XCTUnwrap(server.endpoint(named: name)).url)?.port) }
        return Running(server: server, dir: dir, productionPort: try port("apns-production"), sandboxPort: try port("apns-sandbox"))
    }

    /// curl with a client certificate; `topic` nil sends no apns-topic.
    func curl(_ s: Running, port: Int, cert: [String], topic: String? = APNsTestCredentials.topic,
              headers: [String] = []) throws -> ProcessResult {
        var args = ["curl", "-sS", "--http2", "--cacert", s.ca, "-D", "-", "--data-binary", #"{"aps":{"alert":"hi"}}"#] + cert
        if let topic { args += ["-H", "apns-topic: \(topic)"] }
        for h in headers { args += ["-H", h] }
        return try runCommand(args + ["https://localhost:\(port)/3/device/\(Fixture.token)"])
    }

    func testCurlWithEachCertificate() throws {
        let s = try start()
        let universal = ["--cert", s.pem(.universal)]
        for port in [s.productionPort, s.sandboxPort] {
            let ok = try curl(s, port: port, cert: universal)
            XCTAssertTrue(ok.stdout.hasPrefix("HTTP/2 200"), ok.stdout + ok.stderr)
        }
        // PKCS#12 with the documented password.
        let p12 = try curl(s, port: s.productionPort, cert: ["--cert-type", "P12", "--cert", "\(s.p12(.universal)):\(APNsTestCredentials.certificatePassword)"])
        XCTAssertTrue(p12.stdout.hasPrefix("HTTP/2 200"), p12.stdout + p12.stderr)
        // A certificate-authenticated connection ignores `authorization`.
        let ignored = try curl(s, port: s.productionPort, cert: universal, headers: ["authorization: bearer garbage"])
        XCTAssertTrue(ignored.stdout.hasPrefix("HTTP/2 200"), ignored.stdout)
        // Multi-topic certificate: apns-topic required; only its topics.
        let missing = try curl(s, port: s.productionPort, cert: universal, topic: nil)
        XCTAssertTrue(missing.stdout.hasPrefix("HTTP/2 400") && missing.stdout.hasSuffix(#"{"reason":"MissingTopic"}"#), missing.stdout)
        let other = try curl(s, port: s.productionPort, cert: universal, topic: "com.example.other")
        XCTAssertTrue(other.stdout.hasSuffix(#"{"reason":"TopicDisallowed"}"#), other.stdout)
        let complication = try curl(s, port: s.productionPort, cert: universal, topic: APNsTestCredentials.topic + ".complication",
                                    headers: ["apns-push-type: complication"])
        XCTAssertTrue(complication.stdout.hasPrefix("HTTP/2 200"), complication.stdout)
        // Single-topic certificates: the certificate's topic when apns-topic is absent.
        let single = try curl(s, port: s.sandboxPort, cert: ["--cert", s.pem(.sandbox)], topic: nil)
        XCTAssertTrue(single.stdout.hasPrefix("HTTP/2 200"), single.stdout + single.stderr)
        let voipNotCovered = try curl(s, port: s.productionPort, cert: ["--cert", s.pem(.production)],
                                      topic: APNsTestCredentials.topic + ".voip", headers: ["apns-push-type: voip"])
        XCTAssertTrue(voipNotCovered.stdout.hasSuffix(#"{"reason":"TopicDisallowed"}"#), voipNotCovered.stdout)

        let history = s.server.history.all
        let first = try XCTUnwrap(history.first)
        XCTAssertEqual(first.auth?.scheme, "apns-certificate")
        XCTAssertEqual(first.auth?.extra["environment"], "sandbox+production")
        XCTAssertTrue(first.auth?.subject?.contains("UID=\(APNsTestCredentials.topic)") ?? false, "\(String(describing: first.auth))")
        XCTAssertEqual(history.last?.auth?.extra["environment"], "production")
        XCTAssertEqual(history.first { $0.response.status == 200 && $0.topic == nil }?.topic, nil)
    }

    func testCurlRefusals() throws {
        let s = try start()
        // The other environment's certificate: GOAWAY {"reason":"BadCertificateEnvironment"}.
        let wrong = try curl(s, port: s.productionPort, cert: ["--cert", s.pem(.sandbox)])
        XCTAssertEqual(wrong.status, 16, "curl: Error in the HTTP2 framing layer; \(wrong.stderr)")
        XCTAssertFalse(wrong.stdout.contains("HTTP/2 200"), wrong.stdout)
        let refused = s.server.history.all.filter { $0.response.action == "goaway" }
        XCTAssertFalse(refused.isEmpty)
        XCTAssertTrue(refused.allSatisfy { $0.response.detail?.contains(#"debug={"reason":"BadCertificateEnvironment"}"#) ?? false },
                      "\(refused.map(\.response.detail))")
        XCTAssertEqual(refused.first?.auth?.valid, false)
        // An expired certificate ends the handshake with alert 45 certificate_expired.
        // TLS 1.3 checks the client certificate after the client's Finished, so curl may already be
        // writing its request when the alert and the close arrive. Depending on which of its reads or
        // writes meets the closed connection first it reports the alert (exit 56), the broken HTTP/2
        // connection (exit 16) or a failed send (exit 55, "Transport endpoint is not connected");
        // whichever it is, nothing is pushed.
        let acceptedBefore = s.server.history.all.filter { $0.response.status == 200 }.count
        let expired = try curl(s, port: s.sandboxPort, cert: ["--cert", s.pem(.expired)])
        XCTAssertTrue([55, 56, 16].contains(expired.status), "\(expired.status): \(expired.stderr)")
        if expired.status == 56 { XCTAssertTrue(expired.stderr.contains("alert certificate expired"), expired.stderr) }
        XCTAssertEqual(s.server.history.all.filter { $0.response.status == 200 }.count, acceptedBefore, "an expired certificate pushed")
        // No certificate: token auth as before.
        let none = try runCommand(["curl", "-sS", "--http2", "--cacert", s.ca, "-D", "-", "-H", "apns-topic: \(APNsTestCredentials.topic)",
                                   "--data-binary", "{}", "https://localhost:\(s.productionPort)/3/device/\(Fixture.token)"])
        XCTAssertTrue(none.stdout.hasSuffix(#"{"reason":"MissingProviderToken"}"#), none.stdout)
    }

    func testPythonClients() throws {
        let s = try start()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Interop/apns_cert_interop.py").path
        for client in ["httpx", "aioapns"] {
            let r = try runCommand(["python3", script, "--production-port", String(s.productionPort), "--sandbox-port", String(s.sandboxPort),
                                    "--ca", s.ca, "--cert-dir", s.dir.path, "--key", s.dir.appendingPathComponent("key.p8").path,
                                    "--key-id", APNsTestCredentials.keyID, "--team-id", APNsTestCredentials.teamID,
                                    "--topic", APNsTestCredentials.topic, "--only", client], timeout: 60)
            XCTAssertEqual(r.status, 0, "\(client) stdout: \(r.stdout)\nstderr: \(r.stderr.suffix(3000))")
            print(client, r.stdout)
        }
    }
}
