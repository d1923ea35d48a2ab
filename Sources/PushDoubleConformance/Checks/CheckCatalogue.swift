import Foundation
import PushDoubleCore

/// The catalogue of every check the runner knows: stable ids, titles, references, severities.
///
/// Ids never change meaning once shipped: the APNs ids of checks that became generic stay
/// valid as aliases (``aliases``). Not covered (see docs/conformance.md): A15
/// (delayed 410).
public enum CheckCatalogue {
    /// The synthetic check every case carries: the sender spoke the driver protocol.
    public static let driverCheckID = "driver.protocol"

    public static let driverProtocol = CheckDefinition(
        id: driverCheckID, title: "Sender answers every driver call in time with a well-formed reply",
        reference: "DESIGN §4 (driver protocol v1)", severity: .must
    ) { _ in .held("every call answered") }

    /// The generic checks, written once over ``Attempt``s (Checks/Generic); ids without a
    /// provider prefix.
    public static let generic: [CheckDefinition] = [
        OutcomeChecks.outcome, OutcomeChecks.truthful, OutcomeChecks.noLoss,
        RetryChecks.noRetryPermanent, RetryChecks.deadTokenNotReused, RegistrationChecks.reregisteredTokenUsed, RetryChecks.retryAfter,
        RetryChecks.transientRetried, RetryChecks.boundedAttempts, RetryChecks.noTightRetryLoop, RetryChecks.backoffGrows,
        RetryChecks.backoffJitter, RetryChecks.noDuplicateDelivery, ConnectionChecks.connectionReuse,
    ]

    /// Every check, in catalogue order: the driver check, the generic ones, then each
    /// registered provider's own (``ConformanceProviders/all``).
    public static let all: [CheckDefinition] = [driverProtocol] + generic + ConformanceProviders.all.flatMap(\.checks)

