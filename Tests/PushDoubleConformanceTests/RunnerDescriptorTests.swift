import Foundation
import XCTest
@testable import PushDoubleConformance

/// The runner gives back every descriptor a case took (sockets, pipes, event loops), so
/// that many suite runs in one process (the stability proof, a long-lived embedding) do
/// not run out of descriptors.
final class RunnerDescriptorTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "the reference sender's process") }

    /// Open descriptors of this process, by what they point at.
    static func openDescriptors() -> [String] {
        let dir = "/proc/self/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.compactMap { n in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: dir + "/" + n)).map { "\(n) -> \($0)" }
        }.sorted()
    }

    func testSuiteRunsGiveBackTheirDescriptors() throws {
        let all = try ConformanceScenario.loadDirectory(shippedScenarioDirectory, knownChecks: CheckCatalogue.ids)
        func run() {
            var o = RunOptions(senderCommand: "\(SuiteAcceptanceTests.executable) --seed 1")
            o.timeout = 30; o.jobs = 8; o.seed = 1
            _ = ConformanceRunner(host: ServerFakeHost(), options: o).run(all)
        }
        run()
        Thread.sleep(forTimeInterval: 1)
        let before = Self.openDescriptors()
        run()
        Thread.sleep(forTimeInterval: 1)
        let after = Self.openDescriptors()
        let kinds = Dictionary(grouping: after, by: { $0.components(separatedBy: " -> ").last!.components(separatedBy: ":").first! }).mapValues(\.count)
        print("descriptors: \(before.count) before, \(after.count) after a \(all.count)-case run; after by kind: \(kinds)")
        XCTAssertLessThanOrEqual(after.count, before.count + 4, "a suite run of \(all.count) cases left descriptors open:\n"
                                 + Set(after).subtracting(before).sorted().prefix(40).joined(separator: "\n"))
    }
}
