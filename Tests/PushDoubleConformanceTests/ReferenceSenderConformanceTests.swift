import Foundation
import XCTest
import PushDoubleConformance

/// The yardstick: the shipped conformance suite passes the reference sender, and fails
/// each planted bug (`--mutant`). Runs the real runner (in-process fakes over TLS + h2,
/// the sender as a child process), exactly as `pushdouble conform` does.
final class ReferenceSenderConformanceTests: XCTestCase {
    static var scenarioDirectory: String? {
        // Tests/PushDoubleConformanceTests/<this file> → the package root's Scenarios/.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let dir = root.appendingPathComponent("Scenarios").path
        return FileManager.default.fileExists(atPath: dir) ? dir : nil
    }

    private func conform(_ extra: [String] = [], only: String? = nil) throws -> (status: Int32, output: String, report: [String: Any]) {
        let dir = try XCTUnwrap(Self.scenarioDirectory, "the shipped Scenarios/ directory")
        let exe = ReferenceSenderProcess.executableURL.path
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: exe), "build the sender first: \(exe)")
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("refsender-conform-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: json) }
        var args = ["--sender", ([exe] + extra).joined(separator: " "), "--scenarios", dir, "--json", json.path, "--jobs", "4"]
        if let only { args += ["--only", only] }
        let out = OutputBox()
        let status = ConformCommand.run(args, host: ServerFakeHost(), output: { out.append($0) }, errors: { out.append($0) })
        let report = (try? JSONSerialization.jsonObject(with: Data(contentsOf: json))) as? [String: Any] ?? [:]
        return (status, out.text, report)
    }

    /// Failing (check id, case id) pairs of a JSON report.
    private func failures(_ report: [String: Any]) -> [String] {
        var out: [String] = []
        for c in report["cases"] as? [[String: Any]] ?? [] {
            for check in c["checks"] as? [[String: Any]] ?? [] where (check["verdict"] as? String) == "fail" {
                out.append("\(c["id"] as? String ?? "?"): \(check["id"] as? String ?? "?")")
            }
        }
        return out
    }

    func testTheReferenceSenderPassesTheShippedSuite() throws {
        let started = Date()
        let r = try conform()
        XCTAssertEqual(r.status, 0, "failures: \(failures(r.report))\n\(r.output)")
        XCTAssertLessThan(Date().timeIntervalSince(started), 60, "the suite stays fast against the reference sender")
    }

    /// Each mutant fails the check that targets its bug, in the case built for it (only
    /// those cases run, to keep this test short).
    func testEveryMutantIsCaught() throws {
        let expected: [(mutant: String, cases: String, check: String)] = [
            ("retry-dead-tokens", "apns.unregistered", "apns.no-retry-permanent"),
            ("jwt-per-request", "apns.jwt-reuse", "apns.jwt-reuse"),
            ("ignore-retry-after", "apns.too-many-requests,apns.service-unavailable", "apns.retry-after"),
            ("no-backoff", "apns.internal-server-error-backoff", "apns.backoff-grows"),
            ("connection-per-push", "apns.connection-reuse", "apns.connection-reuse"),
            ("oversized-payloads", "apns.oversized-payload", "apns.payload-limits"),
            ("wrong-topic-suffix", "apns.push-type-topics", "apns.header.topic-suffix"),
            ("background-priority-10", "apns.background", "apns.header.background"),
            ("resend-all-after-goaway", "apns.goaway-mid-batch", "apns.goaway-unprocessed"),
            ("never-retry-transient", "apns.internal-server-error-backoff", "apns.transient-retried"),
            ("report-sent-always", "apns.unregistered", "apns.outcome-truthful"),
        ]
        XCTAssertEqual(Set(expected.map(\.mutant)).count, 11, "every mutant listed once")
        for (mutant, cases, check) in expected {
            let r = try conform(["--mutant", mutant], only: cases)
            let f = failures(r.report)
            XCTAssertEqual(r.status, 1, "\(mutant): the run must fail\n\(r.output)")
            XCTAssertTrue(f.contains { $0.hasSuffix(": " + check) }, "\(mutant) should fail \(check); failed: \(f)\n\(r.output)")
        }
    }
}

/// Collects output lines from the runner (called on the test's thread).
private final class OutputBox: @unchecked Sendable {
    private let lock = NSLock()
    private var parts: [String] = []
    func append(_ s: String) { lock.lock(); parts.append(s); lock.unlock() }
    var text: String { lock.lock(); defer { lock.unlock() }; return parts.joined() }
}
