import Foundation
import PushDouble
import PushDoubleCore
import PushDoubleInbox

/// Renders a run as one self-contained HTML page (`conform --html FILE`): a summary, then one
/// expandable section per case (worst verdict first) with its verdicts, their evidence and the
/// case's exchanges drawn by the inbox's retry timeline (``InboxAsset/timelineScript``).
///
/// Self-contained: the styles and scripts are inline and a Content-Security-Policy forbids
/// loading anything, so the file opens offline, attached to a CI run. The exchanges travel as
/// one JSON block (`<script type="application/json">`) with every `<` written `\u003c`, so
/// no text a sender chose (a request body) can end the block or open markup; the page's
/// script draws them with DOM APIs only. A case's timeline holds at most
/// ``exchangesPerCase`` exchanges (those a check cites first, then the earliest).
///
/// The registered providers' inbox views (``InboxView``, assembled as the inbox's
/// `/inbox/views.js`) are inlined before the timeline: their `messageIdentity` hooks group a
/// notification's attempts as the inbox does (docs/inbox.md, "Provider hooks").
public enum HTMLReporter {
    /// Exchanges of one case the page embeds and draws, at most.
    public static let exchangesPerCase = 200
    /// `id` of the JSON block: an array with, per case in page order, its exchanges as
    /// `GET /history` encodes them.
    public static let dataElementID = "pd-report-exchanges"

    /// The page of `r`; `views` are the providers' inbox views whose hooks the timeline uses.
    public static func render(_ r: RunReport, views: [(provider: ProviderID, view: InboxView)] = FakeRegistry.inboxViews) -> String {
        let cases = ordered(r.cases)
        var h = head(r)
        h += "<body>\n<header class=\"top\">\n<h1>Conformance report</h1>\n" + summary(r) + controls() + "</header>\n"
        h += "<main id=\"cases\">\n"
        for (i, c) in cases.enumerated() { h += caseSection(c, index: i) }
        h += "<p class=\"no-match\" data-testid=\"no-match\" hidden>No case matches the filter.</p>\n</main>\n"
        h += dataBlock(cases)
        h += "<script>\n" + viewsScript(views) + "\n</script>\n"
        h += "<script>\n" + InboxAsset.timelineScript.text + "\n</script>\n"
        h += "<script>\n" + HTMLReportAssets.script + "\n</script>\n</body>\n</html>\n"
        return h
    }

    /// The providers' views as the inbox serves them at `/inbox/views.js`.
    static func viewsScript(_ views: [(provider: ProviderID, view: InboxView)]) -> String {
        InboxPage.viewAssets(views).first { $0.contentType.hasPrefix("text/javascript") }?.text ?? ""
    }

    /// The `data-verdict` of a case: `error` when the driver protocol broke (the case was cut
    /// short), else its verdict — `pass` (`info` too: a broken MAY rule counts as passed, as in
    /// the console's count), `fail`, `warn` or `n/a`.
    public static func verdictName(_ c: CaseResult) -> String {
        if c.driverFailure != nil { return "error" }
        return c.verdict == .info ? Verdict.pass.rawValue : c.verdict.rawValue
    }

    /// Cases worst first (error, fail, warn, pass, n/a), the run's order within a verdict.
    static func ordered(_ cases: [CaseResult]) -> [CaseResult] {
        let ranks = ["error": 0, "fail": 1, "warn": 2, "pass": 3]
        func rank(_ c: CaseResult) -> Int { ranks[verdictName(c)] ?? 5 }
        return cases.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
    }

    // MARK: Page parts

    static func head(_ r: RunReport) -> String {
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            + "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
            + "<title>pushdouble conform: \(text(r.sender))</title>\n"
            + "<style>\n" + HTMLReportAssets.style + "\n" + InboxAsset.timelineStyle.text + "\n</style>\n</head>\n"
    }

    /// Case counts by ``verdictName(_:)``, in summary order.
    static func counts(_ cases: [CaseResult]) -> [(name: String, label: String, count: Int)] {
        let names = cases.map(verdictName)
        func n(_ v: String) -> Int { names.filter { $0 == v }.count }
        return [("pass", "passed", n("pass")), ("fail", "failed", n("fail")), ("warn", "warned", n("warn")),
                ("error", "errors", n("error")), ("na", "not applicable", n("n/a"))]
    }

