import Foundation
import PushDoubleCore
import PushDoubleTransport

/// The admin API's view of broadcast channels (docs/admin-openapi.yaml `/apns/channels`):
/// `GET /apns/channels[?bundleId=…&environment=…]` lists the double's channels, each with the
/// broadcasts it received; `POST /apns/channels` declares one (as a scenario file does);
/// `DELETE /apns/channels` forgets them all.
enum APNsChannelAdmin {
    static func routes(_ fake: APNsFake) -> [AdminRoute] {
        [AdminRoute("GET", "/apns/channels") { request, _ in list(fake, request) },
         AdminRoute("POST", "/apns/channels") { request, _ in declare(fake, request) },
         AdminRoute("DELETE", "/apns/channels") { _, _ in
             fake.channels.removeAll()
             return AdminRoute.json(200, .object([("channels", .array([]))]))
         }]
    }

    static func list(_ fake: APNsFake, _ request: HTTPRequest) -> HTTPResponse {
        let query = queryItems(request.path)
        var environment: APNsEnvironment?
        if let e = query["environment"] {
            guard let env = APNsEnvironment(rawValue: e) else { return AdminRoute.error(400, "environment must be production or sandbox") }
            environment = env
        }
        let channels = fake.channels.all(bundleID: query["bundleId"], environment: environment)
        return AdminRoute.json(200, .object([("channels", .array(channels.map(\.json)))]))
    }

    static func declare(_ fake: APNsFake, _ request: HTTPRequest) -> HTTPResponse {
        guard let v = try? JSONValue.parse(request.body) else { return AdminRoute.error(400, "expected a JSON object") }
        do {
            let seed = try APNsChannelSeed(v)
            guard case .created(let c) = seed.create(in: fake.channels, now: Date()) else {
                return AdminRoute.error(409, "\(fake.channels.limit) channels already exist for \(seed.bundleID) in \(seed.environment.rawValue)")
            }
            return AdminRoute.json(201, c.json)
        } catch {
            return AdminRoute.error(400, "\(error)")
        }
    }

    /// `name=value` pairs of the query string, percent-decoded.
    static func queryItems(_ path: String) -> [String: String] {
        guard let q = path.firstIndex(of: "?") else { return [:] }
        var out: [String: String] = [:]
        for pair in path[path.index(after: q)...].split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard let k = kv.first?.removingPercentEncoding else { continue }
            out[k] = kv.count > 1 ? (kv[1].removingPercentEncoding ?? kv[1]) : ""
        }
        return out
    }
}

/// A channel declared by a scenario file (`fakeOptions.apns.channels`) or the admin API:
/// `{"bundleId":"…","environment":"production"|"sandbox","messageStoragePolicy":0|1,"channelId":"…",
/// "subscribers":["<device id>",…]}` (`bundleId` defaults to the shipped topic, `environment` to
/// production, the policy to 0, `channelId` to a fresh one, a given id must be base64;
/// `subscribers` are registered device ids whose Live Activity listens on the channel, judged
/// when a broadcast is delivered, as the devices may be loaded after the channel).
public struct APNsChannelSeed: Sendable, Equatable {
    public var bundleID: String
    public var environment: APNsEnvironment
    public var policy: APNsMessageStoragePolicy
    public var channelID: String?
    public var subscribers: [String]

    /// A problem with a declared channel.
    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
    }

    public init(bundleID: String, environment: APNsEnvironment, policy: APNsMessageStoragePolicy, channelID: String? = nil,
                subscribers: [String] = []) {
        self.bundleID = bundleID; self.environment = environment; self.policy = policy
        self.channelID = channelID; self.subscribers = subscribers
    }

    public init(_ value: JSONValue) throws {
        guard value.objectValue != nil else { throw Invalid(description: "a channel must be an object") }
        bundleID = value["bundleId"]?.stringValue ?? APNsTestCredentials.topic
        guard let env = APNsEnvironment(rawValue: value["environment"]?.stringValue ?? "production") else {
            throw Invalid(description: "environment must be production or sandbox")
        }
        environment = env
        guard let p = APNsMessageStoragePolicy(rawValue: Int(value["messageStoragePolicy"]?.intValue ?? 0)) else {
            throw Invalid(description: "messageStoragePolicy must be 0 or 1")
        }
        policy = p
        channelID = value["channelId"]?.stringValue
        if let id = channelID, !APNsChannelStore.isWellFormedChannelID(id) {
            throw Invalid(description: "channelId must be base64 (as APNs issues them), got \(id)")
        }
        let listed = value["subscribers"]?.arrayValue ?? []
        subscribers = listed.compactMap(\.stringValue)
        if (value["subscribers"] != nil && value["subscribers"]?.arrayValue == nil) || subscribers.count != listed.count {
            throw Invalid(description: "subscribers must be an array of device ids")
        }
    }

    func create(in store: APNsChannelStore, now: Date) -> APNsChannelStore.CreateResult {
        let result = store.create(bundleID: bundleID, environment: environment, policy: policy, now: now, id: channelID)
        if case .created(let c) = result {
            for device in subscribers { store.subscribe(device: device, channel: c.id, bundleID: bundleID, environment: environment, now: now) }
            return .created(store.channel(c.id, bundleID: bundleID, environment: environment) ?? c)
        }
        return result
    }
}
