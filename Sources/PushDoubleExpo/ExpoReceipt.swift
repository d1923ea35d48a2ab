import PushDoubleJSON

/// One push receipt (docs/expo.md §4): `{"status":"ok"}` or
/// `{"status":"error","message":"…","details":{"error":"…",…}}`, keys in that order.
public enum ExpoReceipt: Sendable, Equatable {
    case ok
    /// `details` starts with `error`.
    case error(message: String, details: JSONObject)

    public var json: JSONValue {
        switch self {
        case .ok: return ["status": "ok"]
        case .error(let message, let details):
            return ["status": "error", "message": .string(message), "details": .object(details)]
        }
    }
}

/// What a receipt will say (docs/expo.md §4.1 `details.error` values).
public enum ExpoReceiptOutcome: Sendable, Equatable {
    case ok
    /// With the token, `details.expoPushToken` is added and the message names it (the §3.1
    /// ticket text, the one docs/expo.md records); without it the message is the generic one of ours.
    case deviceNotRegistered(token: String?)
    /// §4.1: total payload over 4096 bytes.
    case messageTooBig
    /// §4.1: too many messages to one device.
    case messageRateExceeded
    /// §4.1: FCM credential / sender mismatch.
    case mismatchSenderId
    /// §4.1: push credentials invalid or revoked.
    case invalidCredentials
    /// Any other `details.error` (e.g. `DeveloperError`, §4.1 UNCONFIRMED), with its text and
    /// extra details (provider sub-objects, `__debug`, §4).
    case other(error: String, message: String, extraDetails: JSONObject)

    /// The receipt this outcome renders as. Texts other than `DeviceNotRegistered` with a token
    /// are ours (``ExpoPushErrorText``): docs/expo.md's receipt capture shows only `"…"`.
    public var receipt: ExpoReceipt {
        func error(_ kind: String, _ message: String, _ extra: JSONObject = [:]) -> ExpoReceipt {
            var d: JSONObject = ["error": .string(kind)]
            for (k, v) in extra { d[k] = v }
            return .error(message: message, details: d)
        }
        switch self {
        case .ok: return .ok
        case .deviceNotRegistered(let token?):
            return error(ExpoPushErrorKind.deviceNotRegistered.rawValue, ExpoPushErrorText.deviceNotRegistered(token: token),
                         ["expoPushToken": .string(token)])
        case .deviceNotRegistered(nil):
            return error(ExpoPushErrorKind.deviceNotRegistered.rawValue, "The device is not registered to receive push notifications.")
        case .messageTooBig: return error(ExpoPushErrorKind.messageTooBig.rawValue, ExpoPushErrorText.messageTooBig())
        case .messageRateExceeded: return error(ExpoPushErrorKind.messageRateExceeded.rawValue, ExpoPushErrorText.messageRateExceeded)
        case .mismatchSenderId: return error(ExpoPushErrorKind.mismatchSenderId.rawValue, ExpoPushErrorText.mismatchSenderId)
        case .invalidCredentials: return error(ExpoPushErrorKind.invalidCredentials.rawValue, ExpoPushErrorText.invalidCredentials)
        case .other(let kind, let message, let extra): return error(kind, message, extra)
        }
    }
}

/// When a recorded receipt becomes visible to `getReceipts` (docs/expo.md §1: Expo suggests checking
/// about 15 minutes after sending; the real delay is not recorded, so it is configurable).
public enum ExpoReceiptAvailability: Sendable, Equatable {
    /// Visible `seconds` after it was recorded (0: at once, the default).
    case afterDelay(seconds: Double)
    /// Invisible until ``ExpoReceiptStore/release(_:now:)`` or ``ExpoReceiptStore/releaseAll(now:)``.
    case heldUntilReleased
}

/// Where one ticket id's receipt is in its life.
public enum ExpoReceiptState: Sendable, Equatable {
    /// Never recorded, evicted, or purged after expiry.
    case unknown
    /// Recorded, visible from `availableAt`.
    case pending(availableAt: Double)
    /// Recorded, waiting for a release.
    case held
    /// Visible to `getReceipts`.
    case available(ExpoReceipt)
    /// Past the retention (docs/expo.md §1, §4: deleted after 24 h, then omitted); purged on the next write.
    case expired
}
