/// Every check ``FCMSendRequestValidator`` makes, with the docs/fcm.md section it comes from.
///
/// The error each rule answers with is in ``FCMValidatorConfiguration/error(for:)``: the
/// text docs/fcm.md records where it records one, else the generic INVALID_ARGUMENT body
/// (``GoogleErrorEnvelope/invalidArgument``); each can be overridden.
public enum FCMValidationRule: String, Sendable, Equatable, Hashable, CaseIterable {
    /// The body is not JSON (docs/fcm.md §1: `Content-Type: application/json`; no text recorded).
    case bodyNotJSON
    /// The body, or `message`, is not a JSON object (§2; no text recorded).
    case bodyNotObject
    /// A field holds a JSON value of the wrong type: `Invalid value at '<field>' (<TYPE>), <value>`,
    /// BadRequest only (§2.1, §4.3 doc example 1 [A]; recorded for `data` values, the same
    /// form is used for every typed field).
    case wrongType
    /// A field not in docs/fcm.md's schema (§2; docs/fcm.md records no error for it). Accepted by default.
    case unknownField
    /// No target (§2.1, §4.3 "Missing recipient" [O]).
    case missingTarget
    /// More than one of `token`/`topic`/`condition`/`fid` (§2.1 "exactly one"; no text recorded).
    case multipleTargets
    /// `fid` used while ``FCMValidatorConfiguration/acceptFID`` is off (§2.1).
    case fidNotAccepted
    /// A reserved `data` key: `from`, `message_type`, or a key starting `google` / `gcm` (§2.1 [A]).
    case reservedDataKey
    /// A topic name outside `^(/topics/)?(private/)?[a-zA-Z0-9-_.~%]+$` (§2.1 [L]).
    case topicName
    /// A condition that does not parse (§2.1 example `'foo' in topics && 'bar' in topics`).
    case conditionSyntax
    /// `android.priority` other than `NORMAL` / `HIGH` in any case (§2.2).
    case androidPriority
    /// `android.ttl` not a google-duration string (§2.2 [A]).
    case ttlFormat
    /// `android.ttl` outside 0...2419200 s after rounding down (§2.2, §4.5 [A]).
    case ttlRange
    /// `notification_priority` / `visibility` / `proxy` not one of the listed values (§2.3).
    case enumValue
    /// `android.notification.color` not `#rrggbb` (§2.3).
    case colorFormat
    /// `android.notification.event_time` not an RFC 3339 timestamp (§2.3).
    case timestampFormat
    /// `vibrate_timings[]` / light durations not google-duration strings (§2.3).
    case durationFormat
    /// `notification_count` not an int32 (§2.3).
    case int32Range
    /// `webpush.fcm_options.link` not HTTPS (§2.5).
    case webpushLink
    /// `analytics_label` outside `^[a-zA-Z0-9-_.~%]{1,50}$` (§2.1: the SDK's check [L]; the
    /// server rule is UNCONFIRMED, so the check is off by default).
    case analyticsLabel
    /// Payload over 4096 bytes, 2048 for topic messages (§4.5 [A]; text §4.3 [O]).
    case payloadTooLarge
    /// A data-only message whose `apns-priority` header is not 5 (§2.1 "may only use
    /// `apns-priority: 5`"; whether FCM refuses it is not recorded, so off by default).
    case dataOnlyAPNsPriority
}

/// A refused send request: the rule that refused it and the exact Google error body.
public struct FCMError: Error, Sendable, Equatable {
    public let rule: FCMValidationRule
    /// The field path the rule was checking (`message.android.ttl`), when it is about one field.
    public let field: String?
    public let envelope: GoogleErrorEnvelope

    public init(rule: FCMValidationRule, field: String?, envelope: GoogleErrorEnvelope) {
        self.rule = rule; self.field = field; self.envelope = envelope
    }

