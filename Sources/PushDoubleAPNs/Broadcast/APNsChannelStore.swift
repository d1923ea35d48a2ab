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
    /// The simulated devices (registered device ids) whose Live Activity subscribed to this
    /// channel, in subscription order.
    public var subscribers: [String] = []
    /// The message a Most Recent Message channel keeps for devices that subscribe later, until
    /// ``storedUntil``; nil on a No Message Stored channel or before its first storable broadcast.
    public var storedMessage: APNsBroadcastRecord?
    public var storedUntil: Date?

    /// The configuration `GET /1/apps/<bundleId>/channels` answers with.
    public var configuration: JSONValue {
        .object([("message-storage-policy", .int(Int64(storagePolicy.rawValue))), ("push-type", .string(pushType))])
    }

    /// The channel as the admin API lists it.
    public var json: JSONValue {
        .object([("channelId", .string(id)), ("bundleId", .string(bundleID)), ("environment", .string(environment.rawValue)),
                 ("messageStoragePolicy", .int(Int64(storagePolicy.rawValue))), ("pushType", .string(pushType)),
                 ("createdAt", .string(ISO8601DateFormatter().string(from: createdAt))),
                 ("broadcasts", .array(broadcasts.map(\.json))), ("subscribers", .array(subscribers.map(JSONValue.string)))]
                + storedJSON)
    }

    private var storedJSON: [(String, JSONValue)] {
        guard let m = storedMessage, let until = storedUntil else { return [] }
        return [("storedMessage", .object([("requestId", .string(m.requestID)),
                                           ("storedUntil", .string(ISO8601DateFormatter().string(from: until)))]))]
    }

    /// The stored message, if it is still kept at `now` (``storedUntil`` is exclusive).
    func storedMessage(at now: Date) -> APNsBroadcastRecord? {
        guard let m = storedMessage, let until = storedUntil, now < until else { return nil }
        return m
    }

    /// How long a Most Recent Message channel keeps `record`: until `apns-expiration` when it
    /// is given and earlier, at most ``APNsChannelStore/storageLimit`` after it was accepted;
    /// nil (not kept) on a No Message Stored channel or for `apns-expiration: 0`.
    func storageDeadline(of record: APNsBroadcastRecord) -> Date? {
        guard storagePolicy == .mostRecentMessage else { return nil }
        let cap = record.receivedAt.addingTimeInterval(APNsChannelStore.storageLimit)
        guard let e = record.expiration else { return cap }
        if e == 0 { return nil }
        return min(cap, Date(timeIntervalSince1970: TimeInterval(e)))
    }
}

/// One Live Activity update a simulated device received on a channel it subscribed to: a
/// broadcast delivered when it was accepted, or the channel's stored message delivered when
/// the device subscribed later (``fromStorage``).
public struct APNsLiveActivityUpdate: Sendable, Equatable {
    public var deviceID: String
    public var channelID: String
    public var bundleID: String
    public var environment: APNsEnvironment
    public var broadcast: APNsBroadcastRecord
    public var deliveredAt: Date
    public var fromStorage: Bool

