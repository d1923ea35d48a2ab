import Foundation
import PushDoubleCore

/// The judged result of one case (scenario) of a run. Reporters only read it.
public struct CaseResult: Sendable, Codable {
    public var id: String
    public var title: String
    public var references: [String]
    public var file: String?
    /// Worst verdict of its checks (n/a when the sender does not support the provider).
    public var verdict: Verdict
    /// Why the whole case is not applicable, if it is not.
    public var notApplicableReason: String?
    public var sender: SenderIdentity?
    /// The driver failure that cut the case short, if any.
    public var driverFailure: String?
    /// The sender's stderr during this case (bounded).
    public var senderLog: String
    public var durationSeconds: Double
    public var checks: [CheckResult]
    public var steps: [StepRecord]
    public var history: [Exchange]
    /// How many exchanges the fakes recorded (history may hold fewer: an excerpt).
    public var historyCount: Int
    /// The seed the fakes ran with (`--seed`, else the scenario's, else 1); nil in reports
    /// written before it was kept.
    public var seed: UInt64?
    /// The case's tags (``CheckCatalogue/tags(of:)``): `--only tag:NAME` selects by them.
    public var tags: [String]?
    /// What the case cost the sender (nil: not applicable, or nothing recorded).
    public var costs: CaseCosts?

    public init(id: String, title: String, references: [String], file: String?, verdict: Verdict, notApplicableReason: String? = nil,
                sender: SenderIdentity?, driverFailure: String?, senderLog: String, durationSeconds: Double,
                checks: [CheckResult], steps: [StepRecord], history: [Exchange]) {
        self.id = id; self.title = title; self.references = references; self.file = file; self.verdict = verdict
        self.notApplicableReason = notApplicableReason; self.sender = sender; self.driverFailure = driverFailure
        self.senderLog = senderLog; self.durationSeconds = durationSeconds; self.checks = checks; self.steps = steps
        self.history = history; self.historyCount = history.count
    }

    /// Failing MUST checks not excused by the baseline (the driver check's failure, an
    /// error, is not among them: ``newErrors``).
    public var newFailures: [CheckResult] { checks.filter { $0.verdict == .fail && !$0.known && $0.id != CheckCatalogue.driverCheckID } }
    /// The driver check's failure, unless the baseline excuses it: the sender or its adapter
    /// did not speak the protocol (crash, timeout, malformed reply).
    public var newErrors: [CheckResult] { checks.filter { $0.verdict == .fail && !$0.known && $0.id == CheckCatalogue.driverCheckID } }
    /// SHOULD warnings not excused by the baseline.
    public var newWarnings: [CheckResult] { checks.filter { $0.verdict == .warn && !$0.known } }
    /// Whether the driver protocol broke and cut the case short.
    public var isError: Bool { driverFailure != nil }

    /// Recomputes `verdict` from the checks.
    public mutating func recomputeVerdict() {
        if notApplicableReason != nil { verdict = .notApplicable; return }
        verdict = checks.map(\.verdict).max() ?? .notApplicable
    }
}

/// Which verdicts fail a run (`--fail-on`): MUST failures always; `warn` adds SHOULD warnings.
public enum FailOn: String, Sendable, Codable, CaseIterable {
    case must, warn
}

/// A whole run: every case plus what the baseline says.
public struct RunReport: Sendable {
    public var sender: String
    /// The `--seed` given (nil: each scenario used its own).
    public var seed: UInt64?
    public var startedAt: Date
    public var durationSeconds: Double
    public var cases: [CaseResult]
    /// Baseline entries whose check now passes (or no longer fails).
    public var fixed: [BaselineEntry]
    /// Whether new SHOULD warnings fail the run too (`--fail-on warn`).
    public var failOn: FailOn = .must
    /// Whether a fixed baseline entry fails the run (`--baseline-strict`): the file must be refreshed.
    public var baselineStrict = false

    public init(sender: String, seed: UInt64?, startedAt: Date, durationSeconds: Double, cases: [CaseResult], fixed: [BaselineEntry] = []) {
        self.sender = sender; self.seed = seed; self.startedAt = startedAt; self.durationSeconds = durationSeconds
        self.cases = cases; self.fixed = fixed
    }

    /// The run's summary: status, counts, new and known failures (``RunSummary``).
    public var summary: RunSummary { RunSummary(self) }
    /// True when the run's status is ``RunSummary/Status/passed`` (exit code 0).
    public var succeeded: Bool { summary.status == .passed }
}

extension RunReport: Codable {
    enum CodingKeys: String, CodingKey {
        case sender, seed, startedAt, durationSeconds, cases, fixed, failOn, baselineStrict, summary
    }

    /// Every member, `seed` always (null when each case used its scenario's own), and the
    /// ``summary`` (written for readers, ignored when decoding: it is recomputed).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(sender, forKey: .sender)
        if let seed { try c.encode(seed, forKey: .seed) } else { try c.encodeNil(forKey: .seed) }
        try c.encode(startedAt, forKey: .startedAt)
        try c.encode(durationSeconds, forKey: .durationSeconds)
        try c.encode(cases, forKey: .cases)
        try c.encode(fixed, forKey: .fixed)
        try c.encode(failOn, forKey: .failOn)
        try c.encode(baselineStrict, forKey: .baselineStrict)
        try c.encode(summary, forKey: .summary)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(sender: try c.decode(String.self, forKey: .sender), seed: try c.decodeIfPresent(UInt64.self, forKey: .seed),
                  startedAt: try c.decode(Date.self, forKey: .startedAt), durationSeconds: try c.decode(Double.self, forKey: .durationSeconds),
                  cases: try c.decode([CaseResult].self, forKey: .cases), fixed: try c.decodeIfPresent([BaselineEntry].self, forKey: .fixed) ?? [])
        failOn = try c.decodeIfPresent(FailOn.self, forKey: .failOn) ?? .must
        baselineStrict = try c.decodeIfPresent(Bool.self, forKey: .baselineStrict) ?? false
    }
}
