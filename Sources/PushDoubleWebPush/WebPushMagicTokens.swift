import Foundation
import PushDoubleCore

/// Magic subscription tokens: endpoint tokens that put the subscription in a given state with
/// zero set-up, like the APNs magic device tokens (the same scheme).
///
/// Scheme: **eight zeros, then the HTTP status a real service answers with, then a variant
/// digit**, then anything base64url (so a test can mint as many distinct subscriptions of one
/// kind as it needs). The token goes where a subscription's token goes in any service's path
/// shape (`/wpush/v1/00000000410…`, `/fcm/send/00000000410…`, `/00000000410…`,
/// `/w/?token=00000000410…`), and the answer is that service's (docs/webpush.md §6):
///
///     00000000 4100 …   unsubscribed: FCM 410 + 47-byte text, autopush 410 errno 106, Apple 410, WNS 410
///     00000000 4101 …   expired:      FCM 410 + 47-byte text, autopush 410 errno 103, Apple 410, WNS 410
///     00000000 4040 …   invalid endpoint: FCM 404, autopush 404 errno 102, Apple 410, WNS 404
///     00000000 4041 …   stale (FCM, > 9 months): FCM 404 + its text, others as expired
///     00000000 4030 …   VAPID key mismatch (another application server's subscription)
///     00000000 4290 …   throttled: 429 + Retry-After (autopush 503 errno 201, WNS 406)
///     00000000 2010 …   accepted, even in a closed world
///
/// Random tokens are 32 random bytes in base64url (``WebPushSubscription``): one starts with
/// eight zeros with probability 2⁻⁴⁸.
public enum WebPushMagicTokens {
    /// The marker every magic token starts with.
    public static let marker = "00000000"

    /// One row of the table.
    public struct Entry: Sendable, Equatable {
        /// The four digits after the marker.
        public var code: String
        /// The device state the core sees.
        public var device: MagicDevice
        /// Refines the answer where the device state has no counterpart (FCM's stale
        /// subscription is an expired device whose answer is FCM's 404).
        public var gone: WebPushGoneReason?
        /// What a push to it gets, in words (docs/webpush.md "Magic tokens").
        public var summary: String
        /// A ready-made example token (the marker, the code and 31 `A`s: 43 characters like a
        /// random token).
        public var example: String { WebPushMagicTokens.marker + code + String(repeating: "A", count: 31) }
    }

    /// The whole table, in documentation order.
    public static let table: [Entry] = [
        Entry(code: "4100", device: MagicDevice(state: .unregistered(since: Date(timeIntervalSince1970: 1_704_067_200))),
              gone: .unsubscribed, summary: "unsubscribed: 410 (FCM's 47-byte text, autopush errno 106)"),
        Entry(code: "4101", device: MagicDevice(state: .expired), gone: .expired, summary: "expired: 410 (autopush errno 103)"),
        Entry(code: "4040", device: MagicDevice(state: .invalid), gone: .invalidEndpoint, summary: "invalid endpoint: 404 (autopush errno 102; Apple 410)"),
        Entry(code: "4041", device: MagicDevice(state: .expired), gone: .stale, summary: "stale: FCM 404 with its text; other services as expired"),
        Entry(code: "4030", device: MagicDevice(state: .otherApp), gone: nil, summary: "VAPID key mismatch (FCM 403, autopush 401 errno 109, Apple 403 BadJwtToken, WNS 403)"),
        Entry(code: "4290", device: MagicDevice(state: .rateLimited), gone: nil, summary: "throttled: 429 + Retry-After (autopush 503 errno 201, WNS 406)"),
        Entry(code: "2010", device: MagicDevice(state: .active), gone: nil, summary: "accepted (201), even in a closed world"),
    ]

    /// The table row of `token`, nil if it is not a magic token.
    public static func entry(for token: String) -> Entry? {
        guard token.utf8.count >= 12, token.hasPrefix(marker) else { return nil }
        let code = String(token.dropFirst(8).prefix(4))
        return table.first { $0.code == code }
    }

    /// The device state a magic token implies, nil if `token` is not one.
    public static func device(for token: String) -> MagicDevice? { entry(for: token)?.device }
}
