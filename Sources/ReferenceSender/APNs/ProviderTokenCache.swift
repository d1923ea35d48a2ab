import Foundation
import Synchronization

/// Signs an APNs provider JWT (ES256; header `{"alg":"ES256","kid"}`, claims exactly
/// `{"iss","iat"}`, apns.md §5).
protocol ProviderTokenSigner: Sendable {
    func sign(keyId: String, teamId: String, issuedAt: Int64) throws -> String
}

/// The provider JWT in use for one (team, key): minted once, reused for 50 minutes
/// (rules A6: never a new `iat` within 20 min of the last, never older than 60 min),
/// replaced early only after `ExpiredProviderToken` (A7). Thread-safe: a mutex guards the
/// table, and minting happens under it so concurrent pushes never mint twice.
///
/// `inheritedAge` (the `jwt-refresh-50min` variant) makes the first token of each
/// (team, key) one that is already that many seconds old, as a worker gets it from a
/// team-wide token cache; it is then refreshed at 50 min of age like any other.
final class ProviderTokenCache: Sendable {
    struct Token: Sendable, Equatable {
        var jwt: String
        var issuedAt: Int64
        /// Counts the tokens minted for this (team, key): 1, 2, …
        var generation: Int
    }

    /// `scope` separates tokens that must not be shared (the `jwt-per-connection` variant's
    /// connection id); "" for the team-wide token.
    private struct Key: Hashable { var teamId: String; var keyId: String; var scope: String = "" }
    private struct State {
        var current: [Key: Token] = [:]
        /// Tokens minted so far per key (kept when a token is invalidated).
        var minted: [Key: Int] = [:]
    }
    private let tokens = Mutex(State())
    private let mints = Mutex<Int>(0)
    private let signer: any ProviderTokenSigner
    private let perRequest: Bool
    private let inheritedAge: Int64?

    /// - Parameter perRequest: the `jwt-per-request` mutant: a newly signed token every call.
    /// - Parameter inheritedAge: seconds by which the first token is already old (below
    ///   ``APNs/jwtRefreshSeconds``), or nil.
    init(signer: any ProviderTokenSigner, perRequest: Bool = false, inheritedAge: Int64? = nil) {
        self.signer = signer
        self.perRequest = perRequest
        self.inheritedAge = inheritedAge.map { min(max(0, $0), APNs.jwtRefreshSeconds - 1) }
    }

    /// How many tokens have been minted (for logs and tests).
    var mintCount: Int { mints.withLock { $0 } }

    /// The token to send now.
    func token(teamId: String, keyId: String, now: Double, scope: String = "") throws -> Token {
        let key = Key(teamId: teamId, keyId: keyId, scope: scope)
        let nowSeconds = Int64(now.rounded(.down))
        return try tokens.withLock { (state: inout State) throws -> Token in
            if let t = state.current[key], !perRequest, nowSeconds - t.issuedAt < APNs.jwtRefreshSeconds, nowSeconds >= t.issuedAt {
                return t
            }
            // The mutant signs anew each time: a distinct JWT string per request (ECDSA
            // signatures are randomised), with the current iat — so only the reuse rule breaks.
            let generation = state.minted[key, default: 0] + 1
            let issuedAt = generation == 1 ? nowSeconds - (inheritedAge ?? 0) : nowSeconds
            let t = Token(jwt: try signer.sign(keyId: keyId, teamId: teamId, issuedAt: issuedAt), issuedAt: issuedAt,
                          generation: generation)
            state.current[key] = t
            state.minted[key] = generation
            mints.withLock { $0 += 1 }
            return t
        }
    }

    /// APNs called `token` expired: drop it (if still current) so the next call mints.
    func invalidate(teamId: String, keyId: String, token: Token, scope: String = "") {
        tokens.withLock { state in
            let key = Key(teamId: teamId, keyId: keyId, scope: scope)
            if state.current[key] == token { state.current[key] = nil }
        }
    }
}
