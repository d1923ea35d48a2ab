import XCTest
import PushDoubleTestSupport
@testable import PushDoubleTransport

/// Round trips and frame-level error rules of the HTTP/2 frame codec (RFC 9113 §4, §6).
final class HTTP2FrameCodecTests: XCTestCase {
    private let encoder = HTTP2FrameEncoder()

    private func roundTrip(_ frame: HTTP2Frame, file: StaticString = #filePath, line: UInt = #line) {
        let bytes = encoder.encode(frame)
        XCTAssertEqual(bytes.count, 9 + frame.wireLength, file: file, line: line)
        var dec = HTTP2FrameDecoder()
        // Feed one byte at a time: the decoder must be incremental.
        var got: [HTTP2Frame] = []
        for b in bytes {
            dec.append(contentsOf: [b])
            do {
                while let f = try dec.nextFrame() { got.append(f) }
            } catch {
                XCTFail("unexpected \(error)", file: file, line: line); return
            }
        }
        XCTAssertEqual(got.count, 1, file: file, line: line)
        var expected = frame
        // The encoder derives PADDED / PRIORITY; the decoder reports wire flags.
        switch frame.payload {
        case .data(_, let p) where p != nil: expected.flags.insert(.padded)
        case .headers(let h):
            if h.padding != nil { expected.flags.insert(.padded) }
            if h.priority != nil { expected.flags.insert(.priority) }
        case .pushPromise(_, _, let p) where p != nil: expected.flags.insert(.padded)
        default: break
        }
        XCTAssertEqual(got.first, expected, file: file, line: line)
        XCTAssertEqual(dec.bufferedByteCount, 0, file: file, line: line)
    }

    func testEveryFrameTypeRoundTrips() {
        roundTrip(.data(streamID: 1, [1, 2, 3], endStream: true))
        roundTrip(.data(streamID: 3, [], endStream: false))
        roundTrip(.data(streamID: 5, Array(repeating: 7, count: 100), endStream: true, padding: 20))
        roundTrip(.data(streamID: 5, [], padding: 0))
        roundTrip(.headers(streamID: 1, fragment: [0x82, 0x86], endStream: true))
        roundTrip(.headers(streamID: 7, fragment: [0x82], endStream: false, endHeaders: false,
                           priority: HTTP2PriorityData(exclusive: true, dependency: 3, weight: 200), padding: 5))
        roundTrip(HTTP2Frame(streamID: 9, payload: .priority(HTTP2PriorityData(exclusive: false, dependency: 1, weight: 0))))
        roundTrip(.rstStream(streamID: 3, .cancel))
        roundTrip(.rstStream(streamID: 3, HTTP2ErrorCode(0xdead)))
        roundTrip(.settings([HTTP2Setting(.maxConcurrentStreams, 1), HTTP2Setting(.initialWindowSize, 10),
                             HTTP2Setting(HTTP2SettingID(0x99), 42)]))
        roundTrip(.settingsAck)
        roundTrip(HTTP2Frame(streamID: 1, flags: .endHeaders, payload: .pushPromise(promisedStreamID: 2, fragment: [1, 2], padding: 3)))
        roundTrip(.ping(0x0102_0304_0506_0708))
        roundTrip(.ping(42, ack: true))
        roundTrip(.goAway(lastStreamID: 0x7fff_ffff, errorCode: .enhanceYourCalm, debugData: Array("calm".utf8)))
        roundTrip(.goAway(lastStreamID: 0, errorCode: .noError))
        roundTrip(.windowUpdate(streamID: 0, increment: 0x7fff_ffff))
        roundTrip(.windowUpdate(streamID: 11, increment: 1))
        roundTrip(HTTP2Frame(streamID: 1, flags: .endHeaders, payload: .continuation([9, 9, 9])))
        roundTrip(HTTP2Frame(streamID: 0, flags: [], payload: .unknown(type: 0xfa, bytes: [1, 2, 3, 4])))
    }

    func testExactWireBytesOfASettingsFrame() {
        let bytes = encoder.encode(.settings([HTTP2Setting(.maxConcurrentStreams, 1)]))
        XCTAssertEqual(bytes, [0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 1])
    }

    func testSeveralFramesInOneAppend() throws {
        var out: [UInt8] = []
        encoder.encode(.ping(1), into: &out)
        encoder.encode(.data(streamID: 1, [1]), into: &out)
        encoder.encode(.windowUpdate(streamID: 0, increment: 5), into: &out)
        out.append(contentsOf: [0, 0]) // partial next header
        var dec = HTTP2FrameDecoder()
        dec.append(contentsOf: out)
        XCTAssertEqual(try dec.nextFrame()?.type, .ping)
        XCTAssertEqual(try dec.nextFrame()?.type, .data)
        XCTAssertEqual(try dec.nextFrame()?.type, .windowUpdate)
        XCTAssertNil(try dec.nextFrame())
        XCTAssertEqual(dec.bufferedByteCount, 2)
    }

