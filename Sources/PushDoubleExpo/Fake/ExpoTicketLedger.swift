import Foundation
import Synchronization
import PushDoubleCore

/// Which history entry issued each ticket, so a receipt a sender fetches later is added to
/// the send's entry (``HistoryOutcome/annotate(_:_:)``): one entry shows the message, its
/// tickets and, as they are fetched, their receipts (issue 13 item 4).
///
/// The annotation is `receipts`: `{ticketId: {"receipt": {…}, "fetchedAt": "…Z", "fetches": n}, …}`
/// in ticket order of first fetch. Bounded like the receipt store: beyond `capacity` tickets
/// the oldest are forgotten (their receipts are then no longer annotated). Thread-safe.
public final class ExpoTicketLedger: Sendable {
    /// The receipts fetched so far for one send's entry.
    final class Entry: Sendable {
        let outcome: HistoryOutcome
        let fetched = Mutex<[(id: String, value: JSONValue, fetches: Int)]>([])
        init(_ outcome: HistoryOutcome) { self.outcome = outcome }

        func add(id: String, receipt: JSONValue, at: Date) {
            let all: JSONValue = fetched.withLock { list in
                let fetches: Int
                if let i = list.firstIndex(where: { $0.id == id }) { fetches = list[i].fetches + 1; list.remove(at: i) } else { fetches = 1 }
                let value: JSONValue = .object([("receipt", receipt), ("fetchedAt", .string(DateFormats.iso8601(at))),
                                                ("fetches", .int(Int64(fetches)))])
                list.append((id, value, fetches))
                return .object(list.map { ($0.id, $0.value) })
            }
            outcome.annotate("receipts", all)
        }
    }

    private struct State {
        var byTicket: [String: Entry] = [:]
        var order: [String] = []
        var head = 0
    }
    private let state = Mutex(State())
    public let capacity: Int

    public init(capacity: Int = 100_000) {
        precondition(capacity > 0, "capacity must be positive")
        self.capacity = capacity
    }

    /// Remembers that `ticketIDs` were issued by the entry `outcome`.
    public func issued(_ ticketIDs: [String], by outcome: HistoryOutcome) {
        guard !ticketIDs.isEmpty else { return }
        let entry = Entry(outcome)
        state.withLock { s in
            for id in ticketIDs {
                if s.byTicket.updateValue(entry, forKey: id) == nil { s.order.append(id) }
            }
            while s.byTicket.count > capacity, s.head < s.order.count {
                s.byTicket[s.order[s.head]] = nil
                s.head += 1
            }
            if s.head > 1024, s.head * 2 > s.order.count {
                s.order.removeFirst(s.head)
                s.head = 0
            }
        }
    }

    /// Adds the fetched receipts to their sends' entries.
    public func fetched(_ receipts: [(id: String, receipt: ExpoReceipt)], at: Date) {
        guard !receipts.isEmpty else { return }
        let entries: [(Entry, String, JSONValue)] = state.withLock { s in
            receipts.compactMap { r in s.byTicket[r.id].map { ($0, r.id, r.receipt.json) } }
        }
        for (entry, id, json) in entries { entry.add(id: id, receipt: json, at: at) }
    }

    /// Tickets remembered.
    public var count: Int { state.withLock { $0.byTicket.count } }
}
