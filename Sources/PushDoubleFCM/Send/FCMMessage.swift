import PushDoubleJSON

/// A `map<string,string>` of a message (`data`, `headers`), entries in document order.
public struct FCMStringMap: Sendable, Equatable {
    /// One map entry.
    public struct Entry: Sendable, Equatable {
        public var key: String
        public var value: String
        public init(key: String, value: String) { self.key = key; self.value = value }
    }
    public var entries: [Entry]
    public init(_ entries: [Entry] = []) { self.entries = entries }
    public init(_ pairs: KeyValuePairs<String, String>) { entries = pairs.map { Entry(key: $0.key, value: $0.value) } }
    /// The value of the first entry named `key`.
    public subscript(key: String) -> String? { entries.first { $0.key == key }?.value }
    /// The value of the first entry whose name equals `key` ignoring ASCII case (HTTP header maps).
    public func value(forHeader key: String) -> String? {
        let k = key.lowercased()
        return entries.first { $0.key.lowercased() == k }?.value
    }
    public var isEmpty: Bool { entries.isEmpty }
    public var count: Int { entries.count }
    /// UTF-8 bytes of every key and value.
    public var byteCount: Int { entries.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count } }
}

/// The message's one target (docs/fcm.md §2.1: a union, exactly one of these).
public enum FCMTarget: Sendable, Equatable {
    case token(String)
    /// As written; with `/topics/` when the configuration accepts that prefix.
    case topic(String)
    case condition(String)
    /// Firebase Installation ID (docs/fcm.md §2.1: newer, absent from the 2023 discovery document).
    case fid(String)

    /// The proto field name (`token`, `topic`, `condition`, `fid`).
    public var fieldName: String {
        switch self { case .token: return "token"; case .topic: return "topic"; case .condition: return "condition"; case .fid: return "fid" }
    }
    public var value: String {
        switch self { case .token(let v), .topic(let v), .condition(let v), .fid(let v): return v }
    }
}

/// `Notification {title, body, image}` (docs/fcm.md §2.1).
public struct FCMNotification: Sendable, Equatable {
    public var title: String?
    public var body: String?
    public var image: String?
    public init(title: String? = nil, body: String? = nil, image: String? = nil) { self.title = title; self.body = body; self.image = image }
}

/// `fcm_options` of a message or platform block (docs/fcm.md §2.1, §2.2, §2.4, §2.5).
public struct FCMOptions: Sendable, Equatable {
    public var analyticsLabel: String?
    /// `apns.fcm_options.image` only.
    public var image: String?
    /// `webpush.fcm_options.link` only; must be HTTPS (§2.5).
    public var link: String?
    public init(analyticsLabel: String? = nil, image: String? = nil, link: String? = nil) {
        self.analyticsLabel = analyticsLabel; self.image = image; self.link = link
    }
}

/// `AndroidConfig.priority` (docs/fcm.md §2.2): `NORMAL` | `HIGH`, the SDKs send lowercase.
public enum FCMAndroidPriority: String, Sendable, Equatable {
    case normal = "NORMAL"
    case high = "HIGH"
}

/// `AndroidConfig` (docs/fcm.md §2.2).
public struct FCMAndroidConfig: Sendable, Equatable {
    public var collapseKey: String?
    public var priority: FCMAndroidPriority?
    public var ttl: FCMDuration?
    public var restrictedPackageName: String?
    /// Overrides `message.data` (§2.2).
    public var data: FCMStringMap?
    public var notification: FCMAndroidNotification?
    public var fcmOptions: FCMOptions?
    public var directBootOK: Bool?
    public var bandwidthConstrainedOK: Bool?
    public var restrictedSatelliteOK: Bool?
    public init() {}
}

/// `AndroidNotification.light_settings` (docs/fcm.md §2.3).
public struct FCMLightSettings: Sendable, Equatable {
    /// `{red, green, blue, alpha}`, components as given (missing ones nil).
    public var red: Double?, green: Double?, blue: Double?, alpha: Double?
    public var lightOnDuration: FCMDuration?
    public var lightOffDuration: FCMDuration?
    public init() {}
}

