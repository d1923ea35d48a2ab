import Foundation
import XCTest
import PushDoubleConformance
import PushDoubleCore
import PushDoubleTestSupport
@testable import pushdouble

/// `pushdouble conform` as a CI gate, walked through as a team would use it, with the
/// reference sender and its mutants as "production" and "pull request": a baseline from
/// production, a PR with one more planted bug (stacked `--mutant`s), a known-failures-only
/// run, a fixed entry under `--baseline-strict`, a baseline with unknown ids, a crashing
/// adapter, and the outputs CI reads (JUnit through xmllint and junitparser, the JSON summary,
/// the Markdown summary through markdown-it-py, GitHub annotations).
final class CIGateWalkthroughTests: XCTestCase {
    override func setUpWithError() throws {
        try requireInteropTier(needs: "the reference sender's process", "python3 (junitparser, markdown-it-py)", "xmllint")
    }

    /// Cases that run in about a second each; `apns.too-many-requests` catches
    /// `ignore-retry-after`, `apns.unregistered` catches `retry-dead-tokens`.
    static let cases = "apns.happy-path,apns.unregistered,apns.too-many-requests"
    static let sender = builtProduct(named: "pushdouble-reference-sender").path
    static let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("PushDoubleConformanceTests/Fixtures/junit.xsd").path

