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

    public init(id: String, title: String, references: [String], file: String?, verdict: Verdict, notApplicableReason: String? = nil,
                sender: SenderIdentity?, driverFailure: String?, senderLog: String, durationSeconds: Double,
                checks: [CheckResult], steps: [StepRecord], history: [Exchange]) {
        self.id = id; self.title = title; self.references = references; self.file = file; self.verdict = verdict
        self.notApplicableReason = notApplicableReason; self.sender = sender; self.driverFailure = driverFailure
        self.senderLog = senderLog; self.durationSeconds = durationSeconds; self.checks = checks; self.steps = steps
        self.history = history; self.historyCount = history.count
    }

    /// Failing MUST checks not excused by the baseline.
    public var newFailures: [CheckResult] { checks.filter { $0.verdict == .fail && !$0.known } }

    /// Recomputes `verdict` from the checks.
    public mutating func recomputeVerdict() {
        if notApplicableReason != nil { verdict = .notApplicable; return }
        verdict = checks.map(\.verdict).max() ?? .notApplicable
    }
}

/// A whole run: every case plus what the baseline says.
public struct RunReport: Sendable, Codable {
    public var sender: String
    /// The `--seed` given (nil: each scenario used its own).
    public var seed: UInt64?
    public var startedAt: Date
    public var durationSeconds: Double
    public var cases: [CaseResult]
    /// Baseline entries whose check now passes (or no longer fails).
    public var fixed: [BaselineEntry]

    public init(sender: String, seed: UInt64?, startedAt: Date, durationSeconds: Double, cases: [CaseResult], fixed: [BaselineEntry] = []) {
        self.sender = sender; self.seed = seed; self.startedAt = startedAt; self.durationSeconds = durationSeconds
        self.cases = cases; self.fixed = fixed
    }

    public var passedCount: Int { cases.filter { $0.verdict == .pass || $0.verdict == .info }.count }
    public var failedCount: Int { cases.filter { $0.verdict == .fail }.count }
    public var warnedCount: Int { cases.filter { $0.verdict == .warn }.count }
    public var notApplicableCount: Int { cases.filter { $0.verdict == .notApplicable }.count }
    /// True when every failing MUST check is in the baseline.
    public var succeeded: Bool { cases.allSatisfy { $0.newFailures.isEmpty } }
}
