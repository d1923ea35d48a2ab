import Foundation
import XCTest
import PushDoubleTestSupport
#if canImport(Glibc)
import Glibc
#endif
@testable import PushDoubleTransport

final class HTTP1ServerTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "curl") }

    func testCurlKeepAliveTwoRequests() throws {
        let r = echoResponder()
        let (_, port) = try startServer(self, responder: r)
        let res = try runCommand(["curl", "-sS", "--http1.1", "http://127.0.0.1:\(port)/a", "http://127.0.0.1:\(port)/b?x=1"])
        XCTAssertEqual(res.status, 0, res.stderr)
        XCTAssertEqual(res.stdout, "GET /a 0\nGET /b?x=1 0\n")
        let reqs = r.recorded
        XCTAssertEqual(reqs.count, 2)
        XCTAssertEqual(reqs.map(\.info.streamID), [1, 2])
        XCTAssertEqual(reqs[0].info.connection.id, reqs[1].info.connection.id, "keep-alive reuses the connection")
        XCTAssertEqual(reqs[0].info.version, .http1_1)
        XCTAssertEqual(reqs[0].authority, "127.0.0.1:\(port)")
        XCTAssertEqual(reqs[0].scheme, "http")
        XCTAssertEqual(reqs[0].info.connection.listener, "test")
        XCTAssertEqual(reqs[0].info.connection.localPort, port)
        XCTAssertTrue(reqs[0].info.connection.peer.hasPrefix("127.0.0.1:"))
    }
}

extension HTTP1ServerTests {
    func testChunkedUploadWithCurl() throws {
        let r = echoResponder()
        let (_, port) = try startServer(self, responder: r)
        let body = String(repeating: "abcdefghij", count: 1000)
        let res = try runCommand(["curl", "-sS", "--http1.1", "-H", "Transfer-Encoding: chunked", "--data-binary", "@-",
                                  "http://127.0.0.1:\(port)/up"], input: Data(body.utf8))
        XCTAssertEqual(res.status, 0, res.stderr)
        XCTAssertEqual(res.stdout, "POST /up 10000\n" + body)
        XCTAssertEqual(r.recorded.first?.headers["transfer-encoding"], "chunked")
    }

    func testChunkedWithTrailersRawSocket() throws {
        let r = echoResponder()
        let (_, port) = try startServer(self, responder: r)
        let c = try RawClient(port: port)
        c.send("POST /t HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: yes\r\n\r\n")
        let text = c.read(until: "hello world")
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 200 OK\r\n"), text)
        XCTAssertTrue(text.hasSuffix("POST /t 11\nhello world"), text)
        XCTAssertEqual(r.recorded.first?.headers["x-trailer"], "yes")
    }

