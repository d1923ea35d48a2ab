import Foundation
import PushDoubleCore
import PushDoubleWebPush

/// Web Push on the conformance seam: the judge that turns the Web Push fake's exchanges into
/// ``Attempt``s (one per request: a delivery request names one subscription), the facts the
/// classifier needs, and the Web Push checks — including the one no real push service can
/// make: the browser half decrypted what was accepted.
///
/// Reads only the history the fake records (docs/webpush.md "The wiring"): `environment` =
/// the imitated service, `response.reason` = the rule or gone reason, `notification` = the
/// headers as sent plus the message as the browser received it, `auth` = the VAPID identity.
public struct WebPushConformance: ConformanceProvider {
    public init() {}

    public var provider: ProviderID { .webpush }
    public var facts: ProviderFacts { WebPushFacts.provider }

    public func attempts(_ ctx: CheckContext) -> [Attempt] {
        let h = WebPushHistory(ctx)
        return (h.requests + h.refused).map { r in
            let retryAfter = r.responseHeader("retry-after")
            let classification = facts.classify(status: r.status, reason: r.reason, action: r.exchange.response.action)
            return Attempt(provider: provider, exchange: r.exchange, recipient: 0, token: r.token, device: r.device, step: r.step,
                           classification: classification, status: r.status, reason: r.reason, retryAfter: retryAfter,
                           backoff: facts.backoff(status: r.status, reason: r.reason, retryAfter: retryAfter, classification: classification),
                           endsConnection: ProviderFacts.connectionEndingActions.contains(r.exchange.response.action),
                           pool: r.exchange.request.authority ?? "?", start: r.start, end: r.end, comparableRequest: r.comparable)
        }
    }

    public var checks: [CheckDefinition] {
        [WebPushChecks.decryptable, WebPushChecks.payloadContent, WebPushChecks.vapid, WebPushChecks.ttl, WebPushChecks.urgency,
         WebPushChecks.topic, WebPushChecks.aes128gcm, WebPushChecks.payloadLimits, WebPushChecks.declarative,
         WebPushChecks.browserDecrypted]
    }

    /// A subscription a real Firefox makes (a device with `"browser": "firefox"`).
    public func liveDevices(for scenario: ConformanceScenario) -> (any LiveDevices)? {
        scenario.devices.first { $0.provider == provider.rawValue && $0.isLive }.map { WebPushBrowserDevices(device: $0) }
    }

    /// Web Push shipped no checks before the seam.
    public var aliases: [String: String] { [:] }

    /// A scenario subscription's bare-path endpoint (a scenario cannot know the bound port,
    /// docs/webpush.md "Subscriptions as devices") gets the fake's URL (`providers.webpush.url`);
    /// `privateKey` — the browser's secret the fake decrypts with — is not the sender's.
    public func senderDevice(_ device: JSONValue, configuration: SenderConfiguration?) -> JSONValue {
        guard case .object(var members) = device else { return device }
        members.removeAll { $0.0 == "privateKey" }
        let url = configuration?.providers.first { $0.id == provider.rawValue }?.parameters["url"]?.stringValue
        if let url, let i = members.firstIndex(where: { $0.0 == "subscription" }), case .object(var sub) = members[i].1,
           let j = sub.firstIndex(where: { $0.0 == "endpoint" }), let e = sub[j].1.stringValue, e.hasPrefix("/") {
            // Told the real hosts (`conform --real-hosts`): each endpoint gets its own service's
            // real origin, as a browser's subscription has it; else the fake's URL.
            let real = WebPushService.allCases.contains { $0.isRealOrigin(url) }
            let origin = real ? WebPushEndpointPath.parse(e)?.service.defaultOrigin ?? url : url
            sub[j].1 = .string(origin + e)
            members[i].1 = .object(sub)
        }
        return .object(members)
    }
}

/// What the Web Push fake answers, in the classifier's words (webpush.md §1.2, §6).
public enum WebPushFacts {
    /// The fake's reasons for a dead subscription (`WebPushGoneReason`): 404/410 in every style.
    public static let goneReasons = Set(WebPushGoneReason.allCases.map(\.rawValue))
    /// RFC 8030 §7.3 404 (expired), 410 everywhere (§1.2, §6): the subscription is gone.
    public static let goneStatuses: Set<Int> = [404, 410]

