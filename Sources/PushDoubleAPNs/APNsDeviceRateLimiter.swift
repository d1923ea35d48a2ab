import Foundation
import Synchronization

/// Counts pushes per device token in fixed one-second windows and says when a token
/// went over its limit (429 TooManyRequests, docs/apns.md §7.2: "too many requests were made
/// consecutively to the same device token"). Apple publishes no figure.
///
/// Thread-safe: tokens are spread over 16 independently locked shards so that loops
/// rarely contend. Memory is bounded: a shard holding more than ``maxTokensPerShard``
/// tokens drops the ones whose window has passed, and if that is not enough, all of them.
public final class APNsDeviceRateLimiter: Sendable {
    /// Pushes allowed per token per second; the next one in the same second is refused.
    public let limit: Int
    static let shardCount = 16
    static let maxTokensPerShard = 4096

    struct Window { var second: Int64; var count: Int }
    final class Shard: Sendable { let map = Mutex<[String: Window]>([:]) }
    private let shards: [Shard]

    public init(limit: Int) {
        self.limit = limit
        shards = (0..<Self.shardCount).map { _ in Shard() }
    }

    /// Counts one push to `token` at `now`; false if that push exceeds the limit.
    public func admit(token: String, now: Date) -> Bool {
        let second = Int64(now.timeIntervalSince1970.rounded(.down))
        var h: UInt32 = 2166136261
        for c in token.utf8.suffix(8) { h = (h ^ UInt32(c)) &* 16777619 }
        let shard = shards[Int(h % UInt32(Self.shardCount))]
        let limit = self.limit
        return shard.map.withLock { map in
            if var w = map[token] {
                if w.second != second { w = Window(second: second, count: 0) }
                w.count += 1
                map[token] = w
                return w.count <= limit
            }
            if map.count >= Self.maxTokensPerShard {
                map = map.filter { $0.value.second == second }
                if map.count >= Self.maxTokensPerShard { map.removeAll(keepingCapacity: true) }
            }
            map[token] = Window(second: second, count: 1)
            return 1 <= limit
        }
    }
}
