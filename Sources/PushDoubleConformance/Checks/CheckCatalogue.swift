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
        reference: "docs/conformance.md \"Driver protocol v1\"", severity: .must
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

    /// The tags a check implies for every case that runs it (`--only tag:retries`): one table.
    public static let impliedTags: [String: [String]] = [
        "retries": [RetryChecks.noRetryPermanent, RetryChecks.retryAfter, RetryChecks.transientRetried, RetryChecks.boundedAttempts,
                    RetryChecks.noTightRetryLoop, RetryChecks.backoffGrows, RetryChecks.backoffJitter, RetryChecks.noDuplicateDelivery].map(\.id),
        "tokens": [RetryChecks.deadTokenNotReused, RegistrationChecks.reregisteredTokenUsed].map(\.id),
        "connections": [ConnectionChecks.connectionReuse].map(\.id),
        "outcomes": [OutcomeChecks.outcome, OutcomeChecks.truthful, OutcomeChecks.noLoss].map(\.id),
    ]

    /// A case's tags, sorted: its file's own `tags`, its providers, and the tags its checks
    /// imply (``impliedTags``, by canonical id).
    public static func tags(of scenario: ConformanceScenario) -> [String] {
        let checks = Set(scenario.checks.map { canonicalID($0.id) })
        let implied = impliedTags.filter { !checks.isDisjoint(with: $0.value) }.map(\.key)
        return Array(Set(scenario.tags + scenario.providers + implied)).sorted()
    }

    /// A check's reference for a case that involves `providers`: its own, then each of those
    /// providers' citation of the rule (``ConformanceProvider/ruleReferences``), in registry order.
    public static func reference(of check: CheckDefinition, providers: [ProviderID]) -> String {
        let cites = ConformanceProviders.all.filter { providers.contains($0.provider) }.compactMap { $0.ruleReferences[check.id] }
        return ([check.reference] + cites).joined(separator: "; ")
    }

    /// Old ids of a canonical check, sorted.
    public static func aliases(of id: String) -> [String] { aliases.values.filter { $0.canonical == id }.map(\.id).sorted() }
}