    func testHeaderBlockSplitsIntoContinuation() throws {
        var enc = HTTP2FrameEncoder()
        enc.maxFrameSize = 16384
        let block = (0..<40000).map { UInt8(truncatingIfNeeded: $0) }
        var out: [UInt8] = []
        enc.appendHeaderBlock(streamID: 3, block: block, endStream: true, into: &out)
        var dec = HTTP2FrameDecoder()
        dec.append(contentsOf: out)
        var frames: [HTTP2Frame] = []
        while let f = try dec.nextFrame() { frames.append(f) }
        XCTAssertEqual(frames.map(\.type), [.headers, .continuation, .continuation])
        XCTAssertEqual(frames.map(\.flags), [.endStream, [], .endHeaders])
        var joined: [UInt8] = []
        for f in frames {
            switch f.payload {
            case .headers(let h): joined += h.fragment
            case .continuation(let c): joined += c
            default: XCTFail()
            }
        }
        XCTAssertEqual(joined, block)
    }

    func testDataSplitAtMaxFrameSize() throws {
        let enc = HTTP2FrameEncoder(maxFrameSize: 16384)
        var out: [UInt8] = []
        enc.appendDataSplit(streamID: 1, bytes: Array(repeating: 1, count: 16385), endStream: true, into: &out)
        var dec = HTTP2FrameDecoder()
        dec.append(contentsOf: out)
        let a = try XCTUnwrap(dec.nextFrame()), b = try XCTUnwrap(dec.nextFrame())
        XCTAssertEqual(a.wireLength, 16384); XCTAssertFalse(a.endStream)
        XCTAssertEqual(b.wireLength, 1); XCTAssertTrue(b.endStream)
    }

    // MARK: Errors

    private func decodeError(_ bytes: [UInt8], maxFrameSize: Int = 16384, preface: Bool = false) -> HTTP2FrameError? {
        var dec = HTTP2FrameDecoder(maxFrameSize: maxFrameSize, expectClientPreface: preface)
        dec.append(contentsOf: bytes)
        do {
            while try dec.nextFrame() != nil {}
            return nil
        } catch {
            return error
        }
    }

    private func header(_ len: Int, _ type: UInt8, _ flags: UInt8, _ stream: UInt32) -> [UInt8] {
        var out: [UInt8] = []
        HTTP2FrameEncoder.appendFrameHeader(length: len, type: HTTP2FrameType(type), flags: HTTP2FrameFlags(rawValue: flags), streamID: stream, into: &out)
        return out
    }

    private func assertError(_ bytes: [UInt8], _ code: HTTP2ErrorCode, _ scope: HTTP2FrameError.Scope,
                             maxFrameSize: Int = 16384, preface: Bool = false,
                             file: StaticString = #filePath, line: UInt = #line) {
        guard let e = decodeError(bytes, maxFrameSize: maxFrameSize, preface: preface) else {
            return XCTFail("expected \(code) error", file: file, line: line)
        }
        XCTAssertEqual(e.code, code, e.reason, file: file, line: line)
        XCTAssertEqual(e.scope, scope, e.reason, file: file, line: line)
    }

    func testPreface() throws {
        var dec = HTTP2FrameDecoder(expectClientPreface: true)
        dec.append(contentsOf: http2ClientPreface.prefix(10))
        XCTAssertNil(try dec.nextFrame())
        XCTAssertFalse(dec.prefaceReceived)
        dec.append(contentsOf: http2ClientPreface.dropFirst(10))
        dec.append(contentsOf: encoder.encode(.settings([])))
        XCTAssertEqual(try dec.nextFrame(), .settings([]))
        XCTAssertTrue(dec.prefaceReceived)
        // An HTTP/1.1 request is refused at the first wrong byte.
        assertError(Array("GET / HTTP/1.1\r\n".utf8), .protocolError, .connection, preface: true)
        assertError(Array("PRI * HTTP/2.0\r\n\r\nXX".utf8), .protocolError, .connection, preface: true)
    }

    func testConnectionErrorIsSticky() {
        var dec = HTTP2FrameDecoder()
        dec.append(contentsOf: header(8, 6, 0, 1) + [UInt8](repeating: 0, count: 8))
        XCTAssertThrowsError(try dec.nextFrame())
        dec.append(contentsOf: encoder.encode(.ping(1)))
        XCTAssertThrowsError(try dec.nextFrame())
    }

    func testFrameLargerThanMaxFrameSize() {
        assertError(header(16385, 0, 0, 1), .frameSizeError, .connection)
        XCTAssertNil(decodeError(header(16385, 0, 0, 1) + [UInt8](repeating: 0, count: 16385), maxFrameSize: 20000))
    }

    func testFixedPayloadSizes() {
        assertError(header(4, 2, 0, 1) + [0, 0, 0, 0], .frameSizeError, .stream(1))
        assertError(header(5, 3, 0, 1) + [0, 0, 0, 0, 0], .frameSizeError, .connection)
        assertError(header(7, 6, 0, 0) + [UInt8](repeating: 0, count: 7), .frameSizeError, .connection)
        assertError(header(3, 8, 0, 0) + [0, 0, 1], .frameSizeError, .connection)
        assertError(header(5, 4, 0, 0) + [0, 3, 0, 0, 0], .frameSizeError, .connection)
        assertError(header(6, 4, 1, 0) + [0, 3, 0, 0, 0, 1], .frameSizeError, .connection)
        assertError(header(7, 7, 0, 0) + [UInt8](repeating: 0, count: 7), .frameSizeError, .connection)
    }

