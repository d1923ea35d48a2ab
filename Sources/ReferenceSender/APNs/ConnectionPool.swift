/// One HTTP/2 connection per (endpoint, team), opened on first use, reused by every push
/// (README A10, A11), replaced when it dies or is retired (GOAWAY, Shutdown,
/// UnrelatedKeyIdInToken). Concurrent callers share one connect (single flight).
///
/// Threading: an actor; connections themselves are thread-safe.
actor ConnectionPool {
    struct Key: Hashable, Sendable {
        var endpoint: APNsEndpoint
        var teamId: String
    }

    /// A connection unused this long is replaced rather than reused: Apple asks for a
    /// PING after about an hour idle (apns.md §1), and servers close idle connections.
    static let maxIdleSeconds: Double = 50 * 60

    private let connector: any APNsConnector
    private let clock: any SenderClock
    private var current: [Key: any APNsConnection] = [:]
    private var lastUsed: [Key: Double] = [:]
    private var connecting: [Key: Task<Result<any APNsConnection, TransportFailure>, Never>] = [:]
    /// Retired connections still finishing in-flight streams; closed by ``closeRetired()``.
    private var retired: [any APNsConnection] = []
    private(set) var opened = 0

    init(connector: any APNsConnector, clock: any SenderClock) {
        self.connector = connector
        self.clock = clock
    }

    /// The pooled connection for `key`, opening one if needed.
    func connection(for key: Key) async -> Result<any APNsConnection, TransportFailure> {
        let now = clock.now()
        if let c = current[key] {
            let idle = now - (lastUsed[key] ?? now)
            if c.isUsable && idle < Self.maxIdleSeconds {
                lastUsed[key] = now
                return .success(c)
            }
            current[key] = nil
            retired.append(c)
        }
        if let pending = connecting[key] { return await pending.value }
        let connector = self.connector
        let endpoint = key.endpoint
        let task = Task { await connector.connect(to: endpoint) }
        connecting[key] = task
        let result = await task.value
        connecting[key] = nil
        if case .success(let c) = result {
            opened += 1
            current[key] = c
            lastUsed[key] = clock.now()
        }
        return result
    }

    /// A private connection for one push (the `connection-per-push` mutant).
    func unpooledConnection(for key: Key) async -> Result<any APNsConnection, TransportFailure> {
        let result = await connector.connect(to: key.endpoint)
        if case .success = result { opened += 1 }
        return result
    }

    /// Stops handing out `connection`; it is closed later, once in-flight streams end.
    func retire(_ connection: any APNsConnection) {
        for (k, c) in current where c === connection {
            current[k] = nil
        }
        if !retired.contains(where: { $0 === connection }) { retired.append(connection) }
    }

    /// Closes retired connections (called when a send has finished).
    func closeRetired() async {
        let list = retired
        retired.removeAll()
        for c in list { await c.close() }
    }

    /// Closes everything (shutdown).
    func closeAll() async {
        let list = Array(current.values) + retired
        current.removeAll()
        retired.removeAll()
        for c in list { await c.close() }
    }
}
