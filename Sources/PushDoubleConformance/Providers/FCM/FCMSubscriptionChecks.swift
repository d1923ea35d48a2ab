import Foundation
import PushDoubleCore
import PushDoubleFCM

/// One Instance ID batch request (`POST /iid/v1:batchAdd` / `:batchRemove`) as the fake
/// recorded it: operation, topic, the tokens it named, and what the answer said of each.
struct FCMSubscriptionBatch: Sendable {
    var exchange: Exchange
    var endpoint: String { exchange.endpoint }
    var topic: String
    var tokens: [String]
    /// Per token, the batch answer's error code (nil = `{}`, subscribed); empty when the whole
    /// request was refused (an HTTP error, a fault).
    var errors: [String: String?]
    var status: Int? { exchange.response.status }
    var start: Date { exchange.transport.headReceivedAt }
    var end: Date { exchange.respondedAt }
    /// Whether the whole request failed for a transient reason (429 or 5xx, or a dropped connection).
    var transient: Bool { status.map { $0 == 429 || $0 >= 500 } ?? true }

    /// The batch requests of a case's FCM history, in arrival order.
    static func all(_ ctx: CheckContext) -> [FCMSubscriptionBatch] {
        let endpoints: Set<String> = [FCMFake.iidBatchAddEndpoint, FCMFake.iidBatchRemoveEndpoint]
        return ctx.history.filter { $0.provider == .fcm && endpoints.contains($0.endpoint) }
            .sorted { ($0.transport.headReceivedAt, $0.seq) < ($1.transport.headReceivedAt, $1.seq) }
            .map { e in
                let body = e.notification
                let tokens = body?["registration_tokens"]?.arrayValue?.compactMap(\.stringValue) ?? []
                let to = body?["to"]?.stringValue ?? e.topic ?? ""
                var errors: [String: String?] = [:]
                if e.response.status == 200 { for r in e.recipients ?? [] { errors[r.token] = r.accepted || r.reason == nil ? .some(nil) : .some(r.reason) } }
                return FCMSubscriptionBatch(exchange: e, topic: to.hasPrefix("/topics/") ? String(to.dropFirst(8)) : to, tokens: tokens, errors: errors)
            }
    }

    func describe(_ t0: Date) -> String {
        let at = String(format: "+%.3fs", start.timeIntervalSince(t0))
        return "\(endpoint) /topics/\(topic) with \(tokens.count) token(s) at \(at): \(status.map(String.init) ?? exchange.response.action)"
    }
}

/// The checks of a sender that manages FCM topic subscriptions (the opt-in `subscribe` driver
/// feature; docs/fcm.md "Topic subscriptions", docs/conformance.md "Topic subscriptions").
/// Each is n/a in a case where the sender made no batch request.
enum FCMSubscriptionChecks {
    static let all = [notFoundRemoved, noBatchResend, retried, batchSize]

    static func judge(_ ctx: CheckContext, _ body: ([FCMSubscriptionBatch], Date) -> Finding) -> Finding {
        let batches = FCMSubscriptionBatch.all(ctx)
        if batches.isEmpty { return .notApplicable("no Instance ID batch request") }
        return body(batches, AttemptLog.timeZero(ctx))
    }

    /// `fcm.topic-not-found-removed`: a token a batch answer reported `NOT_FOUND` (the app
    /// instance is gone) is named in no later batch request: the sender removed it.
    static let notFoundRemoved = CheckDefinition(
        id: "fcm.topic-not-found-removed", title: "Tokens a topic batch reports NOT_FOUND are removed, not named again",
        reference: "fcm.md §8 (Topic subscriptions: batch results)", severity: .must
    ) { ctx in
        judge(ctx) { batches, t0 in
            let offending = repeats(batches, t0, of: { b in b.errors.compactMap { $0.value == "NOT_FOUND" ? $0.key : nil } },
                                    sameTopic: false, note: "names token(s) reported NOT_FOUND before")
            return offending.isEmpty ? .held("no token named again after NOT_FOUND")
                : .violated("a token reported NOT_FOUND was named again", Array(offending.prefix(5)))
        }
    }

