import Foundation
import XCTest
import PushDoubleTestSupport
@testable import PushDoubleTransport
@testable import PushDoubleClient

/// HTTP/1.1 client: python http.server, nginx over TLS (ALPN fallback to http/1.1) and
/// cleartext, and a scripted server for chunked bodies, interim responses, close
/// delimiting, truncation, garbage and timeouts.
final class ClientHTTP1Tests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "nginx", "python3") }

    static let page = Array("<h1>hello over HTTP/1.1</h1>\n".utf8)
    static let docroot = makeClientTestDocroot(files: ["index.html": page, "data.bin": clientTestBytes(300_000, seed: 9)])
    private let h1 = HTTPClientConfiguration(alpn: ["http/1.1"], connectTimeout: 5, requestTimeout: 10)

    private static func get(_ path: String, method: String = "GET") -> HTTPClientRequest {
        HTTPClientRequest(method: method, path: path, authority: "localhost", scheme: "http")
    }

    func testPythonHTTPServer() async throws {
        let port = clientTestFreePort()
        let server = try ClientTestServerProcess(["python3", "-m", "http.server", "--bind", "127.0.0.1", "--directory", Self.docroot,
                                                  String(port)], port: port)
        defer { server.stop() }
        let c = try await HTTPClientConnection.connect(host: "127.0.0.1", port: port, tls: false, configuration: h1)
        defer { c.close() }
        XCTAssertEqual(c.version, .http1_1)
        XCTAssertEqual(c.peerMaxConcurrentStreams, 1)
        let r = try await c.send(Self.get("/index.html"))
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.body, Self.page)
        XCTAssertEqual(r.version, .http1_1)
        XCTAssertEqual(r.streamID, 1)
        XCTAssertEqual(r.headers["content-length"], String(Self.page.count))
    }

    private func startNginx() throws -> (ClientTestServerProcess, tlsPort: Int, plainPort: Int) {
        let dir = NSTemporaryDirectory() + "pd-client-nginx-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let tlsPort = clientTestFreePort()
        var plainPort = clientTestFreePort()
        while plainPort == tlsPort { plainPort = clientTestFreePort() }
        let pki = ClientTestPKI.files
        let conf = """
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(dir)/nginx.pid;
        error_log \(dir)/error.log;
        events { worker_connections 64; }
        http {
            access_log off;
            client_body_temp_path \(dir)/body;
            proxy_temp_path \(dir)/proxy;
            fastcgi_temp_path \(dir)/fastcgi;
            uwsgi_temp_path \(dir)/uwsgi;
            scgi_temp_path \(dir)/scgi;
            keepalive_requests 1000;
            server {
                listen 127.0.0.1:\(tlsPort) ssl;
                ssl_certificate \(pki.serverCertPath);
                ssl_certificate_key \(pki.serverKeyPath);
                root \(Self.docroot);
            }
            server {
                listen 127.0.0.1:\(plainPort);
                root \(Self.docroot);
            }
        }
        """
        try conf.write(toFile: dir + "/nginx.conf", atomically: true, encoding: .utf8)
        // Wait on the TLS port; the plain one comes up in the same process.
        let p = try ClientTestServerProcess(["nginx", "-p", dir, "-c", dir + "/nginx.conf"], port: tlsPort)
        return (p, tlsPort, plainPort)
    }

    func testNginxOverTLSNegotiatesHTTP1AndKeepsAlive() async throws {
        let (server, tlsPort, _) = try startNginx()
        defer { server.stop() }
        let c = try await HTTPClientConnection.connect(host: "localhost", port: tlsPort, tls: true,
                                                       configuration: HTTPClientConfiguration(caPEM: ClientTestPKI.files.caPEM))
        defer { c.close() }
        // We offered h2 and http/1.1; this nginx server block speaks only http/1.1.
        XCTAssertEqual(c.version, .http1_1)
        for i in 1...3 {
            let r = try await c.send(HTTPClientRequest(path: "/index.html", authority: "localhost"))
            XCTAssertEqual(r.status, 200)
            XCTAssertEqual(r.body, Self.page)
            XCTAssertEqual(r.streamID, UInt32(i), "same connection, request #\(i)")
        }
        let head = try await c.send(HTTPClientRequest(method: "HEAD", path: "/index.html", authority: "localhost"))
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.body, [])
        XCTAssertEqual(head.headers["content-length"], String(Self.page.count))
        let big = try await c.send(HTTPClientRequest(path: "/data.bin", authority: "localhost"))
        XCTAssertTrue(big.body == clientTestBytes(300_000, seed: 9))
        let missing = try await c.send(HTTPClientRequest(path: "/nope", authority: "localhost"))
        XCTAssertEqual(missing.status, 404)
        XCTAssertTrue(c.isUsable)
    }

    func testConcurrentSendsOnOneHTTP1ConnectionAreQueued() async throws {
        let (server, _, plainPort) = try startNginx()
        defer { server.stop() }
        let c = try await HTTPClientConnection.connect(host: "127.0.0.1", port: plainPort, tls: false, configuration: h1)
        defer { c.close() }
        let ids = try await withThrowingTaskGroup(of: UInt32.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    let r = try await c.send(Self.get("/index.html"))
                    XCTAssertEqual(r.body, Self.page)
                    return r.streamID
                }
            }
            var all: [UInt32] = []
            for try await id in group { all.append(id) }
            return all
        }
        XCTAssertEqual(ids.sorted(), Array(1...10))
    }

    func testChunkedInterimAndCloseDelimitedResponses() async throws {
        let server = ScriptedServer { s in
            var req = try s.readHTTP1Request()
            if !req.head.hasPrefix("GET /chunked HTTP/1.1\r\n") || !req.head.contains("Host: localhost") {
                throw ScriptError("request head \(req.head)")
            }
            s.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n"
                    + "5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Checksum: abc\r\n\r\n")
            req = try s.readHTTP1Request()
            if !req.head.hasPrefix("POST /upload HTTP/1.1\r\n") || req.body != Array("abc".utf8) {
                throw ScriptError("second request \(req)")
            }
            s.write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok")
            _ = try s.readHTTP1Request()
            s.write("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end")
            s.close()
        }
        let c = try await HTTPClientConnection.connect(host: "127.0.0.1", port: server.port, tls: false, configuration: h1)
        let a = try await c.send(Self.get("/chunked"))
        XCTAssertEqual(String(decoding: a.body, as: UTF8.self), "hello, world")
        XCTAssertEqual(a.headers["x-checksum"], "abc")
        let b = try await c.send(HTTPClientRequest(method: "POST", path: "/upload", authority: "localhost", scheme: "http",
                                                   body: Array("abc".utf8)))
        XCTAssertEqual(b.status, 201)
        XCTAssertEqual(b.body, Array("ok".utf8))
        XCTAssertEqual(b.streamID, 2)
        let d = try await c.send(Self.get("/last"))
        XCTAssertEqual(String(decoding: d.body, as: UTF8.self), "until the end")
        XCTAssertFalse(c.isUsable)
        server.finish()
    }

    func testRequestSerialization() {
        var req = HTTPClientRequest(method: "POST", path: "/x?y=1", authority: "h:8080", scheme: "http", body: Array("abc".utf8))
        req.headers.add(name: "X-A", value: "b")
        var out: [UInt8] = []
        HTTP1ClientSession.serialize(req, into: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self),
                       "POST /x?y=1 HTTP/1.1\r\nHost: h:8080\r\nX-A: b\r\nContent-Length: 3\r\n\r\nabc")
    }

    func testTruncatedBodyIsConnectionClosed() async throws {
        let server = ScriptedServer { s in
            _ = try s.readHTTP1Request()
            s.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
            s.close()
        }
        let c = try await HTTPClientConnection.connect(host: "127.0.0.1", port: server.port, tls: false, configuration: h1)
        let error = await expectClientError { () async throws(HTTPClientError) in try await c.send(Self.get("/")) }
        guard case .connectionClosed = error else { return XCTFail("got \(String(describing: error))") }
        server.finish()
    }

    func testGarbageResponseIsAProtocolError() async throws {
        let server = ScriptedServer { s in
            _ = try s.readHTTP1Request()
            s.write("SSH-2.0-OpenSSH_9.2\r\n\r\n")
            _ = s.readSome()
        }
        let c = try await HTTPClientConnection.connect(host: "127.0.0.1", port: server.port, tls: false, configuration: h1)
        let error = await expectClientError { () async throws(HTTPClientError) in try await c.send(Self.get("/")) }
        guard case .protocolError = error else { return XCTFail("got \(String(describing: error))") }
        XCTAssertFalse(c.isUsable)
        server.finish()
    }

    func testSilentServerTimesOutTheRequest() async throws {
        let server = ScriptedServer { s in
            _ = try s.readHTTP1Request()
            _ = s.readSome()  // until the client gives up and closes
        }
        var config = h1
        config.requestTimeout = 0.3
        let c = try await HTTPClientConnection.connect(host: "127.0.0.1", port: server.port, tls: false, configuration: config)
        let start = Date()
        let error = await expectClientError { () async throws(HTTPClientError) in try await c.send(Self.get("/")) }
        XCTAssertEqual(error, .timeout)
        XCTAssertLessThan(Date().timeIntervalSince(start), 3)
        server.finish()
    }
}
