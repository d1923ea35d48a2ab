import Foundation
import PushDouble
import PushDoubleAPNs
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport

/// The fakes the CLI uses: a fresh in-process ``PushDoubleServer`` per case, with the APNs
/// fake on two ephemeral loopback ports (production and sandbox), the shipped test CA and
/// APNs key, and the scenario's devices, faults and quotas loaded by PushDoubleCore.
///
/// Per-scenario fake settings (an addition to the core format, ignored by the core):
/// `"fakeOptions":{"apns":{"maxConcurrentStreamsAfterAuth":N,"initialMaxConcurrentStreams":N,
/// "tokenMinRefreshSeconds":S,"tooManyRequestsPerDevice":N}}`.
public struct ServerFakeHost: FakeHost {
    /// Event-loop threads per case (cases run concurrently; the machine is small).
    public var eventLoopsPerCase = 1

    public init() {}

    public func validate(_ scenario: ConformanceScenario) throws {
        _ = try coreScenario(scenario)
        _ = try apnsConfiguration(scenario)
    }

    func coreScenario(_ s: ConformanceScenario) throws -> Scenario {
        try ScenarioLoader.decode(s.raw, file: s.file.map { ($0 as NSString).lastPathComponent } ?? s.id)
    }

    /// The APNs fake's settings for a scenario (defaults: Apple's figures).
    func apnsConfiguration(_ s: ConformanceScenario) throws -> APNsConfiguration {
        var c = APNsConfiguration.shipped
        let root = try? JSONDecoder().decode(JSONValue.self, from: s.raw)
        guard let o = root?["fakeOptions"]?["apns"] else { return c }
        let file = s.file.map { ($0 as NSString).lastPathComponent } ?? s.id
        let allowed: Set<String> = ["maxConcurrentStreamsAfterAuth", "initialMaxConcurrentStreams", "tokenMinRefreshSeconds", "tooManyRequestsPerDevice"]
        for (k, _) in o.objectValue ?? [] where !allowed.contains(k) {
            throw ScenarioError(file: file, path: "fakeOptions.apns.\(k)", message: "unknown option; expected one of " + allowed.sorted().joined(separator: ", "))
        }
        func positive(_ name: String) throws -> Int64? {
            guard let v = o[name] else { return nil }
            guard let n = v.intValue, n >= 0, n <= 1_000_000 else {
                throw ScenarioError(file: file, path: "fakeOptions.apns.\(name)", message: "expected a non-negative integer")
            }
            return n
        }
        if let n = try positive("maxConcurrentStreamsAfterAuth") { c.maxConcurrentStreamsAfterAuth = UInt32(max(1, n)) }
        if let n = try positive("initialMaxConcurrentStreams") { c.initialMaxConcurrentStreams = UInt32(max(1, n)) }
        if let n = try positive("tokenMinRefreshSeconds") { c.tokenTiming.minRefreshInterval = Double(n) }
        if let n = try positive("tooManyRequestsPerDevice") { c.tooManyRequestsPerDevice = Int(n) }
        return c
    }

    public func start(_ scenario: ConformanceScenario, seed: UInt64) throws -> any FakeSession {
        let files = try CredentialFiles.shared()
        var core = try coreScenario(scenario)
        core.seed = seed
        let apnsConfig = try apnsConfiguration(scenario)
        // The APNs module's own listeners (TLS, ALPN h2 only, Apple's SETTINGS); ports are ephemeral below.
        let specs = APNsFake.listenerSpecs(configuration: apnsConfig)
        var config = PushDoubleConfiguration(fakes: specs, credentials: DoubleCredentials(
            caPEM: EmbeddedTestCredentials.caPEM, serverCertificatePEM: EmbeddedTestCredentials.serverCertificatePEM,
            serverKeyPEM: EmbeddedTestCredentials.serverKeyPEM, apnsKeyPEM: EmbeddedTestCredentials.apnsKeyPEM,
            apnsKeyID: TestCredentials.apnsKeyID, apnsTeamID: TestCredentials.apnsTeamID, apnsTopic: TestCredentials.apnsTopic))
        config.ephemeralPorts = true
        config.admin = false
        config.seed = seed
        config.eventLoopCount = eventLoopsPerCase
        let server = PushDoubleServer(configuration: config)
        try server.start()
        do { try server.load(scenario: core) } catch { server.stop(); throw error }
        guard let prod = server.endpoint(named: "apns-production"), let sandbox = server.endpoint(named: "apns-sandbox") else {
            server.stop()
            throw ConformanceError.fakesDidNotStart("the APNs listeners did not start")
        }
        let sender = SenderConfiguration(caFile: files.ca, apns: APNsProviderConfig(
            url: prod.url, sandboxUrl: sandbox.url, caFile: files.ca, keyFile: files.apnsKey,
            keyId: TestCredentials.apnsKeyID, teamId: TestCredentials.apnsTeamID, topic: TestCredentials.apnsTopic))
        return ServerFakeSession(server: server, configuration: sender)
    }
}

/// One case's running server.
final class ServerFakeSession: FakeSession, @unchecked Sendable {
    let server: PushDoubleServer
    let configuration: SenderConfiguration
    init(server: PushDoubleServer, configuration: SenderConfiguration) { self.server = server; self.configuration = configuration }
    func history() -> [Exchange] { server.history.all }
    func stop() { server.stop() }
}

/// The test CA and APNs key written once per process to a private temp directory, so
/// senders can read them as files.
struct CredentialFiles: Sendable {
    var ca: String
    var apnsKey: String

    private static let cache = Locked<CredentialFiles?>(nil)

    static func shared() throws -> CredentialFiles {
        try cache.withLock { cached in
            if let c = cached { return c }
        let dir = (NSTemporaryDirectory() as NSString).appendingPathComponent("pushdouble-conform-\(getpid())")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let ca = (dir as NSString).appendingPathComponent(TestCredentials.FileName.caCertificate)
        let key = (dir as NSString).appendingPathComponent("AuthKey_\(TestCredentials.apnsKeyID).p8")
        try EmbeddedTestCredentials.caPEM.write(toFile: ca, atomically: true, encoding: .utf8)
        try EmbeddedTestCredentials.apnsKeyPEM.write(toFile: key, atomically: true, encoding: .utf8)
        let c = CredentialFiles(ca: ca, apnsKey: key)
        cached = c
        return c
        }
    }
}
