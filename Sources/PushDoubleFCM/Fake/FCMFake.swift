import Foundation
import Synchronization
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport

extension ProviderID {
    /// Firebase Cloud Messaging (HTTP v1) with its Google OAuth2 token endpoint.
    public static let fcm: ProviderID = "fcm"
}

/// The FCM fake: one ``ProviderFake`` serving both halves of a sender's FCM code, routed by
/// the service a request addresses (``FCMService``):
///
/// - `POST /v1/projects/{project}/messages:send` (endpoint `fcm.send`): Bearer access token
///   (401 / 403 in Google's envelope), the message checked by ``FCMSendRequestValidator``,
///   the token's device state, `validate_only`, the `{"name": …}` answer (docs/fcm.md §1–§4).
/// - `POST /token` (endpoint `oauth.token`): the RS256 JWT-bearer grant of
///   ``GoogleTokenEndpoint`` (docs/fcm.md §6); access tokens from ``FCMAccountDirectory/store``.
///
/// The assertion and the access token are checked in ``admit(_:context:services:)``; the token
/// is issued (and the message id made) in ``deliver(_:admission:device:context:services:)``,
/// so a fault rule on `oauth.token` answers without minting.
public final class FCMFake: ProviderFake {
    public let provider: ProviderID = .fcm
    /// Endpoint ids recorded in the history (fault rules match on them).
    public static let sendEndpoint = "fcm.send"
    public static let tokenEndpoint = "oauth.token"
    /// Listener names (README port table).
    public static let sendListener = "fcm"
    public static let tokenListener = "google-oauth"
    /// The real host names (docs/fcm.md §1, §6.2), recognised in `:authority` / `Host` and SNI.
    public static let sendHost = "fcm.googleapis.com"
    public static let tokenHost = "oauth2.googleapis.com"

    public let configuration: FCMConfiguration
    public let accounts: FCMAccountDirectory
    public let validator: FCMSendRequestValidator
    /// Message-id tags: a counter mixed by SplitMix64 from a random start (one `getrandom`
    /// per fake, not per send).
    private let tagCounter = Atomic<UInt64>(UInt64.random(in: 0...UInt64.max))
    /// The last accepted `Authorization` header (``AcceptedBearer``).
    let lastAcceptedBearer = Mutex<AcceptedBearer?>(nil)
    /// Topic subscriptions made through the topic-management APIs (docs/fcm.md "Topic subscriptions").
    public let subscriptions = FCMTopicSubscriptions()

    public init(configuration: FCMConfiguration = FCMConfiguration()) throws {
        self.configuration = configuration
        let store = FCMAccessTokenStore(lifetime: configuration.accessTokenLifetimeSeconds)
        var known: [GoogleKnownAccount] = []
        for sa in configuration.serviceAccounts {
            known.append(try GoogleKnownAccount(serviceAccount: sa, projectNumbers: configuration.projectNumbers))
        }
        accounts = FCMAccountDirectory(accounts: known, store: store, configuration: configuration.tokenEndpoint)
        validator = FCMSendRequestValidator(configuration: configuration.validator)
    }

    /// Which half of the fake a request addresses.
    public enum FCMService: Sendable, Equatable {
        case send, token
        /// The Instance ID API (`iid.googleapis.com`, topic management).
        case iid
    }

    /// A real host name in `:authority` / `Host` wins, then one in SNI, then the listener
    /// (as the APNs fake picks its environment).
    public func service(of request: HTTPRequest) -> FCMService {
        if let a = request.authority, let s = Self.service(host: a) { return s }
        if let sni = request.info.connection.tls?.serverName, let s = Self.service(host: sni) { return s }
        if request.info.connection.listener == Self.tokenListener { return .token }
        // A base URL without Google's host names: the Instance ID API's paths are its own.
        return request.path.hasPrefix("/iid/") ? .iid : .send
    }

    /// `fcm.googleapis.com` / `oauth2.googleapis.com`, with or without a port, any case.
    static func service(host: String) -> FCMService? {
        return UTF8Bytes.of(host) { u -> FCMService? in
            var n = 0
            while n < u.count, u[n] != UInt8(ascii: ":") { n += 1 }
            func matches(_ expected: [UInt8]) -> Bool {
                guard n == expected.count else { return false }
                for i in 0..<n where (u[i] >= 0x41 && u[i] <= 0x5A ? u[i] | 0x20 : u[i]) != expected[i] { return false }
                return true
            }
            if matches(sendHostBytes) { return .send }
            if matches(tokenHostBytes) { return .token }
            if matches(iidHostBytes) { return .iid }
            return nil
        }
    }
    private static let sendHostBytes = Array(sendHost.utf8)
    private static let tokenHostBytes = Array(tokenHost.utf8)
    private static let iidHostBytes = Array(iidHost.utf8)

    // MARK: ProviderFake

    public func admit(_ request: HTTPRequest, context: RequestContext, services: ProviderServices) -> Admission {
        let now = services.now.timeIntervalSince1970
        switch service(of: request) {
        case .send where Self.isTopicSubscriptionRequest(request): return admitTopicSubscription(request, now: now)
        case .send where Self.pathOnly(request) == Self.legacySendPath: return admitLegacy(request)
        case .send: return admitSend(request, now: now, devices: services.devices)
        case .token: return admitToken(request, now: now)
        case .iid: return admitInstanceID(request, now: now)
        }
    }

