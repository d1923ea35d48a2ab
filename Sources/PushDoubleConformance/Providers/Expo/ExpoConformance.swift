import Foundation
import PushDoubleCore

/// Expo on the conformance seam: one ``Attempt`` per recipient of every send (an Expo request
/// carries up to 100), classified by its ticket — ok → accepted, `DeviceNotRegistered` → dead,
/// `MessageTooBig` → permanent, `MessageRateExceeded` → transient — or, when the whole request
/// was refused (no tickets), by its status and code (429 → transient, 4xx → request error);
/// and the Expo-only checks (``ExpoChecks``) on chunking, the access token and receipts.
public struct ExpoConformance: ConformanceProvider {
    public init() {}

    public var provider: ProviderID { ExpoHistory.provider }

    /// expo.md §3.2, §4.1: `DeviceNotRegistered` is a dead token; `MessageTooBig` must not be
    /// resent unchanged; `UNAUTHORIZED` may be retried once the credential is fixed.
    public var facts: ProviderFacts {
        ProviderFacts(deadReasons: ["DeviceNotRegistered"], neverRetryReasons: ["MessageTooBig"], retryableReasons: ["UNAUTHORIZED"])
    }

    public func attempts(_ ctx: CheckContext) -> [Attempt] {
        let h = ExpoHistory(ctx.history)
        var out: [Attempt] = []
        for send in h.sends {
            let e = send.exchange
            let retryAfter = e.response.headers.first { $0.first?.lowercased() == "retry-after" }?.last
            let start = e.transport.headReceivedAt
            let end = e.respondedAt.addingTimeInterval(e.response.delaySeconds ?? 0)
            for (i, r) in send.recipients.enumerated() {
                let classification: Attempt.Classification
                let reason: String?
                if let o = r.outcome {
                    reason = o.reason
                    switch (o.accepted, o.reason) {
                    case (true, _): classification = .accepted
                    case (false, "MessageRateExceeded"): classification = .transient
                    case (false, let why): classification = facts.classify(status: 400, reason: why, action: e.response.action) == .dead ? .dead : .permanent
                    }
                } else {
                    reason = e.response.reason
                    classification = facts.classify(status: e.response.status, reason: e.response.reason, action: e.response.action)
                }
                // A request refused for what it groups (PUSH_TOO_MANY_EXPERIENCE_IDS) is the same
                // request again only with the same recipients: its parts, sent apart, are new requests.
                let grouping = e.response.reason == ExpoChecks.mixedProjectsCode && r.outcome == nil
                    ? "|" + ExpoHistory.tokenSet(send).sorted().joined(separator: ",") : ""
                let device = ctx.scenario.devices.first { $0.provider == provider.rawValue && $0.token == r.token }?.id ?? r.token
                out.append(Attempt(provider: provider, exchange: e, recipient: i, token: r.token, device: device,
                                   step: AttemptLog.step(at: start, ctx.steps), classification: classification,
                                   status: e.response.status, reason: reason, retryAfter: retryAfter,
                                   backoff: r.outcome == nil ? facts.backoff(status: e.response.status, reason: reason, retryAfter: retryAfter,
                                                                             classification: classification) : .none,
                                   endsConnection: ProviderFacts.connectionEndingActions.contains(e.response.action),
                                   pool: "expo", start: start, end: end, comparableRequest: ExpoHistory.comparable(r.message) + grouping))
            }
        }
        return out
    }

    public var checks: [CheckDefinition] {
        [ExpoChecks.chunkSize, ExpoChecks.receiptsChunkSize, ExpoChecks.receiptsOwnIDs, ExpoChecks.receiptsFetched,
         ExpoChecks.settledOutcome, ExpoChecks.receiptTruthful, ExpoChecks.receiptDeadNotReused, ExpoChecks.tooBigNotResent,
         ExpoChecks.messageSize, ExpoChecks.accessToken, ExpoChecks.splitByProject, ExpoMappingCheck.check]
    }

    public var aliases: [String: String] { [:] }
}
