import Foundation
import Synchronization
import XCTest
@testable import PushDoubleTransport

/// A streamed body's sink tells its producer what the socket has not taken yet
/// (``ResponseBodySink/unsentBytes``), so a producer can wait or drop a reader that does not
/// read instead of piling output up in memory (history dumps, the SSE stream).
final class RuntimeBackpressureTests: XCTestCase {
    /// Captures the sink so the test can watch it.
    final class Source: ResponseBodySource, @unchecked Sendable {
        let sink = Mutex<ResponseBodySink?>(nil)
        func start(_ sink: ResponseBodySink) { self.sink.withLock { $0 = sink } }
    }

    func testUnsentBytesGrowWhenThePeerDoesNotReadAndDrainWhenItDoes() throws {
        let source = Source()
        let responder = ClosureResponder { _, _ in .stream(HTTPResponse(status: 200), source: source) }
        let (_, port) = try startServer(self, loops: 1, responder: responder)
        let client = try RawClient(port: port)
        client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        var sink: ResponseBodySink?
        let end = Date().addingTimeInterval(5)
        while sink == nil && Date() < end { usleep(2_000); sink = source.sink.withLock { $0 } }
        let s = try XCTUnwrap(sink)
        // 32 MiB the client does not read: the kernel's buffers take a few MiB, the rest waits.
        let chunk = [UInt8](repeating: 0x61, count: 1 << 20)
        for _ in 0..<32 { s.write(chunk) }
        var unsent = 0
        let deadline = Date().addingTimeInterval(5)
        repeat { usleep(10_000); unsent = s.unsentBytes } while unsent < 8 << 20 && Date() < deadline
        XCTAssertGreaterThan(unsent, 8 << 20, "a peer that does not read leaves most of 32 MiB unsent")
        XCTAssertLessThanOrEqual(unsent, (32 << 20) + 4096, "at most what was written, with its chunk framing")
        // The peer reads everything: nothing is left.
        let drained = Date().addingTimeInterval(10)
        var received = 0
        while s.unsentBytes > 0 && Date() < drained { received += client.read(timeout: 0.05).utf8.count }
        XCTAssertEqual(s.unsentBytes, 0, "after the peer read \(received) bytes")
    }
}