    /// HTTP status (`error.code`).
    public var httpStatus: Int { envelope.code }
    /// Canonical status name (`error.status`).
    public var status: String { envelope.status }
    /// The FcmError code in `details`, nil when the body has none (type errors, §4.3).
    public var fcmErrorCode: FCMErrorCode? { envelope.fcmErrorCode }
    /// `error.message`.
    public var message: String { envelope.message }
    /// The `@type`s of `details[]` in order.
    public var detailTypes: [String] { (envelope.details ?? []).compactMap { $0.json["@type"]?.stringValue } }
}

/// How the payload size of docs/fcm.md §4.5 ("keys and values both count") is measured; docs/fcm.md
/// does not say which bytes FCM counts.
public enum FCMPayloadMeasure: String, Sendable, Equatable {
    /// UTF-8 bytes of every key and value of `message.data`, plus every field name and value
    /// of `message.notification` (the default).
    case dataAndNotification
    /// The compact JSON bytes of the whole `message` object as received.
    case messageJSON
}

/// What to do with fields docs/fcm.md's schema does not list.
public enum FCMUnknownFieldPolicy: String, Sendable, Equatable {
    /// Accept them and list their paths in ``FCMMessage/unknownFields`` (default: docs/fcm.md
    /// records no error for them).
    case accept
    /// Refuse with ``FCMValidationRule/unknownField``.
    case reject
}

/// The knobs of ``FCMSendRequestValidator``. Defaults follow docs/fcm.md; UNCONFIRMED behaviour
/// defaults to accepting (docs/fcm.md "Sources", provenance tags).
public struct FCMValidatorConfiguration: Sendable, Equatable {
    /// Payload limit for most messages (docs/fcm.md §4.5).
    public var maxPayloadBytes = 4096
    /// Payload limit for topic messages (docs/fcm.md §4.5).
    public var maxTopicPayloadBytes = 2048
    /// Whether `condition` messages count as topic messages for the 2048 limit (docs/fcm.md says
    /// "topic messages" only; off = the more accepting reading).
    public var conditionUsesTopicLimit = false
    public var payloadMeasure = FCMPayloadMeasure.dataAndNotification
    /// Largest `android.ttl` in whole seconds (docs/fcm.md §2.2, §4.5: 2419200, 4 weeks).
    public var maxTTLSeconds: Int64 = 2_419_200
    public var unknownFields = FCMUnknownFieldPolicy.accept
    /// Accept the `fid` target (docs/fcm.md §2.1: in current SDKs, absent from the 2023 discovery document).
    public var acceptFID = true
    /// Accept `topic` values with the `/topics/` prefix (docs/fcm.md §2.1: the Go SDK's pattern
    /// allows it, the SDKs strip it; what the server does is not recorded).
    public var acceptTopicsPrefix = true
    /// Check `analytics_label` against the SDK pattern (docs/fcm.md §2.1: server rule UNCONFIRMED).
    public var checkAnalyticsLabel = false
    /// Refuse data-only messages whose `apns-priority` header is not `5` (docs/fcm.md §2.1).
    public var checkDataOnlyAPNsPriority = false
    /// Reserved `data` key prefixes (docs/fcm.md §2.1, the discovery text: `google`, `gcm`; older
    /// docs said `google.` and `gcm.notification.`).
    public var reservedDataKeyPrefixes = ["google", "gcm"]
    /// Reserved `data` keys (docs/fcm.md §2.1).
    public var reservedDataKeys: Set<String> = ["from", "message_type"]
    /// Error bodies replacing the default of a rule (e.g. `.payloadTooLarge:
    /// .payloadTooLargeLegacy` for the older capture).
    public var errorOverrides: [FCMValidationRule: GoogleErrorEnvelope] = [:]

    public init() {}

    /// The error body of `rule` (overrides first). `.wrongType` and `.missingTarget` are
    /// built with their field by the validator; this is the body for the other rules.
    public func error(for rule: FCMValidationRule) -> GoogleErrorEnvelope {
        if let o = errorOverrides[rule] { return o }
        switch rule {
        case .missingTarget: return .missingRecipient
        case .payloadTooLarge: return .payloadTooLarge
        default: return .invalidArgument
        }
    }
}
