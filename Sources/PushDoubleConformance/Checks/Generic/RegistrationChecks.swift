import Foundation
import PushDoubleCore

/// Re-registered tokens (``Registrations``): a token the sender learnt was dead and that
/// the app then registered again is used again; one not registered again stays skipped
/// (that half is `dead-token-not-reused`).
enum RegistrationChecks {
    /// The `registeredAt` the sender was told for `device` in the run's step `step`.
    static func registeredAt(_ ctx: CheckContext, step: Int, device: String) -> Date? {
        ctx.steps.first { $0.index == step }?.registeredAt?[device]
    }

    static let reregisteredTokenUsed = CheckDefinition(
        id: "reregistered-token-used", title: "A dead token registered again later is used again",
        reference: "driver protocol (send devices: registeredAt); G4 (a dead token stays dead until it is registered again)",
        severity: .must
    ) { ctx in
        let h = AttemptLog(ctx)
        var problems: [Evidence] = []
        var judged = 0
        for (step, device) in ctx.judgedSends {
            guard let registered = step.registeredAt?[device] else { continue }
            // The latest dead answer for this device before the step.
            guard let death = h.attempts.last(where: { $0.device == device && $0.deadToken && $0.step < step.index }),
                  registered > death.end else { continue }
            judged += 1
            if h.attempts.contains(where: { $0.step == step.index && $0.device == device }) { continue }
            let reported = step.results.first { $0.device == device }
            problems.append(Evidence("step \(step.index + 1): \(device) was registered again at \(h.time(registered)) after "
                + "\(h.describe(death)), yet nothing was sent to it; the sender reported "
                + (reported.map { $0.outcome.rawValue + ($0.reason.map { " (\($0))" } ?? "") } ?? "nothing"),
                seqs: [death.seq]))
        }
        return .judged(judged, problems, none: "no dead token was registered again",
                       held: "\(judged) re-registered token(s) used again",
                       violated: "a re-registered token was skipped: its notifications are lost")
    }
}
