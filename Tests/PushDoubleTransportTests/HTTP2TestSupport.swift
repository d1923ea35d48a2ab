import Foundation
import Synchronization
import XCTest
import PushDoubleHPACK
@testable import PushDoubleTransport

/// A ``ConnectionIO`` with no socket: records writes, runs timers on a virtual clock and
/// queues loop-executor closures until the test drains them.
final class FakeConnectionIO: ConnectionIO {
    var info = ConnectionInfo(id: 7, listener: "test", peer: "127.0.0.1:5555", localPort: 8443, tls: nil, acceptedAt: Date())
    var written: [UInt8] = []
    var writeCalls = 0
    var pendingWriteBytes = 0
    var closed = false
    var aborted = false
    var paused = false
    var now = 0.0
    private var nextTimer: UInt64 = 1
    private var timers: [(token: TimerToken, deadline: Double, body: () -> Void)] = []
    let executor = FakeLoopExecutor()

    func write(_ bytes: [UInt8]) {
        XCTAssertFalse(closed || aborted, "write after close")
        written.append(contentsOf: bytes)
        writeCalls += 1
    }
    func close() { closed = true }
    func abort() { aborted = true }
    func pauseReading() { paused = true }
    func resumeReading() { paused = false }
    func schedule(after seconds: Double, _ body: @escaping () -> Void) -> TimerToken {
        let t = TimerToken(id: nextTimer)
        nextTimer += 1
        timers.append((t, now + seconds, body))
        return t
    }
    func cancelTimer(_ token: TimerToken) { timers.removeAll { $0.token == token } }
    var loopExecutor: any LoopExecutor { executor }
    var timerCount: Int { timers.count }

    /// Advances the virtual clock, firing due timers in deadline order.
    func advance(by seconds: Double) {
        let end = now + seconds
        while let i = timers.indices.filter({ timers[$0].deadline <= end }).min(by: { timers[$0].deadline < timers[$1].deadline }) {
            let t = timers.remove(at: i)
            now = max(now, t.deadline)
            t.body()
        }
        now = end
    }
}

/// Queues closures posted from any thread; `drain()` runs them on the test thread.
final class FakeLoopExecutor: LoopExecutor {
    private let queue = Mutex<[@Sendable () -> Void]>([])
    func execute(_ body: @escaping @Sendable () -> Void) { queue.withLock { $0.append(body) } }
    func drain() {
        while true {
            let items = queue.withLock { q -> [@Sendable () -> Void] in let c = q; q = []; return c }
            if items.isEmpty { return }
            for i in items { i() }
        }
    }
}

/// A responder driven by a closure, recording what the transport reported.
final class TestResponder: Responder, @unchecked Sendable {
    var handler: (HTTPRequest, RequestContext) -> ResponseAction
    var requests: [HTTPRequest] = []
    var completions: [(UInt32, ResponseOutcome.Kind)] = []
    var violations: [LimitViolation] = []
    /// Streams the transport turned away unprocessed, with the head as it arrived.
    var refusals: [(StreamRefusal, HTTPRequest)] = []
    var limitResponse: Bool = true

    init(_ handler: @escaping (HTTPRequest, RequestContext) -> ResponseAction = { _, _ in .respond(HTTPResponse(status: 200)) }) {
        self.handler = handler
    }
    func respond(to request: HTTPRequest, context: RequestContext) -> ResponseAction {
        requests.append(request)
        return handler(request, context)
    }
    func streamRefused(_ refusal: StreamRefusal, head: HTTPRequest, context: RequestContext) {
        refusals.append((refusal, head))
    }
    func responseCompleted(for request: RequestInfo, outcome: ResponseOutcome) {
        completions.append((request.streamID, outcome.kind))
    }
    func limitExceeded(_ violation: LimitViolation, head: HTTPRequest, context: RequestContext) -> HTTPResponse? {
        violations.append(violation)
        guard limitResponse else { return nil }
        return HTTPResponse(status: violation.suggestedStatus, contentType: "text/plain", body: violation.message)
    }
}

/// A frame-level HTTP/2 client talking to an ``HTTP2ServerConnection`` through a
/// ``FakeConnectionIO``: sends frames, decodes what the server wrote.
final class H2TestClient {
    let io = FakeConnectionIO()
    let responder: TestResponder
    let connection: HTTP2ServerConnection
    private var serverDecoder = HTTP2FrameDecoder(maxFrameSize: HTTP2Limits.maxAllowedFrameSize)
    private var readOffset = 0
    var hpackEncoder = HPACKEncoder(maxTableSize: 4096, useHuffman: false)
    var hpackDecoder = HPACKDecoder(maxTableSize: 4096, maxHeaderListSize: 1 << 20)
    let encoder = HTTP2FrameEncoder(maxFrameSize: HTTP2Limits.maxAllowedFrameSize)

