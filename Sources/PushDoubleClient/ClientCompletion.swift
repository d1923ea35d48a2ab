import PushDoubleTransport
/// What a client session hands back to the connection: waiters to resume once the
/// session's lock is released (never resume a continuation while holding it).

typealias ClientResponseWaiter = CheckedContinuation<Result<HTTPClientResponse, HTTPClientError>, Never>
typealias ClientPingWaiter = CheckedContinuation<Result<Double, HTTPClientError>, Never>

/// A waiter plus its outcome.
enum ClientCompletion {
    case response(ClientResponseWaiter, Result<HTTPClientResponse, HTTPClientError>)
    case ping(ClientPingWaiter, Result<Double, HTTPClientError>)

    func resume() {
        switch self {
        case let .response(w, r): w.resume(returning: r)
        case let .ping(w, r): w.resume(returning: r)
        }
    }
}

/// A request accepted by a connection but not yet on the wire.
struct ClientPendingRequest {
    var request: HTTPClientRequest
    var waiter: ClientResponseWaiter
    /// Monotonic time after which it fails with `.timeout`.
    var deadline: Double
}

/// A FIFO that does not shift elements on removal (amortised O(1) pop).
struct ClientFIFO<Element> {
    private var items: [Element] = []
    private var head = 0
    var isEmpty: Bool { head == items.count }
    var count: Int { items.count - head }
    var first: Element? { isEmpty ? nil : items[head] }
    mutating func append(_ e: Element) { items.append(e) }
    mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
        let e = items[head]
        head += 1
        if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return e
    }
    /// Removes and returns every element matching `predicate`, keeping the others' order.
    mutating func removeAll(where predicate: (Element) -> Bool) -> [Element] {
        var kept: [Element] = []
        var removed: [Element] = []
        for e in items[head...] {
            if predicate(e) { removed.append(e) } else { kept.append(e) }
        }
        items = kept
        head = 0
        return removed
    }
    mutating func drain() -> [Element] { removeAll { _ in true } }
}
