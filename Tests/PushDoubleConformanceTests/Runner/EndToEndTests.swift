import XCTest
import PushDoubleTestSupport
@testable import PushDoubleConformance
import PushDoubleCore

/// The runner with real fakes (TLS + HTTP/2 on loopback) and real senders; the same through
/// `pushdouble conform` is PushDoubleCLITests' EndToEndTests.
final class EndToEndTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "the reference sender's process", "python3") }

    static let httpxAdapter = makeScript("httpx_adapter.py", httpxAdapterPython)
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
        // A sequential sender has nothing in flight to resend after a GOAWAY (nor an unprocessed
        // stream to give up); the adapter speaks APNs only (the shared and APNs rows only) and
        // does not play the 429-without-Retry-After bug (the reference sender's mutant tests do);
        // it authenticates with JWTs only and sends no broadcasts, so the certificate and broadcast cases are n/a for it.
        let notPlayed: Set<String> = ["resend-all-after-goaway", "fail-pending-at-goaway", "give-up-unprocessed", "give-up-429-without-retry-after",
                                      "certificate-error-kills-token", "broadcast-device-path", "broadcast-no-channel-id", "broadcast-alert-push-type",
                                      "broadcast-stored-expiration", "channel-per-broadcast", "broadcast-no-retry"]
        let playable = SenderMutants.all.filter { ($0.provider == nil || $0.provider == "apns") && !notPlayed.contains($0.name) }
        for e in playable {
            let v = try verdicts(command: "MUTANT=\(e.name) python3 \(Self.httpxAdapter)", checks: e.failingChecks)
            for c in e.failingChecks {
                XCTAssertTrue(v[c]?.contains { $0 == .fail || $0 == .warn } ?? false, "\(e.name): \(c) did not fail: \(v[c] ?? [])")
            }
        }
    }
}
