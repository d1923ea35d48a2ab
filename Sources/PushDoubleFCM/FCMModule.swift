import Foundation
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport

/// The FCM provider module (``ProviderModule``): FCM HTTP v1 and its Google OAuth2 token
/// endpoint, both answered by one ``FCMFake``.
///
/// Listeners `fcm` (8723, `fcm.googleapis.com`) and `google-oauth` (8724,
/// `oauth2.googleapis.com`), TLS with ALPN `h2` and `http/1.1` (docs/fcm.md §1.1: firebase-admin's
/// `send` uses HTTP/1.1, `send_each_async` h2). Options (`fakeOptions.fcm`, or
/// `serve --option fcm.KEY=VALUE`): see ``optionKeys`` and docs/fcm.md. Senders get a copy of
/// the shipped service account whose `token_uri` is the bound token URL (docs/conformance.md "Driver protocol v1":
/// `FCM_URL`, `FCM_PROJECT_ID`, `FCM_SERVICE_ACCOUNT_FILE`, `GOOGLE_APPLICATION_CREDENTIALS`,
/// `GOOGLE_OAUTH_TOKEN_URL`).
public struct FCMModule: ProviderModule {
    public init() {}

    public var provider: ProviderID { .fcm }
    public var title: String { "Firebase Cloud Messaging HTTP v1 (with Google's OAuth2 token endpoint)" }

    /// The documented default ports (README port table).
    public static let sendPort = 8723
    public static let tokenPort = 8724

    public var listenerDefaults: [ListenerDefault] {
        [ListenerDefault(name: FCMFake.sendListener, defaultPort: Self.sendPort,
                         summary: "FCM HTTP v1 (fcm.googleapis.com) and the Instance ID API (iid.googleapis.com): TLS, ALPN h2 and http/1.1",
                         realHosts: [FCMFake.sendHost + ":443", FCMFake.iidHost + ":443"]),
         ListenerDefault(name: FCMFake.tokenListener, defaultPort: Self.tokenPort,
                         summary: "Google OAuth2 token endpoint (oauth2.googleapis.com/token): TLS, ALPN h2 and http/1.1",
                         realHosts: [FCMFake.tokenHost + ":443"])]
    }

    /// The send (`POST /v1/projects/{p}/messages:send`), Google's OAuth token endpoint, the topic
    /// subscription endpoints (Instance ID API and `topicSubscriptions`) and the shut-down legacy
    /// API; a rule hits any but the send only when it names it. A `respond` rule on a subscription
    /// endpoint is answered in the v1 error envelope, as on the send (what the Instance ID API
    /// sends for a request-level 429/5xx is UNCONFIRMED, docs/fcm.md "Topic subscriptions").
    public var endpoints: [ProviderEndpoint] {
        [ProviderEndpoint(FCMFake.sendEndpoint, kind: .send, summary: "POST /v1/projects/{project}/messages:send",
                          reasons: FCMFake.sendReasons),
         ProviderEndpoint(FCMFake.tokenEndpoint, kind: .token, summary: "POST /token (Google OAuth2 access-token mint)",
                          reasons: FCMFake.tokenReasons),
         ProviderEndpoint(FCMFake.topicSubscriptionEndpoint, kind: .subscriptions,
                          summary: "projects.registrations.topicSubscriptions (create, delete) on fcm.googleapis.com", reasons: FCMFake.sendReasons),
         ProviderEndpoint(FCMFake.iidBatchAddEndpoint, kind: .subscriptions, summary: "POST /iid/v1:batchAdd on iid.googleapis.com",
                          reasons: FCMFake.sendReasons),
         ProviderEndpoint(FCMFake.iidBatchRemoveEndpoint, kind: .subscriptions, summary: "POST /iid/v1:batchRemove on iid.googleapis.com",
                          reasons: FCMFake.sendReasons),
         ProviderEndpoint(FCMFake.iidRelationEndpoint, kind: .subscriptions, summary: "POST /iid/v1/{token}/rel/topics/{topic} on iid.googleapis.com",
                          reasons: FCMFake.sendReasons),
         ProviderEndpoint(FCMFake.iidInfoEndpoint, kind: .subscriptions, summary: "GET /iid/info/{token} on iid.googleapis.com",
                          reasons: FCMFake.sendReasons),
         ProviderEndpoint(FCMFake.iidOtherEndpoint, kind: .other, summary: "any other path on iid.googleapis.com (answered 404)", reasons: []),
         ProviderEndpoint(FCMFake.legacyEndpoint, kind: .other, summary: "POST /fcm/send, the legacy API Google shut down in 2024",
                          reasons: FCMFake.sendReasons)]
    }

    public var optionKeys: [String] {
        ["accessTokenLifetimeSeconds", "clockSkewSeconds", "requireFCMScope", "invalidTokenBody", "quotaRetryAfterSeconds",
         "projectNumbers", "serviceAccounts"]
    }

    /// FCM devices may declare the topics they are subscribed to (`"topics": ["news"]`, valid
    /// topic names: docs/fcm.md "Topic subscriptions"); `topic`, when given, is the project the
    /// token belongs to (a send for another project is answered SENDER_ID_MISMATCH).
    public func validateDevice(_ device: inout Device) throws {
        try DeviceSchemaError.refuseAttributes(of: device, allowed: [FCMFake.topicsAttribute])
        if let value = device.attributes[FCMFake.topicsAttribute] {
            guard let list = value.arrayValue, list.allSatisfy({ $0.stringValue.flatMap(FCMFake.topicName) == $0.stringValue }) else {
                throw DeviceSchemaError(deviceID: device.id, field: FCMFake.topicsAttribute,
                                        message: "must be an array of topic names ([a-zA-Z0-9-_.~%]+, without /topics/)")
            }
        }
        if device.environment != nil {
            throw DeviceSchemaError(deviceID: device.id, field: "environment", message: "FCM devices have no environment")
        }
    }

