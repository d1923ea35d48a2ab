/// The FCM sender's planted bugs (``Mutant``), listed by ``FCMSenderProvider/mutants``.
extension Mutant {
    static let fcmTokenPerMessage = Mutant("fcm-token-per-message",
        "mints a new OAuth2 access token for every FCM message",
        fails: ["fcm.access-token-reuse"])
    static let fcmRetryUnregistered = Mutant("fcm-retry-unregistered",
        "retries FCM UNREGISTERED / SENDER_ID_MISMATCH as if transient and keeps sending to those tokens",
        fails: ["no-retry-permanent", "dead-token-not-reused"])
    static let fcmRetryInvalidArgument = Mutant("fcm-retry-invalid-argument",
        "retries FCM 400 INVALID_ARGUMENT unchanged, with backoff",
        fails: ["no-retry-permanent"])
    static let fcmIgnoreRetryAfter = Mutant("fcm-ignore-retry-after",
        "ignores Retry-After on FCM 429/503 and uses its own short backoff",
        fails: ["retry-after"])
    static let fcmNoBackoff = Mutant("fcm-no-backoff",
        "retries FCM 429/5xx without any delay",
        fails: ["no-tight-retry-loop", "backoff-grows"])
    static let fcmNeverRetryTransient = Mutant("fcm-never-retry-transient",
        "reports failed on the first FCM 429 or 5xx",
        fails: ["transient-retried"])
    static let fcmNoRemintOn401 = Mutant("fcm-no-remint-on-401",
        "after 401 UNAUTHENTICATED resends with the same, refused access token",
        fails: ["fcm.remint-on-401"])
    static let fcmNumericData = Mutant("fcm-numeric-data",
        "sends notification.data values with their JSON type (numbers stay numbers) instead of strings",
        fails: ["fcm.valid-messages"])
    static let fcmNoLocalChecks = Mutant("fcm-no-local-checks",
        "sends reserved data keys (from, google…, gcm…) and messages over 4096 bytes instead of rejecting them locally",
        fails: ["fcm.local-validation"])
    static let fcmConnectionPerMessage = Mutant("fcm-connection-per-message",
        "opens a new HTTP/2 connection to FCM for every message",
        fails: ["connection-reuse"])
    static let fcmTTLNumber = Mutant("fcm-ttl-number",
        "sends android.ttl as a JSON number instead of the duration string \"3600s\"",
        fails: ["fcm.valid-messages"])
    static let fcmWrongAudience = Mutant("fcm-wrong-audience",
        "signs the OAuth2 assertion with aud = the FCM URL instead of the token URL",
        fails: ["fcm.mints-succeed"])
    static let fcmBackgroundPriority10 = Mutant("fcm-background-priority-10",
        "sends a background (content-available only) notification without apns-priority 5 and apns-push-type background in the apns block",
        fails: ["fcm.apns-background"])
    static let fcmInvalidTokenKept = Mutant("fcm-invalid-token-kept",
        "treats 400 INVALID_ARGUMENT \"not a valid FCM registration token\" as a message error: reports rejected and keeps sending to the token",
        fails: ["dead-token-not-reused", "outcome"])
    static let fcmInvalidArgumentKillsToken = Mutant("fcm-invalid-argument-kills-token",
        "deactivates the token on any 400 INVALID_ARGUMENT, also when the message was at fault (outcome: the token's next message is skipped)",
        fails: ["outcome"])
    static let fcmRemintOnAny401 = Mutant("fcm-remint-on-any-401",
        "treats every 401 as an expired access token: on THIRD_PARTY_AUTH_ERROR mints a new token and resends",
        fails: ["no-retry-permanent"])
    static let fcmTopicPrefix = Mutant("fcm-topic-prefix",
        "sends topic targets as message.topic \"/topics/NAME\" (the legacy API's form) instead of the bare v1 name",
        fails: ["fcm.topic-bare-name"])
    static let fcmTopicKeepNotFound = Mutant("fcm-topic-keep-not-found",
        "keeps the tokens a topic batch reported NOT_FOUND and names them in later batches",
        fails: ["fcm.topic-not-found-removed"])
    static let fcmTopicResendBatch = Mutant("fcm-topic-resend-batch",
        "after a topic batch with a bad token, sends the batch's good tokens again",
        fails: ["fcm.topic-no-batch-resend"])
    static let fcmTopicNoRetry = Mutant("fcm-topic-no-retry",
        "gives up on a topic batch answered 429/5xx instead of retrying it",
        fails: ["fcm.topic-retried"])
    static let fcmTopicOneBatch = Mutant("fcm-topic-one-batch",
        "sends every token of a subscribe in one batch request, over 1000 too",
        fails: ["fcm.topic-batch-size"])
}

extension FCMSenderProvider {
    static var mutants: [Mutant] { [.fcmTokenPerMessage, .fcmRetryUnregistered, .fcmRetryInvalidArgument, .fcmIgnoreRetryAfter, .fcmNoBackoff, .fcmNeverRetryTransient, .fcmNoRemintOn401, .fcmNumericData, .fcmNoLocalChecks, .fcmConnectionPerMessage, .fcmTTLNumber, .fcmWrongAudience, .fcmTopicPrefix, .fcmBackgroundPriority10, .fcmInvalidTokenKept, .fcmInvalidArgumentKillsToken, .fcmRemintOnAny401, .fcmTopicKeepNotFound, .fcmTopicResendBatch, .fcmTopicNoRetry, .fcmTopicOneBatch] }
}
