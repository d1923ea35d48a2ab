import Foundation
import PushDoubleCore

/// The Expo-only checks (ids `expo.*`): chunking (expo.md §1), the access token (§1 "Auth"),
/// and the ticket → receipt lifecycle (§3.1, §4): receipts fetched for the tickets the sender
/// holds, in chunks of ≤ 1000, outcomes after `settle` that agree with the receipts served,
/// and tokens a receipt called dead never used again.
enum ExpoChecks {
    static func sends(_ ctx: CheckContext) -> ExpoHistory { ExpoHistory(ctx.history) }

    /// `expo.chunk-size`: every send request names at most 100 recipients (§1).
    static let chunkSize = CheckDefinition(
        id: "expo.chunk-size", title: "Send requests carry at most 100 recipients", reference: "expo.md §1 (PUSH_TOO_MANY_NOTIFICATIONS)",
        severity: .must
    ) { ctx in
        let h = sends(ctx)
        if h.sends.isEmpty { return .notApplicable("no Expo send requests") }
        let big = h.sends.filter { $0.recipients.count > 100 || $0.exchange.response.reason == "PUSH_TOO_MANY_NOTIFICATIONS" }
        return big.isEmpty ? .held("\(h.sends.count) send request(s), largest \(h.sends.map(\.recipients.count).max() ?? 0) recipients")
            : .violated("\(big.count) request(s) over 100 recipients",
                        big.map { Evidence("\($0.recipients.count) recipients", seqs: [$0.exchange.seq]) })
    }

    /// `expo.receipts-chunk-size`: every getReceipts asks for at most 1000 ids (§1).
    static let receiptsChunkSize = CheckDefinition(
        id: "expo.receipts-chunk-size", title: "getReceipts requests ask for at most 1000 ids", reference: "expo.md §1 (PUSH_TOO_MANY_RECEIPTS)",
        severity: .must
    ) { ctx in
        let h = sends(ctx)
        if h.fetches.isEmpty { return .notApplicable("no getReceipts requests") }
        let big = h.fetches.filter { $0.ids.count > 1000 || $0.exchange.response.reason == "PUSH_TOO_MANY_RECEIPTS" }
        return big.isEmpty ? .held("\(h.fetches.count) getReceipts request(s), largest \(h.fetches.map(\.ids.count).max() ?? 0) ids")
            : .violated("\(big.count) request(s) over 1000 ids", big.map { Evidence("refused: \($0.exchange.response.reason ?? "?")", seqs: [$0.exchange.seq]) })
    }

    /// `expo.receipts-own-ids`: getReceipts asks only for ids the fake issued as tickets to this sender.
    static let receiptsOwnIDs = CheckDefinition(
        id: "expo.receipts-own-ids", title: "Receipts are asked for only for tickets the sender holds", reference: "expo.md §3.1, §4",
        severity: .must
    ) { ctx in
        let h = sends(ctx)
        if h.fetches.isEmpty { return .notApplicable("no getReceipts requests") }
        let issued = h.issuedTicketIDs
        let foreign = h.fetches.compactMap { f -> Evidence? in
            let bad = f.ids.filter { !issued.contains($0) }
            return bad.isEmpty ? nil : Evidence("asked for \(bad.count) id(s) never issued: \(bad.prefix(3).joined(separator: ", "))", seqs: [f.exchange.seq])
        }
        return foreign.isEmpty ? .held("every asked id was a ticket of this run") : .violated("ids that were never tickets", foreign)
    }