    public func instantiate(options: JSONValue?, context: ProviderBuildContext) throws -> any ProviderInstance {
        let fake = try FCMFake(configuration: try configuration(options: options, context: context))
        // A reset forgets the topic subscriptions made through the topic-management APIs.
        context.double?.onReset(of: provider) { fake.subscriptions.reset() }
        return FCMInstance(fake: fake)
    }

    /// The fake's settings for `options` (defaults: the shipped account, Google's figures).
    public func configuration(options: JSONValue?, context: ProviderBuildContext) throws -> FCMConfiguration {
        var c = FCMConfiguration()
        for (key, value) in try optionMembers(options, context: context) {
            let path = context.optionsPath + "." + key
            func fail(_ message: String) -> ScenarioError { ScenarioError(file: context.file, path: path, message: message) }
            func count(_ range: ClosedRange<Int64>) throws -> Int {
                guard let n = value.intValue, range.contains(n) else { throw fail("expected an integer in \(range.lowerBound)...\(range.upperBound)") }
                return Int(n)
            }
            switch key {
            case "accessTokenLifetimeSeconds": c.accessTokenLifetimeSeconds = try count(1...86_400)
            case "clockSkewSeconds": c.tokenEndpoint.clockSkew = Double(try count(0...86_400))
            case "quotaRetryAfterSeconds": c.quotaRetryAfterSeconds = try count(0...86_400)
            case "requireFCMScope":
                guard case .bool(let b) = value else { throw fail("expected true or false") }
                c.tokenEndpoint.requireFCMScope = b
            case "invalidTokenBody":
                switch value.stringValue {
                case "current": c.invalidTokenEnvelope = .invalidRegistrationToken
                case "legacy": c.invalidTokenEnvelope = .invalidRegistrationTokenLegacy
                default: throw fail("expected \"current\" or \"legacy\"")
                }
            case "projectNumbers":
                guard let list = value.arrayValue?.compactMap(\.stringValue), list.count == value.arrayValue?.count,
                      list.allSatisfy(FCMSendEndpoint.isProjectNumber) else { throw fail("expected an array of project numbers (digit strings)") }
                c.projectNumbers = Set(list)
            case "serviceAccounts":
                guard let list = value.arrayValue else { throw fail("expected an array of service-account key files (objects)") }
                for (i, item) in list.enumerated() {
                    do { c.serviceAccounts.append(try GoogleServiceAccount(json: item.compactJSONBytes)) } catch {
                        throw ScenarioError(file: context.file, path: "\(path)[\(i)]", message: "not a service-account key file: \(error)")
                    }
                }
                for sa in c.serviceAccounts { if let uri = sa.tokenURI { c.tokenEndpoint.audiences.insert(uri) } }
            default: break
            }
        }
        return c
    }
}

/// The FCM fake built for one double: its two listeners, admin routes and sender material.
public struct FCMInstance: ProviderInstance {
    public let fake: FCMFake
    public init(fake: FCMFake) { self.fake = fake }

    public var listeners: [FakeListenerSpec] {
        [(FCMFake.sendListener, FCMModule.sendPort), (FCMFake.tokenListener, FCMModule.tokenPort)].map { name, port in
            FakeListenerSpec(name: name, defaultPort: port, fake: fake, alpn: ["h2", "http/1.1"],
                             allowHTTP1: true, allowHTTP2: true, useTLS: true)
        }
    }

    public var adminRoutes: [AdminRoute] { FCMAdminRoutes.routes(fake) }

    /// The file name of the service-account copy handed to senders.
    public static let serviceAccountFileName = "firebase-service-account.json"

    /// The shipped service account with `token_uri` = the bound token URL, the FCM base URL and
    /// the project id.
    public func senderMaterial(_ context: SenderMaterialContext) throws -> SenderMaterial? {
        guard let url = context.url(FCMFake.sendListener) else { return nil }
        let tokenURL = FCMTestCredentials.tokenURL(in: context.endpoints)
        let shipped = FCMConfiguration.shippedServiceAccount
        let file = try context.writeFile(Self.serviceAccountFileName,
                                         contents: FCMTestCredentials.serviceAccountJSON(for: context.endpoints))
        let project = shipped.projectID ?? ""
        var environment: [(String, String)] = [("FCM_URL", url), ("FCM_PROJECT_ID", project),
                                               ("FCM_SERVICE_ACCOUNT_FILE", file), ("GOOGLE_APPLICATION_CREDENTIALS", file)]
        if let t = tokenURL { environment.append(("GOOGLE_OAUTH_TOKEN_URL", t)) }
        var parameters: [(String, JSONValue)] = [("url", .string(url))]
        if let ca = context.caFile { parameters.append(("caFile", .string(ca))) }
        parameters += [("serviceAccountFile", .string(file)), ("projectId", .string(project))]
        if let t = tokenURL { parameters.append(("tokenUrl", .string(t))) }
        return SenderMaterial(environment: environment, driverParameters: .object(parameters))
    }

    /// `json` (a key file) with its `token_uri` replaced (kept when `tokenURI` is nil), pretty-printed
    /// as Google writes key files.
    public static func serviceAccountJSON(_ json: String, tokenURI: String?) throws -> String {
        guard case .object(var members) = try JSONValue.parse(json) else { return json }
        if let tokenURI, let i = members.firstIndex(where: { $0.0 == "token_uri" }) { members[i].1 = .string(tokenURI) }
        return String(decoding: JSONValue.object(members).serialized(.pretty), as: UTF8.self) + "\n"
    }
}
