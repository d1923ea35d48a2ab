import Foundation
import PushDoubleCore
import PushDoubleCrypto

extension ProviderID {
    /// Web Push (RFC 8030 push services: Mozilla autopush, FCM, Apple, WNS).
    public static let webpush: ProviderID = "webpush"
}

/// The Web Push provider module (``ProviderModule``): one listener `webpush` (8726), TLS with
/// ALPN `h2` and `http/1.1`, serving the endpoint paths of every imitated service
/// (``WebPushFake``); subscriptions are devices of provider `webpush` (``WebPushDeviceSchema``),
/// made like a browser makes them through the admin API (``WebPushAdminRoutes``).
///
/// Options (`fakeOptions.webpush`, `serve --option webpush.KEY=VALUE`): `defaultService`
/// (`mozilla` | `fcm` | `apple` | `wns`), `requireVAPID`, `maxBodyBytes`, `retryAfterSeconds`,
/// `fcmLocation` (`endpointMessage` | `omitted`), `appleGoneStatus`, `wnsSuccessStatus`.
/// Senders get (docs/conformance.md "Driver protocol v1") `WEBPUSH_URL`, `VAPID_PRIVATE_KEY_FILE` (the shipped TEST-ONLY key,
/// PKCS#8 PEM), `VAPID_PUBLIC_KEY`, `VAPID_SUBJECT`, and the driver params
/// `providers.webpush {vapidPrivateKeyFile, vapidPublicKey, subject, url, caFile}`.
public struct WebPushModule: ProviderModule {
    public init() {}

    public var provider: ProviderID { .webpush }
    public var title: String { "Web Push (RFC 8030/8291/8292: autopush, FCM, Apple, WNS styles)" }

    /// The listener's name and documented default port (README port table).
    public static let listenerName = "webpush"
    public static let defaultPort = 8726
    /// The autopush WebSocket listener (real browsers, ``AutopushService``) and its port.
    public static let autopushListenerName = "webpush-autopush"
    public static let autopushDefaultPort = 8727
    /// The `sub` claim senders are told to use (`VAPID_SUBJECT`): a `mailto:` contact
    /// (docs/webpush.md §5 SHOULD), not at `localhost` (Apple refuses it, §6.3).
    public static let subject = "mailto:pushdouble@example.com"

    public var listenerDefaults: [ListenerDefault] {
        [ListenerDefault(name: Self.listenerName, defaultPort: Self.defaultPort,
                         summary: "Web Push service (every service's endpoint paths) and the browser: TLS, ALPN h2 and http/1.1",
                         realHosts: Self.ownedServices.map { $0.realHost + ":443" }),
         ListenerDefault(name: Self.autopushListenerName, defaultPort: Self.autopushDefaultPort,
                         summary: "Web Push for real browsers: Mozilla's autopush WebSocket protocol, plain ws")]
    }

    /// The services whose real host only the Web Push fake stands in for, so its listener
    /// declares them for the CONNECT proxy: autopush, Apple and WNS (`*.notify.windows.com`).
    public static let ownedServices: [WebPushService] = WebPushService.allCases.filter { !sharedHostServices.contains($0) }
    /// The services whose endpoints live on another provider's real host: FCM Web Push,
    /// `fcm.googleapis.com/fcm/send/<token>` (docs/webpush.md §6.1), the host of the FCM fake. The
    /// Web Push fake reaches them through ``WebPushInstance/hostRoutes`` on that host's listener.
    public static let sharedHostServices: [WebPushService] = [.fcm]

    /// One endpoint: the push to a subscription's endpoint URL (every service's path shape).
    public var endpoints: [ProviderEndpoint] {
        [ProviderEndpoint(WebPushFake.endpoint, kind: .send, summary: "POST to a subscription's endpoint URL",
                          reasons: WebPushFake.faultReasons)]
    }

    public var optionKeys: [String] {
        ["defaultService", "requireVAPID", "maxBodyBytes", "retryAfterSeconds", "fcmLocation", "appleGoneStatus", "wnsSuccessStatus"]
    }

    public func validateDevice(_ device: inout Device) throws { try WebPushDeviceSchema.validate(&device) }

    public func instantiate(options: JSONValue?, context: ProviderBuildContext) throws -> any ProviderInstance {
        let fake = WebPushFake(configuration: try configuration(options: options, context: context))
        if let devices = context.double?.devices {
            let endpoints = context.endpoints
            fake.autopush.attach(devices: devices, clock: context.clock,
                                 origin: { endpoints().first { $0.name == WebPushModule.listenerName }?.url })
        }
        return WebPushInstance(fake: fake, double: context.double, endpoints: context.endpoints)
    }

