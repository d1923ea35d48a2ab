import Foundation
import PushDoubleAPNs
import PushDoubleCore
import PushDoubleCrypto

/// APNs wire facts the checks judge against. The values come from the fake's own tables in
/// PushDoubleAPNs (docs/apns.md cites Apple's documents for each); do not restate them here.
public enum APNsFacts {
    /// apns.md §4: regular payload limit, bytes.
    public static let payloadLimit = APNsPushType.alert.payloadLimit
    /// apns.md §4: VoIP payload limit, bytes.
    public static let voipPayloadLimit = APNsPushType.voip.payloadLimit
    /// apns.md §2: `apns-collapse-id` at most 64 bytes.
    public static let collapseIDLimit = APNsRequestValidator.maxCollapseIDBytes
    /// apns.md §5: a JWT older than one hour is rejected.
    public static let jwtMaxAge: Double = APNsTokenTiming().maxAge
    /// apns.md §5: refresh no more often than every 20 minutes.
    public static let jwtMinRefreshInterval = Int64(APNsTokenTiming().minRefreshInterval)
    /// apns.md §3: topic suffix per push type (nil = not judged: `mdm` topics are
    /// certificate-defined).
    public static let topicSuffix: [String: String?] = Dictionary(uniqueKeysWithValues: APNsPushType.allCases.map {
        ($0.rawValue, $0 == .mdm ? nil : $0.topicSuffix)
    })
    /// apns.md §3: push types whose `aps` carries `"content-changed": true` (widgets, controls).
    public static let contentChangedPushTypes = Set(APNsPushType.allCases.filter(\.signalsContentChanged).map(\.rawValue))
    /// apns.md §7.2 Apple's retry rule: never retry these.
    public static let neverRetryReasons = Set(APNsReason.allCases.filter(\.isPermanent).map(\.rawValue))
    /// Per-recipient permanent errors: the token is unusable (rules G4, A1, A2, A14).
    public static let deadTokenReasons = wire([.unregistered, .expiredToken, .badDeviceToken, .deviceTokenNotForTopic])
    /// 4xx reasons that are not request errors a sender must not resend unchanged (rules G5).
    public static let retryable4xxReasons = wire([
        .expiredProviderToken, .tooManyProviderTokenUpdates, .tooManyRequests, .idleTimeout, .unrelatedKeyIdInToken,
    ])
    private static func wire(_ reasons: [APNsReason]) -> Set<String> { Set(reasons.map(\.rawValue)) }

    /// The classifier's view of these facts (apns.md §7.2): 410 means the token is gone,
    /// 410 and 413 are never retried, 503 Shutdown asks for a resend on a new connection at
    /// once rather than a backoff.
    public static let provider = ProviderFacts(
        deadReasons: deadTokenReasons, deadStatuses: [410], neverRetryReasons: neverRetryReasons, neverRetryStatuses: [410, 413],
        retryableReasons: retryable4xxReasons, resendAtOnceReasons: [APNsReason.shutdown.rawValue])
}

/// One APNs push as the fake recorded it, with the facts checks need, pre-digested.
public struct APNsPush: Sendable {
    public var exchange: Exchange
    public var seq: UInt64 { exchange.seq }
    public var token: String
    /// The scenario device id (or the token when no device matches).
    public var device: String
    /// Index into `CheckContext.steps` of the send step this push belongs to (-1: before any).
    public var step: Int
    public var connection: UInt64 { exchange.transport.connection.id }
    public var stream: UInt32 { exchange.transport.streamID }
    /// When the request head arrived.
    public var start: Date { exchange.transport.headReceivedAt }
    /// When the stream was answered (including a fault's delay).
    public var end: Date
    public var status: Int? { exchange.response.status }
    public var reason: String?
    public var action: String { exchange.response.action }
    /// Request header fields, names lowercased, in order.
    public var headers: [(String, String)]
    public var jwt: String?

    public func header(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
    public func responseHeader(_ name: String) -> String? {
        exchange.response.headers.first { $0.count == 2 && $0[0].lowercased() == name }?[1]
    }

    /// What the answer means (``ProviderFacts/classify(status:reason:action:)`` over ``APNsFacts/provider``).
    public var classification: Attempt.Classification { APNsFacts.provider.classify(status: status, reason: reason, action: action) }
    /// The fake accepted it (200 answered, possibly after a delay or with a GOAWAY after it).
    public var accepted: Bool { classification == .accepted }
    /// Answered with an error the sender must never retry (apns.md §7.2).
    public var neverRetry: Bool { classification == .dead || classification == .permanent }
    /// A 4xx request error that must not be resent unchanged (G5).
    public var requestError: Bool { classification == .requestError }
    /// Request headers minus those that legitimately change between identical retries.
    public var comparableRequest: String {
        let h = headers.filter { $0.0 != "authorization" && $0.0 != "apns-id" }.map { "\($0.0):\($0.1)" }
        return h.joined(separator: "\n") + "\n\n" + (exchange.request.body ?? exchange.request.bodyBase64 ?? "")
    }
}

/// A decoded provider JWT (no signature verification; the fake records validity in `auth`).
public struct DecodedJWT: Sendable {
    public var raw: String
    public var header: JSONValue
    public var claims: JSONValue
    public var signatureBytes: Int
    /// `iat` in whole seconds, in any form the fake accepts (integer, fraction, digit string).
    public var issuedAt: Int64? { claims["iat"].flatMap(NumericDateClaim.init)?.wholeSeconds }
    /// How `iat` was written; nil when it is not a date.
    public var issuedAtForm: NumericDateClaim.Form? { claims["iat"].flatMap(NumericDateClaim.init)?.form }
    public var issuer: String? { claims["iss"]?.stringValue }