    /// `fcm.topic-no-batch-resend`: a token an earlier answer already reported subscribed (or
    /// unsubscribed) for a topic is not sent again for the same operation and topic: one bad
    /// token in a batch does not make the sender resend the whole batch.
    static let noBatchResend = CheckDefinition(
        id: "fcm.topic-no-batch-resend", title: "A batch with one bad token is not resent whole",
        reference: "fcm.md §8 (Topic subscriptions: batch results)", severity: .must
    ) { ctx in
        judge(ctx) { batches, t0 in
            let offending = repeats(batches, t0, of: { b in b.errors.compactMap { $0.value == nil ? $0.key : nil } },
                                    sameTopic: true, note: "repeats token(s) already done")
            return offending.isEmpty ? .held("every token sent once per topic after its answer")
                : .violated("tokens already subscribed were sent again", Array(offending.prefix(5)))
        }
    }

    /// The batches that name again, after an earlier batch's answer, a token `of` picked from
    /// that answer (for the same operation and topic when `sameTopic`), one evidence each.
    static func repeats(_ batches: [FCMSubscriptionBatch], _ t0: Date, of picked: (FCMSubscriptionBatch) -> [String], sameTopic: Bool,
                        note: String) -> [Evidence] {
        var offending: [Evidence] = []
        for (i, b) in batches.enumerated() {
            let tokens = Set(picked(b))
            guard !tokens.isEmpty else { continue }
            for later in batches[(i + 1)...] where later.start >= b.end && (!sameTopic || (later.endpoint == b.endpoint && later.topic == b.topic)) {
                let again = later.tokens.filter(tokens.contains)
                if !again.isEmpty {
                    offending.append(Evidence("\(later.describe(t0)) \(note): \(again.count), e.g. \(again[0])", seqs: [b.exchange.seq, later.exchange.seq]))
                }
            }
        }
        return offending
    }

    /// `fcm.topic-retried`: a batch refused whole for a transient reason (429, 5xx, a lost
    /// connection) is sent again: each of its tokens appears in a later request for the same topic.
    static let retried = CheckDefinition(
        id: "fcm.topic-retried", title: "Topic batches refused with 429/5xx are retried",
        reference: "fcm.md §4.6; fcm.md §8 (Topic subscriptions)", severity: .must
    ) { ctx in
        judge(ctx) { batches, t0 in
            let refused = batches.enumerated().filter { $0.element.transient }
            if refused.isEmpty { return .notApplicable("no topic batch was refused for a transient reason") }
            var offending: [Evidence] = []
            for (i, b) in refused {
                let later = batches[(i + 1)...].filter { $0.endpoint == b.endpoint && $0.topic == b.topic }
                let lost = b.tokens.filter { t in !later.contains { $0.tokens.contains(t) } }
                if !lost.isEmpty { offending.append(Evidence("\(b.describe(t0)): \(lost.count) token(s) never sent again", seqs: [b.exchange.seq])) }
            }
            return offending.isEmpty ? .held("\(refused.count) refused batch(es) retried")
                : .violated("a topic batch refused with a transient error was not retried", Array(offending.prefix(5)))
        }
    }

    /// `fcm.topic-batch-size`: no batch request names more than 1000 tokens (the API refuses it whole).
    static let batchSize = CheckDefinition(
        id: "fcm.topic-batch-size", title: "Topic batches name at most 1000 tokens",
        reference: "fcm.md §8 (Topic subscriptions: at most 1000 tokens per batch)", severity: .must
    ) { ctx in
        judge(ctx) { batches, t0 in
            let big = batches.filter { $0.tokens.count > FCMFake.iidMaxBatchTokens }
            return big.isEmpty ? .held("\(batches.count) batch(es), the largest \(batches.map(\.tokens.count).max() ?? 0) tokens")
                : .violated("a batch named more than \(FCMFake.iidMaxBatchTokens) tokens",
                            big.prefix(5).map { Evidence($0.describe(t0), seqs: [$0.exchange.seq]) })
        }
    }
}