    /// The fake's settings for `options`.
    public func configuration(options: JSONValue?, context: ProviderBuildContext) throws -> WebPushFakeConfiguration {
        var c = WebPushFakeConfiguration()
        for (key, value) in try optionMembers(options, context: context) {
            func fail(_ message: String) -> ScenarioError {
                ScenarioError(file: context.file, path: context.optionsPath + "." + key, message: message)
            }
            func integer(_ range: ClosedRange<Int64>) throws -> Int {
                guard let n = value.intValue, range.contains(n) else { throw fail("expected an integer in \(range.lowerBound)...\(range.upperBound)") }
                return Int(n)
            }
            switch key {
            case "defaultService":
                guard let s = value.stringValue.flatMap(WebPushService.init(rawValue:)) else { throw fail("expected one of mozilla, fcm, apple, wns") }
                c.defaultService = s
            case "requireVAPID":
                guard let b = value.boolValue else { throw fail("expected true or false") }
                c.requireVAPID = b
            case "maxBodyBytes": c.maxBodyBytes = try integer(0...1_048_576)
            case "retryAfterSeconds": c.retryAfterSeconds = try integer(0...86_400)
            case "fcmLocation":
                switch value.stringValue {
                case "endpointMessage": c.style.fcmLocation = .endpointMessage
                case "omitted": c.style.fcmLocation = .omitted
                default: throw fail("expected \"endpointMessage\" or \"omitted\"")
                }
            case "appleGoneStatus": c.style.appleGoneStatus = try integer(400...599)
            case "wnsSuccessStatus": c.style.wnsSuccessStatus = try integer(200...299)
            default: break
            }
        }
        return c
    }
}

/// The Web Push fake built for one double: its listener, the subscription admin routes and
/// what a sender is told.
public struct WebPushInstance: ProviderInstance {
    public let fake: WebPushFake
    let double: DoubleState?
    let endpoints: @Sendable () -> [DoubleEndpoint]

    public init(fake: WebPushFake, double: DoubleState?, endpoints: @escaping @Sendable () -> [DoubleEndpoint] = { [] }) {
        self.fake = fake; self.double = double; self.endpoints = endpoints
    }

    /// `webpush`: TLS, ALPN `h2` then `http/1.1` (pywebpush speaks HTTP/1.1 through `requests`,
    /// node web-push through `https.request`, docs/webpush.md §7), default HTTP/2 settings.
    public var listeners: [FakeListenerSpec] {
        [FakeListenerSpec(name: WebPushModule.listenerName, defaultPort: WebPushModule.defaultPort, fake: fake,
                          alpn: ["h2", "http/1.1"], allowHTTP1: true, allowHTTP2: true, useTLS: true),
         autopushListener]
    }

    /// `webpush-autopush`: plain ws (a Firefox profile allows it with
    /// `dom.push.testing.allowInsecureServerURL`), HTTP/1.1 upgrade then WebSocket frames.
    var autopushListener: FakeListenerSpec {
        var spec = FakeListenerSpec(name: WebPushModule.autopushListenerName, defaultPort: WebPushModule.autopushDefaultPort, fake: fake,
                                    alpn: ["http/1.1"], allowHTTP1: true, allowHTTP2: false, useTLS: false)
        spec.webSocket = AutopushService(hub: fake.autopush)
        return spec
    }

    /// `POST /fcm/send/:token` and `POST /wp/:token` on whichever listener stands in for `fcm.googleapis.com:443` (the
    /// FCM fake's), for requests addressed to that host: FCM Web Push endpoints reached by
    /// their real name through the CONNECT proxy come to this fake; FCM's own paths stay FCM's.
    public var hostRoutes: [HostRoute] {
        WebPushModule.sharedHostServices.flatMap { service in
            (service.shapeDependsOnRestriction ? [false, true] : [false]).map { restricted in
                HostRoute(authority: service.realHost + ":443",
                          route: FakeRoute("POST", service.endpointPath(token: ":token", restricted: restricted), fake: fake))
            }
        }
    }

    public var adminRoutes: [AdminRoute] {
        guard let double else { return [] }
        let fake = self.fake, endpoints = self.endpoints
        return WebPushAdminRoutes(double: double, defaultService: fake.configuration.defaultService, origin: {
            endpoints().first { $0.name == WebPushModule.listenerName }?.url
        }).routes + AutopushAdminRoutes(hub: fake.autopush).routes
    }

    /// The shipped VAPID key (`vapid-test-private.pem`), its public key and subject, the URL.
    public func senderMaterial(_ context: SenderMaterialContext) throws -> SenderMaterial? {
        guard let url = context.url(WebPushModule.listenerName) else { return nil }
        let keyFile = try context.writeFile(WebPushTestCredentials.privateKeyFileName, contents: WebPushTestCredentials.privateKeyPEM)
        let environment: [(String, String)] = [("WEBPUSH_URL", url), ("VAPID_PRIVATE_KEY_FILE", keyFile),
                                               ("VAPID_PUBLIC_KEY", WebPushTestCredentials.publicKey),
                                               ("VAPID_SUBJECT", WebPushModule.subject)]
        var parameters: [(String, JSONValue)] = [("vapidPrivateKeyFile", .string(keyFile)),
                                                 ("vapidPublicKey", .string(WebPushTestCredentials.publicKey)),
                                                 ("subject", .string(WebPushModule.subject)), ("url", .string(url))]
        if let ca = context.caFile { parameters.append(("caFile", .string(ca))) }
        return SenderMaterial(environment: environment, driverParameters: .object(parameters))
    }
}
