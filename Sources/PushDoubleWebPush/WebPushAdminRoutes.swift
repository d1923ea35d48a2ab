import Foundation
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport

/// The Web Push admin routes (the browser half, as a test drives it): subscriptions made the
/// way a browser makes them, each a device of provider `webpush`, and the messages the browser
/// half received.
///
/// - `POST /webpush/subscriptions` with `{}` or `{"id"?, "applicationServerKey"?, "service"?,
///   "endpointOrigin"?}` → 201 `{"id","endpoint","expirationTime":null,"keys":{"p256dh","auth"}}`:
///   a fresh P-256 key pair and 16-byte auth secret, the endpoint in the path shape of the
///   service (``WebPushService``). With an `applicationServerKey` (base64url VAPID public key)
///   the subscription is restricted (docs/webpush.md §5). `endpointOrigin` (``EndpointOrigin``):
///   `"local"` (default) puts the endpoint on the fake's bound URL, `"production"` on the real
///   service's origin (`https://updates.push.services.mozilla.com/wpush/v1/<token>`, reached
///   through the CONNECT proxy), or an `https://` origin of the service's real host
///   (`https://db5p.notify.windows.com` for WNS's `*` label).
/// - `GET /webpush/subscriptions` → every subscription in that form; `GET
///   /webpush/subscriptions/:id` → one.
/// - `GET /webpush/subscriptions/:id/messages` → `[{"receivedAt","ttl","urgency","topic",
///   "encoding","payload"}]`: every message the service accepted (2xx) for it, oldest first,
///   `payload` as the browser decrypted it (``WebPushReceivedMessage``).
///
/// Errors use the admin API's `{"error":"…"}` shape.
public struct WebPushAdminRoutes: Sendable {
    let double: DoubleState
    let defaultService: WebPushService
    /// The fake's bound URL (`https://127.0.0.1:8726`), nil before it is bound.
    let origin: @Sendable () -> String?

    public init(double: DoubleState, defaultService: WebPushService, origin: @escaping @Sendable () -> String?) {
        self.double = double; self.defaultService = defaultService; self.origin = origin
    }

    public var routes: [AdminRoute] {
        let me = self
        return [
            AdminRoute("POST", "/webpush/subscriptions") { request, _ in me.create(request) },
            AdminRoute("GET", "/webpush/subscriptions") { _, _ in me.list() },
            AdminRoute("GET", "/webpush/subscriptions/:id") { _, p in me.show(Self.decoded(p["id"])) },
            AdminRoute("GET", "/webpush/subscriptions/:id/messages") { _, p in me.messages(Self.decoded(p["id"])) },
        ]
    }

    static func decoded(_ raw: String?) -> String { (raw ?? "").removingPercentEncoding ?? (raw ?? "") }

    // MARK: POST /webpush/subscriptions

    /// The members a create request may carry.
    static let createKeys: Set<String> = ["id", "applicationServerKey", "service", "endpointOrigin"]

    /// Where a new subscription's endpoint points (`endpointOrigin` of the create request).
    public enum EndpointOrigin: Sendable, Equatable {
        /// The fake's bound URL (`https://127.0.0.1:8726`): reached directly.
        case local
        /// The service's real origin (``WebPushService/defaultOrigin``): reached through the
        /// CONNECT proxy, as a browser's subscription would be.
        case production
        /// An explicit origin of the service's real host (``WebPushService/isRealOrigin(_:)``).
        case origin(String)

        /// `"local"`, `"production"`, or an `https://host` origin the service owns; nil otherwise.
        public init?(_ text: String, service: WebPushService) {
            switch text {
            case "local": self = .local
            case "production": self = .production
            default:
                guard service.isRealOrigin(text) else { return nil }
                var o = text.lowercased()
                if o.hasSuffix(":443") { o.removeLast(4) }
                self = .origin(o)
            }
        }
    }

