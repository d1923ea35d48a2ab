import Foundation
import PushDoubleTransport

/// One provider fake as the core drives it.
///
/// The core owns the request path and calls a fake in fixed stages, so that every fault
/// kind works for every provider and is applied at exactly one place:
///
///     admit (auth ▶ validate) ─▶ fault rules ─▶ device state ─▶ deliver ─▶ history
///
/// A fake decides only what is provider-specific: how to authenticate and validate,
/// how each named reason and each device state is answered, to the byte.
///
/// Threading: called on event-loop threads, concurrently; implementations are Sendable
/// and keep per-connection state in `context.connection.storage`.
public protocol ProviderFake: Sendable {
    var provider: ProviderID { get }

    /// Authenticates and validates. Returns what the request is about (always, so the
    /// history can record it) and, if it must be refused before faults and device state
    /// are consulted, the refusal.
    func admit(_ request: HTTPRequest, context: RequestContext, services: ProviderServices) -> Admission

    /// Answers an admitted request given the state of the device it targets.
    func deliver(_ request: HTTPRequest, admission: Admission, device: DeviceLookup, context: RequestContext, services: ProviderServices) -> ProviderResponse

    /// Answers an admitted request that names several recipients (``Admission/recipients``),
    /// given each one's device state in the same order; the answer carries one
    /// ``ProviderResponse/recipients`` entry per recipient. Default: the single-recipient
    /// ``deliver(_:admission:device:context:services:)`` with the first device.
    func deliver(_ request: HTTPRequest, admission: Admission, devices: [DeviceLookup], context: RequestContext, services: ProviderServices) -> ProviderResponse

    /// The answer to a fault rule whose `reason` this provider does not know (or a rule with
    /// no reason and no body): the provider's own error shape around the reason (APNs
    /// `{"reason":"…"}`, Google's error envelope). Default: the reason as plain text.
    func unknownReasonResponse(reason: String?, status: Int, headers: HTTPHeaders) -> HTTPResponse

    /// Renders a named reason (e.g. "Unregistered", "UNAVAILABLE") exactly as this provider
    /// sends it, for fault rules of the kind "respond with reason X". `status` overrides
    /// the provider's status for that reason; `headers` are added (e.g. Retry-After).
    /// Returns nil if the reason is unknown to this provider.
    func errorResponse(reason: String, status: Int?, headers: HTTPHeaders, request: HTTPRequest, admission: Admission) -> HTTPResponse?

    /// Device state implied by a magic test token, if `token` is one (see the provider's docs page, e.g. docs/apns.md "Magic test tokens").
    func magicDevice(token: String) -> MagicDevice?

    /// Whether a token is well-formed for this provider (unknown well-formed tokens are
    /// active in an open world).
    func isWellFormedToken(_ token: String) -> Bool

    /// The reason a quota rule answers with when it names none (APNs "TooManyRequests",
    /// FCM "QUOTA_EXCEEDED", ...), rendered through `errorResponse`. Default: nil (a bare
    /// 429 with `Retry-After`). Added by the core work (additive).
    var rateLimitReason: String? { get }

    /// Called after a fault rule's `reason` was rendered through ``errorResponse(reason:status:headers:request:admission:)``
    /// as the answer to `request` on `context`'s connection (on that connection's loop), so
    /// the fake can apply the connection-level consequence its provider attaches to sending
    /// that reason (APNs: after `ExpiredProviderToken` the connection forgets its current
    /// provider token, so the fresh one the sender mints is not counted as an update).
    /// Not called for the fake's own answers, which apply such consequences themselves.
    /// Default: nothing. Added by the apns2 work (additive).
    func faultReasonRendered(_ reason: String, response: HTTPResponse, request: HTTPRequest, context: RequestContext)

