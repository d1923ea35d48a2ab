import Foundation
import PushDoubleCore

/// Renders a run for a terminal: one line per case, failures with evidence, then the run
/// summary (``RunSummary``, ``SummaryText``).
///
/// The last line is exactly `N passed, N failed, N warned` (cases), followed by `, N errors`
/// when a case broke the driver protocol.
public enum ConsoleReporter {
    /// One case's line (plus indented details for checks that did not pass; with `verbose`, the
    /// info and n/a checks too).
    public static func caseLines(_ c: CaseResult, verbose: Bool = false) -> String {
        let tag: String
        switch c.verdict {
        case _ where c.isError: tag = c.newErrors.isEmpty ? "ERROR (known)" : "ERROR"
        case .pass: tag = "PASS"
        case .fail: tag = c.newFailures.isEmpty ? "FAIL (known)" : "FAIL"
        case .warn: tag = "WARN"
        case .info: tag = "INFO"
        case .notApplicable: tag = "N/A "
        }
        var out = "\(tag)  \(c.id)  \(c.title)" + String(format: "  (%.2f s)", c.durationSeconds)
        if let na = c.notApplicableReason { out += "\n      \(na)" }
        for r in c.checks where r.verdict == .fail || r.verdict == .warn || (verbose && (r.verdict == .info || r.verdict == .notApplicable)) {
            out += "\n      \(r.verdict.rawValue.uppercased())\(r.known ? " (known)" : "") \(r.id) [\(r.severity.rawValue); \(r.reference)]: \(r.message)"
            for e in r.evidence.prefix(8) { out += "\n        - \(e.rendered)" }
            if r.evidence.count > 8 { out += "\n        - … \(r.evidence.count - 8) more" }
        }
        if c.driverFailure != nil && !c.senderLog.isEmpty {
            let lines = c.senderLog.split(separator: "\n", omittingEmptySubsequences: false).suffix(15)
            out += "\n      sender stderr (last lines):"
            for l in lines { out += "\n        | \(l)" }
        }
        return out
    }

    /// The lines of every case of a run: each case that ran as ``caseLines(_:verbose:)``; the
    /// cases that were not applicable as a whole, after them, one line per reason
    /// (`N/A   3 cases: sender does not support fcm (fcm.a, fcm.b, fcm.c)`), so a sender without a
    /// provider does not bury its results under two lines per case it cannot run.
    public static func caseLines(of cases: [CaseResult], verbose: Bool = false) -> String {
        var lines: [String] = []
        var notApplicable: [(reason: String, ids: [String])] = []
        for c in cases {
            guard c.verdict == .notApplicable && !c.isError else { lines.append(caseLines(c, verbose: verbose)); continue }
            let reason = c.notApplicableReason ?? "no check applies"
            if let i = notApplicable.firstIndex(where: { $0.reason == reason }) { notApplicable[i].ids.append(c.id) }
            else { notApplicable.append((reason, [c.id])) }
        }
        for g in notApplicable {
            lines.append("N/A   \(g.ids.count) case\(g.ids.count == 1 ? "" : "s"): \(g.reason) (\(g.ids.joined(separator: ", ")))")
        }
        return lines.joined(separator: "\n")
    }

    /// The closing lines: the run summary, then the case counts.
    public static func summary(_ r: RunReport) -> String {
        let s = r.summary
        var out = "\n"
        for section in SummaryText.sections(r) {
            out += section.title + (section.items.isEmpty ? "" : ":") + "\n"
            for i in section.items { out += "  - " + i + "\n" }
        }
        out += "\(s.cases.passed + s.cases.info) passed, \(s.cases.failed) failed, \(s.cases.warned) warned"
        if s.cases.errors > 0 { out += ", \(s.cases.errors) errors" }
        return out
    }

    public static func render(_ r: RunReport) -> String {
        ([caseLines(of: r.cases)] + [summary(r)]).joined(separator: "\n") + "\n"
    }
}

/// The run summary as titled lists of lines: what the console prints and the Markdown
/// summary tabulates, from ``RunSummary`` alone.
public enum SummaryText {
    /// One titled list (an empty list is a one-line section).
    public struct Section: Sendable, Equatable {
        public var title: String
        public var items: [String]
    }

    /// `CASE CHECK [SEVERITY; reference]: message`.
    public static func line(_ i: RunSummary.Item) -> String {
        "\(i.case) \(i.check) [\(i.severity.rawValue); \(i.reference)]: \(i.message)" + (i.known ? " (known)" : "")
    }

