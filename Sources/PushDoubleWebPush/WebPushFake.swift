import Foundation
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport

/// The settings of a ``WebPushFake`` (`fakeOptions.webpush`, see ``WebPushModule``).
public struct WebPushFakeConfiguration: Sendable {
    /// The service whose style answers requests to no recorded endpoint shape, fault rules
    /// without a request path, and subscriptions made without `"service"`.
    public var defaultService: WebPushService = .mozilla
    /// Require VAPID on every subscription, not only restricted ones.
    public var requireVAPID = false
    /// Largest body accepted; nil = each service's preset (RFC 8030's 4096, autopush 5630,
    /// WNS 5000; ``WebPushValidatorConfiguration/preset(for:)``).
    public var maxBodyBytes: Int? = nil
    /// `Retry-After` of throttled answers (rate-limited subscriptions, quota rules without one).
    /// autopush's recorded 120 s (docs/webpush.md §6.2) is the default for every service.
    public var retryAfterSeconds = 120
    /// Choices on what docs/webpush.md marks UNCONFIRMED (FCM `Location`, Apple's gone status, WNS's success).
    public var style = WebPushStyleOptions()

    public init() {}

    /// The validator settings for requests to `service`'s endpoints.
    public func validator(for service: WebPushService) -> WebPushValidatorConfiguration {
        var c = WebPushValidatorConfiguration.preset(for: service)
        c.requireVAPID = requireVAPID
        if let m = maxBodyBytes { c.maxBodyBytes = m }
        return c
    }
}

/// The Web Push service fake, and the browser behind every subscription: `POST <endpoint>`
/// checked as RFC 8030 / RFC 8292 and the imitated service (docs/webpush.md §1, §5, §6), answered in
/// that service's style, and every message it validated decrypted with the subscription's
/// keys (RFC 8291, §2–§4), one ``ProviderFake`` the core pipeline drives.
///
/// The service is the one whose path shape the request target has (``WebPushEndpointPath``:
/// Mozilla `/wpush/v1|v2/<t>`, FCM `/fcm/send/<t>`, Apple `/<t>`, WNS `/w/?token=<t>`); the
/// token names the subscription, a device of provider `webpush`.
///
/// Stages:
/// - ``admit(_:context:services:)``: endpoint shape, method, the registered subscription's
///   keys, then ``WebPushRequestValidator`` (TTL, Urgency, Topic, content coding, size, VAPID
///   against the origin reached), then the browser's decryption into the recorded notification.
/// - ``deliver(_:admission:device:context:services:)``: the device state as the service
///   answers it (``WebPushOutcome``); 201 otherwise.
/// - ``errorResponse(reason:status:headers:request:admission:)``: any ``WebPushRule``,
///   ``WebPushGoneReason`` or `throttled` for fault rules, in the request's service style.
///
/// Threading: Sendable; the only shared state is the cache of decoded subscription keys.
public final class WebPushFake: ProviderFake {
    public let provider: ProviderID = .webpush
    /// Stable endpoint id recorded in the history.
    public static let endpoint = "webpush.push"
    /// The reason of throttled answers (quota rules, rate-limited subscriptions, fault rules).
    public static let throttledReason = "throttled"

    public let configuration: WebPushFakeConfiguration
    /// Real browsers connected over the autopush WebSocket protocol, and their channels.
    public let autopush = AutopushHub()
    private let validators: [WebPushService: WebPushRequestValidator]
    private let styles: [WebPushService: WebPushServiceStyle]
    /// Decoded keys of registered subscriptions by device id, with the attributes they were
    /// decoded from (a replaced device is decoded again).
    private let keyCache = Locked<[String: (attributes: [String: JSONValue], parsed: WebPushDeviceSchema.Parsed)]>([:])
    private static let keyCacheLimit = 10_000