    func testPipelinedRequestsAnsweredInOrderEvenWhenDelayed() throws {
        let r = ClosureResponder { req, _ in
            let resp = HTTPResponse(status: 200, contentType: "text/plain", body: req.path)
            // The first response is delayed: the second must still come after it.
            return req.path == "/1" ? .delayed(seconds: 0.3, then: .respond(resp)) : .respond(resp)
        }
        let (_, port) = try startServer(self, responder: r)
        let c = try RawClient(port: port)
        c.send("GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\nGET /3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let text = c.read()
        let bodies = text.components(separatedBy: "\r\n\r\n").dropFirst().map { $0.prefix(2) }
        XCTAssertEqual(bodies, ["/1", "/2", "/3"], text)
        XCTAssertTrue(text.contains("connection: close"), text)
        XCTAssertEqual(r.completions.withLock { $0.map(\.0.streamID) }, [1, 2, 3])
        XCTAssertEqual(r.completions.withLock { $0.map(\.1.kind) }, [.completed, .completed, .completed])
    }

    func testExpectContinue() throws {
        let r = echoResponder()
        let (_, port) = try startServer(self, responder: r)
        let c = try RawClient(port: port)
        c.send("PUT /e HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        let interim = c.read(until: "\r\n\r\n", timeout: 2)
        XCTAssertEqual(interim, "HTTP/1.1 100 Continue\r\n\r\n")
        c.send("data")
        let text = c.read(until: "data")
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 200 OK"), text)
        XCTAssertTrue(text.hasSuffix("PUT /e 4\ndata"), text)
    }

    func testCurlExpectContinue() throws {
        let r = echoResponder()
        let (_, port) = try startServer(self, configure: { $0.limits.maxBodySize = 4 << 20 }, responder: r)
        let body = String(repeating: "x", count: 1_500_000)
        let res = try runCommand(["curl", "-sS", "-v", "--http1.1", "--expect100-timeout", "20", "--data-binary", "@-",
                                  "http://127.0.0.1:\(port)/big"], input: Data(body.utf8))
        XCTAssertEqual(res.status, 0, res.stderr)
        XCTAssertTrue(res.stderr.contains("HTTP/1.1 100 Continue"), res.stderr)
        XCTAssertTrue(res.stdout.hasPrefix("POST /big 1500000\n"))
    }

    func testLimitErrorsHaveBodiesSayingWhy() throws {
        let r = echoResponder()
        let (_, port) = try startServer(self, configure: { $0.limits.maxBodySize = 100; $0.limits.maxHeaderListSize = 512 }, responder: r)
        // 413: Content-Length over the limit.
        var res = try runCommand(["curl", "-sS", "--http1.1", "-i", "--data-binary", String(repeating: "a", count: 200), "http://127.0.0.1:\(port)/x"])
        XCTAssertTrue(res.stdout.hasPrefix("HTTP/1.1 413 Content Too Large\r\n"), res.stdout)
        XCTAssertTrue(res.stdout.contains("larger than the limit of 100 bytes"), res.stdout)
        // 413: chunked body over the limit.
        res = try runCommand(["curl", "-sS", "--http1.1", "-i", "-H", "Transfer-Encoding: chunked", "--data-binary", "@-",
                              "http://127.0.0.1:\(port)/x"], input: Data(repeating: 65, count: 300))
        XCTAssertTrue(res.stdout.hasPrefix("HTTP/1.1 413 "), res.stdout)
        // 431: head over the limit.
        res = try runCommand(["curl", "-sS", "--http1.1", "-i", "-H", "X-Big: " + String(repeating: "b", count: 600), "http://127.0.0.1:\(port)/x"])
        XCTAssertTrue(res.stdout.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"), res.stdout)
        XCTAssertTrue(res.stdout.contains("limit of 512 bytes"), res.stdout)
        // 400: malformed.
        let c = try RawClient(port: port)
        c.send("GET /x HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n")
        let text = c.read()
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), text)
        XCTAssertTrue(text.contains("connection: close"), text)
        XCTAssertTrue(text.contains("no valid field name"), text)
        // No Host on HTTP/1.1.
        let c2 = try RawClient(port: port)
        c2.send("GET /x HTTP/1.1\r\n\r\n")
        XCTAssertTrue(c2.read().contains("no Host header"))
        XCTAssertEqual(r.recorded.count, 0, "refused requests never reach respond")
    }

    func testCustomLimitExceededBody() throws {
        final class R: Responder {
            func respond(to request: HTTPRequest, context: RequestContext) -> ResponseAction { .respond(HTTPResponse(status: 200)) }
            func limitExceeded(_ v: LimitViolation, head: HTTPRequest, context: RequestContext) -> HTTPResponse? {
                HTTPResponse(status: v.suggestedStatus, contentType: "application/json", body: "{\"reason\":\"PayloadTooLarge\",\"path\":\"\(head.path)\"}")
            }
        }
        let (_, port) = try startServer(self, configure: { $0.limits.maxBodySize = 10 }, responder: R())
        let res = try runCommand(["curl", "-sS", "--http1.1", "--data-binary", String(repeating: "a", count: 20), "http://127.0.0.1:\(port)/3/device/abc"])
        XCTAssertEqual(res.stdout, "{\"reason\":\"PayloadTooLarge\",\"path\":\"/3/device/abc\"}")
    }

    func testSlowlorisIsCutOffWhileOthersAreServed() throws {
        let r = echoResponder()
        let (_, port) = try startServer(self, configure: { $0.limits.requestReadTimeout = 1.0 }, responder: r)
        let slow = try RawClient(port: port)
        let head = Array("GET /slow HTTP/1.1\r\nHost: x\r\nX-Padding: aaaaaaaaaaaaaaaaaaaa\r\n\r\n".utf8)
        let start = Date()
        var cutOff = false
        for b in head {
            if !slow.send([b]) { cutOff = true; break }
            // Meanwhile another connection keeps being served.
            let res = try runCommand(["curl", "-sS", "--http1.1", "http://127.0.0.1:\(port)/fast"])
            XCTAssertEqual(res.stdout, "GET /fast 0\n")
            if slow.waitClosed(timeout: 0.25) { cutOff = true; break }
        }
        XCTAssertTrue(cutOff, "the slow client was not cut off")
        XCTAssertLessThan(Date().timeIntervalSince(start), 4)
        XCTAssertFalse(r.recorded.contains { $0.path == "/slow" })
    }

    func testIdleTimeoutClosesConnection() throws {
        let (_, port) = try startServer(self, configure: { $0.limits.idleTimeout = 0.3 }, responder: echoResponder())
        let c = try RawClient(port: port)
        c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(c.read(until: "GET / 0\n").hasSuffix("GET / 0\n"))
        XCTAssertTrue(c.waitClosed(timeout: 2))
    }

    func testMaxConnections() throws {
        let (server, port) = try startServer(self, loops: 1, configure: { $0.limits.maxConnections = 2 }, responder: echoResponder())
        let a = try RawClient(port: port), b = try RawClient(port: port)
        a.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        b.send("GET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(a.read(until: "GET /a 0\n").hasSuffix("GET /a 0\n"))
        XCTAssertTrue(b.read(until: "GET /b 0\n").hasSuffix("GET /b 0\n"))
        XCTAssertEqual(server.connectionCount, 2)
        let c = try RawClient(port: port)
        XCTAssertTrue(c.waitClosed(timeout: 2), "the third connection is closed at once")
        withExtendedLifetime((a, b)) {}
    }

    func testResponseActions() throws {
        struct Source: ResponseBodySource {
            func start(_ sink: ResponseBodySink) {
                DispatchQueue.global().async {
                    for i in 0..<3 { sink.write(Array("data: \(i)\n\n".utf8)); usleep(20_000) }
                    sink.finish()
                }
            }
        }
        let r = ClosureResponder { req, _ in
            let ok = HTTPResponse(status: 200, contentType: "text/plain", body: "0123456789")
            switch req.path {
            case "/dribble": return .dribble(ok, chunkSize: 3, interval: 0.05)
            case "/truncate": return .truncate(ok, bodyBytes: 4)
            case "/drop": return .dropConnection
            case "/reset": return .resetStream(.internalError)
            case "/chunked": return .respond(HTTPResponse(status: 200, body: Array("abcdefg".utf8), framing: .chunked(maxChunk: 3)))
            case "/sse": return .stream(HTTPResponse(status: 200, headers: ["content-type": "text/event-stream"]), source: Source())
            case "/goaway": return .goAway(lastStreamID: .thisStream, errorCode: .noError, debugData: [], then: .respond(ok))
            default: return .respond(ok)
            }
        }
        let (_, port) = try startServer(self, responder: r)
        var res = try runCommand(["curl", "-sS", "--http1.1", "http://127.0.0.1:\(port)/dribble"])
        XCTAssertEqual(res.stdout, "0123456789")
        res = try runCommand(["curl", "-sS", "--http1.1", "http://127.0.0.1:\(port)/truncate"])
        XCTAssertNotEqual(res.status, 0)
        XCTAssertEqual(res.stdout, "0123")
        res = try runCommand(["curl", "-sS", "--http1.1", "http://127.0.0.1:\(port)/drop"])
        XCTAssertNotEqual(res.status, 0)
        res = try runCommand(["curl", "-sS", "--http1.1", "http://127.0.0.1:\(port)/reset"])
        XCTAssertNotEqual(res.status, 0)
        res = try runCommand(["curl", "-sS", "--http1.1", "-i", "http://127.0.0.1:\(port)/chunked"])
        XCTAssertTrue(res.stdout.contains("transfer-encoding: chunked"), res.stdout)
        XCTAssertTrue(res.stdout.hasSuffix("\r\n\r\nabcdefg"), res.stdout)
        res = try runCommand(["curl", "-sS", "--http1.1", "-N", "http://127.0.0.1:\(port)/sse"])
        XCTAssertEqual(res.stdout, "data: 0\n\ndata: 1\n\ndata: 2\n\n")
        res = try runCommand(["curl", "-sS", "--http1.1", "-i", "http://127.0.0.1:\(port)/goaway"])
        XCTAssertTrue(res.stdout.contains("connection: close"), res.stdout)
        XCTAssertTrue(res.stdout.hasSuffix("0123456789"))
        let c = try RawClient(port: port)
        c.send("GET /chunked HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(c.read(until: "0\r\n\r\n").hasSuffix("3\r\nabc\r\n3\r\ndef\r\n1\r\ng\r\n0\r\n\r\n"))
        let kinds = r.completions.withLock { $0.map { ($0.0.connection.id, $0.1.kind) } }
        XCTAssertTrue(kinds.contains { $0.1 == .connectionDropped })
        XCTAssertTrue(kinds.contains { $0.1 == .reset })
    }

    func testGracefulStop() throws {
        let server = HTTPServer(eventLoopCount: 2)
        let r = ClosureResponder { _, _ in .delayed(seconds: 0.2, then: .respond(HTTPResponse(status: 200, contentType: "text/plain", body: "late"))) }
        let port = try server.start([ListenerConfiguration(name: "g", responder: r)])[0].port
        let idle = try RawClient(port: port)
        let busy = try RawClient(port: port)
        busy.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        usleep(50_000)
        let t0 = Date()
        server.stop(timeout: 2)
        XCTAssertLessThan(Date().timeIntervalSince(t0), 1.5)
        let text = busy.read()
        XCTAssertTrue(text.hasSuffix("late"), "in-flight response finished: \(text)")
        XCTAssertTrue(text.contains("connection: close"))
        XCTAssertTrue(idle.waitClosed(timeout: 1))
        XCTAssertEqual(server.connectionCount, 0)
        XCTAssertThrowsError(try RawClient(port: port), "no longer accepting")
    }
}

extension HTTP1ServerTests {
    /// A client that pipelines many requests and never reads: the server stops reading once
    /// its output buffer is full instead of buffering without bound, then serves all once
    /// the client reads.
    func testBackPressureBoundsBufferedOutput() throws {
        let big = [UInt8](repeating: 66, count: 32 * 1024)
        let r = ClosureResponder { _, _ in .respond(HTTPResponse(status: 200, body: big)) }
        let (_, port) = try startServer(self, configure: { $0.limits.maxBufferedOutput = 64 * 1024 }, responder: r)
        let c = try RawClient(port: port)
        let total = 1000
        let one = Array("GET /b HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        var all: [UInt8] = []
        for _ in 0..<total { all += one }
        // Send from another thread: the server stops reading, so this may block.
        let fd = c.fd, payload = all
        DispatchQueue.global().async {
            _ = payload.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        usleep(500_000)
        let answeredWhileBlocked = r.recorded.count
        XCTAssertLessThan(answeredWhileBlocked, total, "the server kept reading although nobody reads its output")
        // Now read everything.
        var received = 0
        let deadline = Date().addingTimeInterval(20)
        var buf = [UInt8](repeating: 0, count: 65536)
        let expected = total * (big.count + 60)
        while received < expected && Date() < deadline {
            let n = buf.withUnsafeMutableBytes { recv(c.fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            received += n
        }
        XCTAssertEqual(r.recorded.count, total)
        XCTAssertGreaterThan(received, total * big.count)
    }
}

extension HTTP1ServerTests {
    /// The server refuses a body it has not read while the client keeps uploading: the 413
    /// still arrives, with `connection: close`. (On loopback an RST would not destroy data
    /// already delivered, so this checks the answer, not the lingering close itself.)
    func testRefusalSurvivesUnreadUpload() throws {
        let (_, port) = try startServer(self, configure: { $0.limits.maxBodySize = 100 }, responder: echoResponder())
        let c = try RawClient(port: port)
        // Head and (part of the) body in one go: unread bytes sit in the server's receive
        // buffer when it closes.
        let payload = Array("POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n".utf8) + [UInt8](repeating: 0x41, count: 1_000_000)
        let fd = c.fd
        DispatchQueue.global().async {
            _ = payload.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        let text = c.read(until: "bytes.")
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 413 Content Too Large\r\n"), text)
        XCTAssertTrue(text.contains("connection: close"))
    }
}
