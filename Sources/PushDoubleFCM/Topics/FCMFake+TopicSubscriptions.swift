import Foundation
import PushDoubleCore
import PushDoubleTransport

/// FCM's topic subscription resource on `fcm.googleapis.com` (docs/fcm.md "Topic
/// subscriptions", `projects.registrations.topicSubscriptions` [A]), the successor of the
/// Instance ID API that firebase-admin's `subscribe_to_topic` calls since 7.6 [L]:
///
/// - `POST /v1/projects/{p}/registrations/{token}/topicSubscriptions?topic_name=<topic>` →
///   the `TopicSubscription` (`name`, `topic_name`, `create_time`), 409 `ALREADY_EXISTS` when
///   it exists;
/// - `DELETE …/topicSubscriptions/<topic>[?allow_missing=true]` → `{}`, 404 `NOT_FOUND` for a
///   missing one unless `allow_missing`;
/// - `GET …/topicSubscriptions/<topic>` → the `TopicSubscription` or 404.
///
/// Auth is the send endpoint's (Bearer access token for the project). Query parameters are
/// accepted in both spellings (`topic_name` / `topicName`), as Google's JSON transcoding does.
extension FCMFake {
    /// Endpoint id recorded in the history.
    public static let topicSubscriptionEndpoint = "fcm.topicSubscription"

    /// A parsed topic-subscription request.
    struct TopicSubscriptionRoute: Equatable {
        enum Method: Equatable { case create, delete, get }
        var method: Method
        var project: String
        var token: String
        var topic: String?
        var allowMissing: Bool

        /// nil when the path is not `/v1/projects/{p}/registrations/{token}/topicSubscriptions[/{topic}]`.
        init?(_ request: HTTPRequest) {
            let path = FCMFake.pathOnly(request)
            let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 7 || parts.count == 8, parts[1] == "v1", parts[2] == "projects", !parts[3].isEmpty,
                  parts[4] == "registrations", !parts[5].isEmpty, parts[6] == "topicSubscriptions" else { return nil }
            let query = FCMFake.queryItems(request.path)
            project = parts[3]
            token = parts[5].removingPercentEncoding ?? parts[5]
            allowMissing = (query["allow_missing"] ?? query["allowMissing"]) == "true"
            switch (request.method, parts.count) {
            case ("POST", 7): method = .create; topic = query["topic_name"] ?? query["topicName"]
            case ("DELETE", 8): method = .delete; topic = parts[7].removingPercentEncoding
            case ("GET", 8): method = .get; topic = parts[7].removingPercentEncoding
            default: return nil
            }
        }
    }

