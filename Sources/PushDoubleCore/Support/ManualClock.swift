import Foundation

/// A clock that only moves when told to: makes time windows, quotas and scheduled device
/// transitions deterministic in tests and simulated runs.
public final class ManualClock: DoubleClock, @unchecked Sendable {
    // @unchecked: `current` is only touched under `lock`.
    private let lock = NSLock()
    private var current: Date

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = start }

    public func now() -> Date { lock.lock(); defer { lock.unlock() }; return current }

    /// Moves the clock forward (or backward, for negative values) by `seconds`.
    public func advance(_ seconds: Double) { lock.lock(); current += seconds; lock.unlock() }

    /// Sets the clock to `date`.
    public func set(_ date: Date) { lock.lock(); current = date; lock.unlock() }
}
