import Foundation
import XCTest
@testable import PushDoubleTransport

final class RuntimeTLSTests: XCTestCase {
    func testALPNAndSNIVisibleToResponder() throws {
        let cert = try TestCertificate.make()
        let r = echoResponder()
        let (_, port) = try startServer(self, configure: {
            $0.tls = TLSServerConfiguration(certificateChainPEM: cert.certPEM, privateKeyPEM: cert.keyPEM, alpn: ["h2", "http/1.1"])
        }, responder: r)
        let res = try runCommand(["curl", "-sS", "--http1.1", "--cacert", cert.certPath, "--resolve", "api.push.test:\(port):127.0.0.1",
                                  "https://api.push.test:\(port)/tls", "https://api.push.test:\(port)/again"])
        XCTAssertEqual(res.status, 0, res.stderr)
        XCTAssertEqual(res.stdout, "GET /tls 0\nGET /again 0\n")
        let tls = try XCTUnwrap(r.recorded.first?.info.connection.tls)
        XCTAssertEqual(tls.alpn, "http/1.1")
        XCTAssertEqual(tls.serverName, "api.push.test")
        XCTAssertEqual(tls.version, "TLSv1.3")
        XCTAssertNotNil(tls.cipher)
        XCTAssertEqual(r.recorded.first?.scheme, "https")
    }

    func testTLS12AndNoALPNIsSniffedAsHTTP1() throws {
        let cert = try TestCertificate.make()
        let r = echoResponder()
        let (_, port) = try startServer(self, configure: {
            $0.tls = TLSServerConfiguration(certificateChainPEM: cert.certPEM, privateKeyPEM: cert.keyPEM, alpn: ["h2", "http/1.1"])
        }, responder: r)
        let res = try runCommand(["curl", "-sS", "--http1.1", "--no-alpn", "--tlsv1.2", "--tls-max", "1.2", "--cacert", cert.certPath,
                                  "https://localhost:\(port)/plain", "-d", "abc"])
        XCTAssertEqual(res.status, 0, res.stderr)
        XCTAssertEqual(res.stdout, "POST /plain 3\nabc")
        let tls = try XCTUnwrap(r.recorded.first?.info.connection.tls)
        XCTAssertNil(tls.alpn)
        XCTAssertEqual(tls.version, "TLSv1.2")
        XCTAssertEqual(tls.serverName, "localhost")
    }

    func testClientOfferingOnlyDisallowedProtocolGetsNoApplicationProtocolAlert() throws {
        let cert = try TestCertificate.make()
        let (_, port) = try startServer(self, configure: {
            $0.tls = TLSServerConfiguration(certificateChainPEM: cert.certPEM, privateKeyPEM: cert.keyPEM, alpn: ["h2"])
        }, responder: echoResponder())
        let res = try runCommand(["openssl", "s_client", "-connect", "127.0.0.1:\(port)", "-alpn", "http/1.1", "-brief"], input: Data())
        XCTAssertNotEqual(res.status, 0)
        XCTAssertTrue(res.stderr.contains("no application protocol") || res.stderr.contains("alert number 120"), res.stderr)
    }

    func testTLS11IsRefused() throws {
        let cert = try TestCertificate.make()
        let (_, port) = try startServer(self, configure: {
            $0.tls = TLSServerConfiguration(certificateChainPEM: cert.certPEM, privateKeyPEM: cert.keyPEM)
        }, responder: echoResponder())
        let res = try runCommand(["curl", "-sS", "--http1.1", "--tlsv1.1", "--tls-max", "1.1", "-k", "https://127.0.0.1:\(port)/"])
        XCTAssertNotEqual(res.status, 0)
    }

    func testHandshakeTimeout() throws {
        let cert = try TestCertificate.make()
        let (server, port) = try startServer(self, configure: {
            $0.tls = TLSServerConfiguration(certificateChainPEM: cert.certPEM, privateKeyPEM: cert.keyPEM)
            $0.limits.handshakeTimeout = 0.3
        }, responder: echoResponder())
        let c = try RawClient(port: port)
        c.send([0x16, 0x03, 0x01]) // a partial ClientHello, then silence
        XCTAssertTrue(c.waitClosed(timeout: 2))
        usleep(50_000)
        XCTAssertEqual(server.connectionCount, 0)
    }

    func testBadPEMThrowsTypedError() {
        let server = HTTPServer(eventLoopCount: 1)
        defer { server.stop() }
        XCTAssertThrowsError(try server.start([ListenerConfiguration(
            name: "bad", tls: TLSServerConfiguration(certificateChainPEM: "nope", privateKeyPEM: "nope"), responder: echoResponder())])) { e in
            XCTAssertTrue(e is TLSConfigurationError, "\(e)")
        }
    }

    func testALPNSelectionPrefersServerOrder() {
        let wire: [UInt8] = [8] + Array("http/1.1".utf8) + [2] + Array("h2".utf8)
        wire.withUnsafeBufferPointer { buf in
            let hit = ALPN.select(server: [Array("h2".utf8), Array("http/1.1".utf8)], clientWire: buf)
            XCTAssertEqual(hit?.0, 10)
            XCTAssertEqual(hit?.1, 2)
            XCTAssertNil(ALPN.select(server: [Array("spdy/3".utf8)], clientWire: buf))
            // A truncated list never reads out of bounds.
            let cut = UnsafeBufferPointer(rebasing: buf[0..<5])
            XCTAssertNil(ALPN.select(server: [Array("http/1.1".utf8)], clientWire: cut))
        }
    }
}
