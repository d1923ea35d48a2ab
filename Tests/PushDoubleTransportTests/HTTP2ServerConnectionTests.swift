import Foundation
import XCTest
import PushDoubleTestSupport
import PushDoubleHPACK
@testable import PushDoubleTransport

/// The HTTP/2 server connection driven frame by frame through a fake ConnectionIO.
final class HTTP2ServerConnectionTests: XCTestCase {

    // MARK: Helpers

    private func assertGoAway(_ frames: [HTTP2Frame], _ code: HTTP2ErrorCode, last: UInt32? = nil,
                              _ c: H2TestClient, file: StaticString = #filePath, line: UInt = #line) {
        guard let g = frames.compactMap(\.goAwayInfo).first else {
            return XCTFail("no GOAWAY in \(frames.map(\.type))", file: file, line: line)
        }
        XCTAssertEqual(g.code, code, g.debug, file: file, line: line)
        if let last { XCTAssertEqual(g.last, last, file: file, line: line) }
        XCTAssertTrue(c.io.closed || c.io.aborted, "connection closed after GOAWAY", file: file, line: line)
    }

    private func assertRst(_ frames: [HTTP2Frame], stream: UInt32, _ code: HTTP2ErrorCode,
                           file: StaticString = #filePath, line: UInt = #line) {
        let rst = frames.first { $0.type == .rstStream && $0.streamID == stream }
        XCTAssertEqual(rst?.rstCode, code, "frames: \(frames.map { "\($0.type)/\($0.streamID)" })", file: file, line: line)
    }

    /// The connection still answers a PING: its state stayed sane.
    private func assertAlive(_ c: H2TestClient, file: StaticString = #filePath, line: UInt = #line) {
        c.send(.ping(0xabcdef))
        XCTAssertEqual(c.readFrames(file: file, line: line), [.ping(0xabcdef, ack: true)], file: file, line: line)
        XCTAssertFalse(c.io.closed, file: file, line: line)
    }

    private func types(_ frames: [HTTP2Frame]) -> [HTTP2FrameType] { frames.map(\.type) }

    // MARK: Handshake

    func testServerSettingsAtStartAndAcks() {
        var config = HTTP2Configuration()
        config.initialMaxConcurrentStreams = 1
        config.connectionWindowSize = 1 << 20
        var limits = ServerLimits()
        limits.maxHeaderListSize = 8000
        let c = H2TestClient(configuration: config, limits: limits)
        c.connection.connectionStarted(initialBytes: [])
        let opening = c.readFrames()
        XCTAssertEqual(opening.first, .settings([
            HTTP2Setting(.headerTableSize, 4096), HTTP2Setting(.maxConcurrentStreams, 1),
            HTTP2Setting(.initialWindowSize, 65535), HTTP2Setting(.maxFrameSize, 16384),
            HTTP2Setting(.maxHeaderListSize, 8000),
        ]))
        XCTAssertEqual(opening.dropFirst().first, .windowUpdate(streamID: 0, increment: UInt32((1 << 20) - 65535)))
        var bytes = http2ClientPreface
        c.encoder.encode(.settings([HTTP2Setting(.initialWindowSize, 100)]), into: &bytes)
        c.sendRaw(bytes)
        XCTAssertEqual(c.readFrames(), [.settingsAck])
        XCTAssertEqual(c.io.writeCalls, 2, "one write per event")
    }

    func testPrefaceInInitialBytesAndSplitAcrossReads() {
        let c = H2TestClient()
        c.connection.connectionStarted(initialBytes: Array(http2ClientPreface.prefix(5)))
        XCTAssertFalse(c.io.closed)
        var rest = Array(http2ClientPreface.dropFirst(5))
        c.encoder.encode(.settings([]), into: &rest)
        c.sendRaw(rest)
        XCTAssertTrue(c.readFrames().contains(.settingsAck))
    }