    public init(configuration: WebPushFakeConfiguration = WebPushFakeConfiguration()) {
        self.configuration = configuration
        var v: [WebPushService: WebPushRequestValidator] = [:]
        var s: [WebPushService: WebPushServiceStyle] = [:]
        let signatures = VAPIDSignatureCache()
        for service in WebPushService.allCases {
            v[service] = WebPushRequestValidator(configuration: configuration.validator(for: service), signatureCache: signatures)
            s[service] = WebPushServiceStyle(service, options: configuration.style)
        }
        validators = v
        styles = s
    }

    public var rateLimitReason: String? { Self.throttledReason }

    /// The answers of `service`.
    public func style(_ service: WebPushService) -> WebPushServiceStyle {
        styles[service] ?? WebPushServiceStyle(service, options: configuration.style)
    }

    // MARK: admit

    public func admit(_ request: HTTPRequest, context: RequestContext, services: ProviderServices) -> Admission {
        var admission = Admission(endpoint: Self.endpoint)
        guard let target = WebPushEndpointPath.parse(request.path) else {
            admission.refusal = answer(style(configuration.defaultService).response(for: .gone(.invalidEndpoint)),
                                       reason: WebPushGoneReason.invalidEndpoint.rawValue, .validation, "no subscription endpoint at \(request.path)")
            return admission
        }
        admission.token = target.token
        // The imitated service is the request's environment: recorded, matchable by fault rules.
        admission.environment = target.service.rawValue
        if let reached = Self.realService(of: request), reached != target.service {
            // A real service's host serves only its own path shape.
            admission.environment = reached.rawValue
            admission.refusal = answer(style(reached).response(for: .gone(.invalidEndpoint)), reason: WebPushGoneReason.invalidEndpoint.rawValue,
                                       .validation, "\(request.path) is not a \(reached.rawValue) endpoint path (reached \(reached.realHost))")
            return admission
        }
        let style = style(target.service)
        var notification: [(String, JSONValue)] = [("service", .string(target.service.rawValue)), ("headers", Self.sentHeaders(request))]
        admission.notification = .object(notification)
        guard request.method == "POST" else {
            // docs/webpush.md §6.4 records WNS's 405 for a method other than POST; the others are not recorded (the same, a choice).
            var r = HTTPResponse(status: 405, headers: ["allow": "POST"])
            r.body = []
            admission.refusal = ProviderResponse(r, reason: "methodNotAllowed", decidedBy: Decision(.validation, "\(request.method) is not POST"))
            return admission
        }
        let known = subscription(token: target.token, services: services)
        if let known, known.endpoint.path != target {
            admission.refusal = answer(style.response(forWrongShape: target, of: known.endpoint.path), reason: WebPushGoneReason.invalidEndpoint.rawValue,
                                       .validation, "subscription \(target.token) has the endpoint path \(known.endpoint.path.path)")
            return admission
        }
        let now = services.now
        let accepted: WebPushAcceptedRequest
        do {
            accepted = try validators[target.service]!.validate(Self.webPushRequest(request), applicationServerKey: known?.applicationServerKey,
                                                                origin: Self.origin(of: request), now: Int64(now.timeIntervalSince1970.rounded(.down)))
        } catch {
            admission.auth = Self.failedIdentity(request, error)
            admission.refusal = answer(style.response(for: .rejected(error)), reason: error.rule.rawValue,
                                       error.rule.isVAPID ? .auth : .validation, error.description)
            return admission
        }
        admission.auth = accepted.vapid.map(Self.identity) ?? AuthIdentity(scheme: "none", valid: true)
        admission.topic = accepted.vapid?.audience
        notification += Self.message(accepted, browser: known, at: now)
        admission.notification = .object(notification)
        return admission
    }

    /// The keys of the registered subscription with `token`, nil when it is not registered
    /// (magic, open world, unknown) or its attributes do not decode.
    func subscription(token: String, services: ProviderServices) -> WebPushDeviceSchema.Parsed? {
        let lookup = services.devices.lookup(provider: .webpush, token: token, fake: self, now: services.now)
        guard lookup.source == .registered, let id = lookup.deviceID, let device = services.devices.device(id: id) else { return nil }
        if let cached = keyCache.withLock({ $0[id] }), cached.attributes == device.attributes { return cached.parsed }
        guard let parsed = try? WebPushDeviceSchema.parse(device) else { return nil }
        keyCache.withLock { c in
            if c.count >= Self.keyCacheLimit { c.removeAll() }
            c[id] = (device.attributes, parsed)
        }
        return parsed
    }

