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
    public var fake: any ProviderFake
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

    public init(name: String, defaultPort: Int, fake: any ProviderFake, alpn: [String] = ["h2", "http/1.1"],
                allowHTTP1: Bool = true, allowHTTP2: Bool = true, http2: HTTP2Configuration = HTTP2Configuration(),
                limits: ServerLimits = ServerLimits(), environment: String? = nil, useTLS: Bool = true) {
        self.name = name; self.defaultPort = defaultPort; self.fake = fake; self.alpn = alpn
        self.allowHTTP1 = allowHTTP1; self.allowHTTP2 = allowHTTP2; self.http2 = http2; self.limits = limits
        self.environment = environment; self.useTLS = useTLS
    }
}

/// The fixed, documented default ports of `pushdouble serve` (all on 127.0.0.1).
public enum DefaultPorts {
    public static let admin = 8720
    public static let apnsProduction = 8721
    public static let apnsSandbox = 8722
    public static let fcm = 8723
    public static let oauth = 8724
    public static let expo = 8725
    public static let webpush = 8726

    /// Listener name → default port.
    public static let byListener: [String: Int] = [
        "admin": admin, "apns-production": apnsProduction, "apns-sandbox": apnsSandbox, "fcm": fcm,
        "oauth": oauth, "expo": expo, "webpush": webpush,
    ]
}
