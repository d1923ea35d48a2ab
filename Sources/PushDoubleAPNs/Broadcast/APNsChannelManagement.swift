import Foundation
import PushDoubleCore
import PushDoubleTransport

extension APNsEnvironment {
    /// The real channel management host and port of this environment (Apple, *Sending channel
    /// management requests to APNs*): `api-manage-broadcast.sandbox.push.apple.com:2195` and
    /// `api-manage-broadcast.push.apple.com:2196`.
    public var managementHost: String {
        self == .production ? "api-manage-broadcast.push.apple.com" : "api-manage-broadcast.sandbox.push.apple.com"
    }
    /// What the CONNECT proxy routes to this environment's channel management listener.
    public var managementRealHosts: [String] { [managementHost + (self == .production ? ":2196" : ":2195")] }
    /// The fake's channel management listener for this environment.
    public var managementListenerName: String { self == .production ? "apns-manage-production" : "apns-manage-sandbox" }

    /// The environment a channel management request addresses (real host in `:authority`,
    /// then SNI, then the listener's name), nil when the request did not arrive on a channel
    /// management listener (one prefix test on the push path).
    static func management(of request: HTTPRequest) -> APNsEnvironment? {
        let listener = request.info.connection.listener
        guard listener.hasPrefix("apns-manage-") else { return nil }
        func fromHost(_ authority: String) -> APNsEnvironment? {
            var host = Substring(authority.lowercased())
            if let colon = host.lastIndex(of: ":") { host = host[..<colon] }
            return allCases.first { $0.managementHost == host }
        }
        if let a = request.authority, let e = fromHost(a) { return e }
        if let sni = request.info.connection.tls?.serverName, let e = fromHost(sni) { return e }
        return allCases.first { $0.managementListenerName == listener }
    }
}

/// A parsed part of a channel management request, or the reason APNs refuses it with.
enum APNsChannelCheck<Value> {
    case success(Value)
    case failure(APNsReason)

    /// The value transformed, the reason kept.
    func map<T>(_ transform: (Value) -> T) -> APNsChannelCheck<T> {
        switch self {
        case .success(let v): return .success(transform(v))
        case .failure(let r): return .failure(r)
        }
    }
}

/// A channel management request (Apple, *Sending channel management requests to APNs*):
/// `POST /1/apps/<bundleId>/channels` (create), `GET` / `DELETE` of the same path with
/// `apns-channel-id` (read, delete), `GET /1/apps/<bundleId>/all-channels` (list).
struct APNsChannelRoute: Equatable {
    enum Operation: String, CaseIterable {
        case create, read, delete, list
        /// The endpoint id recorded in the history and named by fault rules.
        var endpoint: String { "apns.channels." + rawValue }
    }
    var operation: Operation
    var bundleID: String

    /// The route, or the reason APNs refuses the path / method with.
    static func parse(_ request: HTTPRequest) -> APNsChannelCheck<APNsChannelRoute> {
        var path = Substring(request.path)
        if let q = path.firstIndex(of: "?") { path = path[..<q] }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "1", parts[2] == "apps", !parts[3].isEmpty else { return .failure(.badPath) }
        let bundleID = String(parts[3])
        switch (parts[4], request.method) {
        case ("channels", "POST"): return .success(APNsChannelRoute(operation: .create, bundleID: bundleID))
        case ("channels", "GET"): return .success(APNsChannelRoute(operation: .read, bundleID: bundleID))
        case ("channels", "DELETE"): return .success(APNsChannelRoute(operation: .delete, bundleID: bundleID))
        case ("all-channels", "GET"): return .success(APNsChannelRoute(operation: .list, bundleID: bundleID))
        case ("channels", _), ("all-channels", _): return .failure(.methodNotAllowed)
        default: return .failure(.badPath)
        }
    }

    /// The create body's storage policy, or the reason it is refused: not a JSON object with
    /// `message-storage-policy` 0 or 1 → `BadRequestPayload`; `push-type` missing →
    /// `MissingPushType`; a `push-type` other than `LiveActivity` → `BadRequestPayload`
    /// (docs/apns.md "Broadcast channels": the reasons are Apple's, the mapping UNCONFIRMED).
    static func createBody(_ body: [UInt8]) -> APNsChannelCheck<APNsMessageStoragePolicy> {
        guard case .success(let v) = APNsPayloadDecoder.decode(body), v.objectValue != nil else { return .failure(.badRequestPayload) }
        guard let pushType = v["push-type"] else { return .failure(.missingPushType) }
        guard pushType.stringValue == "LiveActivity" else { return .failure(.badRequestPayload) }
        guard let n = v["message-storage-policy"]?.intValue, let policy = APNsMessageStoragePolicy(rawValue: Int(n)) else {
            return .failure(.badRequestPayload)
        }
        return .success(policy)
    }
}

