import Foundation
import XCTest
import PushDouble
import PushDoubleCore
import PushDoubleTransport
@testable import PushDoubleConformance

/// The runner gives back everything a case took — its descriptors (sockets, pipes, event
/// loops) and its server's state (devices, faults, history) — so that many suite runs in one
/// process (the full stability proof runs 240, an embedding may run more) neither run out of
/// descriptors nor grow without bound.
final class RunnerDescriptorTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "the reference sender's process") }

    /// Open descriptors of this process, each as "number -> what it points at".
    static func openDescriptors() -> [String] {
        let dir = "/proc/self/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.compactMap { n in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: dir + "/" + n)).map { "\(n) -> \($0)" }
        }.sorted()
    }

    /// A weak reference, to see whether a case's objects outlive it.
    final class WeakReference: @unchecked Sendable {
        weak var object: AnyObject?
        let name: String
        init(_ object: AnyObject, _ name: String) { self.object = object; self.name = name }
    }

    /// ``ServerFakeHost`` that remembers each case's session, server and state weakly.
    struct WatchingHost: FakeHost {
        let inner = ServerFakeHost()
        let seen: Locked<[WeakReference]>
        func validate(_ scenario: ConformanceScenario) throws { try inner.validate(scenario) }
        func start(_ scenario: ConformanceScenario, seed: UInt64) throws -> any FakeSession {
            let session = try inner.start(scenario, seed: seed)
            if let s = session as? ServerFakeSession {
                seen.withLock { $0 += [WeakReference(s, "session"), WeakReference(s.server, "server"),
                                       WeakReference(s.server.double, "double"), WeakReference(s.server.history, "history")] }
            }
            return session
        }
    }

    func testSuiteRunsGiveBackTheirDescriptorsAndState() throws {
        let all = try ConformanceScenario.loadDirectory(shippedScenarioDirectory, knownChecks: CheckCatalogue.ids)
        let seen = Locked<[WeakReference]>([])
        func run() {
            var o = RunOptions(senderCommand: "\(SuiteAcceptanceTests.executable) --seed 1")
            o.timeout = 30; o.jobs = 8; o.seed = 1
            let report = ConformanceRunner(host: WatchingHost(seen: seen), options: o).run(all)
            XCTAssertEqual(report.cases.count, all.count)
        }
        run()  // warm-up: lazily opened descriptors (the test CA, Foundation's own) stay open
        Thread.sleep(forTimeInterval: 1)
        let before = Self.openDescriptors()
        run()
        Thread.sleep(forTimeInterval: 1)
        let after = Self.openDescriptors()
        print("descriptors: \(before.count) before, \(after.count) after a \(all.count)-case run")
        XCTAssertLessThanOrEqual(after.count, before.count + 4, "a suite run of \(all.count) cases left descriptors open:\n"
                                 + Set(after).subtracting(before).sorted().prefix(40).joined(separator: "\n"))
        let watched = seen.withLock { $0 }
        XCTAssertEqual(watched.count, 2 * all.count * 4, "every case started a server")
        let alive = watched.filter { $0.object != nil }
        XCTAssertTrue(alive.isEmpty, "objects of finished cases still alive: "
                      + Dictionary(grouping: alive, by: { (w: WeakReference) in w.name }).mapValues(\.count).description)
    }
}
