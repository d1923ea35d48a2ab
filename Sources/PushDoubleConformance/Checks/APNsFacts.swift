import Foundation
import PushDoubleAPNs
import PushDoubleCore
import PushDoubleCrypto

/// APNs wire facts the checks judge against. The values come from the fake's own tables in
/// PushDoubleAPNs (copied there from /work/shared/protocols/apns.md); do not restate them here.
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
    /// apns.md §3: topic suffix per push type (nil = not judged: `widgets` is UNCONFIRMED,
    /// `mdm` topics are certificate-defined).
    public static let topicSuffix: [String: String?] = Dictionary(uniqueKeysWithValues: APNsPushType.allCases.map {
        ($0.rawValue, $0 == .mdm || $0 == .widgets ? nil : $0.topicSuffix)
    })
    /// apns.md §7.2 Apple's retry rule: never retry these.
    public static let neverRetryReasons = Set(APNsReason.allCases.filter(\.isPermanent).map(\.rawValue))
    /// Per-recipient permanent errors: the token is unusable (README G4, A1, A2, A14).
    public static let deadTokenReasons = wire([.unregistered, .expiredToken, .badDeviceToken, .deviceTokenNotForTopic])
    /// 4xx reasons that are not request errors a sender must not resend unchanged (README G5).
    public static let retryable4xxReasons = wire([
        .expiredProviderToken, .tooManyProviderTokenUpdates, .tooManyRequests, .idleTimeout, .unrelatedKeyIdInToken,
    ])
    private static func wire(_ reasons: [APNsReason]) -> Set<String> { Set(reasons.map(\.rawValue)) }
    /// Fault actions after which the sender never got the response (retry expected).
    public static let lostResponseActions: Set<String> = ["drop", "reset", "truncate", "stall"]
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

    /// The fake accepted it (200 answered, possibly after a delay or with a GOAWAY after it).
    public var accepted: Bool { status == 200 && !APNsFacts.lostResponseActions.contains(action) }
    /// Answered with an error the sender must never retry (apns.md §7.2).
    public var neverRetry: Bool {
        if let r = reason, APNsFacts.neverRetryReasons.contains(r) { return true }
        return status == 410 || status == 413
    }
    /// The token is unusable from now on.
    public var deadToken: Bool {
        if let r = reason, APNsFacts.deadTokenReasons.contains(r) { return true }
        return status == 410
    }
    /// A 4xx request error that must not be resent unchanged (G5).
    public var requestError: Bool {
        guard let s = status, (400..<500).contains(s), !accepted else { return false }
        if let r = reason, APNsFacts.retryable4xxReasons.contains(r) { return false }
        return s != 429
    }
    /// The request failed in a way that calls for a retry (429, 5xx, connection trouble).
    public var transientFailure: Bool {
        if accepted { return false }
        if APNsFacts.lostResponseActions.contains(action) { return true }
        if action == "goaway" && status == nil { return true }
        guard let s = status else { return false }
        return s == 429 || s >= 500
    }
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
    public var pushes: [APNsPush]
    /// Every APNs exchange (pushes and anything else), for connection events.
    public var all: [Exchange]
    public var t0: Date

    public init(_ ctx: CheckContext) {
        all = ctx.history.filter { $0.provider == .apns }
        let sendSteps = ctx.steps.filter { $0.type == "send" }
        t0 = ctx.steps.first?.startedAt ?? all.first?.transport.headReceivedAt ?? Date(timeIntervalSince1970: 0)
        var byToken: [String: String] = [:]
        for d in ctx.scenario.devices where d.provider == "apns" { byToken[d.token.lowercased()] = d.id }
        pushes = all.compactMap { e in
            let path = e.request.path
            guard path.hasPrefix(APNsRequestValidator.pathPrefix) || e.endpoint == "apns.push" else { return nil }
            let token = e.token ?? String(path.dropFirst(APNsRequestValidator.pathPrefix.count))
            let device = byToken[token.lowercased()] ?? e.deviceID ?? token
            let start = e.transport.headReceivedAt
            let step = sendSteps.last(where: { $0.startedAt <= start })?.index ?? -1
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
    }

    /// Pushes per (send step, device), each list in arrival order: the attempts at one message.
    public var groups: [[APNsPush]] {
        var order: [String] = []
        var map: [String: [APNsPush]] = [:]
        for p in pushes {
            let k = "\(p.step)|\(p.device)"
            if map[k] == nil { order.append(k) }
            map[k, default: []].append(p)
        }
        return order.map { map[$0]! }
    }

    /// "#12 d1 conn 3 stream 5 → 503 ServiceUnavailable at +0.512 s"
    public func describe(_ p: APNsPush) -> String {
        var answer: String
        if let s = p.status { answer = "\(s)" + (p.reason.map { " " + $0 } ?? "") } else { answer = p.action }
        if p.action != "respond" && p.status != nil { answer += " (\(p.action))" }
        return "\(p.device) conn \(p.connection) stream \(p.stream) → \(answer) at \(time(p.start))"
    }
    public func time(_ d: Date) -> String { String(format: "+%.3f s", d.timeIntervalSince(t0)) }
    public func evidence(_ p: APNsPush, _ note: String = "") -> Evidence {
        Evidence(describe(p) + (note.isEmpty ? "" : "; " + note), seqs: [p.seq])
    }
}

/// Parses a Retry-After value: delta-seconds or an HTTP-date (RFC 9110 §10.2.3), as the
/// number of seconds to wait counted from `now`.
public func retryAfterSeconds(_ value: String, now: Date) -> Double? {
    let v = value.trimmingCharacters(in: .whitespaces)
    if let n = Int(v), n >= 0 { return Double(n) }
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.timeZone = TimeZone(identifier: "GMT")
    for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
        f.dateFormat = format
        if let d = f.date(from: v) { return max(0, d.timeIntervalSince(now)) }
    }
    return nil
}