extension APNsFake {
    /// The endpoint ids of channel management, for the module's catalogue.
    public static var channelEndpoints: [String] { APNsChannelRoute.Operation.allCases.map(\.endpoint) }

    /// Admits a channel management request: path and method, authentication (the connection's
    /// provider certificate, else the JWT, with the push rules), the bundle id as the topic,
    /// `apns-channel-id` on read/delete, the body on create. Whether the channel exists and
    /// the channel limit are decided in ``deliverChannelRequest``, after fault rules.
    func admitChannelManagement(_ request: HTTPRequest, environment: APNsEnvironment, context: RequestContext,
                                now: Date) -> Admission {
        let parsed = APNsChannelRoute.parse(request)
        let admission = admitBundleRequest(request, environment: environment, context: context, now: now, endpoint: "apns.channels",
                                           notification: Self.recordedChannelRequest,
                                           route: parsed.map { (endpoint: $0.operation.endpoint, bundleID: $0.bundleID) })
        guard admission.refusal == nil, case .success(let r) = parsed else { return admission }
        func refuse(_ reason: APNsReason, _ stage: Decision.Stage, _ detail: String? = nil) -> Admission {
            refuseBundleRequest(admission, reason, stage, detail)
        }
        switch r.operation {
        case .create:
            if case .failure(let reason) = APNsChannelRoute.createBody(request.body) { return refuse(reason, .validation) }
        case .read, .delete:
            guard let id = request.headers.first(name: "apns-channel-id"), !id.isEmpty else { return refuse(.missingChannelId, .validation) }
            guard APNsChannelStore.isWellFormedChannelID(id) else { return refuse(.badChannelId, .validation, "not base64: \(id)") }
        case .list: break
        }
        return admission
    }

    /// The first stages shared by channel management and broadcast requests: the request id
    /// (`apns-request-id`, else a new UUID), the route (endpoint id and bundle id, or the path /
    /// method reason), the connection's certificate, the blocked-connection check, then
    /// ``authenticateConnection`` with the bundle id as the topic. The admission's `refusal` is
    /// set when one of them refuses.
    func admitBundleRequest(_ request: HTTPRequest, environment: APNsEnvironment, context: RequestContext, now: Date,
                            endpoint: String, notification: @escaping @Sendable (HTTPRequest) -> JSONValue?,
                            route: APNsChannelCheck<(endpoint: String, bundleID: String)>) -> Admission {
        let state = Self.connectionState(context.connection)
        var admission = Admission(endpoint: endpoint, environment: environment.rawValue)
        admission.messageID = request.headers.first(name: Self.requestIDHeader).flatMap(APNsMessageID.canonical) ?? APNsMessageID.generate()
        admission.notificationMaker = notification
        // Fault rules may name the channel (`"match": {"channel": …}`).
        admission.channel = request.headers.first(name: "apns-channel-id")
        let bundleID: String
        switch route {
        case .failure(let reason): return refuseBundleRequest(admission, reason, .validation, "\(request.method) \(request.path)")
        case .success(let r): admission.endpoint = r.endpoint; bundleID = r.bundleID
        }
        admission.topic = bundleID
        let certificate = certificateAuth(of: request, state: state)
        if let refused = certificateRefusal(certificate, environment: environment, idHeader: Self.requestIDHeader) {
            admission.auth = refused.identity
            admission.refusal = refused.response
            return admission
        }
        if let blocked = APNsTokenRules.blockedReason(state: state, now: now) {
            return refuseBundleRequest(admission, blocked, .auth, "connection blocked")
        }
        var headers = APNsPushHeaders()
        headers.authorization = request.headers.first(name: "authorization")
        headers.topic = bundleID
        headers.bundleID = bundleID
        if let failure = authenticateConnection(headers, certificate: certificate, state: state, environment: environment,
                                                context: context, now: now, admission: &admission) {
            return refuseBundleRequest(admission, failure.reason, failure.stage, failure.detail)
        }
        return admission
    }

    /// A channel management or broadcast request whose body went over the transport's limit:
    /// `PayloadTooLarge` answered with `apns-request-id`, under its own endpoint id; nil for
    /// any other request.
    func oversizedBundleRequest(_ request: HTTPRequest, violation: LimitViolation) -> Admission? {
        let admission: Admission
        if let env = APNsEnvironment.management(of: request) {
            admission = Admission(endpoint: "apns.channels", environment: env.rawValue)
        } else if APNsBroadcastRequest.isBroadcastPath(request.path) {
            admission = Admission(endpoint: Self.broadcastEndpoint, environment: environment(of: request).rawValue)
        } else {
            return nil
        }
        var a = admission
        a.messageID = request.headers.first(name: Self.requestIDHeader).flatMap(APNsMessageID.canonical) ?? APNsMessageID.generate()
        return refuseBundleRequest(a, .payloadTooLarge, .validation, violation.message)
    }