    func testBadPrefaceIsGoAwayProtocolError() {
        let c = H2TestClient()
        c.connection.connectionStarted(initialBytes: [])
        _ = c.readFrames()
        c.sendRaw(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        assertGoAway(c.readFrames(), .protocolError, last: 0, c)
        XCTAssertTrue(c.responder.requests.isEmpty)
    }

    func testPingAckAndPriorityIgnoredAndUnknownFrameIgnored() {
        let c = H2TestClient()
        c.handshake()
        c.send(HTTP2Frame(streamID: 3, payload: .priority(HTTP2PriorityData(exclusive: false, dependency: 0, weight: 1))))
        c.send(HTTP2Frame(streamID: 0, payload: .unknown(type: 0x42, bytes: [1, 2, 3])))
        c.send(.ping(1, ack: true))
        XCTAssertEqual(c.readFrames(), [])
        assertAlive(c)
        // A PRIORITY on an idle stream does not open it: stream 1 may still be used.
        c.request(1)
        XCTAssertEqual(types(c.readFrames()), [.headers])
    }

    func testPriorityFramesAreCountedPerConnection() throws {
        let c = H2TestClient()
        c.handshake()
        c.request(1)
        XCTAssertEqual(c.responder.requests.last?.info.priorityFramesReceived, 0)
        c.send(HTTP2Frame(streamID: 3, payload: .priority(HTTP2PriorityData(exclusive: false, dependency: 0, weight: 16))))
        c.send(.headers(streamID: 3, fragment: c.headerBlock(H2TestClient.requestFields()), endStream: true,
                        priority: HTTP2PriorityData(exclusive: true, dependency: 0, weight: 200)))
        XCTAssertEqual(c.responder.requests.last?.info.streamID, 3)
        XCTAssertEqual(c.responder.requests.last?.info.priorityFramesReceived, 2, "one PRIORITY frame plus one HEADERS with priority fields")
        c.request(5)
        XCTAssertEqual(c.responder.requests.last?.info.priorityFramesReceived, 2, "a count for the connection so far")
    }

    // MARK: Requests

    func testRequestIsBuiltFromPseudoHeaders() throws {
        let c = H2TestClient()
        c.handshake()
        c.request(1, method: "POST", path: "/3/device/abc?x=1", extra: [("apns-topic", "com.example"), ("content-length", "3")], body: [1, 2, 3])
        let r = try XCTUnwrap(c.responder.requests.first)
        XCTAssertEqual(r.method, "POST")
        XCTAssertEqual(r.path, "/3/device/abc?x=1")
        XCTAssertEqual(r.scheme, "https")
        XCTAssertEqual(r.authority, "example.test")
        XCTAssertEqual(r.headers["apns-topic"], "com.example")
        XCTAssertEqual(r.body, [1, 2, 3])
        XCTAssertEqual(r.info.streamID, 1)
        XCTAssertEqual(r.info.version, .http2)
        XCTAssertEqual(r.info.connection, c.io.info)
        XCTAssertLessThanOrEqual(r.info.headReceivedAt, r.info.bodyReceivedAt)
    }

    func testAuthorityFallsBackToHost() throws {
        let c = H2TestClient()
        c.handshake()
        c.send(c.headersFrame(1, [(":method", "GET"), (":scheme", "https"), (":path", "/"), ("host", "h.example")]))
        XCTAssertEqual(c.responder.requests.first?.authority, "h.example")
    }

    func testHeadersWithContinuationAndPadding() throws {
        let c = H2TestClient()
        c.handshake()
        let block = c.headerBlock(H2TestClient.requestFields(method: "POST", extra: [("x-long", String(repeating: "v", count: 300))]))
        c.send(HTTP2Frame(streamID: 1, flags: [], payload: .headers(HTTP2HeadersPayload(fragment: Array(block.prefix(10)), priority: HTTP2PriorityData(dependency: 0, weight: 3), padding: 7))),
               HTTP2Frame(streamID: 1, flags: [], payload: .continuation(Array(block[10..<100]))),
               HTTP2Frame(streamID: 1, flags: .endHeaders, payload: .continuation(Array(block[100...]))),
               .data(streamID: 1, [9, 9], endStream: true, padding: 20))
        let r = try XCTUnwrap(c.responder.requests.first)
        XCTAssertEqual(r.headers["x-long"]?.count, 300)
        XCTAssertEqual(r.body, [9, 9])
    }

    func testTrailersAccepted() {
        let c = H2TestClient()
        c.handshake()
        c.send(c.headersFrame(1, H2TestClient.requestFields(method: "POST"), endStream: false),
               .data(streamID: 1, [1]),
               c.headersFrame(1, [("x-trailer", "1")], endStream: true))
        XCTAssertEqual(c.responder.requests.first?.body, [1])
        XCTAssertEqual(types(c.readFrames()), [.headers])
    }

    // MARK: Response framing

    func testAutomaticEmptyBodyIsSingleHeadersWithEndStream() {
        let c = H2TestClient(responder: TestResponder { _, _ in .respond(HTTPResponse(status: 200, headers: ["apns-id": "X"])) })
        c.handshake()
        c.request(1)
        let f = c.readFrames()
        XCTAssertEqual(types(f), [.headers])
        XCTAssertEqual(f[0].flags, [.endStream, .endHeaders])
        let h = c.decodeHeaders(f[0])
        XCTAssertEqual(h.map(\.0), [":status", "apns-id", "content-length"])
        XCTAssertEqual(h.map(\.1), ["200", "X", "0"])
        XCTAssertEqual(c.responder.completions.map(\.1), [.completed])
        XCTAssertEqual(c.connection.testsOnly_openStreamCount, 0)
    }

    func testAutomaticWithBody() {
        let body = Array(repeating: UInt8(ascii: "a"), count: 40000)
        let c = H2TestClient(responder: TestResponder { _, _ in .respond(HTTPResponse(status: 400, headers: ["Content-Type": "application/json"], body: body)) })
        c.handshake()
        c.request(1)
        let f = c.readFrames()
        XCTAssertEqual(types(f), [.headers, .data, .data, .data])
        XCTAssertEqual(f[0].flags, [.endHeaders])
        let h = c.decodeHeaders(f[0])
        XCTAssertEqual(h.first { $0.0 == "content-type" }?.1, "application/json", "names lowercased")
        XCTAssertEqual(h.first { $0.0 == "content-length" }?.1, "40000")
        XCTAssertEqual(f[1...].map { $0.dataBytes?.count }, [16384, 16384, 40000 - 32768])
        XCTAssertEqual(f[1...].map(\.endStream), [false, false, true])
    }

    /// §8.2.2: fields a responder written for HTTP/1.1 may set that HTTP/2 must not carry are
    /// dropped, in any case; the rest are lowercased and kept in order. A status or length
    /// outside the precomputed "0"…"599" is still written in decimal.
    func testConnectionSpecificResponseFieldsAreDropped() {
        let headers: HTTPHeaders = ["Connection": "close", "X-Keep": "1", "transfer-encoding": "chunked", "Keep-Alive": "5",
                                    "UPGRADE": "h2c", "proxy-connection": "x", "te": "trailers", "connectionx": "2"]
        let c = H2TestClient(responder: TestResponder { _, _ in .respond(HTTPResponse(status: 799, headers: headers, body: Array(repeating: 0x61, count: 600))) })
        c.handshake()
        c.request(1)
        let f = c.readFrames()
        let h = c.decodeHeaders(f[0])
        XCTAssertEqual(h.map(\.0), [":status", "x-keep", "te", "connectionx", "content-length"])
        XCTAssertEqual(h.map(\.1), ["799", "1", "trailers", "2", "600"])
    }

    func testConnectionSpecificNamesAreMatchedExactly() {
        func both(_ n: String) -> (Bool, Bool) {
            var m = n
            return (HTTPHeaders.isConnectionSpecific(n), m.withUTF8 { HTTPHeaders.isConnectionSpecific(utf8: $0) })
        }
        for n in HTTPHeaders.connectionSpecificNames { XCTAssertTrue(both(n) == (true, true), n) }
        for n in ["", "te", "connectionx", "keep-alivE", "upgrad", "transfer-encodinG", String(repeating: "u", count: 70),
                  "connectiom", "keep-alivf", "upgradf", "proxy-connectioN", "cpns-topic", "#onnection"] {
            XCTAssertTrue(both(n) == (false, false), n)
        }
        // The request head refuses each of them, whatever the list holds (RFC 9113 §8.2.2).
        for n in HTTPHeaders.connectionSpecificNames {
            var v = HTTP2RequestHeadValidator()
            XCTAssertFalse(v.add(name: n, value: "x"), n)
            XCTAssertEqual(v.failure, "connection-specific header field \(n)")
        }
    }

    func testHeadersOnly() {
        let c = H2TestClient(responder: TestResponder { _, _ in .respond(HTTPResponse(status: 200, headers: ["apns-id": "X"], framing: .headersOnly)) })
        c.handshake()
        c.request(1)
        let f = c.readFrames()
        XCTAssertEqual(types(f), [.headers])
        XCTAssertTrue(f[0].endStream)
        // Exactly the responder's fields: no content-length (APNs success is :status + apns-id).
        XCTAssertEqual(c.decodeHeaders(f[0]).map(\.0), [":status", "apns-id"])
    }

    func testSingleDataFrame() {
        var body: [UInt8] = []
        let c = H2TestClient(responder: TestResponder { _, _ in .respond(HTTPResponse(status: 200, body: body, framing: .singleDataFrame)) })
        c.handshake()
        c.request(1)
        var f = c.readFrames()
        XCTAssertEqual(types(f), [.headers, .data], "empty body still gets one DATA frame")
        XCTAssertEqual(f[1].dataBytes, [])
        XCTAssertTrue(f[1].endStream)
        XCTAssertFalse(f[0].endStream)
        body = Array(repeating: 1, count: 5000)
        c.request(3)
        f = c.readFrames()
        XCTAssertEqual(types(f), [.headers, .data])
        XCTAssertEqual(f[1].dataBytes?.count, 5000)
        XCTAssertTrue(f[1].endStream)
    }

    func testChunked() {
        let c = H2TestClient(responder: TestResponder { _, _ in .respond(HTTPResponse(status: 200, body: Array(repeating: 2, count: 25), framing: .chunked(maxChunk: 10))) })
        c.handshake()
        c.request(1)
        let f = c.readFrames()
        XCTAssertEqual(types(f), [.headers, .data, .data, .data])
        XCTAssertEqual(f[1...].map { $0.dataBytes?.count }, [10, 10, 5])
        XCTAssertFalse(c.decodeHeaders(f[0]).contains { $0.0 == "content-length" }, "chunked: no content-length")
    }

    func testResponderContentLengthKept() {
        let c = H2TestClient(responder: TestResponder { _, _ in .respond(HTTPResponse(status: 200, headers: ["content-length": "0"])) })
        c.handshake()
        c.request(1)
        let h = c.decodeHeaders(c.readFrames()[0])
        XCTAssertEqual(h.filter { $0.0 == "content-length" }.count, 1)
    }

    // MARK: Flow control

    func testTinyWindowSplitsAndResumesOnWindowUpdate() {
        let c = H2TestClient(responder: TestResponder { _, _ in .respond(HTTPResponse(status: 200, body: Array(repeating: 3, count: 25))) })
        c.handshake(settings: [HTTP2Setting(.initialWindowSize, 10)])
        c.request(1)
        var f = c.readFrames()
        XCTAssertEqual(types(f), [.headers, .data])
        XCTAssertEqual(f[1].dataBytes?.count, 10)
        c.send(.windowUpdate(streamID: 1, increment: 10))
        f = c.readFrames()
        XCTAssertEqual(f.map { $0.dataBytes?.count }, [10])
        XCTAssertFalse(f[0].endStream)
        c.send(.windowUpdate(streamID: 1, increment: 100))
        f = c.readFrames()
        XCTAssertEqual(f.map { $0.dataBytes?.count }, [5])
        XCTAssertTrue(f[0].endStream)
        XCTAssertEqual(c.responder.completions.map(\.1), [.completed])
    }

    func testSingleDataFrameSplitsAtWindowInsteadOfWaiting() {
        let c = H2TestClient(responder: TestResponder { _, _ in .respond(HTTPResponse(status: 200, body: Array(repeating: 3, count: 25), framing: .singleDataFrame)) })
        c.handshake(settings: [HTTP2Setting(.initialWindowSize, 10)])
        c.request(1)
        var f = c.readFrames()
        XCTAssertEqual(types(f), [.headers, .data])
        XCTAssertEqual(f[1].dataBytes?.count, 10, "a window smaller than the body gets a window-sized piece, not a stall")
        XCTAssertFalse(f[1].endStream)
        c.send(.windowUpdate(streamID: 1, increment: 100))
        f = c.readFrames()
        XCTAssertEqual(f.map { $0.dataBytes?.count }, [15])
        XCTAssertTrue(f[0].endStream)
    }

    func testSingleDataFrameZeroWindowOpenedBySettingsKeepsOneFrame() {
        let c = H2TestClient(responder: TestResponder { _, _ in .respond(HTTPResponse(status: 200, body: Array(repeating: 3, count: 25), framing: .singleDataFrame)) })
        c.handshake(settings: [HTTP2Setting(.initialWindowSize, 0)])
        c.request(1)
        XCTAssertEqual(types(c.readFrames()), [.headers])
        c.send(.settings([HTTP2Setting(.initialWindowSize, 25)]))
        let f = c.readFrames()
        XCTAssertEqual(f.first, .settingsAck)
        XCTAssertEqual(f.dropFirst().map { $0.dataBytes?.count }, [25], "the window now holds the body: one frame")
        XCTAssertTrue(f.last?.endStream ?? false)
    }

    func testLastInitialWindowSizeOfOneSettingsFrameApplies() {
        let c = H2TestClient(responder: TestResponder { _, _ in .respond(HTTPResponse(status: 200, body: Array(repeating: 3, count: 25))) })
        c.handshake(settings: [HTTP2Setting(.initialWindowSize, 100), HTTP2Setting(.initialWindowSize, 4)])
        c.request(1)
        XCTAssertEqual(c.readFrames().compactMap { $0.dataBytes?.count }, [4])
        // Window 0, stream at 4: 4 -> 2^31-1 -> 6 is a net +2, no overflow on the way.
        c.send(.settings([HTTP2Setting(.initialWindowSize, UInt32(HTTP2Limits.maxWindowSize)), HTTP2Setting(.initialWindowSize, 6)]))
        let f = c.readFrames()
        XCTAssertEqual(f.first, .settingsAck)
        XCTAssertEqual(f.compactMap { $0.dataBytes?.count }, [2])
        XCTAssertFalse(c.io.closed)
    }

    func testPrefaceMustBeFollowedBySettings() {
        let c = H2TestClient(responder: TestResponder { _, _ in .respond(HTTPResponse(status: 200)) })
        c.connection.connectionStarted(initialBytes: [])
        c.sendRaw(http2ClientPreface)
        c.send(.ping(7))
        let f = c.readFrames()
        XCTAssertEqual(f.last?.goAwayInfo?.code, .protocolError)
        XCTAssertFalse(f.contains { if case .ping = $0.payload { return true }; return false }, "the PING is not answered")
        XCTAssertTrue(c.io.closed)
    }

    func testConnectionWindowLimitsAllStreams() {
        let c = H2TestClient(responder: TestResponder { _, _ in .respond(HTTPResponse(status: 200, body: Array(repeating: 3, count: 40000))) })
        c.handshake()
        c.request(1)
        c.request(3)
        let f = c.readFrames()
        let sent = f.compactMap { $0.dataBytes?.count }.reduce(0, +)
        XCTAssertEqual(sent, 65535, "connection window is 65535 until the client updates it")
        c.send(.windowUpdate(streamID: 0, increment: 20000))
        let more = c.readFrames().compactMap { $0.dataBytes?.count }.reduce(0, +)
        XCTAssertEqual(more, 80000 - 65535)
    }

    func testInitialWindowSizeChangeMidStreamCanGoNegative() {
        let c = H2TestClient(responder: TestResponder { _, _ in .respond(HTTPResponse(status: 200, body: Array(repeating: 3, count: 30))) })
        c.handshake(settings: [HTTP2Setting(.initialWindowSize, 10)])
        c.request(1)
        XCTAssertEqual(c.readFrames().compactMap { $0.dataBytes?.count }, [10])
        // Window 0 → 10-20 = -10.
        c.send(.settings([HTTP2Setting(.initialWindowSize, 0)]))
        XCTAssertEqual(c.readFrames(), [.settingsAck])
        c.send(.windowUpdate(streamID: 1, increment: 15))
        XCTAssertEqual(c.readFrames().compactMap { $0.dataBytes?.count }, [5])
        // Raising INITIAL_WINDOW_SIZE grows the open stream's window.
        c.send(.settings([HTTP2Setting(.initialWindowSize, 100)]))
        let f = c.readFrames()
        XCTAssertEqual(f.compactMap { $0.dataBytes?.count }, [15])
        XCTAssertTrue(f.last?.endStream ?? false)
    }

    func testReceivedDataIsCreditedWithBatchedWindowUpdates() {
        var config = HTTP2Configuration()
        config.connectionWindowSize = 65535
        var limits = ServerLimits()
        limits.maxBodySize = 1 << 20
        let c = H2TestClient(responder: TestResponder { _, _ in .stall }, configuration: config, limits: limits)
        c.handshake()
        c.send(c.headersFrame(1, H2TestClient.requestFields(method: "POST"), endStream: false))
        c.send(.data(streamID: 1, Array(repeating: 0, count: 16000)))
        XCTAssertEqual(c.readFrames(), [], "below half the window: no update yet")
        c.send(.data(streamID: 1, Array(repeating: 0, count: 16000)), .data(streamID: 1, Array(repeating: 0, count: 1000)))
        let f = c.readFrames()
        XCTAssertEqual(Set(f), [.windowUpdate(streamID: 0, increment: 33000), .windowUpdate(streamID: 1, increment: 33000)])
    }

    func testConnectionWindowOverflowIsFlowControlError() {
        let c = H2TestClient()
        c.handshake()
        c.send(.windowUpdate(streamID: 0, increment: 0x7fff_ffff))
        assertGoAway(c.readFrames(), .flowControlError, c)
    }

    func testStreamWindowOverflowIsStreamError() {
        let c = H2TestClient(responder: TestResponder { _, _ in .stall })
        c.handshake()
        c.request(1)
        c.send(.windowUpdate(streamID: 1, increment: 0x7fff_ffff))
        assertRst(c.readFrames(), stream: 1, .flowControlError)
        assertAlive(c)
    }

    func testSettingsInitialWindowOverflowIsConnectionError() {
        let c = H2TestClient(responder: TestResponder { _, _ in .stall })
        c.handshake()
        c.request(1)
        c.send(.windowUpdate(streamID: 1, increment: 0x7fff_ffff - 65535))
        c.send(.settings([HTTP2Setting(.initialWindowSize, 65536)]))
        assertGoAway(c.readFrames(), .flowControlError, c)
    }

    func testClientExceedingOurWindowIsFlowControlError() {
        var config = HTTP2Configuration()
        config.initialWindowSize = 100
        let c = H2TestClient(responder: TestResponder { _, _ in .stall }, configuration: config)
        c.handshake()
        c.send(c.headersFrame(1, H2TestClient.requestFields(method: "POST"), endStream: false))
        c.send(.data(streamID: 1, Array(repeating: 0, count: 101)))
        assertRst(c.readFrames(), stream: 1, .flowControlError)
    }

    // MARK: Concurrency limit

    func testRefusedStreamPastTheLimit() {
        var config = HTTP2Configuration()
        config.initialMaxConcurrentStreams = 1
        let c = H2TestClient(responder: TestResponder { _, _ in .stall }, configuration: config)
        c.handshake()
        c.request(1)
        c.request(3)
        assertRst(c.readFrames(), stream: 3, .refusedStream)
        XCTAssertEqual(c.responder.requests.count, 1)
        // The refused stream is reported with its head (the history records it as an attempt).
        XCTAssertEqual(c.responder.refusals.map { $0.0 }, [.refusedStream])
        XCTAssertEqual(c.responder.refusals.first?.1.info.streamID, 3)
        XCTAssertEqual(c.responder.refusals.first?.1.path, c.responder.requests.first?.path)
        assertAlive(c)
    }

    /// A stream opened above the last-stream-id of the server's GOAWAY is ignored (RFC 9113
    /// §6.8) and reported to the responder as not processed.
    func testStreamsAboveGoAwayAreReportedUnprocessed() {
        let c = H2TestClient(responder: TestResponder { req, _ in
            req.info.streamID == 3 ? .goAway(lastStreamID: .thisStream, errorCode: .noError, debugData: [], then: nil) : .stall
        })
        c.handshake()
        c.send(c.headersFrame(1, H2TestClient.requestFields(method: "POST"), endStream: false))  // body still to come
        c.request(3)
        c.request(5)
        _ = c.readFrames()
        XCTAssertEqual(c.responder.refusals.map { $0.0 }, [.goAway], "stream 5 (above last-stream-id 3)")
        XCTAssertEqual(c.responder.refusals.map { $0.1.info.streamID }, [5])
    }

    func testUpdateSettingsRaisesLimitOnceAcked() {
        var config = HTTP2Configuration()
        config.initialMaxConcurrentStreams = 1
        let responder = TestResponder { req, ctx in
            if req.info.streamID == 1 { ctx.connection.updateSettings(maxConcurrentStreams: 1000) }
            return .stall
        }
        let c = H2TestClient(responder: responder, configuration: config)
        c.handshake()
        c.request(1)
        XCTAssertEqual(c.readFrames(), [.settings([HTTP2Setting(.maxConcurrentStreams, 1000)])])
        XCTAssertEqual(c.connection.testsOnly_maxConcurrentStreams, 1, "not before the ACK")
        c.request(3)
        assertRst(c.readFrames(), stream: 3, .refusedStream)
        c.send(.settingsAck)
        XCTAssertEqual(c.connection.testsOnly_maxConcurrentStreams, 1000)
        c.request(5)
        c.request(7)
        XCTAssertEqual(c.readFrames(), [])
        XCTAssertEqual(c.connection.testsOnly_openStreamCount, 3)
    }

    // MARK: Actions

    func testGoAwayBeforeThisStream() {
        let c = H2TestClient(responder: TestResponder { req, _ in
            req.info.streamID == 3
                ? .goAway(lastStreamID: .beforeThisStream, errorCode: .noError, debugData: Array("bye".utf8), then: nil)
                : .stall
        })
        c.handshake()
        c.request(1)
        c.request(3)
        let f = c.readFrames()
        XCTAssertEqual(f.compactMap(\.goAwayInfo).first?.last, 1)
        XCTAssertEqual(f.compactMap(\.goAwayInfo).first?.debug, "bye")
        XCTAssertFalse(c.io.closed, "stream 1 still open")
        // New streams are refused (ignored).
        c.request(5)
        XCTAssertEqual(c.responder.requests.count, 2)
        c.send(.rstStream(streamID: 1, .cancel))
        XCTAssertTrue(c.io.closed, "closes once streams at or below last-stream-id finish")
    }

    func testGoAwayThisStreamThenRespond() {
        let c = H2TestClient(responder: TestResponder { _, _ in
            .goAway(lastStreamID: .thisStream, errorCode: .enhanceYourCalm, debugData: [], then: .respond(HTTPResponse(status: 200)))
        })
        c.handshake()
        c.request(1)
        let f = c.readFrames()
        XCTAssertEqual(types(f), [.goAway, .headers])
        XCTAssertEqual(f[0].goAwayInfo?.last, 1)
        XCTAssertEqual(f[0].goAwayInfo?.code, .enhanceYourCalm)
        XCTAssertTrue(f[1].endStream)
        XCTAssertTrue(c.io.closed)
    }

    func testCloseGracefully() {
        let c = H2TestClient(responder: TestResponder { _, ctx in
            ctx.connection.closeGracefully(errorCode: .noError, debugData: Array("{\"reason\":\"x\"}".utf8))
            return .respond(HTTPResponse(status: 200))
        })
        c.handshake()
        c.request(1)
        let f = c.readFrames()
        XCTAssertEqual(types(f), [.goAway, .headers])
        XCTAssertEqual(f[0].goAwayInfo?.debug, "{\"reason\":\"x\"}")
        XCTAssertTrue(c.io.closed)
    }

    /// A call from the responder into the connection runs nested in the adapter's drain of the
    /// session's actions: its own actions are carried out there, the outer drain goes on with
    /// the frames read after the request, and the session's buffer ends empty.
    func testNestedCallFromTheResponderThenTheRestOfTheRead() {
        let c = H2TestClient(responder: TestResponder { req, ctx in
            if req.info.streamID == 1 { ctx.connection.updateSettings(maxConcurrentStreams: 7) }
            return .respond(HTTPResponse(status: 200))
        })
        c.handshake()
        c.send([c.headersFrame(1, H2TestClient.requestFields()), c.headersFrame(3, H2TestClient.requestFields())])
        let f = c.readFrames()
        XCTAssertEqual(types(f), [.settings, .headers, .headers])
        XCTAssertEqual(f[0], .settings([HTTP2Setting(.maxConcurrentStreams, 7)]))
        XCTAssertEqual(f.compactMap { $0.type == .headers ? $0.streamID : nil }, [1, 3])
        XCTAssertEqual(c.responder.requests.map(\.info.streamID), [1, 3])
        XCTAssertEqual(c.responder.completions.map(\.1), [.completed, .completed])
        XCTAssertTrue(c.connection.session.actions.isEmpty)
        assertAlive(c)
    }

    func testResetStreamAction() {
        let c = H2TestClient(responder: TestResponder { _, _ in .resetStream(.refusedStream) })
        c.handshake()
        c.request(1)
        assertRst(c.readFrames(), stream: 1, .refusedStream)
        XCTAssertEqual(c.responder.completions.map(\.1), [.reset])
        assertAlive(c)
    }

    func testDropConnection() {
        let c = H2TestClient(responder: TestResponder { _, _ in .dropConnection })
        c.handshake()
        c.request(1)
        XCTAssertTrue(c.io.aborted)
        XCTAssertEqual(c.readFrames(), [])
        XCTAssertEqual(c.responder.completions.map(\.1), [.connectionDropped])
    }

    func testDelayed() {
        let c = H2TestClient(responder: TestResponder { _, _ in .delayed(seconds: 2, then: .respond(HTTPResponse(status: 202))) })
        c.handshake()
        c.request(1)
        XCTAssertEqual(c.readFrames(), [])
        c.io.advance(by: 1.9)
        XCTAssertEqual(c.readFrames(), [])
        c.io.advance(by: 0.2)
        let f = c.readFrames()
        XCTAssertEqual(types(f), [.headers])
        XCTAssertEqual(c.decodeHeaders(f[0]).first?.1, "202")
    }

    func testDelayedCancelledByClientReset() {
        let c = H2TestClient(responder: TestResponder { _, _ in .delayed(seconds: 2, then: .respond(HTTPResponse(status: 202))) })
        c.handshake()
        c.request(1)
        c.send(.rstStream(streamID: 1, .cancel))
        c.io.advance(by: 3)
        XCTAssertEqual(c.readFrames(), [])
        XCTAssertEqual(c.responder.completions.map(\.1), [.abandoned])
    }

    func testDribble() {
        let c = H2TestClient(responder: TestResponder { _, _ in .dribble(HTTPResponse(status: 200, body: Array(repeating: 1, count: 10)), chunkSize: 4, interval: 1) })
        c.handshake()
        c.request(1)
        XCTAssertEqual(types(c.readFrames()), [.headers])
        var sizes: [Int] = []
        for _ in 0..<3 {
            c.io.advance(by: 1)
            sizes += c.readFrames().compactMap { $0.dataBytes?.count }
        }
        XCTAssertEqual(sizes, [4, 4, 2])
        XCTAssertEqual(c.responder.completions.map(\.1), [.completed])
    }

    func testTruncate() {
        let c = H2TestClient(responder: TestResponder { _, _ in .truncate(HTTPResponse(status: 200, body: Array(repeating: 1, count: 100)), bodyBytes: 30) })
        c.handshake()
        c.request(1)
        let f = c.readFrames()
        XCTAssertEqual(types(f), [.headers, .data])
        XCTAssertEqual(c.decodeHeaders(f[0]).first { $0.0 == "content-length" }?.1, "100")
        XCTAssertEqual(f[1].dataBytes?.count, 30)
        XCTAssertFalse(f[1].endStream)
        XCTAssertFalse(c.io.aborted, "aborts only after the partial body is written")
        c.io.advance(by: 0.01)
        XCTAssertTrue(c.io.aborted)
    }

    func testStreamSink() {
        final class Source: ResponseBodySource, @unchecked Sendable {
            var sink: ResponseBodySink?
            func start(_ sink: ResponseBodySink) { self.sink = sink }
        }
        let source = Source()
        let c = H2TestClient(responder: TestResponder { _, _ in .stream(HTTPResponse(status: 200, headers: ["content-type": "text/event-stream"]), source: source) })
        c.handshake()
        c.request(1)
        let head = c.readFrames()
        XCTAssertEqual(types(head), [.headers])
        XCTAssertFalse(head[0].endStream)
        let sink = try! XCTUnwrap(source.sink)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            sink.write(Array("data: 1\n\n".utf8))
            sink.write(Array("data: 2\n\n".utf8))
            sink.finish()
            done.signal()
        }
        done.wait()
        c.io.executor.drain()
        let f = c.readFrames()
        XCTAssertEqual(f.compactMap(\.dataBytes).map { String(decoding: $0, as: UTF8.self) }, ["data: 1\n\n", "data: 2\n\n", ""])
        XCTAssertTrue(f.last?.endStream ?? false)
        XCTAssertTrue(sink.isClosed)
    }

