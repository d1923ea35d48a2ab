import XCTest
@testable import PushDoubleConformance
import PushDoubleCore

/// The whole pipeline with real fakes (TLS + HTTP/2 on loopback) and real senders.
final class EndToEndTests: XCTestCase {
    static let httpxAdapter = makeScript("httpx_adapter.py", httpxAdapterPython)

    func runCLI(_ args: [String]) -> (Int32, String, String) {
        var o = "", e = ""
        let code = ConformCommand.run(args, host: ServerFakeHost(), output: { o += $0 }, errors: { e += $0 })
        return (code, o, e)
    }

    /// An independent sender (httpx + PyJWT, sequential, one device at a time) passes the shipped suite.
    func testHttpxAdapterPassesShippedSuite() throws {
        let json = NSTemporaryDirectory() + "pd-e2e-\(getpid()).json"
        let start = Date()
        let (code, out, err) = runCLI(["--sender", "python3 \(Self.httpxAdapter)", "--scenarios", shippedScenarioDirectory,
                                       "--timeout", "30", "--json", json])
        print(out, err)
        XCTAssertEqual(code, 0, out + err)
        XCTAssertTrue(out.contains(" 0 failed, 0 warned"), out)
        XCTAssertLessThan(Date().timeIntervalSince(start), 60)
    }
}

extension EndToEndTests {
    /// Runs the cases that use `checks` against `command` and returns the verdict of each of those checks.
    func verdicts(command: String, checks: [String]) throws -> [String: [Verdict]] {
        let all = try ConformanceScenario.loadDirectory(shippedScenarioDirectory, knownChecks: CheckCatalogue.ids)
        let cases = all.filter { s in s.checks.contains { checks.contains($0.id) } }
        var o = RunOptions(senderCommand: command); o.timeout = 30; o.jobs = 8
        let report = ConformanceRunner(host: ServerFakeHost(), options: o).run(cases)
        var out: [String: [Verdict]] = [:]
        for c in report.cases { for k in c.checks where checks.contains(k.id) { out[k.id, default: []].append(k.verdict) } }
        return out
    }

    /// Every planted bug the httpx adapter can play is caught by the checks the mutant table names.
    func testHttpxAdapterMutantsAreCaught() throws {
        let playable = MutantTable.entries.filter { $0.mutant != "resend-all-after-goaway" } // a sequential sender has nothing in flight
        for e in playable {
            let v = try verdicts(command: "MUTANT=\(e.mutant) python3 \(Self.httpxAdapter)", checks: e.failingChecks)
            for c in e.failingChecks {
                XCTAssertTrue(v[c]?.contains { $0 == .fail || $0 == .warn } ?? false, "\(e.mutant): \(c) did not fail: \(v[c] ?? [])")
            }
        }
    }
}

extension EndToEndTests {
    /// The short adapter printed in docs/conformance.md really works: it passes the cases
    /// that need no retries or rich mapping.
    func testDocsExampleAdapterWorks() throws {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent(); url.deleteLastPathComponent(); url.deleteLastPathComponent()
        let doc = try String(contentsOf: url.appendingPathComponent("docs/conformance.md"), encoding: .utf8)
        let section = try XCTUnwrap(doc.range(of: "## Writing an adapter"))
        let rest = doc[section.upperBound...]
        let open = try XCTUnwrap(rest.range(of: "```python\n"))
        let close = try XCTUnwrap(rest[open.upperBound...].range(of: "```"))
        let script = makeScript("docs_adapter.py", String(rest[open.upperBound..<close.lowerBound]))
        let (code, out, err) = runCLI(["--sender", "python3 \(script)", "--scenarios", shippedScenarioDirectory, "--timeout", "30",
                                       "--only", "apns.unregistered,apns.bad-device-token-environment,apns.device-token-not-for-topic,apns.jwt-reuse"])
        XCTAssertEqual(code, 0, out + err)
        XCTAssertTrue(out.hasSuffix("4 passed, 0 failed, 0 warned\n"), out + err)
    }
}

extension EndToEndTests {
    /// One sender process for several cases: every case is initialized afresh and still passes
    /// (shipped cases use distinct tokens, so a sender's memory of dead tokens cannot leak).
    func testReuseSenderAgainstRealFakes() {
        let (code, out, err) = runCLI(["--sender", "python3 \(Self.httpxAdapter)", "--scenarios", shippedScenarioDirectory, "--timeout", "30",
                                       "--reuse-sender", "--only", "apns.unregistered,apns.happy-path,apns.device-token-not-for-topic"])
        XCTAssertEqual(code, 0, out + err)
        XCTAssertTrue(out.hasSuffix("3 passed, 0 failed, 0 warned\n"), out + err)
    }
}
