import Foundation
import PushDoubleCore

/// Checks on retries, backoff, dead tokens and duplicates (README G1–G5, A1–A5).
enum RetryChecks {
    static let noRetryPermanent = CheckDefinition(
        id: "apns.no-retry-permanent", title: "No retry after a permanent error",
        reference: "A1, A2, G5; apns.md §7.2 (Apple's retry rule)", severity: .must
    ) { ctx in
        let h = APNsHistory(ctx)
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
        if judged == 0 { return .notApplicable("no permanent errors were answered") }
        return problems.isEmpty ? .held("\(judged) permanent error(s), none retried")
            : .violated("retried after a permanent error", problems)
    }

    static let deadTokenNotReused = CheckDefinition(
        id: "apns.dead-token-not-reused", title: "A dead token is never used again",
        reference: "A1, G4; apns.md §7.2 (410 Unregistered: stop sending)", severity: .must
    ) { ctx in
        let h = APNsHistory(ctx)
        var diedAt: [String: APNsPush] = [:]
        var problems: [Evidence] = []
        for p in h.pushes {
            if let d = diedAt[p.token.lowercased()], p.step > d.step {
                problems.append(Evidence("\(p.device) was reported gone by \(h.describe(d)), yet pushed again in step \(p.step + 1): \(h.describe(p))",
                                         seqs: [d.seq, p.seq]))
            }
            if p.deadToken && diedAt[p.token.lowercased()] == nil { diedAt[p.token.lowercased()] = p }
        }
        if diedAt.isEmpty { return .notApplicable("no token was reported gone") }
        let laterSteps = ctx.steps.filter { s in s.type == "send" && diedAt.values.contains { $0.step < s.index } }
        if laterSteps.isEmpty && problems.isEmpty { return .notApplicable("no send step after a token died") }
        return problems.isEmpty ? .held("\(diedAt.count) dead token(s) not used in later steps")
            : .violated("a dead token was used again", problems)
    }

    /// Tolerance for clock granularity when comparing waits (seconds).
    static let waitTolerance = 0.05

