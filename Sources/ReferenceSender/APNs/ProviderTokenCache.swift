import Foundation
import Synchronization

/// Signs an APNs provider JWT (ES256; header `{"alg":"ES256","kid"}`, claims exactly
/// `{"iss","iat"}`, apns.md §5).
protocol ProviderTokenSigner: Sendable {
    func sign(keyId: String, teamId: String, issuedAt: Int64) throws -> String
}

/// The provider JWT in use for one (team, key): minted once, reused for 50 minutes
/// (README A6: never a new `iat` within 20 min of the last, never older than 60 min),
/// replaced early only after `ExpiredProviderToken` (A7). Thread-safe: a mutex guards the
/// table, and minting happens under it so concurrent pushes never mint twice.
final class ProviderTokenCache: Sendable {
    struct Token: Sendable, Equatable {
        var jwt: String
        var issuedAt: Int64
    }

    private struct Key: Hashable { var teamId: String; var keyId: String }
    private let tokens = Mutex<[Key: Token]>([:])
    private let mints = Mutex<Int>(0)
    private let signer: any ProviderTokenSigner
    private let perRequest: Bool

    /// - Parameter perRequest: the `jwt-per-request` mutant: a new token (new `iat`) every call.
    init(signer: any ProviderTokenSigner, perRequest: Bool = false) {
        self.signer = signer
        self.perRequest = perRequest
    }

    /// How many tokens have been minted (for logs and tests).
    var mintCount: Int { mints.withLock { $0 } }

    /// The token to send now.
    func token(teamId: String, keyId: String, now: Double) throws -> Token {
        let key = Key(teamId: teamId, keyId: keyId)
        let nowSeconds = Int64(now.rounded(.down))
        return try tokens.withLock { (table: inout [Key: Token]) throws -> Token in
            if let t = table[key], !perRequest, nowSeconds - t.issuedAt < APNs.jwtRefreshSeconds, nowSeconds >= t.issuedAt {
                return t
            }
            // The mutant makes every iat distinct, even within one second.
            let iat = perRequest ? max(nowSeconds, (table[key]?.issuedAt ?? 0) + 1) : nowSeconds
            let t = Token(jwt: try signer.sign(keyId: keyId, teamId: teamId, issuedAt: iat), issuedAt: iat)
            table[key] = t
            mints.withLock { $0 += 1 }
            return t
        }
    }

    /// APNs called `token` expired: drop it (if still current) so the next call mints.
    func invalidate(teamId: String, keyId: String, token: Token) {
        tokens.withLock { table in
            let key = Key(teamId: teamId, keyId: keyId)
            if table[key] == token { table[key] = nil }
        }
    }
}

/// Device tokens known to be dead for the rest of the process (README G4, A1).
final class DeadTokenRegistry: Sendable {
    private let table = Mutex<[String: String]>([:])

    /// The reason the token died, if it did.
    func reason(for token: String) -> String? { table.withLock { $0[token] } }
    func markDead(_ token: String, reason: String) { table.withLock { $0[token] = reason } }
    var count: Int { table.withLock { $0.count } }
}
