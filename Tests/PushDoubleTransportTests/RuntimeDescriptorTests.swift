import Foundation
import XCTest
@testable import PushDoubleTransport
#if canImport(Glibc)
import Glibc
#endif

/// Descriptor limits and per-listener connection counts, over real sockets.
final class RuntimeDescriptorTests: XCTestCase {
    private func waitFor(_ what: String, timeout: Double = 5, _ cond: () -> Bool) {
        let end = Date().addingTimeInterval(timeout)
        while !cond() && Date() < end { usleep(5_000) }
        XCTAssertTrue(cond(), "timed out waiting for \(what)")
    }

    func testDescriptorLimitIsRaisedToTheHardLimit() {
        _ = HTTPServer(eventLoopCount: 1)
        var rl = rlimit()
        XCTAssertEqual(getrlimit(Posix.RLIMIT_NOFILE_ID, &rl), 0)
        XCTAssertEqual(rl.rlim_cur, rl.rlim_max)
        XCTAssertEqual(HTTPServer.descriptorLimit, rl.rlim_cur == rlim_t.max ? Int.max : Int(rl.rlim_cur))
    }

    func testListenerStatisticsCountConnectionsPerListener() throws {
        let server = HTTPServer(eventLoopCount: 2)
        addTeardownBlock { server.stop(timeout: 0.5) }
        var small = ServerLimits()
        small.maxConnections = 1
        let bound = try server.start([
            ListenerConfiguration(name: "a", responder: echoResponder()),
            ListenerConfiguration(name: "b", limits: small, responder: echoResponder()),
        ])
        let a = try (0..<3).map { _ in try RawClient(port: bound[0].port) }
        let b = try RawClient(port: bound[1].port)
        // b is a real client (it sent a request), so a full listener has nothing to shed.
        b.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(b.read(until: "\r\n\r\n").hasPrefix("HTTP/1.1 200"))
        func stats() -> [String: (Int, Int)] {
            Dictionary(uniqueKeysWithValues: server.listenerStatistics.map { ($0.listener.name, ($0.openConnections, $0.refusedConnections)) })
        }
        waitFor("3 + 1 open") { stats()["a"]?.0 == 3 && stats()["b"]?.0 == 1 }
        XCTAssertEqual(server.listenerStatistics.map(\.listener), bound)
        let refusedClient = try RawClient(port: bound[1].port)
        XCTAssertTrue(refusedClient.waitClosed(timeout: 2), "over maxConnections: closed at accept")
        waitFor("one refused on b") { stats()["b"]?.1 == 1 }
        XCTAssertEqual(stats()["a"]?.1, 0)
        XCTAssertEqual(server.connectionCount, 4)
        withExtendedLifetime(a) {}
        withExtendedLifetime(b) {}
    }

    /// A full listener sheds its oldest connection that has sent nothing yet (silent
    /// sockets must not lock real clients out), never one that sent a request.
    func testAFullListenerShedsTheOldestSilentConnection() throws {
        let server = HTTPServer(eventLoopCount: 2)
        addTeardownBlock { server.stop(timeout: 0.5) }
        var limits = ServerLimits()
        limits.maxConnections = 3
        let port = try server.start([ListenerConfiguration(name: "l", limits: limits, responder: echoResponder())])[0].port
        let talker = try RawClient(port: port)
        talker.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(talker.read(until: "\r\n\r\n").hasPrefix("HTTP/1.1 200"))
        let oldestSilent = try RawClient(port: port)
        waitFor("2 open") { server.listenerStatistics.first?.openConnections == 2 }
        let newerSilent = try RawClient(port: port)
        waitFor("3 open") { server.listenerStatistics.first?.openConnections == 3 }
        let newcomer = try RawClient(port: port)
        // Generous: waitClosed returns at the close, and a fully loaded CI machine once took
        // more than 2 s to run the shed on the connection's loop.
        XCTAssertTrue(oldestSilent.waitClosed(timeout: 10), "the oldest silent connection is shed")
        newcomer.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(newcomer.read(until: "\r\n\r\n").hasPrefix("HTTP/1.1 200"), "the newcomer is served")
        talker.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(talker.read(until: "\r\n\r\n").hasPrefix("HTTP/1.1 200"), "the talking connection is kept")
        XCTAssertFalse(newerSilent.waitClosed(timeout: 0.2), "only one connection was shed")
        XCTAssertEqual(server.listenerStatistics.first?.shedConnections, 1)
        XCTAssertEqual(server.listenerStatistics.first?.refusedConnections, 0)
    }

    /// Out of descriptors, the listener answers a new connection at once (closing it) rather
    /// than leaving it unanswered in the backlog, and serves again as soon as descriptors
    /// are free.
    func testOutOfDescriptorsRefusesTheNewestAndRecovers() throws {
        let responder = ClosureResponder { _, _ in .respond(HTTPResponse(status: 200, body: Array("served".utf8))) }
        let (server, port) = try startServer(self, loops: 1, responder: responder)
        // Lower the soft limit a little above what is in use, then fill it.
        var saved = rlimit()
        XCTAssertEqual(getrlimit(Posix.RLIMIT_NOFILE_ID, &saved), 0)
        let inUse = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
        var low = saved
        low.rlim_cur = rlim_t(inUse + 64)
        XCTAssertEqual(setrlimit(Posix.RLIMIT_NOFILE_ID, &low), 0)
        var fillers: [Int32] = []
        defer {
            for f in fillers { Glibc.close(f) }
            _ = setrlimit(Posix.RLIMIT_NOFILE_ID, &saved)
        }
        while true {
            let f = open("/dev/null", O_RDONLY)
            if f < 0 { break }
            fillers.append(f)
        }
        XCTAssertEqual(errno, EMFILE)
        // One descriptor for the client socket; the server has none left for accept.
        Glibc.close(fillers.removeLast())
        let refused = try RawClient(port: port)
        XCTAssertTrue(refused.waitClosed(timeout: 2), "no descriptor for accept: the newest connection is closed at once")
        waitFor("refused count") { server.listenerStatistics.first?.refusedConnections ?? 0 >= 1 }
        // Descriptors back: the listener serves again.
        for f in fillers.suffix(16) { Glibc.close(f) }
        fillers.removeLast(16)
        let served = try RawClient(port: port)
        served.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertTrue(served.read(until: "served", timeout: 3).hasSuffix("served"), "served once descriptors are free")
    }
}
