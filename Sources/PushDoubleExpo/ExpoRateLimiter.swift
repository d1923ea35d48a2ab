import Synchronization

/// The per-project send rate of docs/expo.md §1 [A]: 600 notifications / second / project, more →
/// `TOO_MANY_REQUESTS`, HTTP 429 (``ExpoRequestError/tooManyRequests(limitPerSecond:statuses:)``).
///
/// A sliding window of `window` seconds on the caller's clock. docs/expo.md does not say how the
/// service counts, so these choices are ours: a request is admitted whole or refused whole (the
/// error is request-level); every recipient counts; a refused request counts nothing. Thread-safe
/// (one `Mutex`) and bounded: at most `maxProjects` projects are tracked (a project idle for a
/// whole window holds nothing and is dropped first); each holds at most one entry per admitted request
/// in the window.
public final class ExpoRateLimiter: Sendable {
    public let limit: Int
    public let window: Double
    public let maxProjects: Int

    private struct Bucket {
        /// (time, notifications) of admitted requests in the window, oldest first; `head` skips expired ones.
        var entries: [(time: Double, count: Int)] = []
        var head = 0
        var total = 0
        var lastUsed: Double = 0
    }
    private let state = Mutex([String: Bucket]())

    public init(limit: Int = 600, window: Double = 1, maxProjects: Int = 10_000) {
        precondition(limit > 0 && window > 0 && maxProjects > 0, "limit, window and maxProjects must be positive")
        self.limit = limit; self.window = window; self.maxProjects = maxProjects
    }

    /// Admits `notifications` for `project` at `now` and counts them, or refuses (false) and counts nothing.
    public func admit(project: String, notifications: Int, now: Double) -> Bool {
        state.withLock { buckets in
            var b = buckets[project] ?? Bucket()
            Self.expire(&b, before: now - window)
            guard b.total + notifications <= limit else {
                b.lastUsed = now
                buckets[project] = b
                return false
            }
            b.entries.append((now, notifications))
            b.total += notifications
            b.lastUsed = now
            buckets[project] = b
            if buckets.count > maxProjects { evict(&buckets, now: now) }
            return true
        }
    }

    /// Admits or throws `TOO_MANY_REQUESTS` (429).
    public func check(project: String, notifications: Int, now: Double, statuses: ExpoErrorStatuses = .init()) throws(ExpoRequestError) {
        guard admit(project: project, notifications: notifications, now: now) else {
            throw .tooManyRequests(limitPerSecond: limit, statuses: statuses)
        }
    }

    /// Notifications counted for `project` in the window ending at `now`.
    public func count(project: String, now: Double) -> Int {
        state.withLock { buckets in
            guard var b = buckets[project] else { return 0 }
            Self.expire(&b, before: now - window)
            return b.total
        }
    }

    /// Projects tracked.
    public var projectCount: Int { state.withLock { $0.count } }

    /// Entries at or before `cutoff` leave the window (an entry at `now - window` is out).
    private static func expire(_ b: inout Bucket, before cutoff: Double) {
        while b.head < b.entries.count, b.entries[b.head].time <= cutoff {
            b.total -= b.entries[b.head].count
            b.head += 1
        }
        if b.head > 64, b.head * 2 > b.entries.count {
            b.entries.removeFirst(b.head)
            b.head = 0
        }
    }

    /// Drops idle projects (nothing in the window); if none is idle, the least recently used.
    private func evict(_ buckets: inout [String: Bucket], now: Double) {
        for (k, var b) in buckets {
            Self.expire(&b, before: now - window)
            if b.total == 0 { buckets[k] = nil }
        }
        while buckets.count > maxProjects, let oldest = buckets.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key {
            buckets[oldest] = nil
        }
    }
}
