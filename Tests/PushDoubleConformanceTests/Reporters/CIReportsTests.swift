import XCTest
@testable import PushDoubleConformance
import PushDoubleCore

/// The CI-facing outputs on a built report, no process: the summary's counting rules, JUnit's
/// mapping of verdicts, Markdown and annotation escaping, the behaviour diff, tags and the
/// per-provider references of generic checks.
final class CIReportsTests: XCTestCase {
    static func check(_ id: String, _ v: Verdict, _ severity: Severity = .must, known: Bool = false) -> CheckResult {
        CheckResult(id: id, title: id, reference: "R", severity: severity, verdict: v, message: "m \(id)", evidence: [], known: known)
    }

    static func report() -> RunReport {
        var crashed = CaseResult(id: "apns.crash", title: "c", references: [], file: "/repo/Scenarios/apns.crash.json", verdict: .pass,
                                 sender: nil, driverFailure: "sender exited", senderLog: "", durationSeconds: 1,
                                 checks: [check("driver.protocol", .fail), check("outcome", .notApplicable)], steps: [], history: [])
        crashed.recomputeVerdict()
        var known = CaseResult(id: "apns.known", title: "k", references: [], file: nil, verdict: .pass, sender: nil, driverFailure: nil,
                               senderLog: "", durationSeconds: 1,
                               checks: [check("driver.protocol", .pass), check("retry-after", .fail, known: true), check("backoff-jitter", .warn, .should)],
                               steps: [], history: [])
        known.recomputeVerdict()
        return RunReport(sender: "s", seed: nil, startedAt: Date(timeIntervalSince1970: 1_800_000_000), durationSeconds: 2, cases: [crashed, known])
    }

    func testSummaryCountsAndStatus() {
        let s = Self.report().summary
        XCTAssertEqual(s.status, .error)
        XCTAssertEqual(s.exitCode, 3)
        XCTAssertEqual(s.cases, RunSummary.Counts(total: 2, passed: 0, failed: 1, warned: 0, info: 0, notApplicable: 0, errors: 1))
        XCTAssertEqual(s.checks, RunSummary.Counts(total: 5, passed: 1, failed: 1, warned: 1, info: 0, notApplicable: 1, errors: 1))
        XCTAssertEqual(s.newFailures, [])
        XCTAssertEqual(s.knownFailures.map(\.check), ["retry-after"])
        XCTAssertEqual(s.warnings.map(\.check), ["backoff-jitter"], "a warning in a failed case is still counted")
        XCTAssertEqual(s.errors.map(\.case), ["apns.crash"])
    }

    func testJUnitMapsVerdictsForWidgets() {
        var r = Self.report()
        var xml = JUnitReporter.render(r)
        XCTAssertTrue(xml.contains("<testsuites name=\"pushdouble conform\" tests=\"5\" failures=\"0\" errors=\"1\" skipped=\"2\""), xml)
        XCTAssertTrue(xml.contains("<error message=\"m driver.protocol\""), xml)
        XCTAssertTrue(xml.contains("<skipped message=\"known failure (baseline): m retry-after\"/>"), xml)
        XCTAssertTrue(xml.contains("name=\"driver.protocol\" file=\"/repo/Scenarios/apns.crash.json\""), xml)
        XCTAssertTrue(xml.contains("<property name=\"status\" value=\"error\"/>"), xml)
        XCTAssertTrue(xml.contains("<property name=\"seed\" value=\"per scenario: \"/>"), xml)
        r.failOn = .warn
        xml = JUnitReporter.render(r)
        XCTAssertTrue(xml.contains("<failure message=\"m backoff-jitter\""), "a new warning fails under --fail-on warn")
    }

    func testAnnotationsAndMarkdownEscape() {
        var r = Self.report()
        r.cases[1].checks[2].message = "50% of 3 retries,\nin lockstep: bad"
        let a = GitHubAnnotationsReporter.render(r, relativeTo: "/repo")
        XCTAssertEqual(a, "::error file=Scenarios/apns.crash.json,title=apns.crash driver.protocol::[MUST; R] m driver.protocol\n"
                       + "::warning title=apns.known backoff-jitter::[SHOULD; R] 50%25 of 3 retries,%0Ain lockstep: bad\n")
        XCTAssertEqual(GitHubAnnotationsReporter.property("a:b,c%"), "a%3Ab%2Cc%25")
        XCTAssertEqual(MarkdownSummaryReporter.escape("a|b <i>*x*</i>\nc"), "a\\|b \\<i\\>\\*x\\*\\</i\\> c")
        let md = MarkdownSummaryReporter.render(r)
        XCTAssertTrue(md.contains("| checks | 5 | 1 | 1 | 1 | 0 | 1 | 1 |"), md)
        XCTAssertTrue(md.contains("### new MUST failures (0)\n\nNone.\n"), md)
    }