    /// The validated message as the browser received it, for the history:
    /// `ttl, urgency, topic, encoding, payload` (``WebPushReceivedMessage``), plus the VAPID
    /// identity in ``Admission/auth``.
    static func message(_ accepted: WebPushAcceptedRequest, browser known: WebPushDeviceSchema.Parsed?, at now: Date) -> [(String, JSONValue)] {
        let payload: JSONValue
        if let subscription = known?.subscription {
            payload = WebPushBrowser(subscription: subscription).receive(accepted, at: now).payloadJSON
        } else if accepted.body.isEmpty {
            payload = .null
        } else if known?.autopush != nil {
            payload = ["browser": "autopush", "detail": "relayed to a real browser, which decrypts it (annotation \"browser\")"]
        } else if known != nil {
            payload = ["error": "noPrivateKey", "detail": "the subscription was registered without its privateKey; the double cannot decrypt"]
        } else {
            payload = ["error": "unknownSubscription", "detail": "no registered subscription has this token (magic or open world); nothing to decrypt with"]
        }
        var members: [(String, JSONValue)] = [("ttl", .int(accepted.ttl)), ("urgency", .string(accepted.urgency.rawValue)),
                ("topic", accepted.topic.map { .string($0) } ?? .null),
                ("encoding", accepted.contentEncoding.map { .string($0.rawValue) } ?? .null),
                ("bodySize", .int(Int64(accepted.body.count))), ("payload", payload)]
        // Safari reads a declarative message (docs/webpush.md "Declarative Web Push"): Apple-style subscriptions only.
        if known?.subscription?.service == .apple, payload["base64"] == .bool(false), let text = payload["data"]?.stringValue {
            let reading = WebPushDeclarativeMessage.interpret(text)
            if reading != .ordinary { members.append(("declarative", WebPushDeclarativeMessage.json(reading))) }
        }
        return members
    }

    // MARK: deliver

    public func deliver(_ request: HTTPRequest, admission: Admission, device: DeviceLookup, context: RequestContext,
                        services: ProviderServices) -> ProviderResponse {
        let service = admission.environment.flatMap(WebPushService.init(rawValue:)) ?? configuration.defaultService
        let style = style(service)
        let who = device.deviceID ?? admission.token ?? "?"
        func gone(_ reason: WebPushGoneReason, _ detail: String) -> ProviderResponse {
            answer(style.response(for: .gone(reason)), reason: reason.rawValue, .device, "\(who): \(detail)")
        }
        let magic = device.source == .magic ? admission.token.flatMap(WebPushMagicTokens.entry(for:)) : nil
        if device.source == .unknown { return gone(.invalidEndpoint, "unknown subscription (closed world)") }
        switch device.state {
        case .active: break
        case .unregistered: return gone(magic?.gone ?? .unsubscribed, "unsubscribed")
        case .expired: return gone(magic?.gone ?? .expired, magic?.gone == .stale ? "stale" : "expired")
        case .invalid: return gone(.invalidEndpoint, "invalid endpoint")
        case .otherApp:
            let r = WebPushRejection(.vapidKeyMismatch, "the subscription belongs to another application server")
            return answer(style.response(for: .rejected(r)), reason: r.rule.rawValue, .device, "\(who): \(r.detail)")
        case .rateLimited:
            return answer(style.response(for: .throttled(retryAfterSeconds: configuration.retryAfterSeconds)),
                          reason: Self.throttledReason, .device, "\(who): rate-limited subscription")
        }
        let ttl = admission.notification?["ttl"]?.intValue ?? 0
        let outcome = WebPushOutcome.accepted(messageID: Self.messageID(), endpoint: Self.origin(of: request) + request.path, ttl: ttl)
        var accepted = answer(style.response(for: outcome), reason: nil, .accepted, device.source.rawValue)
        if device.source == .registered, let token = admission.token, let channel = subscription(token: token, services: services)?.autopush {
            accepted.onRecorded = autopush.relay(body: request.body, fields: request.headers, channel: channel, ttl: ttl, now: services.now)
        }
        return accepted
    }

