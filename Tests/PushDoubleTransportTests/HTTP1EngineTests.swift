import Foundation
import XCTest
@testable import PushDoubleTransport

/// A scripted runtime: records writes and closes, runs timers when the test says so.
final class FakeIO: ConnectionIO {
    var info = ConnectionInfo(id: 7, listener: "fake", peer: "10.0.0.1:5000", localPort: 8080, tls: nil, acceptedAt: Date())
    var written: [UInt8] = []
    var closed = false, aborted = false, paused = false
    var timers: [(UInt64, Double, () -> Void)] = []
    var nextID: UInt64 = 1
    var text: String { String(decoding: written, as: UTF8.self) }
    func write(_ bytes: [UInt8]) { written += bytes }
    var pendingWriteBytes: Int { 0 }
    func close() { closed = true }
    func abort() { aborted = true }
    func pauseReading() { paused = true }
    func resumeReading() { paused = false }
    func schedule(after seconds: Double, _ body: @escaping () -> Void) -> TimerToken {
        defer { nextID += 1 }
        timers.append((nextID, seconds, body))
        return TimerToken(id: nextID)
    }
    func cancelTimer(_ token: TimerToken) { timers.removeAll { $0.0 == token.id } }
    /// Runs timers due within `seconds` of real time (shortest first, sleeping until each is
    /// due), including ones they schedule.
    func runTimers(upTo seconds: Double) {
        let start = Date()
        while let i = timers.indices.filter({ timers[$0].1 <= seconds - Date().timeIntervalSince(start) }).min(by: { timers[$0].1 < timers[$1].1 }) {
            let t = timers.remove(at: i)
            if t.1 > 0 { usleep(UInt32(t.1 * 1_000_000)) }
            t.2()
        }
    }
    struct Inline: LoopExecutor { func execute(_ body: @escaping @Sendable () -> Void) { body() } }
    var loopExecutor: any LoopExecutor { Inline() }
}

final class HTTP1EngineTests: XCTestCase {
    private func engine(_ r: any Responder, limits: ServerLimits = ServerLimits()) -> (HTTP1ServerConnection, FakeIO) {
        let io = FakeIO()
        let h = HTTP1ServerConnection(io: io, responder: r, limits: limits)
        h.connectionStarted(initialBytes: [])
        return (h, io)
    }

    private func feed(_ h: HTTP1ServerConnection, _ s: String) {
        Array(s.utf8).withUnsafeBytes { h.bytesReceived($0) }
    }

    func testHeadAnd204HaveNoBody() {
        let r = ClosureResponder { req, _ in
            req.path == "/nc" ? .respond(HTTPResponse(status: 204, body: [])) : .respond(HTTPResponse(status: 200, contentType: "text/plain", body: "hello"))
        }
        let (h, io) = engine(r)
        feed(h, "HEAD /x HTTP/1.1\r\nHost: a\r\n\r\nGET /nc HTTP/1.1\r\nHost: a\r\n\r\n")
        let parts = io.text.components(separatedBy: "\r\n\r\n")
        XCTAssertTrue(parts[0].contains("content-length: 5"), io.text)
        XCTAssertTrue(parts[1].hasPrefix("HTTP/1.1 204 No Content"), io.text)
        XCTAssertFalse(parts[1].contains("content-length"), io.text)
        XCTAssertEqual(parts.last, "", "no body bytes after either head")
    }

    func testStallBlocksLaterPipelinedResponsesUntilIdleTimeout() {
        let r = ClosureResponder { req, _ in req.path == "/stall" ? .stall : .respond(HTTPResponse(status: 200)) }
        var limits = ServerLimits()
        limits.idleTimeout = 0.2
        let (h, io) = engine(r, limits: limits)
        feed(h, "GET /stall HTTP/1.1\r\nHost: a\r\n\r\nGET /next HTTP/1.1\r\nHost: a\r\n\r\n")
        XCTAssertEqual(io.written, [], "the second response waits behind the stalled one")
        XCTAssertEqual(r.recorded.count, 2, "both requests reached the responder")
        io.runTimers(upTo: 1)
        XCTAssertTrue(io.closed)
        XCTAssertEqual(r.completions.withLock { $0.map(\.1.kind) }, [.abandoned, .abandoned])
        h.connectionClosed()
    }

