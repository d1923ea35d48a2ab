#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport
import PushDouble
@testable import PushDoubleWebPush

/// The `webpush-autopush` listener over a real socket of the in-process double: the opening
/// handshake as Firefox sends it, `hello`, `register` (a device with an endpoint on the
/// `webpush` listener), ping, close.
final class AutopushSocketTests: XCTestCase {
    /// A blocking TCP client with a receive timeout.
    final class Client {
        let fd: Int32
        var buffer: [UInt8] = []

        init(port: Int) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = in_port_t(UInt16(port).bigEndian)
            a.sin_addr.s_addr = inet_addr("127.0.0.1")
            var tv = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            let rc = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard rc == 0 else { throw POSIXError(.ECONNREFUSED) }
        }
        deinit { close(fd) }

        func send(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) } }

        /// Reads until `done(buffer)` says how many bytes it took, or the timeout.
        func read<T>(_ done: ([UInt8]) throws -> (T, Int)?) throws -> T {
            while true {
                if let (value, used) = try done(buffer) { buffer.removeFirst(used); return value }
                var chunk = [UInt8](repeating: 0, count: 65536)
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { throw POSIXError(.ETIMEDOUT) }
                buffer += chunk[0..<n]
            }
        }

        func head() throws -> String {
            try read { b in
                guard let end = (0..<max(0, b.count - 3)).first(where: { b[$0] == 13 && b[$0 + 1] == 10 && b[$0 + 2] == 13 && b[$0 + 3] == 10 }) else { return nil }
                return (String(decoding: b[0..<end], as: UTF8.self), end + 4)
            }
        }

        func text() throws -> JSONValue {
            try read { b in
                var d = WebSocketFrameDecoder(requireMask: false)
                d.append(b)
                guard let f = try d.next() else { return nil }
                let size = f.encoded().count
                return (try JSONValue.parse(f.payload), size)
            }
        }

        func send(json: JSONValue) { send(WebSocketFrame(opcode: .text, payload: Array(json.compactJSON.utf8)).encoded(mask: [9, 8, 7, 6])) }
    }

    func testFirefoxShapedSessionOverARealSocket() throws {
        var config = PushDoubleConfiguration.ephemeral()
        config.eventLoopCount = 1
        config.proxy = false
        let server = PushDoubleServer(configuration: config)
        try server.start()
        defer { server.stop() }
        let ws = try XCTUnwrap(server.endpoint(named: "webpush-autopush"))
        XCTAssertTrue(ws.url.hasPrefix("http://127.0.0.1:"), ws.url)
        let c = try Client(port: ws.port)
        c.send(Array(("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(ws.port)\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: push-notification\r\n"
            + "Origin: null\r\n\r\n").utf8))
        let head = try c.head()
        XCTAssertTrue(head.hasPrefix("HTTP/1.1 101 Switching Protocols"), head)
        XCTAssertTrue(head.contains("sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="), head)
        c.send(json: ["messageType": "hello", "broadcasts": .object([]), "use_webpush": true])
        let hello = try c.text()
        XCTAssertEqual(hello["status"], 200)
        let channel = "6ff97d56-d0c0-43bc-8f5b-61b855e1d93b"
        c.send(json: ["channelID": .string(channel), "messageType": "register"])
        let reg = try c.text()
        let endpoint = try XCTUnwrap(reg["pushEndpoint"]?.stringValue)
        XCTAssertTrue(endpoint.hasPrefix(try XCTUnwrap(server.endpoint(named: "webpush")?.url) + "/wpush/v1/"), endpoint)
        XCTAssertEqual(server.double.devices.device(id: "browser-" + channel)?.provider, .webpush)
        c.send(json: [:])
        XCTAssertEqual(try c.text(), .object([]), "pong")
        // The browser's close frame is echoed, then the connection ends.
        c.send(WebSocketFrame(opcode: .close, payload: WebSocketFrame.closePayload(code: 1000)).encoded(mask: [1, 2, 3, 4]))
        let echoed = try c.read { b -> (WebSocketFrame, Int)? in
            var d = WebSocketFrameDecoder(requireMask: false)
            d.append(b)
            guard let f = try d.next() else { return nil }
            return (f, f.encoded().count)
        }
        XCTAssertEqual(echoed, WebSocketFrame(opcode: .close, payload: [0x03, 0xE8]))
        XCTAssertThrowsError(try c.read { _ -> (Int, Int)? in nil }, "the server ended the connection")
    }
}