    // MARK: fault rules

    /// Any ``WebPushRule`` (`vapidExpired`, `payloadTooLarge`, …), ``WebPushGoneReason``
    /// (`unsubscribed`, `expired`, `invalidEndpoint`, `stale`) or `throttled`, answered as the
    /// request's service answers it; `status` overrides the status, `headers` replace the
    /// style's fields of the same name (a rule's `Retry-After`). A reason the services do not
    /// have is answered here too, in the request's service shape
    /// (``WebPushServiceStyle/unknownReason(_:status:)``), so only requests to no endpoint
    /// shape fall back to ``unknownReasonResponse(reason:status:headers:)``.
    /// The reasons ``errorResponse(reason:status:headers:request:admission:)`` renders in every
    /// service's style: each ``WebPushRule``, each ``WebPushGoneReason`` and ``throttledReason``.
    public static var faultReasons: [String] {
        WebPushRule.allCases.map(\.rawValue) + WebPushGoneReason.allCases.map(\.rawValue) + [throttledReason]
    }

    public func errorResponse(reason: String, status: Int?, headers: HTTPHeaders, request: HTTPRequest,
                              admission: Admission) -> HTTPResponse? {
        guard let service = admission.environment.flatMap(WebPushService.init(rawValue:)) else { return nil }
        let style = style(service)
        var r: WebPushResponse
        if let rule = WebPushRule(rawValue: reason) {
            r = style.response(for: .rejected(WebPushRejection(rule, "fault rule")))
        } else if let g = WebPushGoneReason(rawValue: reason) {
            r = style.response(for: .gone(g))
        } else if reason == Self.throttledReason {
            let seconds = headers.first(name: "retry-after").flatMap { Int($0) } ?? configuration.retryAfterSeconds
            r = style.response(for: .throttled(retryAfterSeconds: seconds))
        } else {
            r = style.unknownReason(reason, status: status ?? 500)
        }
        if let status { r.status = status }
        return Self.http(r, adding: headers)
    }

    /// A rule without a reason, or a request to no endpoint shape: the default service's shape.
    public func unknownReasonResponse(reason: String?, status: Int, headers: HTTPHeaders) -> HTTPResponse {
        Self.http(style(configuration.defaultService).unknownReason(reason, status: status), adding: headers)
    }

    /// A body over the transport's limit is a `payloadTooLarge` in the service's style (413);
    /// other transport limits keep the transport's answer (no service records one).
    public func limitRefusal(_ violation: LimitViolation, request: HTTPRequest, context: RequestContext) -> Admission? {
        guard violation.kind == .bodyTooLarge else { return nil }
        var admission = Admission(endpoint: Self.endpoint)
        let target = WebPushEndpointPath.parse(request.path)
        admission.token = target?.token
        admission.environment = target?.service.rawValue
        let r = WebPushRejection(.payloadTooLarge, violation.message)
        admission.refusal = answer(style(target?.service ?? configuration.defaultService).response(for: .rejected(r)),
                                   reason: r.rule.rawValue, .validation, r.detail)
        return admission
    }

    // MARK: tokens

    public func magicDevice(token: String) -> MagicDevice? { WebPushMagicTokens.device(for: token) }

    /// A non-empty base64url token of at most 512 characters (docs/webpush.md records no format).
    public func isWellFormedToken(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.count <= 512 && token.utf8.allSatisfy(WebPushRequestValidator.isBase64URLByte)
    }

    // MARK: helpers

