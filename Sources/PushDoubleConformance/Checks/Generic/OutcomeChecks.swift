import Foundation
import PushDoubleCore

/// Checks comparing what the sender reported with what the fakes saw.
enum OutcomeChecks {
    /// Parses an expectation: "dead" or ["dead","skipped"].
    static func expected(_ v: JSONValue) -> Set<DeliveryOutcome>? {
        if let s = v.stringValue { return DeliveryOutcome(rawValue: s).map { [$0] } }
        if let a = v.arrayValue {
            let set = Set(a.compactMap { $0.stringValue.flatMap(DeliveryOutcome.init(rawValue:)) })
            return set.count == a.count && !set.isEmpty ? set : nil
        }
        return nil
    }

    /// The outcomes a sender that declared coarse outcomes may report for an expected set: it
    /// says only whether the push went out, so any "not delivered" outcome (`dead`, `rejected`,
    /// `failed`, `skipped`, `aborted`) may come as `failed`, and `sent` and `pending` stand for each other.
    static func coarse(_ want: Set<DeliveryOutcome>) -> Set<DeliveryOutcome> {
        var out = want
        if !want.isDisjoint(with: [.dead, .rejected, .failed, .skipped, .aborted]) { out.insert(.failed) }
        if !want.isDisjoint(with: [.sent, .pending]) { out.formUnion([.sent, .pending]) }
        return out
    }

    /// Judges one reported outcome against an expected set: nil when it is one of them (`coarse`
    /// counts the matches that only the coarse reading allowed).
    static func mismatch(_ got: DeliveryOutcome, _ want: Set<DeliveryOutcome>, device: String, ctx: CheckContext, coarse count: inout Int) -> Bool {
        if want.contains(got) { return false }
        guard let provider = ctx.scenario.device(device)?.provider, ctx.coarseOutcomes.contains(provider),
              coarse(want).contains(got) else { return true }
        count += 1
        return false
    }

    /// `outcome`: `expect` applies to the first send reply naming the device,
    /// `expectLater` to every later one, `expectFinal` to the first message's fate: the last
    /// outcome the sender reported for the device in a send or settle reply before the next
    /// send named it again (where a provider lets the sender learn a message's
    /// fate either at once or later, e.g. Expo's MessageTooBig: rejected locally, or pending
    /// at send and rejected once the receipt says so).
    static let outcome = CheckDefinition(
        id: "outcome", title: "Reported outcome is the expected one",
        reference: "driver protocol outcomes; A1, A2, A3, A4, A13", severity: .must
    ) { ctx in
        let first = ctx.params["expect"]?.objectValue ?? []
        let later = ctx.params["expectLater"]?.objectValue ?? []
        let final = ctx.params["expectFinal"]?.objectValue ?? []
        if first.isEmpty && later.isEmpty && final.isEmpty { return .notApplicable("no expectations given") }
        var problems: [Evidence] = []
        var judged = 0, coarselyJudged = 0
        var seen: Set<String> = []
        for step in ctx.steps where step.type == "send" && step.failure == nil {
            for device in step.devices + (step.targets ?? []) {
                let isFirst = !seen.contains(device)
                seen.insert(device)
                guard let spec = (isFirst ? first : later).first(where: { $0.0 == device })?.1 else { continue }
                guard let want = expected(spec) else {
                    problems.append(Evidence("bad expectation for \(device): \(spec.compactJSON)")); continue
                }
                judged += 1
                let wantText = want.map(\.rawValue).sorted().joined(separator: "|")
                guard let got = step.results.first(where: { $0.device == device }) else {
                    problems.append(Evidence("step \(step.index + 1): no result for \(device) (expected \(wantText))")); continue
                }
                if mismatch(got.outcome, want, device: device, ctx: ctx, coarse: &coarselyJudged) {
                    problems.append(Evidence("step \(step.index + 1): \(device) reported \(got.outcome.rawValue)"
                        + (got.reason.map { " (\($0))" } ?? "") + ", expected \(wantText)"))
                }
            }
        }
        // The fate of the first message to each device: its last reported outcome before the
        // next send step names the device again (later settles included).
        var last: [String: (step: StepRecord, result: DeviceResult)] = [:]
        var sends: [String: Int] = [:]
        for step in ctx.steps where (step.type == "send" || step.type == "settle") && step.failure == nil {
            if step.type == "send" { for d in step.devices + (step.targets ?? []) { sends[d, default: 0] += 1 } }
            for r in step.results where sends[r.device] == 1 { last[r.device] = (step, r) }
        }
        for (device, spec) in final {
            guard let want = expected(spec) else { problems.append(Evidence("bad expectation for \(device): \(spec.compactJSON)")); continue }
            judged += 1
            let wantText = want.map(\.rawValue).sorted().joined(separator: "|")
            guard let (step, got) = last[device] else {
                problems.append(Evidence("no reply ever named \(device) (expected it to end \(wantText))")); continue
            }
            if mismatch(got.outcome, want, device: device, ctx: ctx, coarse: &coarselyJudged) {
                problems.append(Evidence("\(device) ended \(got.outcome.rawValue)" + (got.reason.map { " (\($0))" } ?? "")
                    + " (last reported in step \(step.index + 1), a \(step.type)), expected it to end \(wantText)"))
            }
        }
        if judged == 0 { return .notApplicable("no send reply named the expected devices") }
        let coarseNote = coarselyJudged == 0 ? "" : " (\(coarselyJudged) judged coarsely: the sender declared coarse outcomes for "
            + ctx.coarseOutcomes.sorted().joined(separator: ", ") + ", so dead, rejected and failed count as one)"
        return .judged(problems, held: "\(judged) reported outcome(s) as expected" + coarseNote,
            violated: "\(problems.count) outcome(s) differ from the expected ones" + coarseNote)
    }