    func testStreamSinkClosedWhenPeerResets() {
        final class Source: ResponseBodySource, @unchecked Sendable {
            var sink: ResponseBodySink?
            var closedCalls = 0
            func start(_ sink: ResponseBodySink) { self.sink = sink; sink.onClose { [self] in closedCalls += 1 } }
        }
        let source = Source()
        let c = H2TestClient(responder: TestResponder { _, _ in .stream(HTTPResponse(status: 200), source: source) })
        c.handshake()
        c.request(1)
        c.send(.rstStream(streamID: 1, .cancel))
        XCTAssertEqual(source.closedCalls, 1)
        XCTAssertTrue(source.sink?.isClosed ?? false)
        source.sink?.write([1])
        c.io.executor.drain()
        _ = c.readFrames()
        XCTAssertEqual(c.readFrames(), [])
    }

    // MARK: Malformed input

    func testFrameLargerThanMaxFrameSize() {
        let c = H2TestClient()
        c.handshake()
        c.send(.data(streamID: 1, Array(repeating: 0, count: 16385)))
        assertGoAway(c.readFrames(), .frameSizeError, c)
    }

    func testInvalidHPACKIndexIsCompressionError() {
        let c = H2TestClient()
        c.handshake()
        c.send(.headers(streamID: 1, fragment: [0xff, 0x7f], endStream: true)) // index 190
        assertGoAway(c.readFrames(), .compressionError, c)
    }

