import Foundation

/// The one summary of a run every format shows (console's last lines, JSON `summary`, HTML
/// header, JUnit properties, `--summary-md`): status and exit code, case and check counts by
/// verdict, and the new failures, known failures, fixed baseline entries, warnings and errors.
///
/// Counting rules (docs/conformance.md "Run summary"): a case cut short by the driver protocol
/// is an *error*, whatever its checks say; otherwise it counts under its worst check (`info`
/// counts as passed). A check counts under its verdict, except the `driver.protocol` check's
/// failure, which is an error. *New* means not excused by the baseline.
public struct RunSummary: Sendable, Codable, Equatable {
    /// Why the run ends as it does, most serious first; each maps to one exit code.
    public enum Status: String, Sendable, Codable {
        /// Every MUST check passed or is known (and, under `--fail-on warn`, no new warning): exit 0.
        case passed
        /// The sender or its adapter did not speak the driver protocol (crash, timeout,
        /// malformed reply) in a case the baseline does not excuse: exit 3.
        case error
        /// A MUST check failed that the baseline does not list: exit 1.
        case failed
        /// Only new SHOULD warnings, under `--fail-on warn`: exit 1.
        case warned
        /// Only fixed baseline entries, under `--baseline-strict`: exit 1 (refresh the file).
        case staleBaseline = "stale-baseline"

        /// The process exit code `pushdouble conform` ends with.
        public var exitCode: Int32 {
            switch self { case .passed: return 0; case .error: return 3; case .failed, .warned, .staleBaseline: return 1 }
        }
    }

    /// Counts by verdict (cases or checks).
    public struct Counts: Sendable, Codable, Equatable {
        public var total = 0, passed = 0, failed = 0, warned = 0, info = 0, notApplicable = 0, errors = 0
    }

    /// One check of one case the summary lists.
    public struct Item: Sendable, Codable, Equatable {
        public var `case`: String
        public var check: String
        public var severity: Severity
        public var reference: String
        public var message: String
        /// The case's scenario file, if known (annotations point at it).
        public var file: String?
        /// Whether the baseline lists it.
        public var known: Bool
    }

    public var status: Status
    public var exitCode: Int32
    /// `--fail-on` of the run.
    public var failOn: FailOn
    public var cases: Counts
    public var checks: Counts
    /// MUST failures not in the baseline (the run's reason to fail), in run order.
    public var newFailures: [Item]
    /// MUST failures (and errors) the baseline excuses.
    public var knownFailures: [Item]
    /// Baseline entries whose check no longer fails.
    public var fixed: [BaselineEntry]
    /// Every SHOULD warning, new or known.
    public var warnings: [Item]
    /// Driver-protocol failures: the sender or adapter broke.
    public var errors: [Item]
    /// The seed given with `--seed`, else nil: each case used its scenario's own (``seeds``).
    public var seed: UInt64?
    /// The distinct seeds the cases ran with.
    public var seeds: [UInt64]

    public var newWarnings: [Item] { warnings.filter { !$0.known } }
    public var newErrors: [Item] { errors.filter { !$0.known } }

    public init(_ r: RunReport) {
        var cases = Counts(), checks = Counts()
        var newFailures: [Item] = [], known: [Item] = [], warnings: [Item] = [], errors: [Item] = []
        for c in r.cases {
            cases.total += 1
            if c.isError { cases.errors += 1 } else { Self.count(c.verdict, into: &cases) }
            for k in c.checks {
                checks.total += 1
                let item = Item(case: c.id, check: k.id, severity: k.severity, reference: k.reference, message: k.message, file: c.file, known: k.known)
                if k.verdict == .fail && k.id == CheckCatalogue.driverCheckID {
                    checks.errors += 1
                    errors.append(item)
                    if k.known { known.append(item) }
                    continue
                }
                Self.count(k.verdict, into: &checks)
                if k.verdict == .fail { if k.known { known.append(item) } else { newFailures.append(item) } }
                if k.verdict == .warn { warnings.append(item) }
            }
        }
        self.cases = cases; self.checks = checks
        self.newFailures = newFailures; self.knownFailures = known; self.warnings = warnings; self.errors = errors
        self.fixed = r.fixed; self.failOn = r.failOn
        self.seed = r.seed
        self.seeds = Set(r.cases.compactMap(\.seed)).sorted()
        if errors.contains(where: { !$0.known }) { status = .error }
        else if !newFailures.isEmpty { status = .failed }
        else if r.failOn == .warn && warnings.contains(where: { !$0.known }) { status = .warned }
        else if r.baselineStrict && !r.fixed.isEmpty { status = .staleBaseline }
        else { status = .passed }
        exitCode = status.exitCode
    }

    private static func count(_ v: Verdict, into c: inout Counts) {
        switch v {
        case .pass: c.passed += 1
        case .info: c.info += 1
        case .fail: c.failed += 1
        case .warn: c.warned += 1
        case .notApplicable: c.notApplicable += 1
        }
    }

    /// Cases that failed only on known checks.
    public func knownOnlyCases(_ r: RunReport) -> Int {
        r.cases.filter { !$0.isError && $0.verdict == .fail && $0.newFailures.isEmpty }.count
    }

    /// One sentence on the status: "passed", "failed: 2 new MUST failures", …
    public var headline: String {
        switch status {
        case .passed:
            var s = "passed: every MUST check passed"
            if !knownFailures.isEmpty { s += " or is a known failure" }
            return s
        case .error: return "error: the sender or its adapter broke the driver protocol in \(plural(newErrors.count, "case"))"
        case .failed: return "failed: \(plural(newFailures.count, "new MUST failure"))"
        case .warned: return "failed on warnings (--fail-on warn): \(plural(newWarnings.count, "new SHOULD warning"))"
        case .staleBaseline: return "stale baseline (--baseline-strict): \(plural(fixed.count, "known failure")) fixed; refresh the baseline"
        }
    }

    /// "cases 4: 2 passed, 1 failed, …" style counts, the same words in every format.
    public static func describe(_ c: Counts) -> String {
        "\(c.passed) passed, \(c.failed) failed, \(c.warned) warned, \(c.info) info, \(c.notApplicable) n/a, \(c.errors) errors"
    }
}

/// "1 case", "2 cases".
func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
