import Foundation
import Synchronization

/// One driver `broadcast` call (docs/conformance.md "broadcast"): a Live Activity update on a
/// channel the sender names.
struct BroadcastRequest: Sendable {
    var channel: String
    var environment: TargetDevice.Environment
    var storagePolicy: Int
    var event: String
    var contentState: JSON?
    var alert: JSON?
    var ttlSeconds: Int?

    init(_ params: JSON) throws(DriverError) {
        guard let c = params["channel"]?.stringValue, !c.isEmpty else { throw .invalidParams("channel is required") }
        channel = c
        environment = params["environment"]?.stringValue == "sandbox" ? .sandbox : .production
        guard let p = params["messageStoragePolicy"]?.int, p == 0 || p == 1 else { throw .invalidParams("messageStoragePolicy must be 0 or 1") }
        storagePolicy = p
        guard let e = params["event"]?.stringValue, e == "update" || e == "end" else { throw .invalidParams("event must be update or end") }
        event = e
        contentState = params["contentState"]
        alert = params["alert"]
        ttlSeconds = params["ttlSeconds"]?.int
    }
}

/// APNs broadcast push (apns.md §13): a channel per event, created once on the channel
/// management host (`POST /1/apps/<bundle id>/channels` with the storage policy asked for),
/// each update `POST /4/broadcasts/apps/<bundle id>` with `apns-channel-id`,
/// `apns-push-type: liveactivity`, `apns-priority` and `apns-expiration` (both required by
/// Apple; 0 on a No Message Stored channel), the channel deleted after its `end` event.
/// Authentication, connections and retries are the push sender's.
final class APNsBroadcaster: Sendable {
    /// Apple keeps a most-recent message at most 8 hours (*Sending channel management requests to APNs*).
    static let maxStorageSeconds = 8 * 3600

    let sender: APNsSender
    /// The channel management hosts (nil: not configured, broadcasts fail).
    let manage: [TargetDevice.Environment: HTTPSEndpoint]
    /// Channel ids by (environment, scenario channel name).
    private let channels = Mutex<[String: String]>([:])

    init(sender: APNsSender, manage: [TargetDevice.Environment: HTTPSEndpoint]) { self.sender = sender; self.manage = manage }

    private var mutant: MutantSet { sender.mutant }

    func broadcast(_ b: BroadcastRequest) async -> DeviceResult {
        guard let topic = sender.settings.topic else { return DeviceResult(device: b.channel, outcome: .rejected, reason: "NoTopic") }
        let key = b.environment.rawValue + "|" + b.channel
        var channelID = mutant.contains(.channelPerBroadcast) ? nil : channels.withLock { $0[key] }
        if channelID == nil {
            switch await createChannel(b, topic: topic) {
            case .success(let id): channelID = id; channels.withLock { $0[key] = id }
            case .failure(let r): return DeviceResult(device: b.channel, outcome: r.outcome, reason: r.reason)
            }
        }
        let id = channelID!
        let now = Int64(sender.clock.now().rounded(.down))
        let result = await exchange(broadcastRequest(b, topic: topic, channelID: id, now: now), environment: b.environment, push: true,
                                    label: "broadcast \(b.channel)")
        // The Live Activity event is over: delete its channel (Apple: delete it once the event is complete).
        if b.event == "end" {
            channels.withLock { $0[key] = nil }
            let deletion = WireRequest(path: "/1/apps/\(topic)/channels", authority: "", headers: [("apns-channel-id", id)], body: [], method: "DELETE")
            _ = await exchange(deletion, environment: b.environment, push: false, label: "delete channel \(b.channel)")
        }
        switch result {
        case .success(let r):
            return DeviceResult(device: b.channel, outcome: .sent, providerMessageId: r.header("apns-request-id"))
        case .failure(let f):
            return DeviceResult(device: b.channel, outcome: f.outcome, reason: f.reason)
        }
    }

