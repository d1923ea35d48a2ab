import Foundation
import XCTest
import PushDoubleHPACK
@testable import PushDoubleTransport

/// ``HTTP2ServerSession`` on its own: bytes in, actions and output bytes out, no socket, no
/// runtime, no responder (the tests play the adapter's part).
final class HTTP2ServerSessionTests: XCTestCase {
    private let info = ConnectionInfo(id: 3, listener: "test", peer: "127.0.0.1:4444", localPort: 8443, tls: nil, acceptedAt: Date())
    private var hpack = HPACKEncoder(maxTableSize: 4096, useHuffman: false)
    private var hpackDecoder = HPACKDecoder(maxTableSize: 4096, maxHeaderListSize: 1 << 20)
    private let encoder = HTTP2FrameEncoder(maxFrameSize: HTTP2Limits.maxAllowedFrameSize)

    /// A started session that has read the client preface with `settings`; its opening output taken.
    private func openSession(settings: [HTTP2Setting] = [], limits: ServerLimits = ServerLimits()) -> HTTP2ServerSession {
        let session = HTTP2ServerSession(info: info, configuration: HTTP2Configuration(), limits: limits)
        let started = queued(session) { session.start(initialBytes: [], now: 0, pendingWriteBytes: 0) }
        XCTAssertEqual(started.count, 1)
        guard case .schedule(_, let after, .idle)? = started.first else { return session }
        XCTAssertEqual(after, limits.idleTimeout)
        var bytes = http2ClientPreface
        encoder.encode(.settings(settings), into: &bytes)
        encoder.encode(.settingsAck, into: &bytes)
        XCTAssertTrue(feedRaw(session, bytes).isEmpty)
        let opening = output(session)
        XCTAssertEqual(opening.first?.type, .settings)
        XCTAssertTrue(opening.contains(.settingsAck))
        return session
    }

    /// The actions `entryPoint` queued, taken out of the session's buffer (the adapter's part).
    private func queued(_ session: HTTP2ServerSession, _ entryPoint: () -> Void) -> [HTTP2ServerAction] {
        let base = session.actions.count
        entryPoint()
        let added = Array(session.actions[base...])
        session.actions.removeSubrange(base...)
        return added
    }

    private func feedRaw(_ session: HTTP2ServerSession, _ bytes: [UInt8], now: UInt64 = 0) -> [HTTP2ServerAction] {
        queued(session) { bytes.withUnsafeBytes { session.receive($0, now: now, pendingWriteBytes: 0) } }
    }

    private func feed(_ session: HTTP2ServerSession, _ frames: HTTP2Frame...) -> [HTTP2ServerAction] {
        var bytes: [UInt8] = []
        for f in frames { encoder.encode(f, into: &bytes) }
        return feedRaw(session, bytes)
    }

    /// The frames in the session's output buffer, which is emptied (the adapter's write).
    private func output(_ session: HTTP2ServerSession) -> [HTTP2Frame] {
        var decoder = HTTP2FrameDecoder(maxFrameSize: HTTP2Limits.maxAllowedFrameSize)
        decoder.append(contentsOf: session.out[...])
        session.out.removeAll()
        var frames: [HTTP2Frame] = []
        while let f = try? decoder.nextFrame() { frames.append(f) }
        return frames
    }

    private func headers(_ streamID: UInt32, method: String = "GET", path: String = "/", endStream: Bool = true) -> HTTP2Frame {
        var block: [UInt8] = []
        hpack.encode([(":method", method), (":scheme", "https"), (":path", path), (":authority", "example.test")], into: &block)
        return .headers(streamID: streamID, fragment: block, endStream: endStream)
    }

    private func delivered(_ session: HTTP2ServerSession, _ actions: [HTTP2ServerAction],
                           file: StaticString = #filePath, line: UInt = #line) -> HTTPRequest? {
        guard case .deliver(let streamID)? = actions.last else {
            XCTFail("expected a request as the last action, got \(actions)", file: file, line: line)
            return nil
        }
        let request = session.takeDelivery()
        XCTAssertEqual(request?.info.streamID, streamID, file: file, line: line)
        XCTAssertNil(session.takeDelivery(), "taken once", file: file, line: line)
        return request
    }

    /// Whether the actions close the connection (write what is queued, then close).
    private func closes(_ actions: [HTTP2ServerAction]) -> Bool {
        actions.contains { if case .close = $0 { return true }; return false }
    }

    /// The actions are exactly one timer for the request read timeout (a request still arriving).
    private func armsReadTimeout(_ actions: [HTTP2ServerAction]) -> Bool {
        guard actions.count == 1, case .schedule(_, _, .readTimeout) = actions[0] else { return false }
        return true
    }