    /// `admission` refused with `reason`, answered with `apns-request-id`.
    func refuseBundleRequest(_ admission: Admission, _ reason: APNsReason, _ stage: Decision.Stage, _ detail: String? = nil) -> Admission {
        var a = admission
        a.refusal = refusal(reason, apnsID: admission.messageID, stage: stage, detail: detail, idHeader: Self.requestIDHeader)
        return a
    }

    /// Answers an admitted channel management request from the double's ``channels``.
    func deliverChannelRequest(_ request: HTTPRequest, admission: Admission, environment: APNsEnvironment,
                               now: Date) -> ProviderResponse {
        let requestID = admission.messageID ?? APNsMessageID.generate()
        guard case .success(let route) = APNsChannelRoute.parse(request) else {
            return refusal(.badPath, apnsID: requestID, stage: .validation, idHeader: Self.requestIDHeader)
        }
        func answer(_ status: Int, _ extra: [(String, String)] = [], body: JSONValue? = nil, _ detail: String) -> ProviderResponse {
            var headers = HTTPHeaders()
            headers.add(name: Self.requestIDHeader, value: requestID)
            for (n, v) in extra { headers.add(name: n, value: v) }
            var bytes: [UInt8] = []
            if let body {
                headers.add(name: "content-type", value: "application/json")
                bytes = body.serialized()
            }
            return ProviderResponse(HTTPResponse(status: status, headers: headers, body: bytes, framing: bytes.isEmpty ? .headersOnly : .singleDataFrame),
                                    decidedBy: Decision(.accepted, detail))
        }
        func notRegistered(_ id: String) -> ProviderResponse {
            refusal(.channelNotRegistered, apnsID: requestID, stage: .device,
                    detail: "no channel \(id) for \(route.bundleID) in \(environment.rawValue)", idHeader: Self.requestIDHeader)
        }
        let channelID = request.headers.first(name: "apns-channel-id") ?? ""
        switch route.operation {
        case .create:
            guard case .success(let policy) = APNsChannelRoute.createBody(request.body) else {
                return refusal(.badRequestPayload, apnsID: requestID, stage: .validation, idHeader: Self.requestIDHeader)
            }
            switch channels.create(bundleID: route.bundleID, environment: environment, policy: policy, now: now) {
            case .limitReached:
                return refusal(.cannotCreateChannelConfig, apnsID: requestID, stage: .quota,
                               detail: "\(channels.limit) channels for \(route.bundleID) in \(environment.rawValue)", idHeader: Self.requestIDHeader)
            case .created(let c):
                return answer(201, [("apns-channel-id", c.id)], "created \(c.id) (storage policy \(policy.rawValue))")
            }
        case .read:
            guard let c = channels.channel(channelID, bundleID: route.bundleID, environment: environment) else { return notRegistered(channelID) }
            return answer(200, body: c.configuration, "read \(c.id)")
        case .delete:
            guard channels.delete(channelID, bundleID: route.bundleID, environment: environment) else { return notRegistered(channelID) }
            return answer(204, [], "deleted \(channelID)")
        case .list:
            let ids = channels.channels(bundleID: route.bundleID, environment: environment).map { JSONValue.string($0.id) }
            return answer(200, body: .object([("channels", .array(ids))]), "\(ids.count) channels")
        }
    }

    /// The header that carries the request id on channel management and broadcast answers.
    static let requestIDHeader = "apns-request-id"

    /// A channel management request as the history records it: the operation, the channel id
    /// when one was sent, and the create body.
    @Sendable static func recordedChannelRequest(_ request: HTTPRequest) -> JSONValue? {
        var members: [(String, JSONValue)] = []
        if case .success(let route) = APNsChannelRoute.parse(request) {
            members.append(("operation", .string(route.operation.rawValue)))
            members.append(("bundleId", .string(route.bundleID)))
        }
        if let id = request.headers.first(name: "apns-channel-id") { members.append(("channelId", .string(id))) }
        if !request.body.isEmpty {
            members.append(("body", (try? APNsPayloadDecoder.decode(request.body).get()) ?? .string(String(decoding: request.body, as: UTF8.self))))
        }
        return .object(members)
    }
}

extension APNsFake {
    /// The two channel management listeners of this fake, `apns-manage-production` and
    /// `apns-manage-sandbox`: the push listeners' TLS, ALPN and HTTP/2 settings, and a client
    /// certificate requested (certificate-based authentication works here as on pushes).
    public func managementListenerSpecs(productionPort: Int = APNsModule.managementProductionPort,
                                        sandboxPort: Int = APNsModule.managementSandboxPort) -> [FakeListenerSpec] {
        [(APNsEnvironment.production, productionPort), (.sandbox, sandboxPort)].map { env, port in
            listenerSpec(name: env.managementListenerName, port: port, environment: env)
        }
    }
}
