import Foundation

/// A value behind a pthread mutex (`NSLock`).
///
/// Used instead of `Synchronization.Mutex` for cross-thread state in the runtime because
/// on Linux `Mutex` is built on raw futexes that ThreadSanitizer cannot see, so every
/// access through it is reported as a race; with a pthread mutex TSan runs stay clean and
/// meaningful. `@unchecked Sendable`: `value` is only touched while `lock` is held.
final class PthreadLocked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    @inline(__always)
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
