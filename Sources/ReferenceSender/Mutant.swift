/// A planted bug (`--mutant NAME`): each breaks exactly one rule the conformance suite
/// checks, so a suite that passes the reference sender must fail each mutant.
enum Mutant: String, CaseIterable, Sendable {
    case retryDeadTokens = "retry-dead-tokens"
    case jwtPerRequest = "jwt-per-request"
    case ignoreRetryAfter = "ignore-retry-after"
    case noBackoff = "no-backoff"
    case connectionPerPush = "connection-per-push"
    case oversizedPayloads = "oversized-payloads"
    case wrongTopicSuffix = "wrong-topic-suffix"
    case backgroundPriority10 = "background-priority-10"
    case resendAllAfterGoaway = "resend-all-after-goaway"
    case neverRetryTransient = "never-retry-transient"
    case reportSentAlways = "report-sent-always"
    case remintOnTokenUpdateError = "remint-on-token-update-error"
    case neverReviveDeadTokens = "never-revive-dead-tokens"
    // Expo (ExpoSender)
    case expoNoChunking = "expo-no-chunking"
    case expoIgnoreTicketErrors = "expo-ignore-ticket-errors"
    case expoNoReceipts = "expo-no-receipts"
    case expoAbsentReceiptIsOK = "expo-absent-receipt-is-ok"
    case expoTicketsReversed = "expo-tickets-reversed"
    case expoResendTooBig = "expo-resend-too-big"
    case expoNoBackoff = "expo-no-backoff"
    case expoNoAccessToken = "expo-no-access-token"
    case expoReceiptsOneRequest = "expo-receipts-one-request"
    case expoReceiptsForeignIDs = "expo-receipts-foreign-ids"
    case expoIgnoreReceiptDead = "expo-ignore-receipt-dead"

    /// One line: the bug, and the check that should catch it.
    var summary: String {
        switch self {
        case .retryDeadTokens: return "retries 410 Unregistered/ExpiredToken and 400 BadDeviceToken, and keeps sending to dead tokens (G4, A1, A2)"
        case .jwtPerRequest: return "mints a fresh provider JWT (newly signed, current iat) for every request (A6)"
        case .ignoreRetryAfter: return "retries at once when the response carries Retry-After (G1, G2, A3)"
        case .noBackoff: return "retries transient errors (429, 500, 503, lost connections) with no delay (G3, A4)"
        case .connectionPerPush: return "opens a new HTTP/2 connection for every push (A10)"
        case .oversizedPayloads: return "sends payloads over 4096 bytes (5120 for voip) instead of rejecting them locally (A13)"
        case .wrongTopicSuffix: return "uses the bare bundle id as apns-topic for every push type (A12)"
        case .backgroundPriority10: return "sends background pushes with apns-priority 10 (A12)"
        case .resendAllAfterGoaway: return "after a GOAWAY resends every request of the connection, processed ones too (A5)"
        case .neverRetryTransient: return "reports failed on the first 5xx or 429 without retrying (G3, A3, A4)"
        case .reportSentAlways: return "reports outcome sent for every device whatever happened (outcome checks)"
        case .neverReviveDeadTokens: return "keeps skipping a dead token after the app registered it again (registeredAt later than the death)"
        case .remintOnTokenUpdateError: return "treats 429 TooManyProviderTokenUpdates like ExpiredProviderToken: mints a new JWT and retries at once (A8)"
        case .expoNoChunking: return "Expo: sends every device of a send in one request, over 100 recipients too (PUSH_TOO_MANY_NOTIFICATIONS)"
        case .expoIgnoreTicketErrors: return "Expo: takes every ticket as pending, DeviceNotRegistered ones too, and keeps sending to those tokens"
        case .expoNoReceipts: return "Expo: never fetches receipts, so receipt-only deaths and errors go unnoticed"
        case .expoAbsentReceiptIsOK: return "Expo: reports sent when getReceipts leaves a ticket's receipt out (not yet available)"
        case .expoTicketsReversed: return "Expo: maps tickets to devices in reverse order (prunes the wrong devices)"
        case .expoResendTooBig: return "Expo: skips the local 4096-byte check and resends a message whose receipt is MessageTooBig"
        case .expoNoBackoff: return "Expo: retries 429 TOO_MANY_REQUESTS and MessageRateExceeded at once, ignoring Retry-After"
        case .expoNoAccessToken: return "Expo: never sends the configured access token (enhanced push security)"
        case .expoReceiptsOneRequest: return "Expo: asks for every receipt in one getReceipts request, over 1000 ids too (PUSH_TOO_MANY_RECEIPTS)"
        case .expoReceiptsForeignIDs: return "Expo: asks getReceipts for ids it never got a ticket for"
        case .expoIgnoreReceiptDead: return "Expo: takes a DeviceNotRegistered receipt as sent and keeps sending to the token"
        }
    }
}
