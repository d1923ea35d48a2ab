import Foundation
import XCTest
import PushDoubleTestSupport
@testable import PushDoubleTransport

/// Real HTTP/2 clients against the in-process server on an ephemeral port: the Python
/// `h2` library (scripts in Tests/Interop/h2_*.py) and curl with prior knowledge.
final class HTTP2InteropTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "curl", "h2load", "nghttp", "python3 (h2)") }

    /// Writes three server-sent events from its own thread, 20 ms apart, then finishes.
    struct ThreadedEvents: ResponseBodySource {
        func start(_ sink: ResponseBodySink) {
            Thread.detachNewThread {
                for i in 0..<3 {
                    Thread.sleep(forTimeInterval: 0.02)
                    sink.write(Array("data: \(i)\n\n".utf8))
                }
                sink.finish()
            }
        }
    }

    /// Routes by path to one response shape per ResponseFraming / action.
    static func routes() -> ClosureResponder {
        ClosureResponder { req, ctx in
            let body25 = Array(repeating: UInt8(ascii: "b"), count: 25)
            switch req.pathWithoutQuery {
            case "/auto-empty": return .respond(HTTPResponse(status: 200, headers: ["apns-id": "A"]))
            case "/auto-body": return .respond(HTTPResponse(status: 200, body: body25))
            case "/headers-only": return .respond(HTTPResponse(status: 200, framing: .headersOnly))
            case "/single": return .respond(HTTPResponse(status: 200, body: body25, framing: .singleDataFrame))
            case "/single-empty": return .respond(HTTPResponse(status: 200, framing: .singleDataFrame))
            case "/chunked": return .respond(HTTPResponse(status: 200, body: body25, framing: .chunked(maxChunk: 10)))
            case "/big": return .respond(HTTPResponse(status: 200, body: Array(repeating: 7, count: 100_000)))
            case "/echo":
                return .respond(HTTPResponse(status: 200, contentType: "text/plain",
                                             body: "\(req.method) \(req.path) \(req.body.count)\n"))
            case "/stall": return .stall
            case "/sse":
                return .stream(HTTPResponse(status: 200, headers: ["content-type": "text/event-stream"]), source: ThreadedEvents())
            case "/dribble":
                return .dribble(HTTPResponse(status: 200, body: Array("0123456789".utf8)), chunkSize: 4, interval: 0.05)
            case "/raise":
                ctx.connection.updateSettings(maxConcurrentStreams: 1000)
                return .respond(HTTPResponse(status: 200))
            case "/goaway-this":
                return .goAway(lastStreamID: .thisStream, errorCode: .noError,
                               debugData: Array("{\"reason\":\"Shutdown\"}".utf8), then: .respond(HTTPResponse(status: 200)))
            case "/goaway-before":
                return .goAway(lastStreamID: .beforeThisStream, errorCode: .enhanceYourCalm, debugData: [], then: nil)
            default: return .respond(HTTPResponse(status: 404))
            }
        }
    }

    private var server: HTTPServer?
    override func tearDown() {
        server?.stop(timeout: 1)
        server = nil
    }

    private func start(maxStreams: UInt32? = nil, h2Only: Bool = false) throws -> Int {
        var h2 = HTTP2Configuration()
        h2.initialMaxConcurrentStreams = maxStreams
        let s = HTTPServer(eventLoopCount: 1)
        server = s
        let bound = try s.start([ListenerConfiguration(name: "h2-interop", http2: h2, allowHTTP1: !h2Only, responder: Self.routes())])
        return bound[0].port
    }

    private static var interopDir: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Interop")
    }

    private func runScript(_ name: String, port: Int, extra: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let path = Self.interopDir.appendingPathComponent(name).path
        let r = try runCommand(["python3", path, String(port)] + extra, timeout: 30)
        XCTAssertEqual(r.status, 0, "\(name) failed:\n\(r.stdout)\n\(r.stderr)", file: file, line: line)
        XCTAssertTrue(r.stdout.hasSuffix("done\n"), "\(name) output:\n\(r.stdout)\n\(r.stderr)", file: file, line: line)
        XCTAssertFalse(r.stdout.contains("FAIL"), r.stdout, file: file, line: line)
        return r.stdout
    }

    func testPythonH2ExactFraming() throws {
        let out = try runScript("h2_framing.py", port: try start())
        XCTAssertTrue(out.contains("ok singleDataFrame: HEADERS + one DATA"))
    }

    func testPythonH2TinyWindowFlowControl() throws {
        let out = try runScript("h2_flow.py", port: try start())
        XCTAssertTrue(out.contains("ok 1-octet window: 25 DATA frames of 1 byte, END_STREAM on the last (no deadlock)"))
    }

    func testPythonH2GoAway() throws {
        let out = try runScript("h2_goaway.py", port: try start())
        XCTAssertTrue(out.contains("ok last-stream-id 3"))
    }

    func testPythonH2RefusedStreamThenRaisedLimit() throws {
        let out = try runScript("h2_refused.py", port: try start(maxStreams: 1))
        XCTAssertTrue(out.contains("ok five concurrent streams accepted"))
    }

    func testCurlPriorKnowledge() throws {
        let port = try start()
        let r = try runCommand(["curl", "-sS", "--http2-prior-knowledge", "-D", "-",
                                "--data-binary", "hello", "http://127.0.0.1:\(port)/echo?q=1"], timeout: 20)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("HTTP/2 200"), r.stdout)
        XCTAssertTrue(r.stdout.contains("content-length: 17"), r.stdout)
        XCTAssertTrue(r.stdout.hasSuffix("POST /echo?q=1 5\n"), r.stdout)
    }

    /// curl 7.88 cannot reuse a prior-knowledge h2c connection (it fails with "Error in
    /// the HTTP2 framing layer" against nghttpd too), so curl runs one request per
    /// process; multiplexing is covered by nghttp and the Python clients.
    func testCurlLargeDownloadAndUpload() throws {
        let port = try start()
        var r = try runCommand(["curl", "-sS", "--http2-prior-knowledge", "-o", "/dev/null", "-w", "%{http_version} %{http_code} %{size_download}",
                                "http://127.0.0.1:\(port)/big"], timeout: 20)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "2 200 100000")
        let upload = FileManager.default.temporaryDirectory.appendingPathComponent("h2-upload-\(port).bin")
        try Data(repeating: 0x41, count: 300_000).write(to: upload)
        defer { try? FileManager.default.removeItem(at: upload) }
        r = try runCommand(["curl", "-sS", "--http2-prior-knowledge", "--data-binary", "@" + upload.path,
                            "http://127.0.0.1:\(port)/echo"], timeout: 20)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "POST /echo 300000\n")
    }
}

