import Foundation
import PushDoubleCore

/// Checks on retries, backoff, dead tokens and duplicates (rules G1–G5, A1–A5).
enum RetryChecks {
    static let noRetryPermanent = CheckDefinition(
        id: "no-retry-permanent", title: "No retry after a permanent error",
        reference: "A1, A2, G5 (a permanent error is never retried)", severity: .must
    ) { ctx in
        let h = AttemptLog(ctx)
        var problems: [Evidence] = []
        var judged = 0
        for g in h.groups {
            for (i, p) in g.enumerated() where p.neverRetry || p.requestError {
                judged += 1
                let later = g[(i + 1)...]
                if p.neverRetry {
                    if let r = later.first {
                        problems.append(Evidence("\(h.describe(p)) must never be retried, yet it was: \(h.describe(r))", seqs: [p.seq, r.seq]))
                    }
                } else if let r = later.first(where: { $0.comparableRequest == p.comparableRequest }) {
                    problems.append(Evidence("\(h.describe(p)) is a request error, yet the identical request was sent again: \(h.describe(r))",
                                             seqs: [p.seq, r.seq]))
                }
                if !problems.isEmpty && problems.last?.seqs.first == p.seq { break }
            }
        }
        return .judged(judged, problems, none: "no permanent errors were answered",
                       held: "\(judged) permanent error(s), none retried",
                       violated: "retried after a permanent error")
    }

    static let deadTokenNotReused = CheckDefinition(
        id: "dead-token-not-reused", title: "A dead token is never used again",
        reference: "A1, G4 (a token the provider called dead is not used again)", severity: .must
    ) { ctx in
        let h = AttemptLog(ctx)
        // A token stays dead until the sender is told it was registered again after it
        // died (`registeredAt` later than the dead answer): that is ``RegistrationChecks``' case.
        var diedAt: [String: Attempt] = [:]
        var deaths: [Attempt] = []
        var problems: [Evidence] = []
        for p in h.attempts {
            let key = p.token.lowercased()
            if let d = diedAt[key], p.step > d.step {
                if let r = RegistrationChecks.registeredAt(ctx, step: p.step, device: p.device), r > d.end {
                    diedAt[key] = nil
                } else {
                    problems.append(Evidence("\(p.device) was reported gone by \(h.describe(d)), yet pushed again in step \(p.step + 1): \(h.describe(p))",
                                             seqs: [d.seq, p.seq]))
                }
            }
            if p.deadToken && diedAt[key] == nil { diedAt[key] = p; deaths.append(p) }
        }
        if deaths.isEmpty { return .notApplicable("no token was reported gone") }
        let laterSteps = ctx.steps.filter { s in s.type == "send" && deaths.contains { $0.step < s.index } }
        if laterSteps.isEmpty && problems.isEmpty { return .notApplicable("no send step after a token died") }
        return .judged(problems, held: "\(deaths.count) dead token(s) not used in later steps",
            violated: "a dead token was used again")
    }

    /// Tolerance for clock granularity when comparing waits (seconds).
    static let waitTolerance = 0.05

    static let retryAfter = CheckDefinition(
        id: "retry-after", title: "Waits at least Retry-After before retrying",
        reference: "G1, G2, A3; RFC 9110 §10.2.3", severity: .must
    ) { ctx in
        let h = AttemptLog(ctx)
        var problems: [Evidence] = []
        var judged = 0
        for g in h.groups {
            for (i, p) in g.enumerated() {
                guard let ra = p.retryAfter, !p.accepted else { continue }
                guard let wait = p.retryAfterSeconds else {
                    continue // an unparseable value from the fake is not the sender's fault
                }
                guard i + 1 < g.count else { continue }
                judged += 1
                let next = g[i + 1]
                let waited = next.start.timeIntervalSince(p.end)
                if waited + waitTolerance < wait {
                    problems.append(Evidence(String(format: "Retry-After: %@ (%.1f s) but the retry came after %.3f s: %@", ra, wait, waited, h.describe(next)),
                                             seqs: [p.seq, next.seq]))
                }
            }
        }
        return .judged(judged, problems, none: "no retry followed a Retry-After answer",
                       held: "\(judged) retry(ies) waited at least Retry-After",
                       violated: "retried before Retry-After elapsed")
    }

    static let transientRetried = CheckDefinition(
        id: "transient-retried", title: "Transient failures are retried",
        reference: "A3, A4, A5, G3 (429 and 5xx are retried after a delay)", severity: .must
    ) { ctx in
        let h = AttemptLog(ctx)
        let minAttempts = Int(ctx.params["minAttempts"]?.intValue ?? 2)
        var problems: [Evidence] = []
        var judged = 0
        for g in h.groups where g.contains(where: \.transientFailure) {
            judged += 1
            if let last = g.last, last.transientFailure, g.count < minAttempts {
                problems.append(Evidence("\(last.device) gave up after \(g.count) attempt(s); last: \(h.describe(last))", seqs: g.map(\.seq)))
            }
        }
        return .judged(judged, problems, none: "no transient failures were answered",
                       held: "\(judged) message(s) with transient failures were retried",
                       violated: "transient failures not retried")
    }

