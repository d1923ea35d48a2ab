import Foundation
import PushDouble
import PushDoubleCore
import PushDoubleTransport

/// The fakes the runner uses: a fresh in-process ``PushDoubleServer`` per case with every
/// registered provider module (``FakeRegistry/modules``) on ephemeral loopback ports, the
/// shipped test CA, each module's options from the scenario's `fakeOptions.<provider>`, and
/// the scenario's devices, faults and quotas loaded by PushDoubleCore. What the sender is told
/// is each module's ``SenderMaterial``, rendered once the ports are bound.
public struct ServerFakeHost: FakeHost {
    /// Event-loop threads per case (cases run concurrently; the machine is small).
    public var eventLoopsPerCase = 1
    /// The provider modules served (default: every registered one).
    public var modules: [any ProviderModule] = FakeRegistry.modules
    /// `conform --real-hosts`: the sender is told the providers' real URLs
    /// (``PushDoubleServer/senderKit(realHosts:)``) and gets `HTTPS_PROXY`, a CONNECT proxy of
    /// the case's double that routes those host names to its fakes (and refuses every other).
    public var realHosts = false

    public init() {}

    public func validate(_ scenario: ConformanceScenario) throws {
        let core = try coreScenario(scenario)
        let file = Self.fileName(scenario)
        for (i, d) in core.devices.enumerated() {
            var device = d
            do {
                if let m = modules.first(where: { $0.provider == d.provider }) { try m.validateDevice(&device) }
                else { try DeviceSchemaError.refuseAttributes(of: device, allowed: []) }
            } catch let e as DeviceSchemaError {
                throw ScenarioError(file: file, path: "devices[\(i)].\(e.field)", message: e.message)
            }
        }
        for (provider, options) in core.fakeOptions {
            guard let m = modules.first(where: { $0.provider.rawValue == provider }) else {
                throw ScenarioError(file: file, path: "fakeOptions.\(provider)",
                                    message: "no such provider; expected one of " + modules.map(\.provider.rawValue).joined(separator: ", "))
            }
            _ = try m.instantiate(options: options, context: ProviderBuildContext(clock: SystemClock(), file: file,
                                                                                optionsPath: "fakeOptions.\(provider)"))
        }
    }

    static func fileName(_ s: ConformanceScenario) -> String { s.file.map { ($0 as NSString).lastPathComponent } ?? s.id }

    func coreScenario(_ s: ConformanceScenario) throws -> Scenario {
        try ScenarioLoader.decode(s.raw, file: Self.fileName(s))
    }

    public func start(_ scenario: ConformanceScenario, seed: UInt64) throws -> any FakeSession {
        try validate(scenario)
        var core = try coreScenario(scenario)
        core.seed = seed
        var config = PushDoubleConfiguration.ephemeral()
        config.modules = modules
        config.applyFakeOptions(of: [core])
        config.providerOptionsSource = Self.fileName(scenario)
        config.admin = false
        config.seed = seed
        config.eventLoopCount = eventLoopsPerCase
        config.proxy = realHosts
        let server = PushDoubleServer(configuration: config)
        try server.start()
        let kit: SenderKit
        do {
            try server.load(scenario: core)
            kit = try server.senderKit(realHosts: realHosts)
        } catch {
            server.stop()
            throw error
        }
        let sender = SenderConfiguration(caFile: kit.caFile ?? "", providers: kit.providers, environment: kit.environment)
        return ServerFakeSession(server: server, kit: kit, configuration: sender)
    }
}

/// One case's running server and the sender files written for it.
final class ServerFakeSession: FakeSession, Sendable {
    let server: PushDoubleServer
    let kit: SenderKit
    let configuration: SenderConfiguration
    init(server: PushDoubleServer, kit: SenderKit, configuration: SenderConfiguration) {
        self.server = server; self.kit = kit; self.configuration = configuration
    }
    func history() -> [Exchange] { server.history.all }
    func listenerURL(_ name: String) -> String? { server.endpoint(named: name)?.url }
    func quiesce() { server.double.quiesce(timeout: 1) }
    /// A provider admin route of exactly this method and path (no path parameters).
    func admin(method: String, path: String, body: [UInt8]) -> (status: Int, body: String)? {
        guard let route = server.providerInstances.flatMap(\.adminRoutes).first(where: { $0.method == method && $0.path == path }) else { return nil }
        let now = Date()
        let info = RequestInfo(connection: ConnectionInfo(id: 0, listener: "conformance", peer: "runner", localPort: 0, tls: nil, acceptedAt: now),
                               streamID: 0, version: .http1_1, headReceivedAt: now, bodyReceivedAt: now)
        let r = route.handler(HTTPRequest(method: method, path: path, scheme: "http", authority: nil, headers: HTTPHeaders(), body: body, info: info),
                              RouteParameters())
        return (r.status, String(decoding: r.body, as: UTF8.self))
    }
    func stop() {
        server.stop()
        kit.remove()
    }
}
