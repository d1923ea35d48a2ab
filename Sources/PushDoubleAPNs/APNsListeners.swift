import PushDoubleCore
import PushDoubleTransport

/// How the APNs fake listens: TLS only, ALPN `h2` only, no HTTP/1.1, and Apple's HTTP/2
/// SETTINGS (docs/apns.md §1.1, 2021 capture): HEADER_TABLE_SIZE 4096, MAX_CONCURRENT_STREAMS 1
/// until the first valid provider token (then raised, see ``APNsConfiguration``),
/// INITIAL_WINDOW_SIZE 65535, MAX_FRAME_SIZE 16384, MAX_HEADER_LIST_SIZE 8000.
public enum APNsListeners {
    /// The HTTP/2 parameters of an APNs listener.
    public static func http2Configuration(_ configuration: APNsConfiguration) -> HTTP2Configuration {
        var h2 = HTTP2Configuration()
        h2.headerTableSize = 4096
        h2.initialMaxConcurrentStreams = configuration.initialMaxConcurrentStreams
        h2.initialWindowSize = 65535
        h2.maxFrameSize = 16384
        h2.advertiseMaxHeaderListSize = true
        // Per-notification ids: never worth a dynamic-table entry.
        h2.uniqueValueResponseHeaders = ["apns-id", "apns-unique-id"]
        return h2
    }

    /// The limits of an APNs listener: header lists up to 8000 bytes, the raised stream
    /// limit as the ceiling, and the configured idle timeout (closed with GOAWAY NO_ERROR).
    public static func serverLimits(_ configuration: APNsConfiguration) -> ServerLimits {
        var limits = ServerLimits()
        limits.maxHeaderListSize = 8000
        limits.maxConcurrentStreams = configuration.maxConcurrentStreamsAfterAuth
        limits.idleTimeout = configuration.idleTimeout
        return limits
    }

    /// ALPN protocols offered: `h2` only (a client offering only `http/1.1` gets alert 120).
    public static let alpn = ["h2"]

    /// A complete listener for one environment, named `apns-production` / `apns-sandbox`.
    /// `clientCertificateCAPEM`: the CA provider certificates must chain to (it stands in for
    /// Apple's WWDR intermediate); a client certificate is then requested, not required.
    public static func listener(_ environment: APNsEnvironment, configuration: APNsConfiguration, host: String = "127.0.0.1",
                                port: Int = 0, certificateChainPEM: String, privateKeyPEM: String,
                                clientCertificateCAPEM: String? = nil, responder: any Responder) -> ListenerConfiguration {
        ListenerConfiguration(name: environment.listenerName, host: host, port: port,
                              tls: TLSServerConfiguration(certificateChainPEM: certificateChainPEM, privateKeyPEM: privateKeyPEM, alpn: alpn,
                                                          clientCertificateCAPEM: clientCertificateCAPEM),
                              http2: http2Configuration(configuration), limits: serverLimits(configuration),
                              allowHTTP1: false, allowHTTP2: true, responder: responder)
    }
}

extension APNsFake {
    /// The two listeners of this fake for the in-process server: `apns-production` and
    /// `apns-sandbox` (TLS, ALPN `h2` only, no HTTP/1.1, Apple's SETTINGS), both answered by
    /// this one fake (the environment comes from the listener, SNI or `:authority`).
    public func listenerSpecs(productionPort: Int = APNsModule.productionPort,
                              sandboxPort: Int = APNsModule.sandboxPort) -> [FakeListenerSpec] {
        [(APNsEnvironment.production, productionPort), (.sandbox, sandboxPort)].map { env, port in
            listenerSpec(name: env.listenerName, port: port, environment: env)
        }
    }

    /// One listener of this fake: TLS, ALPN `h2` only, no HTTP/1.1, Apple's SETTINGS, and a
    /// client certificate requested (certificate-based provider authentication, verified
    /// against the test CA).
    func listenerSpec(name: String, port: Int, environment: APNsEnvironment) -> FakeListenerSpec {
        var spec = FakeListenerSpec(name: name, defaultPort: port, fake: self, alpn: APNsListeners.alpn,
                                    allowHTTP1: false, allowHTTP2: true,
                                    http2: APNsListeners.http2Configuration(configuration),
                                    limits: APNsListeners.serverLimits(configuration), environment: environment.rawValue, useTLS: true)
        spec.requestClientCertificate = true
        return spec
    }

    /// Listener specs of a new fake with `configuration` (default: the shipped key and topic).
    /// `clock` should be the double's clock (it dates 410 answers rendered for fault rules).
    public static func listenerSpecs(configuration: APNsConfiguration = .shipped, clock: any DoubleClock = SystemClock(),
                                     productionPort: Int = APNsModule.productionPort,
                                     sandboxPort: Int = APNsModule.sandboxPort) -> [FakeListenerSpec] {
        APNsFake(configuration: configuration, clock: clock).listenerSpecs(productionPort: productionPort, sandboxPort: sandboxPort)
    }
}