    /// The run summary (``RunSummary``): status, case and check counts, new failures, known
    /// failures, fixed baseline entries and warnings, as in every other format.
    static func summary(_ r: RunReport) -> String {
        let sum = r.summary
        var s = "<section class=\"summary\" data-testid=\"report-summary\" data-succeeded=\"\(r.succeeded)\" data-status=\(attr(sum.status.rawValue))>\n"
        s += "<p class=\"result \(r.succeeded ? "ok" : "bad")\" data-testid=\"report-result\">" + text(sum.headline.prefix(1).uppercased() + sum.headline.dropFirst())
            + " (exit \(sum.exitCode)).</p>\n"
        s += "<ul class=\"counts\">"
        for c in counts(r.cases) {
            s += "<li class=\"count c-\(c.name)\"><span class=\"n\" data-testid=\"summary-\(c.name)\">\(c.count)</span> \(c.label)</li>"
        }
        s += "</ul>\n<p class=\"check-counts\" data-testid=\"summary-checks\">Checks \(sum.checks.total): \(text(RunSummary.describe(sum.checks)))</p>\n"
        s += summaryList("New MUST failures", sum.newFailures.map(SummaryText.line), testID: "summary-new-failures", open: true)
        s += summaryList("Errors", sum.errors.map(SummaryText.line), testID: "summary-errors", open: true)
        s += summaryList("Known failures", sum.knownFailures.map(SummaryText.line), testID: "summary-known")
        s += summaryList("Fixed since baseline", sum.fixed.map { "\($0.case) \($0.check)" }, testID: "summary-fixed", open: sum.status == .staleBaseline)
        s += summaryList("SHOULD warnings (\(sum.newWarnings.count) new)", sum.warnings.map(SummaryText.line), testID: "summary-warnings")
        s += "<dl class=\"facts\">\n"
        s += fact("Sender", "<code data-testid=\"summary-sender\">\(text(r.sender))</code>" + identity(r.cases.lazy.compactMap(\.sender).first),
                  wide: true)
        s += fact("Seeds", text(seeds(r)), testID: "summary-seeds")
        s += fact("Cases", "\(r.cases.count)")
        s += fact("Started", text(DateFormats.iso8601(r.startedAt)))
        s += fact("Duration", String(format: "%.2f s", r.durationSeconds), testID: "summary-duration")
        return s + "</dl>\n</section>\n"
    }

    /// One list of the summary, one entry per line (readable at any width), left out when empty.
    static func summaryList(_ title: String, _ items: [String], testID: String, open: Bool = false) -> String {
        guard !items.isEmpty else { return "" }
        return "<details class=\"summary-list\" data-testid=\(attr(testID))\(open ? " open" : "")><summary>\(text(title)) (\(items.count))</summary>\n<ul>\n"
            + items.map { "<li><code>\(text($0))</code></li>\n" }.joined() + "</ul>\n</details>\n"
    }

    /// "--seed 7 for every case", or the distinct seeds the scenarios used.
    static func seeds(_ r: RunReport) -> String {
        if let s = r.seed { return "--seed \(s) for every case" }
        let used = Set(r.cases.compactMap(\.seed)).sorted()
        return used.isEmpty ? "each scenario's own" : "each scenario's own: " + used.map(String.init).joined(separator: ", ")
    }

    static func identity(_ id: SenderIdentity?) -> String {
        guard let id else { return "" }
        return " <span class=\"identity\">(\(text(id.name)) \(text(id.version)); \(text(id.providers.joined(separator: ", "))))</span>"
    }

