import Foundation
import PushDoubleCore
import PushDoubleTransport

/// The TLS identity a double serves with, and the CA senders must trust. Provider
/// credentials (APNs key, service accounts, VAPID keys) belong to each provider module.
public struct DoubleCredentials: Sendable {
    /// The test CA senders must trust.
    public var caPEM: String
    /// The server certificate chain (leaf first) for every TLS listener.
    public var serverCertificatePEM: String
    public var serverKeyPEM: String

    public init(caPEM: String, serverCertificatePEM: String, serverKeyPEM: String) {
        self.caPEM = caPEM; self.serverCertificatePEM = serverCertificatePEM; self.serverKeyPEM = serverKeyPEM
    }
}

/// Everything that decides how a ``PushDoubleServer`` runs.
public struct PushDoubleConfiguration: Sendable {
    /// Address every listener binds (loopback by default).
    public var host: String = "127.0.0.1"
    /// The host name or address clients are told (endpoint URLs, the sender environment, the
    /// inbox, a service-account file's `token_uri`), when it is not ``host``: a container's
    /// service name or the host a published port is reached on. nil: ``host``, or loopback
    /// when ``host`` is a wildcard (`0.0.0.0`, `::`). With the embedded test credentials, a
    /// name the server certificate does not cover is added to it at start (docs/containers.md).
    public var advertisedHost: String?
    /// Count exchanges for the admin API's `GET /metrics` (``ExchangeMetrics``: one history
    /// feed and one thread). Off by default; `serve` turns it on.
    public var metrics: Bool = false
    /// true: every listener on an ephemeral port (read them from ``PushDoubleServer/endpoints``).
    public var ephemeralPorts: Bool = false
    /// Per-listener port overrides by name ("admin", "apns-production", …).
    public var ports: [String: Int] = [:]
    /// Serve the admin API.
    public var admin: Bool = true
    /// Open the CONNECT proxy listener `proxy` (``DefaultPorts/proxy``), which tunnels each
    /// bound listener's real host names (``ListenerDefault/realHosts``) to that listener and
    /// refuses everything else (docs/transport.md). Off by default; `serve` turns it on.
    public var proxy: Bool = false
    /// The proxy listener's limits: `maxConnections` (connections still sending their
    /// CONNECT head) and `handshakeTimeout` (the time allowed for a complete head). A
    /// tunnel, once established, has its target listener's limits.
    public var proxyLimits = ServerLimits()
    /// Told of every request the proxy refuses (on an event-loop thread; keep it cheap).
    /// Default: one line on standard error.
    public var proxyRefusalLog: @Sendable (ConnectProxyRefusal) -> Void = PushDoubleConfiguration.logRefusalToStandardError
    /// The provider modules to serve (default: every registered one, ``FakeRegistry/modules``),
    /// built at start with this configuration's clock and ``providerOptions``.
    public var modules: [any ProviderModule] = FakeRegistry.modules
    /// Each module's options by provider id (`fakeOptions` of a scenario; nil = defaults).
    public var providerOptions: [String: JSONValue] = [:]
    /// Where ``providerOptions`` came from, for errors ("apns.tcp-drop.json").
    public var providerOptionsSource = "<options>"
    /// Explicit listeners instead of ``modules`` (tests that build a fake by hand); nil = the modules'.
    public var fakes: [FakeListenerSpec]?
    /// TLS identity; default: the embedded test credentials (when available).
    public var credentials: DoubleCredentials?
    /// How the fake listeners are reached: as each provider declares them (``FakeSecurity/tls``,
    /// the default) or all in cleartext for in-process tests (``FakeSecurity/plaintext``).
    public var security: FakeSecurity = .tls
    /// Most exchanges the history keeps (``HistoryStore/init(cap:maxBytes:)``).
    public var historyCap: Int = 50_000
    /// Most bytes the history keeps (``HistoryStore/defaultMaxBytes``: 256 MiB).
    public var historyMaxBytes: Int = HistoryStore.defaultMaxBytes
    public var seed: UInt64 = 0
    public var defaultWorld: WorldMode = .open
    public var clock: any DoubleClock = SystemClock()
    /// Seconds between keep-alive comments on the admin API's `/history/stream`.
    public var streamHeartbeat: Double = 15
    /// Event-loop threads; nil = one per core.
    public var eventLoopCount: Int? = nil
    /// Directories of scenario files the admin API lists at `GET /scenarios` (the inbox's library).
    public var scenarioLibrary: [String] = []

    public init(fakes: [FakeListenerSpec]? = nil, credentials: DoubleCredentials? = FakeRegistry.embeddedCredentials) {
        self.credentials = credentials
        self.fakes = fakes
    }

    /// A configuration for tests: every listener the registered modules declare (APNs
    /// production and sandbox, FCM send and its OAuth token endpoint, Expo, Web Push) and the
    /// admin API, each on an ephemeral port (read them from ``PushDoubleServer/endpoints``).
    /// `tls: false` serves every fake in cleartext (``FakeSecurity/plaintext``), so a client
    /// that cannot trust a custom CA (URLSession on Linux) reaches it with an `http://` URL.
    public static func ephemeral(fakes: [FakeListenerSpec]? = nil, tls: Bool = true) -> PushDoubleConfiguration {
        var c = PushDoubleConfiguration(fakes: fakes)
        c.ephemeralPorts = true
        c.security = tls ? .tls : .plaintext
        return c
    }
}

extension PushDoubleConfiguration {
    /// The default ``proxyRefusalLog``: `pushdouble proxy: refused CONNECT example.com:443 from …`.
    public static let logRefusalToStandardError: @Sendable (ConnectProxyRefusal) -> Void = { refusal in
        FileHandle.standardError.write(Data(("pushdouble proxy: " + refusal.description + "\n").utf8))
    }

    /// Sets one option of one provider (`serve --option apns.tokenMinRefreshSeconds=60`), over
    /// what a scenario's `fakeOptions` said; the module judges it when the fakes are built.
    public mutating func setProviderOption(_ provider: String, _ key: String, _ value: JSONValue) {
        var members = providerOptions[provider]?.objectValue ?? []
        members.removeAll { $0.0 == key }
        members.append((key, value))
        providerOptions[provider] = .object(members)
    }

    /// Checks ``providerOptions`` with each module (unknown provider, key or value), without
    /// starting anything. Throws the module's ``ScenarioError``.
    public func validateProviderOptions() throws {
        for (provider, options) in providerOptions {
            guard let m = modules.first(where: { $0.provider.rawValue == provider }) else {
                throw ScenarioError(file: providerOptionsSource, path: "fakeOptions.\(provider)",
                                    message: "no such provider; expected one of " + modules.map(\.provider.rawValue).joined(separator: ", "))
            }
            _ = try m.instantiate(options: options, context: ProviderBuildContext(clock: clock, file: providerOptionsSource,
                                                                                optionsPath: "fakeOptions.\(provider)"))
        }
    }

    /// Takes the `fakeOptions` of scenarios into ``providerOptions`` (a later scenario's
    /// object for a provider replaces an earlier one).
    public mutating func applyFakeOptions(of scenarios: [Scenario]) {
        for s in scenarios {
            for (provider, options) in s.fakeOptions { providerOptions[provider] = options }
            if !s.fakeOptions.isEmpty { providerOptionsSource = "scenario \(s.id)" }
        }
    }
}