    static let boundedAttempts = CheckDefinition(
        id: "bounded-attempts", title: "Attempts per message are capped",
        reference: "G3 (policy: cap attempts, give up cleanly)", severity: .must
    ) { ctx in
        let h = AttemptLog(ctx)
        let cap = Int(ctx.params["maxAttempts"]?.intValue ?? 10)
        let groups = h.groups
        if groups.isEmpty { return .notApplicable("no attempts") }
        let over = groups.filter { $0.count > cap }
        if over.isEmpty {
            return .held("at most \(groups.map(\.count).max() ?? 0) attempt(s) per message (cap \(cap))")
        }
        return .violated("more than \(cap) attempts at one message",
                         over.map { Evidence("\($0[0].device) in step \($0[0].step + 1): \($0.count) attempts", seqs: $0.map(\.seq)) })
    }

    /// The server said "try later" without saying when (``Attempt/backoff``: 429 or 5xx
    /// without Retry-After, except what the provider resends at once, e.g. APNs 503 Shutdown).
    static func askedToBackOff(_ p: Attempt, serverErrorsOnly: Bool) -> Bool {
        switch p.backoff {
        case .none: return false
        case .serverError: return true
        case .throttled: return !serverErrorsOnly
        }
    }

    /// Gaps between a failed attempt's answer and the next attempt, for 5xx without Retry-After.
    static func serverErrorGaps(_ g: [Attempt]) -> [Double] { backoffGaps(g, serverErrorsOnly: true) }

    /// Gaps (answer → next attempt) after each attempt the server asked to back off from.
    static func backoffGaps(_ g: [Attempt], serverErrorsOnly: Bool) -> [Double] {
        var gaps: [Double] = []
        for i in 0..<(max(g.count - 1, 0)) where askedToBackOff(g[i], serverErrorsOnly: serverErrorsOnly) {
            gaps.append(max(0, g[i + 1].start.timeIntervalSince(g[i].end)))
        }
        return gaps
    }

    static func text(_ gaps: [Double]) -> String { gaps.map { String(format: "%.3f", $0) }.joined(separator: ", ") }

    /// Default least mean delay of a retry loop (seconds): a sender that retries straight
    /// away takes ~1–5 ms per round on loopback; every backoff scheme averages far more.
    static let tightLoopMeanDelay = 0.02

    static let noTightRetryLoop = CheckDefinition(
        id: "no-tight-retry-loop", title: "No tight retry loop: retries the server asked to delay are spread out",
        reference: "A3, A4, G3 (429 and 5xx are retried after a delay)", severity: .must
    ) { ctx in
        let h = AttemptLog(ctx)
        let minMean = ctx.params["minMeanDelay"]?.doubleValue ?? tightLoopMeanDelay
        // The sequence is judged, never one delay (one delay says nothing, scheduling noise can stretch any): every message retried at least
        // twice after 429/5xx without Retry-After, their delays pooled.
        var loops: [([Attempt], [Double])] = []
        for g in h.groups {
            let gaps = backoffGaps(g, serverErrorsOnly: false)
            if gaps.count >= 2 { loops.append((g, gaps)) }
        }
        let all = loops.flatMap(\.1)
        guard all.count >= 3 else { return .notApplicable("fewer than three retries in messages retried twice after 429/5xx without Retry-After") }
        let mean = all.reduce(0, +) / Double(all.count)
        let summary = String(format: "%d retries in %d message(s), mean delay %.3f s (at least %.3f s required)", all.count, loops.count, mean, minMean)
        if mean >= minMean { return .held(summary) }
        return .violated("tight retry loop: " + summary,
                         loops.map { g, gaps in Evidence("\(g[0].device): delays \(text(gaps)) s", seqs: g.map(\.seq)) })
    }

