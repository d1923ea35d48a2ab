import Foundation
import PushDoubleCore
import PushDoubleTransport

/// A broadcast push (Apple, *Sending broadcast push notification requests to APNs*):
/// `POST /4/broadcasts/apps/<bundleId>` on the push hosts, with `apns-channel-id` and
/// `apns-push-type: liveactivity`; APNs sends the payload to every device subscribed to the
/// channel. Answers carry `apns-request-id` (docs/apns.md "Broadcast push").
struct APNsBroadcastRequest {
    var bundleID: String
    var channelID: String
    var priority: Int
    var expiration: Int64?

    /// A broadcast payload's limit: 5 KB, 5120 bytes (Apple, *Sending broadcast push
    /// notification requests to APNs*).
    static let payloadLimit = 5120

    /// True for a path under `/4/` (one prefix test on the push path).
    static func isBroadcastPath(_ path: String) -> Bool { path.hasPrefix("/4/") }

    /// The bundle id of `/4/broadcasts/apps/<bundleId>`, or the reason for path / method.
    static func route(_ request: HTTPRequest) -> APNsChannelCheck<String> {
        var path = Substring(request.path)
        if let q = path.firstIndex(of: "?") { path = path[..<q] }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[1] == "4", parts[2] == "broadcasts", parts[3] == "apps", !parts[4].isEmpty else {
            return .failure(.badPath)
        }
        guard request.method == "POST" else { return .failure(.methodNotAllowed) }
        return .success(String(parts[4]))
    }

    /// The header checks, in this order: `apns-channel-id` present (`MissingChannelId`) and
    /// base64 (`BadChannelId`); `apns-push-type` present (`MissingPushType`) and `liveactivity`
    /// (`InvalidPushType`); `apns-priority` 10, 5 or 1 (`BadPriority`); `apns-expiration`
    /// epoch seconds (`BadExpirationDate`).
    static func parse(_ request: HTTPRequest, bundleID: String) -> APNsChannelCheck<APNsBroadcastRequest> {
        guard let channel = request.headers.first(name: "apns-channel-id"), !channel.isEmpty else { return .failure(.missingChannelId) }
        guard APNsChannelStore.isWellFormedChannelID(channel) else { return .failure(.badChannelId) }
        guard let pushType = request.headers.first(name: "apns-push-type"), !pushType.isEmpty else { return .failure(.missingPushType) }
        guard pushType == APNsPushType.liveactivity.rawValue else { return .failure(.invalidPushType) }
        var priority = 10
        if let raw = request.headers.first(name: "apns-priority") {
            guard let p = APNsRequestValidator.priority(raw) else { return .failure(.badPriority) }
            priority = p
        }
        var expiration: Int64?
        if let raw = request.headers.first(name: "apns-expiration") {
            guard let e = APNsRequestValidator.parseEpochSeconds(raw) else { return .failure(.badExpirationDate) }
            expiration = e
        }
        return .success(APNsBroadcastRequest(bundleID: bundleID, channelID: channel, priority: priority, expiration: expiration))
    }

    /// What a Live Activity payload lacks by Apple's rules (*Starting and updating Live
    /// Activities with ActivityKit push notifications*): `aps.timestamp` (a number), `aps.event`
    /// `update` or `end` (a channel updates and ends activities), `aps.content-state` (an object)
    /// on `update`. Recorded in the history, not refused: whether APNs refuses such a
    /// broadcast is UNCONFIRMED (the device is documented to ignore it).
    static func liveActivityProblems(_ payload: JSONValue?) -> [String] {
        guard let aps = payload?["aps"], aps.objectValue != nil else { return ["payload has no aps dictionary"] }
        var problems: [String] = []
        if aps["timestamp"]?.intValue == nil && aps["timestamp"]?.doubleValue == nil { problems.append("aps.timestamp missing or not a number") }
        let event = aps["event"]?.stringValue
        if event != "update" && event != "end" { problems.append("aps.event is not \"update\" or \"end\"") }
        if event == "update" && aps["content-state"]?.objectValue == nil { problems.append("aps.content-state missing on update") }
        return problems
    }
}

extension APNsFake {
    /// Endpoint id of a broadcast push in the history and fault rules.
    public static let broadcastEndpoint = "apns.broadcast"

