import Foundation
import PushDoubleCore

/// How strongly the spec words a rule: MUST → fail, SHOULD → warn, MAY → info.
public enum Severity: String, Sendable, Codable {
    case must = "MUST", should = "SHOULD", may = "MAY"

    /// The verdict a violated rule of this severity gets.
    public var violationVerdict: Verdict {
        switch self { case .must: return .fail; case .should: return .warn; case .may: return .info }
    }
}

/// The verdict of one check on one case.
public enum Verdict: String, Sendable, Codable, Comparable {
    case pass, fail, warn, info
    case notApplicable = "n/a"

    private var rank: Int {
        switch self { case .notApplicable: return 0; case .pass: return 1; case .info: return 2; case .warn: return 3; case .fail: return 4 }
    }
    public static func < (a: Verdict, b: Verdict) -> Bool { a.rank < b.rank }
}

/// A piece of evidence: which exchanges (history seq numbers) and what about them.
public struct Evidence: Sendable, Codable, Equatable {
    public var seqs: [UInt64]
    public var note: String
    public init(_ note: String, seqs: [UInt64] = []) { self.note = note; self.seqs = seqs }
    public var rendered: String { seqs.isEmpty ? note : "#" + seqs.map(String.init).joined(separator: ",#") + ": " + note }
}

/// What a check function found, before severity turns it into a verdict.
public enum Finding: Sendable, Equatable {
    /// The rule held; the message says what was looked at.
    case held(String)
    /// The rule was broken, with evidence.
    case violated(String, [Evidence])
    /// Nothing in this case that the rule applies to.
    case notApplicable(String)
}

/// The close every tallying check shares, written once: the check counts what it judged and
/// collects one ``Evidence`` per violation, then returns `.judged(…)`. Each message is built
/// only for the finding returned.
extension Finding {
    /// Not applicable when nothing was judged, held when nothing judged broke the rule,
    /// violated with the evidence otherwise.
    static func judged(_ count: Int, _ problems: [Evidence], none: @autoclosure () -> String,
                       held: @autoclosure () -> String, violated: @autoclosure () -> String) -> Finding {
        count == 0 ? .notApplicable(none()) : judged(problems, held: held(), violated: violated())
    }

    /// For a check that returned its not-applicable findings earlier: held without evidence,
    /// violated with it.
    static func judged(_ problems: [Evidence], held: @autoclosure () -> String, violated: @autoclosure () -> String) -> Finding {
        problems.isEmpty ? .held(held()) : .violated(violated(), problems)
    }
}

/// One timed step of a run as the runner drove it (the "replies" a check may read).
public struct StepRecord: Sendable, Codable, Equatable {
    public var index: Int
    /// "send", "settle", "wait", "admin", "subscribe" or "broadcast" (its `targets` hold the
    /// channel name, its `notification` the params the sender was given).
    public var type: String
    /// For `send` with `repeat`: which repetition (0-based).
    public var repetition: Int
    public var devices: [String]
    /// For `send`: the target ids (topics, conditions) it named; nil when none.
    public var targets: [String]?
    public var notification: JSONValue?
    public var startedAt: Date
    public var endedAt: Date
    public var results: [DeviceResult]
    /// Driver failure text if the call failed.
    public var failure: String?
    /// For `send`: the `registeredAt` the sender was told per device id (the moment the app
    /// registered the token, ``Registrations``); nil when no device carried one.
    public var registeredAt: [String: Date]?
    public init(index: Int, type: String, repetition: Int = 0, devices: [String] = [], targets: [String]? = nil, notification: JSONValue? = nil,
                startedAt: Date, endedAt: Date, results: [DeviceResult] = [], failure: String? = nil,
                registeredAt: [String: Date]? = nil) {
        self.index = index; self.type = type; self.repetition = repetition; self.devices = devices; self.targets = targets
        self.notification = notification; self.startedAt = startedAt; self.endedAt = endedAt
        self.results = results; self.failure = failure; self.registeredAt = registeredAt
    }
}

