import PushDoubleCore
import PushDoubleJSON

/// A typed view of one APNs push in the history (endpoint `apns.push`), read from the entry's
/// raw `notification` JSON (docs/apns.md "History"), which stays available as ``raw``.
public struct APNsPushRecord: ExchangeView {
    public static var provider: ProviderID { .apns }
    public static var endpoint: String { APNsFake.endpoint }
    public let exchange: Exchange
    public init(viewing exchange: Exchange) { self.exchange = exchange }

    /// The device token from the request path.
    public var deviceToken: String? { exchange.token }
    /// Every `apns-*` request header as sent, by lowercase name.
    public var headers: [String: String] {
        var h: [String: String] = [:]
        for (name, value) in raw?["headers"]?.objectValue ?? [] { h[name] = value.stringValue }
        return h
    }
    public var topic: String? { headers["apns-topic"] }
    /// The effective push type (inferred from the topic when the header is absent).
    public var pushType: String? { raw?["pushType"]?.stringValue }
    /// The effective priority (10 when the header is absent).
    public var priority: Int? { raw?["priority"]?.intValue.map { Int($0) } }
    public var collapseID: String? { headers["apns-collapse-id"] }
    /// The JSON payload as sent (key order kept), nil when the body was not a JSON object.
    public var payload: JSONValue? { raw?["payload"] }
    /// The payload's `aps` dictionary.
    public var aps: JSONValue? { payload?["aps"] }
    /// `aps.alert`: a string alert is its body.
    public var alert: Alert? {
        guard let a = aps?["alert"] else { return nil }
        if let s = a.stringValue { return Alert(title: nil, subtitle: nil, body: s) }
        guard a.objectValue != nil else { return nil }
        return Alert(title: a["title"]?.stringValue, subtitle: a["subtitle"]?.stringValue, body: a["body"]?.stringValue)
    }
    public var badge: Int? { aps?["badge"]?.intValue.map { Int($0) } }
    public var sound: JSONValue? { aps?["sound"] }
    /// `aps.content-available` is 1.
    public var isContentAvailable: Bool { aps?["content-available"]?.intValue == 1 }
    /// Why the body could not be read as a payload (not JSON, not an object, no `aps`).
    public var payloadError: String? { raw?["payloadError"]?.stringValue }
    /// The answer's `reason` (`BadDeviceToken`, …), nil on success.
    public var reason: String? { exchange.response.reason }

    /// The visible part of an alert.
    public struct Alert: Sendable, Equatable {
        public var title: String?
        public var subtitle: String?
        public var body: String?
        public init(title: String? = nil, subtitle: String? = nil, body: String? = nil) {
            self.title = title; self.subtitle = subtitle; self.body = body
        }
    }
}

extension Exchange {
    /// This entry as an APNs push, nil for any other entry.
    public var apnsPush: APNsPushRecord? { APNsPushRecord(self) }
}

extension HistoryStore {
    /// Every APNs push in the history, oldest first.
    public var apnsPushes: [APNsPushRecord] {
        entries(APNsPushRecord.self)
    }
}
