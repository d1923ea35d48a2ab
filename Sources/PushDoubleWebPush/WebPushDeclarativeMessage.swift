import Foundation
import PushDoubleCore

/// Declarative Web Push (docs/webpush.md "Declarative Web Push"): a decrypted push message that
/// is a JSON object `{"web_push": 8030, "notification": {…}}` is shown by the browser itself
/// (Safari 18.4+, iOS/iPadOS 18.4+) without a service worker; anything that is not a valid
/// declarative message goes to the service worker's `push` event as an ordinary message.
///
/// ``interpret(_:)`` is the browser's reading, the Push API's declarative push message parser:
/// `web_push` must be 8030, `notification` an object with a string `title` and a `navigate`
/// URL, `dir` one of `auto`/`ltr`/`rtl`; `mutable` counts only as a boolean, `app_badge`
/// (top level) only as an integer from 0 to 2⁶³−1. A failure is a fallback, with the reason.
public enum WebPushDeclarativeMessage {
    /// The member that marks a declarative message, and its one valid value.
    public static let marker = "web_push"
    public static let markerValue: Int64 = 8030

    /// What the browser does with a decrypted message.
    public enum Reading: Sendable, Equatable {
        /// Not a declarative message at all (no JSON object with `web_push`): a service-worker push.
        case ordinary
        /// The notification the browser shows (its members as given, normalised), the app badge,
        /// and whether a service worker may replace it (`mutable`).
        case notification(JSONValue, appBadge: Int64?, mutable: Bool)
        /// It claims to be declarative (`web_push` present) but is not valid: the browser falls
        /// back to the service worker with the message as data.
        case fallback(String)
    }

    public static func interpret(_ text: String) -> Reading {
        guard let json = try? JSONValue.parse(Array(text.utf8)), case .object = json, let marker = json[marker] else { return .ordinary }
        guard marker.intValue == markerValue else { return .fallback("web_push is \(marker.compactJSON), not \(markerValue)") }
        guard let input = json["notification"], case .object(let members) = input else { return .fallback("notification is missing or not an object") }
        guard let title = input["title"]?.stringValue else { return .fallback("notification.title is missing or not a string") }
        guard let navigate = input["navigate"]?.stringValue else { return .fallback("notification.navigate is missing or not a string") }
        guard let url = URL(string: navigate), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", url.host != nil else {
            return .fallback("notification.navigate is not an absolute http(s) URL: \(navigate)")
        }
        if let dir = input["dir"], !["auto", "ltr", "rtl"].contains(dir.stringValue ?? "") {
            return .fallback("notification.dir is \(dir.compactJSON), not auto, ltr or rtl")
        }
        var shown: [(String, JSONValue)] = [("title", .string(title)), ("navigate", .string(url.absoluteString))]
        for (key, value) in members where key != "title" && key != "navigate" && key != "mutable" { shown.append((key, value)) }
        var mutable = false
        if case .bool(let b)? = input["mutable"] { mutable = b }
        var badge: Int64? = nil
        if let n = json["app_badge"]?.intValue, n >= 0 { badge = n }
        return .notification(.object(shown), appBadge: badge, mutable: mutable)
    }

    /// What is wrong with `text` as a declarative message, seen from the sender that meant it as
    /// one: the reason ``interpret(_:)`` falls back to the service worker, or the members the
    /// browser ignores for their type (`notification.mutable` not a boolean, `app_badge` not an
    /// integer from 0 to 2⁶³−1). Empty when it is a well-formed declarative message; not a
    /// declarative message at all (no `web_push`) is one problem.
    public static func problems(_ text: String) -> [String] {
        switch interpret(text) {
        case .ordinary: return ["not a declarative message (no JSON object with \(marker))"]
        case .fallback(let why): return [why]
        case .notification:
            guard let json = try? JSONValue.parse(Array(text.utf8)) else { return [] }
            var out: [String] = []
            if let m = json["notification"]?["mutable"], m.boolValue == nil { out.append("notification.mutable is \(m.compactJSON), not a boolean (ignored)") }
            if let b = json["app_badge"], (b.intValue ?? -1) < 0 { out.append("app_badge is \(b.compactJSON), not an integer from 0 to 2^63-1 (ignored)") }
            return out
        }
    }

    /// The reading as the history records it (`declarative` next to the decrypted payload).
    public static func json(_ reading: Reading) -> JSONValue {
        switch reading {
        case .ordinary: return .null
        case .notification(let n, let badge, let mutable):
            return .object([("shown", .string("notification")), ("notification", n), ("app_badge", badge.map { .int($0) } ?? .null),
                            ("mutable", .bool(mutable))])
        case .fallback(let why): return .object([("shown", .string("serviceWorkerPush")), ("fallback", .string(why))])
        }
    }
}
