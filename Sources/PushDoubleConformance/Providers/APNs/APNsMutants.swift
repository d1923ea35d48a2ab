/// The reference sender's planted APNs bugs and the checks each must fail (its part of
/// ``MutantTable``; the end-to-end tests and the README use it).
extension APNsConformance {
    public var mutants: [MutantTable.Entry] { Self.mutantEntries }

    static let mutantEntries: [MutantTable.Entry] = [
        MutantTable.Entry(mutant: "push-type-dropped", bug: "sends voip, location and complication notifications as plain alerts to the bare topic",
              failingChecks: ["apns.header.topic-suffix"]),
        MutantTable.Entry(mutant: "retry-dead-tokens", bug: "retries and reuses tokens APNs called dead",
              failingChecks: ["no-retry-permanent", "dead-token-not-reused"]),
        MutantTable.Entry(mutant: "jwt-per-request", bug: "signs a new JWT for every push", failingChecks: ["apns.jwt-reuse"]),
        MutantTable.Entry(mutant: "ignore-retry-after", bug: "retries before Retry-After elapsed", failingChecks: ["retry-after"]),
        MutantTable.Entry(mutant: "no-backoff", bug: "retries 5xx without growing delays", failingChecks: ["no-tight-retry-loop", "backoff-grows"]),
        MutantTable.Entry(mutant: "connection-per-push", bug: "opens a new connection for every push", failingChecks: ["connection-reuse"]),
        // SHOULD only: the 413 is reported rejected, nothing is lost; the suite passes it with a warning.
        MutantTable.Entry(mutant: "oversized-payloads", bug: "sends payloads over 4096 bytes instead of rejecting them", failingChecks: ["apns.payload-limits"]),
        MutantTable.Entry(mutant: "no-jitter", bug: "backs off 0 s, 0.5 s, 1 s with no jitter: concurrent retries in lockstep (SHOULD)",
              failingChecks: ["backoff-jitter"]),
        MutantTable.Entry(mutant: "wrong-topic-suffix", bug: "omits the push-type topic suffix", failingChecks: ["apns.header.topic-suffix"]),
        MutantTable.Entry(mutant: "background-priority-10", bug: "sends background pushes with priority 10", failingChecks: ["apns.header.background"]),
        MutantTable.Entry(mutant: "resend-all-after-goaway", bug: "resends every stream after GOAWAY, processed ones too",
              failingChecks: ["apns.goaway-unprocessed", "no-duplicate-delivery"]),
        MutantTable.Entry(mutant: "fail-pending-at-goaway", bug: "fails every stream pending at GOAWAY, those at or below last-stream-id too, and resends them",
              failingChecks: ["apns.goaway-unprocessed", "no-duplicate-delivery"]),
        MutantTable.Entry(mutant: "certificate-error-kills-token", bug: "takes BadCertificateEnvironment (a certificate for the other environment) for a dead device token",
              failingChecks: ["outcome"]),
        MutantTable.Entry(mutant: "never-retry-transient", bug: "gives up on 429/5xx/connection loss at once", failingChecks: ["transient-retried"]),
        MutantTable.Entry(mutant: "give-up-unprocessed", bug: "gives up on streams refused or cut by GOAWAY unprocessed (the history records them as attempts)",
              failingChecks: ["transient-retried"]),
        MutantTable.Entry(mutant: "give-up-429-without-retry-after", bug: "retries 429 only when it carries Retry-After (every provider's sender)",
              failingChecks: ["transient-retried"]),
        MutantTable.Entry(mutant: "remint-on-token-update-error", bug: "mints a new JWT and retries at once after TooManyProviderTokenUpdates",
              failingChecks: ["apns.token-updates-keep-jwt"]),
        MutantTable.Entry(mutant: "report-sent-always", bug: "reports every device as sent", failingChecks: ["outcome", "outcome-truthful"]),
        MutantTable.Entry(mutant: "never-revive-dead-tokens", bug: "skips a dead token forever, even after it was registered again",
              failingChecks: ["reregistered-token-used"]),
        MutantTable.Entry(mutant: "broadcast-device-path", bug: "sends a Live Activity broadcast to /3/device/<channel id> instead of /4/broadcasts/apps/<bundle id>",
              failingChecks: ["apns.broadcast.path"]),
        MutantTable.Entry(mutant: "broadcast-no-channel-id", bug: "sends a broadcast without apns-channel-id", failingChecks: ["apns.broadcast.headers"]),
        MutantTable.Entry(mutant: "broadcast-alert-push-type", bug: "sends a broadcast with apns-push-type alert", failingChecks: ["apns.broadcast.headers"]),
        MutantTable.Entry(mutant: "broadcast-stored-expiration", bug: "sends a nonzero apns-expiration on a No Message Stored channel",
              failingChecks: ["apns.broadcast.headers"]),
        MutantTable.Entry(mutant: "broadcast-no-retry", bug: "gives up on a broadcast or channel request answered 429/5xx at once",
              failingChecks: ["apns.broadcast.retried"]),
        MutantTable.Entry(mutant: "channel-per-broadcast", bug: "creates a new channel for every broadcast instead of reusing the event's channel",
              failingChecks: ["apns.broadcast.channel"]),
    ]
}
