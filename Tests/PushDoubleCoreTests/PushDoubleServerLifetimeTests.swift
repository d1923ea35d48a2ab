import Foundation
import XCTest
import PushDoubleCore
@testable import PushDouble

/// A stopped and released server gives everything back: its state (devices, faults, history)
/// and its descriptors. The conformance runner starts one server per case, so anything a
/// server keeps after it is gone grows with every case of a long run.
final class PushDoubleServerLifetimeTests: XCTestCase {
    private static func openDescriptorCount() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
    }

    /// Starts and stops one server; returns weak references to it and its state.
    private func cycle() throws -> (server: () -> PushDoubleServer?, double: () -> DoubleState?) {
        var config = PushDoubleConfiguration.ephemeral()
        config.eventLoopCount = 1
        config.proxy = true  // every listener kind: fakes, CONNECT proxy, admin API with the inbox
        config.admin = true
        let server = PushDoubleServer(configuration: config)
        try server.start()
        XCTAssertFalse(server.endpoints.isEmpty)
        server.stop()
        weak let weakServer = server
        weak let weakDouble = server.double
        return ({ weakServer }, { weakDouble })
    }

    func testAStoppedServerAndItsStateAreReleased() throws {
        let refs = try cycle()
        XCTAssertNil(refs.server(), "the stopped server is released")
        XCTAssertNil(refs.double(), "its devices, fault rules and history are released with it")
    }

    func testStartingAndStoppingServersLeavesNoDescriptorOpen() throws {
        _ = try cycle()  // warm-up: the first start loads credentials and opens a few lazies
        let before = Self.openDescriptorCount()
        for _ in 0..<20 { _ = try cycle() }
        let after = Self.openDescriptorCount()
        XCTAssertLessThanOrEqual(after, before + 2, "descriptors left open by 20 started and stopped servers: \(after - before)")
    }
}