    /// Canonical id → check.
    public static let byID: [String: CheckDefinition] = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })

    /// An old id of a generic check (``ConformanceProvider/aliases``), the generic id and
    /// the provider the old id scopes the check to.
    public struct Alias: Sendable, Equatable {
        public var id: String
        public var canonical: String
        public var provider: ProviderID
    }

    /// Old id → alias, for every registered provider.
    public static let aliases: [String: Alias] = {
        var out: [String: Alias] = [:]
        for p in ConformanceProviders.all {
            for (old, new) in p.aliases { out[old] = Alias(id: old, canonical: new, provider: p.provider) }
        }
        return out
    }()

    /// Every id a scenario, baseline or mutant table may name: canonical ids and aliases.
    public static var ids: Set<String> { Set(byID.keys).union(aliases.keys) }

    /// The canonical id for `id` (itself unless it is an alias).
    public static func canonicalID(_ id: String) -> String { aliases[id]?.canonical ?? id }

    /// The check an id names, and the provider an alias scopes it to (nil: every provider).
    public static func resolve(_ id: String) -> (check: CheckDefinition, scope: ProviderID?)? {
        if let c = byID[id] { return (c, nil) }
        guard let a = aliases[id], let c = byID[a.canonical] else { return nil }
        return (c, a.provider)
    }

    /// Old ids of a canonical check, sorted.
    public static func aliases(of id: String) -> [String] { aliases.values.filter { $0.canonical == id }.map(\.id).sorted() }
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

    /// (The reference sender's `webpush-aesgcm` and `webpush-urgency-ignored` break SHOULD rules
    /// only: the suite passes them with a warning from `webpush.aes128gcm` / `webpush.urgency`,
    /// so they are not entries here; docs/conformance.md lists them.)
    public static let entries: [Entry] = [
        Entry(mutant: "retry-dead-tokens", bug: "retries and reuses tokens APNs called dead",
              failingChecks: ["no-retry-permanent", "dead-token-not-reused"]),
        Entry(mutant: "jwt-per-request", bug: "signs a new JWT for every push", failingChecks: ["apns.jwt-reuse"]),
        Entry(mutant: "ignore-retry-after", bug: "retries before Retry-After elapsed", failingChecks: ["retry-after"]),
        Entry(mutant: "no-backoff", bug: "retries 5xx without growing delays", failingChecks: ["no-tight-retry-loop", "backoff-grows"]),
        Entry(mutant: "connection-per-push", bug: "opens a new connection for every push", failingChecks: ["connection-reuse"]),
        Entry(mutant: "oversized-payloads", bug: "sends payloads over 4096 bytes instead of rejecting them", failingChecks: ["apns.payload-limits"]),
        Entry(mutant: "wrong-topic-suffix", bug: "omits the push-type topic suffix", failingChecks: ["apns.header.topic-suffix"]),
        Entry(mutant: "background-priority-10", bug: "sends background pushes with priority 10", failingChecks: ["apns.header.background"]),
        Entry(mutant: "resend-all-after-goaway", bug: "resends every stream after GOAWAY, processed ones too",
              failingChecks: ["apns.goaway-unprocessed", "no-duplicate-delivery"]),
        Entry(mutant: "never-retry-transient", bug: "gives up on 429/5xx/connection loss at once", failingChecks: ["transient-retried"]),
        Entry(mutant: "remint-on-token-update-error", bug: "mints a new JWT and retries at once after TooManyProviderTokenUpdates",
              failingChecks: ["apns.token-updates-keep-jwt"]),
        Entry(mutant: "report-sent-always", bug: "reports every device as sent", failingChecks: ["outcome", "outcome-truthful"]),
        Entry(mutant: "never-revive-dead-tokens", bug: "skips a dead token forever, even after it was registered again",
              failingChecks: ["reregistered-token-used"]),
        Entry(mutant: "webpush-wrong-auth-secret", bug: "encrypts to the wrong auth secret: accepted, undecryptable",
              failingChecks: ["webpush.decryptable"]),
        Entry(mutant: "webpush-audience-with-path", bug: "signs VAPID aud with the endpoint URL, not its origin", failingChecks: ["webpush.vapid"]),
        Entry(mutant: "webpush-long-expiry", bug: "signs VAPID exp 48 h ahead", failingChecks: ["webpush.vapid"]),
        Entry(mutant: "webpush-no-ttl", bug: "sends no TTL", failingChecks: ["webpush.ttl"]),
        Entry(mutant: "webpush-raw-topic", bug: "sends the collapse key as Topic unchecked", failingChecks: ["webpush.topic"]),
        Entry(mutant: "webpush-oversized", bug: "sends payloads too large for one record", failingChecks: ["webpush.payload-limits"]),
        Entry(mutant: "webpush-no-vapid", bug: "sends no VAPID Authorization", failingChecks: ["webpush.vapid"]),
        Entry(mutant: "webpush-missing-subject", bug: "signs VAPID JWTs without sub", failingChecks: ["webpush.vapid"]),
        Entry(mutant: "expo-no-chunking", bug: "sends more than 100 recipients in one Expo request", failingChecks: ["expo.chunk-size"]),
        Entry(mutant: "expo-ignore-ticket-errors", bug: "takes DeviceNotRegistered tickets as pending and keeps using those tokens", failingChecks: ["dead-token-not-reused", "expo.settled-outcome"]),
        Entry(mutant: "expo-no-receipts", bug: "never fetches Expo receipts", failingChecks: ["expo.receipts-fetched", "expo.settled-outcome"]),
        Entry(mutant: "expo-absent-receipt-is-ok", bug: "reports sent when the receipt is not available yet", failingChecks: ["expo.receipt-truthful"]),
        Entry(mutant: "expo-tickets-reversed", bug: "maps Expo tickets to the wrong devices", failingChecks: ["outcome-truthful", "expo.settled-outcome"]),
        Entry(mutant: "expo-resend-too-big", bug: "sends messages over 4096 bytes and resends them after a MessageTooBig receipt", failingChecks: ["expo.too-big-not-resent", "expo.message-size"]),
        Entry(mutant: "expo-no-backoff", bug: "retries 429 TOO_MANY_REQUESTS at once, ignoring Retry-After", failingChecks: ["retry-after"]),
        Entry(mutant: "expo-no-access-token", bug: "never sends the configured Expo access token", failingChecks: ["expo.access-token"]),
        Entry(mutant: "expo-receipts-one-request", bug: "asks for more than 1000 receipts in one request", failingChecks: ["expo.receipts-chunk-size"]),
        Entry(mutant: "expo-receipts-foreign-ids", bug: "asks for receipts of ids it never got", failingChecks: ["expo.receipts-own-ids"]),
        Entry(mutant: "expo-ignore-receipt-dead", bug: "takes a DeviceNotRegistered receipt as sent and keeps using the token", failingChecks: ["expo.receipt-dead-not-reused", "expo.receipt-truthful"]),
    ]
}