    func testEvenStreamID() {
        let c = H2TestClient()
        c.handshake()
        c.request(2)
        assertGoAway(c.readFrames(), .protocolError, c)
    }

    func testLowerStreamIDNeverUsedIsProtocolError() {
        let c = H2TestClient(responder: TestResponder { _, _ in .stall })
        c.handshake()
        c.request(5)
        c.request(3)
        assertGoAway(c.readFrames(), .protocolError, last: 5, c)
    }

    func testStreamIDReuseIsStreamClosed() {
        let c = H2TestClient()
        c.handshake()
        c.request(1)
        _ = c.readFrames()
        c.request(1)
        assertGoAway(c.readFrames(), .streamClosed, c)
    }

    func testDataOnClosedStream() {
        let c = H2TestClient()
        c.handshake()
        c.request(1)
        _ = c.readFrames()
        c.send(.data(streamID: 1, [1], endStream: true))
        assertRst(c.readFrames(), stream: 1, .streamClosed)
        assertAlive(c)
    }

    func testDataOnIdleStream() {
        let c = H2TestClient()
        c.handshake()
        c.send(.data(streamID: 1, [1]))
        assertGoAway(c.readFrames(), .protocolError, c)
    }

    func testFramesAfterOurResetAreIgnored() {
        let c = H2TestClient(responder: TestResponder { _, _ in .resetStream(.cancel) })
        c.handshake()
        c.send(c.headersFrame(1, H2TestClient.requestFields(method: "POST", extra: [("content-length", "0")]), endStream: true))
        _ = c.readFrames()
        c.send(.data(streamID: 1, [1]))
        XCTAssertEqual(c.readFrames(), [])
        assertAlive(c)
    }