    func testGoAwayWithoutThenClosesAfterEarlierResponses() {
        let r = ClosureResponder { req, _ in
            req.path == "/bye" ? .goAway(lastStreamID: .beforeThisStream, errorCode: .noError, debugData: [], then: nil) : .respond(HTTPResponse(status: 200))
        }
        let (h, io) = engine(r)
        feed(h, "GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /bye HTTP/1.1\r\nHost: a\r\n\r\nGET /3 HTTP/1.1\r\nHost: a\r\n\r\n")
        XCTAssertEqual(io.text.components(separatedBy: "HTTP/1.1 200").count - 1, 1)
        XCTAssertTrue(io.closed)
        XCTAssertEqual(r.recorded.map(\.path), ["/1", "/bye"], "nothing after the GOAWAY is read")
    }

    /// Pipelined order holds for streamed bodies: a later request that ends the connection
    /// (GOAWAY / reset) waits until the stream ahead of it finishes; and a stream still open
    /// when the connection goes away gets its sink closed and its onClose run exactly once.
    func testStreamedResponseOrderingAndSinkClosing() {
        final class Source: ResponseBodySource, @unchecked Sendable {
            let lock = NSLock()
            var sink: (any ResponseBodySink)?
            var closedCalls = 0
            func start(_ sink: ResponseBodySink) {
                lock.withLock { self.sink = sink }
                sink.onClose { [self] in lock.withLock { closedCalls += 1 } }
                sink.write(Array("data: 1\n\n".utf8))
            }
        }
        for ending in ["goaway", "reset", "peer-gone"] {
            let source = Source()
            let r = ClosureResponder { req, _ in
                switch req.path {
                case "/events": return .stream(HTTPResponse(status: 200, headers: ["content-type": "text/event-stream"]), source: source)
                case "/end" where ending == "goaway": return .goAway(lastStreamID: .beforeThisStream, errorCode: .noError, debugData: [], then: nil)
                default: return .resetStream(.cancel)
                }
            }
            let (h, io) = engine(r)
            feed(h, "GET /events HTTP/1.1\r\nHost: a\r\n\r\n" + (ending == "peer-gone" ? "" : "GET /end HTTP/1.1\r\nHost: a\r\n\r\n"))
            XCTAssertTrue(io.text.contains("data: 1"), ending + ": " + io.text)
            XCTAssertFalse(io.closed || io.aborted, ending + ": nothing ends the connection while the stream ahead is open")
            if ending == "peer-gone" {
                h.inputClosed()
                h.connectionClosed()
                XCTAssertEqual(source.lock.withLock { source.sink?.isClosed }, true, ending + ": the open stream's sink is closed")
                XCTAssertEqual(source.lock.withLock { source.closedCalls }, 1, ending + ": onClose ran once")
            } else {
                source.lock.withLock { source.sink }?.finish()
                XCTAssertTrue(io.closed || io.aborted, ending + ": the connection ends once the stream finished")
                h.connectionClosed()
                XCTAssertEqual(source.lock.withLock { source.closedCalls }, 1, ending + ": onClose ran once")
            }
        }
    }

    func testRequestInfoTimestampsAndStreamIDs() {
        let r = ClosureResponder { _, _ in .respond(HTTPResponse(status: 200)) }
        let (h, io) = engine(r)
        feed(h, "POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nab")
        usleep(20_000)
        feed(h, "cGET /b HTTP/1.1\r\nHost: a\r\n\r\n")
        let reqs = r.recorded
        XCTAssertEqual(reqs.map(\.info.streamID), [1, 2])
        XCTAssertEqual(reqs[0].body, Array("abc".utf8))
        XCTAssertGreaterThanOrEqual(reqs[0].info.bodyReceivedAt.timeIntervalSince(reqs[0].info.headReceivedAt), 0.015)
        XCTAssertEqual(reqs[0].info.connection.listener, "fake")
        XCTAssertEqual(reqs[0].scheme, "http")
        XCTAssertFalse(io.closed)
    }

