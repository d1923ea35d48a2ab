import PushDoubleJSON

/// The `details.error` values of tickets and receipts (docs/expo.md §4.1). Tickets document only
/// `DeviceNotRegistered`; receipts may carry any of them.
public enum ExpoPushErrorKind: String, Sendable, Equatable, Hashable, CaseIterable {
    case deviceNotRegistered = "DeviceNotRegistered"
    case messageTooBig = "MessageTooBig"
    case messageRateExceeded = "MessageRateExceeded"
    case mismatchSenderId = "MismatchSenderId"
    case invalidCredentials = "InvalidCredentials"
    /// In the Node SDK's `ExpoPushErrorReceipt` union only; semantics UNCONFIRMED (§4.1).
    case developerError = "DeveloperError"
    case expoError = "ExpoError"
    case providerError = "ProviderError"
}

/// The `message` texts of error tickets and receipts.
///
/// docs/expo.md records exactly one: `"<token>" is not a registered push notification recipient`
/// for `DeviceNotRegistered` (§3.1 [A]). For the others the receipt capture (§4) shows only
/// `"…"`, so the texts here are ours, each saying what §4.1 says the error means.
public enum ExpoPushErrorText {
    /// docs/expo.md §3.1: `"ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]" is not a registered push notification recipient`.
    public static func deviceNotRegistered(token: String) -> String {
        var quoted = ""
        JSONWriter.writeString(token, into: &quoted)
        return quoted + " is not a registered push notification recipient"
    }
    /// Ours (§4.1: total payload over 4096 bytes).
    public static func messageTooBig(limit: Int = 4096) -> String {
        "Message too big: the total notification payload must be at most \(limit) bytes."
    }
    /// Ours (§4.1: too many messages to one device).
    public static let messageRateExceeded = "The device is receiving too many messages; send them at a lower rate."
    /// Ours (§4.1: FCM credential / sender mismatch).
    public static let mismatchSenderId = "The FCM server credentials do not match the sender id of this push token."
    /// Ours (§4.1: push credentials invalid or revoked).
    public static let invalidCredentials = "The push notification credentials for this project are not valid."
}

/// One push ticket of a send response (docs/expo.md §3.1): `{"status":"ok","id":"…"}` or
/// `{"status":"error","message":"…","details":{"error":"…",…}}`, keys in that order.
public enum ExpoTicket: Sendable, Equatable {
    /// Accepted; `id` is the receipt id to ask `getReceipts` for.
    case ok(id: String)
    /// Refused for this recipient. `details` starts with `error`; extra members follow it
    /// (e.g. `expoPushToken`, §3.1 / https://github.com/expo/expo-server-sdk-node/pull/74).
    case error(message: String, details: JSONObject)

    /// An error ticket of `kind` with `extra` details after `error`.
    public static func error(_ kind: ExpoPushErrorKind, message: String, extra: JSONObject = [:]) -> ExpoTicket {
        var d: JSONObject = ["error": .string(kind.rawValue)]
        for (k, v) in extra { d[k] = v }
        return .error(message: message, details: d)
    }

    /// The §3.1 ticket for a recipient that cannot receive notifications:
    /// `details: {"error":"DeviceNotRegistered","expoPushToken":"<token>"}`.
    public static func deviceNotRegistered(token: String) -> ExpoTicket {
        .error(.deviceNotRegistered, message: ExpoPushErrorText.deviceNotRegistered(token: token),
               extra: ["expoPushToken": .string(token)])
    }

    /// A `MessageTooBig` ticket (used when ``ExpoSendDecoderConfiguration/messageTooBig`` is `.ticket`).
    public static func messageTooBig(limit: Int = 4096) -> ExpoTicket {
        .error(.messageTooBig, message: ExpoPushErrorText.messageTooBig(limit: limit))
    }

    public var isOK: Bool { if case .ok = self { return true }; return false }
    /// The receipt id of an ok ticket.
    public var id: String? { if case .ok(let id) = self { return id }; return nil }
    /// `details.error` of an error ticket.
    public var errorKind: String? { if case .error(_, let d) = self { return d.string("error") }; return nil }

    /// Appends ``json`` as compact JSON text; an ok ticket without building its ``JSONValue``.
    func write(into out: inout [UInt8]) {
        guard case .ok(let id) = self else { return JSONWriter().write(json, into: &out) }
        out.append(contentsOf: Self.okPrefix)
        JSONWriter.writeString(id, into: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// `{"status":"ok","id":` as bytes (appending a `String`'s UTF-8 view goes element by element).
    static let okPrefix = Array(#"{"status":"ok","id":"#.utf8)

    /// The ticket object, keys in the captured order.
    public var json: JSONValue {
        switch self {
        case .ok(let id): return ["status": "ok", "id": .string(id)]
        case .error(let message, let details):
            return ["status": "error", "message": .string(message), "details": .object(details)]
        }
    }
}

/// How `data` is shaped for a request whose body is one message object with one recipient
/// (docs/expo.md §3.1: "one push ticket object, if you send a single message to a single
/// recipient").
public enum ExpoSingleTicketShape: String, Sendable, Equatable {
    /// `{"data":{ticket}}`: the documented answer, which single-message senders read as
    /// `data.status` / `data.id` (the fake's default).
    case object
    /// `{"data":[ticket]}`: the array form every other request gets.
    case array
}

/// The body of a successful send (docs/expo.md §3.1): HTTP 200, `{"data":[ticket…]}` in recipient order.
public enum ExpoSendResponse {
    /// `{"data":[…]}`. With `singleObject` (only meaningful for a one-recipient request whose
    /// body was not an array, §3.1 "one push ticket object, if you send a single message to a
    /// single recipient") `data` is the ticket itself.
    /// Written straight as bytes (no ``JSONValue`` tree of 100 tickets to build and free): the
    /// text ``JSONValue/compactJSONBytes`` gives for the same tickets.
    public static func body(_ tickets: [ExpoTicket], singleObject: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        // An ok ticket with a UUID id is 59 bytes.
        out.reserveCapacity(12 + tickets.count * 60)
        out.append(contentsOf: #"{"data":"#.utf8)
        if singleObject && tickets.count == 1 {
            tickets[0].write(into: &out)
        } else {
            out.append(UInt8(ascii: "["))
            for (i, t) in tickets.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                t.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}