    public static let provider = ProviderFacts(
        deadReasons: goneReasons, deadStatuses: goneStatuses,
        // 413: the message is too large for the service; resending it cannot help (§1.2).
        neverRetryReasons: [WebPushRule.payloadTooLarge.rawValue], neverRetryStatuses: [413],
        // WNS throttles with 406 (§6.4), a 4xx that asks for a later retry, not a request error.
        retryableReasons: [WebPushFake.throttledReason])

    /// The largest body a push service must accept (RFC 8030 §7.2, webpush.md §1.2).
    public static let maxBodyBytes = WebPushValidatorConfiguration().maxBodyBytes
}

/// One Web Push delivery request of a case, with what the checks read of it.
public struct WebPushRequestRecord: Sendable {
    public var exchange: Exchange
    public var token: String
    /// The scenario device (the registered subscription's id), else the token.
    public var device: String
    public var step: Int
    public var end: Date
    public var reason: String?
    /// Request header fields, names lowercased, in order.
    public var headers: [(String, String)]

    public var status: Int? { exchange.response.status }
    public var seq: UInt64 { exchange.seq }
    public var start: Date { exchange.transport.headReceivedAt }
    public var notification: JSONValue? { exchange.notification }
    public func header(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
    public func responseHeader(_ name: String) -> String? {
        exchange.response.headers.first { $0.count == 2 && $0[0].lowercased() == name }?[1]
    }
    /// The decrypted text, when the browser half could read the message as UTF-8: the fake's
    /// own decryption, or for a message relayed to a real browser what its service worker read.
    public var plaintext: String? {
        if let read = exchange.annotations?["serviceWorker"] { return read["text"]?.stringValue }
        guard notification?["payload"]?["base64"]?.boolValue == false else { return nil }
        return notification?["payload"]?["data"]?.stringValue
    }

    /// The request minus what changes between identical retries: the credentials and the
    /// ciphertext (fresh salt and sender key every time), replaced by the decrypted text.
    var comparable: String {
        let varying: Set<String> = ["authorization", "content-length", "crypto-key", "encryption"]
        let h = headers.filter { !varying.contains($0.0) }.map { "\($0.0): \($0.1)" }.sorted().joined(separator: "\n")
        return exchange.request.method + " " + exchange.request.path + "\n" + h + "\n" + (plaintext ?? "<\(exchange.request.bodySize) bytes>")
    }
}

/// The Web Push part of a history.
public struct WebPushHistory: Sendable {
    public var requests: [WebPushRequestRecord]
    /// Requests the transport turned away unprocessed (REFUSED_STREAM, above a GOAWAY's
    /// last-stream-id): attempts at their message, nothing else to judge.
    public var refused: [WebPushRequestRecord]
    public var t0: Date

    public init(_ ctx: CheckContext) {
        t0 = AttemptLog.timeZero(ctx)
        requests = Self.records(ctx, endpoint: WebPushFake.endpoint)
        refused = Self.records(ctx, endpoint: DoublePipeline.refusedEndpoint)
    }

    static func records(_ ctx: CheckContext, endpoint: String) -> [WebPushRequestRecord] {
        var byToken: [String: String] = [:]
        for d in ctx.scenario.devices where d.provider == ProviderID.webpush.rawValue { byToken[d.token] = d.id }
        let ids = Set(byToken.values)
        return ctx.history.filter { $0.provider == .webpush && $0.endpoint == endpoint }.map { e in
            // A refused request was never admitted: its token is read from its endpoint path as
            // the fake reads it (every service's shape, WNS's `?token=` too).
            let token = e.token ?? WebPushEndpointPath.parse(e.request.path)?.token ?? e.request.path
            let start = e.transport.headReceivedAt
            var end = e.respondedAt
            if let d = e.response.delaySeconds { end = max(end, e.receivedAt.addingTimeInterval(d)) }
            let headers = e.request.headers.compactMap { $0.count == 2 ? ($0[0].lowercased(), $0[1]) : nil }
            // A real browser's channel is the fake's device `browser-<channelID>`; the case names
            // it by the scenario device the browser plays (found by its token).
            let device = e.deviceID.flatMap { ids.contains($0) ? $0 : nil } ?? byToken[token] ?? e.deviceID ?? token
            return WebPushRequestRecord(exchange: e, token: token, device: device,
                                        step: AttemptLog.step(at: start, ctx.steps), end: end, reason: e.response.reason, headers: headers)
        }.sorted { ($0.start, $0.seq) < ($1.start, $1.seq) }
    }