    /// `expo.receipts-fetched`: after `settle`, every ok ticket issued before it was asked for.
    static let receiptsFetched = CheckDefinition(
        id: "expo.receipts-fetched", title: "Receipts of every ok ticket are fetched in settle", reference: "expo.md §4; driver protocol: settle",
        severity: .must
    ) { ctx in
        guard let lastSettle = ctx.steps.last(where: { $0.type == "settle" && $0.failure == nil }) else {
            return .notApplicable("no settle step")
        }
        let h = sends(ctx)
        let asked = Set(h.fetches.flatMap(\.ids))
        var missing: [Evidence] = []
        var judged = 0
        for s in h.sends where s.exchange.transport.headReceivedAt < lastSettle.startedAt {
            for r in s.recipients { if let id = r.ticketID { judged += 1; if !asked.contains(id) { missing.append(Evidence("ticket \(id) of \(r.token)", seqs: [s.exchange.seq])) } } }
        }
        if judged == 0 { return .notApplicable("no ok tickets before settle") }
        return missing.isEmpty ? .held("receipts of all \(judged) ok ticket(s) asked for")
            : .violated("\(missing.count) ticket(s) whose receipt was never asked for", Array(missing.prefix(10)))
    }

    /// Each device's last reported outcome over every send and settle reply.
    static func finalOutcomes(_ ctx: CheckContext) -> [String: DeviceResult] {
        var last: [String: DeviceResult] = [:]
        for step in ctx.steps where step.failure == nil && (step.type == "send" || step.type == "settle") {
            for r in step.results { last[r.device] = r }
        }
        return last
    }

    /// `expo.settled-outcome`: `expect` applies to each device's last outcome (send, then settle).
    static let settledOutcome = CheckDefinition(
        id: "expo.settled-outcome", title: "Outcome after settle is the expected one", reference: "driver protocol: settle; expo.md §4",
        severity: .must
    ) { ctx in
        let expect = ctx.params["expect"]?.objectValue ?? []
        if expect.isEmpty { return .notApplicable("no expectations given") }
        let final = finalOutcomes(ctx)
        var problems: [Evidence] = []
        for (device, spec) in expect {
            let want = Set((spec.arrayValue ?? [spec]).compactMap { $0.stringValue.flatMap(DeliveryOutcome.init(rawValue:)) })
            guard let got = final[device] else { problems.append(Evidence("\(device): no outcome reported")); continue }
            if !want.contains(got.outcome) {
                problems.append(Evidence("\(device): finally \(got.outcome.rawValue)" + (got.reason.map { " (\($0))" } ?? "")
                    + ", expected " + want.map(\.rawValue).sorted().joined(separator: "|")))
            }
        }
        return .judged(problems, held: "\(expect.count) final outcome(s) as expected", violated: "\(problems.count) final outcome(s) differ")
    }

    /// `expo.receipt-truthful`: what `settle` reports agrees with the receipts the fake served
    /// (an absent receipt is not success; a DeviceNotRegistered receipt is not `sent`).
    static let receiptTruthful = CheckDefinition(
        id: "expo.receipt-truthful", title: "Settled outcomes agree with the receipts served", reference: "expo.md §4, §4.1",
        severity: .must
    ) { ctx in
        let h = sends(ctx)
        var served: [String: (token: String, receipt: JSONValue)] = [:]
        var ticketsByToken: [String: [String]] = [:]
        for s in h.sends { for r in s.recipients { if let id = r.ticketID { ticketsByToken[r.token, default: []].append(id); if let rc = s.served[id] { served[id] = (r.token, rc) } } } }
        var problems: [Evidence] = []
        var judged = 0
        for step in ctx.steps where step.type == "settle" && step.failure == nil {
            for r in step.results {
                guard let token = ctx.scenario.device(r.device)?.token, ctx.scenario.device(r.device)?.provider == "expo" else { continue }
                judged += 1
                let ids = r.providerMessageId.map { [$0] } ?? ticketsByToken[token] ?? []
                let receipts = ids.compactMap { served[$0]?.receipt }
                let errors = Set(receipts.compactMap { $0["details"]?["error"]?.stringValue })
                let ok = receipts.contains { $0["status"]?.stringValue == "ok" }
                let agrees: Bool
                switch r.outcome {
                case .sent: agrees = ok
                case .dead: agrees = errors.contains("DeviceNotRegistered")
                case .rejected: agrees = errors.contains("MessageTooBig")
                case .failed: agrees = !errors.isEmpty
                case .pending: agrees = receipts.isEmpty
                case .skipped, .aborted: agrees = false
                }
                if !agrees {
                    problems.append(Evidence("step \(step.index + 1): \(r.device) settled \(r.outcome.rawValue) but the receipt served was "
                        + (receipts.isEmpty ? "none" : receipts.map(\.compactJSON).joined(separator: ", "))))
                }
            }
        }
        return .judged(judged, problems, none: "no settle results for Expo devices",
                       held: "\(judged) settled outcome(s) match the receipts",
                       violated: "\(problems.count) settled outcome(s) contradict the receipts")
    }

