import Foundation
import PushDoubleCore
import PushDoubleTransport

/// The Instance ID server API on `iid.googleapis.com` as senders call it for topic management
/// (docs/fcm.md "Topic subscriptions", "Instance ID API"): `POST /iid/v1:batchAdd` and
/// `:batchRemove`, `POST /iid/v1/<token>/rel/topics/<topic>`, `GET /iid/info/<token>`.
///
/// Phases: route ▶ auth (`Authorization: Bearer <access token>` issued by this fake, with an
/// FCM scope, and `access_token_auth: true`; a server key or a missing header is refused with
/// Google's 401 page) ▶ body (`to`, `registration_tokens`, ≤ 1000 tokens, topic name) ▶ per
/// token, in ``deliver(_:admission:devices:context:services:)``, the shared topic logic.
extension FCMFake {
    /// Endpoint ids recorded in the history (fault rules match on them).
    public static let iidBatchAddEndpoint = "iid.batchAdd"
    public static let iidBatchRemoveEndpoint = "iid.batchRemove"
    public static let iidRelationEndpoint = "iid.relation"
    public static let iidInfoEndpoint = "iid.info"
    /// Any other path on the Instance ID host (answered 404).
    public static let iidOtherEndpoint = "iid.other"
    /// The Instance ID API's host (docs/fcm.md "Instance ID API").
    public static let iidHost = "iid.googleapis.com"
    /// Tokens per batch request (docs/fcm.md "Topic subscriptions": 1000 app instances).
    public static let iidMaxBatchTokens = 1000

    /// What an Instance ID request asks for, read from its method and path.
    enum IIDRoute: Equatable {
        case batch(TopicOperation)
        case relation(token: String, topic: String)
        case info(token: String, details: Bool)

        init?(_ request: HTTPRequest) {
            let path = FCMFake.pathOnly(request)
            if request.method == "POST", path == "/iid/v1:batchAdd" { self = .batch(.subscribe); return }
            if request.method == "POST", path == "/iid/v1:batchRemove" { self = .batch(.unsubscribe); return }
            let parts = path.split(separator: "/", omittingEmptySubsequences: false).map { String($0).removingPercentEncoding ?? String($0) }
            // "", "iid", "v1", <token>, "rel", "topics", <topic>
            if request.method == "POST", parts.count == 7, parts[1] == "iid", parts[2] == "v1", parts[4] == "rel", parts[5] == "topics",
               !parts[3].isEmpty {
                self = .relation(token: parts[3], topic: parts[6]); return
            }
            if request.method == "GET", parts.count == 4, parts[1] == "iid", parts[2] == "info", !parts[3].isEmpty {
                self = .info(token: parts[3], details: request.path.contains("details=true")); return
            }
            return nil
        }

        var endpoint: String {
            switch self {
            case .batch(.subscribe): return FCMFake.iidBatchAddEndpoint
            case .batch(.unsubscribe): return FCMFake.iidBatchRemoveEndpoint
            case .relation: return FCMFake.iidRelationEndpoint
            case .info: return FCMFake.iidInfoEndpoint
            }
        }
    }

    /// The Instance ID API's error body, `{"error":"<code>"}` (docs/fcm.md "Instance ID API":
    /// firebase-admin reads this shape [L]).
    static func iidError(_ status: Int, _ code: String, stage: Decision.Stage, detail: String) -> ProviderResponse {
        let body = JSONValue.object([("error", .string(code))]).compactJSONBytes
        return ProviderResponse(jsonResponse(status, body), reason: code, decidedBy: Decision(stage, detail))
    }

    /// Google's front end's 401 page for a request without valid OAuth credentials (docs/fcm.md
    /// "Instance ID API", captured in firebase/firebase-admin-go#533).
    static let iidUnauthorizedPage = "<HTML>\n<HEAD>\n<TITLE>Unauthorized</TITLE>\n</HEAD>\n<BODY BGCOLOR=\"#FFFFFF\" TEXT=\"#000000\">\n<H1>Unauthorized</H1>\n<H2>Error 401</H2>\n</BODY>\n</HTML>\n"

    static func iidUnauthorized(_ why: String) -> ProviderResponse {
        var h = HTTPHeaders()
        h.add(name: "content-type", value: "text/html; charset=UTF-8")
        return ProviderResponse(HTTPResponse(status: 401, headers: h, body: Array(iidUnauthorizedPage.utf8)), reason: "Unauthorized",
                                decidedBy: Decision(.auth, why))
    }