    /// Status, counts, then the lists that are not empty (new failures always).
    public static func sections(_ r: RunReport) -> [Section] {
        let s = r.summary
        var out = [Section(title: "status: \(s.headline) (exit \(s.exitCode))", items: []),
                   Section(title: "cases \(s.cases.total): " + RunSummary.describe(s.cases)
                           + (s.knownOnlyCases(r) > 0 ? "; \(s.knownOnlyCases(r)) failed only on known failures" : ""), items: []),
                   Section(title: "checks \(s.checks.total): " + RunSummary.describe(s.checks), items: []),
                   Section(title: "new MUST failures (\(s.newFailures.count))", items: s.newFailures.map(line))]
        if !s.errors.isEmpty { out.append(Section(title: "errors (\(s.errors.count))", items: s.errors.map(line))) }
        if !s.knownFailures.isEmpty { out.append(Section(title: "known failures (\(s.knownFailures.count))", items: s.knownFailures.map(line))) }
        if !s.fixed.isEmpty { out.append(Section(title: "fixed since baseline (\(s.fixed.count))", items: s.fixed.map { "\($0.case) \($0.check)" })) }
        if !s.warnings.isEmpty {
            out.append(Section(title: "SHOULD warnings (\(s.warnings.count), \(s.newWarnings.count) new)", items: s.warnings.map(line)))
        }
        return out
    }
}

/// Renders a run as JUnit XML for CI test widgets: a first `<testsuite name="pushdouble.summary"
/// tests="0">` whose `<properties>` carry the run summary, then one testsuite per case (name =
/// case id) with one testcase per check (classname = case id, name = check id, `file` = the
/// scenario file, `time` = the check's seconds). A new MUST failure (or, under `--fail-on
/// warn`, a new SHOULD warning) → `<failure>`; a known one → `<skipped message="known failure
/// (baseline): …">`; the `driver.protocol` check's failure → `<error>`; n/a → `<skipped>`;
/// other warn/info verdicts → a `<system-out>` note; sender stderr in the suite's `<system-err>`.
public enum JUnitReporter {
    /// The name of the summary suite.
    public static let summarySuite = "pushdouble.summary"

    /// How a check shows in JUnit.
    enum Outcome: Equatable {
        case passed, failure, error, skipped(String), note
    }

    static func outcome(_ k: CheckResult, failOn: FailOn) -> Outcome {
        switch k.verdict {
        case .fail where k.known: return .skipped("known failure (baseline): " + k.message)
        case .fail where k.id == CheckCatalogue.driverCheckID: return .error
        case .fail: return .failure
        case .warn where failOn == .warn && !k.known: return .failure
        case .warn, .info: return .note
        case .notApplicable: return .skipped(k.message)
        case .pass: return .passed
        }
    }

    public static func render(_ r: RunReport) -> String {
        var x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let outcomes = r.cases.flatMap { $0.checks.map { outcome($0, failOn: r.failOn) } }
        func n(_ f: (Outcome) -> Bool) -> Int { outcomes.filter(f).count }
        func skipped(_ o: Outcome) -> Bool { if case .skipped = o { return true }; return false }
        x += "<testsuites name=\"pushdouble conform\" tests=\"\(outcomes.count)\" failures=\"\(n { $0 == .failure })\""
            + " errors=\"\(n { $0 == .error })\" skipped=\"\(n(skipped))\" time=\(attr(String(format: "%.3f", r.durationSeconds)))>\n"
        // The common JUnit schemas type `timestamp` as an ISO 8601 date-time without a zone (UTC here).
        let stamp = String(DateFormats.iso8601(r.startedAt).prefix(19))
        x += summarySuite(r, stamp: stamp)
        for c in r.cases {
            let os = c.checks.map { outcome($0, failOn: r.failOn) }
            x += "  <testsuite name=\(attr(c.id)) tests=\"\(c.checks.count)\" failures=\"\(os.filter { $0 == .failure }.count)\""
                + " errors=\"\(os.filter { $0 == .error }.count)\" skipped=\"\(os.filter(skipped).count)\""
                + " time=\(attr(String(format: "%.3f", c.durationSeconds))) timestamp=\(attr(stamp))>\n"
            for (k, o) in zip(c.checks, os) { x += testcase(k, o, in: c) }
            if !c.senderLog.isEmpty { x += "    <system-err>\(text(c.senderLog))</system-err>\n" }
            x += "  </testsuite>\n"
        }
        x += "</testsuites>\n"
        return x
    }

    static func testcase(_ k: CheckResult, _ o: Outcome, in c: CaseResult) -> String {
        var x = "    <testcase classname=\(attr(c.id)) name=\(attr(k.id))" + (c.file.map { " file=\(attr($0))" } ?? "")
            + " time=\(attr(String(format: "%.3f", max(0, k.durationSeconds ?? 0))))>\n"
        let detail = ([k.message] + k.evidence.map { "- " + $0.rendered }).joined(separator: "\n")
        let type = attr(k.severity.rawValue + " " + k.reference)
        switch o {
        case .failure: x += "      <failure message=\(attr(k.message)) type=\(type)>\(text(detail))</failure>\n"
        case .error: x += "      <error message=\(attr(k.message)) type=\(type)>\(text(detail))</error>\n"
        case .skipped(let m): x += "      <skipped message=\(attr(m))/>\n"
        case .note: x += "      <system-out>\(text(k.verdict.rawValue.uppercased() + " (" + k.severity.rawValue + "): " + detail))</system-out>\n"
        case .passed: break
        }
        return x + "    </testcase>\n"
    }

