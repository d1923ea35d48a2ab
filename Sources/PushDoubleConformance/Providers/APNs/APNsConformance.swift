import Foundation
import PushDoubleCore

/// APNs on the conformance seam: the judge that turns APNs pushes into ``Attempt``s (one
/// per push: an APNs request has one device token), the APNs-only checks, and the ids the
/// generic checks had while they were APNs checks.
public struct APNsConformance: ConformanceProvider {
    public init() {}

    public var provider: ProviderID { .apns }
    public var facts: ProviderFacts { APNsFacts.provider }

    public func attempts(_ ctx: CheckContext) -> [Attempt] {
        let h = APNsHistory(ctx)
        // Streams the transport turned away are attempts too: a message never sent again after one is lost.
        return (h.pushes + h.refused).map { p in
            let retryAfter = p.responseHeader("retry-after")
            let classification = p.classification
            // An APNs push names one device token: target 0 (``AttemptTarget/of(_:)`` would give the same).
            return Attempt(provider: provider, exchange: p.exchange, recipient: 0, token: p.token, device: p.device, step: p.step,
                           classification: classification, status: p.status, reason: p.reason, retryAfter: retryAfter,
                           backoff: facts.backoff(status: p.status, reason: p.reason, retryAfter: retryAfter, classification: classification),
                           endsConnection: ProviderFacts.connectionEndingActions.contains(p.action),
                           pool: p.exchange.environment ?? "?", start: p.start, end: p.end, comparableRequest: p.comparableRequest)
        }
    }

    public var checks: [CheckDefinition] {
        [
            GoAwayCheck.check,
            AuthConnectionChecks.jwtContents, AuthConnectionChecks.jwtExactMembers, AuthConnectionChecks.jwtIatInteger,
            AuthConnectionChecks.jwtReuse, AuthConnectionChecks.jwtTeamRate, AuthConnectionChecks.jwtMaxAge,
            AuthConnectionChecks.jwtRefreshAfterExpired, AuthConnectionChecks.keepTokenAfterTooManyUpdates,
            AuthConnectionChecks.unrelatedKeyNewConnection,
            AuthConnectionChecks.maxConcurrentStreams, AuthConnectionChecks.noPriorityFrames,
            HeaderChecks.topicSuffix, HeaderChecks.background, HeaderChecks.expiration, HeaderChecks.collapseID,
            HeaderChecks.apnsID, HeaderChecks.noDuplicateHeaders, HeaderChecks.payloadLimits, HeaderChecks.environmentHost,
            MappingCheck.check,
        ] + BroadcastChecks.all
    }

    /// The generic checks shipped as `apns.<id>` before the provider seam (ids
    /// never change meaning, so each old id still names the same rule over APNs attempts).
    public static let shippedGenericIDs = [
        "outcome", "outcome-truthful", "no-loss", "no-retry-permanent", "dead-token-not-reused", "retry-after",
        "transient-retried", "bounded-attempts", "no-tight-retry-loop", "backoff-grows", "backoff-jitter",
        "no-duplicate-delivery", "connection-reuse",
    ]

    public var aliases: [String: String] {
        Dictionary(uniqueKeysWithValues: Self.shippedGenericIDs.map { ("\(provider.rawValue).\($0)", $0) })
    }
}