    func testComparisonDeltas() {
        var old = Self.report(), new = Self.report()
        old.cases[1].costs = CaseCosts(requests: 4, delivered: 4, retries: 0, connections: 1, credentials: 1, deadTokenReuses: 0)
        new.cases[1].costs = CaseCosts(requests: 6, delivered: 4, retries: 2, connections: 4, credentials: 1, deadTokenReuses: 0)
        new.cases[1].checks[1].verdict = .pass
        let text = RunComparison(old: old, new: new).render(oldName: "old.json")
        XCTAssertTrue(text.contains("  apns.known: fail → fail\n    no longer fails/warns: retry-after\n"), text)
        XCTAssertTrue(text.contains("    connections: 1 → 4 (+3)\n"), text)
        XCTAssertTrue(text.contains("    requests per delivered: 1 → 1.50 (+0.50)\n"), text)
        XCTAssertEqual(RunComparison.delta(3, 1), "3 → 1 (-2)")
        XCTAssertEqual(RunComparison.delta(nil, 1), "— → 1")
    }

    func testTagsAndSelection() throws {
        let s = try ConformanceScenario.decode(Data(#"{"id":"apns.t","tags":["nightly"],"devices":[{"id":"d1","provider":"apns","token":"00"}],"checks":["retry-after","outcome"]}"#.utf8),
                                               file: "t.json")
        XCTAssertEqual(CheckCatalogue.tags(of: s), ["apns", "nightly", "outcomes", "retries"])
        XCTAssertEqual(ConformanceSuite.select([s], only: ["tag:retries"], skip: []).count, 1)
        XCTAssertEqual(ConformanceSuite.select([s], only: ["tag:re*"], skip: ["tag:nightly"]).count, 0)
        XCTAssertThrowsError(try ConformanceScenario.decode(Data(#"{"id":"x","tags":["two words"]}"#.utf8), file: "x.json"))
    }

    /// A generic check cites the rule of the providers the case involves: a Web Push failure
    /// never cites Apple's section.
    func testGenericReferencesFollowTheProvider() throws {
        let def = try XCTUnwrap(CheckCatalogue.byID["dead-token-not-reused"])
        let web = CheckCatalogue.reference(of: def, providers: [.webpush])
        XCTAssertFalse(web.contains("apns"), web)
        XCTAssertTrue(web.contains("404/410"), web)
        XCTAssertTrue(CheckCatalogue.reference(of: def, providers: [.apns]).contains("apns.md §7.2"))
    }
}

extension CIReportsTests {
    /// The HTML report: the summary lists, "New only" marks, and passing checks folded in a failing case.
    func testHTMLSummaryNewOnlyAndFoldedChecks() {
        var r = Self.report()
        r.fixed = [BaselineEntry(case: "apns.gone", check: "outcome")]
        let html = HTMLReporter.render(r)
        XCTAssertTrue(html.contains("data-filter=\"new\" aria-pressed=\"false\">New only</button>"), html)
        XCTAssertTrue(html.contains("data-status=\"error\""))
        XCTAssertTrue(html.contains("data-testid=\"summary-fixed\"><summary>Fixed since baseline (1)</summary>\n<ul>\n<li><code>apns.gone outcome</code></li>"))
        XCTAssertTrue(html.contains("data-testid=\"summary-known\""))
        // The crashed case is new (an error); the known one only warns, which is new too.
        XCTAssertTrue(html.contains("data-case-id=\"apns.crash\" data-verdict=\"error\" data-case-index=\"0\" id=\"case-0\" data-new=\"true\""), html)
        // apns.known: the failure and the warning shown, the passing driver check folded.
        let known = html.components(separatedBy: "data-case-id=\"apns.known\"")[1]
        let folded = known.components(separatedBy: "data-testid=\"passing-checks\"")
        XCTAssertEqual(folded.count, 2, known)
        XCTAssertTrue(folded[0].contains("data-check-id=\"retry-after\"") && folded[0].contains("data-check-id=\"backoff-jitter\""))
        XCTAssertTrue(folded[1].hasPrefix("><summary>1 passing or n/a check</summary>") && folded[1].contains("data-check-id=\"driver.protocol\""))
    }
}