    var dir = ""
    override func setUp() {
        dir = NSTemporaryDirectory() + "pd-ci-gate-\(getpid())-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    /// Runs the command in-process; returns (exit code, stdout, stderr).
    func conform(_ args: [String]) -> (code: Int32, out: String, err: String) {
        var o = "", e = ""
        let code = ConformCommand.run(["--scenarios", shippedScenarioDirectory, "--timeout", "30", "--seed", "1"] + args,
                                      host: ServerFakeHost(), output: { o += $0 }, errors: { e += $0 })
        return (code, o, e)
    }

    func sender(_ mutants: String...) -> String { ([Self.sender] + mutants.flatMap { ["--mutant", $0] }).joined(separator: " ") }

    /// Runs a tool; returns (exit status, stdout + stderr).
    func tool(_ args: [String], stdin: String? = nil) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        let pipe = Pipe(), input = Pipe()
        p.standardOutput = pipe; p.standardError = pipe; p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, out)
    }

    /// What junitparser (a JUnit consumer from PyPI) counts, as CI widgets show it.
    func widgetCounts(_ junit: String) throws -> [String: Int] {
        let py = """
        import json, sys
        from junitparser import JUnitXml, Failure, Error, Skipped
        xml = JUnitXml.fromfile(sys.argv[1])
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for suite in xml:
            for case in suite:
                counts["tests"] += 1
                for r in case.result:
                    key = {Failure: "failures", Error: "errors", Skipped: "skipped"}[type(r)]
                    counts[key] += 1
        xml.update_statistics()
        counts["reported_failures"] = xml.failures
        counts["reported_errors"] = xml.errors
        counts["reported_skipped"] = xml.skipped
        print(json.dumps(counts))
        """
        let (status, out) = try tool(["python3", "-c", py, junit])
        XCTAssertEqual(status, 0, out)
        return try JSONDecoder().decode([String: Int].self, from: Data(out.utf8))
    }

    func validateJUnit(_ path: String) throws {
        let (status, out) = try tool(["xmllint", "--noout", "--schema", Self.schema, path])
        XCTAssertEqual(status, 0, out)
    }

    /// The `::error`/`::warning` lines, parsed as the Actions runner reads them: level, properties, message.
    static func annotations(_ text: String) -> [(level: String, props: [String: String], message: String)] {
        func unescape(_ s: Substring) -> String {
            s.replacingOccurrences(of: "%0A", with: "\n").replacingOccurrences(of: "%0D", with: "\r")
                .replacingOccurrences(of: "%3A", with: ":").replacingOccurrences(of: "%2C", with: ",").replacingOccurrences(of: "%25", with: "%")
        }
        return text.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("::"), let end = line.range(of: "::", range: line.index(line.startIndex, offsetBy: 2)..<line.endIndex) else { return nil }
            let head = line[line.index(line.startIndex, offsetBy: 2)..<end.lowerBound]
            let level = head.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
            var props: [String: String] = [:]
            if let rest = head.split(separator: " ", maxSplits: 1).dropFirst().first {
                for kv in rest.split(separator: ",") {
                    let parts = kv.split(separator: "=", maxSplits: 1)
                    if parts.count == 2 { props[String(parts[0])] = unescape(parts[1]) }
                }
            }
            return (level, props, unescape(line[end.upperBound...]))
        }
    }

    /// The whole gate: baseline from production, a PR with a second bug, known-only, strict, unknown ids.
    func testBaselineThenPRWithAnExtraBug() throws {
        let base = dir + "/baseline.json"
        // 1. Bootstrap: production (ignore-retry-after) writes the baseline; the job succeeds.
        let boot = conform(["--sender", sender("ignore-retry-after"), "--only", Self.cases, "--write-baseline", base])
        XCTAssertEqual(boot.code, 0, boot.out + boot.err)
        let known = try Baseline.load(base)
        XCTAssertTrue(known.entries.contains(BaselineEntry(case: "apns.too-many-requests", check: "retry-after")), "\(known.entries)")

        // 2. The PR stacks retry-dead-tokens on top: exit 1, exactly the new failures everywhere.
        let junit = dir + "/pr.xml", json = dir + "/pr.json", md = dir + "/pr.md"
        let pr = conform(["--sender", sender("ignore-retry-after", "retry-dead-tokens"), "--only", Self.cases, "--baseline", base,
                          "--junit", junit, "--json", json, "--summary-md", md, "--annotations", "github"])
        XCTAssertEqual(pr.code, 1, pr.out + pr.err)
        // Retrying a 410 and reusing the dead token also misreports the device's outcome.
        let expected = ["apns.unregistered dead-token-not-reused", "apns.unregistered no-retry-permanent", "apns.unregistered outcome"]
        // Console: the "new MUST failures" list of the summary.
        let lines = pr.out.components(separatedBy: "\n")
        let start = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("new MUST failures (3)") }, pr.out)
        let listed = lines[(start + 1)...].prefix { $0.hasPrefix("  - ") }.map { $0.dropFirst(4).split(separator: " ").prefix(2).joined(separator: " ") }
        XCTAssertEqual(listed.sorted(), expected, pr.out)
        XCTAssertTrue(pr.out.contains("status: failed: 3 new MUST failures (exit 1)"), pr.out)
        // JSON summary.
        let report = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        let summary = try XCTUnwrap(report["summary"])
        XCTAssertEqual(summary["status"]?.stringValue, "failed")
        XCTAssertEqual(summary["exitCode"]?.intValue, 1)
        XCTAssertEqual(summary["newFailures"]?.arrayValue?.compactMap { i in i["case"]?.stringValue.map { $0 + " " + (i["check"]?.stringValue ?? "") } }.sorted(),
                       expected)
        XCTAssertEqual(summary["knownFailures"]?.arrayValue?.compactMap { $0["check"]?.stringValue }.contains("retry-after"), true)
        XCTAssertEqual(report["seed"]?.intValue, 1)
        XCTAssertNotNil(DateFormats.parseISO8601(report["startedAt"]?.stringValue ?? ""), "startedAt is ISO 8601")
        // Markdown: rendered by markdown-it-py (GFM table on), the new failures are the list under their heading.
        let renderPy = """
        import sys, json, re
        from markdown_it import MarkdownIt
        html = MarkdownIt("commonmark").enable("table").render(open(sys.argv[1]).read())
        section = html.split("<h3>new MUST failures (3)</h3>")[1].split("<h3>")[0]
        items = [re.sub("<[^>]+>", "", i) for i in re.findall("<li>(.*?)</li>", section, re.S)]
        print(json.dumps({"table": "<table>" in html and re.search("<th[^>]*>passed</th>", html) is not None, "items": [" ".join(i.split(" ")[:2]) for i in items]}))
        """
        let (mdStatus, mdOut) = try tool(["python3", "-c", renderPy, md])
        XCTAssertEqual(mdStatus, 0, mdOut)
        struct Rendered: Decodable { var table: Bool; var items: [String] }
        let rendered = try JSONDecoder().decode(Rendered.self, from: Data(mdOut.utf8))
        XCTAssertTrue(rendered.table, mdOut)
        XCTAssertEqual(rendered.items.sorted(), expected, mdOut)
        // Annotations: one ::error per new failure, pointing at the scenario file.
        let notes = Self.annotations(pr.out)
        XCTAssertEqual(notes.filter { $0.level == "error" }.compactMap { $0.props["title"] }.sorted(), expected, pr.out)
        XCTAssertTrue(notes.allSatisfy { $0.props["file"]?.hasSuffix("Scenarios/apns.unregistered.json") == true }, "\(notes)")
        // JUnit: the schema holds; widgets count the new failures and the known one as skipped.
        try validateJUnit(junit)
        let counts = try widgetCounts(junit)
        XCTAssertEqual(counts["failures"], 3, "\(counts)")
        XCTAssertEqual(counts["reported_failures"], 3, "\(counts)")
        XCTAssertEqual(counts["errors"], 0, "\(counts)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        XCTAssertTrue(xml.contains("<skipped message=\"known failure (baseline): "), xml)
        XCTAssertTrue(xml.contains("file=\"") && xml.contains("Scenarios/apns.unregistered.json\""), "testcases carry their file")

        // 3. Production again (known failures only): exit 0, 0 <failure> in JUnit.
        let knownJUnit = dir + "/known.xml"
        let again = conform(["--sender", sender("ignore-retry-after"), "--only", Self.cases, "--baseline", base, "--junit", knownJUnit])
        XCTAssertEqual(again.code, 0, again.out + again.err)
        try validateJUnit(knownJUnit)
        XCTAssertFalse(try String(contentsOfFile: knownJUnit, encoding: .utf8).contains("<failure"))
        let knownCounts = try widgetCounts(knownJUnit)
        XCTAssertEqual(knownCounts["reported_failures"], 0, "\(knownCounts)")
        XCTAssertGreaterThanOrEqual(knownCounts["skipped"] ?? 0, 1, "\(knownCounts)")

        // 4. The bug gets fixed (the reference sender): the entry is fixed; strict fails, an update refreshes the file.
        let fixedRun = conform(["--sender", Self.sender, "--only", Self.cases, "--baseline", base])
        XCTAssertEqual(fixedRun.code, 0, fixedRun.out)
        XCTAssertTrue(fixedRun.out.contains("fixed since baseline (1):\n  - apns.too-many-requests retry-after"), fixedRun.out)
        let strict = conform(["--sender", Self.sender, "--only", Self.cases, "--baseline", base, "--baseline-strict"])
        XCTAssertEqual(strict.code, 1, strict.out)
        XCTAssertTrue(strict.out.contains("status: stale baseline (--baseline-strict): 1 known failure fixed"), strict.out)
        let update = conform(["--sender", Self.sender, "--only", Self.cases, "--baseline", base, "--baseline-strict", "--update-baseline"])
        XCTAssertEqual(update.code, 0, update.out + update.err)
        XCTAssertFalse(try Baseline.load(base).entries.contains(BaselineEntry(case: "apns.too-many-requests", check: "retry-after")))

        // 5. A baseline naming an unknown case or a check its case does not run: exit 2, both listed.
        let typo = dir + "/typo.txt"
        try "apns.unregistered no-retry-permanent\napns.unregistred no-retry-permanent\napns.unregistered retry-afterr\n"
            .write(toFile: typo, atomically: true, encoding: .utf8)
        let bad = conform(["--sender", Self.sender, "--only", Self.cases, "--baseline", typo])
        XCTAssertEqual(bad.code, 2, bad.out + bad.err)
        XCTAssertTrue(bad.err.contains("names 2 unknown case/check id(s)"), bad.err)
        XCTAssertTrue(bad.err.contains("apns.unregistred no-retry-permanent: no such case"), bad.err)
        XCTAssertTrue(bad.err.contains("apns.unregistered retry-afterr: the case has no such check"), bad.err)
        XCTAssertEqual(bad.out, "", "nothing ran")
    }

    /// An adapter that crashes: exit 3, and JUnit shows the broken protocol as `<error>`.
    func testCrashingAdapterExits3WithErrors() throws {
        let crash = "MODE=crash python3 " + makeScript("fake_sender.py", fakeSenderPython)
        let junit = dir + "/crash.xml"
        let r = conform(["--sender", crash, "--only", "apns.happy-path,apns.unregistered", "--junit", junit])
        XCTAssertEqual(r.code, 3, r.out + r.err)
        XCTAssertTrue(r.out.contains("status: error: the sender or its adapter broke the driver protocol in 2 cases (exit 3)"), r.out)
        try validateJUnit(junit)
        let counts = try widgetCounts(junit)
        XCTAssertEqual(counts["errors"], 2, "\(counts)")
        XCTAssertEqual(counts["reported_errors"], 2, "\(counts)")
        XCTAssertEqual(counts["failures"], 0, "\(counts)")
    }

    /// `--fail-on warn`: a SHOULD-only bug passes by default and fails with the flag, annotated as an error.
    func testFailOnWarn() throws {
        let noJitter = sender("no-jitter")
        let only = "apns.internal-server-error-backoff"
        let lenient = conform(["--sender", noJitter, "--only", only, "--annotations", "github"])
        XCTAssertEqual(lenient.code, 0, lenient.out)
        XCTAssertEqual(Self.annotations(lenient.out).map(\.level), ["warning"], lenient.out)
        let strict = conform(["--sender", noJitter, "--only", only, "--fail-on", "warn", "--annotations", "github"])
        XCTAssertEqual(strict.code, 1, strict.out)
        XCTAssertTrue(strict.out.contains("status: failed on warnings (--fail-on warn): 1 new SHOULD warning"), strict.out)
        XCTAssertEqual(Self.annotations(strict.out).map(\.level), ["error"], strict.out)
    }

    /// `--compare`: the reference sender, then a sender that opens a connection per push; the
    /// connection count and its delta show.
    func testCompareShowsTheCostOfAConnectionPerPush() throws {
        let old = dir + "/reference.json"
        let only = "apns.connection-reuse,apns.happy-path"
        XCTAssertEqual(conform(["--sender", Self.sender, "--only", only, "--json", old]).code, 0)
        let r = conform(["--sender", sender("connection-per-push"), "--only", only, "--compare", old])
        XCTAssertEqual(r.code, 1, r.out)
        let diff = try XCTUnwrap(r.out.range(of: "behaviour diff against \(old):\n")).upperBound
        let text = String(r.out[diff...])
        XCTAssertTrue(text.contains("  apns.connection-reuse: pass → fail\n    now connection-reuse fail\n"), text)
        let line = try XCTUnwrap(text.components(separatedBy: "\n").first { $0.hasPrefix("    connections: ") }, text)
        // "connections: 1 → 20 (+19)": more than before, and the delta is the difference.
        let nums = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        XCTAssertEqual(nums.count, 3, line)
        XCTAssertGreaterThan(nums[1], nums[0], line)
        XCTAssertEqual(nums[2], nums[1] - nums[0], line)
        XCTAssertTrue(text.contains("  total over 2 cases in both runs:\n    requests: "), text)
        XCTAssertTrue(text.contains("    requests per delivered: 1 → 1"), text)
    }

    /// The `pushdouble conform` lines of a docs/conformance.md section's code blocks.
    static func recipeCommands(_ heading: String) throws -> [String] {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent(); url.deleteLastPathComponent(); url.deleteLastPathComponent()
        let doc = try String(contentsOf: url.appendingPathComponent("docs/conformance.md"), encoding: .utf8)
        let start = try XCTUnwrap(doc.range(of: "\n" + heading + "\n"), heading)
        let rest = doc[start.upperBound...]
        let section = rest[..<(rest.range(of: "\n#")?.lowerBound ?? rest.endIndex)]
        return section.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .map { $0.hasPrefix("- ") ? String($0.dropFirst(2)) : $0 }
            .filter { $0.hasPrefix("pushdouble conform ") }
    }

    /// Runs a recipe line with /bin/sh as CI would: `pushdouble` on PATH, the job's variables
    /// set, in a work directory; `--only` and `--seed` appended to keep it short. Returns (status, stdout).
    func runRecipe(_ command: String, sender: String, env extra: [String: String] = [:]) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command + " --only apns.unregistered,apns.too-many-requests --seed 1 --timeout 30"]
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = builtProduct(named: "pushdouble").deletingLastPathComponent().path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        env["SENDER"] = sender
        env["PUSHDOUBLE_SCENARIOS"] = shippedScenarioDirectory
        for (k, v) in extra { env[k] = v }
        p.environment = env
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, text)
    }

    /// Renders a Markdown file with markdown-it-py (GFM tables on); returns whether it has the counts table and its h2.
    func renders(_ markdown: String) throws -> Bool {
        let py = "import sys; from markdown_it import MarkdownIt\n"
            + "h = MarkdownIt('commonmark').enable('table').render(open(sys.argv[1]).read())\n"
            + "print('<table>' in h and '<h2>pushdouble conform' in h)"
        let (status, out) = try tool(["python3", "-c", py, markdown])
        XCTAssertEqual(status, 0, out)
        return out.trimmingCharacters(in: .whitespacesAndNewlines) == "True"
    }

    /// The documented bootstrap, GitHub Actions and GitLab CI commands, run as written.
    func testDocumentedRecipesRun() throws {
        let bootstrap = try XCTUnwrap(Self.recipeCommands("Bootstrap (one time, commit the file):").first)
        let github = try XCTUnwrap(Self.recipeCommands("### GitHub Actions").first)
        let gitlab = try XCTUnwrap(Self.recipeCommands("### GitLab CI").first)
        XCTAssertEqual(try runRecipe(bootstrap, sender: sender("ignore-retry-after")).0, 0, bootstrap)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/conformance-baseline.json"))

        // A pull request with one more bug, on GitHub: exit 1, annotations, a step summary that renders.
        let stepSummary = dir + "/step-summary.md"
        let (code, out) = try runRecipe(github, sender: sender("ignore-retry-after", "retry-dead-tokens"), env: ["GITHUB_STEP_SUMMARY": stepSummary])
        XCTAssertEqual(code, 1, out)
        let notes = Self.annotations(out)
        XCTAssertEqual(Set(notes.map(\.level)), ["error"], out)
        XCTAssertEqual(Set(notes.compactMap { $0.props["title"]?.split(separator: " ").first.map(String.init) }), ["apns.unregistered"], out)
        XCTAssertTrue(notes.allSatisfy { $0.props["file"] == "Scenarios/apns.unregistered.json" || $0.props["file"]?.hasSuffix("/Scenarios/apns.unregistered.json") == true },
                      "\(notes)")
        XCTAssertTrue(try renders(stepSummary))
        for f in ["conform.xml", "conform.json", "conform.html"] { XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/" + f), f) }

        // Production again, on GitLab: known failures only, exit 0, JUnit without <failure>.
        let (okCode, okOut) = try runRecipe(gitlab, sender: sender("ignore-retry-after"))
        XCTAssertEqual(okCode, 0, okOut)
        XCTAssertTrue(try renders(dir + "/conform-summary.md"))
        XCTAssertFalse(try String(contentsOfFile: dir + "/conform.xml", encoding: .utf8).contains("<failure"))
    }
}
