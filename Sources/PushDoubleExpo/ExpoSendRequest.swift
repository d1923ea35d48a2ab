import PushDoubleJSON

/// What the 4096-byte limit of docs/expo.md §1 is measured on. docs/expo.md says "the total notification
/// payload forwarded to APNs/FCM", which this core never builds, so the measure is a choice.
public enum ExpoPayloadMeasure: String, Sendable, Equatable {
    /// The compact JSON of the message object as received, without `to` (default: the token
    /// is addressing, not payload, and each recipient gets its own copy).
    case messageWithoutTo
    /// The compact JSON of the whole message object.
    case wholeMessage
}

/// How an oversized message is reported (docs/expo.md §1 [A]: "larger → `MessageTooBig` receipt";
/// the Python SDK also maps a `MessageTooBig` *ticket*, §6.2).
public enum ExpoMessageTooBigReport: String, Sendable, Equatable {
    /// An ok ticket whose receipt is `MessageTooBig` (default, as §1 says).
    case receipt
    /// A `MessageTooBig` error ticket at once.
    case ticket
}

/// How a `to` that is not a push token of §5 is answered. docs/expo.md records no text for it;
/// the only recorded per-recipient refusal is the §3.1 `DeviceNotRegistered` ticket.
public enum ExpoInvalidTokenReport: String, Sendable, Equatable {
    /// That §3.1 ticket: `"<to>" is not a registered push notification recipient`,
    /// `details: {"error":"DeviceNotRegistered","expoPushToken":"<to>"}` (default).
    case deviceNotRegisteredTicket
    /// Refuse the whole request: `API_ERROR` `child "to" fails because ["to" must be a valid push token]…`.
    case requestError
}

/// What to do with message members §2 does not list.
public enum ExpoUnknownFieldPolicy: String, Sendable, Equatable {
    /// Accept and list them in ``ExpoPushMessage/unknownFields`` (default: nothing recorded).
    case accept
    /// `API_ERROR` `"<name>" is not allowed`.
    case reject
}

/// The knobs of ``ExpoSendRequestDecoder``. Defaults follow docs/expo.md; where it records
/// nothing or says UNCONFIRMED the default accepts (docs/expo.md lists each).
public struct ExpoSendDecoderConfiguration: Sendable {
    /// Recipients per request (docs/expo.md §1 [A]: 100).
    public var maxRecipients = 100
    /// Payload bytes per message (docs/expo.md §1 [A]: 4096).
    public var maxPayloadBytes = 4096
    public var payloadMeasure = ExpoPayloadMeasure.messageWithoutTo
    public var messageTooBig = ExpoMessageTooBigReport.receipt
    public var invalidToken = ExpoInvalidTokenReport.deviceNotRegisteredTicket
    /// Token forms taken as well-formed (docs/expo.md §5; all by default, see ``ExpoPushTokenForm``).
    public var acceptedTokenForms = Set(ExpoPushTokenForm.allCases)
    public var unknownFields = ExpoUnknownFieldPolicy.accept
    /// Accept a `sound` string other than `"default"` (docs/expo.md §2 lists only `"default"`, `null`
    /// and the object form; off by default).
    public var acceptCustomSoundNames = false
    /// Type-check `icon`, `collapseId`, `tag` (string) and `richContent` (`{image?: string}`) by
    /// the SDK types (docs/expo.md §2: server semantics UNCONFIRMED, so off by default).
    public var checkSDKOnlyFields = false
    public var body = ExpoBodyLimits()
    public var statuses = ExpoErrorStatuses()
    /// The `API_ERROR` text of a field problem (default: ``ExpoFieldProblem/joiText(_:)``).
    public var fieldProblemText: @Sendable (ExpoFieldProblem) -> String = ExpoFieldProblem.joiText

    public init() {}
}

/// What happens to one recipient, as far as the request alone decides.
public enum ExpoRecipientVerdict: Sendable, Equatable {
    /// Well-formed; whether the device is registered (ok ticket + receipt, or a
    /// `DeviceNotRegistered` ticket) is the caller's decision.
    case deliverable
    /// Accepted with an ok ticket, but its receipt is already decided (`MessageTooBig` in
    /// ``ExpoMessageTooBigReport/receipt`` mode).
    case acceptedWithReceipt(ExpoReceiptOutcome, ExpoRule)
    /// This ticket and no other (bad token, or `MessageTooBig` in ticket mode).
    case refused(ExpoTicket, ExpoRule)
}

/// One recipient of a send request: one `to` entry of one message, in request order.
public struct ExpoRecipient: Sendable, Equatable {
    /// Position among all recipients: the ticket index.
    public var index: Int
    public var messageIndex: Int
    public var token: String
    /// nil when `token` is not a push token (or its form is not accepted).
    public var form: ExpoPushTokenForm?
    /// The project the caller's lookup gave; nil for an unknown or malformed token.
    public var project: String?
    public var verdict: ExpoRecipientVerdict
}

/// A decoded, accepted send request (docs/expo.md §2): its messages and its recipients flattened
/// in order, one ticket each (§2 "Each recipient counts toward the limit and gets its own
/// ticket, in order" [A]).
public struct ExpoSendRequest: Sendable, Equatable {
    public var messages: [ExpoPushMessage]
    public var recipients: [ExpoRecipient]
    /// Whether the body was an array (false: one message object).
    public var bodyWasArray: Bool
    /// The single project of the request; nil when no recipient's project is known.
    public var project: String?

    /// True when §3.1 allows `data` to be one ticket object (single object body, one recipient).
    public var allowsSingleTicketObject: Bool { !bodyWasArray && recipients.count == 1 }

    /// One ticket per recipient, in order. `refused` recipients get their ticket; for the
    /// others `issue` decides (and records a receipt, e.g. through ``ExpoReceiptStore``).
    public func tickets(_ issue: (ExpoRecipient) throws -> ExpoTicket) rethrows -> [ExpoTicket] {
        try recipients.map { r in
            if case .refused(let ticket, _) = r.verdict { return ticket }
            return try issue(r)
        }
    }
}
