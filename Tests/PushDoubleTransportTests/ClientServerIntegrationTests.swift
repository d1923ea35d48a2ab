import Foundation
import XCTest
import PushDoubleTestSupport
@testable import PushDoubleTransport
@testable import PushDoubleClient

/// The client against PushDouble's own HTTPServer (runtime + HTTP/2 engine): the APNs
/// pattern of SETTINGS_MAX_CONCURRENT_STREAMS 1 raised after the first request, ALPN
/// choices, and the server's fault actions seen as the client's typed errors.
final class ClientServerIntegrationTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "openssl") }

    private static func responder() -> ClosureResponder {
        ClosureResponder { req, ctx in
            switch req.path {
            case "/first":
                // What APNs does once the first request on a connection authenticated.
                ctx.connection.updateSettings(maxConcurrentStreams: 1000)
                return .respond(HTTPResponse(status: 200, contentType: "text/plain", body: "raised"))
            case "/goaway":
                return .goAway(lastStreamID: .beforeThisStream, errorCode: .noError, debugData: Array("bye".utf8), then: nil)
            case "/held":
                return .heldUntilGoAway(maxSeconds: 5, then: .respond(HTTPResponse(status: 200, contentType: "text/plain", body: "held")))
            case "/held-briefly":
                return .heldUntilGoAway(maxSeconds: 0.2, then: .respond(HTTPResponse(status: 200, contentType: "text/plain", body: "released")))
            case "/refuse":
                return .resetStream(.refusedStream)
            case "/drop":
                return .dropConnection
            default:
                return .respond(HTTPResponse(status: 200, contentType: "text/plain",
                                             body: "\(req.method) \(req.path) \(req.body.count) \(req.info.version.rawValue)"))
            }
        }
    }

    private func startServer() throws -> (HTTPServer, tlsPort: Int, plainPort: Int) {
        let pki = ClientTestPKI.files
        let cert = try String(contentsOfFile: pki.serverCertPath, encoding: .utf8)
        let key = try String(contentsOfFile: pki.serverKeyPath, encoding: .utf8)
        var http2 = HTTP2Configuration()
        http2.initialMaxConcurrentStreams = 1
        let server = HTTPServer(eventLoopCount: 1)
        let bound = try server.start([
            ListenerConfiguration(name: "tls", tls: TLSServerConfiguration(certificateChainPEM: cert, privateKeyPEM: key),
                                  http2: http2, responder: Self.responder()),
            ListenerConfiguration(name: "plain", http2: http2, responder: Self.responder()),
        ])
        return (server, bound[0].port, bound[1].port)
    }

    private var tls: HTTPClientConfiguration { HTTPClientConfiguration(caPEM: ClientTestPKI.files.caPEM, requestTimeout: 10) }

    private static func req(_ path: String, body: [UInt8] = []) -> HTTPClientRequest {
        HTTPClientRequest(method: body.isEmpty ? "GET" : "POST", path: path, authority: "localhost", body: body)
    }

    func testConcurrencyLimitRaisedAfterFirstRequest() async throws {
        let (server, tlsPort, _) = try startServer()
        defer { server.stop() }
        let c = try await HTTPClientConnection.connect(host: "localhost", port: tlsPort, tls: true, configuration: tls)
        defer { c.close() }
        XCTAssertEqual(c.version, .http2)
        XCTAssertEqual(c.peerMaxConcurrentStreams, 1)
        let first = try await c.send(Self.req("/first"))
        XCTAssertEqual(first.body, Array("raised".utf8))
        // The raise arrives as a SETTINGS frame right behind the response.
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<200 { group.addTask { try await c.send(Self.req("/n\(i)", body: [UInt8](repeating: 7, count: i))).status } }
            var all: [Int] = []
            for try await s in group { all.append(s) }
            return all
        }
        XCTAssertEqual(statuses, Array(repeating: 200, count: 200))
        XCTAssertEqual(c.peerMaxConcurrentStreams, 1000)
    }

    func testALPNChoosesHTTP1WhenAskedAndCleartextPriorKnowledge() async throws {
        let (server, tlsPort, plainPort) = try startServer()
        defer { server.stop() }
        var h1 = tls
        h1.alpn = ["http/1.1"]
        let a = try await HTTPClientConnection.connect(host: "127.0.0.1", port: tlsPort, tls: true, configuration: h1)
        defer { a.close() }
        XCTAssertEqual(a.version, .http1_1)
        let ra = try await a.send(Self.req("/x", body: Array("abc".utf8)))
        XCTAssertEqual(String(decoding: ra.body, as: UTF8.self), "POST /x 3 HTTP/1.1")

        let b = try await HTTPClientConnection.connect(host: "127.0.0.1", port: plainPort, tls: false,
                                                       configuration: HTTPClientConfiguration(alpn: ["h2"]))
        defer { b.close() }
        XCTAssertEqual(b.version, .http2)
        let rb = try await b.send(HTTPClientRequest(path: "/y", authority: "localhost", scheme: "http"))
        XCTAssertEqual(String(decoding: rb.body, as: UTF8.self), "GET /y 0 HTTP/2")
    }

    /// A held answer waits for the connection's GOAWAY and follows it: the client sees the
    /// GOAWAY while the processed stream is still open, then its answer (RFC 9113 §6.8).
    /// With no GOAWAY it goes out after its cap.
    func testHeldAnswersFollowTheGoAway() async throws {
        let (server, tlsPort, _) = try startServer()
        defer { server.stop() }
        let c = try await HTTPClientConnection.connect(host: "localhost", port: tlsPort, tls: true, configuration: tls)
        defer { c.close() }
        _ = try await c.send(Self.req("/first"))
        let start = Date()
        let released = try await c.send(Self.req("/held-briefly"))
        XCTAssertEqual(released.body, Array("released".utf8))
        XCTAssertFalse(released.afterGoAway)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.15, "held for its cap")

        async let held = c.send(Self.req("/held"))
        try await Task.sleep(nanoseconds: 200_000_000)
        let goAway = await expectClientError { () async throws(HTTPClientError) in try await c.send(Self.req("/goaway")) }
        guard case .goAway(let last, _, _) = goAway else { return XCTFail("got \(String(describing: goAway))") }
        let answer = try await held
        XCTAssertEqual(answer.body, Array("held".utf8))
        XCTAssertLessThanOrEqual(answer.streamID, last)
        XCTAssertTrue(answer.afterGoAway, "the answer came after the GOAWAY frame")
        XCTAssertLessThan(Date().timeIntervalSince(start), 4, "released by the GOAWAY, not by its 5 s cap")
    }

    func testServerFaultActionsBecomeTypedClientErrors() async throws {
        let (server, tlsPort, _) = try startServer()
        defer { server.stop() }
        let c = try await HTTPClientConnection.connect(host: "localhost", port: tlsPort, tls: true, configuration: tls)
        _ = try await c.send(Self.req("/first"))
        let refused = await expectClientError { () async throws(HTTPClientError) in try await c.send(Self.req("/refuse")) }
        XCTAssertEqual(refused, .streamReset(.refusedStream))
        let goAway = await expectClientError { () async throws(HTTPClientError) in try await c.send(Self.req("/goaway")) }
        // Stream 5 asked for GOAWAY with last-stream-id "before this stream" = 3: not processed.
        XCTAssertEqual(goAway, .goAway(lastStreamID: 3, errorCode: .noError, debugData: Array("bye".utf8)))
        XCTAssertFalse(c.isUsable)

        let d = try await HTTPClientConnection.connect(host: "localhost", port: tlsPort, tls: true, configuration: tls)
        let dropped = await expectClientError { () async throws(HTTPClientError) in try await d.send(Self.req("/drop")) }
        guard case .connectionClosed = dropped else { return XCTFail("got \(String(describing: dropped))") }
        XCTAssertFalse(d.isUsable)
    }
}
