import Foundation
import XCTest
import PushDoubleTestSupport
@testable import PushDoubleTransport

/// Garbage on real sockets: the server keeps serving and releases every connection.
final class RuntimeRobustnessTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "curl") }

    func testRandomBytesOnCleartextAndTLSListeners() throws {
        let cert = try TestCertificate.make()
        let server = HTTPServer(eventLoopCount: 2)
        defer { server.stop(timeout: 0.5) }
        var limits = ServerLimits()
        limits.handshakeTimeout = 0.5
        limits.requestReadTimeout = 0.5
        let r = echoResponder()
        let bound = try server.start([
            ListenerConfiguration(name: "plain", limits: limits, responder: r),
            ListenerConfiguration(name: "tls", tls: TLSServerConfiguration(certificateChainPEM: cert.certPEM, privateKeyPEM: cert.keyPEM),
                                  limits: limits, responder: r),
        ])
        var rng = SeededRandomNumberGenerator(seed: 42)
        let prefixes: [[UInt8]] = [[], Array("GET / HTTP/1.1\r\nHost: x\r\n".utf8), Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8), [0x16, 0x03, 0x01, 0x00, 0x50, 0x01]]
        var clients: [RawClient] = []
        for i in 0..<300 {
            let port = bound[i % 2].port
            let c = try RawClient(port: port)
            var bytes = prefixes[Int(rng.next() % UInt64(prefixes.count))]
            for _ in 0..<Int(rng.next() % 600) { bytes.append(UInt8(truncatingIfNeeded: rng.next())) }
            c.send(bytes)
            if i % 3 == 0 { clients.append(c) } // keep some open, drop the rest at once
        }
        // Still serving, on both listeners.
        let res = try runCommand(["curl", "-sS", "--http1.1", "http://127.0.0.1:\(bound[0].port)/alive"])
        XCTAssertEqual(res.stdout, "GET /alive 0\n", res.stderr)
        let res2 = try runCommand(["curl", "-sS", "--http2", "--cacert", cert.certPath, "https://localhost:\(bound[1].port)/alive"])
        XCTAssertEqual(res2.stdout, "GET /alive 0\n", res2.stderr)
        // Every garbage connection is closed by a timeout or an error; none leaks.
        for c in clients { _ = c.waitClosed(timeout: 3) }
        clients.removeAll()
        let deadline = Date().addingTimeInterval(5)
        while server.connectionCount > 0 && Date() < deadline { usleep(20_000) }
        XCTAssertEqual(server.connectionCount, 0)
    }
}
