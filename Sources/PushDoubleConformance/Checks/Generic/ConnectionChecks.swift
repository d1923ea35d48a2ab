import Foundation
import PushDoubleCore

/// Generic checks on connection use: every provider asks senders to keep their connections
/// open and reuse them (Apple: "keep your connections with APNs open across multiple
/// notifications"; RFC 9113 §9.1 for HTTP/2; HTTP/1.1 persistent connections, RFC 9112 §9.3).
enum ConnectionChecks {
    /// One connection of a pool as the history shows it: its requests' times.
    struct Use {
        var connection: UInt64
        var first: Date
        /// When its last answered request ended.
        var lastEnd: Date
        var requests: Int
        /// The fake ended it (drop, GOAWAY, truncate): a new connection after it is expected.
        var endedByFake: Bool
    }

    /// The connections of one pool in the order they were first used.
    static func uses(_ attempts: [Attempt]) -> [Use] {
        var byID: [UInt64: Use] = [:]
        for a in attempts {
            var u = byID[a.connection] ?? Use(connection: a.connection, first: a.start, lastEnd: a.end, requests: 0, endedByFake: false)
            u.first = min(u.first, a.start)
            u.lastEnd = max(u.lastEnd, a.end)
            u.requests += 1
            u.endedByFake = u.endedByFake || a.endsConnection
            byID[a.connection] = u
        }
        return byID.values.sorted { ($0.first, $0.connection) < ($1.first, $1.connection) }
    }

    static let connectionReuse = CheckDefinition(
        id: "connection-reuse", title: "Connections are reused (no connection per push)",
        reference: "RFC 9113 §9.1 (a client keeps a connection open and reuses it)", severity: .must
    ) { ctx in
        let h = AttemptLog(ctx)
        guard h.attempts.count >= 3 else { return .notApplicable("fewer than three attempts") }
        var problems: [Evidence] = []
        var summary: [String] = []
        for pool in Set(h.attempts.map(\.pool)).sorted() {
            // One attempt per request: a batch is one use of its connection.
            let ps = h.attempts.filter { $0.pool == pool && $0.recipient == 0 }
            let us = uses(ps)
            summary.append("\(pool): \(ps.count) request(s) over \(us.count) connection(s)")
            guard ps.count >= 3 else { continue }
            // A pool that reuses its connections is reuse, however many it opens or how the
            // requests spread over them (a pool of six may leave some with one request). The
            // bug is a connection per request: no connection ever carries a second request,
            // and new connections open while an earlier one stands idle (not only while every
            // other one is busy, as a pool grows under concurrent load).
            if us.contains(where: { $0.requests > 1 }) { continue }
            var reopened: [(Use, Use)] = []
            for (i, u) in us.enumerated() {
                if let idle = us[..<i].last(where: { !$0.endedByFake && $0.lastEnd < u.first }) { reopened.append((idle, u)) }
            }
            guard !reopened.isEmpty else { continue }
            problems.append(Evidence("\(pool): every one of \(us.count) connections carried a single request; "
                + "\(reopened.count) opened while an earlier one was idle (e.g. conn \(reopened[0].1.connection) after conn "
                + "\(reopened[0].0.connection) had finished)", seqs: ps.prefix(12).map(\.seq)))
        }
        return .judged(problems, held: summary.joined(separator: "; "), violated: "connections not reused")
    }
}
