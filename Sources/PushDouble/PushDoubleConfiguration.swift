import Foundation
import PushDoubleCore
import PushDoubleTransport

/// TLS identity and test credentials a double serves with and hands to senders.
public struct DoubleCredentials: Sendable {
    /// The test CA senders must trust.
    public var caPEM: String
    /// The server certificate chain (leaf first) for every TLS listener.
    public var serverCertificatePEM: String
    public var serverKeyPEM: String
    /// APNs token-auth signing key (PKCS#8 PEM) and its ids, for senders.
    public var apnsKeyPEM: String?
    public var apnsKeyID: String?
    public var apnsTeamID: String?
    public var apnsTopic: String?

    public init(caPEM: String, serverCertificatePEM: String, serverKeyPEM: String, apnsKeyPEM: String? = nil,
                apnsKeyID: String? = nil, apnsTeamID: String? = nil, apnsTopic: String? = nil) {
        self.caPEM = caPEM; self.serverCertificatePEM = serverCertificatePEM; self.serverKeyPEM = serverKeyPEM
        self.apnsKeyPEM = apnsKeyPEM; self.apnsKeyID = apnsKeyID; self.apnsTeamID = apnsTeamID; self.apnsTopic = apnsTopic
    }
}

/// Everything that decides how a ``PushDoubleServer`` runs.
public struct PushDoubleConfiguration: Sendable {
    /// Address every listener binds (loopback by default).
    public var host: String = "127.0.0.1"
    /// true: every listener on an ephemeral port (read them from ``PushDoubleServer/endpoints``).
    public var ephemeralPorts: Bool = false
    /// Per-listener port overrides by name ("admin", "apns-production", …).
    public var ports: [String: Int] = [:]
    /// Serve the admin API.
    public var admin: Bool = true
    /// The fakes to serve; nil (default) = every provider module wired in (see
    /// ``FakeRegistry``), built at start with this configuration's clock.
    public var fakes: [FakeListenerSpec]?
    /// TLS identity; default: the embedded test credentials (when available).
    public var credentials: DoubleCredentials?
    public var historyCap: Int = 50_000
    public var seed: UInt64 = 0
    public var defaultWorld: WorldMode = .open
    public var clock: any DoubleClock = SystemClock()
    /// Seconds between keep-alive comments on the admin API's `/history/stream`.
    public var streamHeartbeat: Double = 15
    /// Event-loop threads; nil = one per core.
    public var eventLoopCount: Int? = nil

    public init(fakes: [FakeListenerSpec]? = nil, credentials: DoubleCredentials? = FakeRegistry.embeddedCredentials) {
        self.credentials = credentials
        self.fakes = fakes
    }

    /// A configuration with every listener on an ephemeral port (for tests).
    public static func ephemeral(fakes: [FakeListenerSpec]? = nil) -> PushDoubleConfiguration {
        var c = PushDoubleConfiguration(fakes: fakes)
        c.ephemeralPorts = true
        return c
    }
}
