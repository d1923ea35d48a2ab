import Foundation
import XCTest
import Synchronization
import PushDoubleHPACK
@testable import PushDoubleTransport
#if canImport(Glibc)
import Glibc
#endif

/// Fairness over real sockets (docs/transport.md "Fairness and floods"): connections flooding cheap HTTP/2 frames must neither
/// starve the other connections of their event loop nor be served forever.
final class RuntimeFloodTests: XCTestCase {
    /// What a flooding connection sends after its preface.
    enum FloodKind: Sendable {
        /// PRIORITY frames on stream 1, in a loop.
        case priority
        /// HEADERS without END_HEADERS, then empty CONTINUATION frames in a loop.
        case emptyContinuation
    }

    /// One flooding client on its own thread, with blocking sockets: it writes the flood
    /// in 1000-frame batches and, between batches, collects what the server sent without
    /// waiting. With `reconnect` it opens a new connection each time one is closed.
    final class Flooder: @unchecked Sendable {
        let port: Int
        let kind: FloodKind
        let reconnect: Bool
        private let state = Mutex<(stop: Bool, goAways: [HTTP2ErrorCode], connections: Int, bytesSent: Int)>((false, [], 0, 0))
        private let done = DispatchSemaphore(value: 0)

        init(port: Int, kind: FloodKind, reconnect: Bool) {
            self.port = port; self.kind = kind; self.reconnect = reconnect
        }

        var goAways: [HTTP2ErrorCode] { state.withLock { $0.goAways } }
        var connections: Int { state.withLock { $0.connections } }
        var bytesSent: Int { state.withLock { $0.bytesSent } }

        func start() { Thread.detachNewThread { [self] in self.run(); self.done.signal() } }

        /// Stops flooding; false when the thread did not finish within `timeout`.
        func stop(timeout: Double) -> Bool {
            state.withLock { $0.stop = true }
            return done.wait(timeout: .now() + timeout) == .success
        }

        private var stopped: Bool { state.withLock { $0.stop } }

        private func run() {
            repeat {
                floodOneConnection()
            } while reconnect && !stopped
        }

        private func floodOneConnection() {
            guard let client = try? RawClient(port: port) else { return }
            // A server that stopped reading for good must not hang the test.
            var tv = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(client.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            state.withLock { $0.connections += 1 }
            let enc = HTTP2FrameEncoder()
            var opening = http2ClientPreface
            enc.encode(.settings([]), into: &opening)
            var batch: [UInt8] = []
            switch kind {
            case .priority:
                for _ in 0..<1000 {
                    enc.encode(HTTP2Frame(streamID: 1, payload: .priority(HTTP2PriorityData())), into: &batch)
                }
            case .emptyContinuation:
                var hpack = HPACKEncoder(maxTableSize: 4096, useHuffman: false)
                var block: [UInt8] = []
                hpack.encode([(":method", "GET"), (":scheme", "http"), (":path", "/"), (":authority", "flood")], into: &block)
                enc.encode(.headers(streamID: 1, fragment: block, endStream: true, endHeaders: false), into: &opening)
                for _ in 0..<1000 { enc.encode(HTTP2Frame(streamID: 1, payload: .continuation([])), into: &batch) }
            }
            guard client.send(opening) else { return }
            var decoder = HTTP2FrameDecoder(maxFrameSize: HTTP2Limits.maxAllowedFrameSize)
            var buf = [UInt8](repeating: 0, count: 65536)
            while !stopped {
                if !client.send(batch) { break }
                state.withLock { $0.bytesSent += batch.count }
                // Whatever the server sent, without blocking.
                let n = buf.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if n == 0 { break }
                if n > 0 {
                    decoder.append(contentsOf: buf[0..<n])
                    if let code = Self.goAwayCode(&decoder) {
                        state.withLock { $0.goAways.append(code) }
                        break
                    }
                }
            }
        }

        private static func goAwayCode(_ decoder: inout HTTP2FrameDecoder) -> HTTP2ErrorCode? {
            while let f = try? decoder.nextFrame() {
                if case .goAway(_, let code, _) = f.payload { return code }
            }
            return nil
        }
    }

    /// A blocking HTTP/2 client that times one GET at a time on its own connection.
    final class Probe {
        let client: RawClient
        private let enc = HTTP2FrameEncoder()
        private var hpack = HPACKEncoder(maxTableSize: 4096, useHuffman: false)
        private var decoder = HTTP2FrameDecoder(maxFrameSize: HTTP2Limits.maxAllowedFrameSize)
        private var nextStream: UInt32 = 1

        init(port: Int) throws {
            client = try RawClient(port: port)
            var out = http2ClientPreface
            enc.encode(.settings([]), into: &out)
            enc.encode(.settingsAck, into: &out)
            XCTAssertTrue(client.send(out))
        }

        /// Seconds from sending the request to the end of its response; nil on failure.
        func timeOneRequest(timeout: Double = 10) -> Double? {
            let id = nextStream
            nextStream += 2
            var block: [UInt8] = []
            hpack.encode([(":method", "GET"), (":scheme", "http"), (":path", "/probe"), (":authority", "probe")], into: &block)
            var out: [UInt8] = []
            enc.encode(.headers(streamID: id, fragment: block, endStream: true), into: &out)
            let start = DispatchTime.now().uptimeNanoseconds
            guard client.send(out) else { return nil }
            let deadline = Date().addingTimeInterval(timeout)
            var buf = [UInt8](repeating: 0, count: 65536)
            while Date() < deadline {
                while let f = try? decoder.nextFrame() {
                    if f.streamID == id && f.endStream {
                        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                    }
                }
                var pfd = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
                if poll(&pfd, 1, 100) <= 0 { continue }
                let n = buf.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { return nil }
                decoder.append(contentsOf: buf[0..<n])
            }
            return nil
        }
    }