    /// The run summary as properties of an empty suite (JUnit has no run-level properties).
    static func summarySuite(_ r: RunReport, stamp: String) -> String {
        let s = r.summary
        var p: [(String, String)] = [("status", s.status.rawValue), ("exitCode", "\(s.exitCode)"), ("failOn", s.failOn.rawValue),
                                     ("seed", s.seed.map(String.init) ?? "per scenario: " + s.seeds.map(String.init).joined(separator: ","))]
        for (scope, c) in [("cases", s.cases), ("checks", s.checks)] {
            p += [("\(scope).total", c.total), ("\(scope).passed", c.passed), ("\(scope).failed", c.failed), ("\(scope).warned", c.warned),
                  ("\(scope).info", c.info), ("\(scope).notApplicable", c.notApplicable), ("\(scope).errors", c.errors)].map { ($0.0, "\($0.1)") }
        }
        p.append(("newFailures", "\(s.newFailures.count)"))
        p += s.newFailures.enumerated().map { ("newFailure.\($0.offset + 1)", "\($0.element.case) \($0.element.check)") }
        p += [("knownFailures", "\(s.knownFailures.count)"), ("fixed", "\(s.fixed.count)")]
        p += s.fixed.enumerated().map { ("fixed.\($0.offset + 1)", "\($0.element.case) \($0.element.check)") }
        p += [("warnings", "\(s.warnings.count)"), ("newWarnings", "\(s.newWarnings.count)"), ("errors", "\(s.errors.count)")]
        var x = "  <testsuite name=\(attr(summarySuite)) tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\" time=\"0\" timestamp=\(attr(stamp))>\n"
        x += "    <properties>\n"
        for (name, value) in p { x += "      <property name=\(attr(name)) value=\(attr(value))/>\n" }
        return x + "    </properties>\n  </testsuite>\n"
    }

    /// Drops characters XML 1.0 cannot carry (controls other than tab/LF/CR, lone surrogates can't occur in String).
    static func clean(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.filter { u in
            u.value == 0x9 || u.value == 0xA || u.value == 0xD || (u.value >= 0x20 && u.value != 0xFFFE && u.value != 0xFFFF)
        }))
    }
    static func text(_ s: String) -> String {
        clean(s).replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
    static func attr(_ s: String) -> String {
        "\"" + text(s).replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "\n", with: "&#10;")
            .replacingOccurrences(of: "\r", with: "&#13;").replacingOccurrences(of: "\t", with: "&#9;") + "\""
    }
}

/// Renders a run as JSON: everything in ``RunReport`` (cases, checks, evidence, steps and
/// replies, sender log, history excerpts) and its ``RunSummary``; dates are ISO 8601 UTC
/// strings with milliseconds. ``decode(_:)`` reads it back (`conform --compare`).
public enum JSONReporter {
    public static func render(_ r: RunReport) -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .custom { d, enc in
            var c = enc.singleValueContainer()
            try c.encode(DateFormats.iso8601(d))
        }
        return (try? e.encode(r)) ?? Data("{}".utf8)
    }

    /// A report ``render(_:)`` wrote (dates as ISO 8601, or as epoch-seconds strings from
    /// older reports).
    public static func decode(_ data: Data) throws -> RunReport {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .custom { dec in
            let c = try dec.singleValueContainer()
            let s = try c.decode(String.self)
            if let date = DateFormats.parseISO8601(s) { return date }
            if let secs = Double(s) { return Date(timeIntervalSince1970: secs) }
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not an ISO 8601 date: \(s)")
        }
        return try d.decode(RunReport.self, from: data)
    }
}

/// Renders the catalogue (`--list`): checks (each generic one followed by its old ids), then
/// cases with their references, checks and tags.
public enum CatalogueReporter {
    public static func render(scenarios: [ConformanceScenario]) -> String {
        var out = "Checks (id, severity, reference — title):\n"
        for c in CheckCatalogue.all {
            out += "  \(c.id)  [\(c.severity.rawValue)]  \(c.reference) — \(c.title)\n"
            for old in CheckCatalogue.aliases(of: c.id) {
                let scope = CheckCatalogue.aliases[old].map { " over \($0.provider) attempts only" } ?? ""
                out += "  \(old)  [\(c.severity.rawValue)]  \(c.reference) — \(c.title) (old id of \(c.id)\(scope))\n"
            }
        }
        out += "\nCases (\(scenarios.count)):\n"
        for s in scenarios {
            out += "  \(s.id) — \(s.title)\n"
            if !s.references.isEmpty { out += "      references: \(s.references.joined(separator: ", "))\n" }
            out += "      checks: \(s.checks.map(\.id).joined(separator: ", "))\n"
            out += "      tags: \(CheckCatalogue.tags(of: s).joined(separator: ", "))\n"
        }
        return out
    }
}
