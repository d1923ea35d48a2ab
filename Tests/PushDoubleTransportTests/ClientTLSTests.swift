import Foundation
import XCTest
import PushDoubleTestSupport
@testable import PushDoubleTransport
@testable import PushDoubleClient

/// TLS trust and connection failures of the client: each gives its typed error.
final class ClientTLSTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "nghttpd", "openssl") }

    static let docroot = makeClientTestDocroot(files: ["a.txt": Array("a".utf8)])

    func testUntrustedCAIsATLSError() async throws {
        let server = try startNghttpd(docroot: Self.docroot)
        defer { server.stop() }
        let error = await expectClientError { () async throws(HTTPClientError) in
            try await HTTPClientConnection.connect(host: "localhost", port: server.port, tls: true,
                                                   configuration: HTTPClientConfiguration(caPEM: ClientTestPKI.files.otherCAPEM))
        }
        guard case .tls(let message) = error else { return XCTFail("got \(String(describing: error))") }
        XCTAssertTrue(message.contains("certificate"), message)
    }

    func testWrongHostNameIsATLSError() async throws {
        let server = try startNghttpd(docroot: Self.docroot)
        defer { server.stop() }
        let error = await expectClientError { () async throws(HTTPClientError) in
            try await HTTPClientConnection.connect(
                host: "127.0.0.1", port: server.port, tls: true,
                configuration: HTTPClientConfiguration(caPEM: ClientTestPKI.files.caPEM, serverName: "api.push.apple.com"))
        }
        guard case .tls(let message) = error else { return XCTFail("got \(String(describing: error))") }
        XCTAssertTrue(message.contains("hostname mismatch") || message.contains("certificate"), message)
    }

    func testCAFileIsTrusted() async throws {
        let server = try startNghttpd(docroot: Self.docroot)
        defer { server.stop() }
        let c = try await HTTPClientConnection.connect(host: "localhost", port: server.port, tls: true,
                                                       configuration: HTTPClientConfiguration(caFile: ClientTestPKI.files.caPEMPath))
        defer { c.close() }
        let r = try await c.send(HTTPClientRequest(path: "/a.txt", authority: "localhost"))
        XCTAssertEqual(r.body, Array("a".utf8))
    }

    func testBadCAInputsAreTLSErrors() async {
        let noPEM = await expectClientError { () async throws(HTTPClientError) in
            try await HTTPClientConnection.connect(host: "127.0.0.1", port: 9, tls: true,
                                                   configuration: HTTPClientConfiguration(caPEM: "not a pem"))
        }
        // Connection refused may come first on port 9; both are typed.
        XCTAssertNotNil(noPEM)
        let server = ScriptedServer { _ in }
        defer { server.finish() }
        let missingFile = await expectClientError { () async throws(HTTPClientError) in
            try await HTTPClientConnection.connect(host: "127.0.0.1", port: server.port, tls: true,
                                                   configuration: HTTPClientConfiguration(caFile: "/nonexistent/ca.pem"))
        }
        guard case .tls = missingFile else { return XCTFail("got \(String(describing: missingFile))") }
    }

    func testConnectionRefusedIsConnectFailed() async {
        let port = clientTestFreePort()
        let error = await expectClientError { () async throws(HTTPClientError) in
            try await HTTPClientConnection.connect(host: "127.0.0.1", port: port, tls: false, configuration: HTTPClientConfiguration())
        }
        guard case .connectFailed = error else { return XCTFail("got \(String(describing: error))") }
    }

    func testUnresolvableHostIsConnectFailed() async {
        let error = await expectClientError { () async throws(HTTPClientError) in
            try await HTTPClientConnection.connect(host: "no-such-host.invalid", port: 443, tls: false,
                                                   configuration: HTTPClientConfiguration())
        }
        guard case .connectFailed = error else { return XCTFail("got \(String(describing: error))") }
    }

    func testSilentServerTimesOutTheHandshake() async {
        // Accepts TCP (kernel backlog) but never speaks TLS.
        let server = ScriptedServer { s in _ = s.readSome(); usleep(600_000) }
        defer { server.finish() }
        let start = Date()
        let error = await expectClientError { () async throws(HTTPClientError) in
            try await HTTPClientConnection.connect(host: "127.0.0.1", port: server.port, tls: true,
                                                   configuration: HTTPClientConfiguration(caPEM: ClientTestPKI.files.caPEM,
                                                                                          connectTimeout: 0.3))
        }
        XCTAssertEqual(error, .timeout)
        XCTAssertLessThan(Date().timeIntervalSince(start), 3)
    }
}
