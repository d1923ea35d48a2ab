/// The reference sender's planted FCM bugs and the checks each must fail (its part of
/// ``MutantTable``; the end-to-end tests and the README use it).
extension FCMConformance {
    /// (The reference sender's `fcm-topic-prefix` breaks a SHOULD rule only: FCM's answer to a
    /// `/topics/` prefix is not recorded, so the suite passes it with a warning from
    /// `fcm.topic-bare-name`; it is not an entry here; docs/conformance.md lists it.)
    public var mutants: [MutantTable.Entry] { Self.mutantEntries }

    static let mutantEntries: [MutantTable.Entry] = [
        MutantTable.Entry(mutant: "fcm-token-per-message", bug: "mints a new OAuth2 access token for every FCM message", failingChecks: ["fcm.access-token-reuse"]),
        MutantTable.Entry(mutant: "fcm-retry-unregistered", bug: "retries UNREGISTERED / SENDER_ID_MISMATCH and keeps sending to those tokens", failingChecks: ["no-retry-permanent", "dead-token-not-reused"]),
        MutantTable.Entry(mutant: "fcm-retry-invalid-argument", bug: "retries 400 INVALID_ARGUMENT unchanged", failingChecks: ["no-retry-permanent"]),
        MutantTable.Entry(mutant: "fcm-ignore-retry-after", bug: "retries FCM 429 before its Retry-After", failingChecks: ["retry-after"]),
        MutantTable.Entry(mutant: "fcm-no-backoff", bug: "retries FCM 5xx at once, with no delay", failingChecks: ["no-tight-retry-loop", "backoff-grows"]),
        MutantTable.Entry(mutant: "fcm-never-retry-transient", bug: "gives up on the first FCM 429/5xx", failingChecks: ["transient-retried"]),
        MutantTable.Entry(mutant: "fcm-no-remint-on-401", bug: "resends with the access token FCM refused (401)", failingChecks: ["fcm.remint-on-401"]),
        MutantTable.Entry(mutant: "fcm-numeric-data", bug: "sends data values as JSON numbers, not strings", failingChecks: ["fcm.valid-messages"]),
        MutantTable.Entry(mutant: "fcm-no-local-checks", bug: "sends reserved data keys and oversize messages to FCM", failingChecks: ["fcm.local-validation"]),
        MutantTable.Entry(mutant: "fcm-connection-per-message", bug: "opens a new FCM connection for every message", failingChecks: ["connection-reuse"]),
        MutantTable.Entry(mutant: "fcm-ttl-number", bug: "sends android.ttl as a number instead of a duration string", failingChecks: ["fcm.valid-messages"]),
        MutantTable.Entry(mutant: "fcm-wrong-audience", bug: "signs token assertions for another audience", failingChecks: ["fcm.mints-succeed"]),
        MutantTable.Entry(mutant: "fcm-background-priority-10", bug: "sends background notifications without apns-priority 5 / apns-push-type background",
                          failingChecks: ["fcm.apns-background"]),
        MutantTable.Entry(mutant: "fcm-invalid-token-kept", bug: "keeps sending to a token FCM called not a valid registration token",
                          failingChecks: ["dead-token-not-reused", "outcome"]),
        MutantTable.Entry(mutant: "fcm-invalid-argument-kills-token", bug: "deactivates the token on a message-level INVALID_ARGUMENT",
                          failingChecks: ["outcome"]),
        MutantTable.Entry(mutant: "fcm-remint-on-any-401", bug: "re-mints the access token and resends after THIRD_PARTY_AUTH_ERROR",
                          failingChecks: ["no-retry-permanent"]),
        MutantTable.Entry(mutant: "fcm-topic-keep-not-found", bug: "names tokens a topic batch reported NOT_FOUND in later batches",
                          failingChecks: ["fcm.topic-not-found-removed"]),
        MutantTable.Entry(mutant: "fcm-topic-resend-batch", bug: "resends a topic batch's good tokens after one bad token",
                          failingChecks: ["fcm.topic-no-batch-resend"]),
        MutantTable.Entry(mutant: "fcm-topic-no-retry", bug: "gives up on a topic batch answered 429/5xx", failingChecks: ["fcm.topic-retried"]),
        MutantTable.Entry(mutant: "fcm-topic-one-batch", bug: "sends more than 1000 tokens in one topic batch", failingChecks: ["fcm.topic-batch-size"]),
    ]
}