    /// Tokens whose served receipt said `kind`, with when it was fetched.
    static func receiptErrors(_ h: ExpoHistory, _ kind: String) -> [(token: String, message: String, at: Date, sendSeq: UInt64)] {
        h.sends.flatMap { s in
            s.recipients.compactMap { r -> (String, String, Date, UInt64)? in
                guard let id = r.ticketID, s.served[id]?["details"]?["error"]?.stringValue == kind,
                      let at = s.exchange.annotations?["receipts"]?[id]?["fetchedAt"]?.stringValue.flatMap(DateFormats.parseISO8601) else { return nil }
                return (r.token, ExpoHistory.comparable(r.message), at, s.exchange.seq)
            }
        }
    }

    /// Sends after a served receipt of `kind` that reach the same token again (with the same
    /// message too, when `sameMessage`): the evidence of the two rules below.
    static func sentAfterReceipt(_ ctx: CheckContext, kind: String, sameMessage: Bool) -> (receipts: Int, offending: [Evidence]) {
        let h = sends(ctx)
        let hits = receiptErrors(h, kind)
        let offending = h.sends.compactMap { s -> Evidence? in
            let bad = s.recipients.filter { r in
                // A later send only: `fetchedAt` is kept to the millisecond, so the send that got
                // the ticket can look "after" its own receipt when both fall in one millisecond.
                hits.contains { $0.token == r.token && s.exchange.seq > $0.sendSeq && s.exchange.transport.headReceivedAt > $0.at
                    && (!sameMessage || $0.message == ExpoHistory.comparable(r.message)) }
            }
            return bad.isEmpty ? nil : Evidence("sent again to " + bad.map(\.token).joined(separator: ", "), seqs: [s.exchange.seq])
        }
        return (hits.count, offending)
    }

    /// `expo.receipt-dead-not-reused`: a token a receipt called `DeviceNotRegistered` is never sent to again.
    static let receiptDeadNotReused = CheckDefinition(
        id: "expo.receipt-dead-not-reused", title: "A token dead in its receipt is never used again", reference: "expo.md §4.1 DeviceNotRegistered",
        severity: .must
    ) { ctx in
        let (n, reused) = sentAfterReceipt(ctx, kind: "DeviceNotRegistered", sameMessage: false)
        if n == 0 { return .notApplicable("no DeviceNotRegistered receipt was served") }
        return reused.isEmpty ? .held("\(n) receipt-dead token(s) not used again") : .violated("dead tokens used again", reused)
    }

    /// `expo.too-big-not-resent`: a message whose receipt was `MessageTooBig` is not resent unchanged.
    static let tooBigNotResent = CheckDefinition(
        id: "expo.too-big-not-resent", title: "A MessageTooBig message is not resent unchanged", reference: "expo.md §4.1 MessageTooBig",
        severity: .must
    ) { ctx in
        let (n, resent) = sentAfterReceipt(ctx, kind: "MessageTooBig", sameMessage: true)
        if n == 0 { return .notApplicable("no MessageTooBig receipt was served") }
        return resent.isEmpty ? .held("\(n) too-big message(s) not resent") : .violated("too-big messages resent unchanged", resent)
    }