    /// `outcome-truthful`: the sender's words agree with the history.
    static let truthful = CheckDefinition(
        id: "outcome-truthful", title: "Reported outcomes agree with what the fake saw",
        reference: "the runner never trusts the sender's words alone: every outcome is checked against the history", severity: .must
    ) { ctx in
        let h = AttemptLog(ctx)
        var problems: [Evidence] = []
        var judged = 0
        // Device → when the fake last said its token is gone (a registration after that revives it).
        var deadSoFar: [String: Date] = [:]
        for step in ctx.steps where step.type == "send" && step.failure == nil {
            let mine = h.attempts.filter { $0.step == step.index }
            for (device, at) in step.registeredAt ?? [:] where (deadSoFar[device].map { at > $0 } ?? false) { deadSoFar[device] = nil }
            for r in step.results {
                guard ctx.judges(device: r.device) else { continue }
                judged += 1
                let attempts = mine.filter { $0.device == r.device }
                let accepted = attempts.filter(\.accepted)
                switch r.outcome {
                case .sent, .pending:
                    if accepted.isEmpty {
                        problems.append(Evidence("step \(step.index + 1): \(r.device) reported \(r.outcome.rawValue) but the fake accepted no attempt for it"
                            + (attempts.isEmpty ? " (none arrived)" : " (answers: " + attempts.map { h.describe($0) }.joined(separator: "; ") + ")"),
                            seqs: attempts.map(\.seq)))
                    }
                case .dead:
                    if !attempts.contains(where: \.deadToken) && deadSoFar[r.device] == nil {
                        problems.append(Evidence("step \(step.index + 1): \(r.device) reported dead but the fake never said the token is gone",
                                                 seqs: attempts.map(\.seq)))
                    }
                case .failed, .rejected:
                    if !accepted.isEmpty {
                        problems.append(Evidence("step \(step.index + 1): \(r.device) reported \(r.outcome.rawValue) but the fake accepted it",
                                                 seqs: accepted.map(\.seq)))
                    }
                case .skipped, .aborted:
                    if !attempts.isEmpty {
                        problems.append(Evidence("step \(step.index + 1): \(r.device) reported \(r.outcome.rawValue) (never attempted) but attempts arrived",
                                                 seqs: attempts.map(\.seq)))
                    }
                }
                if let d = attempts.last(where: \.deadToken) { deadSoFar[r.device] = d.end }
            }
            for p in mine where p.deadToken { deadSoFar[p.device] = p.end }
        }
        return .judged(judged, problems, none: "no results reported for devices of a registered provider",
                       held: "\(judged) reported outcome(s) match the history",
                       violated: "\(problems.count) reported outcome(s) contradict the history")
    }

    /// `no-loss`: every device of every send is accepted or reported as not sent.
    static let noLoss = CheckDefinition(
        id: "no-loss", title: "No notification is silently lost",
        reference: "A5 (connection loss); driver protocol outcomes", severity: .must
    ) { ctx in
        let h = AttemptLog(ctx)
        var problems: [Evidence] = []
        var judged = 0
        for (step, device) in ctx.judgedSends {
            judged += 1
            let attempts = h.attempts.filter { $0.step == step.index && $0.device == device }
            if attempts.contains(where: \.accepted) { continue }
            let reported = step.results.first { $0.device == device }?.outcome
            if let o = reported, [.dead, .rejected, .failed, .skipped].contains(o) { continue }
            problems.append(Evidence("step \(step.index + 1): \(device) was never accepted and the sender reported "
                + (reported?.rawValue ?? "nothing"), seqs: attempts.map(\.seq)))
        }
        return .judged(judged, problems, none: "no sends to devices of a registered provider",
                       held: "all \(judged) device-sends accepted or reported as not sent",
                       violated: "\(problems.count) notification(s) lost")
    }
}