    func testStreamZeroRules() {
        assertError(header(1, 0, 0, 0) + [0], .protocolError, .connection)          // DATA
        assertError(header(1, 1, 4, 0) + [0x82], .protocolError, .connection)       // HEADERS
        assertError(header(5, 2, 0, 0) + [0, 0, 0, 1, 0], .protocolError, .connection) // PRIORITY
        assertError(header(4, 3, 0, 0) + [0, 0, 0, 0], .protocolError, .connection) // RST_STREAM
        assertError(header(0, 4, 0, 1), .protocolError, .connection)                // SETTINGS
        assertError(header(8, 6, 0, 1) + [UInt8](repeating: 0, count: 8), .protocolError, .connection) // PING
        assertError(header(8, 7, 0, 1) + [UInt8](repeating: 0, count: 8), .protocolError, .connection) // GOAWAY
        assertError(header(0, 9, 4, 0), .protocolError, .connection)                // CONTINUATION
    }

    func testPaddingValidity() {
        // Pad Length equal to the frame payload length.
        assertError(header(3, 0, 0x8, 1) + [3, 0, 0], .protocolError, .connection)
        assertError(header(1, 0, 0x8, 1) + [1], .protocolError, .connection)
        assertError(header(0, 0, 0x8, 1), .frameSizeError, .connection)
        assertError(header(3, 1, 0x8 | 0x4, 1) + [3, 0, 0], .protocolError, .connection)
        // Largest valid padding.
        XCTAssertNil(decodeError(header(3, 0, 0x8, 1) + [2, 0, 0]))
    }

    func testWindowUpdateZeroIncrement() {
        assertError(header(4, 8, 0, 0) + [0, 0, 0, 0], .protocolError, .connection)
        assertError(header(4, 8, 0, 5) + [0, 0, 0, 0], .protocolError, .stream(5))
    }

    func testStreamErrorSkipsOnlyThatFrame() throws {
        var dec = HTTP2FrameDecoder()
        dec.append(contentsOf: header(4, 8, 0, 5) + [0, 0, 0, 0])
        dec.append(contentsOf: encoder.encode(.ping(9)))
        XCTAssertThrowsError(try dec.nextFrame())
        XCTAssertEqual(try dec.nextFrame(), .ping(9))
    }

    func testSettingsValueRanges() {
        func s(_ id: UInt16, _ v: UInt32) -> [UInt8] {
            encoder.encode(.settings([HTTP2Setting(HTTP2SettingID(id), v)]))
        }
        assertError(s(2, 2), .protocolError, .connection)
        assertError(s(4, 0x8000_0000), .flowControlError, .connection)
        assertError(s(5, 16383), .protocolError, .connection)
        assertError(s(5, 16_777_216), .protocolError, .connection)
        XCTAssertNil(decodeError(s(5, 16_777_215)))
        XCTAssertNil(decodeError(s(4, 0x7fff_ffff)))
        XCTAssertNil(decodeError(s(0x1234, 7)))
    }

    func testPrioritySelfDependency() {
        assertError(header(5, 2, 0, 3) + [0, 0, 0, 3, 16], .protocolError, .stream(3))
    }

    func testReservedBitIgnored() throws {
        var dec = HTTP2FrameDecoder()
        dec.append(contentsOf: [0, 0, 1, 0, 0, 0x80, 0, 0, 1, 42])
        XCTAssertEqual(try dec.nextFrame()?.streamID, 1)
    }

    /// Seeded random bytes: the decoder must never crash or hang; every outcome is a
    /// frame, "need more", or a typed error.
    func testRandomBytesFuzz() {
        var rng = SeededRandomNumberGenerator(seed: 0x5eed)
        var frames = 0, errors = 0
        for _ in 0..<3000 {
            var dec = HTTP2FrameDecoder(maxFrameSize: 16384, expectClientPreface: rng.next() % 4 == 0)
            let n = Int(rng.next() % 200)
            var bytes = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            // Make length fields plausible most of the time so payload paths are exercised.
            if bytes.count >= 9, rng.next() % 2 == 0 {
                bytes[0] = 0; bytes[1] = 0; bytes[2] = UInt8(min(bytes.count - 9, 255))
                bytes[3] = UInt8(rng.next() % 11)
            }
            dec.append(contentsOf: bytes)
            var steps = 0
            while steps < 1000 {
                steps += 1
                do {
                    guard try dec.nextFrame() != nil else { break }
                    frames += 1
                } catch {
                    errors += 1
                    if error.isConnectionError { break }
                }
            }
            XCTAssertLessThan(steps, 1000)
        }
        XCTAssertGreaterThan(frames, 0)
        XCTAssertGreaterThan(errors, 0)
    }
}
