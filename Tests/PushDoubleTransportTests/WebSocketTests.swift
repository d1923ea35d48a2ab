import Foundation
import XCTest
@testable import PushDoubleTransport

/// The WebSocket piece against RFC 6455's own examples (§1.3 the accept key, §5.7 frames) and
/// the engine's handshake, ping, close and protocol-error paths over a scripted connection.
final class WebSocketTests: XCTestCase {
    func testAcceptKeyIsRFC6455Section1_3Example() {
        XCTAssertEqual(WebSocketHandshake.accept(key: "dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    /// §5.7: "A single-frame unmasked text message" and "A single-frame masked text message".
    func testSingleFrameTextMessagesOfSection5_7() throws {
        let unmasked: [UInt8] = [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]
        XCTAssertEqual(WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)).encoded(), unmasked)
        let masked: [UInt8] = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
        XCTAssertEqual(WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)).encoded(mask: [0x37, 0xfa, 0x21, 0x3d]), masked)
        var d = WebSocketFrameDecoder()
        d.append(masked)
        XCTAssertEqual(try d.next(), WebSocketFrame(opcode: .text, payload: Array("Hello".utf8), masked: true))
        XCTAssertNil(try d.next())
        var server = WebSocketFrameDecoder()
        server.append(unmasked)
        XCTAssertThrowsError(try server.next()) { XCTAssertEqual(($0 as? WebSocketProtocolError)?.closeCode, 1002, "§5.1: clients mask") }
    }

    /// §5.7: "A fragmented unmasked text message" ("Hel" then "lo"), read byte by byte.
    func testFragmentedMessageOfSection5_7() throws {
        var d = WebSocketFrameDecoder(requireMask: false)
        var a = WebSocketMessageAssembler()
        var messages: [WebSocketMessageAssembler.Message] = []
        for b in [0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f] as [UInt8] {
            d.append([b])
            while let f = try d.next() { if let m = try a.take(f) { messages.append(m) } }
        }
        XCTAssertEqual(messages, [.text("Hello")])
    }

    /// §5.7: the unmasked ping, the masked pong, and the 256-byte and 64 KiB binary headers.
    func testPingPongAndLengthEncodingsOfSection5_7() throws {
        XCTAssertEqual(WebSocketFrame(opcode: .ping, payload: Array("Hello".utf8)).encoded(), [0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f])
        XCTAssertEqual(WebSocketFrame(opcode: .pong, payload: Array("Hello".utf8)).encoded(mask: [0x37, 0xfa, 0x21, 0x3d]),
                       [0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
        XCTAssertEqual(Array(WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 7, count: 256)).encoded().prefix(4)), [0x82, 0x7E, 0x01, 0x00])
        let big = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 7, count: 65536))
        XCTAssertEqual(Array(big.encoded().prefix(10)), [0x82, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00])
        var d = WebSocketFrameDecoder(maxPayload: 1 << 17)
        d.append(big.encoded(mask: [1, 2, 3, 4]))
        XCTAssertEqual(try d.next()?.payload, big.payload)
    }

    func testDecoderRefusesWhatRFC6455Forbids() {
        func code(_ bytes: [UInt8], max: Int = 1 << 20) -> UInt16? {
            var d = WebSocketFrameDecoder(maxPayload: max)
            d.append(bytes)
            do { _ = try d.next(); return nil } catch { return error.closeCode }
        }
        let mask: [UInt8] = [0, 0, 0, 0]
        XCTAssertEqual(code([0xC1, 0x80] + mask), 1002, "RSV1 without an extension")
        XCTAssertEqual(code([0x83, 0x80] + mask), 1002, "reserved opcode 3")
        XCTAssertEqual(code([0x09, 0x80] + mask), 1002, "fragmented ping")
        XCTAssertEqual(code([0x89, 0xFE, 0x00, 0x7E] + mask), 1002, "control frame over 125 bytes")
        XCTAssertEqual(code([0x82, 0xFE, 0x01, 0x00] + mask, max: 100), 1009, "over the limit, refused from the header")
        var a = WebSocketMessageAssembler()
        XCTAssertThrowsError(try a.take(WebSocketFrame(opcode: .text, payload: [0xC3, 0x28]))) { XCTAssertEqual(($0 as? WebSocketProtocolError)?.closeCode, 1007) }
        XCTAssertThrowsError(try a.take(WebSocketFrame(opcode: .continuation, payload: []))) { XCTAssertEqual(($0 as? WebSocketProtocolError)?.closeCode, 1002) }
    }

    // MARK: the engine

    final class Echo: WebSocketService, @unchecked Sendable {
        var sessions: [WebSocketSession] = []
        final class Handler: WebSocketSessionHandler {
            let session: WebSocketSession
            var closed: [UInt16?] = []
            init(_ s: WebSocketSession) { session = s }
            func textReceived(_ text: String) { session.send(text: "echo " + text) }
            func sessionClosed(code: UInt16?) { closed.append(code) }
        }
        var handlers: [Handler] = []
        func upgrade(_ request: WebSocketUpgradeRequest) -> WebSocketUpgradeDecision {
            request.target == "/refused" ? .refuse(HTTPResponse(status: 403, contentType: "text/plain", body: "no\n"))
                : .accept(subprotocol: request.protocols.first)
        }
        func sessionOpened(_ session: WebSocketSession, request: WebSocketUpgradeRequest) -> any WebSocketSessionHandler {
            let h = Handler(session)
            handlers.append(h)
            return h
        }
    }

    private func open(_ target: String = "/", extra: String = "Sec-WebSocket-Protocol: push-notification\r\n") -> (WebSocketServerConnection, FakeIO, Echo) {
        let io = FakeIO(), service = Echo()
        let c = WebSocketServerConnection(io: io, service: service, limits: ServerLimits())
        c.connectionStarted(initialBytes: [])
        let head = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" + extra + "\r\n"
        Array(head.utf8).withUnsafeBytes { c.bytesReceived($0) }
        return (c, io, service)
    }

    private func frames(_ bytes: [UInt8]) throws -> [WebSocketFrame] {
        var d = WebSocketFrameDecoder(requireMask: false)
        d.append(bytes)
        var out: [WebSocketFrame] = []
        while let f = try d.next() { out.append(f) }
        return out
    }

    func testHandshakeThenEchoPingAndClose() throws {
        let (c, io, service) = open()
        XCTAssertTrue(io.text.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"), io.text)
        XCTAssertTrue(io.text.contains("sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"), io.text)
        XCTAssertTrue(io.text.contains("sec-websocket-protocol: push-notification\r\n"), io.text)
        io.written = []
        let m: [UInt8] = [9, 8, 7, 6]
        let input = WebSocketFrame(opcode: .text, payload: Array("hi".utf8)).encoded(mask: m)
            + WebSocketFrame(opcode: .ping, payload: [1, 2]).encoded(mask: m)
            + WebSocketFrame(opcode: .close, payload: WebSocketFrame.closePayload(code: 1000)).encoded(mask: m)
        input.withUnsafeBytes { c.bytesReceived($0) }
        XCTAssertEqual(try frames(io.written), [WebSocketFrame(opcode: .text, payload: Array("echo hi".utf8)),
                                                WebSocketFrame(opcode: .pong, payload: [1, 2]),
                                                WebSocketFrame(opcode: .close, payload: [0x03, 0xE8])])
        XCTAssertTrue(io.closed)
        XCTAssertEqual(service.handlers.first?.closed, [1000])
    }

    func testServerCloseSendsItsCodeThenEndsTheConnection() throws {
        let (c, io, service) = open()
        io.written = []
        service.handlers[0].session.close(code: 4774)
        XCTAssertEqual(try frames(io.written), [WebSocketFrame(opcode: .close, payload: [0x12, 0xA6])])
        XCTAssertTrue(io.closed, "no wait for the browser's close frame")
        service.handlers[0].session.send(text: "late")
        XCTAssertEqual(try frames(io.written).count, 1, "nothing after the close")
        withExtendedLifetime(c) {}
    }

    func testProtocolErrorClosesWith1002() throws {
        let (c, io, _) = open()
        io.written = []
        WebSocketFrame(opcode: .text, payload: Array("x".utf8)).encoded().withUnsafeBytes { c.bytesReceived($0) }  // unmasked
        let out = try frames(io.written)
        XCTAssertEqual(out.first?.opcode, .close)
        XCTAssertEqual(out.first.map { Array($0.payload.prefix(2)) }, [0x03, 0xEA])
        XCTAssertTrue(io.closed)
    }

    func testBadHandshakesAreRefused() {
        let io = FakeIO()
        let c = WebSocketServerConnection(io: io, service: Echo(), limits: ServerLimits())
        Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8).withUnsafeBytes { c.bytesReceived($0) }
        XCTAssertTrue(io.text.hasPrefix("HTTP/1.1 426"), io.text)
        XCTAssertTrue(io.closed)
        let (_, io2, _) = open(extra: "")
        XCTAssertFalse(io2.text.contains("sec-websocket-protocol"), "no subprotocol offered, none named")
        let (_, io3, _) = open("/refused")
        XCTAssertTrue(io3.text.hasPrefix("HTTP/1.1 403"), io3.text)
        let io4 = FakeIO()
        let c4 = WebSocketServerConnection(io: io4, service: Echo(), limits: ServerLimits())
        Array("GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n".utf8)
            .withUnsafeBytes { c4.bytesReceived($0) }
        XCTAssertTrue(io4.text.hasPrefix("HTTP/1.1 426") && io4.text.contains("sec-websocket-version: 13"), io4.text)
    }
}
