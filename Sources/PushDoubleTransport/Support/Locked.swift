import Foundation

/// A value protected by a mutex: the one lock type of the project (transport, client, core,
/// fakes).
///
/// Every shared mutable structure keeps its state in one `Locked`, so a caller takes each lock
/// at most once, briefly, and never calls out (to a fake, a subscriber, the network, a
/// continuation) while holding it.
///
/// A pthread mutex (`NSLock`) rather than `Synchronization.Mutex`: on Linux `Mutex` is built on
/// raw futexes that ThreadSanitizer cannot see, so every access through it would be reported as
/// a race; with a pthread mutex `--sanitize=thread` runs stay clean and meaningful.
public final class Locked<State>: @unchecked Sendable {
    // @unchecked: `state` is only read or written inside `withLock`, under `lock`.
    private let lock = NSLock()
    // The lock already makes every access exclusive (a nested `withLock` would deadlock, not
    // overlap), so Swift's dynamic exclusivity check of each access is redundant here.
    @exclusivity(unchecked) private var state: State

    public init(_ state: State) { self.state = state }

    /// Runs `body` with exclusive access to the state.
    @inline(__always)
    public func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
