/// The reference sender's planted WebPush bugs and the checks each must fail (its part of
/// ``MutantTable``; the end-to-end tests and the README use it).
extension WebPushConformance {
    /// (The reference sender's `webpush-aesgcm` and `webpush-urgency-ignored` break SHOULD rules
    /// only: the suite passes them with a warning from `webpush.aes128gcm` / `webpush.urgency`,
    /// so they are not entries here; docs/conformance.md lists them.)
    public var mutants: [MutantTable.Entry] { Self.mutantEntries }

    static let mutantEntries: [MutantTable.Entry] = [
        MutantTable.Entry(mutant: "webpush-ttl-changed", bug: "sends TTL 0 whatever ttlSeconds asks for", failingChecks: ["webpush.ttl"]),
        MutantTable.Entry(mutant: "webpush-wrong-auth-secret", bug: "encrypts to the wrong auth secret: accepted, undecryptable",
              failingChecks: ["webpush.decryptable"]),
        MutantTable.Entry(mutant: "webpush-audience-with-path", bug: "signs VAPID aud with the endpoint URL, not its origin", failingChecks: ["webpush.vapid"]),
        MutantTable.Entry(mutant: "webpush-long-expiry", bug: "signs VAPID exp 48 h ahead", failingChecks: ["webpush.vapid"]),
        MutantTable.Entry(mutant: "webpush-no-ttl", bug: "sends no TTL", failingChecks: ["webpush.ttl"]),
        MutantTable.Entry(mutant: "webpush-raw-topic", bug: "sends the collapse key as Topic unchecked", failingChecks: ["webpush.topic"]),
        MutantTable.Entry(mutant: "webpush-oversized", bug: "sends payloads too large for one record", failingChecks: ["webpush.payload-limits"]),
        MutantTable.Entry(mutant: "webpush-no-vapid", bug: "sends no VAPID Authorization", failingChecks: ["webpush.vapid"]),
        MutantTable.Entry(mutant: "webpush-missing-subject", bug: "signs VAPID JWTs without sub", failingChecks: ["webpush.vapid"]),
        MutantTable.Entry(mutant: "webpush-declarative-relative-navigate", bug: "sends a declarative message's navigate as the link's path",
              failingChecks: ["webpush.declarative"]),
    ]
}
