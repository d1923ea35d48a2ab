import Foundation
import XCTest
import PushDoubleTestSupport
@testable import PushDoubleTransport
@testable import PushDoubleClient

/// The client against nghttpd: h2 over TLS with ALPN, h2c prior knowledge,
/// multiplexing, MAX_CONCURRENT_STREAMS, flow control both ways, padding, PING.
final class ClientHTTP2Tests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "nghttpd", "openssl") }

    static let small = Array("hello from nghttpd\n".utf8)
    static let large = clientTestBytes(3 * 1024 * 1024 + 17, seed: 11)  // > our 1 MiB stream window
    static let docroot = makeClientTestDocroot(files: ["hello.txt": small, "large.bin": large])

    private var tlsConfig: HTTPClientConfiguration { HTTPClientConfiguration(caPEM: ClientTestPKI.files.caPEM) }

    private func get(_ c: HTTPClientConnection, _ path: String, authority: String, scheme: String = "https") async throws -> HTTPClientResponse {
        try await c.send(HTTPClientRequest(path: path, authority: authority, scheme: scheme))
    }

    func testH2OverTLSWithALPN() async throws {
        let server = try startNghttpd(docroot: Self.docroot)
        defer { server.stop() }
        let c = try await HTTPClientConnection.connect(host: "localhost", port: server.port, tls: true, configuration: tlsConfig)
        defer { c.close() }
        XCTAssertEqual(c.version, .http2)
        XCTAssertTrue(c.isUsable)
        let r = try await get(c, "/hello.txt", authority: "localhost:\(server.port)")
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.body, Self.small)
        XCTAssertEqual(r.streamID, 1)
        XCTAssertEqual(r.version, .http2)
        XCTAssertEqual(r.headers["content-length"], String(Self.small.count))
        XCTAssertEqual(r.frames.first, .headers(endStream: false))
        XCTAssertEqual(r.frames.last, .data(length: Self.small.count, endStream: true))
        let notFound = try await get(c, "/missing", authority: "localhost")
        XCTAssertEqual(notFound.status, 404)
        XCTAssertEqual(notFound.streamID, 3)
    }

    func testH2OnlyALPNAndIPAddressVerification() async throws {
        let server = try startNghttpd(docroot: Self.docroot)
        defer { server.stop() }
        var config = tlsConfig
        config.alpn = ["h2"]
        // The certificate carries IP:127.0.0.1, verified with X509_VERIFY_PARAM_set1_ip_asc.
        let c = try await HTTPClientConnection.connect(host: "127.0.0.1", port: server.port, tls: true, configuration: config)
        defer { c.close() }
        XCTAssertEqual(c.version, .http2)
        let r = try await get(c, "/hello.txt", authority: "127.0.0.1")
        XCTAssertEqual(r.body, Self.small)
    }

    func testH2CleartextPriorKnowledge() async throws {
        let server = try startNghttpd(docroot: Self.docroot, tls: false)
        defer { server.stop() }
        let c = try await HTTPClientConnection.connect(host: "127.0.0.1", port: server.port, tls: false,
                                                       configuration: HTTPClientConfiguration(alpn: ["h2"]))
        defer { c.close() }
        XCTAssertEqual(c.version, .http2)
        let r = try await get(c, "/hello.txt", authority: "127.0.0.1", scheme: "http")
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.body, Self.small)
    }

    func testHundredConcurrentRequestsShareOneConnection() async throws {
        let server = try startNghttpd(docroot: Self.docroot)
        defer { server.stop() }
        let c = try await HTTPClientConnection.connect(host: "localhost", port: server.port, tls: true, configuration: tlsConfig)
        defer { c.close() }
        let ids = try await withThrowingTaskGroup(of: UInt32.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    let r = try await c.send(HTTPClientRequest(path: "/hello.txt", authority: "localhost"))
                    XCTAssertEqual(r.status, 200)
                    XCTAssertEqual(r.body, Self.small)
                    return r.streamID
                }
            }
            var all: [UInt32] = []
            for try await id in group { all.append(id) }
            return all
        }
        XCTAssertEqual(Set(ids).count, 100)
        XCTAssertEqual(Set(ids), Set((0..<100).map { UInt32(2 * $0 + 1) }))
        XCTAssertEqual(c.connectionID, c.connectionID)
    }

    func testMaxConcurrentStreamsOneQueuesRequests() async throws {
        let server = try startNghttpd(docroot: Self.docroot, extra: ["--max-concurrent-streams=1"])
        defer { server.stop() }
        let c = try await HTTPClientConnection.connect(host: "localhost", port: server.port, tls: true, configuration: tlsConfig)
        defer { c.close() }
        XCTAssertEqual(c.peerMaxConcurrentStreams, 1)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    XCTAssertLessThanOrEqual(c.openStreamCount, 1)
                    return try await c.send(HTTPClientRequest(path: "/hello.txt", authority: "localhost")).status
                }
            }
            var all: [Int] = []
            for try await s in group {
                XCTAssertLessThanOrEqual(c.openStreamCount, 1)
                all.append(s)
            }
            return all
        }
        // No REFUSED_STREAM: every request waited for a free slot.
        XCTAssertEqual(statuses, Array(repeating: 200, count: 20))
    }

    func testLargeDownloadSendsWindowUpdates() async throws {
        let server = try startNghttpd(docroot: Self.docroot)
        defer { server.stop() }
        let c = try await HTTPClientConnection.connect(host: "localhost", port: server.port, tls: true, configuration: tlsConfig)
        defer { c.close() }
        let r = try await get(c, "/large.bin", authority: "localhost")
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.body.count, Self.large.count)
        XCTAssertTrue(r.body == Self.large)
        let dataLengths = r.frames.compactMap { if case .data(let n, _) = $0 { return n } else { return nil } }
        XCTAssertEqual(dataLengths.reduce(0, +), Self.large.count)
        XCTAssertLessThanOrEqual(dataLengths.max() ?? 0, 16384)
    }

    func testUploadRespectsSmallPeerWindow() async throws {
        // -w 10: nghttpd's stream windows are 2^10-1 bytes, so a 200 kB body needs many
        // WINDOW_UPDATEs; --echo-upload sends it back.
        let server = try startNghttpd(docroot: Self.docroot, extra: ["--echo-upload", "-w", "10"])
        defer { server.stop() }
        let c = try await HTTPClientConnection.connect(host: "localhost", port: server.port, tls: true, configuration: tlsConfig)
        defer { c.close() }
        let body = clientTestBytes(200_000, seed: 3)
        let r = try await c.send(HTTPClientRequest(method: "POST", path: "/echo", authority: "localhost", body: body))
        XCTAssertEqual(r.status, 200)
        XCTAssertTrue(r.body == body, "echoed \(r.body.count) bytes")
    }

    func testPaddedDataFrames() async throws {
        let server = try startNghttpd(docroot: Self.docroot, extra: ["-b", "32"])
        defer { server.stop() }
        let c = try await HTTPClientConnection.connect(host: "localhost", port: server.port, tls: true, configuration: tlsConfig)
        defer { c.close() }
        let r = try await get(c, "/large.bin", authority: "localhost")
        XCTAssertTrue(r.body == Self.large)
    }

    func testSmallPeerHeaderTableSize() async throws {
        // nghttpd's decoder table of 0 bytes: our encoder must announce the size update
        // and never index.
        let server = try startNghttpd(docroot: Self.docroot, extra: ["--header-table-size=0"])
        defer { server.stop() }
        let c = try await HTTPClientConnection.connect(host: "localhost", port: server.port, tls: true, configuration: tlsConfig)
        defer { c.close() }
        for _ in 0..<3 {
            var req = HTTPClientRequest(path: "/hello.txt", authority: "localhost")
            req.headers.add(name: "x-custom", value: "some value")
            let r = try await c.send(req)
            XCTAssertEqual(r.status, 200)
        }
    }

    func testPingMeasuresRoundTrip() async throws {
        let server = try startNghttpd(docroot: Self.docroot)
        defer { server.stop() }
        let c = try await HTTPClientConnection.connect(host: "localhost", port: server.port, tls: true, configuration: tlsConfig)
        defer { c.close() }
        let rtt = try await c.ping()
        XCTAssertGreaterThan(rtt, 0)
        XCTAssertLessThan(rtt, 5)
    }

    func testCloseMakesConnectionUnusable() async throws {
        let server = try startNghttpd(docroot: Self.docroot)
        defer { server.stop() }
        let c = try await HTTPClientConnection.connect(host: "localhost", port: server.port, tls: true, configuration: tlsConfig)
        _ = try await get(c, "/hello.txt", authority: "localhost")
        c.close()
        XCTAssertFalse(c.isUsable)
        let error = await expectClientError { () async throws(HTTPClientError) in
            try await c.send(HTTPClientRequest(path: "/hello.txt", authority: "localhost"))
        }
        guard case .connectionClosed = error else { return XCTFail("got \(String(describing: error))") }
    }
}