    /// `name=value` pairs of the query string, percent-decoded (`+` as space).
    static func queryItems(_ path: String) -> [String: String] {
        guard let q = path.firstIndex(of: "?") else { return [:] }
        var out: [String: String] = [:]
        for pair in path[path.index(after: q)...].split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ") }
            guard let k = kv.first?.removingPercentEncoding else { continue }
            if out[k] == nil { out[k] = kv.count > 1 ? (kv[1].removingPercentEncoding ?? kv[1]) : "" }
        }
        return out
    }

    static func isTopicSubscriptionRequest(_ request: HTTPRequest) -> Bool {
        let path = request.path
        // On an ASCII path (every send's) a byte prefix and search, as the Character ones there:
        // Foundation's `contains` cost ~11k instructions on every FCM send. Other text keeps it.
        let ascii: Bool? = UTF8Bytes.of(path) { b -> Bool? in
            var high: UInt8 = 0
            for c in b { high |= c }
            guard high < 0x80 else { return nil }
            return b.starts(with: projectsPrefix) && occurs(topicSubscriptionsPart, in: b)
        }
        if let ascii { return ascii }
        return path.hasPrefix("/v1/projects/") && path.contains("/topicSubscriptions")
    }
    private static let projectsPrefix = Array("/v1/projects/".utf8)
    private static let topicSubscriptionsPart = Array("/topicSubscriptions".utf8)

    private static func occurs(_ needle: [UInt8], in b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count >= needle.count else { return false }
        return (0...(b.count - needle.count)).contains { i in b[i] == needle[0] && needle.indices.allSatisfy { b[i + $0] == needle[$0] } }
    }

    func admitTopicSubscription(_ request: HTTPRequest, now: Double) -> Admission {
        var admission = Admission(endpoint: Self.topicSubscriptionEndpoint)
        guard let route = TopicSubscriptionRoute(request) else {
            admission.refusal = Self.notFound(request)
            return admission
        }
        admission.topic = route.project
        admission.token = route.token
        admission.notification = Self.recordedTopicSubscription(route)
        let (identity, authRefusal, _) = authenticate(request, project: route.project, now: now)
        admission.auth = identity
        if let authRefusal { admission.refusal = authRefusal; return admission }
        guard let raw = route.topic, let topic = Self.topicName(raw), topic == raw else {
            admission.refusal = Self.envelopeResponse(.invalidArgument, stage: .validation, detail: "topic name missing or invalid")
            return admission
        }
        if !Self.isWellFormedToken(route.token) {
            admission.refusal = Self.envelopeResponse(.invalidArgument, stage: .validation, detail: "malformed registration token")
        }
        return admission
    }

    static func recordedTopicSubscription(_ route: TopicSubscriptionRoute) -> JSONValue {
        var members: [(String, JSONValue)] = [("method", .string("\(route.method)")), ("registration", .string(route.token))]
        if let t = route.topic { members.append(("topic", .string(t))) }
        if route.allowMissing { members.append(("allowMissing", .bool(true))) }
        return .object(members)
    }

    func deliverTopicSubscription(_ request: HTTPRequest, admission: Admission, device: DeviceLookup, services: ProviderServices) -> ProviderResponse {
        guard let route = TopicSubscriptionRoute(request), let topic = route.topic else { return Self.notFound(request) }
        if let refusal = topicRefusal(token: route.token, lookup: device, project: route.project) {
            return topicSubscriptionRefusal(refusal, token: route.token)
        }
        let declared = declaredTopics(device, devices: services.devices)
        let current = subscriptions.topics(of: route.token, declared: declared).first { $0.topic == topic }
        let name = "projects/\(route.project)/registrations/\(route.token)/topicSubscriptions/\(topic)"
        switch route.method {
        case .create:
            if current != nil { return Self.envelopeResponse(Self.alreadyExists, stage: .device, detail: "already subscribed") }
            if applyTopic(.subscribe, token: route.token, topic: topic, lookup: device, project: route.project, devices: services.devices,
                          now: services.now) == .tooManyTopics {
                return topicSubscriptionRefusal(.tooManyTopics, token: route.token)
            }
            return ProviderResponse(Self.jsonResponse(200, Self.topicSubscriptionBody(name: name, topic: topic, created: services.now)),
                                    decidedBy: Decision(.accepted, "subscribe \(topic)"))
        case .delete:
            guard current != nil else {
                if route.allowMissing { return ProviderResponse(Self.jsonResponse(200, Array("{}".utf8)), decidedBy: Decision(.accepted, "allow_missing")) }
                return Self.envelopeResponse(Self.subscriptionNotFound, stage: .device, detail: "not subscribed")
            }
            subscriptions.unsubscribe(route.token, from: topic, declared: declared)
            return ProviderResponse(Self.jsonResponse(200, Array("{}".utf8)), decidedBy: Decision(.accepted, "unsubscribe \(topic)"))
        case .get:
            guard let current else { return Self.envelopeResponse(Self.subscriptionNotFound, stage: .device, detail: "not subscribed") }
            let created = Date(timeIntervalSince1970: current.addedAt ?? 0)
            return ProviderResponse(Self.jsonResponse(200, Self.topicSubscriptionBody(name: name, topic: topic, created: created)),
                                    decidedBy: Decision(.accepted, "get \(topic)"))
        }
    }

    /// A token the topic logic refused, in Google's envelope: NOT_FOUND 404 for a dead or
    /// unknown token, INVALID_ARGUMENT 400 otherwise (the statuses are ours, UNCONFIRMED).
    func topicSubscriptionRefusal(_ result: TopicResult, token: String) -> ProviderResponse {
        switch result {
        case .notFound: return Self.envelopeResponse(Self.subscriptionNotFound, stage: .device, detail: "\(token): NOT_FOUND")
        case .tooManyTopics:
            let e = GoogleErrorEnvelope(code: 400, message: "Too many topics for this registration.", status: .failedPrecondition, details: nil)
            return Self.envelopeResponse(e, stage: .device, detail: "\(token): TOO_MANY_TOPICS")
        case .invalidArgument, .ok: return Self.envelopeResponse(.invalidArgument, stage: .device, detail: "\(token): INVALID_ARGUMENT")
        }
    }

    static let subscriptionNotFound = GoogleErrorEnvelope(code: 404, message: "Requested entity was not found.", status: .notFound, details: nil)
    static let alreadyExists = GoogleErrorEnvelope(code: 409, message: "Requested entity already exists", status: "ALREADY_EXISTS", details: nil)

    /// `{"name":…,"topic_name":…,"create_time":…}` (the resource's JSON representation as
    /// documented, snake_case names and all, docs/fcm.md "Topic subscriptions" [A]).
    static func topicSubscriptionBody(name: String, topic: String, created: Date) -> [UInt8] {
        JSONValue.object([("name", .string(name)), ("topic_name", .string(topic)), ("create_time", .string(DateFormats.iso8601(created)))])
            .compactJSONBytes
    }
}
