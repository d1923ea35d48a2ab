import XCTest
@testable import PushDoubleConformance

final class BaselineTests: XCTestCase {
    func testKnownFailureDoesNotFailTheRun() throws {
        var r = ReportersTests.sampleReport()
        XCTAssertFalse(r.succeeded)
        let b = try Baseline.parse(Data("# known\napns.unregistered apns.no-retry-permanent\napns.happy apns.payload-limits\n".utf8), name: "b.txt")
        b.apply(to: &r)
        XCTAssertTrue(r.succeeded)
        XCTAssertTrue(r.cases[0].checks[1].known)
        XCTAssertEqual(r.fixed, [BaselineEntry(case: "apns.happy", check: "apns.payload-limits")])
        XCTAssertTrue(ConsoleReporter.render(r).contains("fixed since baseline (1):\n  - apns.happy apns.payload-limits"))
        XCTAssertEqual(r.summary.status, .passed, "a fixed entry does not fail the run by default")
        r.baselineStrict = true
        XCTAssertEqual(r.summary.status, .staleBaseline)
        XCTAssertEqual(r.summary.exitCode, 1)
        XCTAssertEqual(b.removingFixed(r).entries, [BaselineEntry(case: "apns.unregistered", check: "apns.no-retry-permanent")])
        XCTAssertTrue(ConsoleReporter.render(r).contains("FAIL (known)  apns.unregistered"))
    }

    func testNewFailureStillFails() throws {
        var r = ReportersTests.sampleReport()
        let b = try Baseline.parse(Data(#"{"knownFailures":[{"case":"apns.other","check":"apns.no-retry-permanent"}]}"#.utf8), name: "b.json")
        b.apply(to: &r)
        XCTAssertFalse(r.succeeded)
        XCTAssertEqual(r.fixed, [], "entries for cases that did not run are not reported fixed")
    }

    func testRoundTripAndErrors() throws {
        let r = ReportersTests.sampleReport()
        let b = Baseline.from(r)
        XCTAssertEqual(b.entries, [BaselineEntry(case: "apns.unregistered", check: "apns.no-retry-permanent"),
                                   BaselineEntry(case: "apns.backoff", check: "apns.backoff-jitter")], "failures and warnings")
        XCTAssertEqual(try Baseline.parse(b.jsonData(), name: "x"), b)
        XCTAssertThrowsError(try Baseline.parse(Data("just-one-word\n".utf8), name: "bad.txt")) { e in
            XCTAssertTrue("\(e)".contains("bad.txt:1"), "\(e)")
        }
        XCTAssertThrowsError(try Baseline.parse(Data("{\"nope\":1}".utf8), name: "bad.json"))
        XCTAssertThrowsError(try Baseline.load("/nonexistent/baseline.json"))
    }

    /// An entry excuses a warning too; `--fail-on warn` fails only on warnings the baseline does not list.
    func testWarningsAndFailOnWarn() throws {
        var r = ReportersTests.sampleReport()
        Baseline([BaselineEntry(case: "apns.unregistered", check: "apns.no-retry-permanent")]).apply(to: &r)
        XCTAssertEqual(r.summary.status, .passed)
        r.failOn = .warn
        XCTAssertEqual(r.summary.status, .warned)
        XCTAssertEqual(r.summary.newWarnings.map(\.check), ["apns.backoff-jitter"])
        Baseline([BaselineEntry(case: "apns.backoff", check: "apns.backoff-jitter")]).apply(to: &r)
        XCTAssertEqual(r.summary.status, .passed)
        XCTAssertEqual(r.summary.warnings.map(\.known), [true])
    }

    /// Entries naming no loaded case, or a check the case does not run, are listed; aliases and
    /// `driver.protocol` are real checks of every case that runs them.
    func testUnknownEntries() {
        let s = ConformanceScenario(id: "apns.x", title: "x", references: [], devices: [], steps: [],
                                    checks: [CheckInvocation(id: "no-retry-permanent")])
        let b = Baseline([BaselineEntry(case: "apns.x", check: "apns.no-retry-permanent"), BaselineEntry(case: "apns.x", check: "driver.protocol"),
                          BaselineEntry(case: "apns.y", check: "outcome"), BaselineEntry(case: "apns.x", check: "retry-afterr")])
        XCTAssertEqual(b.unknownEntries(in: [s]), ["apns.x retry-afterr: the case has no such check (its checks: no-retry-permanent)",
                                                   "apns.y outcome: no such case"])
    }
}
