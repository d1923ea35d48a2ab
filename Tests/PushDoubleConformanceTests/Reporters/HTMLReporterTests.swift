import Foundation
import XCTest
import PushDoubleTestSupport
@testable import PushDoubleConformance
import PushDoubleCore
import PushDoubleInbox
import PushDouble

/// `conform --html`'s page (``HTMLReporter``): real runs of shipped cases against the
/// reference sender and a mutant, and a hand-made report whose exchanges hold markup.
final class HTMLReporterTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "node") }

    static let caseIDs = ["apns.happy-path", "apns.too-many-requests"]

    static func run(mutant: String? = nil) throws -> RunReport {
        let all = try ConformanceScenario.loadDirectory(shippedScenarioDirectory, knownChecks: CheckCatalogue.ids)
        let cases = all.filter { caseIDs.contains($0.id) }
        XCTAssertEqual(cases.count, caseIDs.count, "shipped cases present")
        var o = RunOptions(senderCommand: SuiteAcceptanceTests.executable + (mutant.map { " --mutant " + $0 } ?? ""))
        o.timeout = 30
        return ConformanceRunner(host: ServerFakeHost(), options: o).run(cases)
    }

    /// The text of each `data-testid="case"` section, by case id.
    static func sections(_ html: String) -> [String: String] {
        var out: [String: String] = [:]
        for part in html.components(separatedBy: "<details class=\"case ").dropFirst() {
            let section = part.components(separatedBy: "</main>").first ?? part
            guard let r = section.range(of: "data-case-id=\""), let end = section[r.upperBound...].firstIndex(of: "\"") else { continue }
            out[String(section[r.upperBound..<end])] = section
        }
        return out
    }

    /// The embedded JSON block, decoded back into exchanges (one list per case, page order).
    static func embeddedExchanges(_ html: String) throws -> [[Exchange]] {
        let open = "<script type=\"application/json\" id=\"\(HTMLReporter.dataElementID)\">"
        let start = try XCTUnwrap(html.range(of: open), "JSON block")
        let end = try XCTUnwrap(html[start.upperBound...].range(of: "</script>"))
        let json = String(html[start.upperBound..<end.lowerBound])
        return try ExchangeEncoding.makeDecoder().decode([[Exchange]].self, from: Data(json.utf8))
    }

    static func assertSelfContained(_ html: String, file: StaticString = #filePath, line: UInt = #line) {
        for bad in ["src=\"http", "href=\"http", "src='http", "href='http", "<link", "@import", " src=", "url("] {
            XCTAssertFalse(html.contains(bad), "external reference \(bad)", file: file, line: line)
        }
        XCTAssertTrue(html.contains("Content-Security-Policy\" content=\"default-src 'none'"), file: file, line: line)
    }

    /// Every case, its verdict and each of its checks' verdicts are in the page; the JSON
    /// block gives back the case's exchanges.
    func assertReport(_ report: RunReport, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let html = HTMLReporter.render(report)
        Self.assertSelfContained(html, file: file, line: line)
        XCTAssertTrue(html.contains("data-testid=\"report-summary\""), file: file, line: line)
        XCTAssertTrue(html.contains("<span class=\"n\" data-testid=\"summary-fail\">\(report.summary.cases.failed)</span>"), file: file, line: line)
        let sections = Self.sections(html)
        XCTAssertEqual(Set(sections.keys), Set(report.cases.map(\.id)), file: file, line: line)
        for c in report.cases {
            let s = try XCTUnwrap(sections[c.id], file: file, line: line)
            XCTAssertTrue(s.contains("data-verdict=\"\(HTMLReporter.verdictName(c))\""), "\(c.id) verdict", file: file, line: line)
            XCTAssertTrue(s.contains("data-testid=\"retry-timeline\""), file: file, line: line)
            XCTAssertFalse(c.checks.isEmpty, file: file, line: line)
            for k in c.checks {
                XCTAssertTrue(s.contains("data-testid=\"verdict\" data-check-id=\"\(k.id)\" data-verdict=\"\(k.verdict.rawValue)\""),
                              "\(c.id) \(k.id) \(k.verdict)", file: file, line: line)
            }
        }
        let embedded = try Self.embeddedExchanges(html)
        let pageOrder = HTMLReporter.ordered(report.cases)
        XCTAssertEqual(embedded.count, pageOrder.count, file: file, line: line)
        for (c, xs) in zip(pageOrder, embedded) {
            XCTAssertFalse(c.history.isEmpty, "\(c.id) has exchanges", file: file, line: line)
            XCTAssertEqual(xs.map(\.seq), c.history.map(\.seq), c.id, file: file, line: line)
        }
        return html
    }

    /// The page's inline scripts (not the JSON block), in page order.
    static func inlineScripts(_ html: String) -> [String] {
        html.components(separatedBy: "<script>\n").dropFirst().map { $0.components(separatedBy: "\n</script>").first ?? $0 }
    }

    /// Early attempts per case (page order) as the page's own scripts count them: its inlined
    /// provider views (their identity hooks) first, then the timeline.
    func earlyAttempts(_ html: String) throws -> [Int] {
        let open = "<script type=\"application/json\" id=\"\(HTMLReporter.dataElementID)\">"
        let start = try XCTUnwrap(html.range(of: open))
        let end = try XCTUnwrap(html[start.upperBound...].range(of: "</script>"))
        let views = try XCTUnwrap(Self.inlineScripts(html).first)
        let js = """
        global.window = global; require(process.argv[4]);
        const T = require(process.argv[2]); const data = JSON.parse(require('fs').readFileSync(process.argv[3], 'utf8'));
        console.log(JSON.stringify(data.map(xs => T.group(xs).reduce((n, g) => n + g.attempts.filter(a => a.early).length, 0))));
        """
        let (status, text) = try TimelineScriptTests.runNode(js, files: [("data.json", Data(html[start.upperBound..<end.lowerBound].utf8)),
                                                                       ("views.js", Data(views.utf8))])
        XCTAssertEqual(status, 0, text)
        return try JSONDecoder().decode([Int].self, from: Data(text.utf8))
    }

    func testReferenceSenderReport() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: SuiteAcceptanceTests.executable))
        let report = try Self.run()
        let html = try assertReport(report)
        XCTAssertTrue(report.cases.allSatisfy { $0.verdict == .pass }, report.cases.map { ConsoleReporter.caseLines($0) }.joined(separator: "\n"))
        XCTAssertTrue(html.contains("data-succeeded=\"true\""))
        XCTAssertEqual(report.cases.map(\.seed), [1, 1], "each case keeps the seed its fakes ran with (the scenarios' own)")
        XCTAssertTrue(html.contains("<dd data-testid=\"summary-seeds\">each scenario's own: 1</dd>"), "seeds in the summary")
        XCTAssertEqual(try earlyAttempts(html), [0, 0], "the reference sender waits out Retry-After")
    }

    func testMutantReportShowsTheFailureAndTheEarlyRetry() throws {
        let report = try Self.run(mutant: "ignore-retry-after")
        let html = try assertReport(report)
        XCTAssertTrue(html.contains("data-succeeded=\"false\""))
        let s = try XCTUnwrap(Self.sections(html)["apns.too-many-requests"])
        XCTAssertTrue(s.contains("data-verdict=\"fail\""))
        XCTAssertTrue(s.contains("data-check-id=\"retry-after\" data-verdict=\"fail\""), s)
        XCTAssertTrue(s.contains("data-testid=\"evidence\""), "the failing check's evidence is shown")
        XCTAssertTrue(s.contains(" open>"), "a failing case starts expanded")
        // Failing cases come first: the page's first case is the failing one.
        XCTAssertEqual(HTMLReporter.ordered(report.cases).first?.id, "apns.too-many-requests")
        XCTAssertEqual(try earlyAttempts(html), [1, 0], "the mutant's retry inside the Retry-After window is marked early")
    }

    /// Exchanges and messages holding markup stay text: the JSON block cannot be closed from
    /// inside, and every other text is escaped.
    func testMarkupInTheHistoryStaysText() throws {
        var b = HistoryBuilder()
        b.send(["d1"], at: 0, end: 1)
        let hostile = "</script><script>alert(1)</script><!--<script>"
        b.push("d1", at: 0.1, status: 400, reason: "</ScRiPt><img src=x onerror=alert(2)>", body: "{\"aps\":{\"alert\":\"\(hostile)\"}}")
        let check = CheckResult(id: "outcome", title: "<b>t</b>", reference: "A1", severity: .must, verdict: .fail,
                                message: "<i>bad</i> & \"quoted\"", evidence: [Evidence("<u>ev</u>", seqs: [1])])
        var c = CaseResult(id: "x.<case>\"", title: "<h1>title</h1>", references: [], file: nil, verdict: .fail, sender: nil,
                           driverFailure: nil, senderLog: "</pre><script>", durationSeconds: 0.1, checks: [check], steps: b.steps, history: b.history)
        c.recomputeVerdict()
        let html = HTMLReporter.render(RunReport(sender: "<sender>", seed: 3, startedAt: HistoryBuilder.t0, durationSeconds: 1, cases: [c]))
        // Only the page's own four script elements (data, views, timeline, report) open and close.
        XCTAssertEqual(html.components(separatedBy: "<script").count - 1, 4, "script openings")
        XCTAssertEqual(html.components(separatedBy: "</script>").count - 1, 4, "script closings")
        XCTAssertFalse(html.lowercased().contains("</script><img"))
        XCTAssertFalse(html.contains("<!--"))
        XCTAssertTrue(html.contains(#"\u003c/script>\u003cscript>alert(1)\u003c/script>\u003c!--\u003cscript>"#), "escaped form in the JSON block")
        for escaped in ["&lt;i&gt;bad&lt;/i&gt; &amp; \"quoted\"", "&lt;b&gt;t&lt;/b&gt;", "&lt;u&gt;ev&lt;/u&gt;", "&lt;h1&gt;title&lt;/h1&gt;",
                        "data-case-id=\"x.&lt;case&gt;&quot;\"", "&lt;/pre&gt;&lt;script&gt;", "&lt;sender&gt;"] {
            XCTAssertTrue(html.contains(escaped), escaped)
        }
        let back = try Self.embeddedExchanges(html)
        XCTAssertEqual(back.first?.first?.request.body, "{\"aps\":{\"alert\":\"\(hostile)\"}}", "the body survives the round trip")
        XCTAssertEqual(back.first?.first?.response.reason, "</ScRiPt><img src=x onerror=alert(2)>")
        XCTAssertTrue(html.contains("--seed 3 for every case"))
    }

    func testCaseVerdictNamesOrderAndCounts() {
        func check(_ v: Verdict, _ s: Severity = .must) -> CheckResult {
            CheckResult(id: "c-\(v.rawValue)", title: "t", reference: "r", severity: s, verdict: v, message: "m", evidence: [])
        }
        func make(_ id: String, _ checks: [CheckResult], driverFailure: String? = nil, na: String? = nil) -> CaseResult {
            var c = CaseResult(id: id, title: id, references: [], file: nil, verdict: .pass, notApplicableReason: na, sender: nil,
                               driverFailure: driverFailure, senderLog: "", durationSeconds: 0, checks: checks, steps: [], history: [])
            c.recomputeVerdict()
            return c
        }
        let cases = [make("ok", [check(.pass)]), make("may", [check(.pass), check(.info, .may)]), make("na", [check(.notApplicable)], na: "no fcm"),
                     make("warned", [check(.warn, .should)]), make("cut", [check(.fail)], driverFailure: "sender exited"), make("bad", [check(.fail)])]
        XCTAssertEqual(cases.map(HTMLReporter.verdictName), ["pass", "pass", "n/a", "warn", "error", "fail"])
        XCTAssertEqual(HTMLReporter.ordered(cases).map(\.id), ["cut", "bad", "warned", "ok", "may", "na"])
        let html = HTMLReporter.render(RunReport(sender: "s", seed: nil, startedAt: HistoryBuilder.t0, durationSeconds: 1, cases: cases))
        for (name, n) in [("pass", 2), ("fail", 1), ("warn", 1), ("error", 1), ("na", 1)] {
            XCTAssertTrue(html.contains("data-testid=\"summary-\(name)\">\(n)</span>"), name)
        }
        XCTAssertTrue(html.contains("data-case-id=\"may\" data-verdict=\"pass\""))
        XCTAssertTrue(html.contains(">INFO</span> <code class=\"case-id\">may</code>"), "a MAY-only case says INFO on its badge")
    }

    /// The page inlines the providers' views exactly as the inbox serves them (`/inbox/views.js`),
    /// before the timeline, so a notification's attempts group by the same identity hooks: run
    /// under node, the page's own scripts give each provider's identity, the body without a hook.
    func testReportGroupsAttemptsByTheProvidersIdentityHooks() throws {
        let html = HTMLReporter.render(RunReport(sender: "s", seed: nil, startedAt: HistoryBuilder.t0, durationSeconds: 1, cases: []))
        let scripts = Self.inlineScripts(html)
        XCTAssertEqual(scripts.count, 3, "views, timeline, report")
        let inbox = InboxPage.viewAssets(FakeRegistry.inboxViews).first { $0.path == "/inbox/views.js" }?.text
        XCTAssertEqual(scripts.first, inbox, "the inbox's views.js, unchanged")
        XCTAssertEqual(scripts.dropFirst().first, InboxAsset.timelineScript.text)
        let js = """
        global.window = global; require(process.argv[3]); const T = require(process.argv[2]);
        const req = (headers, body, bodySize) => ({ headers, body, bodySize });
        console.log(JSON.stringify([T.messageIdentity('apns', req([['apns-id', 'ID-1']], 'b1', 2)), T.messageIdentity('apns', req([], 'b1', 2)),
          T.messageIdentity('webpush', req([['topic', 'news']], 'AAAA', 4)), T.messageIdentity('fcm', req([], 'f', 1)),
          T.messageIdentity('expo', req([], 'e', 1))]));
        """
        let (status, text) = try TimelineScriptTests.runNode(js, files: [("views.js", Data(scripts[0].utf8))])
        XCTAssertEqual(status, 0, text)
        XCTAssertEqual(try JSONDecoder().decode([String].self, from: Data(text.utf8)), ["ID-1", "b1", "news|4", "f", "e"])
    }

    func testExchangesPerCaseAreCappedCitedFirst() throws {
        var b = HistoryBuilder()
        b.send(["d1"], at: 0, end: 1)
        for i in 0..<(HTMLReporter.exchangesPerCase + 20) { b.push("d1", at: 0.001 * Double(i)) }
        let cited = UInt64(HTMLReporter.exchangesPerCase + 15)
        let check = CheckResult(id: "outcome", title: "t", reference: "A1", severity: .must, verdict: .fail, message: "m",
                                evidence: [Evidence("late one", seqs: [cited])])
        let c = CaseResult(id: "cap", title: "cap", references: [], file: nil, verdict: .fail, sender: nil, driverFailure: nil,
                           senderLog: "", durationSeconds: 0.1, checks: [check], steps: b.steps, history: b.history)
        let html = HTMLReporter.render(RunReport(sender: "s", seed: nil, startedAt: HistoryBuilder.t0, durationSeconds: 1, cases: [c]))
        let seqs = try Self.embeddedExchanges(html).first?.map(\.seq) ?? []
        XCTAssertEqual(seqs.count, HTMLReporter.exchangesPerCase)
        XCTAssertTrue(seqs.contains(cited), "an exchange cited as evidence is kept")
        XCTAssertTrue(html.contains("\(b.history.count) recorded, \(HTMLReporter.exchangesPerCase) shown"))
    }
}
