import PushDoubleCore
import PushDoubleTransport

/// The history's view of a send: the decoded message, made when the history is read
/// (``Admission/notificationMaker``), so the request path does not build it.
///
///     {"project":"p","account":"sa@p.iam.gserviceaccount.com",
///      "target":{"token":"…"},"validateOnly":false,
///      "notification":{…},"data":{…},"android":{…},"apns":{…},"webpush":{…},"fcmOptions":{…}}
///
/// Members of `message` are taken in either spelling (snake_case or lowerCamelCase, docs/fcm.md §2)
/// and recorded under their lowerCamelCase name, as sent otherwise; absent blocks are omitted.
enum FCMRecordedMessage {
    /// `(snake_case, lowerCamelCase)` names of the recorded `message` members, in order.
    static let blocks: [(String, String)] = [("notification", "notification"), ("data", "data"), ("android", "android"),
                                             ("apns", "apns"), ("webpush", "webpush"), ("fcm_options", "fcmOptions")]
    static let targets = ["token", "topic", "condition", "fid"]

    /// The record for `request` sent for `account` (nil when unauthenticated).
    static func make(_ request: HTTPRequest, account: String?) -> JSONValue? {
        var members: [(String, JSONValue)] = []
        if let p = FCMSendEndpoint.project(fromRequestPath: request.path) { members.append(("project", .string(p))) }
        if let account { members.append(("account", .string(account))) }
        guard let root = try? JSONValue.parse(request.body) else {
            members.append(("bodyError", "body is not JSON"))
            return .object(members)
        }
        guard let message = root["message"] else {
            members.append(("bodyError", "no message"))
            return .object(members)
        }
        var target: [(String, JSONValue)] = []
        for t in targets { if let v = message[t], !v.isNull { target.append((t, v)) } }
        members.append(("target", .object(target)))
        members.append(("validateOnly", (root["validate_only"] ?? root["validateOnly"]) ?? .bool(false)))
        for (snake, camel) in blocks {
            if let v = message[snake] ?? message[camel], !v.isNull { members.append((camel, v)) }
        }
        return .object(members)
    }
}

extension FCMFake {
    /// ``FCMRecordedMessage/make(_:account:)`` for an unauthenticated request.
    @Sendable static func recordedNotification(_ request: HTTPRequest) -> JSONValue? {
        FCMRecordedMessage.make(request, account: nil)
    }
}