    /// The update as the admin API lists it (`GET /apns/devices/{id}/channels`).
    public var json: JSONValue {
        .object([("deviceId", .string(deviceID)), ("channelId", .string(channelID)), ("bundleId", .string(bundleID)),
                 ("environment", .string(environment.rawValue)), ("requestId", .string(broadcast.requestID)),
                 ("sentAt", .string(ISO8601DateFormatter().string(from: broadcast.receivedAt))),
                 ("deliveredAt", .string(ISO8601DateFormatter().string(from: deliveredAt))),
                 ("fromStorage", .bool(fromStorage)), ("priority", .int(Int64(broadcast.priority))),
                 ("payload", broadcast.payload ?? .null)])
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
        /// What each subscribed device received, oldest first (the last ``APNsChannelStore/updateLogLimit``).
        var updates: [String: [APNsLiveActivityUpdate]] = [:]
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

    /// How long a Most Recent Message channel keeps its message at most: 8 hours (Apple,
    /// *Sending channel management requests to APNs*).
    public static let storageLimit: TimeInterval = 8 * 3600
    /// Live Activity updates kept per device for the admin API and the inbox.
    public static let updateLogLimit = 100

    /// Appends a broadcast APNs accepted to its channel's log, keeps it as the channel's stored
    /// message (Most Recent Message policy, ``APNsChannel/storageDeadline(of:)``) and delivers it
    /// to every subscriber `reaches` accepts (asked outside the lock). Returns the devices it
    /// reached, nil when there is no such channel.
    @discardableResult
    public func recordBroadcast(_ record: APNsBroadcastRecord, channel id: String, bundleID: String, environment: APNsEnvironment,
                                reaches: (String) -> Bool = { _ in true }) -> [String]? {
        let key = Key(environment: environment, bundleID: bundleID)
        let subscribers: [String]? = table.withLock { t in
            guard let i = t.channels[key]?.firstIndex(where: { $0.id == id }) else { return nil }
            Self.log(record, in: &t.channels[key]![i])
            return t.channels[key]![i].subscribers
        }
        guard let subscribers else { return nil }
        let reached = subscribers.filter(reaches)
        table.withLock { t in
            for device in reached {
                Self.append(APNsLiveActivityUpdate(deviceID: device, channelID: id, bundleID: bundleID, environment: environment,
                                                   broadcast: record, deliveredAt: record.receivedAt, fromStorage: false), to: &t)
            }
        }
        return reached
    }

    private static func log(_ record: APNsBroadcastRecord, in channel: inout APNsChannel) {
        channel.broadcasts.append(record)
        if channel.broadcasts.count > broadcastLogLimit { channel.broadcasts.removeFirst(channel.broadcasts.count - broadcastLogLimit) }
        if let until = channel.storageDeadline(of: record) {
            channel.storedMessage = record
            channel.storedUntil = until
        } else if channel.storagePolicy == .mostRecentMessage {
            // A newer message that may not be stored (`apns-expiration: 0`) still replaces the older one.
            channel.storedMessage = nil
            channel.storedUntil = nil
        }
    }

    private static func append(_ update: APNsLiveActivityUpdate, to t: inout Table) {
        t.updates[update.deviceID, default: []].append(update)
        if let n = t.updates[update.deviceID]?.count, n > updateLogLimit { t.updates[update.deviceID]?.removeFirst(n - updateLogLimit) }
    }

    /// What ``subscribe(device:channel:bundleID:environment:now:reachable:)`` did.
    public enum SubscribeResult: Sendable, Equatable {
        /// Subscribed (or already was); `delivered` is the stored message the device got now.
        case subscribed(delivered: APNsLiveActivityUpdate?)
        /// The app has no such channel in that environment.
        case noChannel
    }

    /// Subscribes a device's Live Activity to a channel. A device new to the channel gets the
    /// channel's stored message when one is still kept at `now` (and `reachable`: the device can
    /// receive at all); a device already subscribed gets nothing again.
    @discardableResult
    public func subscribe(device: String, channel id: String, bundleID: String, environment: APNsEnvironment, now: Date,
                          reachable: Bool = true) -> SubscribeResult {
        table.withLock { t in
            let key = Key(environment: environment, bundleID: bundleID)
            guard let i = t.channels[key]?.firstIndex(where: { $0.id == id }) else { return .noChannel }
            guard !t.channels[key]![i].subscribers.contains(device) else { return .subscribed(delivered: nil) }
            t.channels[key]![i].subscribers.append(device)
            guard reachable, let stored = t.channels[key]![i].storedMessage(at: now) else { return .subscribed(delivered: nil) }
            let update = APNsLiveActivityUpdate(deviceID: device, channelID: id, bundleID: bundleID, environment: environment,
                                                broadcast: stored, deliveredAt: now, fromStorage: true)
            Self.append(update, to: &t)
            return .subscribed(delivered: update)
        }
    }

    /// Ends a device's subscriptions: to channel `id` only, or to every channel when nil.
    /// Returns how many ended.
    @discardableResult
    public func unsubscribe(device: String, channel id: String? = nil) -> Int {
        table.withLock { t in
            var ended = 0
            for key in Array(t.channels.keys) {
                for i in t.channels[key]!.indices where id == nil || t.channels[key]![i].id == id {
                    let before = t.channels[key]![i].subscribers.count
                    t.channels[key]![i].subscribers.removeAll { $0 == device }
                    ended += before - t.channels[key]![i].subscribers.count
                }
            }
            return ended
        }
    }

    /// The channels a device is subscribed to, ordered as ``all(bundleID:environment:)``.
    public func subscriptions(of device: String) -> [APNsChannel] { all().filter { $0.subscribers.contains(device) } }

    /// The Live Activity updates a device received, oldest first.
    public func updates(of device: String) -> [APNsLiveActivityUpdate] { table.withLock { $0.updates[device] ?? [] } }

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

    /// Forgets every channel and what devices received on them.
    public func removeAll() { table.withLock { $0 = Table() } }

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
