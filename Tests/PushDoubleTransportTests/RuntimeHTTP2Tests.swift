import Foundation
import XCTest
import PushDoubleTestSupport
import Synchronization
@testable import PushDoubleTransport

/// End-to-end HTTP/2 through the runtime (TLS ALPN h2, h2c prior knowledge, no-ALPN sniff).
final class RuntimeHTTP2Tests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "curl", "h2load", "python3 (h2)") }

    func testCurlHTTP2OverTLS() throws {
        let cert = try TestCertificate.make()
        let r = echoResponder()
        let (_, port) = try startServer(self, configure: {
            $0.tls = TLSServerConfiguration(certificateChainPEM: cert.certPEM, privateKeyPEM: cert.keyPEM, alpn: ["h2", "http/1.1"])
        }, responder: r)
        let res = try runCommand(["curl", "-sS", "--http2", "--cacert", cert.certPath, "--resolve", "api.push.test:\(port):127.0.0.1",
                                  "https://api.push.test:\(port)/3/device/abc", "-d", "{\"aps\":{}}"])
        XCTAssertEqual(res.status, 0, res.stderr)
        XCTAssertEqual(res.stdout, "POST /3/device/abc 10\n{\"aps\":{}}")
        let req = try XCTUnwrap(r.recorded.first)
        XCTAssertEqual(req.info.version, .http2)
        XCTAssertEqual(req.info.streamID, 1)
        XCTAssertEqual(req.info.connection.tls?.alpn, "h2")
        XCTAssertEqual(req.info.connection.tls?.serverName, "api.push.test")
        XCTAssertEqual(req.authority, "api.push.test:\(port)")
    }

    func testCurlH2CPriorKnowledgeAndHTTP1SideBySide() throws {
        let r = echoResponder()
        let (_, port) = try startServer(self, responder: r)
        var res = try runCommand(["curl", "-sS", "--http2-prior-knowledge", "http://127.0.0.1:\(port)/h2c"])
        XCTAssertEqual(res.status, 0, res.stderr)
        XCTAssertEqual(res.stdout, "GET /h2c 0\n")
        res = try runCommand(["curl", "-sS", "--http1.1", "http://127.0.0.1:\(port)/h1"])
        XCTAssertEqual(res.stdout, "GET /h1 0\n")
        XCTAssertEqual(r.recorded.map(\.info.version), [.http2, .http1_1])
    }

    func testTLSWithoutALPNSendingPrefaceIsServedAsHTTP2() throws {
        let cert = try TestCertificate.make()
        let r = echoResponder()
        let (_, port) = try startServer(self, configure: {
            $0.tls = TLSServerConfiguration(certificateChainPEM: cert.certPEM, privateKeyPEM: cert.keyPEM, alpn: ["h2", "http/1.1"])
        }, responder: r)
        let script = """
        import socket, ssl, sys, h2.connection, h2.events, h2.config
        ctx = ssl.create_default_context(cafile=sys.argv[2])
        s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1]))), server_hostname="localhost")
        assert s.selected_alpn_protocol() is None
        c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        c.initiate_connection()
        c.send_headers(1, [(":method", "GET"), (":path", "/sniffed"), (":scheme", "https"), (":authority", "localhost")], end_stream=True)
        s.sendall(c.data_to_send())
        body = b""; done = False
        while not done:
            data = s.recv(65535)
            if not data: break
            for e in c.receive_data(data):
                if isinstance(e, h2.events.DataReceived): body += e.data
                if isinstance(e, h2.events.StreamEnded): done = True
            s.sendall(c.data_to_send())
        print(body.decode(), end="")
        """
        let res = try runCommand(["python3", "-c", script, String(port), cert.certPath])
        XCTAssertEqual(res.status, 0, res.stderr)
        XCTAssertEqual(res.stdout, "GET /sniffed 0\n")
        XCTAssertEqual(r.recorded.first?.info.version, .http2)
        XCTAssertNil(r.recorded.first?.info.connection.tls?.alpn)
    }

    func testH2LoadZeroErrors() throws {
        let cert = try TestCertificate.make()
        let ok = ClosureResponder { _, _ in .respond(HTTPResponse(status: 200, headers: ["apns-id": "x"], framing: .headersOnly)) }
        let (_, port) = try startServer(self, configure: {
            $0.tls = TLSServerConfiguration(certificateChainPEM: cert.certPEM, privateKeyPEM: cert.keyPEM, alpn: ["h2"])
        }, responder: ok)
        let res = try runCommand(["h2load", "-n", "20000", "-c", "10", "-m", "100", "https://127.0.0.1:\(port)/3/device/x"], timeout: 120)
        XCTAssertEqual(res.status, 0, res.stderr)
        XCTAssertTrue(res.stdout.contains("20000 total, 20000 started, 20000 done, 20000 succeeded, 0 failed, 0 errored"), res.stdout)
        XCTAssertTrue(res.stdout.contains("status codes: 20000 2xx"), res.stdout)
    }

    func testGracefulStopSendsGoAway() throws {
        let server = HTTPServer(eventLoopCount: 1)
        let r = ClosureResponder { _, _ in .delayed(seconds: 0.3, then: .respond(HTTPResponse(status: 200, contentType: "text/plain", body: "done"))) }
        let port = try server.start([ListenerConfiguration(name: "g2", responder: r)])[0].port
        let done = DispatchSemaphore(value: 0)
        let box = Locked<String>("")
        DispatchQueue.global().async {
            let res = try? runCommand(["curl", "-sS", "--http2-prior-knowledge", "http://127.0.0.1:\(port)/slow"])
            box.withLock { $0 = res?.stdout ?? "error" }
            done.signal()
        }
        usleep(150_000)
        server.stop(timeout: 2)
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(box.withLock { $0 }, "done")
        XCTAssertEqual(server.connectionCount, 0)
    }
}
