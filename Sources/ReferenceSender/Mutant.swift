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
    // Web Push (Sources/ReferenceSender/WebPush)
    case webpushWrongAuthSecret = "webpush-wrong-auth-secret"
    case webpushAESGCM = "webpush-aesgcm"
    case webpushAudienceWithPath = "webpush-audience-with-path"
    case webpushLongExpiry = "webpush-long-expiry"
    case webpushNoTTL = "webpush-no-ttl"
    case webpushUrgencyIgnored = "webpush-urgency-ignored"
    case webpushRawTopic = "webpush-raw-topic"
    case webpushOversized = "webpush-oversized"
    case webpushNoVAPID = "webpush-no-vapid"
    case webpushMissingSubject = "webpush-missing-subject"

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
        case .webpushWrongAuthSecret: return "encrypts Web Push messages with the wrong auth secret: the service accepts, the browser cannot decrypt (webpush.decryptable)"
        case .webpushAESGCM: return "encrypts Web Push messages with the legacy aesgcm draft instead of aes128gcm (webpush.aes128gcm)"
        case .webpushAudienceWithPath: return "signs VAPID aud with the endpoint's full URL, not its origin (webpush.vapid)"
        case .webpushLongExpiry: return "signs VAPID exp 48 h ahead, beyond the 24 h limit (webpush.vapid)"
        case .webpushNoTTL: return "sends Web Push requests without TTL (webpush.ttl)"
        case .webpushUrgencyIgnored: return "sends every Web Push message with Urgency normal, whatever the priority (webpush.urgency)"
        case .webpushRawTopic: return "uses the collapse key as Topic unchecked (over 32 characters, not base64url) (webpush.topic)"
        case .webpushNoVAPID: return "sends Web Push requests without VAPID (restricted subscriptions refuse them) (webpush.vapid)"
        case .webpushMissingSubject: return "signs VAPID JWTs without the sub claim (webpush.vapid)"
        case .webpushOversized: return "sends Web Push payloads too large for one record instead of rejecting them locally (webpush.payload-limits)"
        }
    }
}
