import Foundation
import PushDoubleCore
import PushDoubleJSON

/// A typed view of one Web Push request in the history (endpoint `webpush.push`): the RFC 8030
/// headers and, for a registered subscription with its private key, the payload the browser
/// decrypted, read from the entry's raw `notification` JSON (docs/webpush.md), kept as ``raw``.
public struct WebPushMessageRecord: ExchangeView {
    public static var provider: ProviderID { .webpush }
    public static var endpoint: String { WebPushFake.endpoint }
    public let exchange: Exchange
    public init(viewing exchange: Exchange) { self.exchange = exchange }

    /// The imitated push service (`fcm`, `mozilla`, `apple`, `wns`).
    public var service: String? { raw?["service"]?.stringValue }
    /// The subscription token of the endpoint path.
    public var token: String? { exchange.token }
    public var ttl: Int? { raw?["ttl"]?.intValue.map { Int($0) } }
    public var urgency: String? { raw?["urgency"]?.stringValue }
    public var topic: String? { raw?["topic"]?.stringValue }
    /// `Content-Encoding` (`aes128gcm`, or the legacy `aesgcm`).
    public var encoding: String? { raw?["encoding"]?.stringValue }
    /// The VAPID `aud` claim (the push service origin), when the request was accepted.
    public var vapidAudience: String? { exchange.topic }
    /// The decrypted payload.
    public var payload: Payload {
        guard let p = raw?["payload"], !p.isNull else { return .none }
        if let code = p["error"]?.stringValue { return .undecrypted(code: code, detail: p["detail"]?.stringValue ?? "") }
        guard let data = p["data"]?.stringValue else { return .none }
        if p["base64"]?.boolValue == true { return .binary(Data(base64Encoded: data) ?? Data()) }
        return .text(data)
    }

    /// What the browser of the subscription read.
    public enum Payload: Sendable, Equatable {
        /// No body (a tickle), or the request was refused before decryption.
        case none
        /// The plaintext, as UTF-8 text.
        case text(String)
        /// The plaintext, not UTF-8.
        case binary(Data)
        /// Not decrypted: `unknownSubscription`, `noPrivateKey`, or the decryption failure's code.
        case undecrypted(code: String, detail: String)

        /// The text of a `.text` payload.
        public var text: String? { if case .text(let s) = self { return s }; return nil }
        /// A `.text` payload parsed as JSON.
        public var json: JSONValue? { text.flatMap { try? JSONValue.parse($0) } }
    }
}

extension Exchange {
    /// This entry as a Web Push request, nil for any other entry.
    public var webPushMessage: WebPushMessageRecord? { WebPushMessageRecord(self) }
}

extension HistoryStore {
    /// Every Web Push request in the history, oldest first.
    public var webPushMessages: [WebPushMessageRecord] {
        entries(WebPushMessageRecord.self)
    }
}
