import Foundation
import XCTest
@testable import PushDoubleTransport
#if canImport(Glibc)
import Glibc
#endif

/// An event loop gives its descriptors back when it stops, and a stopped loop stays inert.
final class EventLoopLifecycleTests: XCTestCase {
    static func openDescriptorCount() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
    }

    func testStoppedGroupsReturnTheirDescriptors() throws {
        // Warm-up: Foundation opens a few descriptors of its own the first time.
        try EventLoopGroup(count: 2).shutdown()
        let before = Self.openDescriptorCount()
        for _ in 0..<50 {
            let group = try EventLoopGroup(count: 2)
            let ran = DispatchSemaphore(value: 0)
            group.loops[1].execute { ran.signal() }
            XCTAssertEqual(ran.wait(timeout: .now() + 5), .success)
            group.shutdown()
        }
        let after = Self.openDescriptorCount()
        // 50 groups of 2 loops held 200 descriptors while they ran; none may remain.
        XCTAssertLessThanOrEqual(after, before + 2, "descriptors left open by 50 stopped event-loop groups: \(after - before)")
    }

    func testAStoppedLoopDropsTasksAndNeverWritesToAReusedDescriptor() throws {
        let group = try EventLoopGroup(count: 1)
        let loop = group.loops[0]
        group.shutdown()
        group.shutdown()  // a second stop returns at once
        // The descriptors the loop closed are the lowest free numbers now: a new pipe reuses
        // them, and a late execute must not write the wake-up into it.
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]); close(fds[1]) }
        let flags = fcntl(fds[0], F_GETFL)
        _ = fcntl(fds[0], F_SETFL, flags | O_NONBLOCK)
        let ran = Locked(false)
        loop.execute { ran.withLock { $0 = true } }
        Thread.sleep(forTimeInterval: 0.05)
        var byte: UInt8 = 0
        XCTAssertEqual(read(fds[0], &byte, 1), -1, "nothing was written to the pipe")
        XCTAssertFalse(ran.withLock { $0 }, "a task given to a stopped loop does not run")
    }
}