    /// Shapes the answer to a request the transport refused before it was complete (body or
    /// header list over the listener's limits; `request` has no body). Returns what the
    /// request is about (for the history) with `refusal` set to the provider's answer, which
    /// must be a `.respond` action; nil keeps the transport's plain-text answer. Either way
    /// the refusal is recorded in the history. Default: nil. Added by the apns2 work (additive).
    func limitRefusal(_ violation: LimitViolation, request: HTTPRequest, context: RequestContext) -> Admission?
}

extension ProviderFake {
    public var rateLimitReason: String? { nil }
    public func deliver(_ request: HTTPRequest, admission: Admission, devices: [DeviceLookup], context: RequestContext,
                        services: ProviderServices) -> ProviderResponse {
        deliver(request, admission: admission, device: devices.first ?? DeviceLookup(deviceID: nil, state: .active, source: .openWorld),
                context: context, services: services)
    }
    public func unknownReasonResponse(reason: String?, status: Int, headers: HTTPHeaders) -> HTTPResponse {
        var h = headers
        guard let reason else { return HTTPResponse(status: status, headers: h, body: []) }
        h.replaceOrAdd(name: "content-type", value: "text/plain; charset=utf-8")
        return HTTPResponse(status: status, headers: h, body: Array((reason + "\n").utf8))
    }
    public func faultReasonRendered(_ reason: String, response: HTTPResponse, request: HTTPRequest, context: RequestContext) {}
    public func limitRefusal(_ violation: LimitViolation, request: HTTPRequest, context: RequestContext) -> Admission? { nil }
}

/// Shared services a fake may use while answering one request.
public struct ProviderServices: Sendable {
    public let clock: any DoubleClock
    public let devices: DeviceRegistry
    /// The request's one clock reading (taken by the pipeline when the request arrived):
    /// fakes date their checks and answers with it instead of reading the clock again.
    public let now: Date
    public init(clock: any DoubleClock, devices: DeviceRegistry, now: Date? = nil) {
        self.clock = clock; self.devices = devices; self.now = now ?? clock.now()
    }
}

/// What a fake made of a request in its admit stage.
/// Optional stored properties are spelled `Optional<T>` (no implicit nil, so `init` builds the
/// value in place instead of copying it out: docs/core.md "Optional properties …").
public struct Admission: Sendable {
    /// A stable endpoint id, e.g. "apns.push", "fcm.send", "oauth.token", "expo.send".
    public var endpoint: String
    /// The device token / registration token / subscription id the request targets (the
    /// first one when it names several).
    public var token: Optional<String>
    /// Every recipient token, in request order, when the request names several (an Expo batch,
    /// `to` as an array): the core looks each one up and the fake answers per recipient
    /// (``ProviderFake/deliver(_:admission:devices:context:services:)``). nil = just ``token``.
    public var recipients: [String]? = nil
    /// APNs topic, FCM project id, Expo project, Web Push audience.
    public var topic: Optional<String>
    /// Provider environment the request arrived at ("production" / "sandbox").
    public var environment: Optional<String>
    /// The broadcast channel the request addresses (APNs `apns-channel-id`), for fault rules' `channel`.
    public var channel: String? = nil
    /// The decoded identity the request authenticated with (or tried to).
    public var auth: Optional<AuthIdentity>
    /// The decoded notification (payload JSON plus provider headers), for history and checks.
    public var notification: Optional<JSONValue>
    /// Alternative to ``notification``: makes it from the request when the history is read,
    /// so the request path neither decodes the payload nor keeps the decoded tree (a pure
    /// function of the request; a thin function reference, so setting it allocates nothing).
    public var notificationMaker: (@Sendable (HTTPRequest) -> JSONValue?)? = nil
    /// Set when the request is refused here (auth or validation failure).
    public var refusal: Optional<ProviderResponse>
    /// The provider's message id as parsed once in admit (APNs `apns-id`, canonical form),
    /// for `deliver` and fault answers to reuse.
    public var messageID: String? = nil