    public func evidence(_ r: WebPushRequestRecord, _ note: String) -> Evidence {
        Evidence(AttemptLog.describe(device: r.device, exchange: r.exchange, status: r.status, reason: r.reason, at: r.start, t0: t0)
                 + "; " + note, seqs: [r.seq])
    }
}

/// The Web Push checks (docs/webpush.md §1, §2, §5).
enum WebPushChecks {
    /// Runs `judge` on the requests `filter` keeps; nil = fine, text = violation.
    static func perRequest(_ ctx: CheckContext, filter: (WebPushRequestRecord) -> Bool = { _ in true }, none: String, summary: String,
                           violation: String, _ judge: (WebPushRequestRecord) -> String?) -> Finding {
        let h = WebPushHistory(ctx)
        let rs = h.requests.filter(filter)
        if rs.isEmpty { return .notApplicable(none) }
        var problems: [Evidence] = []
        for r in rs { if let why = judge(r) { problems.append(h.evidence(r, why)) } }
        return .judged(problems, held: "\(rs.count) request(s) \(summary)", violated: violation)
    }

    static func accepted(_ r: WebPushRequestRecord) -> Bool { r.status.map { (200..<300).contains($0) } ?? false }

    static let decryptable = CheckDefinition(
        id: "webpush.decryptable", title: "Every accepted message decrypts with the subscription's keys (the browser's side)",
        reference: "webpush.md §2, §3; RFC 8291 §4 (a push service cannot tell; the browser drops it)", severity: .must
    ) { ctx in
        perRequest(ctx, filter: accepted, none: "no accepted messages", summary: "decrypted by the browser",
                   violation: "the browser could not decrypt a message the service accepted") { r in
            guard let p = r.notification?["payload"] else { return "no payload recorded" }
            if p.isNull { return nil }  // a message without a body
            if let e = p["error"]?.stringValue { return "\(e): \(p["detail"]?.stringValue ?? "")" }
            return nil
        }
    }

    static let payloadContent = CheckDefinition(
        id: "webpush.payload-content", title: "The decrypted message carries the notification's title and body",
        reference: "docs/conformance.md \"Driver protocol v1\" (the neutral notification reaches the device)", severity: .must
    ) { ctx in
        perRequest(ctx, filter: { accepted($0) && $0.step >= 0 }, none: "no accepted messages", summary: "carry the notification",
                   violation: "a delivered message lacks the notification's content") { r in
            let n = ctx.notification(step: r.step)
            let wanted = [NotificationField.title, .body].filter { ctx.fields.canExpress($0, for: .webpush) }
                .compactMap { n?[$0.rawValue]?.stringValue }
            guard !wanted.isEmpty else { return nil }
            guard let text = r.plaintext else { return "no decrypted text (\(r.notification?["payload"].map { $0.compactJSON } ?? "nothing"))" }
            // A JSON payload may escape any character (`\u00e9`): its decoded strings count too.
            let decoded = (try? JSONValue.parse(text)).map(WebPushChecks.strings) ?? []
            let missing = wanted.filter { w in
                !text.contains(w) && !text.contains(JSONValue.string(w).compactJSON.dropFirst().dropLast()) && !decoded.contains { $0.contains(w) }
            }
            return missing.isEmpty ? nil : "decrypted text \(text.prefix(120)) lacks \(missing)"
        }
    }

    /// Every string value in a JSON document (object members' values and array elements, nested).
    static func strings(_ v: JSONValue) -> [String] {
        switch v {
        case .string(let s): return [s]
        case .array(let a): return a.flatMap(strings)
        case .object(let o): return o.flatMap { strings($0.1) }
        default: return []
        }
    }

    static let vapid = CheckDefinition(
        id: "webpush.vapid", title: "VAPID on every request: ES256 with k, aud = the endpoint's origin, exp ≤ 24 h, sub, k = the subscription's key",
        reference: "webpush.md §5 (RFC 8292 §2–§4), §6.2, §6.3", severity: .must
    ) { ctx in
        perRequest(ctx, none: "no requests", summary: "with valid VAPID", violation: "VAPID missing or refused") { r in
            if r.exchange.auth?.scheme == "none" || r.header("authorization") == nil { return "no VAPID Authorization" }
            if r.exchange.decidedBy.stage == .auth { return "refused: \(r.reason ?? "?") (\(r.exchange.auth?.extra["detail"] ?? ""))" }
            return nil
        }
    }

