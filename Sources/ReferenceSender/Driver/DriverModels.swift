import Foundation

/// The provider-neutral notification of driver protocol v1 (docs/conformance.md "Driver protocol v1"), plus the
/// optional `pushType` extension for APNs push types other than alert/background.
struct NeutralNotification: Sendable, Equatable {
    enum Priority: String, Sendable { case high, normal }

    var title: String?
    var subtitle: String?
    var body: String?
    var data: JSONObject?
    var collapseKey: String?
    var ttlSeconds: Int?
    var priority: Priority?
    var contentAvailable: Bool = false
    /// A sound name, or an APNs critical-alert sound dictionary, forwarded as given.
    var sound: JSON?
    var badge: Int?
    var threadId: String?
    var category: String?
    var channelId: String?
    var imageUrl: String?
    var link: String?
    var pushType: String?

    init() {}

    /// The field names of driver protocol v1's notification (the `fields` declaration's vocabulary).
    static let fieldNames = ["title", "subtitle", "body", "data", "collapseKey", "ttlSeconds", "priority", "contentAvailable", "sound", "badge",
                             "threadId", "category", "channelId", "imageUrl", "link", "pushType"]

    /// Decodes the `notification` param. Unknown members are ignored (forward
    /// compatibility); a known member of the wrong type is an invalid-params error.
    init(json: JSON) throws(DriverError) {
        guard let o = json.objectValue else { throw .invalidParams("notification must be an object") }
        func string(_ k: String) throws(DriverError) -> String? {
            guard let v = o[k], !v.isNull else { return nil }
            guard let s = v.stringValue else { throw .invalidParams("notification.\(k) must be a string") }
            return s
        }
        func int(_ k: String) throws(DriverError) -> Int? {
            guard let v = o[k], !v.isNull else { return nil }
            guard let n = v.int else { throw .invalidParams("notification.\(k) must be an integer") }
            return n
        }
        title = try string("title")
        subtitle = try string("subtitle")
        body = try string("body")
        if let d = o["data"], !d.isNull {
            guard let obj = d.jsonObject else { throw .invalidParams("notification.data must be an object") }
            data = obj
        }
        collapseKey = try string("collapseKey")
        ttlSeconds = try int("ttlSeconds")
        if let p = try string("priority") {
            guard let pr = Priority(rawValue: p) else { throw .invalidParams("notification.priority must be \"high\" or \"normal\"") }
            priority = pr
        }
        if let c = o["contentAvailable"], !c.isNull {
            if let b = c.boolValue { contentAvailable = b }
            else if let n = c.intValue { contentAvailable = n != 0 }
            else { throw .invalidParams("notification.contentAvailable must be a boolean") }
        }
        if let s = o["sound"], !s.isNull {
            guard s.stringValue != nil || s.objectValue != nil else { throw .invalidParams("notification.sound must be a string or an object") }
            sound = s
        }
        badge = try int("badge")
        threadId = try string("threadId")
        category = try string("category")
        channelId = try string("channelId")
        imageUrl = try string("imageUrl")
        link = try string("link")
        pushType = try string("pushType")
    }
}

/// One recipient of a `send` (docs/conformance.md "Driver protocol v1").
struct TargetDevice: Sendable, Equatable {
    enum Environment: String, Sendable { case production, sandbox }
    var id: String
    var provider: String
    var token: String
    var environment: Environment
    var topic: String?
    /// When the app registered this token (seconds since the epoch), if the runner said:
    /// a token known to be dead is used again when registered after it died (docs/conformance.md "Re-registered tokens",
    /// docs/conformance.md "Re-registered tokens").
    var registeredAt: Double?

    init(id: String, provider: String = "apns", token: String, environment: Environment = .production, topic: String? = nil,
         registeredAt: Double? = nil) {
        self.id = id; self.provider = provider; self.token = token; self.environment = environment; self.topic = topic
        self.registeredAt = registeredAt
    }

