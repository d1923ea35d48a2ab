import PushDoubleCore
import PushDoubleJSON

/// A typed view of one FCM HTTP v1 send in the history (endpoint `fcm.send`), read from the
/// entry's raw `notification` JSON (docs/fcm.md "History"), which stays available as ``raw``.
public struct FCMMessageRecord: ExchangeView {
    public static var provider: ProviderID { .fcm }
    public static var endpoint: String { FCMFake.sendEndpoint }
    public let exchange: Exchange
    public init(viewing exchange: Exchange) { self.exchange = exchange }

    /// The project of the request path (`projects/<project>/messages:send`).
    public var project: String? { raw?["project"]?.stringValue }
    /// The service account whose access token authorised the send (nil when unauthenticated).
    public var account: String? { raw?["account"]?.stringValue }
    /// `message.token`, the registration token (nil for a topic or condition send).
    public var token: String? { raw?["target"]?["token"]?.stringValue }
    public var topic: String? { raw?["target"]?["topic"]?.stringValue }
    public var condition: String? { raw?["target"]?["condition"]?.stringValue }
    public var validateOnly: Bool { raw?["validateOnly"]?.boolValue ?? false }
    /// `message.notification` (title, body, image).
    public var notification: Notification? {
        guard let n = raw?["notification"], n.objectValue != nil else { return nil }
        return Notification(title: n["title"]?.stringValue, body: n["body"]?.stringValue, image: n["image"]?.stringValue)
    }
    /// `message.data` (FCM requires string values; others are left out here, kept in ``raw``).
    public var data: [String: String] {
        var d: [String: String] = [:]
        for (k, v) in raw?["data"]?.objectValue ?? [] { if let s = v.stringValue { d[k] = s } }
        return d
    }
    /// The platform blocks as sent (`message.android`, `message.apns`, `message.webpush`).
    public var android: JSONValue? { raw?["android"] }
    public var apns: JSONValue? { raw?["apns"] }
    public var webpush: JSONValue? { raw?["webpush"] }
    /// Why the body could not be read as a message (not JSON, no `message`).
    public var bodyError: String? { raw?["bodyError"]?.stringValue }
    /// The recorded reason of a refusal (`UNREGISTERED`, `INVALID_ARGUMENT`, …), nil on success.
    public var reason: String? { exchange.response.reason }
    /// The message name FCM answered on success (`projects/<project>/messages/<id>`).
    public var messageName: String? {
        guard exchange.response.status == 200, let body = exchange.response.body else { return nil }
        return (try? JSONValue.parse(body))?["name"]?.stringValue
    }

    /// `message.notification`.
    public struct Notification: Sendable, Equatable {
        public var title: String?
        public var body: String?
        public var image: String?
        public init(title: String? = nil, body: String? = nil, image: String? = nil) {
            self.title = title; self.body = body; self.image = image
        }
    }
}

extension Exchange {
    /// This entry as an FCM send, nil for any other entry (the token endpoint's included).
    public var fcmMessage: FCMMessageRecord? { FCMMessageRecord(self) }
}

extension HistoryStore {
    /// Every FCM send in the history, oldest first.
    public var fcmMessages: [FCMMessageRecord] {
        entries(FCMMessageRecord.self)
    }
}
