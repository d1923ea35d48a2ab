import Foundation
import PushDoubleCore

/// One provider's side of the conformance runner (its folder under Providers/): a judge
/// that turns that provider's part of a history into provider-neutral ``Attempt``s, the
/// facts the classification rests on, and the checks only that provider has.
///
/// The generic checks (Checks/Generic) are written once over attempts; a provider brings
/// only its judge and its own checks, and registers in ``ConformanceProviders/all``.
public protocol ConformanceProvider: Sendable {
    var provider: ProviderID { get }
    /// What the provider answers, in the classifier's words (dead, never-retry, retryable reasons).
    var facts: ProviderFacts { get }
    /// One attempt per recipient per request of this provider in `ctx.history`, each with
    /// its send step (``AttemptLog/step(at:_:)``) and scenario device.
    func attempts(_ ctx: CheckContext) -> [Attempt]
    /// The checks only this provider has (ids prefixed with the provider id).
    var checks: [CheckDefinition] { get }
    /// Ids this provider shipped for checks that are now generic: old id → generic id.
    /// They keep working everywhere an id is accepted, scoped to this provider's attempts.
    var aliases: [String: String] { get }
    /// A device as `send` hands it to the sender: the scenario's device JSON, completed from
    /// what the sender was told once the fakes were bound (a Web Push endpoint written as a
    /// bare path gets the fake's URL) and without members only the fake may know. Default: as is.
    func senderDevice(_ device: JSONValue, configuration: SenderConfiguration?) -> JSONValue
    /// This provider's own citation of a generic rule (generic check id → where this
    /// provider's documentation states it), added to the check's provider-neutral reference in
    /// the cases that involve this provider (``CheckCatalogue/reference(of:providers:)``), so a
    /// Web Push failure cites the Web Push rule, not Apple's. Default: none.
    var ruleReferences: [String: String] { get }
    /// The scenario's devices a real client of this provider plays (``LiveDevices``), nil when
    /// it has none. Default: none.
    func liveDevices(for scenario: ConformanceScenario) -> (any LiveDevices)?
}

extension ConformanceProvider {
    public func senderDevice(_ device: JSONValue, configuration: SenderConfiguration?) -> JSONValue { device }
    public var ruleReferences: [String: String] { [:] }
    public func liveDevices(for scenario: ConformanceScenario) -> (any LiveDevices)? { nil }

    /// ``ruleReferences`` from a provider's citations of each rule: `permanent` for
    /// no-retry-permanent, `dead` for dead-token-not-reused, `retry` for every check of
    /// retrying 429/5xx after a delay, `connection` for connection-reuse (nil: not cited).
    public static func citations(permanent: String?, dead: String?, retry: String?, connection: String? = nil) -> [String: String] {
        var out: [String: String] = [:]
        out[RetryChecks.noRetryPermanent.id] = permanent
        out[RetryChecks.deadTokenNotReused.id] = dead
        for c in [RetryChecks.transientRetried, RetryChecks.noTightRetryLoop, RetryChecks.backoffGrows] { out[c.id] = retry }
        out[ConnectionChecks.connectionReuse.id] = connection
        return out
    }
}