    static let backoffGrows = CheckDefinition(
        id: "backoff-grows", title: "Backoff grows between 5xx retries",
        reference: "A4, G3 (backoff grows; jitter and caps are policy)", severity: .should
    ) { ctx in
        let h = AttemptLog(ctx)
        // The envelope over messages, per retry number: a jittered delay may be shorter than
        // the one before it (full or decorrelated jitter), but the largest, the mean or the
        // median delay at later retries exceeds that of the first retry when the backoff grows.
        var rows: [([Attempt], [Double])] = []
        for g in h.groups {
            let gaps = serverErrorGaps(g)
            if gaps.count >= 2 { rows.append((g, gaps)) }
        }
        guard rows.count >= 3 else {
            return .notApplicable("fewer than three messages retried twice after 5xx: a jittered backoff's growth is not observable")
        }
        let depth = rows.map(\.1.count).max() ?? 0
        // The median as well: one attempt held up by a loaded machine inflates that retry's
        // largest and mean delay, not its median, so a correct sender is not warned for it.
        var maxima: [Double] = [], means: [Double] = [], medians: [Double] = []
        for k in 0..<depth {
            let at = rows.compactMap { $0.1.count > k ? $0.1[k] : nil }.sorted()
            maxima.append(at.last ?? 0)
            means.append(at.reduce(0, +) / Double(max(at.count, 1)))
            medians.append(at.isEmpty ? 0 : (at[(at.count - 1) / 2] + at[at.count / 2]) / 2)
        }
        func grew(_ v: [Double]) -> Bool {
            let later = v.dropFirst().max() ?? 0
            return later >= max(0.05, v[0] * 1.25)
        }
        let envelope = "largest delay per retry \(text(maxima)) s, mean \(text(means)) s, median \(text(medians)) s over \(rows.count) messages"
        if grew(maxima) || grew(means) || grew(medians) { return .held(envelope) }
        // Per chain as well: with full jitter a few messages' envelope may not show the growth,
        // but a chain whose later delay clearly exceeds its first one shows a schedule that grows.
        // A constant schedule never does (its delays differ by scheduling noise only).
        if let g = rows.first(where: { _, gaps in (gaps.dropFirst().max() ?? 0) >= max(0.05, gaps[0] * 1.25) + jitterNoiseFloor }) {
            return .held(envelope + "; \(g.0[0].device)'s delays grew: \(text(g.1)) s")
        }
        return .violated("backoff does not grow: " + envelope,
                         rows.map { g, gaps in Evidence("\(g[0].device): delays \(text(gaps)) s", seqs: g.map(\.seq)) })
    }

    /// Shortest typical backoff delay judged for jitter (seconds): a retry sent at once (urllib3's
    /// first retry) has no delay to spread, so it says nothing about jitter.
    static let jitterJudgedDelay = 0.05
    /// How far delays that were meant to be equal drift apart when several senders' threads
    /// or tasks retry at once on a loaded machine (seconds): scheduling noise, never jitter.
    static let jitterNoiseFloor = 0.015
    /// Least spread, as a share of the typical delay, that counts as jitter.
    static let jitterMinShare = 0.05

    static let backoffJitter = CheckDefinition(
        id: "backoff-jitter", title: "Backoff has jitter",
        reference: "AWS Architecture Blog, Exponential Backoff And Jitter (2015); Google Cloud, Retry strategy (exponential backoff with jitter)",
        severity: .should
    ) { ctx in
        let h = AttemptLog(ctx)
        // Each message's retry chain: its delays after 5xx answers without Retry-After, in order.
        let chains = h.groups.compactMap { g -> (device: String, gaps: [Double], seqs: [UInt64])? in
            let gaps = serverErrorGaps(g)
            return gaps.isEmpty ? nil : (g[0].device, gaps, g.map(\.seq))
        }
        guard chains.count >= 3 else { return .notApplicable("fewer than three messages retried after 5xx: jitter not observable") }
        // The n-th retries of all chains are compared with one another: without jitter they share
        // one delay, and only scheduling noise (bounded by the floor, or a small share of a long
        // delay) tells them apart. Retry indices whose typical delay is near zero are not judged.
        var judged: [String] = []
        var spreadOut: [String] = []
        for k in 0..<(chains.map(\.gaps.count).max() ?? 0) {
            let values = chains.compactMap { $0.gaps.count > k ? $0.gaps[k] : nil }.sorted()
            guard values.count >= 3 else { continue }
            let median = values[values.count / 2]
            guard median >= jitterJudgedDelay else { continue }
            let spread = values.last! - values.first!
            let needed = max(jitterNoiseFloor, jitterMinShare * median)
            let line = String(format: "retry %d: %d delays %.3f–%.3f s (spread %.3f s, jitter needs > %.3f s)",
                              k + 1, values.count, values.first!, values.last!, spread, needed)
            judged.append(line)
            if spread > needed { spreadOut.append(line) }
        }
        if judged.isEmpty { return .notApplicable("no retry delay long enough to judge for jitter") }
        if spreadOut.isEmpty {
            return .violated("\(chains.count) messages retried in lockstep: no jitter",
                             [Evidence(judged.joined(separator: "; ") + ". Per message: "
                                       + chains.prefix(8).map { "\($0.device) \(text($0.gaps))" }.joined(separator: ", "),
                                       seqs: chains.prefix(8).flatMap(\.seqs))])
        }
        return .held(spreadOut.joined(separator: "; "))
    }

    static let noDuplicateDelivery = CheckDefinition(
        id: "no-duplicate-delivery", title: "Each notification is accepted at most once per device",
        reference: "A5 (retry only what the server did not process)", severity: .must
    ) { ctx in
        let h = AttemptLog(ctx)
        let groups = h.groups
        if groups.isEmpty { return .notApplicable("no attempts") }
        var problems: [Evidence] = []
        for g in groups {
            let acc = g.filter(\.accepted)
            if acc.count > 1 {
                problems.append(Evidence("\(g[0].device) in step \(g[0].step + 1) accepted \(acc.count) times: "
                    + acc.map { h.describe($0) }.joined(separator: "; "), seqs: acc.map(\.seq)))
            }
        }
        return .judged(problems, held: "no duplicates among \(groups.count) message(s)",
            violated: "duplicate deliveries")
    }
}