    static func fact(_ name: String, _ valueHTML: String, testID: String? = nil, wide: Bool = false) -> String {
        "<div\(wide ? " class=\"wide\"" : "")><dt>\(text(name))</dt><dd" + (testID.map { " data-testid=\(attr($0))" } ?? "") + ">\(valueHTML)</dd></div>\n"
    }

    /// The filter bar: verdict buttons, a search field, expand/collapse.
    static func controls() -> String {
        var s = "<nav class=\"controls\" aria-label=\"Filter cases\">\n<div class=\"verdict-filter\" role=\"group\" aria-label=\"Show cases\">"
        for (value, label) in [("all", "All"), ("new", "New only"), ("problems", "Problems"), ("fail", "Failed"), ("error", "Errors"), ("warn", "Warned"),
                               ("pass", "Passed"), ("n/a", "N/A")] {
            s += "<button type=\"button\" data-testid=\"filter-verdict\" data-filter=\(attr(value)) aria-pressed=\"\(value == "all")\">\(label)</button>"
        }
        s += "</div>\n<label class=\"search\">Case <input type=\"search\" data-testid=\"case-filter\" placeholder=\"id or title ( / )\" autocomplete=\"off\"></label>\n"
        s += "<div class=\"expand\"><button type=\"button\" data-testid=\"expand-all\">Expand all</button>"
            + "<button type=\"button\" data-testid=\"collapse-all\">Collapse all</button></div>\n</nav>\n"
        return s
    }

    // MARK: One case

    static func caseSection(_ c: CaseResult, index: Int) -> String {
        let v = verdictName(c)
        let problem = v == "error" || v == "fail"
        var s = "<details class=\"case v-\(cssName(v))\" data-testid=\"case\" data-case-id=\(attr(c.id)) data-verdict=\(attr(v))"
            + " data-case-index=\"\(index)\" id=\"case-\(index)\"" + (c.verdict == .fail && !c.isError && c.newFailures.isEmpty ? " data-known=\"true\"" : "")
            + (isNew(c) ? " data-new=\"true\"" : "")
            + (problem ? " open" : "") + ">\n"
        s += "<summary><span class=\"badge b-\(cssName(v))\">\(text(badge(c)))</span> <code class=\"case-id\">\(text(c.id))</code>"
            + " <span class=\"case-title\">\(text(c.title))</span>"
            + " <span class=\"case-meta\">\(c.checks.count) checks · " + String(format: "%.2f s", c.durationSeconds) + "</span></summary>\n"
        s += "<div class=\"case-body\">\n" + caseFacts(c)
        if let na = c.notApplicableReason { s += "<p class=\"na-reason\">Not applicable: \(text(na))</p>\n" }
        if let f = c.driverFailure { s += "<div class=\"driver-failure\" data-testid=\"driver-failure\"><strong>Driver failure:</strong> <pre>\(text(f))</pre></div>\n" }
        s += verdicts(c)
        s += timeline(c, index: index) + steps(c) + senderLog(c)
        return s + "</div>\n</details>\n"
    }

    /// Whether the case has something the baseline does not excuse (the "New only" filter):
    /// a new failure, a driver error or a new warning.
    static func isNew(_ c: CaseResult) -> Bool { !c.newFailures.isEmpty || !c.newErrors.isEmpty || !c.newWarnings.isEmpty }

    /// The case's checks, worst first. In a case with a failure or warning the passing and
    /// n/a checks are folded into one closed list under the problems (`passing-checks`).
    static func verdicts(_ c: CaseResult) -> String {
        let all = worstFirst(c.checks)
        let problems = all.filter { $0.verdict == .fail || $0.verdict == .warn || $0.verdict == .info }
        guard !problems.isEmpty, problems.count < all.count else {
            return "<ul class=\"verdicts\">\n" + all.map(verdictItem).joined() + "</ul>\n"
        }
        let rest = all.filter { !problems.map(\.id).contains($0.id) }
        return "<ul class=\"verdicts\">\n" + problems.map(verdictItem).joined() + "</ul>\n"
            + "<details class=\"passing-checks\" data-testid=\"passing-checks\"><summary>\(rest.count) passing or n/a check\(rest.count == 1 ? "" : "s")</summary>\n"
            + "<ul class=\"verdicts\">\n" + rest.map(verdictItem).joined() + "</ul>\n</details>\n"
    }

    /// Checks worst verdict first, the case's order within a verdict.
    static func worstFirst(_ checks: [CheckResult]) -> [CheckResult] {
        checks.enumerated().sorted { ($0.element.verdict, $1.offset) > ($1.element.verdict, $0.offset) }.map(\.element)
    }

    static func badge(_ c: CaseResult) -> String {
        let v = verdictName(c)
        if v == "fail" && c.newFailures.isEmpty { return "FAIL (known)" }
        return c.verdict == .info && v == "pass" ? "INFO" : v.uppercased()
    }

    /// A verdict as a CSS class fragment ("n/a" → "na").
    static func cssName(_ verdict: String) -> String { verdict == "n/a" ? "na" : verdict }

    static func caseFacts(_ c: CaseResult) -> String {
        var s = "<dl class=\"facts case-facts\">\n"
        if !c.references.isEmpty { s += fact("References", text(c.references.joined(separator: "; "))) }
        if let f = c.file { s += fact("File", "<code>\(text(f))</code>") }
        if let seed = c.seed { s += fact("Seed", "\(seed)") }
        let shown = min(c.history.count, exchangesPerCase)
        s += fact("Exchanges", "\(c.historyCount) recorded" + (shown < c.historyCount ? ", \(shown) shown" : ""))
        return s + "</dl>\n"
    }

    static func verdictItem(_ k: CheckResult) -> String {
        var s = "<li class=\"verdict v-\(cssName(k.verdict.rawValue))\" data-testid=\"verdict\" data-check-id=\(attr(k.id))"
            + " data-verdict=\(attr(k.verdict.rawValue)) data-severity=\(attr(k.severity.rawValue))" + (k.known ? " data-known=\"true\"" : "") + ">\n"
        s += "<div class=\"verdict-head\"><span class=\"badge b-\(cssName(k.verdict.rawValue))\">\(text(k.verdict.rawValue.uppercased() + (k.known ? " (known)" : "")))</span>"
            + " <code class=\"check-id\">\(text(k.id))</code> <span class=\"severity\">\(text(k.severity.rawValue))</span>"
            + " <span class=\"check-title\">\(text(k.title))</span></div>\n"
        s += "<p class=\"message\">\(text(k.message))</p>\n<p class=\"reference\">\(text(k.reference))</p>\n"
        if !k.evidence.isEmpty {
            s += "<ul class=\"evidence\">\n"
            for e in k.evidence {
                let seqs = e.seqs.map { "<button type=\"button\" class=\"seq\" data-seq=\"\($0)\" title=\"Show exchange #\($0)\">#\($0)</button>" }
                s += "<li data-testid=\"evidence\" data-seqs=\"\(e.seqs.map(String.init).joined(separator: " "))\">"
                    + (seqs.isEmpty ? "" : seqs.joined(separator: " ") + ": ") + text(e.note) + "</li>\n"
            }
            s += "</ul>\n"
        }
        return s + "</li>\n"
    }

    /// The timeline's container (drawn by the page's script from the JSON block) and the
    /// exchange detail it fills on a click.
    static func timeline(_ c: CaseResult, index: Int) -> String {
        "<h3>Attempts</h3>\n<div class=\"retry-timeline\" data-testid=\"retry-timeline\" data-case-index=\"\(index)\"></div>\n"
            + "<div class=\"exchange-detail\" data-testid=\"exchange-detail\" hidden><div class=\"detail-head\"></div><pre></pre></div>\n"
    }

    static func steps(_ c: CaseResult) -> String {
        guard !c.steps.isEmpty else { return "" }
        var s = "<details class=\"steps\"><summary>Steps (\(c.steps.count))</summary>\n<ol>\n"
        for st in c.steps {
            var line = st.type + (st.repetition > 0 ? " (repetition \(st.repetition + 1))" : "")
            if !st.devices.isEmpty { line += " → " + st.devices.joined(separator: ", ") }
            if !st.results.isEmpty {
                line += ": " + st.results.map { r in "\(r.device) \(r.outcome.rawValue)" + (r.reason.map { " (\($0))" } ?? "") }.joined(separator: ", ")
            }
            if let f = st.failure { line += "; failed: " + f }
            line += String(format: " [%.3f s]", st.endedAt.timeIntervalSince(st.startedAt))
            s += "<li>\(text(line))</li>\n"
        }
        return s + "</ol>\n</details>\n"
    }

    static func senderLog(_ c: CaseResult) -> String {
        guard !c.senderLog.isEmpty else { return "" }
        return "<details class=\"sender-log\"><summary>Sender stderr</summary>\n<pre>\(text(c.senderLog))</pre>\n</details>\n"
    }

    // MARK: Data

    /// The JSON block: per case (page order) its exchanges, at most ``exchangesPerCase``.
    static func dataBlock(_ cases: [CaseResult]) -> String {
        let encoder = ExchangeEncoding.makeEncoder()
        var parts: [String] = []
        for c in cases {
            let shown = CaseJudge.excerpt(c.history, citedBy: c.checks, limit: exchangesPerCase)
            parts.append((try? String(decoding: encoder.encode(shown), as: UTF8.self)) ?? "[]")
        }
        return "<script type=\"application/json\" id=\"\(dataElementID)\">" + scriptSafe("[" + parts.joined(separator: ",") + "]") + "</script>\n"
    }

    /// JSON that may sit inside a `<script>` element: every `<` (which JSON has only inside
    /// strings) written as the escape `\u003c`, so neither `</script>` nor `<!--` can occur.
    public static func scriptSafe(_ json: String) -> String {
        json.replacingOccurrences(of: "<", with: "\\u003c")
    }

    /// Escaped text and quoted attribute values; HTML escapes them as XML does (``JUnitReporter``).
    static func text(_ s: String) -> String { JUnitReporter.text(s) }
    static func attr(_ s: String) -> String { JUnitReporter.attr(s) }
}
