import Synchronization
import XCTest
@testable import ReferenceSender

/// The connection pool's retirement: a connection that got GOAWAY stops taking new pushes,
/// but is closed only once no push still waits on it for an answer.
final class ConnectionPoolTests: XCTestCase {
    /// A connection whose sends are held until released, counting closes.
    final class HeldConnection: PushConnection {
        let connectionID: Int
        private let state = Mutex<(inFlight: Int, closed: Bool, goAway: Bool)>((0, false, false))
        init(id: Int) { connectionID = id }
        var isUsable: Bool { state.withLock { !$0.closed && !$0.goAway } }
        var receivedGoAway: Bool { state.withLock { $0.goAway } }
        var hasSendsInFlight: Bool { state.withLock { $0.inFlight > 0 } }
        var closed: Bool { state.withLock { $0.closed } }
        func markGoAway() { state.withLock { $0.goAway = true } }
        func begin() { state.withLock { $0.inFlight += 1 } }
        func end() { state.withLock { $0.inFlight -= 1 } }
        func send(_ request: WireRequest) async -> AttemptResult { .failure(.notProcessed("not used")) }
        func close() async { state.withLock { $0.closed = true } }
    }

    final class Connector: PushConnector {
        private let made = Mutex(0)
        func connect(to endpoint: HTTPSEndpoint) async -> Result<any PushConnection, TransportFailure> {
            .success(HeldConnection(id: made.withLock { $0 += 1; return $0 }))
        }
    }

    private let key = ConnectionPool.Key(endpoint: HTTPSEndpoint(url: "https://127.0.0.1:1")!, account: "TEAM")

    func testARetiredConnectionIsClosedOnlyOnceNoPushWaitsOnIt() async throws {
        let pool = ConnectionPool(connector: Connector(), clock: SystemSenderClock())
        guard case .success(let first) = await pool.connection(for: key), let c = first as? HeldConnection else {
            return XCTFail("no connection")
        }
        // Another send's push is still waiting on this connection when GOAWAY retires it.
        c.begin()
        c.markGoAway()
        await pool.retire(c)
        await pool.closeRetired()
        XCTAssertFalse(c.closed, "closed while a push still waited on it for its answer")
        // The next push gets a new connection, not the retired one.
        guard case .success(let second) = await pool.connection(for: key) else { return XCTFail("no connection") }
        XCTAssertFalse(second === c)
        // Once that push has its answer, the next send's end closes the retired connection.
        c.end()
        await pool.closeRetired()
        XCTAssertTrue(c.closed)
        XCTAssertFalse((second as! HeldConnection).closed)
    }
}
