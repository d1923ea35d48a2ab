import Foundation
import Synchronization
import PushDoubleCore

/// The history entry of one send, as the owner of its tickets' receipts
/// (``ExpoReceiptOwner``): each time getReceipts serves one of them, the entry is annotated
/// (``HistoryOutcome/annotate(_:_:)``), so one entry shows the message, its tickets and, as
/// they are fetched, their receipts: the whole ticket → receipt lifecycle in one place.
///
/// The annotation is `receipts`: `{ticketId: {"receipt": {…}, "fetchedAt": "…Z", "fetches": n}, …}`
/// in order of the latest fetch. Made in `deliver` (the tickets are issued before the entry
/// exists) and attached in `onRecorded`; a receipt served before that is still listed once
/// the entry is attached. Lives as long as its receipts in the store (bounded there); it
/// holds the entry weakly, so receipts never keep an exchange the history dropped in memory.
final class ExpoSendRecord: ExpoReceiptOwner {
    private struct State {
        var entry: WeakHistoryOutcome?
        var fetched: [(id: String, value: JSONValue, fetches: Int)] = []
    }
    private let state = Mutex(State())

    func attach(_ entry: HistoryOutcome) {
        let pending: JSONValue? = state.withLock { s in
            s.entry = entry.weak
            return s.fetched.isEmpty ? nil : Self.annotation(s.fetched)
        }
        if let pending { entry.annotate("receipts", pending) }
    }

    func receiptServed(id: String, receipt: ExpoReceipt, now: Double) {
        let at = DateFormats.iso8601(Date(timeIntervalSince1970: now))
        let (entry, value): (WeakHistoryOutcome?, JSONValue) = state.withLock { s in
            let fetches: Int
            if let i = s.fetched.firstIndex(where: { $0.id == id }) { fetches = s.fetched[i].fetches + 1; s.fetched.remove(at: i) } else { fetches = 1 }
            s.fetched.append((id, .object([("receipt", receipt.json), ("fetchedAt", .string(at)), ("fetches", .int(Int64(fetches)))]), fetches))
            return (s.entry, Self.annotation(s.fetched))
        }
        entry?.annotate("receipts", value)
    }

    private static func annotation(_ fetched: [(id: String, value: JSONValue, fetches: Int)]) -> JSONValue {
        .object(fetched.map { ($0.id, $0.value) })
    }
}
