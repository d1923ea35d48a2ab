import Foundation
import XCTest
import PushDoubleTestSupport
@testable import PushDoubleTransport

final class RuntimeTLSTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "curl", "openssl", "python3") }

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

extension RuntimeTLSTests {
    /// A connection that completes the handshake (ALPN http/1.1) but never sends a request,
    /// and a cleartext HTTP/1.1-only connection that sends nothing, are both closed after
    /// `handshakeTimeout`.
    func testSilentConnectionsAfterProtocolChoiceAreClosed() throws {
        let cert = try TestCertificate.make()
        let server = HTTPServer(eventLoopCount: 1)
        defer { server.stop(timeout: 0.5) }
        var limits = ServerLimits()
        limits.handshakeTimeout = 0.4
        let bound = try server.start([
            ListenerConfiguration(name: "tls", tls: TLSServerConfiguration(certificateChainPEM: cert.certPEM, privateKeyPEM: cert.keyPEM),
                                  limits: limits, responder: echoResponder()),
            ListenerConfiguration(name: "h1only", limits: limits, allowHTTP2: false, responder: echoResponder()),
        ])
        let script = """
        import socket, ssl, sys, time
        ctx = ssl.create_default_context(cafile=sys.argv[2]); ctx.set_alpn_protocols(["http/1.1"])
        s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1]))), server_hostname="localhost")
        s.settimeout(5); t = time.time()
        try:
            data = s.recv(100)
        except (ConnectionError, ssl.SSLError):
            data = b""
        print(s.selected_alpn_protocol(), repr(data), round(time.time() - t, 1))
        """
        let res = try runCommand(["python3", "-c", script, String(bound[0].port), cert.certPath], timeout: 10)
        let parts = res.stdout.split(separator: " ")
        XCTAssertEqual(parts.first, "http/1.1", res.stdout + res.stderr)
        XCTAssertEqual(parts.dropFirst().first, "b''", "the server closed without sending anything")
        XCTAssertLessThan(Double(parts.last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "9") ?? 9, 2, res.stdout)
        let c = try RawClient(port: bound[1].port)
        XCTAssertTrue(c.waitClosed(timeout: 2))
        usleep(50_000)
        XCTAssertEqual(server.connectionCount, 0)
    }
}