    public init(endpoint: String, token: String? = nil, topic: String? = nil, environment: String? = nil,
                auth: AuthIdentity? = nil, notification: JSONValue? = nil, refusal: ProviderResponse? = nil) {
        self.endpoint = endpoint; self.token = token; self.topic = topic; self.environment = environment
        self.auth = auth; self.notification = notification; self.refusal = refusal
    }
}

/// A fake's answer plus why, for the history.
/// Optional stored properties are spelled `Optional<T>` (no implicit nil, so `init` builds the
/// value in place instead of copying it out: docs/core.md "Optional properties …").
public struct ProviderResponse: Sendable {
    public var action: ResponseAction
    /// The provider reason string, if the answer is an error ("BadDeviceToken").
    public var reason: Optional<String>
    /// Which stage decided it.
    public var decidedBy: Decision
    /// One outcome per recipient of a multi-recipient request, in request order (the core
    /// fills in the device ids, counts accepted ones as deliveries and records them).
    public var recipients: [RecipientOutcome]? = nil
    /// Called with the recorded history entry, so the fake can add facts later
    /// (``HistoryOutcome/annotate(_:_:)``: an Expo receipt fetched after the send). Setting it
    /// makes the entry annotatable.
    public var onRecorded: (@Sendable (HistoryOutcome) -> Void)? = nil
    public init(action: ResponseAction, reason: String? = nil, decidedBy: Decision) {
        self.action = action; self.reason = reason; self.decidedBy = decidedBy
    }
    public init(_ response: HTTPResponse, reason: String? = nil, decidedBy: Decision) {
        self.init(action: .respond(response), reason: reason, decidedBy: decidedBy)
    }
}

/// Which stage decided an answer: recorded in the history so a user can see why.
public struct Decision: Sendable, Codable, Equatable {
    /// The stage of the request path.
    /// `transport`: the transport turned the stream away unprocessed (``StreamRefusal``) before
    /// any other stage saw it.
    public enum Stage: String, Sendable, Codable { case auth, validation, fault, quota, device, accepted, transport }
    public var stage: Stage
    /// Rule id (fault/quota), device id (device), or a short description.
    public var detail: String?
    public init(_ stage: Stage, _ detail: String? = nil) { self.stage = stage; self.detail = detail }
}

/// The identity a request authenticated with, decoded for the history and the checks.
/// Optional stored properties are spelled `Optional<T>` (no implicit nil, so `init` builds the
/// value in place instead of copying it out: docs/core.md "Optional properties …").
public struct AuthIdentity: Sendable, Codable, Equatable {
    /// "apns-jwt", "oauth-assertion", "oauth-bearer", "vapid", "expo-access-token", "none".
    public var scheme: String
    public var keyID: Optional<String>
    public var issuer: Optional<String>
    /// JWT `iat`, seconds since the epoch.
    public var issuedAt: Optional<Int64>
    public var expiresAt: Optional<Int64>
    public var subject: Optional<String>
    public var audience: Optional<String>
    /// Whether the credential verified.
    public var valid: Bool
    /// Anything else worth keeping (alg, scope, the raw token's fingerprint, ...).
    public var extra: [String: String]
    public init(scheme: String, keyID: String? = nil, issuer: String? = nil, issuedAt: Int64? = nil, expiresAt: Int64? = nil,
                subject: String? = nil, audience: String? = nil, valid: Bool, extra: [String: String] = [:]) {
        self.scheme = scheme; self.keyID = keyID; self.issuer = issuer; self.issuedAt = issuedAt; self.expiresAt = expiresAt
        self.subject = subject; self.audience = audience; self.valid = valid; self.extra = extra
    }
}

/// A magic test token's meaning: the state it puts the device in with zero set-up.
public struct MagicDevice: Sendable, Equatable {
    public var state: DeviceState
    /// Extra attributes (e.g. APNs environment "sandbox" for a sandbox-only token).
    public var environment: String?
    public var topic: String?
    public init(state: DeviceState, environment: String? = nil, topic: String? = nil) {
        self.state = state; self.environment = environment; self.topic = topic
    }
}