    static let retryAfter = CheckDefinition(
        id: "apns.retry-after", title: "Waits at least Retry-After before retrying",
        reference: "G1, G2, A3; RFC 9110 §10.2.3", severity: .must
    ) { ctx in
        let h = APNsHistory(ctx)
        var problems: [Evidence] = []
        var judged = 0
        for g in h.groups {
            for (i, p) in g.enumerated() {
                guard let ra = p.responseHeader("retry-after"), !p.accepted else { continue }
                guard let wait = retryAfterSeconds(ra, now: p.end) else {
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
        if judged == 0 { return .notApplicable("no retry followed a Retry-After answer") }
        return problems.isEmpty ? .held("\(judged) retry(ies) waited at least Retry-After")
            : .violated("retried before Retry-After elapsed", problems)
    }

    static let transientRetried = CheckDefinition(
        id: "apns.transient-retried", title: "Transient failures are retried",
        reference: "A3, A4, A5, G3; apns.md §7.2 (429 retry after a delay, 5xx retry with backoff)", severity: .must
    ) { ctx in
        let h = APNsHistory(ctx)
        let minAttempts = Int(ctx.params["minAttempts"]?.intValue ?? 2)
        var problems: [Evidence] = []
        var judged = 0
        for g in h.groups where g.contains(where: \.transientFailure) {
            judged += 1
            if let last = g.last, last.transientFailure, g.count < minAttempts {
                problems.append(Evidence("\(last.device) gave up after \(g.count) attempt(s); last: \(h.describe(last))", seqs: g.map(\.seq)))
            }
        }
        if judged == 0 { return .notApplicable("no transient failures were answered") }
        return problems.isEmpty ? .held("\(judged) message(s) with transient failures were retried")
            : .violated("transient failures not retried", problems)
    }

    static let boundedAttempts = CheckDefinition(
        id: "apns.bounded-attempts", title: "Attempts per message are capped",
        reference: "G3 (policy: cap attempts, give up cleanly)", severity: .must
    ) { ctx in
        let h = APNsHistory(ctx)
        let cap = Int(ctx.params["maxAttempts"]?.intValue ?? 10)
        let groups = h.groups
        if groups.isEmpty { return .notApplicable("no pushes") }
        let over = groups.filter { $0.count > cap }
        if over.isEmpty {
            return .held("at most \(groups.map(\.count).max() ?? 0) attempt(s) per message (cap \(cap))")
        }
        return .violated("more than \(cap) attempts at one message",
                         over.map { Evidence("\($0[0].device) in step \($0[0].step + 1): \($0.count) attempts", seqs: $0.map(\.seq)) })
    }

    /// The server said "try later" without saying when: 429 or 5xx without Retry-After,
    /// except 503 Shutdown (the server is going away: resend at once on a new connection).
    static func askedToBackOff(_ p: APNsPush, serverErrorsOnly: Bool) -> Bool {
        guard let s = p.status, !p.accepted, p.responseHeader("retry-after") == nil, p.reason != "Shutdown" else { return false }
        return s >= 500 || (!serverErrorsOnly && s == 429)
    }

    /// Gaps between a failed attempt's answer and the next attempt, for 5xx without Retry-After.
    static func serverErrorGaps(_ g: [APNsPush]) -> [Double] { backoffGaps(g, serverErrorsOnly: true) }

    /// Gaps (answer → next attempt) after each attempt the server asked to back off from.
    static func backoffGaps(_ g: [APNsPush], serverErrorsOnly: Bool) -> [Double] {
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
        id: "apns.no-tight-retry-loop", title: "No tight retry loop: retries the server asked to delay are spread out",
        reference: "A3, A4, G3; apns.md §7.2 (429: retry after a delay; 5xx: retry with backoff)", severity: .must
    ) { ctx in
        let h = APNsHistory(ctx)
        let minMean = ctx.params["minMeanDelay"]?.doubleValue ?? tightLoopMeanDelay
        // The sequence is judged, never one delay (DESIGN §5): every message retried at least
        // twice after 429/5xx without Retry-After, their delays pooled.
        var loops: [([APNsPush], [Double])] = []
        for g in h.groups {
            let gaps = backoffGaps(g, serverErrorsOnly: false)
            if gaps.count >= 2 { loops.append((g, gaps)) }
        }
        let all = loops.flatMap(\.1)
        guard all.count >= 3 else { return .notApplicable("fewer than three retries in messages retried twice after 429/5xx without Retry-After") }
        let mean = all.reduce(0, +) / Double(all.count)
        let summary = String(format: "%d retries in %d message(s), mean delay %.3f s (least %.3f s)", all.count, loops.count, mean, minMean)
        if mean >= minMean { return .held(summary) }
        return .violated("tight retry loop: " + summary,
                         loops.map { g, gaps in Evidence("\(g[0].device): delays \(text(gaps)) s", seqs: g.map(\.seq)) })
    }

    static let backoffGrows = CheckDefinition(
        id: "apns.backoff-grows", title: "Backoff grows between 5xx retries",
        reference: "A4, G3 (jitter and caps are policy); apns.md §7.2 (retry with backoff)", severity: .should
    ) { ctx in
        let h = APNsHistory(ctx)
        // The envelope over messages, per retry number: a jittered delay may be shorter than
        // the one before it (full or decorrelated jitter), but the largest and the mean delay
        // at later retries exceed those of the first retry when the backoff grows.
        var rows: [([APNsPush], [Double])] = []
        for g in h.groups {
            let gaps = serverErrorGaps(g)
            if gaps.count >= 2 { rows.append((g, gaps)) }
        }
        guard rows.count >= 3 else {
            return .notApplicable("fewer than three messages retried twice after 5xx: a jittered backoff's growth is not observable")
        }
        let depth = rows.map(\.1.count).max() ?? 0
        var maxima: [Double] = [], means: [Double] = []
        for k in 0..<depth {
            let at = rows.compactMap { $0.1.count > k ? $0.1[k] : nil }
            maxima.append(at.max() ?? 0)
            means.append(at.reduce(0, +) / Double(max(at.count, 1)))
        }
        func grew(_ v: [Double]) -> Bool {
            let later = v.dropFirst().max() ?? 0
            return later >= max(0.05, v[0] * 1.25)
        }
        let envelope = "largest delay per retry \(text(maxima)) s, mean \(text(means)) s over \(rows.count) messages"
        if grew(maxima) || grew(means) { return .held(envelope) }
        return .violated("backoff does not grow: " + envelope,
                         rows.map { g, gaps in Evidence("\(g[0].device): delays \(text(gaps)) s", seqs: g.map(\.seq)) })
    }

    static let backoffJitter = CheckDefinition(
        id: "apns.backoff-jitter", title: "Backoff has jitter",
        reference: "A4, G3 (policy: exponential backoff with jitter)", severity: .should
    ) { ctx in
        let h = APNsHistory(ctx)
        var firstGaps: [(String, Double, [UInt64])] = []
        for g in h.groups {
            if let gap = serverErrorGaps(g).first { firstGaps.append((g[0].device, gap, g.map(\.seq))) }
        }
        guard firstGaps.count >= 3 else { return .notApplicable("fewer than three messages retried after 5xx: jitter not observable") }
        let values = firstGaps.map(\.1)
        let spread = (values.max() ?? 0) - (values.min() ?? 0)
        if spread < 0.002 {
            return .violated(String(format: "first retry delays of %d messages are all equal (spread %.4f s): no jitter", firstGaps.count, spread),
                             [Evidence(firstGaps.map { String(format: "%@ %.3f s", $0.0, $0.1) }.joined(separator: ", "),
                                       seqs: firstGaps.flatMap(\.2))])
        }
        return .held(String(format: "first retry delays spread over %.3f s", spread))
    }

    static let noDuplicateDelivery = CheckDefinition(
        id: "apns.no-duplicate-delivery", title: "Each notification is accepted at most once per device",
        reference: "A5 (retry only what the server did not process)", severity: .must
    ) { ctx in
        let h = APNsHistory(ctx)
        let groups = h.groups
        if groups.isEmpty { return .notApplicable("no pushes") }
        var problems: [Evidence] = []
        for g in groups {
            let acc = g.filter(\.accepted)
            if acc.count > 1 {
                problems.append(Evidence("\(g[0].device) in step \(g[0].step + 1) accepted \(acc.count) times: "
                    + acc.map { h.describe($0) }.joined(separator: "; "), seqs: acc.map(\.seq)))
            }
        }
        return problems.isEmpty ? .held("no duplicates among \(groups.count) message(s)")
            : .violated("duplicate deliveries", problems)
    }

    /// The last-stream-id of a GOAWAY record: `last=5`, or the core's symbolic forms
    /// `last=before-this-stream`, `last=this-stream`, `last=highest-seen`.
    static func goAwayLastStream(_ ga: APNsPush, onConnection: [APNsPush]) -> UInt32 {
        let fallback = ga.accepted ? ga.stream : ga.stream &- 1
        guard let d = ga.exchange.response.detail, let r = d.range(of: "last=") else { return fallback }
        let value = d[r.upperBound...].prefix { !$0.isWhitespace && $0 != "," && $0 != ";" }
        switch value {
        case "before-this-stream": return ga.stream &- 1
        case "this-stream": return ga.stream
        case "highest-seen": return onConnection.filter { $0.start <= ga.start }.map(\.stream).max() ?? ga.stream
        default: return UInt32(value) ?? fallback
        }
    }

    static let goAway = CheckDefinition(
        id: "apns.goaway-unprocessed", title: "After GOAWAY: reconnect and resend only unprocessed streams",
        reference: "A5; RFC 9113 §6.8", severity: .must
    ) { ctx in
        let h = APNsHistory(ctx)
        let goaways = h.pushes.filter { $0.action == "goaway" }
        if goaways.isEmpty { return .notApplicable("the fake sent no GOAWAY") }
        var problems: [Evidence] = []
        for ga in goaways {
            let sameConn = h.pushes.filter { $0.connection == ga.connection }
            let last = goAwayLastStream(ga, onConnection: sameConn)
            // (a) no new stream above last-stream-id opened after the GOAWAY was sent
            for p in sameConn where p.stream > last && p.start > ga.end.addingTimeInterval(0.05) {
                problems.append(Evidence("new stream \(p.stream) opened on connection \(ga.connection) after GOAWAY last=\(last): \(h.describe(p))",
                                         seqs: [ga.seq, p.seq]))
            }
            // (b) processed (accepted) streams of that connection are not sent again in the same step
            for p in sameConn where p.accepted && p.stream <= last {
                if let again = h.pushes.first(where: { $0.step == p.step && $0.device == p.device && $0.start > p.start && $0.connection != p.connection }) {
                    problems.append(Evidence("\(p.device) was processed before the GOAWAY (stream \(p.stream) ≤ \(last)) but resent: \(h.describe(again))",
                                             seqs: [p.seq, again.seq]))
                }
            }
            // (c) unprocessed streams are retried on another connection
            for p in sameConn where !p.accepted && (p.stream > last || p.seq == ga.seq) && !p.neverRetry && !p.requestError {
                let retried = h.pushes.contains { $0.step == p.step && $0.device == p.device && $0.connection != ga.connection && $0.start > p.start }
                if !retried {
                    problems.append(Evidence("\(p.device) on stream \(p.stream) was not processed (GOAWAY last=\(last)) and never resent on a new connection",
                                             seqs: [ga.seq, p.seq]))
                }
            }
        }
        return problems.isEmpty ? .held("\(goaways.count) GOAWAY(s) handled: only unprocessed streams resent")
            : .violated("GOAWAY mishandled", problems)
    }
}