    public init?(_ token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let h = Self.b64url(parts[0]), let c = Self.b64url(parts[1]),
              let hv = try? JSONDecoder().decode(JSONValue.self, from: h),
              let cv = try? JSONDecoder().decode(JSONValue.self, from: c) else { return nil }
        raw = token; header = hv; claims = cv
        signatureBytes = Self.b64url(parts[2])?.count ?? -1
    }

    static func b64url(_ s: Substring) -> Data? {
        var t = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while t.count % 4 != 0 { t += "=" }
        return Data(base64Encoded: t)
    }
}

/// The APNs part of a history, grouped the way the checks need it.
public struct APNsHistory: Sendable {
    /// The pushes the fake processed (answered, or ended by a fault rule).
    public var pushes: [APNsPush]
    /// Pushes the transport turned away unprocessed (REFUSED_STREAM, above a GOAWAY's
    /// last-stream-id): attempts at their message, but no request to judge (no body, no
    /// verified JWT).
    public var refused: [APNsPush]
    /// Every APNs exchange (pushes and anything else), for connection events.
    public var all: [Exchange]
    public var t0: Date

    public init(_ ctx: CheckContext) {
        all = ctx.history.filter { $0.provider == .apns }
        t0 = ctx.steps.first?.startedAt ?? all.first?.transport.headReceivedAt ?? Date(timeIntervalSince1970: 0)
        var byToken: [String: String] = [:]
        for d in ctx.scenario.devices where d.provider == "apns" { byToken[d.token.lowercased()] = d.id }
        let digested: [APNsPush] = all.compactMap { e in
            let path = e.request.path
            guard path.hasPrefix(APNsRequestValidator.pathPrefix) || e.endpoint == "apns.push" else { return nil }
            let token = e.token ?? String(path.dropFirst(APNsRequestValidator.pathPrefix.count))
            let device = byToken[token.lowercased()] ?? e.deviceID ?? token
            let start = e.transport.headReceivedAt
            let step = AttemptLog.step(at: start, ctx.steps)
            var end = e.respondedAt
            if let d = e.response.delaySeconds { end = max(end, e.receivedAt.addingTimeInterval(d)) }
            var reason = e.response.reason
            if reason == nil, let b = e.response.body, let v = try? JSONDecoder().decode(JSONValue.self, from: Data(b.utf8)) {
                reason = v["reason"]?.stringValue
            }
            let headers = e.request.headers.compactMap { $0.count == 2 ? ($0[0].lowercased(), $0[1]) : nil }
            var jwt: String?
            if let a = headers.first(where: { $0.0 == "authorization" })?.1 {
                let parts = a.split(separator: " ", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == "bearer" { jwt = String(parts[1]).trimmingCharacters(in: .whitespaces) }
            }
            return APNsPush(exchange: e, token: token, device: device, step: step, end: end, reason: reason,
                            headers: headers, jwt: jwt)
        }.sorted { ($0.start, $0.seq) < ($1.start, $1.seq) }
        pushes = digested.filter { $0.exchange.endpoint != DoublePipeline.refusedEndpoint }
        refused = digested.filter { $0.exchange.endpoint == DoublePipeline.refusedEndpoint }
    }

    /// Pushes per (send step, device), each list in arrival order: the attempts at one message.
    public var groups: [[APNsPush]] { AttemptLog.messages(pushes, step: \.step, device: \.device) }

    /// "d1 conn 3 stream 5 → 503 ServiceUnavailable at +0.512 s"
    public func describe(_ p: APNsPush) -> String {
        AttemptLog.describe(device: p.device, exchange: p.exchange, status: p.status, reason: p.reason, at: p.start, t0: t0)
    }
    public func time(_ d: Date) -> String { AttemptLog.time(d, t0: t0) }
    public func evidence(_ p: APNsPush, _ note: String = "") -> Evidence {
        Evidence(describe(p) + (note.isEmpty ? "" : "; " + note), seqs: [p.seq])
    }
}
