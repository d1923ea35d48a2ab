import Foundation
import PushDoubleCore

/// What one case cost the sender, counted over every exchange the fakes recorded (not the
/// report's excerpt): the figures `conform --compare` sets side by side, so a change that
/// breaks no MUST rule (a connection per push, retrying a 410) still shows.
public struct CaseCosts: Sendable, Codable, Equatable {
    /// Push requests the sender made (an Expo batch is one request).
    public var requests: Int
    /// Recipients the provider accepted (each recipient of a batch counts).
    public var delivered: Int
    /// Attempts after the first at the same message (send step and device).
    public var retries: Int
    /// Distinct connections the sender opened to the fakes (every endpoint, token endpoints too).
    public var connections: Int
    /// Distinct credentials presented on push requests: APNs provider JWTs, FCM access tokens
    /// (each one minted at the OAuth endpoint), VAPID JWTs, Expo access tokens.
    public var credentials: Int
    /// Attempts at a token after the provider had called it dead (re-registration not
    /// excused: a cost figure, not a verdict; `dead-token-not-reused` judges).
    public var deadTokenReuses: Int

    public init(requests: Int, delivered: Int, retries: Int, connections: Int, credentials: Int, deadTokenReuses: Int) {
        self.requests = requests; self.delivered = delivered; self.retries = retries
        self.connections = connections; self.credentials = credentials; self.deadTokenReuses = deadTokenReuses
    }

    /// Push requests per accepted recipient; nil when nothing was delivered.
    public var requestsPerDelivered: Double? { delivered > 0 ? Double(requests) / Double(delivered) : nil }

    /// The figures of a case's whole history, through every registered provider's attempts.
    public static func measure(_ ctx: CheckContext) -> CaseCosts {
        let log = AttemptLog(ctx)
        var dead: [String: Date] = [:]
        var reuses = 0
        for a in log.attempts {
            let key = a.token.lowercased()
            if let d = dead[key], a.start >= d { reuses += 1 }
            if a.deadToken && dead[key] == nil { dead[key] = a.end }
        }
        let credentials = Set(log.attempts.compactMap { a in
            a.exchange.request.headers.first { $0.first?.lowercased() == "authorization" }.flatMap { $0.count > 1 ? $0[1] : nil }
        })
        return CaseCosts(requests: Set(log.attempts.map(\.seq)).count,
                         delivered: log.attempts.filter(\.accepted).count,
                         retries: log.groups.reduce(0) { $0 + max(0, $1.count - 1) },
                         connections: Set(ctx.history.map { $0.transport.connection.id }).count,
                         credentials: credentials.count,
                         deadTokenReuses: reuses)
    }

    /// Each figure by name, in the order reports show them (requests per delivered last).
    public var figures: [(name: String, value: Double?)] {
        [("requests", Double(requests)), ("delivered", Double(delivered)), ("retries", Double(retries)),
         ("connections", Double(connections)), ("credentials minted", Double(credentials)),
         ("dead-token reuses", Double(deadTokenReuses)), ("requests per delivered", requestsPerDelivered)]
    }

    /// The sum of several cases' figures.
    public static func total(_ all: [CaseCosts]) -> CaseCosts {
        all.reduce(CaseCosts(requests: 0, delivered: 0, retries: 0, connections: 0, credentials: 0, deadTokenReuses: 0)) {
            CaseCosts(requests: $0.requests + $1.requests, delivered: $0.delivered + $1.delivered, retries: $0.retries + $1.retries,
                      connections: $0.connections + $1.connections, credentials: $0.credentials + $1.credentials,
                      deadTokenReuses: $0.deadTokenReuses + $1.deadTokenReuses)
        }
    }
}
