/// The error bodies FCM is recorded to answer with (docs/fcm.md §4.3), one factory per case.
/// Every message text is verbatim from docs/fcm.md; where docs/fcm.md leaves part of a text open, the
/// parameter that fills it is named and documented.
extension GoogleErrorEnvelope {
    /// `Request contains an invalid argument.`: the generic 400 text of the older captures
    /// (docs/fcm.md §4.3, "Invalid token (older capture)", "Payload too large, older" [O]).
    public static let genericInvalidArgumentMessage = "Request contains an invalid argument."

    /// Invalid registration token, current documentation form (docs/fcm.md §4.3 "doc example 2" [A]).
    public static let invalidRegistrationToken = GoogleErrorEnvelope(
        code: 400, message: "The registration token is not a valid FCM registration token",
        status: .invalidArgument, details: [.fcmError(.invalidArgument)])

    /// Invalid registration token, older capture: generic text, FcmError then BadRequest
    /// (docs/fcm.md §4.3 "Invalid token (older capture)" [O]).
    public static let invalidRegistrationTokenLegacy = GoogleErrorEnvelope(
        code: 400, message: genericInvalidArgumentMessage, status: .invalidArgument,
        details: [.fcmError(.invalidArgument),
                  .badRequest([GoogleFieldViolation(field: "message.token", description: "Invalid registration token")])])

    /// A value of the wrong JSON type: `Invalid value at '<field>' (<TYPE>), <value>` with one
    /// BadRequest naming the field and repeating the text, **no FcmError** (docs/fcm.md §2.1 and
    /// §4.3 "Non-string data value (doc example 1)" [A]: `message.data[0].value`, `TYPE_STRING`, `12`).
    public static func invalidValue(field: String, protoType: String, valueText: String) -> GoogleErrorEnvelope {
        let text = "Invalid value at '\(field)' (\(protoType)), \(valueText)"
        return GoogleErrorEnvelope(code: 400, message: text, status: .invalidArgument,
                                   details: [.badRequest([GoogleFieldViolation(field: field, description: text)])])
    }

    /// No target: BadRequest **first**, then FcmError (docs/fcm.md §4.3 "Missing recipient" [O]).
    public static let missingRecipient: GoogleErrorEnvelope = {
        let text = "Recipient of the message is not set."
        return GoogleErrorEnvelope(code: 400, message: text, status: .invalidArgument,
                                   details: [.badRequest([GoogleFieldViolation(field: "message", description: text)]),
                                             .fcmError(.invalidArgument)])
    }()

    /// Payload too large, 2023 onwards: a bare BadRequest, then FcmError (docs/fcm.md §4.3 [O]).
    public static let payloadTooLarge = GoogleErrorEnvelope(
        code: 400, message: "Android message is too big", status: .invalidArgument,
        details: [.badRequest(nil), .fcmError(.invalidArgument)])

    /// Payload too large, older: generic text and no `details` (docs/fcm.md §4.3 [O]).
    public static let payloadTooLargeLegacy = GoogleErrorEnvelope(
        code: 400, message: genericInvalidArgumentMessage, status: .invalidArgument, details: nil)

    /// A request FCM refuses as INVALID_ARGUMENT where docs/fcm.md records the rule but not the
    /// text: the generic message with one FcmError `INVALID_ARGUMENT` (docs/fcm.md §4.4: "invalid
    /// data key, invalid TTL, or another parameter"; text from §4.3's older captures).
    public static let invalidArgument = GoogleErrorEnvelope(
        code: 400, message: genericInvalidArgumentMessage, status: .invalidArgument, details: [.fcmError(.invalidArgument)])

    /// Unregistered token (docs/fcm.md §4.1, §4.3 "Unregistered token" [O]).
    public static let unregistered = GoogleErrorEnvelope(
        code: 404, message: "Requested entity was not found.", status: .notFound, details: [.fcmError(.unregistered)])

    /// Token of another sender (docs/fcm.md §4.3 "Sender mismatch" [O]).
    public static let senderIDMismatch = GoogleErrorEnvelope(
        code: 403, message: "SenderId mismatch", status: .permissionDenied, details: [.fcmError(.senderIDMismatch)])

    /// The 2020 text of THIRD_PARTY_AUTH_ERROR (docs/fcm.md §4.2 byte capture, §4.3 [O]).
    public static let thirdPartyAuthMessage = "Auth error from APNS or Web Push Service"

