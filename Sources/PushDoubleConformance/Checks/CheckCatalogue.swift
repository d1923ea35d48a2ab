import Foundation

/// The catalogue of every check the runner knows: stable ids, titles, references, severities.
///
/// Ids never change meaning once shipped. Not covered (see docs/conformance.md): A15
/// (delayed 410).
public enum CheckCatalogue {
    /// The synthetic check every case carries: the sender spoke the driver protocol.
    public static let driverCheckID = "driver.protocol"

    public static let driverProtocol = CheckDefinition(
        id: driverCheckID, title: "Sender answers every driver call in time with a well-formed reply",
        reference: "DESIGN §4 (driver protocol v1)", severity: .must
    ) { _ in .held("every call answered") }

    /// Every check, in catalogue order.
    public static let all: [CheckDefinition] = [
        driverProtocol,
        OutcomeChecks.outcome, OutcomeChecks.truthful, OutcomeChecks.noLoss,
        RetryChecks.noRetryPermanent, RetryChecks.deadTokenNotReused, RetryChecks.retryAfter,
        RetryChecks.transientRetried, RetryChecks.boundedAttempts, RetryChecks.noTightRetryLoop, RetryChecks.backoffGrows,
        RetryChecks.backoffJitter,
        RetryChecks.noDuplicateDelivery, RetryChecks.goAway,
        AuthConnectionChecks.jwtContents, AuthConnectionChecks.jwtExactMembers, AuthConnectionChecks.jwtIatInteger,
        AuthConnectionChecks.jwtReuse, AuthConnectionChecks.jwtMaxAge,
        AuthConnectionChecks.jwtRefreshAfterExpired, AuthConnectionChecks.keepTokenAfterTooManyUpdates,
        AuthConnectionChecks.unrelatedKeyNewConnection,
        AuthConnectionChecks.connectionReuse, AuthConnectionChecks.maxConcurrentStreams, AuthConnectionChecks.noPriorityFrames,
        HeaderChecks.topicSuffix, HeaderChecks.background, HeaderChecks.expiration, HeaderChecks.collapseID,
        HeaderChecks.apnsID, HeaderChecks.noDuplicateHeaders, HeaderChecks.payloadLimits, HeaderChecks.environmentHost,
        MappingCheck.check,
    ]

    public static let byID: [String: CheckDefinition] = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
    public static var ids: Set<String> { Set(byID.keys) }
}

/// The reference sender's planted bugs and the check ids each one must fail (one table:
/// the end-to-end test and the README use it).
public enum MutantTable {
    /// One mutant, its planted bug and the checks it must fail.
    public struct Entry: Sendable {
        public var mutant: String
        public var bug: String
        /// Check ids that must not pass (fail, or warn for SHOULD checks) somewhere in the suite.
        public var failingChecks: [String]
    }

    public static let entries: [Entry] = [
        Entry(mutant: "retry-dead-tokens", bug: "retries and reuses tokens APNs called dead",
              failingChecks: ["apns.no-retry-permanent", "apns.dead-token-not-reused"]),
        Entry(mutant: "jwt-per-request", bug: "signs a new JWT for every push", failingChecks: ["apns.jwt-reuse"]),
        Entry(mutant: "ignore-retry-after", bug: "retries before Retry-After elapsed", failingChecks: ["apns.retry-after"]),
        Entry(mutant: "no-backoff", bug: "retries 5xx without growing delays", failingChecks: ["apns.no-tight-retry-loop", "apns.backoff-grows"]),
        Entry(mutant: "connection-per-push", bug: "opens a new connection for every push", failingChecks: ["apns.connection-reuse"]),
        Entry(mutant: "oversized-payloads", bug: "sends payloads over 4096 bytes instead of rejecting them", failingChecks: ["apns.payload-limits"]),
        Entry(mutant: "wrong-topic-suffix", bug: "omits the push-type topic suffix", failingChecks: ["apns.header.topic-suffix"]),
        Entry(mutant: "background-priority-10", bug: "sends background pushes with priority 10", failingChecks: ["apns.header.background"]),
        Entry(mutant: "resend-all-after-goaway", bug: "resends every stream after GOAWAY, processed ones too",
              failingChecks: ["apns.goaway-unprocessed", "apns.no-duplicate-delivery"]),
        Entry(mutant: "never-retry-transient", bug: "gives up on 429/5xx/connection loss at once", failingChecks: ["apns.transient-retried"]),
        Entry(mutant: "remint-on-token-update-error", bug: "mints a new JWT and retries at once after TooManyProviderTokenUpdates",
              failingChecks: ["apns.token-updates-keep-jwt"]),
        Entry(mutant: "report-sent-always", bug: "reports every device as sent", failingChecks: ["apns.outcome", "apns.outcome-truthful"]),
    ]
}
