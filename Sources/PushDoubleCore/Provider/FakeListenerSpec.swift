import PushDoubleTransport

/// How one listener of a provider fake is served: what a provider module hands the
/// in-process server (`PushDoubleServer`) so it can open the port.
///
/// A provider may need several listeners (APNs: production and sandbox; FCM: the API
/// and the OAuth token endpoint), each with its own name, default port and environment.
public struct FakeListenerSpec: Sendable {
    /// Listener name, recorded in every exchange's connection info ("apns-production").
    public var name: String
    /// Port used unless ephemeral ports are asked for (see ``DefaultPorts``).
    public var defaultPort: Int
    /// The fake answering this listener: every request when ``routes`` is empty, else the
    /// requests no route takes (it answers unknown paths its provider's way) and the requests
    /// the transport refuses before they are complete.
    public var fake: any ProviderFake
    /// Paths served by other fakes of the same provider on this listener (Expo: send and
    /// getReceipts), dispatched by the transport's ``Router``; each route's fake runs its own
    /// request path (admit ▶ faults ▶ deliver ▶ history).
    public var routes: [FakeRoute] = []
    /// ALPN protocols offered, in preference order (APNs: `["h2"]`).
    public var alpn: [String]
    public var allowHTTP1: Bool
    public var allowHTTP2: Bool
    public var http2: HTTP2Configuration
    public var limits: ServerLimits
    /// Environment tag of this listener ("production" / "sandbox"), given to the pipeline
    /// for requests whose admission names none.
    public var environment: String?
    /// Serve over TLS with the double's test certificate (default); false = cleartext
    /// (tests, or providers reached over plain HTTP).
    public var useTLS: Bool
    /// Ask TLS clients for a certificate (not required) and verify one they present against
    /// the double's test CA (APNs certificate-based provider authentication).
    public var requestClientCertificate = false
    /// Serve WebSocket sessions for this service instead of HTTP requests (the Web Push
    /// fake's autopush listener); `fake` then only names the provider. nil = HTTP.
    public var webSocket: (any WebSocketService)? = nil

    public init(name: String, defaultPort: Int, fake: any ProviderFake, alpn: [String] = ["h2", "http/1.1"],
                allowHTTP1: Bool = true, allowHTTP2: Bool = true, http2: HTTP2Configuration = HTTP2Configuration(),
                limits: ServerLimits = ServerLimits(), environment: String? = nil, useTLS: Bool = true) {
        self.name = name; self.defaultPort = defaultPort; self.fake = fake; self.alpn = alpn
        self.allowHTTP1 = allowHTTP1; self.allowHTTP2 = allowHTTP2; self.http2 = http2; self.limits = limits
        self.environment = environment; self.useTLS = useTLS
    }
}

/// One path of a listener served by its own fake (see ``FakeListenerSpec/routes``).
public struct FakeRoute: Sendable {
    public var method: String
    /// A ``Router`` pattern ("/--/api/v2/push/getReceipts", "/token").
    public var path: String
    public var fake: any ProviderFake
    /// Only requests whose `:authority` / `Host` names this host (port dropped, ASCII case
    /// ignored); nil = any host. Set for ``HostRoute``s from their authority.
    public var host: String?
    public init(_ method: String, _ path: String, fake: any ProviderFake, host: String? = nil) {
        self.method = method; self.path = path; self.fake = fake; self.host = host
    }
}

/// A route a provider serves on *another* provider's listener, found by a real host name that
/// listener stands in for (``ListenerDefault/realHosts``): how two fakes share one real host
/// that a CONNECT proxy cannot split (Web Push's `fcm.googleapis.com/fcm/send/<token>` on the FCM
/// listener, whose real host is `fcm.googleapis.com:443`). The in-process server adds ``route``
/// to every opened listener that declares ``authority``; the route's fake runs its own request
/// path there, and the listener's fake keeps every other path. No listener declaring it: unused.
public struct HostRoute: Sendable {
    /// A real `host:port` (`"fcm.googleapis.com:443"`), compared with the listeners' `realHosts`
    /// ignoring ASCII case.
    public var authority: String
    public var route: FakeRoute
    public init(authority: String, route: FakeRoute) { self.authority = authority; self.route = route }
}

/// The admin API's fixed, documented default port (127.0.0.1:8720). Each provider module
/// declares its own listeners' ports (``ProviderModule/listenerDefaults``).
public enum DefaultPorts {
    public static let admin = 8720
    /// The CONNECT proxy to the fakes by real host name (`proxy`, plain HTTP; docs/transport.md).
    public static let proxy = 8729
}
