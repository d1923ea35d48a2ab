import XCTest
import PushDoubleTestSupport
@testable import PushDoubleConformance
import PushDoubleCore
#if canImport(FoundationXML)
import FoundationXML
#endif

final class ReportersTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "python3") }

    static func sampleReport() -> RunReport {
        let pass = CheckResult(id: "apns.payload-limits", title: "t", reference: "A13", severity: .must, verdict: .pass, message: "ok", evidence: [])
        let fail = CheckResult(id: "apns.no-retry-permanent", title: "No retry", reference: "A1 & <A2>", severity: .must, verdict: .fail,
                               message: "retried \"twice\" <bad> & worse", evidence: [Evidence("d1 conn 1 → 410 \u{1}ctl", seqs: [1, 2])])
        let warn = CheckResult(id: "apns.backoff-jitter", title: "j", reference: "G3", severity: .should, verdict: .warn, message: "no jitter", evidence: [])
        let na = CheckResult(id: "apns.goaway-unprocessed", title: "g", reference: "A5", severity: .must, verdict: .notApplicable, message: "no GOAWAY", evidence: [])
        var c1 = CaseResult(id: "apns.unregistered", title: "410", references: ["A1"], file: nil, verdict: .pass, sender: nil, driverFailure: nil,
                            senderLog: "log with <xml> & \"quotes\"\n", durationSeconds: 0.5, checks: [pass, fail, na], steps: [], history: [])
        c1.recomputeVerdict()
        var c2 = CaseResult(id: "apns.backoff", title: "500", references: ["A4"], file: nil, verdict: .pass, sender: nil, driverFailure: nil,
                            senderLog: "", durationSeconds: 0.2, checks: [pass, warn], steps: [], history: [])
        c2.recomputeVerdict()
        var c3 = CaseResult(id: "apns.happy", title: "ok", references: [], file: nil, verdict: .pass, sender: nil, driverFailure: nil,
                            senderLog: "", durationSeconds: 0.1, checks: [pass], steps: [], history: [])
        c3.recomputeVerdict()
        var b = HistoryBuilder()
        b.send(["d1"], at: 0, end: 1)
        b.push("d1", at: 0.1)
        c3.history = b.history
        return RunReport(sender: "python3 adapter.py", seed: 1, startedAt: Date(timeIntervalSince1970: 1_800_000_000), durationSeconds: 1.2,
                         cases: [c1, c2, c3])
    }

    func testConsole() {
        let text = ConsoleReporter.render(Self.sampleReport())
        let lines = text.split(separator: "\n")
        XCTAssertEqual(lines.last, "1 passed, 1 failed, 1 warned")
        XCTAssertTrue(text.contains("FAIL  apns.unregistered"))
        XCTAssertTrue(text.contains("FAIL apns.no-retry-permanent [MUST; A1 & <A2>]"))
        XCTAssertTrue(text.contains("- #1,#2: d1 conn 1"))
        XCTAssertTrue(text.contains("WARN  apns.backoff"))
        XCTAssertTrue(text.contains("PASS  apns.happy"))
    }

    func testJUnitParsesAndHasStructure() throws {
        let xml = JUnitReporter.render(Self.sampleReport())
        let path = NSTemporaryDirectory() + "pd-junit-\(getpid()).xml"
        try xml.write(toFile: path, atomically: true, encoding: .utf8)
        // Parse with Python's xml.etree and print a structural summary.
        let py = """
        import sys, xml.etree.ElementTree as ET
        root = ET.parse(sys.argv[1]).getroot()
        assert root.tag == 'testsuites'
        out = []
        for s in root:
            assert s.tag == 'testsuite', s.tag
            for k in ('name', 'tests', 'failures', 'errors', 'skipped', 'time'): assert k in s.attrib, k
            for c in s:
                if c.tag == 'properties':
                    out += ['PROP ' + p.get('name') + '=' + p.get('value') for p in c]; continue
                if c.tag == 'system-err': out.append('ERR ' + s.get('name') + ' ' + c.text.strip()); continue
                assert c.tag == 'testcase', c.tag
                kinds = [x.tag for x in c]
                for x in c: assert x.tag in ('failure', 'skipped', 'system-out'), x.tag
                f = c.find('failure')
                out.append(c.get('classname') + ' ' + c.get('name') + ' ' + ','.join(kinds) + (' ' + f.get('message') if f is not None else ''))
        print('\\n'.join(out))
        """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", py, path]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run(); p.waitUntilExit()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(p.terminationStatus, 0, out)
        XCTAssertTrue(out.contains("apns.unregistered apns.no-retry-permanent failure retried \"twice\" <bad> & worse"), out)
        XCTAssertTrue(out.contains("apns.unregistered apns.goaway-unprocessed skipped"), out)
        XCTAssertTrue(out.contains("apns.backoff apns.backoff-jitter system-out"), out)
        XCTAssertTrue(out.contains("apns.happy apns.payload-limits \n") || out.contains("apns.happy apns.payload-limits "), out)
        XCTAssertTrue(out.contains("ERR apns.unregistered log with <xml> & \"quotes\""), out)
        XCTAssertTrue(out.contains("PROP status=failed\nPROP exitCode=1"), out)
        XCTAssertTrue(out.contains("PROP newFailures=1\nPROP newFailure.1=apns.unregistered apns.no-retry-permanent"), out)
        XCTAssertFalse(xml.contains("\u{1}"), "control characters must be dropped")
        XCTAssertTrue(xml.contains("timestamp=\"2027-01-15T08:00:00\""), "zone-less ISO 8601 timestamp")
        // Foundation's own parser agrees.
        let doc = try XMLDocument(xmlString: xml, options: [])
        XCTAssertEqual(try doc.nodes(forXPath: "/testsuites/testsuite/testcase").count, 6)
        XCTAssertEqual(try doc.nodes(forXPath: "//testcase[@classname='apns.unregistered'][@name='apns.no-retry-permanent']/failure").count, 1)
    }

    func testJUnitEscaping() {
        XCTAssertEqual(JUnitReporter.attr("a\"<&>\nb"), "\"a&quot;&lt;&amp;&gt;&#10;b\"")
        XCTAssertEqual(JUnitReporter.text("x\u{0}y\u{1B}z\tw"), "xyz\tw")
    }

    func testJSONHasEverything() throws {
        let data = JSONReporter.render(Self.sampleReport())
        let v = try JSONDecoder().decode(JSONValue.self, from: data)
        let cases = v["cases"]?.arrayValue ?? []
        XCTAssertEqual(cases.count, 3)
        XCTAssertEqual(cases[0]["checks"]?.arrayValue?[1]["evidence"]?.arrayValue?[0]["seqs"], .array([.int(1), .int(2)]))
        XCTAssertEqual(cases[0]["verdict"]?.stringValue, "fail")
        XCTAssertEqual(cases[2]["history"]?.arrayValue?.count, 1)
        XCTAssertEqual(cases[2]["history"]?.arrayValue?[0]["request"]?["path"]?.stringValue, "/3/device/" + HistoryBuilder.token(1))
        XCTAssertEqual(v["sender"]?.stringValue, "python3 adapter.py")
        XCTAssertEqual(v["startedAt"]?.stringValue, "2027-01-15T08:00:00.000Z", "ISO 8601")
        XCTAssertEqual(v["summary"]?["status"]?.stringValue, "failed")
        XCTAssertEqual(v["summary"]?["newFailures"]?.arrayValue?.map { $0["check"]?.stringValue }, ["apns.no-retry-permanent"])
        XCTAssertEqual(v["summary"]?["checks"]?["warned"]?.intValue, 1)
        // Round-trips into the model.
        let back = try JSONReporter.decode(data)
        XCTAssertEqual(back.cases.map(\.id), ["apns.unregistered", "apns.backoff", "apns.happy"])
        XCTAssertEqual(back.startedAt, Date(timeIntervalSince1970: 1_800_000_000))
        // `seed` is written even when no --seed was given.
        var unseeded = Self.sampleReport()
        unseeded.seed = nil
        let u = try JSONDecoder().decode(JSONValue.self, from: JSONReporter.render(unseeded))
        XCTAssertEqual(u["seed"], .null)
    }

    func testCatalogueListing() {
        let s = ConformanceScenario(id: "apns.x", title: "X case", references: ["A1", "apns.md §7"], devices: [], steps: [],
                                    checks: [CheckInvocation(id: "apns.outcome")])
        let text = CatalogueReporter.render(scenarios: [s])
        XCTAssertTrue(text.contains("apns.no-retry-permanent  [MUST]  A1, A2, G5"))
        XCTAssertTrue(text.contains("apns.backoff-jitter  [SHOULD]"))
        XCTAssertTrue(text.contains("apns.x — X case"))
        XCTAssertTrue(text.contains("references: A1, apns.md §7"))
        XCTAssertTrue(text.contains("checks: apns.outcome"))
    }
}

