import Foundation
import Synchronization
import PushDoubleCore

/// How APNs keeps a channel's messages for devices it cannot reach at once (the channel's
/// `message-storage-policy`, docs/apns.md "Broadcast channels").
public enum APNsMessageStoragePolicy: Int, Sendable, Codable, CaseIterable {
    /// 0: nothing is stored.
    case noStorage = 0
    /// 1: the most recent message is stored.
    case mostRecentMessage = 1
}

/// One broadcast channel of an app in one environment, as APNs created it.
public struct APNsChannel: Sendable, Equatable {
    /// The channel id APNs returned in `apns-channel-id` (base64 of 16 random bytes).
    public var id: String
    public var bundleID: String
    public var environment: APNsEnvironment
    public var storagePolicy: APNsMessageStoragePolicy
    /// Always `LiveActivity`, the only push type Apple documents for channels.
    public var pushType: String
    public var createdAt: Date
    /// The broadcasts APNs accepted on this channel, oldest first (the last
    /// ``APNsChannelStore/broadcastLogLimit``).
    public var broadcasts: [APNsBroadcastRecord] = []

    /// The configuration `GET /1/apps/<bundleId>/channels` answers with.
    public var configuration: JSONValue {
        .object([("message-storage-policy", .int(Int64(storagePolicy.rawValue))), ("push-type", .string(pushType))])
    }

    /// The channel as the admin API lists it.
    public var json: JSONValue {
        .object([("channelId", .string(id)), ("bundleId", .string(bundleID)), ("environment", .string(environment.rawValue)),
                 ("messageStoragePolicy", .int(Int64(storagePolicy.rawValue))), ("pushType", .string(pushType)),
                 ("createdAt", .string(ISO8601DateFormatter().string(from: createdAt))),
                 ("broadcasts", .array(broadcasts.map(\.json)))])
    }
}

/// One broadcast a channel received.
public struct APNsBroadcastRecord: Sendable, Equatable {
    public var requestID: String
    public var receivedAt: Date
    public var priority: Int
    public var expiration: Int64?
    public var payload: JSONValue?

    public var json: JSONValue {
        var m: [(String, JSONValue)] = [("requestId", .string(requestID)),
                                        ("receivedAt", .string(ISO8601DateFormatter().string(from: receivedAt))),
                                        ("priority", .int(Int64(priority)))]
        if let e = expiration { m.append(("expiration", .int(e))) }
        m.append(("payload", payload ?? .null))
        return .object(m)
    }
}

/// The broadcast channels of one double, per app and environment (channels are not shared
/// across environments), at most ``limit`` per app and environment (Apple: 10,000).
///
/// Thread-safe: one mutex around the table.
public final class APNsChannelStore: Sendable {
    /// Apple's limit: 10,000 channels per app in each environment.
    public static let appleLimit = 10_000

    struct Key: Hashable { var environment: APNsEnvironment; var bundleID: String }
    struct Table {
        /// Channels in creation order, per app and environment.
        var channels: [Key: [APNsChannel]] = [:]
    }
    private let table = Mutex(Table())
    /// Channels allowed per app and environment.
    public let limit: Int

    public init(limit: Int = APNsChannelStore.appleLimit) { self.limit = limit }

    /// What ``create(bundleID:environment:policy:now:)`` made of a request.
    public enum CreateResult: Sendable, Equatable {
        case created(APNsChannel)
        /// The app already has ``APNsChannelStore/limit`` channels in that environment.
        case limitReached
    }

    /// Creates a channel with a fresh id (or `id`, for scenario files).
    public func create(bundleID: String, environment: APNsEnvironment, policy: APNsMessageStoragePolicy,
                       now: Date, id: String? = nil) -> CreateResult {
        table.withLock { t in
            let key = Key(environment: environment, bundleID: bundleID)
            if let id, let i = t.channels[key]?.firstIndex(where: { $0.id == id }) { t.channels[key]?.remove(at: i) }
            guard t.channels[key, default: []].count < limit else { return .limitReached }
            let channel = APNsChannel(id: id ?? Self.newChannelID(), bundleID: bundleID, environment: environment,
                                      storagePolicy: policy, pushType: "LiveActivity", createdAt: now)
            t.channels[key, default: []].append(channel)  // in place: no copy of the list
            return .created(channel)
        }
    }

    /// The channel `id` of the app in that environment, nil when there is none.
    public func channel(_ id: String, bundleID: String, environment: APNsEnvironment) -> APNsChannel? {
        table.withLock { $0.channels[Key(environment: environment, bundleID: bundleID)]?.first { $0.id == id } }
    }

    /// Deletes a channel; false when the app has no such channel in that environment.
    @discardableResult
    public func delete(_ id: String, bundleID: String, environment: APNsEnvironment) -> Bool {
        table.withLock { t in
            let key = Key(environment: environment, bundleID: bundleID)
            guard let i = t.channels[key]?.firstIndex(where: { $0.id == id }) else { return false }
            t.channels[key]?.remove(at: i)
            return true
        }
    }

    /// Broadcasts kept per channel for the admin API.
    public static let broadcastLogLimit = 100

    /// Appends a broadcast APNs accepted to its channel's log; false when there is no such channel.
    @discardableResult
    public func recordBroadcast(_ record: APNsBroadcastRecord, channel id: String, bundleID: String, environment: APNsEnvironment) -> Bool {
        table.withLock { t in
            let key = Key(environment: environment, bundleID: bundleID)
            guard let i = t.channels[key]?.firstIndex(where: { $0.id == id }) else { return false }
            t.channels[key]?[i].broadcasts.append(record)
            if let n = t.channels[key]?[i].broadcasts.count, n > Self.broadcastLogLimit {
                t.channels[key]?[i].broadcasts.removeFirst(n - Self.broadcastLogLimit)
            }
            return true
        }
    }

    /// The app's channels in that environment, in creation order.
    public func channels(bundleID: String, environment: APNsEnvironment) -> [APNsChannel] {
        table.withLock { $0.channels[Key(environment: environment, bundleID: bundleID)] ?? [] }
    }

    /// Every channel, optionally of one app and/or environment, ordered by app, environment, creation.
    public func all(bundleID: String? = nil, environment: APNsEnvironment? = nil) -> [APNsChannel] {
        let snapshot = table.withLock { $0.channels }
        return snapshot.keys
            .filter { (bundleID == nil || $0.bundleID == bundleID) && (environment == nil || $0.environment == environment) }
            .sorted { ($0.bundleID, $0.environment.rawValue) < ($1.bundleID, $1.environment.rawValue) }
            .flatMap { snapshot[$0] ?? [] }
    }

    /// Forgets every channel.
    public func removeAll() { table.withLock { $0.channels = [:] } }

    /// A new channel id: 16 random bytes in standard base64, the shape of the ids in Apple's
    /// examples (UNCONFIRMED: Apple documents no format).
    static func newChannelID() -> String {
        var g = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &g) }).base64EncodedString()
    }

    /// Whether `id` can be a channel id at all: non-empty standard base64 (else `BadChannelId`).
    static func isWellFormedChannelID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count % 4 == 0 && Data(base64Encoded: id) != nil
    }
}
