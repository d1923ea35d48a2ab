import Foundation
import XCTest
@testable import PushDoubleTransport

/// The HTTP/2 side of fairness and flood limits (docs/transport.md "Fairness and floods"), through a fake ``ConnectionIO``: the per-turn frame budget,
/// the cheap-frame guard and the header-block caps. The latency effect over real sockets
/// is in ``RuntimeFloodTests``.
final class HTTP2FloodTests: XCTestCase {
    private func pings(_ n: Int, from first: UInt64 = 0) -> [HTTP2Frame] {
        (0..<UInt64(n)).map { .ping(first + $0) }
    }

    private func pingAcks(_ frames: [HTTP2Frame]) -> Int {
        frames.filter { if case .ping = $0.payload { return $0.isAck }; return false }.count
    }

    private func goAway(_ frames: [HTTP2Frame]) -> HTTP2ErrorCode? { frames.compactMap(\.goAwayInfo).first?.code }

    private func client(_ configure: (inout ServerLimits) -> Void = { _ in }) -> H2TestClient {
        var limits = ServerLimits()
        configure(&limits)
        return H2TestClient(responder: TestResponder { _, _ in .respond(HTTPResponse(status: 200)) }, limits: limits)
    }

    // MARK: Frame budget per turn

    func testFramesBeyondTheTurnBudgetWaitForTheNextTurnWithReadingPaused() {
        let c = client { $0.maxFramesPerTurn = 100 }
        c.handshake()
        c.send(pings(250))
        XCTAssertEqual(pingAcks(c.readFrames()), 100, "one turn handles the budget")
        XCTAssertTrue(c.io.paused, "the backlog pauses reading: nothing more is read until it is handled")
        XCTAssertEqual(c.io.timerCount, 2, "the idle timer and the next turn, due at once")
        // The fake clock also runs timers the due ones schedule, so this is the next two turns.
        c.io.advance(by: 0)
        XCTAssertEqual(pingAcks(c.readFrames()), 150)
        XCTAssertFalse(c.io.paused, "backlog handled: reading resumes")
        XCTAssertEqual(c.io.timerCount, 1, "only the idle timer is left")
    }

    func testAPartialFrameLeftAtTheBudgetDoesNotPauseReading() {
        let c = client { $0.maxFramesPerTurn = 3 }
        c.handshake()
        var bytes: [UInt8] = []
        for f in pings(3) { c.encoder.encode(f, into: &bytes) }
        var fourth: [UInt8] = []
        c.encoder.encode(.ping(9), into: &fourth)
        c.sendRaw(bytes + fourth.prefix(10))
        XCTAssertEqual(pingAcks(c.readFrames()), 3)
        XCTAssertFalse(c.io.paused, "only half a frame is left: more input is needed")
        c.sendRaw(Array(fourth.dropFirst(10)))
        XCTAssertEqual(pingAcks(c.readFrames()), 1)
    }

    func testOutputBackPressureAndBacklogPauseIndependently() {
        let c = client { $0.maxFramesPerTurn = 10; $0.maxBufferedOutput = 100 }
        c.handshake()
        c.io.pendingWriteBytes = 1000
        c.send(pings(15))
        XCTAssertTrue(c.io.paused)
        c.io.advance(by: 0)
        XCTAssertEqual(pingAcks(c.readFrames()), 15)
        XCTAssertTrue(c.io.paused, "backlog gone, output still over the limit")
        c.io.pendingWriteBytes = 0
        c.connection.writeBufferDrained()
        XCTAssertFalse(c.io.paused)
    }

    // MARK: Owed acknowledgements (nghttp2's max outbound ACK)

    /// A peer that does not read its PING ACKs: once more than `maxOwedAcks` are queued while
    /// the output is not fully written, GOAWAY ENHANCE_YOUR_CALM (docs/http2.md "Floods").
    func testUnreadPingAcksGetEnhanceYourCalm() {
        let c = client { $0.maxOwedAcks = 100; $0.maxCheapFrames = 1_000_000 }
        c.handshake()  // the SETTINGS ACK is owed too
        c.io.pendingWriteBytes = 1          // the peer reads nothing: output never drains
        c.send(pings(99))
        XCTAssertNil(goAway(c.readFrames()), "100 owed acknowledgements are tolerated")
        c.send(pings(1, from: 500))
        let f = c.readFrames()
        XCTAssertEqual(goAway(f), .enhanceYourCalm)
        XCTAssertEqual(f.compactMap(\.goAwayInfo).first?.debug,
                       "more than 100 PING/SETTINGS acknowledgements queued while the peer does not read them")
        XCTAssertTrue(c.io.closed)
    }

    /// A peer that reads: its output drains between turns, so any number of PINGs is fine.
    func testAcknowledgementsThatAreWrittenAreNotOwed() {
        let c = client { $0.maxOwedAcks = 100; $0.maxCheapFrames = 1_000_000 }
        c.handshake()
        for round in 0..<10 {
            c.send(pings(90, from: UInt64(round) * 1000))
            XCTAssertEqual(pingAcks(c.readFrames()), 90)
            c.io.pendingWriteBytes = 0      // written by the time the next turn starts
        }
        XCTAssertNil(goAway(c.readFrames()))
        XCTAssertFalse(c.io.closed)
    }

    // MARK: Cheap frames

    func testCheapFramesWithoutProgressGetEnhanceYourCalm() {
        let c = client { $0.maxCheapFrames = 50 }
        c.handshake()  // its SETTINGS and SETTINGS ACK count as two
        c.send(pings(29))
        c.send(Array(repeating: HTTP2Frame(streamID: 1, payload: .priority(HTTP2PriorityData())), count: 19))
        XCTAssertNil(goAway(c.readFrames()), "50 cheap frames are tolerated")
        c.send(HTTP2Frame(streamID: 0, payload: .unknown(type: 0xfa, bytes: [])))
        let f = c.readFrames()
        XCTAssertEqual(goAway(f), .enhanceYourCalm)
        XCTAssertTrue(c.io.closed)
    }