    func testHeadersOnHalfClosedRemoteIsStreamClosed() {
        let c = H2TestClient(responder: TestResponder { _, _ in .stall })
        c.handshake()
        c.request(1)
        c.send(c.headersFrame(1, [("x", "y")], endStream: true))
        assertRst(c.readFrames(), stream: 1, .streamClosed)
        assertAlive(c)
    }

    func testDataOnHalfClosedRemoteIsStreamClosed() {
        let c = H2TestClient(responder: TestResponder { _, _ in .stall })
        c.handshake()
        c.request(1)
        c.send(.data(streamID: 1, [1]))
        assertRst(c.readFrames(), stream: 1, .streamClosed)
    }

    func testContinuationInterleavingIsProtocolError() {
        let c = H2TestClient()
        c.handshake()
        let block = c.headerBlock(H2TestClient.requestFields())
        c.send(.headers(streamID: 1, fragment: Array(block.prefix(3)), endStream: true, endHeaders: false))
        c.send(.ping(1))
        assertGoAway(c.readFrames(), .protocolError, c)
        XCTAssertTrue(c.responder.requests.isEmpty)
    }

    func testContinuationOnOtherStreamIsProtocolError() {
        let c = H2TestClient()
        c.handshake()
        let block = c.headerBlock(H2TestClient.requestFields())
        c.send(.headers(streamID: 1, fragment: Array(block.prefix(3)), endStream: true, endHeaders: false),
               HTTP2Frame(streamID: 3, flags: .endHeaders, payload: .continuation(Array(block.dropFirst(3)))))
        assertGoAway(c.readFrames(), .protocolError, c)
    }

    func testContinuationWithoutHeaders() {
        let c = H2TestClient()
        c.handshake()
        c.send(HTTP2Frame(streamID: 1, flags: .endHeaders, payload: .continuation([0x82])))
        assertGoAway(c.readFrames(), .protocolError, c)
    }

    func testPushPromiseFromClient() {
        let c = H2TestClient()
        c.handshake()
        c.send(HTTP2Frame(streamID: 1, flags: .endHeaders, payload: .pushPromise(promisedStreamID: 2, fragment: [0x82], padding: nil)))
        assertGoAway(c.readFrames(), .protocolError, c)
    }

    func testRstStreamOnIdle() {
        let c = H2TestClient()
        c.handshake()
        c.send(.rstStream(streamID: 1, .cancel))
        assertGoAway(c.readFrames(), .protocolError, c)
    }

    func testWindowUpdateOnIdle() {
        let c = H2TestClient()
        c.handshake()
        c.send(.windowUpdate(streamID: 1, increment: 1))
        assertGoAway(c.readFrames(), .protocolError, c)
    }

