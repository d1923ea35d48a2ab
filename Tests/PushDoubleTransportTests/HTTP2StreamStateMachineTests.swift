import XCTest
@testable import PushDoubleTransport

/// The RFC 9113 §5.1 stream machine, flow-control windows and the request-head rules,
/// each on its own (no connection).
final class HTTP2StreamStateMachineTests: XCTestCase {
    func testOpenThenBothEndsClose() {
        var m = HTTP2StreamStateMachine(receivedHeadersOn: 1, endStream: false)
        XCTAssertEqual(m.state, .open)
        XCTAssertEqual(m.receiveData(endStream: false), .succeed)
        XCTAssertEqual(m.receiveData(endStream: true), .succeed)
        XCTAssertEqual(m.state, .halfClosedRemote)
        XCTAssertTrue(m.localOpen)
        XCTAssertFalse(m.remoteOpen)
        m.sendEndStream()
        XCTAssertEqual(m.state, .closed)
    }

    func testServerEndsFirst() {
        var m = HTTP2StreamStateMachine(receivedHeadersOn: 3, endStream: false)
        m.sendEndStream()
        XCTAssertEqual(m.state, .halfClosedLocal)
        XCTAssertEqual(m.receiveData(endStream: true), .succeed)
        XCTAssertEqual(m.state, .closed)
    }

    func testFramesOnHalfClosedRemoteAreStreamClosed() {
        var m = HTTP2StreamStateMachine(receivedHeadersOn: 5, endStream: true)
        XCTAssertEqual(m.state, .halfClosedRemote)
        guard case .streamError(.streamClosed, _) = m.receiveData(endStream: false) else { return XCTFail() }
        guard case .streamError(.streamClosed, _) = m.receiveTrailers(endStream: true) else { return XCTFail() }
    }

    func testTrailersMustEndTheStream() {
        var m = HTTP2StreamStateMachine(receivedHeadersOn: 1, endStream: false)
        guard case .streamError(.protocolError, _) = m.receiveTrailers(endStream: false) else { return XCTFail() }
        var n = HTTP2StreamStateMachine(receivedHeadersOn: 1, endStream: false)
        XCTAssertEqual(n.receiveTrailers(endStream: true), .succeed)
        XCTAssertEqual(n.state, .halfClosedRemote)
    }

    func testResetCloses() {
        var m = HTTP2StreamStateMachine(receivedHeadersOn: 1, endStream: false)
        m.reset()
        XCTAssertEqual(m.state, .closed)
        guard case .streamError(.streamClosed, _) = m.receiveData(endStream: false) else { return XCTFail() }
    }

    func testFlowControlWindow() {
        var w = HTTP2FlowControlWindow(10)
        XCTAssertTrue(w.consume(10))
        XCTAssertFalse(w.consume(1))
        XCTAssertTrue(w.adjust(by: -5))
        XCTAssertEqual(w.value, -5, "may go negative after a SETTINGS change")
        XCTAssertTrue(w.adjust(by: 0x7fff_ffff))
        XCTAssertEqual(w.value, 0x7fff_fffa)
        XCTAssertFalse(w.adjust(by: 6), "never above 2^31-1")
        XCTAssertEqual(w.value, 0x7fff_fffa)
        XCTAssertTrue(w.adjust(by: 5))
    }

    // MARK: Request head

    private func validate(_ fields: [(String, String)]) -> String? {
        var v = HTTP2RequestHeadValidator()
        for (n, val) in fields where !v.add(name: n, value: val) { break }
        return v.finish()
    }