    public func deliver(_ request: HTTPRequest, admission: Admission, device: DeviceLookup, context: RequestContext,
                        services: ProviderServices) -> ProviderResponse {
        switch admission.endpoint {
        case Self.tokenEndpoint: return deliverToken(request, now: services.now.timeIntervalSince1970)
        case Self.topicSubscriptionEndpoint: return deliverTopicSubscription(request, admission: admission, device: device, services: services)
        case Self.iidRelationEndpoint, Self.iidInfoEndpoint: return deliverInstanceID(request, admission: admission, device: device, services: services)
        default: return deliverSend(request, admission: admission, device: device, now: services.now)
        }
    }

    /// Requests naming several tokens: an Instance ID batch, or a topic or condition send
    /// fanned out to its audience (``Admission/recipients``).
    public func deliver(_ request: HTTPRequest, admission: Admission, devices: [DeviceLookup], context: RequestContext,
                        services: ProviderServices) -> ProviderResponse {
        switch admission.endpoint {
        case Self.iidBatchAddEndpoint, Self.iidBatchRemoveEndpoint:
            return deliverInstanceIDBatch(request, admission: admission, devices: devices, services: services)
        default:
            return deliverTopicSend(request, admission: admission, devices: devices, now: services.now)
        }
    }

    public var rateLimitReason: String? { FCMErrorCode.quotaExceeded.rawValue }

    public func magicDevice(token: String) -> MagicDevice? { FCMMagicTokens.device(for: token) }

    /// docs/fcm.md records no format for registration tokens: 1 to 4096 visible ASCII characters
    /// (no space or control character) is PushDouble's accepting rule.
    public func isWellFormedToken(_ token: String) -> Bool { Self.isWellFormedToken(token) }

    public static func isWellFormedToken(_ token: String) -> Bool {
        return UTF8Bytes.of(token) { b in
            guard let base = b.baseAddress, !b.isEmpty && b.count <= 4096 else { return false }
            // Eight bytes at a time: a byte below 0x21 ((w - 0x21…) & ~w & 0x80…) or above
            // 0x7E ((w + 0x01…) | w) & 0x80…), both exact tests (Hacker's Delight 6-1).
            var i = 0
            while i + 8 <= b.count {
                let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                let below = (w &- 0x2121_2121_2121_2121) & ~w, above = (w &+ 0x0101_0101_0101_0101) | w
                if (below | above) & 0x8080_8080_8080_8080 != 0 { return false }
                i += 8
            }
            while i < b.count {
                if b[i] &- 0x21 >= 0x5E { return false }  // outside 0x21...0x7E
                i += 1
            }
            return true
        }
    }

    /// The next message-id tag (distinct for 2⁶⁴ sends, spread over the whole range).
    func nextMessageTag() -> UInt64 {
        var z = tagCounter.wrappingAdd(0x9E37_79B9_7F4A_7C15, ordering: .relaxed).newValue
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    // MARK: shared helpers

    /// The path without its query, found on the UTF-8 bytes (the request's
    /// `pathWithoutQuery` scans Characters).
    static func pathOnly(_ request: HTTPRequest) -> Substring {
        let p = request.path
        let q = UTF8Bytes.of(p) { b -> Int? in
            for i in 0..<b.count where b[i] == UInt8(ascii: "?") { return i }
            return nil
        }
        guard let q else { return p[...] }
        return p[..<p.utf8.index(p.utf8.startIndex, offsetBy: q)]
    }

    /// A JSON answer with Google's content type (docs/fcm.md §1, §4.2).
    static func jsonResponse(_ status: Int, _ body: [UInt8], headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        // No extra header (the usual case): the one prebuilt header list, shared.
        if headers.isEmpty { return HTTPResponse(status: status, headers: jsonHeaders, body: body) }
        var h = headers
        h.replaceOrAdd(name: "content-type", value: GoogleResponseHeaders.jsonContentType)
        return HTTPResponse(status: status, headers: h, body: body)
    }
    /// `content-type: application/json; charset=UTF-8` alone.
    static let jsonHeaders: HTTPHeaders = {
        var h = HTTPHeaders()
        h.replaceOrAdd(name: "content-type", value: GoogleResponseHeaders.jsonContentType)
        return h
    }()

    /// An error in Google's envelope (docs/fcm.md §4.1, §4.2), recorded under its FcmError code, or
    /// its canonical status when it has none.
    static func envelopeResponse(_ envelope: GoogleErrorEnvelope, headers: HTTPHeaders = HTTPHeaders(),
                                 stage: Decision.Stage, detail: String? = nil) -> ProviderResponse {
        let reason = envelope.fcmErrorCode?.rawValue ?? envelope.status
        return ProviderResponse(jsonResponse(envelope.code, envelope.body(), headers: headers), reason: reason,
                                decidedBy: Decision(stage, detail ?? reason))
    }

    /// The answer to a path neither endpoint serves: 404 NOT_FOUND in Google's envelope
    /// without details. docs/fcm.md records no body for unknown paths; this is PushDouble's choice.
    static func notFound(_ request: HTTPRequest) -> ProviderResponse {
        let e = GoogleErrorEnvelope(code: 404, message: "Requested entity was not found.", status: .notFound, details: nil)
        return envelopeResponse(e, stage: .validation, detail: "no such endpoint: \(request.method) \(pathOnly(request))")
    }
}
