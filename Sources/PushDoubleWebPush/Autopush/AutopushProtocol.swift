import Foundation
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport

/// A message a user agent sends over the autopush WebSocket (docs/webpush.md "Browsers over
/// the autopush WebSocket protocol"): JSON with `messageType`; `{}` is a ping.
public enum AutopushClientMessage: Sendable, Equatable {
    /// `{"messageType":"hello","uaid"?,"channelIDs"?,"use_webpush"?,"broadcasts"?}`.
    case hello(uaid: String?)
    /// `{"messageType":"register","channelID","key"?}`: `key` is the VAPID public key,
    /// base64url with padding.
    case register(channelID: String, key: String?)
    /// `{"messageType":"unregister","channelID","code"?}` (200 manual, 201 quota, 202 permission).
    case unregister(channelID: String, code: Int?)
    /// `{"messageType":"ack","updates":[{"channelID","version","code"?}]}` (100 delivered,
    /// 101 decryption error, 102 not delivered).
    case ack([Update])
    /// `{"messageType":"nack","version","code"?}` (301 uncaught exception, 302 unhandled
    /// rejection, 303 internal error in the service worker).
    case nack(version: String, code: Int?)
    /// `{"messageType":"broadcast_subscribe","broadcasts":{…}}`.
    case broadcastSubscribe
    /// `{}` or `{"messageType":"ping"}`.
    case ping

    /// One acknowledged message.
    public struct Update: Sendable, Equatable {
        public var channelID: String
        public var version: String
        public var code: Int?
    }

    /// Decodes one text message; the error names what is wrong.
    public static func parse(_ text: String) throws(AutopushProtocolError) -> AutopushClientMessage {
        guard let json = try? JSONValue.parse(Array(text.utf8)), let members = json.objectValue else {
            throw AutopushProtocolError("not a JSON object")
        }
        if members.isEmpty { return .ping }
        guard let type = json["messageType"]?.stringValue else { throw AutopushProtocolError("no messageType") }
        func string(_ name: String) throws(AutopushProtocolError) -> String {
            guard let s = json[name]?.stringValue else { throw AutopushProtocolError("\(type): \(name) must be a string") }
            return s
        }
        func code(_ v: JSONValue?) -> Int? { v?.intValue.map { Int($0) } }
        switch type {
        case "hello":
            let uaid = json["uaid"]?.stringValue
            return .hello(uaid: uaid?.isEmpty == true ? nil : uaid)
        case "register": return .register(channelID: try string("channelID"), key: json["key"]?.stringValue)
        case "unregister": return .unregister(channelID: try string("channelID"), code: code(json["code"]))
        case "ack":
            guard let list = json["updates"]?.arrayValue else { throw AutopushProtocolError("ack: updates must be an array") }
            var updates: [Update] = []
            for u in list {
                guard let c = u["channelID"]?.stringValue, let v = u["version"]?.stringValue else {
                    throw AutopushProtocolError("ack: each update needs channelID and version strings")
                }
                updates.append(Update(channelID: c, version: v, code: code(u["code"])))
            }
            return .ack(updates)
        case "nack": return .nack(version: try string("version"), code: code(json["code"]))
        case "broadcast_subscribe": return .broadcastSubscribe
        case "ping": return .ping
        default: throw AutopushProtocolError("unknown messageType \"\(type)\"")
        }
    }
}

/// A client message the server cannot take: the session is closed (1002).
public struct AutopushProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The messages the server sends, as JSON text (autopush's `ServerMessage`).
public enum AutopushServerMessage {
    /// The answer to `hello`: the UAID the agent is now known by.
    public static func hello(uaid: String) -> String {
        JSONValue.object([("messageType", "hello"), ("uaid", .string(uaid)), ("status", 200), ("use_webpush", true),
                          ("broadcasts", .object([]))]).compactJSON
    }

    /// The answer to `register`: `pushEndpoint` on success, status alone otherwise.
    public static func register(channelID: String, status: Int, endpoint: String?) -> String {
        var m: [(String, JSONValue)] = [("messageType", "register"), ("channelID", .string(channelID)), ("status", .int(Int64(status)))]
        if let endpoint { m.append(("pushEndpoint", .string(endpoint))) }
        return JSONValue.object(m).compactJSON
    }

    /// The answer to `unregister`.
    public static func unregister(channelID: String, status: Int) -> String {
        JSONValue.object([("messageType", "unregister"), ("channelID", .string(channelID)), ("status", .int(Int64(status)))]).compactJSON
    }

    /// The pong: `{}`.
    public static let pong = "{}"

    /// One push message: `data` is the body exactly as the application server sent it,
    /// base64url without padding; `headers` the encoding fields (none without a body).
    public static func notification(channelID: String, version: String, body: [UInt8], headers: [(String, String)]) -> String {
        var m: [(String, JSONValue)] = [("messageType", "notification"), ("channelID", .string(channelID)), ("version", .string(version))]
        if !body.isEmpty {
            m.append(("data", .string(Base64URL.encode(body))))
            m.append(("headers", .object(headers.map { ($0.0, .string($0.1)) })))
        }
        return JSONValue.object(m).compactJSON
    }

    /// The `headers` of a notification from the application server's request: `encoding`
    /// (`Content-Encoding`), and for `aesgcm` `encryption`, `crypto_key` (quotes and base64
    /// padding removed) and `encryption_key`, as autoendpoint passes them on.
    public static func encodingHeaders(_ fields: HTTPHeaders) -> [(String, String)] {
        func stripped(_ v: String) -> String {
            v.replacingOccurrences(of: "\"", with: "")
                .replacingOccurrences(of: #"=+([,;]|$)"#, with: "$1", options: .regularExpression)
        }
        var out: [(String, String)] = []
        if let e = fields.first(name: "content-encoding") { out.append(("encoding", e)) }
        if let e = fields.first(name: "encryption") { out.append(("encryption", stripped(e))) }
        if let e = fields.first(name: "encryption-key") { out.append(("encryption_key", e)) }
        if let e = fields.first(name: "crypto-key") { out.append(("crypto_key", stripped(e))) }
        return out
    }
}