    /// The broadcast request, as Apple's table has it (or as a planted bug breaks it).
    func broadcastRequest(_ b: BroadcastRequest, topic: String, channelID: String, now: Int64) -> WireRequest {
        var aps: JSONObject = ["timestamp": .int64(now), "event": .string(b.event)]
        if let cs = b.contentState { aps["content-state"] = cs }
        if let a = b.alert { aps["alert"] = a }
        let stored = b.storagePolicy == 1 || mutant.contains(.broadcastStoredExpiration)
        let expiration = stored ? now + Int64(min(b.ttlSeconds ?? Self.maxStorageSeconds, Self.maxStorageSeconds)) : 0
        var headers: [(name: String, value: String)] = []
        if !mutant.contains(.broadcastNoChannelId) { headers.append(("apns-channel-id", channelID)) }
        headers += [(APNs.Header.pushType, mutant.contains(.broadcastAlertPushType) ? "alert" : "liveactivity"),
                    (APNs.Header.priority, "10"), (APNs.Header.expiration, String(expiration))]
        let path = mutant.contains(.broadcastDevicePath) ? APNs.devicePathPrefix + channelID : "/4/broadcasts/apps/\(topic)"
        return WireRequest(path: path, authority: "", headers: headers, body: JSON.object(["aps": .object(aps)]).bytes)
    }

    private func createChannel(_ b: BroadcastRequest, topic: String) async -> Result<String, Failure> {
        let body = JSON.object(["message-storage-policy": .int(b.storagePolicy), "push-type": .string("LiveActivity")]).bytes
        let create = WireRequest(path: "/1/apps/\(topic)/channels", authority: "", headers: [], body: body)
        switch await exchange(create, environment: b.environment, push: false, label: "create channel \(b.channel)") {
        case .success(let r):
            guard let id = r.header("apns-channel-id") else { return .failure(Failure(outcome: .failed, reason: "NoChannelId")) }
            return .success(id)
        case .failure(let f): return .failure(f)
        }
    }

    /// Why a request did not succeed, as the push decision table reports it.
    struct Failure: Error {
        var outcome: Outcome
        var reason: String?
    }

    /// One request to a push host (`push`) or the channel management host, with the push
    /// sender's authentication, connection pool and retry table.
    private func exchange(_ request: WireRequest, environment: TargetDevice.Environment, push: Bool, label: String) async -> Result<WireResponse, Failure> {
        let settings = sender.settings
        guard let endpoint = push ? (environment == .sandbox ? settings.sandbox : settings.production) : manage[environment] else {
            return .failure(Failure(outcome: .failed, reason: "NoChannelManagementURL"))
        }
        var state = RetryState()
        let started = sender.clock.now()
        while true {
            var headers: [(name: String, value: String)] = []
            var token: ProviderTokenCache.Token?
            if !settings.usesCertificate {
                guard let t = try? sender.tokens.token(teamId: settings.teamId, keyId: settings.keyId, now: sender.clock.now()) else {
                    return .failure(Failure(outcome: .failed, reason: "ProviderTokenSigningFailed"))
                }
                token = t
                headers.append((APNs.Header.authorization, "bearer " + t.jwt))
            }
            let key = sender.poolKey(endpoint, token: token)
            var connection: (any PushConnection)?
            let result: AttemptResult
            switch await sender.pool.connection(for: key) {
            case .failure(let f): result = .failure(f)
            case .success(let c):
                connection = c
                var r = request
                r.authority = endpoint.authority
                r.headers = headers + request.headers
                result = await c.send(r)
            }
            if case .response(let r) = result, (200..<300).contains(r.status) { return .success(r) }
            switch sender.decider.decide(result, state: &state, now: sender.clock.now()) {
            case .finish(let outcome, let reason, _):
                Log.info("\(label): \(outcome.rawValue) (\(reason ?? "-"))")
                return .failure(Failure(outcome: outcome == .sent ? .failed : outcome, reason: reason))
            case .retry(let action) where mutant.contains(.broadcastNoRetry):
                return .failure(Failure(outcome: .failed, reason: action.reason))
            case .retry(let action):
                if action.retireConnection, let connection { await sender.pool.retire(connection) }
                if action.refreshToken, let token {
                    sender.tokens.invalidate(teamId: settings.teamId, keyId: settings.keyId, token: token, scope: "")
                }
                let wait = sender.decider.delay(for: action, state: &state, random: sender.random.unit())
                if sender.clock.now() + wait - started > sender.decider.policy.maxTotalSeconds {
                    return .failure(Failure(outcome: .failed, reason: action.reason))
                }
                Log.info("\(label): retrying after \(action.reason) in \(wait) s")
                await sender.clock.sleep(seconds: wait)
            }
        }
    }
}
