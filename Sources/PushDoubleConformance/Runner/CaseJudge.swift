import Foundation
import PushDoubleCore

/// What driving one case produced: everything ``CaseJudge`` judges.
struct CaseRecord {
    var steps: [StepRecord] = []
    /// Why the driver protocol broke (fakes or sender could not start, a failed reply or
    /// shutdown); nil while it held.
    var failureText: String?
    var identity: SenderIdentity?
    /// The sender's stderr for this case.
    var log = ""
    var history: [Exchange] = []
    var configuration: SenderConfiguration?
    /// Set when the case does not apply to the sender: every check is then not applicable.
    var notApplicableReason: String?
}

/// Judges one driven case: the driver-protocol check, the scenario's checks (or every one
/// not applicable), the history excerpt the report keeps, and the verdict.
struct CaseJudge {
    /// The case as driven (live devices' devices in place of the scenario's).
    var scenario: ConformanceScenario
    /// When the case started (its duration runs to the judging).
    let started: Date
    /// Exchanges kept in the report (``RunOptions/historyExcerpt``).
    let historyExcerpt: Int
    /// The seed the fakes run with, kept in the result.
    var seed: UInt64 = 1

    func result(_ record: CaseRecord) -> CaseResult {
        let judging = Date()
        var checks = checks(record)
        if let i = checks.firstIndex(where: { $0.id == CheckCatalogue.driverCheckID }) {
            checks[i].durationSeconds = judging.timeIntervalSince(started)
        }
        var r = CaseResult(id: scenario.id, title: scenario.title, references: scenario.references, file: scenario.file,
                           verdict: .notApplicable, notApplicableReason: record.notApplicableReason, sender: record.identity,
                           driverFailure: record.failureText, senderLog: record.log,
                           durationSeconds: Date().timeIntervalSince(started), checks: checks, steps: record.steps,
                           history: excerpt(record.history, citedBy: checks))
        r.historyCount = record.history.count
        r.seed = seed
        r.tags = CheckCatalogue.tags(of: scenario)
        if record.notApplicableReason == nil && !record.history.isEmpty {
            r.costs = CaseCosts.measure(context(record))
        }
        r.recomputeVerdict()
        return r
    }

    /// The driver-protocol check first (failed with the driver failure, if any; left out
    /// when the case does not apply), then the scenario's checks in order.
    func checks(_ record: CaseRecord) -> [CheckResult] {
        let ctxBase = context(record)
        var checks: [CheckResult] = []
        let d = CheckCatalogue.driverProtocol
        if let f = record.failureText {
            checks.append(CheckResult(id: d.id, title: d.title, reference: d.reference, severity: d.severity, verdict: .fail,
                                      message: f, evidence: [Evidence("sender stderr is in the report (senderLog)")]))
        } else if record.notApplicableReason == nil {
            checks.append(d.run(ctxBase))
        }
        // A check shows under the id the scenario named it by: an old provider id (an alias)
        // runs the generic check scoped to that provider.
        for inv in scenario.checks {
            guard let (def, scope) = CheckCatalogue.resolve(inv.id) else { continue }
            if let na = record.notApplicableReason {
                checks.append(CheckResult(id: inv.id, title: def.title, reference: def.reference, severity: def.severity,
                                          verdict: .notApplicable, message: na, evidence: []))
                continue
            }
            var ctx = ctxBase
            ctx.params = inv.params
            ctx.scope = scope
            let t = Date()
            var result = def.run(ctx, as: inv.id)
            result.durationSeconds = Date().timeIntervalSince(t)
            result.reference = CheckCatalogue.reference(of: def, providers: scope.map { [$0] } ?? scenario.providers.map(ProviderID.init(rawValue:)))
            checks.append(result)
        }
        return checks
    }

    /// What every check of the case reads.
    func context(_ record: CaseRecord) -> CheckContext {
        CheckContext(scenario: scenario, history: record.history, steps: record.steps, configuration: record.configuration,
                     fields: record.identity?.expressible ?? .all, coarseOutcomes: Set(record.identity?.coarseOutcomes ?? []))
    }

    /// At most `historyExcerpt` exchanges (``excerpt(_:citedBy:limit:)``).
    func excerpt(_ history: [Exchange], citedBy checks: [CheckResult]) -> [Exchange] {
        Self.excerpt(history, citedBy: checks, limit: historyExcerpt)
    }

    /// At most `limit` exchanges, in seq order: every one a check cites as evidence, then
    /// the earliest others (the JSON report's excerpt, and the HTML report's timelines).
    static func excerpt(_ history: [Exchange], citedBy checks: [CheckResult], limit: Int) -> [Exchange] {
        guard history.count > limit else { return history }
        let cited = Set(checks.flatMap { $0.evidence.flatMap(\.seqs) })
        var excerpt = history.filter { cited.contains($0.seq) }
        excerpt += history.filter { !cited.contains($0.seq) }.prefix(max(0, limit - excerpt.count))
        excerpt.sort { $0.seq < $1.seq }
        return excerpt
    }
}
