import Foundation

/// The double's notion of time. Real time by default; tests and scenarios may use a
/// manual clock so that time-window rules and quotas are deterministic.
public protocol DoubleClock: Sendable {
    /// Wall-clock now.
    func now() -> Date
}

/// The system clock.
public struct SystemClock: DoubleClock {
    public init() {}
    public func now() -> Date { Date() }
}
