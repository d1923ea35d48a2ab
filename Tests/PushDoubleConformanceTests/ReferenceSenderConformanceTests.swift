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

    /// Each mutant fails at least one check, and the expected one among them.
    func testEveryMutantIsCaught() throws {
        let expected: [String: String] = [
            "retry-dead-tokens": "apns.no-retry-permanent",
            "jwt-per-request": "apns.jwt-reuse",
            "ignore-retry-after": "apns.retry-after",
            "no-backoff": "apns.backoff-grows",
            "connection-per-push": "apns.connection-reuse",
            "oversized-payloads": "",
            "wrong-topic-suffix": "",
            "background-priority-10": "",
            "resend-all-after-goaway": "",
            "never-retry-transient": "apns.transient-retried",
            "report-sent-always": "",
        ]
        var uncaught: [String] = []
        for (mutant, check) in expected.sorted(by: { $0.key < $1.key }) {
            let r = try conform(["--mutant", mutant])
            let f = failures(r.report)
            if r.status == 0 || f.isEmpty { uncaught.append(mutant); continue }
            if !check.isEmpty {
                XCTAssertTrue(f.contains { $0.hasSuffix(": " + check) }, "\(mutant) should fail \(check); failed: \(f)")
            }
        }
        XCTAssertEqual(uncaught, [], "mutants the suite did not catch")
    }
}

/// Collects output lines from the runner (called on the test's thread).
private final class OutputBox: @unchecked Sendable {
    private let lock = NSLock()
    private var parts: [String] = []
    func append(_ s: String) { lock.lock(); parts.append(s); lock.unlock() }
    var text: String { lock.lock(); defer { lock.unlock() }; return parts.joined() }
}
