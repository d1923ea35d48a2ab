import Foundation
import PushDoubleCore

/// Magic test device tokens: well-formed tokens that put the device in a given state
/// with zero set-up, like payment test card numbers.
///
/// Scheme: **eight zeros, then the HTTP status APNs answers with, then a variant digit**;
/// the rest of the token (52 or more hex digits) is free, so a test can mint as many
/// distinct tokens of one kind as it needs. Case-insensitive.
///
///     00000000 4100 <52+ hex>   410 Unregistered (timestamp 1704067200000 = 2024-01-01T00:00:00Z)
///     00000000 4101 <…>         410 ExpiredToken
///     00000000 4000 <…>         400 BadDeviceToken (invalid token)
///     00000000 4001 <…>         400 DeviceTokenNotForTopic (token of another app)
///     00000000 4002 <…>         sandbox token: 200 on sandbox, 400 BadDeviceToken on production
///     00000000 4003 <…>         production token: 200 on production, 400 BadDeviceToken on sandbox
///     00000000 4290 <…>         429 TooManyRequests
///     00000000 2000 <…>         200, even in a closed world
///
/// A random real token starts with eight zeros with probability 2⁻³², so collisions with
/// tokens a sender made up are practically impossible.
public enum APNsMagicTokens {
    /// The marker every magic token starts with.
    public static let marker = "00000000"
    /// The `since` date of the magic Unregistered token: 2024-01-01T00:00:00Z.
    public static let unregisteredSince = Date(timeIntervalSince1970: 1_704_067_200)
    /// The topic a magic DeviceTokenNotForTopic token belongs to (never a real bundle id).
    public static let otherAppTopic = "com.example.pushdouble.other-app"

    /// One row of the table.
    public struct Entry: Sendable, Equatable {
        /// The four hex digits after the marker.
        public var code: String
        public var device: MagicDevice
        /// What a push to it gets, in words (for docs and `--list`).
        public var summary: String
        /// A ready-made 64-digit example token.
        public var example: String { APNsMagicTokens.marker + code + String(repeating: "0", count: 52) }
    }

    /// The whole table, in documentation order.
    public static let table: [Entry] = [
        Entry(code: "4100", device: MagicDevice(state: .unregistered(since: unregisteredSince)),
              summary: "410 Unregistered, timestamp 1704067200000"),
        Entry(code: "4101", device: MagicDevice(state: .expired), summary: "410 ExpiredToken"),
        Entry(code: "4000", device: MagicDevice(state: .invalid), summary: "400 BadDeviceToken"),
        Entry(code: "4001", device: MagicDevice(state: .otherApp, topic: otherAppTopic), summary: "400 DeviceTokenNotForTopic"),
        Entry(code: "4002", device: MagicDevice(state: .active, environment: APNsEnvironment.sandbox.rawValue),
              summary: "sandbox token: 200 on sandbox, 400 BadDeviceToken on production"),
        Entry(code: "4003", device: MagicDevice(state: .active, environment: APNsEnvironment.production.rawValue),
              summary: "production token: 200 on production, 400 BadDeviceToken on sandbox"),
        Entry(code: "4290", device: MagicDevice(state: .rateLimited), summary: "429 TooManyRequests"),
        Entry(code: "2000", device: MagicDevice(state: .active), summary: "200, also in a closed world"),
    ]

    /// The device state a magic token implies, nil if `token` is not a well-formed magic token.
    public static func device(for token: String) -> MagicDevice? {
        guard APNsRequestValidator.isWellFormedToken(token) else { return nil }
        let u = token.utf8
        var it = u.makeIterator()
        for _ in 0..<8 { guard it.next() == 0x30 else { return nil } }
        var code: UInt16 = 0
        for _ in 0..<4 {
            guard let c = it.next(), c >= 0x30 && c <= 0x39 else { return nil }
            code = code * 10 + UInt16(c - 0x30)
        }
        switch code {
        case 4100: return table[0].device
        case 4101: return table[1].device
        case 4000: return table[2].device
        case 4001: return table[3].device
        case 4002: return table[4].device
        case 4003: return table[5].device
        case 4290: return table[6].device
        case 2000: return table[7].device
        default: return nil
        }
    }
}