    /// `expo.message-size`: no message over 4096 bytes is sent (it can only end in MessageTooBig).
    static let messageSize = CheckDefinition(
        id: "expo.message-size", title: "Messages over 4096 bytes are rejected locally, not sent", reference: "expo.md §1 (4096 bytes, MessageTooBig)",
        severity: .should
    ) { ctx in
        let h = sends(ctx)
        if h.sends.isEmpty { return .notApplicable("no Expo send requests") }
        let big = h.sends.compactMap { s -> Evidence? in
            let sizes = s.recipients.map { ExpoHistory.payloadBytes($0.message) }.filter { $0 > 4096 }
            return sizes.isEmpty ? nil : Evidence("\(sizes.count) message(s) of \(sizes.max() ?? 0) bytes", seqs: [s.exchange.seq])
        }
        return big.isEmpty ? .held("every message within 4096 bytes") : .violated("oversized messages sent", big)
    }

    /// The request-level code of a request whose tokens belong to more than one project (§1, §3.2).
    static let mixedProjectsCode = "PUSH_TOO_MANY_EXPERIENCE_IDS"

    /// `expo.split-by-project`: a request refused with `PUSH_TOO_MANY_EXPERIENCE_IDS` is never
    /// sent again with the same recipients (it can only be refused again), and each of its
    /// recipients is sent later in a request Expo accepts: the sender split it by project
    /// (the refusal's `details` maps each project to its tokens, §3.2).
    static let splitByProject = CheckDefinition(
        id: "expo.split-by-project", title: "A request mixing projects is split by project, not resent",
        reference: "expo.md §1, §3.2 (PUSH_TOO_MANY_EXPERIENCE_IDS)", severity: .must
    ) { ctx in
        let h = sends(ctx)
        let refused = h.sends.indices.filter { h.sends[$0].exchange.response.reason == mixedProjectsCode }
        if refused.isEmpty { return .notApplicable("no request was refused with \(mixedProjectsCode)") }
        var problems: [Evidence] = []
        for i in refused {
            let s = h.sends[i]
            let tokens = ExpoHistory.tokenSet(s)
            let later = h.sends[(i + 1)...]
            if let again = later.first(where: { ExpoHistory.tokenSet($0) == tokens }) {
                problems.append(Evidence("the refused request's \(tokens.count) recipient(s) were sent together again",
                                         seqs: [s.exchange.seq, again.exchange.seq]))
            }
            let reached = Set(later.filter { $0.exchange.response.status == 200 }.flatMap { $0.recipients.map(\.token) })
            let missing = tokens.subtracting(reached).sorted()
            if !missing.isEmpty {
                problems.append(Evidence("never sent in an accepted request: " + missing.prefix(5).joined(separator: ", "), seqs: [s.exchange.seq]))
            }
        }
        return .judged(problems, held: "\(refused.count) mixed-project request(s) split and each part sent",
            violated: "a mixed-project request was resent or its recipients dropped")
    }

    /// `expo.access-token`: with an access token configured, every send carries `Authorization: Bearer <token>`.
    static let accessToken = CheckDefinition(
        id: "expo.access-token", title: "The configured access token is sent", reference: "expo.md §1 Auth (enhanced push security)",
        severity: .must
    ) { ctx in
        guard let token = ctx.configuration?.providers.first(where: { $0.id == "expo" })?.parameters["accessToken"]?.stringValue else {
            return .notApplicable("no access token configured")
        }
        let h = sends(ctx)
        if h.sends.isEmpty { return .notApplicable("no Expo send requests") }
        let bad = h.sends.filter { s in
            !s.exchange.request.headers.contains { $0.first?.lowercased() == "authorization" && $0.last == "Bearer " + token }
        }
        return bad.isEmpty ? .held("\(h.sends.count) send(s) with the access token")
            : .violated("\(bad.count) send(s) without the access token", bad.map { Evidence("auth: \($0.exchange.auth?.scheme ?? "none")", seqs: [$0.exchange.seq]) })
    }
}
