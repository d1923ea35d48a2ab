import Foundation

/// A value protected by a mutex: the one synchronisation primitive of the core.
///
/// Every shared mutable structure of the double (device registry, fault engine, history)
/// keeps its state in one `Locked` so a request takes each lock at most once, briefly,
/// and never calls out (to a fake, a subscriber, the network) while holding it.
public final class Locked<State>: @unchecked Sendable {
    // @unchecked: `state` is only read or written inside `withLock`, under `lock`.
    private let lock = NSLock()
    // The lock already makes every access exclusive (a nested `withLock` would deadlock, not
    // overlap), so Swift's dynamic exclusivity check of each access is redundant here.
    @exclusivity(unchecked) private var state: State

    public init(_ state: State) { self.state = state }

    /// Runs `body` with exclusive access to the state.
    public func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