    func testMalformedRequestsAreStreamProtocolErrors() {
        let cases: [(String, [(String, String)])] = [
            ("uppercase name", H2TestClient.requestFields(extra: [("X-Upper", "1")])),
            ("missing :path", [(":method", "GET"), (":scheme", "https")]),
            ("missing :method", [(":path", "/"), (":scheme", "https")]),
            ("missing :scheme", [(":method", "GET"), (":path", "/")]),
            ("duplicate :path", H2TestClient.requestFields(extra: []) + [(":path", "/x")]),
            ("pseudo after regular", [(":method", "GET"), ("x", "1"), (":scheme", "https"), (":path", "/")]),
            ("unknown pseudo", H2TestClient.requestFields() + [(":status", "200")]),
            ("connection header", H2TestClient.requestFields(extra: [("connection", "keep-alive")])),
            ("transfer-encoding", H2TestClient.requestFields(extra: [("transfer-encoding", "chunked")])),
            ("te gzip", H2TestClient.requestFields(extra: [("te", "gzip")])),
            ("empty path", [(":method", "GET"), (":scheme", "https"), (":path", "")]),
            ("content-length with no body", H2TestClient.requestFields(extra: [("content-length", "5")])),
        ]
        for (name, fields) in cases {
            let c = H2TestClient()
            c.handshake()
            c.send(c.headersFrame(1, fields))
            let f = c.readFrames()
            XCTAssertEqual(f.first?.rstCode, .protocolError, name)
            XCTAssertTrue(c.responder.requests.isEmpty, name)
            c.send(.ping(1))
            XCTAssertEqual(c.readFrames(), [.ping(1, ack: true)], name)
        }
    }

    func testTeTrailersAllowed() {
        let c = H2TestClient()
        c.handshake()
        c.request(1, extra: [("te", "trailers")])
        XCTAssertEqual(c.responder.requests.count, 1)
    }

    func testContentLengthMismatch() {
        let c = H2TestClient()
        c.handshake()
        c.request(1, method: "POST", extra: [("content-length", "2")], body: [1, 2, 3])
        assertRst(c.readFrames(), stream: 1, .protocolError)
        c.request(3, method: "POST", extra: [("content-length", "4")], body: [1, 2, 3])
        assertRst(c.readFrames(), stream: 3, .protocolError)
        XCTAssertTrue(c.responder.requests.isEmpty)
    }

    func testHeaderListOverLimitGets431() {
        var limits = ServerLimits()
        limits.maxHeaderListSize = 200
        let c = H2TestClient(limits: limits)
        c.handshake()
        c.request(1, extra: [("x-big", String(repeating: "a", count: 300))])
        let f = c.readFrames()
        XCTAssertEqual(types(f), [.headers, .data])
        XCTAssertEqual(c.decodeHeaders(f[0]).first?.1, "431")
        XCTAssertEqual(c.responder.violations.map(\.kind), [.headerListTooLarge])
        // HPACK stays in sync: the next request decodes fine.
        c.request(3)
        XCTAssertEqual(c.responder.requests.map(\.info.streamID), [3])
    }

    func testHeaderListOverLimitResetWhenResponderDeclines() {
        var limits = ServerLimits()
        limits.maxHeaderListSize = 200
        let c = H2TestClient(limits: limits)
        c.responder.limitResponse = false
        c.handshake()
        c.request(1, extra: [("x-big", String(repeating: "a", count: 300))])
        assertRst(c.readFrames(), stream: 1, .cancel)
    }

    func testBodyOverLimitGets413ThenResetNoError() {
        var limits = ServerLimits()
        limits.maxBodySize = 100
        let c = H2TestClient(limits: limits)
        c.handshake()
        c.send(c.headersFrame(1, H2TestClient.requestFields(method: "POST"), endStream: false))
        c.send(.data(streamID: 1, Array(repeating: 0, count: 101)))
        let f = c.readFrames()
        XCTAssertEqual(types(f), [.headers, .data, .rstStream])
        XCTAssertEqual(c.decodeHeaders(f[0]).first?.1, "413")
        XCTAssertEqual(f[2].rstCode, .noError)
        XCTAssertTrue(c.responder.requests.isEmpty)
        // Late DATA on the reset stream is ignored.
        c.send(.data(streamID: 1, [1], endStream: true))
        XCTAssertEqual(c.readFrames(), [])
        assertAlive(c)
    }

    func testDeclaredContentLengthOverLimitRefusedAtOnce() {
        var limits = ServerLimits()
        limits.maxBodySize = 100
        let c = H2TestClient(limits: limits)
        c.handshake()
        c.send(c.headersFrame(1, H2TestClient.requestFields(method: "POST", extra: [("content-length", "5000")]), endStream: false))
        let f = c.readFrames()
        XCTAssertEqual(c.decodeHeaders(f[0]).first?.1, "413")
        XCTAssertEqual(f.last?.rstCode, .noError)
    }

    func testHugeHeaderBlockIsEnhanceYourCalm() {
        var limits = ServerLimits()
        limits.maxHeaderListSize = 1000
        let c = H2TestClient(limits: limits)
        c.handshake()
        c.send(.headers(streamID: 1, fragment: Array(repeating: 0x82, count: 16000), endStream: true, endHeaders: false))
        for _ in 0..<5 { c.send(HTTP2Frame(streamID: 1, payload: .continuation(Array(repeating: 0x82, count: 16000)))) }
        assertGoAway(c.readFrames(), .enhanceYourCalm, c)
    }

    func testPeerGoAwayClosesWhenStreamsDone() {
        let c = H2TestClient(responder: TestResponder { _, _ in .delayed(seconds: 1, then: .respond(HTTPResponse(status: 200))) })
        c.handshake()
        c.request(1)
        c.send(.goAway(lastStreamID: 0, errorCode: .noError))
        XCTAssertFalse(c.io.closed)
        c.io.advance(by: 1)
        XCTAssertEqual(types(c.readFrames()), [.headers])
        XCTAssertTrue(c.io.closed)
    }

    // MARK: Timeouts

    func testIdleTimeoutSendsGoAwayNoError() {
        var limits = ServerLimits()
        limits.idleTimeout = 10
        let c = H2TestClient(limits: limits)
        c.handshake()
        c.request(1)
        _ = c.readFrames()
        c.io.advance(by: 9)
        XCTAssertFalse(c.io.closed)
        c.io.advance(by: 2)
        let f = c.readFrames()
        XCTAssertEqual(f.compactMap(\.goAwayInfo).first?.code, .noError)
        XCTAssertEqual(f.compactMap(\.goAwayInfo).first?.last, 1)
        XCTAssertTrue(c.io.closed)
    }

    func testIdleTimeoutWaitsForOpenStreams() {
        var limits = ServerLimits()
        limits.idleTimeout = 10
        let c = H2TestClient(responder: TestResponder { _, _ in .stall }, limits: limits)
        c.handshake()
        c.request(1)
        c.io.advance(by: 30)
        XCTAssertFalse(c.io.closed)
    }

    func testRequestReadTimeoutResetsHalfReceivedStream() {
        var limits = ServerLimits()
        limits.requestReadTimeout = 5
        let c = H2TestClient(limits: limits)
        c.handshake()
        c.send(c.headersFrame(1, H2TestClient.requestFields(method: "POST"), endStream: false))
        c.io.advance(by: 4)
        XCTAssertEqual(c.readFrames(), [])
        c.io.advance(by: 2)
        assertRst(c.readFrames(), stream: 1, .cancel)
        assertAlive(c)
    }

    // MARK: Output discipline

    func testOneWritePerEvent() {
        let c = H2TestClient(responder: TestResponder { _, _ in .respond(HTTPResponse(status: 200, body: [1, 2, 3])) })
        c.handshake()
        let before = c.io.writeCalls
        var bytes: [UInt8] = []
        for id in stride(from: UInt32(1), through: 199, by: 2) {
            c.encoder.encode(c.headersFrame(id, H2TestClient.requestFields()), into: &bytes)
        }
        c.sendRaw(bytes)
        XCTAssertEqual(c.io.writeCalls, before + 1)
        XCTAssertEqual(c.readFrames().filter { $0.type == .data }.count, 100)
    }