    /// NUL, CR and LF are refused at any position of a value, long values included (the scan
    /// goes eight bytes at a time, then byte by byte).
    func testValueControlCharactersAtEveryPosition() {
        for length in [1, 7, 8, 9, 16, 17, 63, 200] {
            for position in 0..<length {
                for bad: UInt8 in [0x00, 0x0a, 0x0d] {
                    var bytes = [UInt8](repeating: 0x61, count: length)
                    bytes[position] = bad
                    let value = String(decoding: bytes, as: UTF8.self)
                    XCTAssertNotNil(HTTP2RequestHeadValidator.checkValue(value), "0x\(bad) at \(position) of \(length)")
                }
            }
            XCTAssertNil(HTTP2RequestHeadValidator.checkValue(String(repeating: "a", count: length)))
        }
        // Bytes next to the refused ones (0x09 inside, 0x0b, 0x0c, 0x0e, 0x80+) pass.
        XCTAssertNil(HTTP2RequestHeadValidator.checkValue("a\u{09}\u{0b}\u{0c}\u{0e}é€b1234567890"))
    }

    func testValidHead() {
        var v = HTTP2RequestHeadValidator()
        for (n, val) in [(":method", "POST"), (":scheme", "https"), (":path", "/3/device/x"), (":authority", "api.push.apple.com"),
                         ("content-length", "12"), ("apns-topic", "t"), ("apns-topic", "u")] {
            XCTAssertTrue(v.add(name: n, value: val))
        }
        XCTAssertNil(v.finish())
        XCTAssertEqual(v.method, "POST")
        XCTAssertEqual(v.contentLength, 12)
        XCTAssertEqual(v.headers.values(name: "apns-topic"), ["t", "u"], "repeats kept in order")
        XCTAssertNil(validate([(":method", "OPTIONS"), (":scheme", "https"), (":path", "*")]))
        XCTAssertNil(validate([(":method", "CONNECT"), (":authority", "h:443")]))
    }

    func testEachRuleNamesItsReason() {
        let base = [(":method", "GET"), (":scheme", "https"), (":path", "/")]
        XCTAssertEqual(validate(base + [("Accept", "x")]), "uppercase character in header field name")
        XCTAssertEqual(validate(base + [("a b", "x")]), "invalid character 0x20 in header field name")
        XCTAssertEqual(validate(base + [("a:b", "x")]), "colon inside header field name")
        XCTAssertEqual(validate(base + [("x", " v")]), "leading or trailing whitespace in the value of x")
        XCTAssertEqual(validate(base + [("x", "a\r\nb")]), "NUL, CR or LF in the value of x")
        XCTAssertEqual(validate(base + [(":path", "/")]), "duplicate :path")
        XCTAssertEqual(validate([(":method", "GET"), ("x", "1"), (":scheme", "https"), (":path", "/")]), "pseudo-header :scheme after a regular header field")
        XCTAssertEqual(validate(base + [(":protocol", "websocket")]), "pseudo-header :protocol not allowed in a request")
        XCTAssertEqual(validate(base + [("keep-alive", "5")]), "connection-specific header field keep-alive")
        XCTAssertEqual(validate(base + [("upgrade", "h2c")]), "connection-specific header field upgrade")
        XCTAssertEqual(validate(base + [("proxy-connection", "x")]), "connection-specific header field proxy-connection")
        XCTAssertEqual(validate(base + [("content-length", "1x")]), "invalid content-length \"1x\"")
        XCTAssertEqual(validate(base + [("content-length", "99999999999999999999999")]), "invalid content-length \"99999999999999999999999\"")
        XCTAssertEqual(validate(base + [("content-length", "1"), ("content-length", "2")]), "conflicting content-length values")
        XCTAssertEqual(validate([(":method", "GET"), (":scheme", "https"), (":path", "x")]), ":path \"x\" is not absolute")
        XCTAssertEqual(validate([(":method", "CONNECT"), (":authority", "h"), (":path", "/")]), "CONNECT request with :scheme or :path")
        XCTAssertNil(validate(base + [("te", "trailers"), ("content-length", "1"), ("content-length", "1")]))
    }

    func testTrailersRefusePseudoHeaders() {
        var t = HTTP2RequestHeadValidator(trailers: true)
        XCTAssertTrue(t.add(name: "x-checksum", value: "1"))
        XCTAssertFalse(t.add(name: ":path", value: "/"))
        XCTAssertEqual(t.finish(), "pseudo-header :path in trailers")
    }
}