    func testRequestReadTimeoutAnswers408() {
        var limits = ServerLimits()
        limits.requestReadTimeout = 0.2
        let r = ClosureResponder { _, _ in .respond(HTTPResponse(status: 200)) }
        let (h, io) = engine(r, limits: limits)
        feed(h, "GET /slow HTTP/1.1\r\nHo")
        io.runTimers(upTo: 1)
        XCTAssertTrue(io.text.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"), io.text)
        XCTAssertTrue(io.closed)
        XCTAssertEqual(r.recorded.count, 0)
    }

    /// The 408 is shaped by the responder like every transport refusal (the admin API
    /// answers its JSON error shape), then the connection closes.
    func testRequestReadTimeoutIsShapedByTheResponder() {
        var limits = ServerLimits()
        limits.requestReadTimeout = 0.2
        var router = Router()
        router.limitExceeded = { v, _, _ in
            HTTPResponse(status: v.suggestedStatus, contentType: "application/json", body: #"{"error":"\#(v.kind.rawValue)"}"#)
        }
        let (h, io) = engine(router.build(), limits: limits)
        feed(h, "GET /slow HTTP/1.1\r\nHo")
        io.runTimers(upTo: 1)
        XCTAssertTrue(io.text.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"), io.text)
        XCTAssertTrue(io.text.contains("content-type: application/json"), io.text)
        XCTAssertTrue(io.text.hasSuffix(#"{"error":"requestTimeout"}"#), io.text)
        XCTAssertTrue(io.closed)
    }

    /// A responder's `connection: close` closes the connection after that response
    /// (RFC 9112 §9.6); later pipelined requests are not read.
    func testResponderConnectionCloseIsHonoured() {
        let r = ClosureResponder { _, _ in
            var h = HTTPHeaders()
            h.add(name: "connection", value: "Close")
            return .respond(HTTPResponse(status: 200, headers: h, body: Array("bye".utf8)))
        }
        let (c, io) = engine(r)
        feed(c, "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(io.text.hasPrefix("HTTP/1.1 200 OK\r\n"), io.text)
        XCTAssertEqual(io.text.components(separatedBy: "HTTP/1.1 200").count, 2, "one response only: \(io.text)")
        XCTAssertTrue(io.closed)
        XCTAssertEqual(r.recorded.count, 1)
    }

    func testStorageAndConnectionControl() {
        final class Bound {}
        let r = ClosureResponder { _, ctx in
            if ctx.connection.storage == nil { ctx.connection.storage = Bound() }
            ctx.connection.updateSettings(maxConcurrentStreams: 10)
            return .respond(HTTPResponse(status: ctx.connection.version == .http1_1 ? 200 : 500))
        }
        let (h, io) = engine(r)
        feed(h, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        XCTAssertNotNil(h.storage)
        h.closeGracefully(errorCode: .noError, debugData: [])
        XCTAssertTrue(io.closed)
        h.connectionClosed()
        XCTAssertNil(h.storage)
    }
}

extension HTTP1EngineTests {
    func testAbsoluteFormTarget() {
        let r = ClosureResponder { _, _ in .respond(HTTPResponse(status: 200)) }
        let (h, _) = engine(r)
        feed(h, "GET http://api.push.test:8080/3/device/a?x=1 HTTP/1.1\r\nHost: other\r\n\r\nGET https://h HTTP/1.1\r\nHost: h\r\n\r\n")
        XCTAssertEqual(r.recorded.map(\.path), ["/3/device/a?x=1", "/"])
        XCTAssertEqual(r.recorded.map(\.authority), ["api.push.test:8080", "h"])
        XCTAssertNil(HTTP1ServerConnection.splitAbsoluteForm("/plain"))
        XCTAssertEqual(HTTP1ServerConnection.splitAbsoluteForm("HTTP://a?q")?.1, "/?q")
    }
}
