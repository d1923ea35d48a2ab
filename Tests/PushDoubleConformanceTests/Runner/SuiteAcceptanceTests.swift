import XCTest
import PushDoubleTestSupport
@testable import PushDoubleConformance
import PushDoubleCore

/// The acceptance test of the suite itself: the reference sender passes every shipped
/// case in under 30 s, and each of its mutants fails the checks its row names (``SenderMutants``:
/// the sender's one table per provider, also printed in docs/conformance.md).
final class SuiteAcceptanceTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "the reference sender's process") }

    /// `.build/<triple>/debug/pushdouble-reference-sender`, next to the test bundle.
    static var executable: String {
        let name = "pushdouble-reference-sender"
        var candidates: [URL] = []
        if let exe = Bundle.main.executableURL { candidates.append(exe.resolvingSymlinksInPath().deletingLastPathComponent()) }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent())
        let root = repositoryRoot
        candidates.append(root.appendingPathComponent(".build/debug"))
        for dir in candidates where FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent(name).path) {
            return dir.appendingPathComponent(name).path
        }
        return root.appendingPathComponent(".build/debug/" + name).path
    }

    func testReferencePassesEveryShippedCaseInUnder30Seconds() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: Self.executable), "build it: swift build --product pushdouble-reference-sender")
        let all = try ConformanceScenario.loadDirectory(shippedScenarioDirectory, knownChecks: CheckCatalogue.ids)
        var o = RunOptions(senderCommand: Self.executable); o.timeout = 30
        let start = Date()
        let report = ConformanceRunner(host: ServerFakeHost(), options: o).run(all)
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertEqual(report.cases.count, all.count)
        for c in report.cases {
            XCTAssertEqual(c.verdict, .pass, ConsoleReporter.caseLines(c))
        }
        XCTAssertLessThan(elapsed, 30, "whole suite against the reference sender")
        print(ConsoleReporter.render(report), String(format: "suite time %.2f s", elapsed))
    }

    /// Two mutants at a time: each run is short and mostly waits (on Retry-After, token
    /// lifetimes, the fake's timeouts), about 0.4 of a core. With three at a time on two cores,
    /// `no-jitter` once escaped `backoff-jitter`: a loaded machine spreads lockstep retries
    /// apart by itself.
    func testEveryMutantFailsTheChecksAimedAtIt() throws {
        let all = try ConformanceScenario.loadDirectory(shippedScenarioDirectory, knownChecks: CheckCatalogue.ids)
        let problems = CorrectVariantsTests.Collector()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 2
        for e in SenderMutants.all {
            let cases = all.filter { s in s.checks.contains { e.failingChecks.contains($0.id) } }
            if cases.isEmpty { problems.add("no shipped case runs the checks of \(e.name)"); continue }
            queue.addOperation { problems.add(contentsOf: Self.misses(of: e, over: cases)) }
        }
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertTrue(problems.problems.isEmpty, problems.problems.joined(separator: "\n"))
    }

    /// What a mutant's run over the cases aimed at it got wrong (empty: it failed what it must).
    static func misses(of e: SenderMutants.Row, over cases: [ConformanceScenario]) -> [String] {
        var o = RunOptions(senderCommand: "\(executable) --mutant \(e.name)"); o.timeout = 30; o.jobs = 8
        let report = ConformanceRunner(host: ServerFakeHost(), options: o).run(cases)
        var misses: [String] = []
        // A mutant that breaks SHOULD rules only passes, with the warnings: a MUST there would
        // fail a sender for what the real service may accept or what loses nothing.
        if e.failingChecks.contains(where: { CheckCatalogue.byID[$0]?.severity == .must }) {
            if report.succeeded { misses.append("\(e.name) passed the suite") }
        } else if !report.succeeded {
            misses.append("\(e.name) breaks SHOULD rules only, yet failed: " + ConsoleReporter.render(report))
        }
        for check in e.failingChecks {
            let verdicts = report.cases.flatMap { $0.checks.filter { $0.id == check }.map(\.verdict) }
            guard let expected = CheckCatalogue.byID[check]?.severity.violationVerdict else {
                misses.append("\(e.name): \(check) is not in the check catalogue"); continue
            }
            if !verdicts.contains(expected) { misses.append("\(e.name): \(check) did not \(expected.rawValue) (\(verdicts))") }
        }
        return misses
    }

    /// `apns.goaway-mid-batch` tells a sender that fails every stream pending at the GOAWAY
    /// (those at or below last-stream-id too, then answered) every time, not by luck of
    /// timing: the fake holds the answers of the processed streams until its GOAWAY is written.
    /// Ten runs each: the mutant is caught in all ten, the reference sender passes all ten.
    func testGoAwayMidBatchCatchesFailPendingEveryTime() throws {
        let all = try ConformanceScenario.loadDirectory(shippedScenarioDirectory, knownChecks: CheckCatalogue.ids)
        let goaway = try XCTUnwrap(all.first { $0.id == "apns.goaway-mid-batch" })
        let cases = Array(repeating: goaway, count: 10)
        var bad = RunOptions(senderCommand: "\(Self.executable) --mutant fail-pending-at-goaway"); bad.timeout = 30; bad.jobs = 1
        let caught = ConformanceRunner(host: ServerFakeHost(), options: bad).run(cases)
        XCTAssertEqual(caught.cases.count, 10)
        for (i, c) in caught.cases.enumerated() {
            let failing = Set(c.checks.filter { $0.verdict == .fail }.map(\.id))
            XCTAssertTrue(failing.contains("apns.goaway-unprocessed"), "run \(i + 1): \(ConsoleReporter.caseLines(c))")
            XCTAssertTrue(failing.contains("no-duplicate-delivery"), "run \(i + 1): \(ConsoleReporter.caseLines(c))")
        }
        var good = RunOptions(senderCommand: Self.executable); good.timeout = 30; good.jobs = 1
        let passed = ConformanceRunner(host: ServerFakeHost(), options: good).run(cases)
        for (i, c) in passed.cases.enumerated() { XCTAssertEqual(c.verdict, .pass, "run \(i + 1): \(ConsoleReporter.caseLines(c))") }
    }
}
