/// HTTP/2 connections per (endpoint, account): by default one, opened on first use, reused by
/// every push (a sender keeps its connections open, as APNs and the HTTP/2 guidance ask),
/// replaced when it dies or is retired (GOAWAY, APNs Shutdown or UnrelatedKeyIdInToken). With `size` > 1 (the `multi-connection` variant) each key has
/// that many slots, handed out round-robin, each slot's connection reused the same way.
/// Concurrent callers of one slot share one connect (single flight).
///
/// A key may carry a token generation (the `jwt-refresh-50min` variant): asking for a newer
/// generation retires the connections of older ones, so no connection ever sees its
/// provider token replaced (APNs counts provider-token updates per connection: docs/apns.md).
///
/// Threading: an actor; connections themselves are thread-safe.
actor ConnectionPool {
    struct Key: Hashable, Sendable {
        var endpoint: HTTPSEndpoint
        /// The credential the connection is bound to (APNs: the team id; empty when none).
        var account: String
        /// The provider token generation the connection is bound to (0: not bound).
        var generation: Int = 0
    }

    private struct Slot: Hashable {
        var key: Key
        var index: Int
    }

    /// A connection unused this long is replaced rather than reused: Apple asks for a
    /// PING after about an hour idle (docs/apns.md), and servers close idle connections.
    static let maxIdleSeconds: Double = 50 * 60

    private let connector: any PushConnector
    private let clock: any SenderClock
    /// Connections per key.
    let size: Int
    private var current: [Slot: any PushConnection] = [:]
    private var lastUsed: [Slot: Double] = [:]
    private var connecting: [Slot: Task<Result<any PushConnection, TransportFailure>, Never>] = [:]
    /// Round-robin position per key.
    private var nextSlot: [Key: Int] = [:]
    /// Retired connections still finishing in-flight streams; closed by ``closeRetired()``.
    private var retired: [any PushConnection] = []
    private(set) var opened = 0

    init(connector: any PushConnector, clock: any SenderClock, size: Int = 1) {
        self.connector = connector
        self.clock = clock
        self.size = max(1, size)
    }

    /// A pooled connection for `key` (the next slot, round-robin), opening one if needed.
    func connection(for key: Key) async -> Result<any PushConnection, TransportFailure> {
        retireOlderGenerations(than: key)
        let index = nextSlot[key, default: 0]
        nextSlot[key] = (index + 1) % size
        let slot = Slot(key: key, index: index)
        while true {
            let now = clock.now()
            if let c = current[slot] {
                let idle = now - (lastUsed[slot] ?? now)
                if c.isUsable && idle < Self.maxIdleSeconds {
                    lastUsed[slot] = now
                    return .success(c)
                }
                current[slot] = nil
                retired.append(c)
            }
            if let pending = connecting[slot] {
                let result = await pending.value
                // Actor reentrancy: a finished connect stays the slot's pending one until the
                // caller that started it resumes. Meanwhile another caller may have used its
                // connection and retired it (GOAWAY, Shutdown): handing it out again would fail
                // every resend at once on the same GOAWAY. Such a connect is forgotten and the
                // slot connects anew.
                if case .success(let c) = result, isSpent(c) {
                    if connecting[slot] == pending { connecting[slot] = nil }
                    continue
                }
                return result
            }
            let connector = self.connector
            let endpoint = key.endpoint
            let task = Task { await connector.connect(to: endpoint) }
            connecting[slot] = task
            let result = await task.value
            if connecting[slot] == task { connecting[slot] = nil }
            if case .success(let c) = result {
                opened += 1
                // A caller that shared this connect may already have used the connection and
                // retired it before this one resumed: it must not come back as the slot's. (This
                // caller still gets it: its send then fails as unprocessed and is resent, within
                // the resend budget, so a server refusing every connection cannot loop here.)
                if !retired.contains(where: { $0 === c }) {
                    current[slot] = c
                    lastUsed[slot] = clock.now()
                }
            }
            return result
        }
    }

    /// Retired, or no longer taking streams (GOAWAY seen, closed).
    private func isSpent(_ c: any PushConnection) -> Bool {
        !c.isUsable || retired.contains { $0 === c }
    }

    /// Connections of the same endpoint and team bound to an older token generation stop
    /// getting new streams.
    private func retireOlderGenerations(than key: Key) {
        for (slot, c) in current where slot.key.endpoint == key.endpoint && slot.key.account == key.account
            && slot.key.generation < key.generation {
            current[slot] = nil
            if !retired.contains(where: { $0 === c }) { retired.append(c) }
        }
    }

    /// A private connection for one push (the `connection-per-push` mutant).
    func unpooledConnection(for key: Key) async -> Result<any PushConnection, TransportFailure> {
        let result = await connector.connect(to: key.endpoint)
        if case .success = result { opened += 1 }
        return result
    }

    /// Stops handing out `connection`; it is closed later, once in-flight streams end.
    func retire(_ connection: any PushConnection) {
        for (k, c) in current where c === connection {
            current[k] = nil
        }
        if !retired.contains(where: { $0 === connection }) { retired.append(connection) }
    }

    /// Closes the retired connections no push is still using (called when a send has
    /// finished). Another send may still wait on a retired connection for the answer to a
    /// stream the server processed (at or below a GOAWAY's last-stream-id); closing it would
    /// fail that push, so it stays retired until a later call, or ``closeAll()``.
    func closeRetired() async {
        let idle = retired.filter { !$0.hasSendsInFlight }
        retired.removeAll { c in idle.contains { $0 === c } }
        for c in idle { await c.close() }
    }

    /// Closes everything (shutdown).
    func closeAll() async {
        let list = Array(current.values) + retired
        current.removeAll()
        retired.removeAll()
        for c in list { await c.close() }
    }
}
