import Synchronization

/// Device tokens known to be dead (the provider said so: never send to them again), until the
/// app registers them again. Shared by every provider's sender.
final class DeadTokenRegistry: Sendable {
    /// Why and when (seconds since the epoch, the sender's clock) a token died.
    struct Death: Sendable, Equatable {
        var reason: String
        var at: Double
    }
    private let table = Mutex<[String: Death]>([:])

    /// The reason the token died, if it did.
    func reason(for token: String) -> String? { table.withLock { $0[token]?.reason } }
    func death(of token: String) -> Death? { table.withLock { $0[token] } }
    func markDead(_ token: String, reason: String, at: Double) { table.withLock { $0[token] = Death(reason: reason, at: at) } }
    /// A registration after the death makes the token usable again; returns whether it did.
    func revive(_ token: String, registeredAt: Double) -> Bool {
        table.withLock { t in
            guard let d = t[token], registeredAt > d.at else { return false }
            t[token] = nil
            return true
        }
    }
    var count: Int { table.withLock { $0.count } }
}
