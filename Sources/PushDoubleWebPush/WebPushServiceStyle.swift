import PushDoubleJSON

/// One HTTP answer: status, header fields in order, body bytes. The transport adds
/// `content-length` and `date`; everything service-specific is here.
public struct WebPushResponse: Sendable, Equatable {
    /// One header field.
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) { self.name = name; self.value = value }
    }

    public var status: Int
    public var headers: [Header]
    public var body: [UInt8]

    public init(status: Int, headers: [Header] = [], body: [UInt8] = []) {
        self.status = status; self.headers = headers; self.body = body
    }

    /// The first value of `name` (ASCII case-insensitive).
    public func header(_ name: String) -> String? {
        let n = name.lowercased()
        return headers.first { $0.name.lowercased() == n }?.value
    }

    /// The body as UTF-8 text.
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// Why a subscription no longer takes messages (docs/webpush.md §1.2 404/410, §6).
public enum WebPushGoneReason: String, Sendable, Equatable, CaseIterable {
    /// Expired (RFC 8030 §7.3: MUST be 404; every real service uses 410, docs/webpush.md §1.2).
    case expired
    /// Unsubscribed by the user or the browser.
    case unsubscribed
    /// The endpoint never existed / token invalid (FCM 404, autopush 404 errno 102).
    case invalidEndpoint
    /// FCM's stale subscription: no browser connection for more than 9 months (§6.1).
    case stale
}

/// What the fake decided for one request; a ``WebPushServiceStyle`` renders it.
public enum WebPushOutcome: Sendable, Equatable {
    /// Accepted: `messageID` names the push message resource, `endpoint` is the
    /// subscription's, `ttl` the TTL requested.
    case accepted(messageID: String, endpoint: String, ttl: Int64)
    /// Refused by ``WebPushRequestValidator``.
    case rejected(WebPushRejection)
    /// Sent to a dead subscription.
    case gone(WebPushGoneReason)
    /// Throttled (RFC 8030 §8.4 429 + `Retry-After`; autopush 503; WNS 406).
    case throttled(retryAfterSeconds: Int)
}

/// Choices for what docs/webpush.md marks UNCONFIRMED or does not record.
public struct WebPushStyleOptions: Sendable, Equatable {
    /// FCM's `Location` on 201 (docs/webpush.md §6.1: present, format **UNCONFIRMED**).
    public enum FCMLocation: Sendable, Equatable {
        /// `<endpoint>/m/<messageID>` (autopush's recorded shape, §6.2): the default.
        case endpointMessage
        /// No `Location`.
        case omitted
    }

    public var fcmLocation = FCMLocation.endpointMessage
    /// Status of Apple's answer for a dead subscription (§6.3: 410 expected; one report of
    /// 403 for revoked subscriptions, **UNCONFIRMED**).
    public var appleGoneStatus = 410
    /// Body of Apple's dead-subscription answer (§6.3: **UNCONFIRMED**; empty by default;
    /// `{"reason":"Unregistered"}` is the unconfirmed reason docs/webpush.md names).
    public var appleGoneBody: [UInt8] = []
    /// Status of WNS's success (§6.4: 200 or 201 **UNCONFIRMED**; 201 = RFC 8030 §5).
    public var wnsSuccessStatus = 201
    /// autopush's largest TTL; larger requests are clamped without error and the used value
    /// goes in the `TTL` response header (§6.2: `MAX_NOTIFICATION_TTL_SECS = 30*86400`).
    public var mozillaMaxTTL: Int64 = 30 * 86_400

    public init() {}
}

/// How one real service answers: status, headers and body for every ``WebPushOutcome``,
/// byte for byte where docs/webpush.md records the bytes (§6). What it does not record is
/// answered with the RFC 8030 status (``WebPushRule/rfcStatus``) and an empty body, and is
/// listed in docs/webpush.md.
public struct WebPushServiceStyle: Sendable {
    public let service: WebPushService
    public var options: WebPushStyleOptions

    public init(_ service: WebPushService, options: WebPushStyleOptions = WebPushStyleOptions()) {
        self.service = service
        self.options = options
    }

    /// The answer to `outcome`.
    public func response(for outcome: WebPushOutcome) -> WebPushResponse {
        switch service {
        case .fcm: return FCMStyle.response(outcome, options)
        case .mozilla: return AutopushStyle.response(outcome, options)
        case .apple: return AppleStyle.response(outcome, options)
        case .wns: return WNSStyle.response(outcome, options)
        }
    }

    /// A reason this service does not have (a fault rule's own reason, or none) in the
    /// service's error shape with `status`: autopush's 5-key JSON (`errno` null, the reason as
    /// `message`), Apple's `{"reason":…}`, FCM's `text/plain` line, WNS's empty body. docs/webpush.md
    /// records no such answer; the shapes are the recorded ones of §6.1–§6.4 (docs/webpush.md).
    public func unknownReason(_ reason: String?, status: Int) -> WebPushResponse {
        switch service {
        case .mozilla: return AutopushStyle.render(AutopushStyle.Error(status: status, errno: nil, message: reason ?? AutopushStyle.reason(status)))
        case .apple:
            guard let reason else { return WebPushResponse(status: status) }
            let body = (["reason": .string(reason)] as JSONValue).compactJSONBytes
            return WebPushResponse(status: status, headers: [.init("Content-Type", "application/json")], body: body)
        case .fcm:
            guard let reason else { return WebPushResponse(status: status) }
            return WebPushResponse(status: status, headers: [.init("Content-Type", FCMStyle.goneContentType)], body: Array((reason + "\n").utf8))
        case .wns: return WebPushResponse(status: status)
        }
    }
}

/// Where the success `Location` of the push message resource points (RFC 8030 §5;
/// autopush's shape `<endpoint_url>/m/<message_id>`, docs/webpush.md §6.2).
func messageLocation(endpoint: String, messageID: String) -> String { endpoint + "/m/" + messageID }

/// 429 + `Retry-After` (RFC 8030 §8.4, docs/webpush.md §1.2).
func rfcThrottle(_ seconds: Int) -> WebPushResponse {
    WebPushResponse(status: 429, headers: [.init("Retry-After", String(seconds))])
}