    func testBackPressurePausesReading() {
        var limits = ServerLimits()
        limits.maxBufferedOutput = 10
        let c = H2TestClient(limits: limits)
        c.handshake()
        c.io.pendingWriteBytes = 100
        c.send(.ping(1))
        XCTAssertTrue(c.io.paused)
        c.io.pendingWriteBytes = 0
        c.connection.writeBufferDrained()
        XCTAssertFalse(c.io.paused)
    }

    // MARK: Fuzz

    /// Seeded random frames and bytes after a valid handshake: no crash, no hang, and the
    /// server only ever writes decodable frames.
    func testRandomInputFuzz() {
        var rng = SeededRandomNumberGenerator(seed: 42)
        for round in 0..<300 {
            let c = H2TestClient(responder: TestResponder { req, _ in
                switch req.info.streamID % 5 {
                case 0: return .respond(HTTPResponse(status: 200, body: Array(repeating: 1, count: 70000)))
                case 1: return .stall
                case 2: return .resetStream(.cancel)
                default: return .respond(HTTPResponse(status: 204, framing: .singleDataFrame))
                }
            })
            c.handshake()
            for _ in 0..<30 {
                let streamID = UInt32(rng.next() % 12)
                var frame: HTTP2Frame
                switch rng.next() % 10 {
                case 0: frame = c.headersFrame(streamID | 1, H2TestClient.requestFields(), endStream: rng.next() % 2 == 0)
                case 1: frame = .data(streamID: streamID, Array(repeating: 0, count: Int(rng.next() % 100)), endStream: rng.next() % 2 == 0)
                case 2: frame = .windowUpdate(streamID: streamID, increment: UInt32(rng.next() % 100_000) + 1)
                case 3: frame = .rstStream(streamID: streamID, .cancel)
                case 4: frame = .settings([HTTP2Setting(.initialWindowSize, UInt32(rng.next() % 70000))])
                case 5: frame = .headers(streamID: streamID | 1, fragment: (0..<Int(rng.next() % 20)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }, endStream: true, endHeaders: rng.next() % 3 != 0)
                case 6: frame = HTTP2Frame(streamID: streamID, flags: .endHeaders, payload: .continuation([0x82]))
                case 7: frame = .ping(rng.next())
                case 8: frame = .settingsAck
                default:
                    let raw = (0..<Int(rng.next() % 30)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                    c.sendRaw(raw)
                    continue
                }
                c.send(frame)
                if rng.next() % 4 == 0 { c.io.advance(by: Double(rng.next() % 100)) }
            }
            _ = c.readFrames()
            c.connection.connectionClosed()
            XCTAssertEqual(c.connection.testsOnly_openStreamCount, 0, "round \(round)")
        }
    }
}

extension HTTP2ServerConnectionTests {
    func testZeroWindowUpdateOnOpenStreamIsStreamError() {
        let c = H2TestClient(responder: TestResponder { _, _ in .stall })
        c.handshake()
        c.request(1)
        c.sendRaw([0, 0, 4, 8, 0, 0, 0, 0, 1, 0, 0, 0, 0])
        let f = c.readFrames()
        XCTAssertEqual(f.first?.rstCode, .protocolError)
        XCTAssertFalse(c.io.closed)
    }

    func testZeroWindowUpdateOnIdleStreamIsConnectionError() {
        let c = H2TestClient()
        c.handshake()
        c.sendRaw([0, 0, 4, 8, 0, 0, 0, 0, 9, 0, 0, 0, 0])
        XCTAssertEqual(c.readFrames().compactMap(\.goAwayInfo).first?.code, .protocolError)
        XCTAssertTrue(c.io.closed)
    }
}

extension HTTP2ServerConnectionTests {
    /// The peer's SETTINGS_HEADER_TABLE_SIZE reaches our HPACK encoder: with 0 the next
    /// response block must start with a dynamic table size update (RFC 7541 §4.2), which
    /// a decoder limited to 0 requires.
    func testPeerHeaderTableSizeZero() {
        let c = H2TestClient(responder: TestResponder { _, _ in .respond(HTTPResponse(status: 200, headers: ["apns-id": "same-every-time"])) })
        c.handshake()
        c.request(1)
        XCTAssertEqual(c.decodeHeaders(c.readFrames()[0]).count, 3)
        c.send(.settings([HTTP2Setting(.headerTableSize, 0)]))
        XCTAssertEqual(c.readFrames(), [.settingsAck])
        c.hpackDecoder = HPACKDecoder(maxTableSize: 0, maxHeaderListSize: 1 << 20)
        for id in [UInt32(3), 5] {
            c.request(id)
            let h = c.decodeHeaders(c.readFrames()[0])
            XCTAssertEqual(h.map(\.1), ["200", "same-every-time", "0"])
        }
    }

    /// A client's dynamic table size update above our SETTINGS_HEADER_TABLE_SIZE is a
    /// COMPRESSION_ERROR.
    func testClientTableSizeUpdateAboveOurLimit() {
        let c = H2TestClient()
        c.handshake()
        // 0x3f 0xe1 0x1f = size update to 4096+... (31 + 0x61 + 0x1f<<7 = 4097)
        c.send(.headers(streamID: 1, fragment: [0x3f, 0xe2, 0x1f, 0x82, 0x86, 0x84], endStream: true))
        XCTAssertEqual(c.readFrames().compactMap(\.goAwayInfo).first?.code, .compressionError)
    }

    func testResponseCompletedOncePerRequest() {
        let c = H2TestClient(responder: TestResponder { req, _ in
            req.info.streamID == 3 ? .resetStream(.cancel) : .respond(HTTPResponse(status: 200, body: [1]))
        })
        c.handshake()
        c.request(1)
        c.request(3)
        c.request(5, method: "POST", body: [1, 2])
        _ = c.readFrames()
        XCTAssertEqual(c.responder.completions.map(\.0), [1, 3, 5])
        XCTAssertEqual(c.responder.completions.map(\.1), [.completed, .reset, .completed])
    }

    func testLargeResponseHeaderBlockUsesContinuation() {
        // 40000 × 'h' Huffman-codes to 30000 bytes: more than one 16384-byte frame.
        let big = String(repeating: "h", count: 40000)
        let c = H2TestClient(responder: TestResponder { _, _ in .respond(HTTPResponse(status: 200, headers: ["x-big": big])) })
        c.handshake()
        c.request(1)
        let f = c.readFrames()
        XCTAssertEqual(types(f), [.headers, .continuation])
        guard f.count == 2 else { return }
        XCTAssertTrue(f[0].endStream)
        XCTAssertTrue(f[1].endHeaders)
        var block: [UInt8] = []
        if case .headers(let h) = f[0].payload { block += h.fragment }
        if case .continuation(let b) = f[1].payload { block += b }
        let fields = try? c.hpackDecoder.decode(block)
        XCTAssertEqual(fields?.first { $0.name == "x-big" }?.value.count, 40000)
    }
}

extension HTTP2ServerConnectionTests {
    func testConnectionSpecificResponseHeadersDropped() {
        let c = H2TestClient(responder: TestResponder { _, _ in
            .respond(HTTPResponse(status: 200, headers: ["Connection": "close", "Keep-Alive": "5", "X-Kept": "1"]))
        })
        c.handshake()
        c.request(1)
        XCTAssertEqual(c.decodeHeaders(c.readFrames()[0]).map(\.0), [":status", "x-kept", "content-length"])
    }
}

extension HTTP2ServerConnectionTests {
    /// The same byte stream fed whole and one byte at a time gives the same output.
    func testByteAtATimeInputGivesSameOutput() {
        func run(chunk: Int) -> [HTTP2Frame] {
            let c = H2TestClient(responder: TestResponder { req, _ in
                .respond(HTTPResponse(status: 200, body: Array(req.path.utf8)))
            })
            c.connection.connectionStarted(initialBytes: [])
            var bytes = http2ClientPreface
            c.encoder.encode(.settings([HTTP2Setting(.initialWindowSize, 1000)]), into: &bytes)
            for id in stride(from: UInt32(1), through: 9, by: 2) {
                c.encoder.encode(c.headersFrame(id, H2TestClient.requestFields(method: "POST", path: "/p\(id)"), endStream: false), into: &bytes)
                c.encoder.encode(.data(streamID: id, Array(repeating: UInt8(id), count: 300), endStream: true, padding: 3), into: &bytes)
            }
            c.encoder.encode(.ping(5), into: &bytes)
            var i = 0
            while i < bytes.count {
                c.sendRaw(Array(bytes[i..<min(i + chunk, bytes.count)]))
                i += chunk
            }
            XCTAssertEqual(c.responder.requests.map(\.body.count), [300, 300, 300, 300, 300])
            return c.readFrames()
        }
        let whole = run(chunk: 1 << 20)
        XCTAssertEqual(run(chunk: 1), whole)
        XCTAssertEqual(run(chunk: 7), whole)
        XCTAssertEqual(whole.filter { $0.type == .headers }.count, 5)
    }

