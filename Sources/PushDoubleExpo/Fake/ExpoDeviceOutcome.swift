import PushDoubleCore

/// How an Expo device says what its tickets and receipts are (the Expo device schema,
/// ``ExpoModule/validateDevice(_:)``; docs/expo.md "Devices").
///
/// - The core's device **state** decides the ticket: `unregistered`, `expired` and `invalid`
///   devices (and unknown tokens in a closed world) get the §3.1 `DeviceNotRegistered` error
///   ticket at once; every other state gets an ok ticket.
/// - The receipt of an ok ticket comes from, in order: a `MessageTooBig` the request itself
///   earned (§1), the device attribute **`receipt`** (`"ok"`, `"DeviceNotRegistered"`,
///   `"MessageTooBig"`, `"MessageRateExceeded"`, `"MismatchSenderId"`, `"InvalidCredentials"`,
///   or another §4.1 value), a magic token's receipt (registered or not), the state (`rateLimited` →
///   `MessageRateExceeded`, `otherApp` → `MismatchSenderId`), else `ok`.
///
/// So a device dead only in the receipt is `{"state":"active","receipt":"DeviceNotRegistered"}`,
/// and "dies after its second push" is a transition to `unregistered`.
public enum ExpoDeviceOutcome {
    /// The device attribute naming the receipt of its ok tickets.
    public static let receiptAttribute = "receipt"

    /// The values `receipt` accepts.
    public static let receiptValues: [String] = ["ok"] + ExpoPushErrorKind.allCases.map(\.rawValue)

    /// The receipt outcome a `receipt` attribute value names for `token`, nil if it names none.
    public static func receipt(named value: String, token: String) -> ExpoReceiptOutcome? {
        if value == "ok" { return .ok }
        guard let kind = ExpoPushErrorKind(rawValue: value) else { return nil }
        switch kind {
        case .deviceNotRegistered: return .deviceNotRegistered(token: token)
        case .messageTooBig: return .messageTooBig
        case .messageRateExceeded: return .messageRateExceeded
        case .mismatchSenderId: return .mismatchSenderId
        case .invalidCredentials: return .invalidCredentials
        case .developerError, .expoError, .providerError:
            return .other(error: kind.rawValue, message: "The push notification could not be delivered (\(kind.rawValue)).", extraDetails: [:])
        }
    }

    /// Whether the device state refuses at the ticket (the §3.1 `DeviceNotRegistered` ticket).
    public static func isDeadAtTicket(_ lookup: DeviceLookup) -> Bool {
        if lookup.source == .unknown { return true }
        switch lookup.state {
        case .unregistered, .expired, .invalid: return true
        case .active, .otherApp, .rateLimited: return false
        }
    }

    /// The receipt of an ok ticket for `token`, given what the request decided (`decided`), the
    /// registered device's `receipt` attribute and the lookup.
    public static func receipt(token: String, decided: ExpoReceiptOutcome?, attribute: String?, lookup: DeviceLookup) -> ExpoReceiptOutcome {
        if let decided { return decided }
        if let attribute, let r = receipt(named: attribute, token: token) { return r }
        // A magic token keeps its receipt when it is also registered (the state, the core's,
        // still decides the ticket), so scenario files can use one without telling the sender.
        if lookup.source == .magic || lookup.source == .registered, let magic = ExpoMagicTokens.entry(for: token)?.receipt {
            if case .deviceNotRegistered(nil) = magic { return .deviceNotRegistered(token: token) }
            return magic
        }
        switch lookup.state {
        case .rateLimited: return .messageRateExceeded
        case .otherApp: return .mismatchSenderId
        default: return .ok
        }
    }
}