    func testEmptyDataFramesAreCheap() {
        let c = client { $0.maxCheapFrames = 20 }
        c.handshake()
        c.send(c.headersFrame(1, H2TestClient.requestFields(method: "POST"), endStream: false))
        c.send(Array(repeating: HTTP2Frame.data(streamID: 1, []), count: 30))
        XCTAssertEqual(goAway(c.readFrames()), .enhanceYourCalm)
    }

    /// Rapid reset (CVE-2023-44487): streams opened and cancelled before their request
    /// completes are cheap frames too.
    func testRapidResetGetsEnhanceYourCalm() {
        let c = client { $0.maxCheapFrames = 40 }
        c.handshake()  // its SETTINGS and SETTINGS ACK count as two
        var frames: [HTTP2Frame] = []
        for i in 0..<39 {
            let id = UInt32(2 * i + 1)
            frames.append(c.headersFrame(id, H2TestClient.requestFields(method: "POST"), endStream: false))
            frames.append(HTTP2Frame(streamID: id, payload: .rstStream(.cancel)))
        }
        c.send(frames)
        XCTAssertEqual(goAway(c.readFrames()), .enhanceYourCalm)
        XCTAssertTrue(c.responder.requests.isEmpty, "no request completed")
    }

    func testACompletedRequestStartsTheCountAgain() {
        let c = client { $0.maxCheapFrames = 50 }
        c.handshake()
        for round in 0..<5 {
            c.send(pings(45, from: UInt64(round) * 100))
            c.request(UInt32(2 * round + 1))
        }
        let f = c.readFrames()
        XCTAssertNil(goAway(f), "225 cheap frames, but never more than 50 between completed requests")
        XCTAssertEqual(c.responder.requests.count, 5)
    }

    func testTheCountStartsAgainAfterTheWindow() {
        let c = client { $0.maxCheapFrames = 50; $0.cheapFrameWindow = 10 }
        c.handshake()
        c.send(pings(45))
        c.io.advance(by: 10)
        c.send(pings(45, from: 100))
        XCTAssertNil(goAway(c.readFrames()))
        c.send(pings(10, from: 200))
        XCTAssertEqual(goAway(c.readFrames()), .enhanceYourCalm)
    }

    func testFloodGuardCounts() {
        var g = HTTP2FloodGuard(limit: 2, window: 1, now: 0)
        XCTAssertTrue(g.admit(at: 1))
        XCTAssertTrue(g.admit(at: 2))
        XCTAssertFalse(g.admit(at: 3))
        XCTAssertTrue(g.admit(at: 1_000_000_000), "a new window")
        g.progress(at: 1_000_000_001)
        XCTAssertTrue(g.admit(at: 1_000_000_002))
        XCTAssertTrue(g.admit(at: 1_000_000_003))
        XCTAssertFalse(g.admit(at: 1_000_000_004))
    }

    // MARK: Header blocks

    func testEmptyContinuationFloodHitsTheFrameCap() {
        let c = client { $0.maxHeaderBlockFrames = 64 }
        c.handshake()
        let block = c.headerBlock(H2TestClient.requestFields())
        c.send(.headers(streamID: 1, fragment: block, endStream: true, endHeaders: false))
        c.send(Array(repeating: HTTP2Frame(streamID: 1, payload: .continuation([])), count: 63))
        XCTAssertNil(goAway(c.readFrames()), "64 frames in one block are allowed")
        c.send(HTTP2Frame(streamID: 1, payload: .continuation([])))
        let f = c.readFrames()
        XCTAssertEqual(goAway(f), .enhanceYourCalm)
        XCTAssertEqual(f.compactMap(\.goAwayInfo).first?.debug, "header block in more than 64 frames")
    }

    func testContinuationFrameHeadersCountAgainstTheBlockSize() {
        // maxHeaderListSize 1024: the block may be max(2 × 1024, 64 KiB) = 65536 octets.
        let c = client { $0.maxHeaderListSize = 1024; $0.maxHeaderBlockFrames = .max; $0.maxCheapFrames = .max }
        c.handshake()
        let block = c.headerBlock(H2TestClient.requestFields())
        c.send(.headers(streamID: 1, fragment: block, endStream: true, endHeaders: false))
        let room = (65536 - 9 - block.count) / 9
        c.send(Array(repeating: HTTP2Frame(streamID: 1, payload: .continuation([])), count: room))
        c.io.advance(by: 0)  // more frames than one turn handles
        XCTAssertNil(goAway(c.readFrames()), "\(room) empty CONTINUATION frames fit in 64 KiB")
        c.send(HTTP2Frame(streamID: 1, payload: .continuation([])))
        XCTAssertEqual(goAway(c.readFrames()), .enhanceYourCalm)
    }

    func testABlockWithinTheCapsStillWorks() {
        let c = client { $0.maxHeaderBlockFrames = 3 }
        c.handshake()
        let block = c.headerBlock(H2TestClient.requestFields())
        let third = block.count / 3
        c.send(.headers(streamID: 1, fragment: Array(block[..<third]), endStream: true, endHeaders: false),
               HTTP2Frame(streamID: 1, payload: .continuation(Array(block[third..<(2 * third)]))),
               HTTP2Frame(streamID: 1, flags: .endHeaders, payload: .continuation(Array(block[(2 * third)...]))))
        let f = c.readFrames()
        XCTAssertNil(goAway(f))
        XCTAssertEqual(f.first?.type, .headers)
    }
}