    func admitInstanceID(_ request: HTTPRequest, now: Double) -> Admission {
        guard let route = IIDRoute(request) else {
            var a = Admission(endpoint: Self.iidOtherEndpoint)
            a.refusal = Self.iidError(404, "NOT_FOUND", stage: .validation, detail: "no such endpoint: \(request.method) \(Self.pathOnly(request))")
            return a
        }
        var admission = Admission(endpoint: route.endpoint)
        admission.notificationMaker = Self.recordedIIDRequest
        let (identity, refusal) = authenticateInstanceID(request, now: now)
        admission.auth = identity
        if let refusal { admission.refusal = refusal; return admission }
        switch route {
        case .batch:
            switch Self.batchRequest(request.body) {
            case .success(let (topic, tokens)):
                admission.topic = topic
                admission.recipients = tokens
                admission.token = tokens.first
            case .failure(let refusal): admission.refusal = refusal.response
            }
        case .relation(let token, let topic):
            admission.token = token
            guard let name = Self.topicName(topic) else {
                admission.refusal = Self.iidError(400, "INVALID_ARGUMENT", stage: .validation, detail: "invalid topic name")
                return admission
            }
            admission.topic = name
        case .info(let token, _):
            admission.token = token
        }
        return admission
    }

    /// `{"to":"/topics/<name>","registration_tokens":[…]}` → the topic name and the tokens.
    /// The answers to a malformed body are ours (docs/fcm.md "Instance ID API": UNCONFIRMED).
    static func batchRequest(_ body: [UInt8]) -> Result<(String, [String]), FCMRefusal> {
        func refuse(_ why: String) -> Result<(String, [String]), FCMRefusal> {
            .failure(FCMRefusal(iidError(400, "INVALID_ARGUMENT", stage: .validation, detail: why)))
        }
        guard let json = try? JSONValue.parse(body), case .object = json else { return refuse("body is not a JSON object") }
        guard let to = json["to"]?.stringValue else { return refuse("no \"to\"") }
        guard let topic = topicName(to) else { return refuse("invalid topic name \(to)") }
        guard let list = json["registration_tokens"]?.arrayValue, !list.isEmpty else { return refuse("no \"registration_tokens\"") }
        let tokens = list.compactMap(\.stringValue)
        guard tokens.count == list.count else { return refuse("a registration token is not a string") }
        guard tokens.count <= iidMaxBatchTokens else { return refuse("\(tokens.count) tokens (at most \(iidMaxBatchTokens))") }
        return .success((topic, tokens))
    }

    /// Bearer access token issued by this fake with an FCM scope, plus `access_token_auth: true`
    /// (docs/fcm.md "Instance ID API" [A]); anything else gets the 401 page.
    func authenticateInstanceID(_ request: HTTPRequest, now: Double) -> (AuthIdentity, ProviderResponse?) {
        guard let header = request.headers.first(name: "authorization") else {
            return (AuthIdentity(scheme: "none", valid: false), Self.iidUnauthorized("no authorization header"))
        }
        guard let token = Self.bearerCredential(header) else {
            let scheme = header.lowercased().hasPrefix("key=") ? "server-key" : "none"
            return (AuthIdentity(scheme: scheme, valid: false),
                    Self.iidUnauthorized(scheme == "server-key" ? "server keys are no longer accepted" : "authorization is not `Bearer <token>`"))
        }
        guard case .valid(let grant) = accounts.store.lookup(token, now: now) else {
            return (AuthIdentity(scheme: "oauth-bearer", valid: false), Self.iidUnauthorized("access token not valid here"))
        }
        var identity = Self.identity(grant, project: grant.projects.sorted().first ?? "", valid: true)
        identity.extra["token"] = Self.fingerprint(token)
        guard grant.scopes.contains(where: configuration.tokenEndpoint.fcmScopes.contains) else {
            identity.valid = false
            return (identity, Self.iidUnauthorized("access token has no FCM scope"))
        }
        guard request.headers.first(name: "access_token_auth")?.lowercased() == "true" else {
            identity.valid = false
            identity.extra["access_token_auth"] = "missing"
            return (identity, Self.iidUnauthorized("no `access_token_auth: true` header"))
        }
        return (identity, nil)
    }

    /// The request as the history shows it: the batch body, or the path's token and topic.
    @Sendable static func recordedIIDRequest(_ request: HTTPRequest) -> JSONValue? {
        if let json = try? JSONValue.parse(request.body), case .object = json { return json }
        switch IIDRoute(request) {
        case .relation(let token, let topic)?: return ["token": .string(token), "topic": .string(topic)]
        case .info(let token, let details)?: return ["token": .string(token), "details": .bool(details)]
        default: return nil
        }
    }

