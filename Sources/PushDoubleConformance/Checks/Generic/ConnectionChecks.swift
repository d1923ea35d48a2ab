import Foundation
import PushDoubleCore

/// Generic checks on connection use (A10; every provider asks senders to keep connections open).
enum ConnectionChecks {
    static let connectionReuse = CheckDefinition(
        id: "connection-reuse", title: "Connections are reused (no connection per push)",
        reference: "A10; apns.md §1 (keep connections open, reuse them for many pushes)", severity: .must
    ) { ctx in
        let h = AttemptLog(ctx)
        guard h.attempts.count >= 3 else { return .notApplicable("fewer than three attempts") }
        let base = Int(ctx.params["maxConnections"]?.intValue ?? 2)
        var problems: [Evidence] = []
        var summary: [String] = []
        for env in Set(h.attempts.map(\.pool)).sorted() {
            // One attempt per request: a batch is one use of its connection.
            let ps = h.attempts.filter { $0.pool == env && $0.recipient == 0 }
            var perConn: [UInt64: Int] = [:]
            for p in ps { perConn[p.connection, default: 0] += 1 }
            let breaks = ps.filter { $0.endsConnection }.count
            let allowed = base + breaks
            // Providers ask for reuse (apns.md §1), not for a single connection: a pool of
            // several connections, each reused, is reuse; a connection per request is not. So
            // count the connections that carried one request only (not those the fake ended).
            let ended = Set(ps.filter { $0.endsConnection }.map(\.connection))
            let single = perConn.filter { $0.value == 1 && !ended.contains($0.key) }.count
            summary.append("\(env): \(ps.count) request(s) over \(perConn.count) connection(s)")
            if single > allowed {
                problems.append(Evidence("\(env): \(single) of \(perConn.count) connections carried a single request (allowed \(allowed)); requests per connection: "
                    + perConn.sorted { $0.key < $1.key }.map { "conn \($0.key): \($0.value)" }.prefix(12).joined(separator: ", "),
                    seqs: ps.prefix(12).map(\.seq)))
            }
        }
        return problems.isEmpty ? .held(summary.joined(separator: "; ")) : .violated("connections not reused", problems)
    }
}