    init(json: JSON, index: Int) throws(DriverError) {
        guard let o = json.objectValue else { throw .invalidParams("devices[\(index)] must be an object") }
        guard let id = o["id"]?.stringValue else { throw .invalidParams("devices[\(index)].id must be a string") }
        self.id = id
        provider = o["provider"]?.stringValue ?? "apns"
        token = o["token"]?.stringValue ?? ""
        if let e = o["environment"], !e.isNull {
            guard let s = e.stringValue, let env = Environment(rawValue: s) else {
                throw .invalidParams("devices[\(index)].environment must be \"production\" or \"sandbox\"")
            }
            environment = env
        } else {
            environment = .production
        }
        if let t = o["topic"], !t.isNull {
            guard let s = t.stringValue else { throw .invalidParams("devices[\(index)].topic must be a string") }
            topic = s
        }
        if let r = o["registeredAt"], !r.isNull {
            guard let s = r.stringValue, let d = Self.parseISO8601(s) else {
                throw .invalidParams("devices[\(index)].registeredAt must be an ISO 8601 date")
            }
            registeredAt = d.timeIntervalSince1970
        }
    }

    /// `2026-12-01T13:00:00.123Z` (fractional seconds optional).
    static func parseISO8601(_ s: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: s) { return d }
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: s)
    }
}

/// A recipient of a `send` that is not a device (driver protocol v1 `targets`,
/// docs/conformance.md): an FCM topic or condition (fcm.md §2.1). Its result carries its id.
struct SendTarget: Sendable, Equatable {
    enum Address: Sendable, Equatable { case topic(String), condition(String) }
    var id: String
    var provider: String
    var address: Address

    init(id: String, provider: String = "fcm", address: Address) { self.id = id; self.provider = provider; self.address = address }

    /// `{"id","provider","topic"}` or `{"id","provider","condition"}`: exactly one address.
    init(json: JSON, index: Int) throws(DriverError) {
        guard let o = json.objectValue else { throw .invalidParams("targets[\(index)] must be an object") }
        guard let id = o["id"]?.stringValue else { throw .invalidParams("targets[\(index)].id must be a string") }
        guard let provider = o["provider"]?.stringValue else { throw .invalidParams("targets[\(index)].provider must be a string") }
        let topic = o["topic"].flatMap { $0.isNull ? nil : $0 }, condition = o["condition"].flatMap { $0.isNull ? nil : $0 }
        switch (topic, condition) {
        case (let t?, nil):
            guard let s = t.stringValue, !s.isEmpty else { throw .invalidParams("targets[\(index)].topic must be a non-empty string") }
            address = .topic(s)
        case (nil, let c?):
            guard let s = c.stringValue, !s.isEmpty else { throw .invalidParams("targets[\(index)].condition must be a non-empty string") }
            address = .condition(s)
        default: throw .invalidParams("targets[\(index)] needs exactly one of topic and condition")
        }
        self.id = id
        self.provider = provider
    }

    /// The target kinds this sender supports (the `initialize` result's `targets`).
    static let supportedKinds = ["fcm.topic", "fcm.condition"]
}

/// The sender's verdict for one device (the driver protocol's outcomes).
enum Outcome: String, Sendable {
    case sent, pending, dead, rejected, failed, skipped
}

/// One entry of the `send` result.
struct DeviceResult: Sendable, Equatable {
    var device: String
    var outcome: Outcome
    var reason: String?
    var providerMessageId: String?

    var json: JSON {
        var o: JSONObject = ["device": .string(device), "outcome": .string(outcome.rawValue)]
        if let reason { o["reason"] = .string(reason) }
        if let providerMessageId { o["providerMessageId"] = .string(providerMessageId) }
        return .object(o)
    }
}

/// A driver-protocol failure answered with a JSON-RPC error object.
enum DriverError: Error, Equatable {
    case parse(String)
    case invalidRequest(String)
    case methodNotFound(String)
    case invalidParams(String)
    case notInitialized
    case internalError(String)

    /// JSON-RPC 2.0 error code (§5.1); -32002 is in the implementation-defined range.
    var code: Int {
        switch self {
        case .parse: return -32700
        case .invalidRequest: return -32600
        case .methodNotFound: return -32601
        case .invalidParams: return -32602
        case .notInitialized: return -32002
        case .internalError: return -32603
        }
    }

    var message: String {
        switch self {
        case .parse(let m): return "Parse error: \(m)"
        case .invalidRequest(let m): return "Invalid Request: \(m)"
        case .methodNotFound(let m): return "Method not found: \(m)"
        case .invalidParams(let m): return "Invalid params: \(m)"
        case .notInitialized: return "Not initialized: call initialize with a provider configuration first"
        case .internalError(let m): return "Internal error: \(m)"
        }
    }
}