    private func answer(_ r: WebPushResponse, reason: String?, _ stage: Decision.Stage, _ detail: String) -> ProviderResponse {
        ProviderResponse(Self.http(r), reason: reason, decidedBy: Decision(stage, detail))
    }

    /// The transport's response for a style's answer (names lowercased for HTTP/2; the
    /// transport adds `content-length`). `extra` fields replace the style's of the same name.
    static func http(_ r: WebPushResponse, adding extra: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var h = HTTPHeaders(r.headers.map { ($0.name.lowercased(), $0.value) })
        for f in extra { h.replaceOrAdd(name: f.name.lowercased(), value: f.value) }
        return HTTPResponse(status: r.status, headers: h, body: r.body)
    }

    /// The origin the request reached: what VAPID `aud` must be (docs/webpush.md §5, "the origin of
    /// the push resource", `scheme://host[:port]`), and the origin of the `Location` of an
    /// accepted message. `https://` + `:authority` / `Host`, without the default port `:443`
    /// (an origin omits it, RFC 6454 §6.1): through the CONNECT proxy that is the real service's
    /// origin (`https://updates.push.services.mozilla.com`), at the local URL `https://127.0.0.1:8726`.
    static func origin(of request: HTTPRequest) -> String {
        var authority = request.authority ?? ""
        // A cleartext request of a plaintext-mode double: the origin its `http://` endpoint names.
        if request.info.connection.tls == nil, request.scheme == "http" {
            if authority.hasSuffix(":80") { authority.removeLast(3) }
            return "http://" + authority
        }
        if authority.hasSuffix(":443") { authority.removeLast(4) }
        return "https://" + authority
    }

    /// The real service whose host the request reached (a real host in `:authority` / `Host`
    /// wins, then one in SNI, as the APNs fake picks its environment), nil at a local address (``WebPushService/fromHost(_:)``).
    static func realService(of request: HTTPRequest) -> WebPushService? {
        if let a = request.authority, let s = WebPushService.fromHost(a) { return s }
        return request.info.connection.tls?.serverName.flatMap(WebPushService.fromHost)
    }

    static func webPushRequest(_ request: HTTPRequest) -> WebPushRequest {
        WebPushRequest(headers: request.headers.map { WebPushRequest.Header(name: $0.name, value: $0.value) }, body: request.body)
    }

    /// The RFC 8030 / RFC 8291 / draft headers as sent (names lowercased), for the history.
    static let recordedHeaderNames: Set<String> = ["ttl", "urgency", "topic", "content-encoding", "encryption", "crypto-key", "content-type", "prefer"]
    static func sentHeaders(_ request: HTTPRequest) -> JSONValue {
        .object(request.headers.compactMap { f in
            let n = f.name.lowercased()
            return recordedHeaderNames.contains(n) ? (n, .string(f.value)) : nil
        })
    }

    static func identity(_ v: VAPIDIdentity) -> AuthIdentity {
        let form: String
        switch v.form { case .vapid: form = "vapid"; case .legacy(let s): form = s }
        return AuthIdentity(scheme: "vapid", keyID: Base64URL.encode(v.publicKey.rawRepresentation), expiresAt: v.expiresAt,
                            subject: v.subject, audience: v.audience, valid: true, extra: ["form": form])
    }

    static func failedIdentity(_ request: HTTPRequest, _ r: WebPushRejection) -> AuthIdentity {
        let sent = request.headers.first(name: "authorization") != nil
        return AuthIdentity(scheme: sent ? "vapid" : "none", valid: !r.rule.isVAPID,
                            extra: r.rule.isVAPID ? ["rule": r.rule.rawValue, "detail": r.detail] : [:])
    }

    /// A push message resource id: 16 random bytes (two draws of the system generator), base64url.
    static func messageID() -> String {
        var g = SystemRandomNumberGenerator()
        let (a, b) = (g.next(), g.next())
        return Base64URL.encode((0..<16).map { i in UInt8(truncatingIfNeeded: (i < 8 ? a : b) >> (UInt64(i % 8) * 8)) })
    }
}
