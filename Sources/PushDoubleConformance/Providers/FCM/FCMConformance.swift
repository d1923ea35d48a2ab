import Foundation
import PushDoubleCore
import PushDoubleFCM

/// FCM wire facts the checks judge against, taken from PushDoubleFCM's tables (copied there
/// from docs/fcm.md, which cites Google's documents); not restated here.
public enum FCMFacts {
    /// fcm.md §4.4: the token is gone (UNREGISTERED: "Delete the token; never retry") or belongs
    /// to another sender (SENDER_ID_MISMATCH): either way unusable for this sender.
    public static let deadReasons: Set<String> = [FCMErrorCode.unregistered.rawValue, FCMErrorCode.senderIDMismatch.rawValue]
    /// fcm.md §4.4, §4.6: never retried unchanged: INVALID_ARGUMENT ("Do not retry unchanged"),
    /// the APNs / Web Push credential errors, and the IAM 403 (another project).
    public static let neverRetryReasons: Set<String> = [
        FCMErrorCode.invalidArgument.rawValue, FCMErrorCode.thirdPartyAuthError.rawValue, FCMErrorCode.apnsAuthError.rawValue,
        GoogleRPCStatus.permissionDenied.rawValue,
    ]
    /// 401 UNAUTHENTICATED without an FcmError = the access token was refused (expired,
    /// revoked): the sender mints a new one and retries (Google: an expired or revoked access token is refreshed once, then the send retried).
    public static let retryableReasons: Set<String> = [GoogleRPCStatus.unauthenticated.rawValue]

    /// fcm.md §4.3, §4.7: a 400 INVALID_ARGUMENT whose message says the registration token is
    /// not valid means the token is unusable (Google's token-management guide: remove it), unlike a
    /// message-level INVALID_ARGUMENT, after which the token stays alive. Read from the answer's
    /// body, as the sender reads it.
    /// The fake's own text for it (``GoogleErrorEnvelope/invalidRegistrationToken``), the one source.
    public static let invalidTokenMessage = GoogleErrorEnvelope.invalidRegistrationToken.message
    public static func isInvalidRegistrationToken(_ e: Exchange) -> Bool {
        guard e.response.status == 400, let body = e.response.body, let error = (try? JSONValue.parse(body))?["error"] else { return false }
        return error["status"]?.stringValue == GoogleRPCStatus.invalidArgument.rawValue
            && error["message"]?.stringValue?.contains(invalidTokenMessage) == true
    }

    /// The classifier's view (fcm.md §4.4, §4.6): 429 and 5xx are transient (the default).
    public static let provider = ProviderFacts(deadReasons: deadReasons, neverRetryReasons: neverRetryReasons,
                                               retryableReasons: retryableReasons)
}

/// FCM on the conformance seam: one attempt per `fcm.send` request that names a registration
/// token (topic and condition sends have no recipient to judge), and the FCM-only checks
/// (``FCMChecks``).
public struct FCMConformance: ConformanceProvider {
    public init() {}

    public var provider: ProviderID { .fcm }
    public var facts: ProviderFacts { FCMFacts.provider }
    public var aliases: [String: String] { [:] }
    public var checks: [CheckDefinition] { FCMChecks.all }

    public func attempts(_ ctx: CheckContext) -> [Attempt] {
        FCMHistory(ctx).sends.compactMap { s in
            guard let token = s.exchange.token else { return nil }
            let retryAfter = s.responseHeader("retry-after")
            var classification = facts.classify(status: s.status, reason: s.reason, action: s.action)
            if FCMFacts.isInvalidRegistrationToken(s.exchange) { classification = .dead }
            return Attempt(provider: provider, exchange: s.exchange, recipient: 0, token: token, device: s.device, step: s.step,
                           classification: classification, status: s.status, reason: s.reason, retryAfter: retryAfter,
                           backoff: facts.backoff(status: s.status, reason: s.reason, retryAfter: retryAfter, classification: classification),
                           endsConnection: ProviderFacts.connectionEndingActions.contains(s.action),
                           pool: FCMFake.sendListener, start: s.start, end: s.end, comparableRequest: s.exchange.request.body ?? "")
        }
    }
}

/// One FCM exchange (a send or a token request) as the fake recorded it, pre-digested.
public struct FCMExchange: Sendable {
    public var exchange: Exchange
    public var seq: UInt64 { exchange.seq }
    /// The scenario device id (or the registration token when no device matches), the
    /// scenario target id of a topic or condition send (``FCMTargetMatch``); "" for a token
    /// request or a send to no known target.
    public var device: String
    public var step: Int
    public var start: Date { exchange.transport.headReceivedAt }
    public var end: Date
    public var status: Int? { exchange.response.status }
    public var reason: String? { exchange.response.reason }
    public var action: String { exchange.response.action }
    /// The message's target members as the fake recorded them (`{"token": …}`, `{"topic": …}`, …).
    public var recordedTarget: JSONValue? { exchange.notification?["target"] }
    /// The access token a send carried (the fake records a prefix of it in `auth.extra.token`).
    public var bearer: String? { exchange.auth?.extra["token"] }
    /// The access token a token request minted (the fake records its fingerprint, the same
    /// form as ``bearer``); nil for a send or a refused request.
    public var mintedToken: String? { exchange.annotations?["accessToken"]?["token"]?.stringValue }
    public func responseHeader(_ name: String) -> String? {
        exchange.response.headers.first { $0.count == 2 && $0[0].lowercased() == name }?[1]
    }
}

/// The FCM part of a case's history: sends and token mints, in arrival order.
public struct FCMHistory: Sendable {
    public var sends: [FCMExchange]
    public var mints: [FCMExchange]
    public var t0: Date

    public init(_ ctx: CheckContext) {
        t0 = AttemptLog.timeZero(ctx)
        var byToken: [String: String] = [:]
        for d in ctx.scenario.devices where d.provider == ProviderID.fcm.rawValue { byToken[d.token] = d.id }
        let digested = ctx.history.filter { $0.provider == .fcm }.map { e -> FCMExchange in
            var end = e.respondedAt
            if let d = e.response.delaySeconds { end = max(end, e.receivedAt.addingTimeInterval(d)) }
            let device = e.token.map { byToken[$0] ?? e.deviceID ?? $0 }
                ?? ctx.scenario.targets.first { FCMTargetMatch.addresses(e.notification?["target"], $0) }?.id ?? ""
            return FCMExchange(exchange: e, device: device, step: AttemptLog.step(at: e.transport.headReceivedAt, ctx.steps), end: end)
        }.sorted { ($0.start, $0.seq) < ($1.start, $1.seq) }
        sends = digested.filter { $0.exchange.endpoint == FCMFake.sendEndpoint }
        mints = digested.filter { $0.exchange.endpoint == FCMFake.tokenEndpoint }
    }

    /// `.held(held)` when nothing offends, else `.violated(violated)` citing the first five
    /// offending exchanges, each as ``describe(_:)`` plus `why` (default: what decided it).
    func finding(_ offending: [FCMExchange], held: String, violated: String,
                 why: (FCMExchange) -> String = { $0.exchange.decidedBy.detail ?? "" }) -> Finding {
        offending.isEmpty ? .held(held)
            : .violated(violated, offending.prefix(5).map { Evidence("\(describe($0)): \(why($0))", seqs: [$0.seq]) })
    }

    public func describe(_ s: FCMExchange) -> String {
        AttemptLog.describe(device: s.device.isEmpty ? s.exchange.endpoint : s.device, exchange: s.exchange, status: s.status,
                            reason: s.reason, at: s.start, t0: t0)
    }
}