    /// The longest TTL a sender needs to pass on as asked: four weeks, the longest any push
    /// service keeps a message (FCM's maximum); a longer request may be capped to it.
    static let longestTTL = 2_419_200

    static let ttl = CheckDefinition(
        id: "webpush.ttl", title: "Every request carries TTL (delta-seconds), the notification's ttlSeconds when it names one",
        reference: "RFC 8030 §5.2 (a push service MUST refuse a request without TTL); docs/webpush.md \"Request validation\"", severity: .must
    ) { ctx in
        perRequest(ctx, none: "no requests", summary: "with TTL as asked", violation: "TTL missing, malformed or not the one asked for") { r in
            guard let t = r.header("ttl") else { return "no TTL header" }
            let v = t.trimmingCharacters(in: .whitespaces)
            guard !v.isEmpty, v.allSatisfy(\.isASCII), v.allSatisfy(\.isNumber) else { return "TTL \"\(t)\"" }
            // Compared with what the runner asked for, not merely present (unless the sender
            // declared it cannot express a TTL: then only its presence and form are judged).
            guard ctx.fields.canExpress(.ttlSeconds, for: .webpush),
                  let want = ctx.notification(step: r.step)?["ttlSeconds"]?.intValue else { return nil }
            let got = Int(v) ?? -1
            if got == Int(want) || (Int(want) > longestTTL && got >= longestTTL) { return nil }
            return "TTL \(v) for ttlSeconds \(want)"
        }
    }

    static let urgency = CheckDefinition(
        id: "webpush.urgency", title: "Urgency follows the notification's priority (high → high, otherwise not high)",
        reference: "webpush.md §1.1 (RFC 8030 §5.3)", severity: .should
    ) { ctx in
        if let reason = ctx.fields.inexpressible(.priority, for: .webpush) { return .notApplicable(reason) }
        return perRequest(ctx, filter: { $0.step >= 0 }, none: "no requests", summary: "with a fitting Urgency",
                          violation: "Urgency does not follow the priority") { r in
            let priority = ctx.notification(step: r.step)?["priority"]?.stringValue ?? "normal"
            let u = r.header("urgency") ?? "normal"
            if priority == "high" { return u == "high" ? nil : "priority high sent with Urgency \(r.header("urgency") ?? "absent (normal)")" }
            return u == "high" ? "priority \(priority) sent with Urgency high" : nil
        }
    }

    static let topic = CheckDefinition(
        id: "webpush.topic", title: "Topic, when sent, is at most 32 characters of the base64url alphabet",
        reference: "webpush.md §1.1 (RFC 8030 §5.4: any other value MUST get 400)", severity: .must
    ) { ctx in
        perRequest(ctx, filter: { $0.header("topic") != nil }, none: "no request carried a Topic", summary: "with a valid Topic",
                   violation: "invalid Topic") { r in
            let t = r.header("topic") ?? ""
            return t.utf8.count <= 32 && t.utf8.allSatisfy(WebPushRequestValidator.isBase64URLByte) ? nil : "Topic \"\(t)\""
        }
    }

    static let aes128gcm = CheckDefinition(
        id: "webpush.aes128gcm", title: "Messages use Content-Encoding aes128gcm (RFC 8291), not the legacy aesgcm draft",
        reference: "webpush.md §2, §4 (aesgcm is still accepted)", severity: .should
    ) { ctx in
        perRequest(ctx, filter: { $0.exchange.request.bodySize > 0 }, none: "no request with a body", summary: "in aes128gcm",
                   violation: "legacy or unknown content coding") { r in
            let c = r.header("content-encoding")?.lowercased() ?? "absent"
            return c == "aes128gcm" ? nil : "Content-Encoding \(c)"
        }
    }

    static let payloadLimits = CheckDefinition(
        id: "webpush.payload-limits", title: "No request body over 4096 bytes (too large: refused locally, never sent)",
        reference: "webpush.md §1.2, §2.2 (RFC 8030 §7.2; at most 3993 bytes of plaintext)", severity: .should
    ) { ctx in
        perRequest(ctx, none: "no requests", summary: "within 4096 bytes", violation: "oversized request sent") { r in
            r.exchange.request.bodySize > WebPushFacts.maxBodyBytes ? "body of \(r.exchange.request.bodySize) bytes" : nil
        }
    }
}