    struct Latencies: CustomStringConvertible {
        var samples: [Double]
        var p50: Double { samples.sorted()[samples.count / 2] }
        var p90: Double { samples.sorted()[samples.count * 9 / 10] }
        var max: Double { samples.max() ?? 0 }
        var description: String {
            String(format: "n=%d p50=%.2f ms p90=%.2f ms max=%.2f ms", samples.count, p50 * 1000, p90 * 1000, max * 1000)
        }

        /// The bounds both flood tests assert. On this shared 2-core machine single requests
        /// stall for tens of milliseconds whenever the scheduler runs something else, so the
        /// maximum gets a wide margin; the median and the 90th percentile are what a starved
        /// loop (hundreds of milliseconds to seconds without the budgets) cannot meet. Their
        /// slack (50 and 100 ms) stays well below that, and above what a busy machine alone
        /// does: with the whole run's three test processes sharing the two cores, the median
        /// during a fair flood reached 19 ms against a 0.27 ms baseline.
        func assertWithinBounds(of baseline: Latencies, file: StaticString = #filePath, line: UInt = #line) {
            let ctx = "during flood \(self) vs baseline \(baseline)"
            XCTAssertLessThan(p50, 20 * baseline.p50 + 0.05, ctx, file: file, line: line)
            XCTAssertLessThan(p90, 20 * baseline.p90 + 0.1, ctx, file: file, line: line)
            XCTAssertLessThan(max, 20 * baseline.max + 0.5, ctx, file: file, line: line)
        }
    }

    /// Times requests one after another, about every 5 ms, for `seconds` (at least 20).
    func measure(_ probe: Probe, seconds: Double) throws -> Latencies {
        var samples: [Double] = []
        let end = Date().addingTimeInterval(seconds)
        while Date() < end || samples.count < 20 {
            samples.append(try XCTUnwrap(probe.timeOneRequest(), "probe request failed"))
            usleep(5_000)
        }
        return Latencies(samples: samples)
    }

    static func serve(_ test: XCTestCase, limits: ServerLimits) throws -> Int {
        let responder = ClosureResponder { _, _ in .respond(HTTPResponse(status: 200, body: Array("ok".utf8))) }
        // One loop: the flooders and the probe share it, the worst case for fairness.
        return try startServer(test, loops: 1, configure: { $0.limits = limits; $0.allowHTTP1 = false }, responder: responder).1
    }

    func runFlood(port: Int, reconnect: Bool, seconds: Double) throws -> (baseline: Latencies, flood: Latencies, flooders: [Flooder]) {
        let probe = try Probe(port: port)
        _ = try measure(probe, seconds: 0.2)  // warm-up
        let baseline = try measure(probe, seconds: 0.5)
        let flooders = [FloodKind.priority, .priority, .emptyContinuation, .emptyContinuation].map {
            Flooder(port: port, kind: $0, reconnect: reconnect)
        }
        for f in flooders { f.start() }
        usleep(100_000)  // let the floods get going
        let flood = try measure(probe, seconds: seconds)
        for f in flooders { XCTAssertTrue(f.stop(timeout: 10), "flooder thread did not stop") }
        return (baseline, flood, flooders)
    }

    /// The budgets alone: with the cheap-frame and header-block caps out of the way, four
    /// connections flood for 2 s and requests on a fifth stay fast.
    func testFloodingConnectionsDoNotStarveOthers() throws {
        var limits = ServerLimits()
        limits.maxCheapFrames = .max
        limits.maxHeaderBlockFrames = .max
        limits.maxHeaderListSize = 1 << 30
        let port = try Self.serve(self, limits: limits)
        let r = try runFlood(port: port, reconnect: false, seconds: 2)
        let sent = r.flooders.map(\.bytesSent).reduce(0, +)
        print("flood, caps off: baseline \(r.baseline); during flood \(r.flood); flooders sent \(sent / 1024) KiB")
        XCTAssertTrue(r.flooders.allSatisfy { $0.goAways.isEmpty }, "the caps were off: the floods ran to the end")
        XCTAssertGreaterThan(sent, 4 << 20, "the flooders really flooded")
        r.flood.assertWithinBounds(of: r.baseline)
    }

    /// Default limits: every flooding connection gets GOAWAY ENHANCE_YOUR_CALM (flooders
    /// reconnect and start over for 2 s), and requests on another connection stay fast.
    func testFloodersGetEnhanceYourCalm() throws {
        let port = try Self.serve(self, limits: ServerLimits())
        let r = try runFlood(port: port, reconnect: true, seconds: 2)
        print("flood, default limits: baseline \(r.baseline); during flood \(r.flood); connections per flooder \(r.flooders.map(\.connections))")
        for f in r.flooders {
            XCTAssertFalse(f.goAways.isEmpty, "\(f.kind) flooder got no GOAWAY")
            XCTAssertTrue(f.goAways.allSatisfy { $0 == .enhanceYourCalm }, "\(f.kind): \(f.goAways)")
            XCTAssertGreaterThan(f.connections, 1, "\(f.kind): each connection was ended, so the flooder had to reconnect")
        }
        r.flood.assertWithinBounds(of: r.baseline)
    }
}
