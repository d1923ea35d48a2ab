/// The planted bugs of one run: `--mutant NAME` given any number of times (none: the correct
/// sender). Each bug behaves as it does alone, so two stacked mutants fail the checks of both.
struct MutantSet: Sendable, Equatable {
    /// In the order given, without repeats.
    private(set) var members: [Mutant] = []

    init(_ mutants: [Mutant] = []) { for m in mutants where !members.contains(m) { members.append(m) } }

    func contains(_ mutant: Mutant) -> Bool { members.contains(mutant) }
    var isEmpty: Bool { members.isEmpty }
    /// `a,b` for log lines.
    var names: String { members.map(\.rawValue).joined(separator: ",") }
}

/// A planted bug (`--mutant NAME`): each breaks exactly one rule the conformance suite
/// checks, so a suite that passes the reference sender must fail each mutant.
///
/// A mutant is declared once, as one row: its name, a one-line summary, and the conformance
/// checks it must fail (or warn, for a SHOULD check). The bugs every provider's sender can carry
/// are declared here; each provider declares its own next to its sender (`APNs/APNsMutants.swift`,
/// …) and lists them in its ``SenderProvider/mutants``, so `--list-mutants` is one table
/// assembled from the registered providers (``SenderProviders``). The conformance judge names no
/// mutant: the runner's tests read these rows (docs/adding-a-provider.md §2, "Mutants").
struct Mutant: Hashable, Sendable {
    /// The `--mutant` name.
    let rawValue: String
    /// One line: the bug.
    let summary: String
    /// Check ids the shipped suite must not pass against this mutant: each fails somewhere (a
    /// MUST) or warns (a SHOULD). A mutant whose checks are all SHOULD passes the suite with
    /// those warnings.
    let failingChecks: [String]

    init(_ rawValue: String, _ summary: String, fails failingChecks: [String]) {
        self.rawValue = rawValue
        self.summary = summary
        self.failingChecks = failingChecks
    }

    /// The `--list-mutants` line: name, tab, the summary and the checks it must fail.
    var listing: String { "\(rawValue)\t\(summary) (\(failingChecks.joined(separator: ", ")))" }

    /// The mutant of that name, among all registered providers' and the generic ones.
    init?(rawValue: String) {
        guard let m = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = m
    }

    static func == (a: Mutant, b: Mutant) -> Bool { a.rawValue == b.rawValue }
    func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// Every mutant: the generic ones, then each registered provider's.
    static var allCases: [Mutant] { generic + SenderProviders.all.flatMap { $0.mutants } }

    /// Bugs of the shared retry and dead-token logic, planted in every sender that has it.
    static let generic: [Mutant] = [.retryDeadTokens, .ignoreRetryAfter, .noBackoff, .neverRetryTransient, .reportSentAlways,
                                    .neverReviveDeadTokens, .noJitter, .giveUp429WithoutRetryAfter]

    static let retryDeadTokens = Mutant("retry-dead-tokens",
        "retries 410 Unregistered/ExpiredToken and 400 BadDeviceToken, and keeps sending to dead tokens",
        fails: ["no-retry-permanent", "dead-token-not-reused"])
    static let ignoreRetryAfter = Mutant("ignore-retry-after",
        "retries at once when the response carries Retry-After",
        fails: ["retry-after"])
    static let noBackoff = Mutant("no-backoff",
        "retries transient errors (429, 500, 503, lost connections) with no delay",
        fails: ["no-tight-retry-loop", "backoff-grows"])
    static let neverRetryTransient = Mutant("never-retry-transient",
        "reports failed on the first 5xx or 429 without retrying",
        fails: ["transient-retried"])
    static let reportSentAlways = Mutant("report-sent-always",
        "reports outcome sent for every device whatever happened",
        fails: ["outcome", "outcome-truthful"])
    static let neverReviveDeadTokens = Mutant("never-revive-dead-tokens",
        "keeps skipping a dead token after the app registered it again (registeredAt later than the death)",
        fails: ["reregistered-token-used"])
    static let giveUp429WithoutRetryAfter = Mutant("give-up-429-without-retry-after",
        "retries 429 only when it carries Retry-After and reports failed at once otherwise",
        fails: ["transient-retried"])
    static let noJitter = Mutant("no-jitter",
        "backs off 0 s, 0.5 s, 1 s, … with no jitter (urllib3's schedule): concurrent sends retry in lockstep",
        fails: ["backoff-jitter"])
}
