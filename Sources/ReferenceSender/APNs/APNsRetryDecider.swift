import Foundation

/// APNs's decision table: one attempt's result → finish or retry (docs/reference-sender.md).
/// Pure, so every row is testable without a network.
struct APNsRetryDecider: Sendable {
    var policy: RetryPolicy
    var mutant: MutantSet

    func decide(_ result: AttemptResult, state: inout RetryState, now: Double) -> RetryStep {
        switch result {
        case .failure(let f):
            switch f {
            case .notProcessed(let r):
                // Planted bug: a stream the server refused or cut by GOAWAY is given up, not resent.
                if mutant.contains(.giveUpUnprocessed) { return .finish(.failed, reason: r, markDead: false) }
                return resend(reason: r, state: &state)
            case .outcomeUnknown(let r), .connectFailed(let r):
                return transient(RetryAction(counted: true, backoff: true, reason: r), state: &state)
            }
        case .response(let resp):
            // Planted bug: a stream that was still waiting when the GOAWAY came is counted as
            // not processed, though it sits at or below last-stream-id and was answered.
            if mutant.contains(.failPendingAtGoaway) && resp.afterGoAway { return resend(reason: "GOAWAY while pending", state: &state) }
            return decide(resp, state: &state, now: now)
        }
    }

    private func decide(_ r: WireResponse, state: inout RetryState, now: Double) -> RetryStep {
        let reason = r.reason ?? "HTTP \(r.status)"
        let retryAfter = r.header(APNs.Header.retryAfter).flatMap { RetryAfter.seconds($0, now: now) }
        switch r.status {
        case 200..<300:
            return .finish(.sent, reason: nil, markDead: false)
        case 410:
            return dead(reason: reason, retryAfter: retryAfter, state: &state)
        case 400 where reason == APNsReason.badDeviceToken || reason == APNsReason.deviceTokenNotForTopic:
            return dead(reason: reason, retryAfter: retryAfter, state: &state)
        case 400 where reason == APNsReason.idleTimeout:
            return resend(reason: reason, state: &state)
        case 403 where reason == APNsReason.expiredProviderToken:
            guard !state.refreshedToken else { return .finish(.failed, reason: reason, markDead: false) }
            state.refreshedToken = true
            // Apple: mint a new token and retry; the same connection stays usable (a refresh
            // the server asked for is not a TooManyProviderTokenUpdates update, apns.md §5, A7).
            return .retry(RetryAction(counted: false, refreshToken: true, reason: reason))
        case 403 where reason == APNsReason.unrelatedKeyIdInToken:
            guard !state.reconnectedForKey else { return .finish(.failed, reason: reason, markDead: false) }
            state.reconnectedForKey = true
            return .retry(RetryAction(counted: false, retireConnection: true, reason: reason))
        case 403 where mutant.contains(.certificateErrorKillsToken) && reason == APNsReason.badCertificateEnvironment:
            // Planted bug: the certificate's environment taken for the token's.
            return .finish(.dead, reason: reason, markDead: true)
        case 403 where APNsReason.credentialErrors.contains(reason):
            return .finish(.failed, reason: reason, markDead: false)
        case 429 where mutant.contains(.remintOnTokenUpdateError) && reason == APNsReason.tooManyProviderTokenUpdates:
            // Planted bug: a new token at once, as if the old one had expired (each retry counted).
            return transient(RetryAction(counted: true, refreshToken: true, reason: reason), state: &state)
        case 429 where mutant.contains(.giveUp429WithoutRetryAfter) && retryAfter == nil:
            // Planted bug: a 429 is retried only when it says when.
            return .finish(.failed, reason: reason, markDead: false)
        case 429:
            // TooManyRequests: that token only after a delay (A3). TooManyProviderTokenUpdates:
            // keep the current token and wait (A8) — the JWT cache never mints early anyway.
            return transient(RetryAction(counted: true, backoff: true, retryAfter: retryAfter, reason: reason), state: &state)
        case 503 where reason == APNsReason.shutdown:
            return resend(reason: reason, state: &state)
        case 500..<600:
            return transient(RetryAction(counted: true, backoff: true, retryAfter: retryAfter, reason: reason), state: &state)
        case 400..<500:
            return .finish(.rejected, reason: reason, markDead: false)
        default:
            return transient(RetryAction(counted: true, backoff: true, retryAfter: retryAfter, reason: reason), state: &state)
        }
    }

    private func dead(reason: String, retryAfter: Double?, state: inout RetryState) -> RetryStep {
        if mutant.contains(.retryDeadTokens) {
            return transient(RetryAction(counted: true, backoff: true, retryAfter: retryAfter, reason: reason), state: &state, isDeadToken: true)
        }
        return .finish(.dead, reason: reason, markDead: true)
    }

    /// Not processed by the server: resend on a fresh connection at once, not a failed attempt.
    private func resend(reason: String, state: inout RetryState) -> RetryStep {
        state.unprocessedResends += 1
        guard state.unprocessedResends <= policy.maxUnprocessedResends else { return .finish(.failed, reason: reason, markDead: false) }
        return .retry(RetryAction(counted: false, retireConnection: true, reason: reason))
    }

    private func transient(_ action: RetryAction, state: inout RetryState, isDeadToken: Bool = false) -> RetryStep {
        if mutant.contains(.neverRetryTransient) && !isDeadToken { return .finish(.failed, reason: action.reason, markDead: false) }
        state.failedAttempts += 1
        guard state.failedAttempts < policy.maxAttempts else { return .finish(.failed, reason: action.reason, markDead: false) }
        if let ra = action.retryAfter, ra > policy.maxRetryAfter, !mutant.contains(.ignoreRetryAfter) {
            return .finish(.failed, reason: action.reason, markDead: false)
        }
        return .retry(action)
    }

    /// Seconds to wait before a retry, after `state.failedAttempts` failed attempts; records
    /// the backoff drawn in `state.lastBackoff`.
    func delay(for action: RetryAction, state: inout RetryState, random: Double) -> Double {
        guard action.backoff else { return 0 }
        if let ra = action.retryAfter {
            if mutant.contains(.ignoreRetryAfter) { return 0 }
            let jitter = mutant.contains(.noBackoff) ? 0 : drawBackoff(state: &state, random: random)
            return max(ra, jitter)
        }
        if mutant.contains(.noBackoff) { return 0 }
        return drawBackoff(state: &state, random: random)
    }

    private func drawBackoff(state: inout RetryState, random: Double) -> Double {
        let d = policy.backoff(retry: state.failedAttempts, previous: state.lastBackoff, random: random)
        state.lastBackoff = d
        return d
    }
}

extension WireResponse {
    /// The `reason` of an APNs error body (`{"reason": "BadDeviceToken"}`), if it parses.
    var reason: String? {
        guard !body.isEmpty, let json = try? JSON.parse(body) else { return nil }
        return json["reason"]?.stringValue
    }
}
