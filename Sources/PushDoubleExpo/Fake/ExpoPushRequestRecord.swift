import PushDoubleCore
import PushDoubleJSON

/// A typed view of one Expo send request in the history (endpoint `expo.send`): the messages as
/// sent (the entry's raw `notification`, the decoded request body, kept as ``raw``) and the
/// tickets answered (the response body's `data`).
public struct ExpoPushRequestRecord: ExchangeView {
    public static var provider: ProviderID { .expo }
    public static var endpoint: String { ExpoSendFake.endpoint }
    public let exchange: Exchange
    public init(viewing exchange: Exchange) { self.exchange = exchange }

    /// Every message of the request, in order (a single-object body is one message).
    public var messages: [Message] {
        guard let raw else { return [] }
        return (raw.arrayValue ?? [raw]).filter { $0.objectValue != nil }.map(Message.init)
    }
    /// The tickets of the answer, in order (empty when the request was refused as a whole).
    public var tickets: [Ticket] {
        guard let body = exchange.response.body, let data = (try? JSONValue.parse(body))?["data"] else { return [] }
        return (data.arrayValue ?? [data]).filter { $0.objectValue != nil }.map(Ticket.init)
    }

    /// One push message as sent.
    public struct Message: Sendable {
        /// The message object as sent.
        public let json: JSONValue
        init(_ json: JSONValue) { self.json = json }
        /// `to`: one push token or several.
        public var to: [String] {
            if let s = json["to"]?.stringValue { return [s] }
            return json["to"]?.arrayValue?.compactMap(\.stringValue) ?? []
        }
        public var title: String? { json["title"]?.stringValue }
        public var subtitle: String? { json["subtitle"]?.stringValue }
        public var body: String? { json["body"]?.stringValue }
        public var data: JSONValue? { json["data"] }
        public var sound: JSONValue? { json["sound"] }
        public var badge: Int? { json["badge"]?.intValue.map { Int($0) } }
        public var channelID: String? { json["channelId"]?.stringValue }
    }

    /// One push ticket as answered.
    public struct Ticket: Sendable {
        /// The ticket object as answered.
        public let json: JSONValue
        init(_ json: JSONValue) { self.json = json }
        /// `ok` or `error`.
        public var status: String? { json["status"]?.stringValue }
        /// The receipt id of an `ok` ticket.
        public var id: String? { json["id"]?.stringValue }
        public var message: String? { json["message"]?.stringValue }
        /// `details.error` of an `error` ticket (`DeviceNotRegistered`, …).
        public var error: String? { json["details"]?["error"]?.stringValue }
    }
}

extension Exchange {
    /// This entry as an Expo send, nil for any other entry.
    public var expoSend: ExpoPushRequestRecord? { ExpoPushRequestRecord(self) }
}

extension HistoryStore {
    /// Every Expo send request in the history, oldest first.
    public var expoSends: [ExpoPushRequestRecord] {
        entries(ExpoPushRequestRecord.self)
    }
}