extension HTTP2InteropTests {
    func testNghttpMultiplexed() throws {
        let port = try start()
        let r = try runCommand(["nghttp", "-nv"] + (0..<20).map { "http://127.0.0.1:\(port)/auto-body?\($0)" }, timeout: 20)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertEqual(r.stdout.components(separatedBy: "recv DATA frame").count - 1, 20, r.stdout)
    }
}

extension HTTP2InteropTests {
    /// h2load -c10 -m100 against the server (cleartext, 2 loops): every request must
    /// succeed. Prints the request rate; the rate itself is not asserted (no timed tests).
    func testH2LoadAllRequestsSucceed() throws {
        var h2 = HTTP2Configuration()
        h2.initialMaxConcurrentStreams = 1000
        let s = HTTPServer(eventLoopCount: 2)
        server = s
        // Records nothing, so the numbers measure the transport and not the test's bookkeeping.
        struct FixedResponder: Responder {
            let response = HTTPResponse(status: 200, headers: ["apns-id": "00000000-0000-0000-0000-000000000000"])
            func respond(to request: HTTPRequest, context: RequestContext) -> ResponseAction { .respond(response) }
        }
        let responder = FixedResponder()
        let port = try s.start([ListenerConfiguration(name: "h2load", http2: h2, responder: responder)])[0].port
        let n = ProcessInfo.processInfo.environment["H2LOAD_REQUESTS"] ?? "20000"
        let r = try runCommand(["h2load", "-n", n, "-c", "10", "-m", "100", "http://127.0.0.1:\(port)/3/device/abc"], timeout: 120)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("requests: \(n) total, \(n) started, \(n) done, \(n) succeeded, 0 failed, 0 errored"), r.stdout)
        print(r.stdout.split(separator: "\n").filter { $0.hasPrefix("finished in") || $0.hasPrefix("requests:") }.joined(separator: "\n"))
    }
}

extension HTTP2InteropTests {
    func testRawProtocolErrorsOverSocket() throws {
        let out = try runScript("h2_errors.py", port: try start(h2Only: true))
        XCTAssertTrue(out.contains("ok connection still answers PING afterwards"))
    }
}

extension HTTP2InteropTests {
    func testPythonH2StreamedAndDribbledBodies() throws {
        let out = try runScript("h2_streaming.py", port: try start())
        XCTAssertTrue(out.contains("ok dribble"))
    }
}

extension HTTP2InteropTests {
    /// Flood limits (docs/transport.md "Fairness and floods") on a TLS listener (the APNs port is TLS), one loop: `h2_flood.py` floods
    /// from four processes and times requests on a fifth connection.
    private func startTLS(limits: ServerLimits) throws -> Int {
        let cert = try TestCertificate.make()
        let s = HTTPServer(eventLoopCount: 1)
        server = s
        let tls = TLSServerConfiguration(certificateChainPEM: cert.certPEM, privateKeyPEM: cert.keyPEM, alpn: ["h2"])
        return try s.start([ListenerConfiguration(name: "h2-flood", tls: tls, limits: limits, allowHTTP1: false,
                                                  responder: Self.routes())])[0].port
    }

    func testTLSFloodDoesNotStarveOtherConnections() throws {
        var limits = ServerLimits()
        limits.maxCheapFrames = .max
        limits.maxHeaderBlockFrames = .max
        limits.maxHeaderListSize = 1 << 30
        let out = try runScript("h2_flood.py", port: try startTLS(limits: limits), extra: ["fair"])
        print(out)
        XCTAssertTrue(out.contains("ok during-flood p90 within 20 x baseline p90 + 50 ms"))
    }

    func testTLSFloodersGetEnhanceYourCalm() throws {
        let out = try runScript("h2_flood.py", port: try startTLS(limits: ServerLimits()), extra: ["calm"])
        print(out)
        XCTAssertTrue(out.contains("ok every flooder got GOAWAY ENHANCE_YOUR_CALM"))
    }
}
