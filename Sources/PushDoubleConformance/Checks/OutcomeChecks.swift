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

    /// `apns.outcome`: `expect` applies to the first send reply naming the device,
    /// `expectLater` to every later one.
    static let outcome = CheckDefinition(
        id: "apns.outcome", title: "Reported outcome is the expected one",
        reference: "DESIGN §4 outcomes; A1, A2, A3, A4, A13", severity: .must
    ) { ctx in
        let first = ctx.params["expect"]?.objectValue ?? []
        let later = ctx.params["expectLater"]?.objectValue ?? []
        if first.isEmpty && later.isEmpty { return .notApplicable("no expectations given") }
        var problems: [Evidence] = []
        var judged = 0
        var seen: Set<String> = []
        for step in ctx.steps where step.type == "send" && step.failure == nil {
            for device in step.devices {
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
                if !want.contains(got.outcome) {
                    problems.append(Evidence("step \(step.index + 1): \(device) reported \(got.outcome.rawValue)"
                        + (got.reason.map { " (\($0))" } ?? "") + ", expected \(wantText)"))
                }
            }
        }
        if judged == 0 { return .notApplicable("no send reply named the expected devices") }
        return problems.isEmpty ? .held("\(judged) reported outcome(s) as expected")
            : .violated("\(problems.count) outcome(s) differ from the expected ones", problems)
    }

    /// `apns.outcome-truthful`: the sender's words agree with the history.
    static let truthful = CheckDefinition(
        id: "apns.outcome-truthful", title: "Reported outcomes agree with what the fake saw",
        reference: "DESIGN §4 (the runner never trusts the sender's words alone)", severity: .must
    ) { ctx in
        let h = APNsHistory(ctx)
        var problems: [Evidence] = []
        var judged = 0
        var deadSoFar: Set<String> = []
        for step in ctx.steps where step.type == "send" && step.failure == nil {
            let mine = h.pushes.filter { $0.step == step.index }
            for r in step.results {
                guard ctx.scenario.device(r.device)?.provider == "apns" else { continue }
                judged += 1
                let pushes = mine.filter { $0.device == r.device }
                let accepted = pushes.filter(\.accepted)
                switch r.outcome {
                case .sent, .pending:
                    if accepted.isEmpty {
                        problems.append(Evidence("step \(step.index + 1): \(r.device) reported \(r.outcome.rawValue) but the fake accepted no push for it"
                            + (pushes.isEmpty ? " (none arrived)" : " (answers: " + pushes.map { h.describe($0) }.joined(separator: "; ") + ")"),
                            seqs: pushes.map(\.seq)))
                    }
                case .dead:
                    if !pushes.contains(where: \.deadToken) && !deadSoFar.contains(r.device) {
                        problems.append(Evidence("step \(step.index + 1): \(r.device) reported dead but the fake never said the token is gone",
                                                 seqs: pushes.map(\.seq)))
                    }
                case .failed, .rejected:
                    if !accepted.isEmpty {
                        problems.append(Evidence("step \(step.index + 1): \(r.device) reported \(r.outcome.rawValue) but the fake accepted it",
                                                 seqs: accepted.map(\.seq)))
                    }
                case .skipped:
                    if !pushes.isEmpty {
                        problems.append(Evidence("step \(step.index + 1): \(r.device) reported skipped but pushes arrived", seqs: pushes.map(\.seq)))
                    }
                }
                if pushes.contains(where: \.deadToken) { deadSoFar.insert(r.device) }
            }
            for p in mine where p.deadToken { deadSoFar.insert(p.device) }
        }
        if judged == 0 { return .notApplicable("no APNs results reported") }
        return problems.isEmpty ? .held("\(judged) reported outcome(s) match the history")
            : .violated("\(problems.count) reported outcome(s) contradict the history", problems)
    }

    /// `apns.no-loss`: every device of every send is accepted or reported as not sent.
    static let noLoss = CheckDefinition(
        id: "apns.no-loss", title: "No notification is silently lost",
        reference: "A5 (connection loss); DESIGN §4 outcomes", severity: .must
    ) { ctx in
        let h = APNsHistory(ctx)
        var problems: [Evidence] = []
        var judged = 0
        for step in ctx.steps where step.type == "send" && step.failure == nil {
            for device in step.devices where ctx.scenario.device(device)?.provider == "apns" {
                judged += 1
                let pushes = h.pushes.filter { $0.step == step.index && $0.device == device }
                if pushes.contains(where: \.accepted) { continue }
                let reported = step.results.first { $0.device == device }?.outcome
                if let o = reported, [.dead, .rejected, .failed, .skipped].contains(o) { continue }
                problems.append(Evidence("step \(step.index + 1): \(device) was never accepted and the sender reported "
                    + (reported?.rawValue ?? "nothing"), seqs: pushes.map(\.seq)))
            }
        }
        if judged == 0 { return .notApplicable("no APNs sends") }
        return problems.isEmpty ? .held("all \(judged) device-sends accepted or reported as not sent")
            : .violated("\(problems.count) notification(s) lost", problems)
    }
}