/// Everything a check may look at: a pure input.
public struct CheckContext: Sendable {
    public var scenario: ConformanceScenario
    /// This check's entry in the scenario (`{"id":…, params…}`).
    public var params: JSONValue
    /// What the fakes recorded, in seq order.
    public var history: [Exchange]
    /// What the runner did and what the sender replied, in order. `send` steps with
    /// `repeat` appear once per repetition.
    public var steps: [StepRecord]
    /// What the sender was told (credentials, topic), if the case got that far.
    public var configuration: SenderConfiguration?
    /// The provider a generic check is limited to: set when the scenario named it by a
    /// provider's old id (``ConformanceProvider/aliases``); nil = every provider.
    public var scope: ProviderID?
    /// The notification fields the sender declared it can express, per provider (every field
    /// when it declared none): a check of a field it cannot express is n/a.
    public var fields: SenderFields
    /// The providers for which the sender declared coarse outcomes (``SenderIdentity/coarseOutcomes``):
    /// there `dead`, `rejected` and `failed` are one answer, and `outcome` judges them as one.
    public var coarseOutcomes: Set<String>

    public init(scenario: ConformanceScenario, params: JSONValue = .object([]), history: [Exchange], steps: [StepRecord],
                configuration: SenderConfiguration?, scope: ProviderID? = nil, fields: SenderFields = .all,
                coarseOutcomes: Set<String> = []) {
        self.scenario = scenario; self.params = params; self.history = history; self.steps = steps
        self.configuration = configuration; self.scope = scope; self.fields = fields; self.coarseOutcomes = coarseOutcomes
    }

    /// The notification the runner asked the sender to send in step `index` (nil: not a send step).
    public func notification(step index: Int) -> JSONValue? {
        steps.indices.contains(index) ? steps[index].notification : nil
    }

    /// Every (answered send step, device of it) a generic check judges, in step order.
    public var judgedSends: [(step: StepRecord, device: String)] {
        steps.filter { $0.type == "send" && $0.failure == nil }.flatMap { s in s.devices.filter(judges(device:)).map { (s, $0) } }
    }

    /// Whether a generic check judges this scenario device: its provider is registered
    /// (and is the scope, when there is one).
    public func judges(device id: String) -> Bool {
        guard let p = scenario.device(id)?.provider else { return false }
        let provider = ProviderID(rawValue: p)
        return ConformanceProviders.provider(provider) != nil && (scope == nil || scope == provider)
    }
}

/// A named, pure check: id, title, spec reference, severity and the function.
///
/// Ids never change meaning once shipped; `--list` prints them with their references.
public struct CheckDefinition: Sendable {
    public var id: String
    public var title: String
    /// Where the rule comes from (README check ids such as "A1", and the spec section).
    public var reference: String
    public var severity: Severity
    public var evaluate: @Sendable (CheckContext) -> Finding

    public init(id: String, title: String, reference: String, severity: Severity, evaluate: @escaping @Sendable (CheckContext) -> Finding) {
        self.id = id; self.title = title; self.reference = reference; self.severity = severity; self.evaluate = evaluate
    }

    /// Runs the check and maps the finding to a verdict; the result carries `id`, or the
    /// id the scenario named the check by (an alias).
    public func run(_ context: CheckContext, as named: String? = nil) -> CheckResult {
        let id = named ?? self.id
        let finding = evaluate(context)
        switch finding {
        case .held(let m):
            return CheckResult(id: id, title: title, reference: reference, severity: severity, verdict: .pass, message: m, evidence: [])
        case .violated(let m, let ev):
            return CheckResult(id: id, title: title, reference: reference, severity: severity,
                               verdict: severity.violationVerdict, message: m, evidence: ev)
        case .notApplicable(let m):
            return CheckResult(id: id, title: title, reference: reference, severity: severity, verdict: .notApplicable, message: m, evidence: [])
        }
    }
}

/// The verdict of one check on one case, with evidence.
public struct CheckResult: Sendable, Codable, Equatable {
    public var id: String
    public var title: String
    public var reference: String
    public var severity: Severity
    public var verdict: Verdict
    public var message: String
    public var evidence: [Evidence]
    /// Set by baseline handling: this failure or warning is known (listed in the baseline file).
    public var known: Bool = false
    /// Seconds spent on this check: the case's driving for `driver.protocol` (the time the
    /// sender spoke the protocol), the judging itself for every other check; nil in reports
    /// written before it was kept.
    public var durationSeconds: Double?
    public init(id: String, title: String, reference: String, severity: Severity, verdict: Verdict, message: String,
                evidence: [Evidence], known: Bool = false) {
        self.id = id; self.title = title; self.reference = reference; self.severity = severity; self.verdict = verdict
        self.message = message; self.evidence = evidence; self.known = known
    }
}