    func testUnfinishedHeaderBlockTimesOut() {
        var limits = ServerLimits()
        limits.requestReadTimeout = 5
        let c = H2TestClient(limits: limits)
        c.handshake()
        let block = c.headerBlock(H2TestClient.requestFields())
        c.send(.headers(streamID: 1, fragment: Array(block.prefix(2)), endStream: true, endHeaders: false))
        c.io.advance(by: 6)
        assertGoAway(c.readFrames(), .protocolError, c)
    }

    func testStreamSourceOutrunningFlowControlIsReset() {
        final class Source: ResponseBodySource, @unchecked Sendable {
            var sink: ResponseBodySink?
            func start(_ sink: ResponseBodySink) { self.sink = sink }
        }
        let source = Source()
        var limits = ServerLimits()
        limits.maxBufferedOutput = 1000
        let c = H2TestClient(responder: TestResponder { _, _ in .stream(HTTPResponse(status: 200), source: source) }, limits: limits)
        c.handshake(settings: [HTTP2Setting(.initialWindowSize, 0)])
        c.request(1)
        _ = c.readFrames()
        source.sink?.write(Array(repeating: 1, count: 600))
        source.sink?.write(Array(repeating: 1, count: 600))
        c.io.executor.drain()
        assertRst(c.readFrames(), stream: 1, .internalError)
        XCTAssertTrue(source.sink?.isClosed ?? false)
    }
}

extension HTTP2ServerConnectionTests {
    func testPeerNeverAckingSettingsIsSettingsTimeout() {
        let c = H2TestClient(responder: TestResponder { _, ctx in
            ctx.connection.updateSettings(maxConcurrentStreams: 10)
            return .respond(HTTPResponse(status: 200))
        })
        c.connection.connectionStarted(initialBytes: [])
        var bytes = http2ClientPreface
        c.encoder.encode(.settings([]), into: &bytes)
        c.sendRaw(bytes) // never ACKs the server's SETTINGS
        for i in 0..<HTTP2ServerConnection.maxUnackedSettings {
            c.request(UInt32(2 * i + 1))
        }
        assertGoAway(c.readFrames(), .settingsTimeout, c)
    }
}

extension HTTP2ServerConnectionTests {
    /// A second GOAWAY never raises last-stream-id, and streams above the first one's stay
    /// unprocessed.
    func testSecondGoAwayKeepsTheLowerLastStreamID() {
        let c = H2TestClient(responder: TestResponder { req, _ in
            switch req.info.streamID {
            case 1: return .stall
            case 3: return .goAway(lastStreamID: .explicit(1), errorCode: .noError, debugData: [], then: nil)
            default: return .stall
            }
        })
        c.handshake()
        c.request(1)
        c.request(3)
        c.request(5) // ignored: above last-stream-id
        XCTAssertEqual(c.responder.requests.map(\.info.streamID), [1, 3])
        XCTAssertEqual(c.readFrames().compactMap(\.goAwayInfo).map(\.last), [1])
        c.connection.closeGracefully(errorCode: .noError, debugData: [])
        XCTAssertEqual(c.readFrames().compactMap(\.goAwayInfo).map(\.last), [1], "not raised to 5")
        XCTAssertEqual(c.connection.testsOnly_openStreamCount, 1)
        c.send(.rstStream(streamID: 1, .cancel))
        XCTAssertTrue(c.io.closed)
    }
}

extension HTTP2ServerConnectionTests {
    /// Until the client ACKs our SETTINGS_INITIAL_WINDOW_SIZE it may assume 65535 per
    /// stream; from the ACK on, the smaller window applies to open streams too.
    func testSmallInitialWindowAppliesOnlyOnceAcked() {
        var config = HTTP2Configuration()
        config.initialWindowSize = 100
        let c = H2TestClient(responder: TestResponder { _, _ in .stall }, configuration: config)
        c.connection.connectionStarted(initialBytes: [])
        var bytes = http2ClientPreface
        c.encoder.encode(.settings([]), into: &bytes)
        c.encoder.encode(c.headersFrame(1, H2TestClient.requestFields(method: "POST"), endStream: false), into: &bytes)
        c.encoder.encode(.data(streamID: 1, Array(repeating: 0, count: 300)), into: &bytes)
        c.sendRaw(bytes)
        var f = c.readFrames()
        XCTAssertFalse(f.contains { $0.type == .rstStream || $0.type == .goAway }, "300 bytes fit the default window before the ACK")
        XCTAssertFalse(f.contains { $0.type == .windowUpdate && $0.streamID == 1 }, "300 bytes are below half the assumed 65535 window")
        c.send(.settingsAck)
        // Window now 65535 - 300 + (100 - 65535) = -200: any DATA is too much.
        c.send(.data(streamID: 1, [1]))
        f = c.readFrames()
        XCTAssertEqual(f.first { $0.type == .rstStream }?.rstCode, .flowControlError)
    }
}

extension HTTP2ServerConnectionTests {
    /// Connection credit is withheld while too much partial request body is buffered, and
    /// released when a stream giving it up is reset (here by the read timeout).
    func testConnectionCreditWithheldWhileBodiesBufferedThenReleased() {
        var config = HTTP2Configuration()
        config.connectionWindowSize = 65535
        var limits = ServerLimits()
        limits.maxBodySize = 100_000
        limits.requestReadTimeout = 5
        let c = H2TestClient(configuration: config, limits: limits)
        c.handshake()
        func credit(_ frames: [HTTP2Frame]) -> Int {
            frames.compactMap { f -> Int? in
                if case .windowUpdate(let inc) = f.payload, f.streamID == 0 { return Int(inc) }
                return nil
            }.reduce(0, +)
        }
        // A well-behaved client: half-received streams of 40000 bytes each, sent only
        // while the connection window allows.
        var window = 65535
        var id: UInt32 = 1
        var streams = 0
        while window >= 40000 && streams < 1000 {
            c.send(c.headersFrame(id, H2TestClient.requestFields(method: "POST"), endStream: false))
            c.send(.data(streamID: id, Array(repeating: 0, count: 16384)), .data(streamID: id, Array(repeating: 0, count: 16384)),
                   .data(streamID: id, Array(repeating: 0, count: 7232)))
            window -= 40000
            window += credit(c.readFrames())
            id += 2
            streams += 1
        }
        XCTAssertFalse(c.io.closed)
        XCTAssertGreaterThan(streams * 40000, 16 << 20, "credit flowed up to the buffered-body cap (16 MiB)")
        XCTAssertLessThan(streams, 1000, "then stopped")
        c.io.advance(by: 6) // the read timeout resets every stream, releasing its body
        let f = c.readFrames()
        XCTAssertEqual(f.filter { $0.type == .rstStream }.count, streams)
        window += credit(f)
        XCTAssertEqual(window, 65535, "all credit returned once the bodies are gone")
    }
}
