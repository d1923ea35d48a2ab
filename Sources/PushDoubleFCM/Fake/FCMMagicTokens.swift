import PushDoubleCore

/// Magic FCM registration tokens: tokens that put the device in a given state with zero
/// set-up (docs/fcm.md "Devices, magic tokens, options, admin routes, sender material").
///
/// Scheme: **`pushdouble-fcm-`, then the HTTP status FCM answers with, then `-` and anything**
/// (any number of distinct tokens of one kind). docs/fcm.md records no format for registration
/// tokens, so the prefix is PushDouble's; a real token never starts with it.
///
///     pushdouble-fcm-404-…   404 NOT_FOUND, FcmError UNREGISTERED (docs/fcm.md §4.3)
///     pushdouble-fcm-400-…   400 INVALID_ARGUMENT, "The registration token is not a valid FCM registration token" (§4.3)
///     pushdouble-fcm-403-…   403 PERMISSION_DENIED, FcmError SENDER_ID_MISMATCH (§4.3)
///     pushdouble-fcm-429-…   429 RESOURCE_EXHAUSTED, FcmError QUOTA_EXCEEDED, Retry-After (§4.3, §4.4)
///     pushdouble-fcm-200-…   200, even in a closed world
public enum FCMMagicTokens {
    /// The prefix every magic token starts with.
    public static let prefix = "pushdouble-fcm-"
    /// The project a magic SENDER_ID_MISMATCH token belongs to (never a real project id).
    public static let otherProject = "pushdouble-other-project"

    /// One row of the table.
    public struct Entry: Sendable, Equatable {
        /// The three digits after the prefix.
        public var code: String
        public var device: MagicDevice
        /// What a send to it gets, in words (for docs).
        public var summary: String
        /// A ready-made example token.
        public var example: String { FCMMagicTokens.prefix + code + "-example" }
    }

    /// The whole table, in documentation order.
    public static let table: [Entry] = [
        Entry(code: "404", device: MagicDevice(state: .unregistered(since: .init(timeIntervalSince1970: 1_704_067_200))),
              summary: "404 NOT_FOUND, FcmError UNREGISTERED"),
        Entry(code: "400", device: MagicDevice(state: .invalid), summary: "400 INVALID_ARGUMENT (not a valid FCM registration token)"),
        Entry(code: "403", device: MagicDevice(state: .otherApp, topic: otherProject), summary: "403 PERMISSION_DENIED, FcmError SENDER_ID_MISMATCH"),
        Entry(code: "429", device: MagicDevice(state: .rateLimited), summary: "429 RESOURCE_EXHAUSTED, FcmError QUOTA_EXCEEDED, Retry-After"),
        Entry(code: "200", device: MagicDevice(state: .active), summary: "200, also in a closed world"),
    ]

    /// The device a magic token implies; nil if `token` is not one.
    public static func device(for token: String) -> MagicDevice? {
        guard token.hasPrefix(prefix) else { return nil }
        let rest = token.utf8.dropFirst(prefix.utf8.count)
        guard rest.count >= 3 else { return nil }
        let code = String(decoding: rest.prefix(3), as: UTF8.self)
        if rest.count > 3, rest[rest.index(rest.startIndex, offsetBy: 3)] != UInt8(ascii: "-") { return nil }
        return table.first { $0.code == code }?.device
    }
}