    func create(_ request: HTTPRequest) -> HTTPResponse {
        let body: JSONValue
        if request.body.allSatisfy({ $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }) { body = .object([]) } else {
            guard let parsed = try? JSONValue.parse(request.body), parsed.objectValue != nil else {
                return AdminRoute.error(400, "expected a JSON object {\"id\"?, \"applicationServerKey\"?, \"service\"?, \"endpointOrigin\"?}")
            }
            body = parsed
        }
        for (k, _) in body.objectValue ?? [] where !Self.createKeys.contains(k) {
            return AdminRoute.error(400, "\(k): unknown member; expected one of applicationServerKey, endpointOrigin, id, service")
        }
        var service = defaultService
        if let s = body["service"] {
            guard let v = s.stringValue.flatMap(WebPushService.init(rawValue:)) else {
                return AdminRoute.error(400, "service: expected one of mozilla, fcm, apple, wns")
            }
            service = v
        }
        var applicationServerKey: P256PublicKey? = nil
        if let k = body["applicationServerKey"] {
            guard let text = k.stringValue, let b = try? Base64URL.decode(text), let key = try? P256PublicKey(rawRepresentation: b) else {
                return AdminRoute.error(400, "applicationServerKey: expected base64url of a 65-byte uncompressed P-256 point")
            }
            applicationServerKey = key
        }
        if let id = body["id"], id.stringValue?.isEmpty ?? true { return AdminRoute.error(400, "id: expected a non-empty string") }
        var endpointOrigin = EndpointOrigin.local
        if let o = body["endpointOrigin"] {
            guard let v = o.stringValue.flatMap({ EndpointOrigin($0, service: service) }) else {
                return AdminRoute.error(400, "endpointOrigin: expected \"local\", \"production\" or an https:// origin of \(service.realHost)")
            }
            endpointOrigin = v
        }
        let origin: String
        switch endpointOrigin {
        case .production: origin = service.defaultOrigin
        case .origin(let o): origin = o
        case .local:
            guard let local = self.origin() else { return AdminRoute.error(503, "the webpush listener is not bound") }
            origin = local
        }
        do {
            let subscription = try WebPushSubscription(service: service, origin: origin, applicationServerKey: applicationServerKey)
            let id = body["id"]?.stringValue ?? "sub-" + String(subscription.token.prefix(12))
            let device = Device(id: id, provider: .webpush, token: subscription.token,
                                attributes: try WebPushDeviceSchema.attributes(of: subscription))
            let stored = try double.devices.register(device)
            return AdminRoute.json(201, Self.browserJSON(stored, origin: self.origin()) ?? .null)
        } catch let e as DeviceRegistryError {
            return AdminRoute.error(409, e.description)
        } catch {
            return AdminRoute.error(500, "could not make a subscription: \(error)")
        }
    }

    /// `{"id", …the browser's PushSubscription JSON}` of a `webpush` device, a bare-path
    /// endpoint on `origin` (the bound listener: where a sender reaches it now).
    static func browserJSON(_ device: Device, origin: String?) -> JSONValue? {
        guard var sub = device.attributes["subscription"]?.objectValue else { return nil }
        if let i = sub.firstIndex(where: { $0.0 == "endpoint" }), let e = sub[i].1.stringValue {
            sub[i].1 = .string(WebPushDeviceSchema.resolvedEndpoint(e, origin: origin))
        }
        return .object([("id", .string(device.id))] + sub)
    }

    // MARK: GET

    func list() -> HTTPResponse {
        let origin = self.origin()
        return AdminRoute.json(200, .array(double.devices.list(provider: .webpush).compactMap { Self.browserJSON($0, origin: origin) }))
    }

    func show(_ id: String) -> HTTPResponse {
        guard let d = double.devices.device(id: id), d.provider == .webpush, let json = Self.browserJSON(d, origin: origin()) else {
            return AdminRoute.error(404, "no webpush subscription \"\(id)\"")
        }
        return AdminRoute.json(200, json)
    }

    /// The accepted messages of subscription `id`, from the history.
    func messages(_ id: String) -> HTTPResponse {
        guard let d = double.devices.device(id: id), d.provider == .webpush else {
            return AdminRoute.error(404, "no webpush subscription \"\(id)\"")
        }
        let entries = double.history.query(HistoryQuery(provider: .webpush, device: id, endpoint: WebPushFake.endpoint))
        return AdminRoute.json(200, .array(entries.compactMap(Self.receivedMessage)))
    }

    /// One accepted exchange as the browser's received message, nil for a refused one.
    static func receivedMessage(_ e: Exchange) -> JSONValue? {
        guard let status = e.response.status, (200..<300).contains(status), let n = e.notification, n["payload"] != nil else { return nil }
        var m: [(String, JSONValue)] = [("receivedAt", .string(DateFormats.iso8601(e.receivedAt)))]
        for k in ["ttl", "urgency", "topic", "encoding", "payload"] { m.append((k, n[k] ?? .null)) }
        return .object(m)
    }
}