    /// Admits a broadcast: path and method, authentication as on pushes (certificate or JWT,
    /// the path's bundle id as the topic), the header checks of ``APNsBroadcastRequest``, then
    /// the payload (`PayloadEmpty`, `PayloadTooLarge` over 5120 bytes). Whether the channel
    /// exists is decided in ``deliverBroadcast``, after fault rules.
    func admitBroadcast(_ request: HTTPRequest, context: RequestContext, now: Date) -> Admission {
        let parsed = APNsBroadcastRequest.route(request)
        let admission = admitBundleRequest(request, environment: self.environment(of: request), context: context, now: now,
                                           endpoint: Self.broadcastEndpoint, notification: Self.recordedBroadcast,
                                           route: parsed.map { (endpoint: Self.broadcastEndpoint, bundleID: $0) })
        guard admission.refusal == nil, case .success(let bundleID) = parsed else { return admission }
        func refuse(_ reason: APNsReason, _ stage: Decision.Stage, _ detail: String? = nil) -> Admission {
            refuseBundleRequest(admission, reason, stage, detail)
        }
        if case .failure(let reason) = APNsBroadcastRequest.parse(request, bundleID: bundleID) { return refuse(reason, .validation) }
        if request.body.isEmpty { return refuse(.payloadEmpty, .validation) }
        let limit = APNsBroadcastRequest.payloadLimit
        if request.body.count > limit { return refuse(.payloadTooLarge, .validation, "\(request.body.count) bytes > \(limit)") }
        return admission
    }

    /// Answers an admitted broadcast: `ChannelNotRegistered` for a channel the app does not
    /// have in this environment (never created, or deleted); `BadExpirationDate` for a nonzero
    /// `apns-expiration` on a No Message Stored channel (Apple: "results in message rejection";
    /// the reason is UNCONFIRMED); else 200 with `apns-request-id` and `apns-unique-id`.
    func deliverBroadcast(_ request: HTTPRequest, admission: Admission, environment: APNsEnvironment, now: Date,
                          devices: DeviceRegistry) -> ProviderResponse {
        let requestID = admission.messageID ?? APNsMessageID.generate()
        guard case .success(let bundleID) = APNsBroadcastRequest.route(request),
              case .success(let broadcast) = APNsBroadcastRequest.parse(request, bundleID: bundleID) else {
            return refusal(.badPath, apnsID: requestID, stage: .validation, idHeader: Self.requestIDHeader)
        }
        guard let channel = channels.channel(broadcast.channelID, bundleID: bundleID, environment: environment) else {
            return refusal(.channelNotRegistered, apnsID: requestID, stage: .device,
                           detail: "no channel \(broadcast.channelID) for \(bundleID) in \(environment.rawValue)", idHeader: Self.requestIDHeader)
        }
        if channel.storagePolicy == .noStorage, let e = broadcast.expiration, e != 0 {
            return refusal(.badExpirationDate, apnsID: requestID, stage: .validation,
                           detail: "apns-expiration \(e) on a No Message Stored channel", idHeader: Self.requestIDHeader)
        }
        let record = APNsBroadcastRecord(requestID: requestID, receivedAt: now, priority: broadcast.priority, expiration: broadcast.expiration,
                                         payload: try? APNsPayloadDecoder.decode(request.body).get())
        let reached = channels.recordBroadcast(record, channel: channel.id, bundleID: bundleID, environment: environment) { id in
            APNsLiveActivityReach.refusal(devices.device(id: id), bundleID: bundleID, environment: environment, requireActive: true) == nil
        } ?? []
        var headers = HTTPHeaders()
        headers.add(name: Self.requestIDHeader, value: requestID)
        // Apple's success table for broadcasts lists a server-generated `apns-unique-id`.
        headers.add(name: "apns-unique-id", value: APNsMessageID.generate())
        return ProviderResponse(HTTPResponse(status: 200, headers: headers, body: [], framing: .headersOnly),
                                decidedBy: Decision(.accepted, "broadcast on \(channel.id) (storage policy \(channel.storagePolicy.rawValue)), "
                                                    + "delivered to \(reached.count) subscribed device(s)"))
    }

    /// A broadcast as the history records it: the channel, push type, priority, expiration,
    /// the `apns-*` headers as sent, the payload and any Live Activity payload problems.
    @Sendable static func recordedBroadcast(_ request: HTTPRequest) -> JSONValue? {
        guard case .success(let bundleID) = APNsBroadcastRequest.route(request) else { return nil }
        var members: [(String, JSONValue)] = [("bundleId", .string(bundleID))]
        if let id = request.headers.first(name: "apns-channel-id") { members.append(("channelId", .string(id))) }
        let parsed: APNsBroadcastRequest?
        if case .success(let b) = APNsBroadcastRequest.parse(request, bundleID: bundleID) { parsed = b } else { parsed = nil }
        members.append(("pushType", .string(request.headers.first(name: "apns-push-type") ?? "")))
        if let p = parsed {
            members.append(("priority", .int(Int64(p.priority))))
            if let e = p.expiration { members.append(("expiration", .int(e))) }
        }
        let payload = try? APNsPayloadDecoder.decode(request.body).get()
        members.append(("payload", payload ?? .null))
        let problems = APNsBroadcastRequest.liveActivityProblems(payload)
        if !problems.isEmpty { members.append(("liveActivityProblems", .array(problems.map(JSONValue.string)))) }
        return .object(members)
    }
}