    init(responder: TestResponder = TestResponder(), configuration: HTTP2Configuration = HTTP2Configuration(),
         limits: ServerLimits = ServerLimits()) {
        self.responder = responder
        connection = HTTP2ServerConnection(io: io, responder: responder, configuration: configuration, limits: limits)
        let io = self.io
        connection.testsOnly_clock = { [unowned io] in UInt64(io.now * 1e9) }
    }

    /// Starts the connection, sends preface + SETTINGS (+ ACK of the server's), and
    /// discards the server's opening frames. Returns them.
    @discardableResult
    func handshake(settings: [HTTP2Setting] = [], file: StaticString = #filePath, line: UInt = #line) -> [HTTP2Frame] {
        connection.connectionStarted(initialBytes: [])
        var bytes = http2ClientPreface
        encoder.encode(.settings(settings), into: &bytes)
        encoder.encode(.settingsAck, into: &bytes)
        sendRaw(bytes)
        let frames = readFrames(file: file, line: line)
        XCTAssertEqual(frames.first?.type, .settings, file: file, line: line)
        XCTAssertTrue(frames.contains(.settingsAck), "server ACKs our SETTINGS", file: file, line: line)
        return frames
    }

    func sendRaw(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { connection.bytesReceived($0) }
    }

    func send(_ frames: HTTP2Frame...) { send(frames) }
    func send(_ frames: [HTTP2Frame]) {
        var bytes: [UInt8] = []
        for f in frames { encoder.encode(f, into: &bytes) }
        sendRaw(bytes)
    }

    func headerBlock(_ fields: [(String, String)]) -> [UInt8] {
        var block: [UInt8] = []
        hpackEncoder.encode(fields, into: &block)
        return block
    }

    static func requestFields(method: String = "GET", path: String = "/", extra: [(String, String)] = []) -> [(String, String)] {
        [(":method", method), (":scheme", "https"), (":path", path), (":authority", "example.test")] + extra
    }

    func headersFrame(_ streamID: UInt32, _ fields: [(String, String)], endStream: Bool = true) -> HTTP2Frame {
        .headers(streamID: streamID, fragment: headerBlock(fields), endStream: endStream)
    }

    func request(_ streamID: UInt32, method: String = "GET", path: String = "/", extra: [(String, String)] = [], body: [UInt8]? = nil) {
        if let body {
            send(headersFrame(streamID, Self.requestFields(method: method, path: path, extra: extra), endStream: false),
                 .data(streamID: streamID, body, endStream: true))
        } else {
            send(headersFrame(streamID, Self.requestFields(method: method, path: path, extra: extra)))
        }
    }

    /// Frames written by the server since the last call.
    func readFrames(file: StaticString = #filePath, line: UInt = #line) -> [HTTP2Frame] {
        let new = io.written[readOffset...]
        readOffset = io.written.count
        serverDecoder.append(contentsOf: new)
        var frames: [HTTP2Frame] = []
        do {
            while let f = try serverDecoder.nextFrame() { frames.append(f) }
        } catch {
            XCTFail("server wrote an undecodable frame: \(error)", file: file, line: line)
        }
        return frames
    }

    func decodeHeaders(_ frame: HTTP2Frame, file: StaticString = #filePath, line: UInt = #line) -> [(String, String)] {
        guard case .headers(let h) = frame.payload else {
            XCTFail("not HEADERS: \(frame.type)", file: file, line: line); return []
        }
        do {
            return try hpackDecoder.decode(h.fragment).map { ($0.name, $0.value) }
        } catch {
            XCTFail("bad HPACK from server: \(error)", file: file, line: line); return []
        }
    }
}

extension HTTP2Frame {
    var dataBytes: [UInt8]? { if case .data(let b, _) = payload { return b }; return nil }
    var rstCode: HTTP2ErrorCode? { if case .rstStream(let c) = payload { return c }; return nil }
    var goAwayInfo: (last: UInt32, code: HTTP2ErrorCode, debug: String)? {
        if case .goAway(let l, let c, let d) = payload { return (l, c, String(decoding: d, as: UTF8.self)) }
        return nil
    }
}