    private func completions(_ actions: [HTTP2ServerAction]) -> [(UInt32, ResponseOutcome.Kind)] {
        actions.compactMap { if case .responseCompleted(let info, let outcome) = $0 { return (info.streamID, outcome.kind) }; return nil }
    }

    func testSettingsAreAcknowledgedAsOutputWithoutActions() {
        let session = openSession()
        XCTAssertTrue(feed(session, .settings([HTTP2Setting(.maxFrameSize, 20_000)])).isEmpty)
        XCTAssertEqual(output(session), [.settingsAck])
        XCTAssertEqual(session.encoder.maxFrameSize, 20_000)
        // Our own SETTINGS (sent on request of the responder) take effect on the peer's ACK.
        XCTAssertTrue(queued(session) { session.updateSettings(maxConcurrentStreams: 5) }.isEmpty)
        XCTAssertEqual(output(session), [.settings([HTTP2Setting(.maxConcurrentStreams, 5)])])
        XCTAssertNotEqual(session.maxConcurrentStreams, 5)
        XCTAssertTrue(feed(session, .settingsAck).isEmpty)
        XCTAssertEqual(session.maxConcurrentStreams, 5)
    }

    func testRequestAndResponseRoundTripAsActions() throws {
        let session = openSession()
        // A request and a PING in one read: the session stops at the request until it is answered.
        let actions = feed(session, headers(1, path: "/a"), .ping(42))
        let request = try XCTUnwrap(delivered(session, actions))
        XCTAssertEqual(request.method, "GET")
        XCTAssertEqual(request.path, "/a")
        XCTAssertEqual(request.info.streamID, 1)
        XCTAssertEqual(session.awaitingAnswer, 1)
        XCTAssertEqual(output(session), [], "nothing after the request is handled before its answer")

        let after = queued(session) { session.respond(to: 1, with: .respond(HTTPResponse(status: 201, body: Array("ok".utf8)))) }
        XCTAssertEqual(completions(after).map(\.0), [1])
        XCTAssertEqual(completions(after).map(\.1), [.completed])
        let frames = output(session)
        XCTAssertEqual(frames.map(\.type), [.headers, .data, .ping], "the answer is encoded where a synchronous call would have put it")
        guard case .headers(let h) = frames[0].payload else { return XCTFail("not HEADERS") }
        let fields = try hpackDecoder.decode(h.fragment).map { "\($0.name): \($0.value)" }
        XCTAssertEqual(fields, [":status: 201", "content-length: 2"])
        XCTAssertEqual(frames[1].dataBytes, Array("ok".utf8))
        XCTAssertTrue(frames[1].endStream)
        XCTAssertEqual(frames[2], .ping(42, ack: true))
        XCTAssertEqual(session.streams.count, 0)
        XCTAssertNil(session.awaitingAnswer)
        // An answer for a stream that is not waiting for one changes nothing.
        XCTAssertTrue(queued(session) { session.respond(to: 1, with: .respond(HTTPResponse(status: 200))) }.isEmpty)
        XCTAssertEqual(output(session), [])
    }

    func testResponseBodyWaitsForFlowControlCredit() throws {
        let session = openSession(settings: [HTTP2Setting(.initialWindowSize, 5)])
        _ = try XCTUnwrap(delivered(session, feed(session, headers(1))))
        let body = Array("0123456789ab".utf8)
        let after = queued(session) { session.respond(to: 1, with: .respond(HTTPResponse(status: 200, body: body))) }
        XCTAssertTrue(completions(after).isEmpty, "the body is not all out yet")
        var frames = output(session)
        XCTAssertEqual(frames.map(\.type), [.headers, .data])
        XCTAssertEqual(frames[1].dataBytes, Array(body[0..<5]))
        XCTAssertFalse(frames[1].endStream)
        XCTAssertEqual(session.connSendWindow.value, HTTP2Limits.defaultInitialWindowSize - 5)

        let credited = feed(session, .windowUpdate(streamID: 1, increment: 100))
        XCTAssertEqual(completions(credited).map(\.1), [.completed])
        frames = output(session)
        XCTAssertEqual(frames.map(\.dataBytes), [Array(body[5...])])
        XCTAssertTrue(frames[0].endStream)
    }

    func testPeerResetCancelsTheStreamsTimerAndReportsItAbandoned() throws {
        let session = openSession()
        _ = try XCTUnwrap(delivered(session, feed(session, headers(1))))
        let answered = queued(session) { session.respond(to: 1, with: .delayed(seconds: 5, then: .respond(HTTPResponse(status: 200)))) }
        guard case .schedule(let timer, let after, .delayed(1, _))? = answered.first, answered.count == 1 else {
            return XCTFail("expected one timer for the delayed answer, got \(answered)")
        }
        XCTAssertEqual(after, 5)
        let reset = feed(session, .rstStream(streamID: 1, .cancel))
        guard case .cancelTimer(let cancelled)? = reset.first else { return XCTFail("expected the timer cancelled, got \(reset)") }
        XCTAssertEqual(cancelled, timer)
        XCTAssertEqual(completions(reset).map(\.1), [.abandoned])
        XCTAssertEqual(output(session), [], "a peer's RST_STREAM is not answered")
        // The timer firing late finds no stream.
        XCTAssertTrue(queued(session) { session.timerFired(.delayed(streamID: 1, .respond(HTTPResponse(status: 200))), now: 0, pendingWriteBytes: 0) }.isEmpty)
        XCTAssertEqual(output(session), [])
    }

