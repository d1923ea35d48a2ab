import Foundation
import XCTest
import PushDoubleTestSupport
import Synchronization
@testable import PushDoubleTransport
import COpenSSL

final class RuntimeEventLoopTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "curl") }

    func testTimersFireInDeadlineOrderAndCancelWorks() throws {
        let group = try EventLoopGroup(count: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let fired = Locked<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            for (i, d) in [0.08, 0.02, 0.05, 0.0].enumerated() {
                loop.scheduleTimer(after: d) { fired.withLock { $0.append(i) } }
            }
            let cancelled = loop.scheduleTimer(after: 0.03) { fired.withLock { $0.append(99) } }
            loop.cancelTimer(cancelled)
            loop.scheduleTimer(after: 0.1) { done.signal() }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 2), .success)
        XCTAssertEqual(fired.withLock { $0 }, [3, 1, 2, 0])
    }

    func testExecuteFromManyThreadsRunsEverythingOnTheLoop() throws {
        let group = try EventLoopGroup(count: 2)
        defer { group.shutdown() }
        let loop = group.loops[1]
        let count = Locked(0)
        let threads = Locked(Set<String>())
        let done = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<500 {
                done.enter()
                loop.execute {
                    count.withLock { $0 += 1 }
                    var name = [CChar](repeating: 0, count: 32)
                    pd_get_thread_name(&name)
                    let s = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    threads.withLock { _ = $0.insert(s) }
                    done.leave()
                }
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(count.withLock { $0 }, 4000)
        XCTAssertEqual(threads.withLock { $0 }, ["pd-loop-1"])
    }

    func testListenErrorsAreTyped() throws {
        XCTAssertThrowsError(try HTTPServer.listen(host: "not-an-ip", port: 0)) { e in
            XCTAssertEqual((e as? PosixError)?.errno, EINVAL)
        }
        let fd = try HTTPServer.listen(host: "127.0.0.1", port: 0)
        defer { Posix.close(fd) }
        XCTAssertGreaterThan(SocketAddress.localPort(of: fd), 0)
        let server = HTTPServer(eventLoopCount: 1)
        defer { server.stop() }
        // A port held by a socket without SO_REUSEPORT cannot be taken.
        let blocker = socket(AF_INET, 1 /* SOCK_STREAM */, 0)
        defer { close(blocker) }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = UInt32(0x7f000001).bigEndian
        _ = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(blocker, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        Glibc.listen(blocker, 1)
        let port = SocketAddress.localPort(of: blocker)
        XCTAssertThrowsError(try server.start([ListenerConfiguration(name: "x", port: port, responder: echoResponder())])) { e in
            XCTAssertEqual((e as? PosixError)?.errno, EADDRINUSE, "\(e)")
        }
    }

    func testIPv6Listener() throws {
        let server = HTTPServer(eventLoopCount: 1)
        defer { server.stop() }
        let r = echoResponder()
        let bound: [BoundListener]
        do {
            bound = try server.start([ListenerConfiguration(name: "v6", host: "::1", port: 0, responder: r)])
        } catch let e as PosixError {
            // A machine without IPv6 loopback: the failure must be the typed "no such address" error.
            XCTAssertTrue([EADDRNOTAVAIL, EAFNOSUPPORT].contains(e.errno), "\(e)")
            return
        }
        let res = try runCommand(["curl", "-sS", "--http1.1", "http://[::1]:\(bound[0].port)/six"])
        XCTAssertEqual(res.stdout, "GET /six 0\n", res.stderr)
        XCTAssertTrue(r.recorded.first?.info.connection.peer.hasPrefix("[::1]:") ?? false)
    }
}

extension RuntimeEventLoopTests {
    func testRoundRobinAcceptStrategyServesOnEveryLoop() throws {
        let server = HTTPServer(eventLoopCount: 2, acceptStrategy: .roundRobin)
        defer { server.stop(timeout: 0.5) }
        let loopsSeen = Locked(Set<String>())
        let r = ClosureResponder { req, _ in
            var name = [CChar](repeating: 0, count: 32)
            pd_get_thread_name(&name)
            loopsSeen.withLock { _ = $0.insert(String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
            return .respond(HTTPResponse(status: 200, contentType: "text/plain", body: req.path))
        }
        let port = try server.start([ListenerConfiguration(name: "rr", responder: r)])[0].port
        for i in 0..<4 {
            let res = try runCommand(["curl", "-sS", i % 2 == 0 ? "--http1.1" : "--http2-prior-knowledge", "http://127.0.0.1:\(port)/\(i)"])
            XCTAssertEqual(res.stdout, "/\(i)", res.stderr)
        }
        XCTAssertEqual(loopsSeen.withLock { $0 }, ["pd-loop-0", "pd-loop-1"])
    }
}