/// `AndroidNotification` (docs/fcm.md §2.3). String fields are kept by their snake_case proto
/// name in `strings` (e.g. `strings["channel_id"]`), booleans in `flags`.
public struct FCMAndroidNotification: Sendable, Equatable {
    /// The string fields of §2.3 that were present, by snake_case name.
    public var strings: [String: String] = [:]
    /// The boolean fields of §2.3 that were present, by snake_case name.
    public var flags: [String: Bool] = [:]
    public var bodyLocArgs: [String]?
    public var titleLocArgs: [String]?
    /// RFC 3339 text as sent.
    public var eventTime: String?
    public var vibrateTimings: [FCMDuration]?
    public var notificationCount: Int32?
    public var lightSettings: FCMLightSettings?
    /// `notification_priority`, one of ``FCMAndroidNotification/notificationPriorities``.
    public var notificationPriority: String?
    /// `visibility`, one of ``FCMAndroidNotification/visibilities``.
    public var visibility: String?
    /// `proxy`, one of ``FCMAndroidNotification/proxies``.
    public var proxy: String?
    public init() {}

    public var title: String? { strings["title"] }
    public var body: String? { strings["body"] }

    /// Enum values of docs/fcm.md §2.3.
    public static let notificationPriorities: Set<String> = ["PRIORITY_UNSPECIFIED", "PRIORITY_MIN", "PRIORITY_LOW", "PRIORITY_DEFAULT", "PRIORITY_HIGH", "PRIORITY_MAX"]
    public static let visibilities: Set<String> = ["VISIBILITY_UNSPECIFIED", "PRIVATE", "PUBLIC", "SECRET"]
    public static let proxies: Set<String> = ["PROXY_UNSPECIFIED", "ALLOW", "DENY", "IF_PRIORITY_LOWERED"]
}

/// `ApnsConfig` (docs/fcm.md §2.4).
public struct FCMApnsConfig: Sendable, Equatable {
    /// APNs request headers; FCM defaults `apns-expiration` to 30 days and `apns-priority` to 10.
    public var headers: FCMStringMap?
    /// Arbitrary JSON object, `aps` included, as sent.
    public var payload: JSONValue?
    public var fcmOptions: FCMOptions?
    public init() {}
}

/// `WebpushConfig` (docs/fcm.md §2.5).
public struct FCMWebpushConfig: Sendable, Equatable {
    /// RFC 8030 headers, e.g. `"TTL": "15"`.
    public var headers: FCMStringMap?
    public var data: FCMStringMap?
    /// Arbitrary Web Notification JSON object, as sent.
    public var notification: JSONValue?
    public var fcmOptions: FCMOptions?
    public init() {}
}

/// A validated `SendMessageRequest` (docs/fcm.md §2): the message and `validate_only`.
/// Optional stored properties are spelled `Optional<T>` (no implicit nil, so `init` builds the
/// value in place instead of copying it out: docs/core.md "Optional properties …").
public struct FCMMessage: Sendable, Equatable {
    public var target: FCMTarget
    public var notification: Optional<FCMNotification>
    public var data: Optional<FCMStringMap>
    public var android: Optional<FCMAndroidConfig>
    public var apns: Optional<FCMApnsConfig>
    public var webpush: Optional<FCMWebpushConfig>
    public var fcmOptions: Optional<FCMOptions>
    /// `validate_only` / `validateOnly`; false when absent.
    public var validateOnly: Bool
    /// Paths of fields that are not in docs/fcm.md's schema (e.g. `message.android.foo`), kept
    /// when the configuration accepts them.
    public var unknownFields: [String]
    /// The size measured against the payload limit (docs/fcm.md §4.5), by the configured measure.
    public var payloadBytes: Int

    public init(target: FCMTarget, notification: FCMNotification? = nil, data: FCMStringMap? = nil,
                android: FCMAndroidConfig? = nil, apns: FCMApnsConfig? = nil, webpush: FCMWebpushConfig? = nil,
                fcmOptions: FCMOptions? = nil, validateOnly: Bool = false, unknownFields: [String] = [], payloadBytes: Int = 0) {
        self.target = target; self.notification = notification; self.data = data; self.android = android
        self.apns = apns; self.webpush = webpush; self.fcmOptions = fcmOptions; self.validateOnly = validateOnly
        self.unknownFields = unknownFields; self.payloadBytes = payloadBytes
    }

    /// No `notification` and no `apns.payload.aps.alert`: a data-only message (docs/fcm.md §2.1,
    /// the `apns-priority: 5` rule).
    public var isDataOnly: Bool {
        guard notification == nil else { return false }
        if let aps = apns?.payload?["aps"], aps["alert"] != nil { return false }
        return true
    }
}