    // MARK: deliver

    /// The batch answer: HTTP 200, `{"results":[{} | {"error":"<code>"}, …]}` in token order.
    func deliverInstanceIDBatch(_ request: HTTPRequest, admission: Admission, devices lookups: [DeviceLookup],
                                services: ProviderServices) -> ProviderResponse {
        let operation: TopicOperation = admission.endpoint == Self.iidBatchAddEndpoint ? .subscribe : .unsubscribe
        let topic = admission.topic ?? ""
        let tokens = admission.recipients ?? []
        var results: [JSONValue] = []
        var outcomes: [RecipientOutcome] = []
        for (i, token) in tokens.enumerated() {
            let lookup = i < lookups.count ? lookups[i] : DeviceLookup(deviceID: nil, state: .active, source: .openWorld)
            let r = applyTopic(operation, token: token, topic: topic, lookup: lookup, project: nil, devices: services.devices, now: services.now)
            results.append(r == .ok ? .object([]) : .object([("error", .string(r.rawValue))]))
            // Not a delivery: the topic API never counts toward a device's deliveries.
            outcomes.append(RecipientOutcome(token: token, accepted: false, reason: r == .ok ? nil : r.rawValue,
                                             detail: .string(r == .ok ? operation.rawValue + "d" : r.rawValue)))
        }
        let body = JSONValue.object([("results", .array(results))]).compactJSONBytes
        var answer = ProviderResponse(Self.jsonResponse(200, body), decidedBy: Decision(.accepted, "\(operation.rawValue) /topics/\(topic)"))
        answer.recipients = outcomes
        return answer
    }

    /// One relation (`{}` on success) or the token's info.
    func deliverInstanceID(_ request: HTTPRequest, admission: Admission, device: DeviceLookup, services: ProviderServices) -> ProviderResponse {
        let token = admission.token ?? ""
        switch IIDRoute(request) {
        case .relation?:
            let r = applyTopic(.subscribe, token: token, topic: admission.topic ?? "", lookup: device, project: nil,
                               devices: services.devices, now: services.now)
            if r != .ok { return Self.iidError(r == .notFound ? 404 : 400, r.rawValue, stage: .device, detail: "\(token): \(r.rawValue)") }
            return ProviderResponse(Self.jsonResponse(200, Array("{}".utf8)), decidedBy: Decision(.accepted, "subscribe /topics/\(admission.topic ?? "")"))
        case .info(_, let details)?:
            if let refusal = topicRefusal(token: token, lookup: device, project: nil) {
                return Self.iidError(refusal == .notFound ? 404 : 400, refusal.rawValue, stage: .device, detail: "\(token): \(refusal.rawValue)")
            }
            return ProviderResponse(Self.jsonResponse(200, instanceInfo(token: token, device: device, details: details, devices: services.devices)),
                                    decidedBy: Decision(.accepted, device.source.rawValue))
        default:
            return Self.iidError(404, "NOT_FOUND", stage: .validation, detail: "no such endpoint")
        }
    }

    /// `{"application","authorizedEntity","platform","rel":{"topics":{name:{"addDate":"YYYY-MM-DD"}}}}`
    /// (docs/fcm.md "Instance ID API" [A]); `application` and `platform` are ours.
    func instanceInfo(token: String, device: DeviceLookup, details: Bool, devices: DeviceRegistry) -> [UInt8] {
        var members: [(String, JSONValue)] = [("application", .string(Self.iidApplication)),
                                              ("authorizedEntity", .string(configuration.projectNumbers.sorted().first ?? "")),
                                              ("platform", .string("ANDROID"))]
        if details {
            let topics = subscriptions.topics(of: token, declared: declaredTopics(device, devices: devices))
            if !topics.isEmpty {
                let entries: [(String, JSONValue)] = topics.map { t in
                    let date = Date(timeIntervalSince1970: t.addedAt ?? 0)
                    return (t.topic, .object([("addDate", .string(t.addedAt == nil ? "1970-01-01" : Self.iidDate(date)))]))
                }
                members.append(("rel", .object([("topics", .object(entries))])))
            }
        }
        return JSONValue.object(members).compactJSONBytes
    }

    /// The package name `iid/info` reports (ours: the double has no app).
    public static let iidApplication = "com.pushdouble.app"

    static func iidDate(_ date: Date) -> String {
        let iso = DateFormats.iso8601(date)
        return String(iso.prefix(10))
    }
}

/// A refusal made in admit, carried through a `Result`.
struct FCMRefusal: Error {
    let response: ProviderResponse
    init(_ response: ProviderResponse) { self.response = response }
}
