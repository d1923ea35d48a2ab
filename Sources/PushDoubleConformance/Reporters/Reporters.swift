import Foundation
import PushDoubleCore

/// Renders a run for a terminal: one line per case, failures with evidence, a summary.
///
/// The last line is exactly `N passed, N failed, N warned` (cases).
public enum ConsoleReporter {
    /// One case's line (plus indented details for checks that did not pass).
    public static func caseLines(_ c: CaseResult, verbose: Bool = false) -> String {
        let tag: String
        switch c.verdict {
        case .pass: tag = "PASS"
        case .fail: tag = c.newFailures.isEmpty ? "FAIL (known)" : "FAIL"
        case .warn: tag = "WARN"
        case .info: tag = "INFO"
        case .notApplicable: tag = "N/A "
        }
        var out = "\(tag)  \(c.id)  \(c.title)" + String(format: "  (%.2f s)", c.durationSeconds)
        if let na = c.notApplicableReason { out += "\n      \(na)" }
        for r in c.checks where r.verdict == .fail || r.verdict == .warn || (verbose && r.verdict == .info) {
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

    /// The closing lines.
    public static func summary(_ r: RunReport) -> String {
        var extra: [String] = []
        if r.notApplicableCount > 0 { extra.append("\(r.notApplicableCount) not applicable") }
        let known = r.cases.filter { $0.verdict == .fail && $0.newFailures.isEmpty }.count
        if known > 0 { extra.append("\(known) failed only on known (baseline) checks") }
        if !r.fixed.isEmpty { extra.append("fixed since baseline: " + r.fixed.map { "\($0.case) \($0.check)" }.joined(separator: ", ")) }
        var out = ""
        if !extra.isEmpty { out += extra.joined(separator: "; ") + "\n" }
        out += "\(r.passedCount) passed, \(r.failedCount) failed, \(r.warnedCount) warned"
        return out
    }

    public static func render(_ r: RunReport) -> String {
        (r.cases.map { caseLines($0) } + [summary(r)]).joined(separator: "\n") + "\n"
    }
}

/// Renders a run as JUnit XML: one testsuite per case (name = case id), one testcase per
/// check (classname = case id, name = check id); fail → `<failure>`, n/a → `<skipped>`,
/// warn/info → `<system-out>` note; sender stderr in the suite's `<system-err>`.
public enum JUnitReporter {
    public static func render(_ r: RunReport) -> String {
        var x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let allChecks = r.cases.flatMap(\.checks)
        x += "<testsuites name=\"pushdouble conform\" tests=\"\(allChecks.count)\" failures=\"\(allChecks.filter { $0.verdict == .fail }.count)\""
            + " errors=\"0\" skipped=\"\(allChecks.filter { $0.verdict == .notApplicable }.count)\" time=\(attr(String(format: "%.3f", r.durationSeconds)))>\n"
        // The common JUnit schemas type `timestamp` as an ISO 8601 date-time without a zone (UTC here).
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX"); f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        let stamp = f.string(from: r.startedAt)
        for c in r.cases {
            x += "  <testsuite name=\(attr(c.id)) tests=\"\(c.checks.count)\" failures=\"\(c.checks.filter { $0.verdict == .fail }.count)\""
                + " errors=\"0\" skipped=\"\(c.checks.filter { $0.verdict == .notApplicable }.count)\""
                + " time=\(attr(String(format: "%.3f", c.durationSeconds))) timestamp=\(attr(stamp))>\n"
            for k in c.checks {
                x += "    <testcase classname=\(attr(c.id)) name=\(attr(k.id)) time=\"0\">\n"
                let detail = ([k.message] + k.evidence.map { "- " + $0.rendered }).joined(separator: "\n")
                switch k.verdict {
                case .fail:
                    x += "      <failure message=\(attr((k.known ? "[known] " : "") + k.message)) type=\(attr(k.severity.rawValue + " " + k.reference))>\(text(detail))</failure>\n"
                case .notApplicable:
                    x += "      <skipped message=\(attr(k.message))/>\n"
                case .warn, .info:
                    x += "      <system-out>\(text(k.verdict.rawValue.uppercased() + " (" + k.severity.rawValue + "): " + detail))</system-out>\n"
                case .pass: break
                }
                x += "    </testcase>\n"
            }
            if !c.senderLog.isEmpty { x += "    <system-err>\(text(c.senderLog))</system-err>\n" }
            x += "  </testsuite>\n"
        }
        x += "</testsuites>\n"
        return x
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
/// replies, sender log, history excerpts).
public enum JSONReporter {
    public static func render(_ r: RunReport) -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .custom { d, enc in
            var c = enc.singleValueContainer()
            try c.encode(String(format: "%.6f", d.timeIntervalSince1970))
        }
        return (try? e.encode(r)) ?? Data("{}".utf8)
    }
}

/// Renders the catalogue (`--list`): checks (each generic one followed by its old ids), then
/// cases with their references and checks.
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
        }
        return out
    }
}