/// The console's n/a lines (fast tier): n/a cases folded into one line per reason, and the n/a
/// checks of a case that ran listed only in verbose mode.
final class ConsoleNotApplicableTests: XCTestCase {
    private func naCase(_ id: String, _ reason: String) -> CaseResult {
        var c = CaseResult(id: id, title: id, references: [], file: nil, verdict: .pass, notApplicableReason: reason, sender: nil,
                           driverFailure: nil, senderLog: "", durationSeconds: 0, checks: [], steps: [], history: [])
        c.recomputeVerdict()
        return c
    }

    func testNotApplicableCasesAreOneLinePerReason() {
        let base = ReportersTests.sampleReport()
        let fcm = (0..<12).map { naCase("fcm.case-\($0)", "sender does not support fcm") }
        let expo = (0..<7).map { naCase("expo.case-\($0)", "sender does not support expo") }
        let report = RunReport(sender: "s", seed: 1, startedAt: base.startedAt, durationSeconds: 1, cases: base.cases + fcm + expo + [naCase("fcm.last", "sender does not support fcm")])
        let text = ConsoleReporter.caseLines(of: report.cases)
        let naLines = text.split(separator: "\n").filter { $0.hasPrefix("N/A") }
        XCTAssertEqual(naLines, ["N/A   13 cases: sender does not support fcm (" + (fcm.map(\.id) + ["fcm.last"]).joined(separator: ", ") + ")",
                                 "N/A   7 cases: sender does not support expo (" + expo.map(\.id).joined(separator: ", ") + ")"])
        XCTAssertFalse(text.contains("fcm.case-0  fcm.case-0"), "no per-case line for an n/a case")
        // The cases that ran keep their lines, before the n/a summary.
        XCTAssertTrue(text.hasPrefix(ConsoleReporter.caseLines(base.cases[0])))
        XCTAssertTrue(ConsoleReporter.render(report).contains(naLines[0]))
    }

    func testVerboseListsTheNotApplicableChecksOfACaseThatRan() {
        let c = ReportersTests.sampleReport().cases[0]  // a failing MUST, a pass and an n/a check (no GOAWAY)
        XCTAssertFalse(ConsoleReporter.caseLines(c).contains("apns.goaway-unprocessed"))
        XCTAssertTrue(ConsoleReporter.caseLines(c, verbose: true).contains("N/A apns.goaway-unprocessed [MUST; A5]: no GOAWAY"))
        var passing = c
        passing.checks.removeAll { $0.verdict == .fail }
        passing.recomputeVerdict()
        XCTAssertEqual(passing.verdict, .pass)
        let verbose = ConsoleReporter.caseLines(of: [passing], verbose: true)
        XCTAssertTrue(verbose.hasPrefix("PASS  apns.unregistered"), verbose)
        XCTAssertTrue(verbose.contains("\n      N/A apns.goaway-unprocessed [MUST; A5]: no GOAWAY"), verbose)
        XCTAssertEqual(ConsoleReporter.caseLines(of: [passing]).split(separator: "\n").count, 1, "not listed without --verbose")
    }
}
