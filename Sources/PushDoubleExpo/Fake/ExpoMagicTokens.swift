import Foundation
import PushDoubleCore

/// Magic test push tokens: well-formed Expo tokens that give a ticket or receipt outcome with
/// zero set-up, like payment test card numbers (docs/expo.md "Magic tokens").
///
/// Scheme: the opaque part of `ExponentPushToken[…]` (or `ExpoPushToken[…]`) starts with
/// **eight zeros and a four-letter code**; the rest is free, so a test can mint as many
/// distinct tokens of one kind as it needs. Case-sensitive, as Expo tokens are.
///
///     ExponentPushToken[00000000DNRT…]   DeviceNotRegistered ticket (dead at the send)
///     ExponentPushToken[00000000DNRR…]   ok ticket, DeviceNotRegistered receipt (dead later)
///     ExponentPushToken[00000000MTBR…]   ok ticket, MessageTooBig receipt
///     ExponentPushToken[00000000MREX…]   ok ticket, MessageRateExceeded receipt
///     ExponentPushToken[00000000MSID…]   ok ticket, MismatchSenderId receipt
///     ExponentPushToken[00000000INVC…]   ok ticket, InvalidCredentials receipt
///     ExponentPushToken[00000000OKOK…]   ok ticket, ok receipt, even in a closed world
public enum ExpoMagicTokens {
    /// What every magic token's opaque part starts with.
    public static let marker = "00000000"
    /// The `since` date of the magic dead token: 2024-01-01T00:00:00Z.
    public static let unregisteredSince = Date(timeIntervalSince1970: 1_704_067_200)

    /// One row of the table.
    public struct Entry: Sendable, Equatable {
        /// The four letters after the marker.
        public var code: String
        /// The device state the core sees (dead at the ticket, or active).
        public var device: MagicDevice
        /// The receipt of an ok ticket (nil: the ticket is an error, no receipt).
        public var receipt: ExpoReceiptOutcome?
        /// What a push to it gets, in words (for docs).
        public var summary: String
        /// A ready-made example token.
        public var example: String { "ExponentPushToken[" + ExpoMagicTokens.marker + code + "example1234]" }
    }

    /// The whole table, in documentation order.
    public static let table: [Entry] = [
        Entry(code: "DNRT", device: MagicDevice(state: .unregistered(since: unregisteredSince)), receipt: nil,
              summary: "DeviceNotRegistered ticket"),
        Entry(code: "DNRR", device: MagicDevice(state: .active), receipt: .deviceNotRegistered(token: nil),
              summary: "ok ticket, DeviceNotRegistered receipt"),
        Entry(code: "MTBR", device: MagicDevice(state: .active), receipt: .messageTooBig, summary: "ok ticket, MessageTooBig receipt"),
        Entry(code: "MREX", device: MagicDevice(state: .active), receipt: .messageRateExceeded,
              summary: "ok ticket, MessageRateExceeded receipt"),
        Entry(code: "MSID", device: MagicDevice(state: .active), receipt: .mismatchSenderId, summary: "ok ticket, MismatchSenderId receipt"),
        Entry(code: "INVC", device: MagicDevice(state: .active), receipt: .invalidCredentials, summary: "ok ticket, InvalidCredentials receipt"),
        Entry(code: "OKOK", device: MagicDevice(state: .active), receipt: .ok, summary: "ok ticket, ok receipt, also in a closed world"),
    ]

    /// The entry of a magic token, nil for any other token.
    public static func entry(for token: String) -> Entry? {
        var token = token
        return token.withUTF8 { u -> Entry? in
            // Bytes, not Characters: this runs for every recipient of every request.
            guard let start = ExpoPushTokenForm.bracketed(u)?.prefixLength, u.count >= start + 8 + 4 + 1 else { return nil }
            for i in start..<start + 8 where u[i] != UInt8(ascii: "0") { return nil }
            let code = String(decoding: UnsafeBufferPointer(rebasing: u[(start + 8)..<(start + 12)]), as: UTF8.self)
            return table.first { $0.code == code }
        }
    }
}