    func testGracefulGoAwayClosesOnceTheLastStreamIsAnswered() throws {
        let session = openSession()
        XCTAssertTrue(armsReadTimeout(feed(session, headers(1, method: "POST", endStream: false))))
        XCTAssertTrue(queued(session) { session.closeGracefully(errorCode: .noError, debugData: []) }.isEmpty)
        XCTAssertEqual(output(session).compactMap(\.goAwayInfo?.last), [1])
        XCTAssertEqual(session.phase, .active, "stream 1 is still open")

        // A stream above the GOAWAY's last-stream-id is refused without a frame.
        let refused = feed(session, headers(3))
        guard case .streamRefused(.goAway, let head)? = refused.first else { return XCTFail("expected a refusal, got \(refused)") }
        XCTAssertEqual(head.info.streamID, 3)

        _ = try XCTUnwrap(delivered(session, feed(session, .data(streamID: 1, Array("x".utf8), endStream: true))))
        let answered = queued(session) { session.respond(to: 1, with: .respond(HTTPResponse(status: 204))) }
        XCTAssertEqual(completions(answered).map(\.1), [.completed])
        XCTAssertTrue(closes(answered), "expected the connection closed, got \(answered)")
        XCTAssertEqual(session.phase, .closed)
        XCTAssertEqual(output(session).map(\.type), [.headers])
        XCTAssertTrue(feed(session, headers(5)).isEmpty, "nothing is read once closed")
    }

    func testConnectionErrorIsGoAwayThenClose() {
        let session = openSession()
        let actions = feed(session, .data(streamID: 7, [1], endStream: true))
        XCTAssertTrue(closes(actions), "expected the connection closed, got \(actions)")
        let frames = output(session)
        XCTAssertEqual(frames.count, 1)
        XCTAssertEqual(frames.first?.goAwayInfo?.code, .protocolError)
        XCTAssertEqual(frames.first?.goAwayInfo?.last, 0)
        XCTAssertEqual(session.phase, .closed)
    }

    func testLimitRefusalWaitsForTheResponderAnswer() throws {
        var limits = ServerLimits()
        limits.maxBodySize = 4
        let session = openSession(limits: limits)
        XCTAssertTrue(armsReadTimeout(feed(session, headers(1, method: "POST", endStream: false))))
        let actions = feed(session, .data(streamID: 1, Array("too long".utf8), endStream: false))
        guard case .limitExceeded(let violation, let head)? = actions.last else { return XCTFail("expected a limit question, got \(actions)") }
        XCTAssertEqual(violation.kind, .bodyTooLarge)
        XCTAssertEqual(head.info.streamID, 1)
        // No answer from the responder: the stream is reset.
        let answered = queued(session) { session.answerLimit(streamID: 1, response: nil) }
        XCTAssertEqual(completions(answered).map(\.1), [.reset])
        XCTAssertEqual(output(session).compactMap(\.rstCode), [.cancel])
    }

    /// Through the adapter: a peer that reads nothing and sends a request between its PINGs
    /// (each request waits for the responder, then the turn goes on) still gets GOAWAY
    /// ENHANCE_YOUR_CALM once more than `maxOwedAcks` acknowledgements are queued.
    func testUnreadAcknowledgementsWithRequestsBetweenThemGetEnhanceYourCalm() {
        var limits = ServerLimits()
        limits.maxOwedAcks = 100
        limits.maxFramesPerTurn = 16
        let c = H2TestClient(limits: limits)
        c.handshake()
        c.io.pendingWriteBytes = 1
        var stream: UInt32 = 1
        for round in 0..<5 where !c.io.closed {
            var frames: [HTTP2Frame] = (0..<40).map { .ping(UInt64(round * 1000 + $0)) }
            frames.append(c.headersFrame(stream, H2TestClient.requestFields()))
            stream += 2
            c.send(frames)
            c.io.advance(by: 0)
        }
        XCTAssertEqual(c.readFrames().compactMap(\.goAwayInfo).first?.code, .enhanceYourCalm)
        XCTAssertTrue(c.io.closed)
        XCTAssertEqual(c.responder.requests.count, 2, "the third request comes after the 100th acknowledgement")
    }
}
