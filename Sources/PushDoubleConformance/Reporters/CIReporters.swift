import Foundation

/// Renders the run summary as GitHub-flavoured Markdown (`--summary-md FILE`): for
/// `$GITHUB_STEP_SUMMARY` or a merge-request note. The same ``SummaryText`` sections as the
/// console: status, a counts table, then each list.
public enum MarkdownSummaryReporter {
    public static func render(_ r: RunReport) -> String {
        let s = r.summary
        var md = "## pushdouble conform: \(s.status == .passed ? "✅" : "❌") \(escape(s.headline))\n\n"
        md += "Exit code \(s.exitCode) · sender `\(code(r.sender))` · " + (s.seed.map { "--seed \($0)" } ?? "seeds " + s.seeds.map(String.init).joined(separator: ", ")) + "\n\n"
        md += "| | total | passed | failed | warned | info | n/a | errors |\n|---|---:|---:|---:|---:|---:|---:|---:|\n"
        for (name, c) in [("cases", s.cases), ("checks", s.checks)] {
            md += "| \(name) | \(c.total) | \(c.passed) | \(c.failed) | \(c.warned) | \(c.info) | \(c.notApplicable) | \(c.errors) |\n"
        }
        for section in SummaryText.sections(r).dropFirst(3) {
            md += "\n### \(escape(section.title))\n\n"
            md += section.items.isEmpty ? "None.\n" : section.items.map { "- " + escape($0) + "\n" }.joined()
        }
        return md
    }

    /// Characters Markdown would read as markup, escaped (text a sender chose stays text).
    static func escape(_ s: String) -> String {
        var out = ""
        for ch in s.replacingOccurrences(of: "\n", with: " ") {
            if "\\`*_[]<>|#".contains(ch) { out.append("\\") }
            out.append(ch)
        }
        return out
    }

    static func code(_ s: String) -> String { s.replacingOccurrences(of: "`", with: "'") }
}

/// Workflow-command lines for GitHub Actions (`--annotations github`): `::error` per new MUST
/// failure and per driver error, `::warning` per new SHOULD warning (`::error` under `--fail-on
/// warn`), each pointing at the case's scenario file. Known ones are not annotated.
public enum GitHubAnnotationsReporter {
    public static func render(_ r: RunReport, relativeTo base: String = FileManager.default.currentDirectoryPath) -> String {
        let s = r.summary
        var out = ""
        func line(_ level: String, _ i: RunSummary.Item) {
            var props: [String] = []
            if let f = i.file { props.append("file=" + property(relative(f, to: base))) }
            props.append("title=" + property("\(i.case) \(i.check)"))
            out += "::\(level) \(props.joined(separator: ","))::" + data("[\(i.severity.rawValue); \(i.reference)] \(i.message)") + "\n"
        }
        for i in s.newErrors { line("error", i) }
        for i in s.newFailures { line("error", i) }
        for i in s.newWarnings { line(s.failOn == .warn ? "error" : "warning", i) }
        return out
    }

    /// A path under `base` made relative to it (GitHub resolves annotation files from the checkout).
    static func relative(_ path: String, to base: String) -> String {
        let prefix = base.hasSuffix("/") ? base : base + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    /// A message escaped as the runner reads it: `%`, CR and LF percent-encoded.
    static func data(_ s: String) -> String {
        s.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
    }
    /// A property value: as ``data(_:)`` plus `:` and `,`.
    static func property(_ s: String) -> String {
        data(s).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