    /// APNs / Web Push credentials bad (docs/fcm.md §4.2, §4.3 [O]). `message` defaults to the 2020
    /// text; 2026 captures also show `missingCredentialMessage` with the same FcmError.
    /// `code` may be `.apnsAuthError`, the deprecated name (§4.4).
    public static func thirdPartyAuthError(message: String = thirdPartyAuthMessage,
                                           code: FCMErrorCode = .thirdPartyAuthError) -> GoogleErrorEnvelope {
        GoogleErrorEnvelope(code: 401, message: message, status: .unauthenticated, details: [.fcmError(code)])
    }

    /// Internal error (docs/fcm.md §4.3 "Internal" [O]).
    public static let `internal` = GoogleErrorEnvelope(
        code: 500, message: "Internal error encountered.", status: .internal, details: [.fcmError(.internal)])

    /// Service unavailable (docs/fcm.md §4.3 "Unavailable" [O]).
    public static let unavailable = GoogleErrorEnvelope(
        code: 503, message: "The service is currently unavailable.", status: .unavailable, details: [.fcmError(.unavailable)])

    /// The message for a rejected OAuth token, verbatim (docs/fcm.md §4.3 "Invalid OAuth token" [O]).
    public static let invalidCredentialsMessage = "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."

    /// The message for a request without credentials. docs/fcm.md §4.3 records only its start,
    /// `Request is missing required authentication credential.`, and "the same shape" as
    /// the invalid-token case; the rest is completed from that case's text (an assumption).
    public static let missingCredentialMessage = "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."

    /// 401 for an invalid / expired / revoked access token: no `details` (docs/fcm.md §4.3 [O]).
    public static let invalidCredentials = GoogleErrorEnvelope(
        code: 401, message: invalidCredentialsMessage, status: .unauthenticated, details: nil)

    /// 401 for a missing `Authorization` header: no `details` (docs/fcm.md §4.3 [O]).
    public static let missingCredential = GoogleErrorEnvelope(
        code: 401, message: missingCredentialMessage, status: .unauthenticated, details: nil)

    /// 403 when the account lacks the IAM permission (docs/fcm.md §4.3 "IAM permission missing",
    /// [O] partial; the exact tail is UNCONFIRMED). No `details` are recorded.
    public static func permissionDenied(project: String) -> GoogleErrorEnvelope {
        GoogleErrorEnvelope(
            code: 403,
            message: "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/\(project)' (or it may not exist).",
            status: .permissionDenied, details: nil)
    }

    /// The text of a reserved `data` key refusal, naming the key: `Invalid data payload key: from`
    /// (docs/fcm.md §4.3a [O]); the envelope is otherwise the generic one.
    public static func reservedDataKeyMessage(_ key: String) -> String { "Invalid data payload key: " + key }

    /// 403 for an access token minted without an FCM scope (`firebase.messaging` or
    /// `cloud-platform`): Google's text for every API (docs/fcm.md §6.3a [O]); no `details`
    /// are recorded for FCM.
    public static let insufficientScopes = GoogleErrorEnvelope(
        code: 403, message: "Request had insufficient authentication scopes.", status: .permissionDenied, details: nil)

    /// GCP's usual quota text (docs/fcm.md §4.3 "Quota"; the text is UNCONFIRMED for FCM, so
    /// `quotaExceeded(message:)` takes any other).
    public static func gcpQuotaMessage(metric: String, limit: String, projectNumber: String) -> String {
        "Quota exceeded for quota metric '\(metric)' and limit '\(limit)' of service 'fcm.googleapis.com' for consumer 'project_number:\(projectNumber)'."
    }

    /// 429 RESOURCE_EXHAUSTED with FcmError QUOTA_EXCEEDED, optionally followed by a
    /// `google.rpc.QuotaFailure` (docs/fcm.md §4.3 "Quota", §4.4 [A]; message UNCONFIRMED).
    public static func quotaExceeded(message: String, withQuotaFailure: Bool = false) -> GoogleErrorEnvelope {
        GoogleErrorEnvelope(code: 429, message: message, status: .resourceExhausted,
                            details: [.fcmError(.quotaExceeded)] + (withQuotaFailure ? [.quotaFailure] : []))
    }
}
