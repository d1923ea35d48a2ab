import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PushDoubleCore
import PushDoubleInbox
import PushDoubleTransport

/// The double in-process: provider fakes plus the admin API on loopback listeners, over
/// one shared ``DoubleState`` (devices, fault rules, history).
///
/// Usage from a Swift test (`import PushDouble`; `PushDoubleTesting` wraps start and stop per
/// test, docs/swift.md):
/// ```swift
/// let server = PushDoubleServer(configuration: .ephemeral())   // .ephemeral(tls: false): plaintext
/// try server.start()
/// let apns = server.endpoint(named: "apns-production")!.url
/// // … drive the code under test …
/// XCTAssertEqual(server.history.apnsPushes.count, 1)
/// server.stop()
/// ```
///
/// Thread-safe; `start`/`stop` must not be called from an event-loop thread.
public final class PushDoubleServer: Sendable {
    public let configuration: PushDoubleConfiguration
    public let double: DoubleState
    private let server: HTTPServer
    private let bound = Locked<[DoubleEndpoint]>([])
    private enum Phase { case idle, running, stopped }
    private let phase = Locked<Phase>(.idle)
    /// The sender kits handed out while running; their files are removed at `stop`.
    private let kits = Locked<[SenderKit]>([])
    /// The provider fakes built at `start` from the configured modules.
    private let instances = Locked<[(module: any ProviderModule, instance: any ProviderInstance)]>([])
    /// The metrics counter and the sender kit the admin downloads render (ContainerSupport.swift).
    let container = Locked(ContainerSupport())

    public init(configuration: PushDoubleConfiguration = PushDoubleConfiguration()) {
        self.configuration = configuration
        double = DoubleState(clock: configuration.clock, historyCap: configuration.historyCap,
                             historyMaxBytes: configuration.historyMaxBytes, seed: configuration.seed,
                             defaultWorld: configuration.defaultWorld)
        server = HTTPServer(eventLoopCount: configuration.eventLoopCount)
        // Device schemas first: devices registered before `start` (a scenario) are judged too.
        for m in configuration.modules {
            let module = m
            double.devices.setSchema({ try module.validateDevice(&$0) }, for: m.provider)
        }
        // The modules' names (providers, endpoints, reasons) are checked, and scope fault rules,
        // when the modules are what is served; hand-built listeners (tests) check nothing.
        if configuration.fakes == nil {
            for m in configuration.modules { double.register(ProviderCatalogue(module: m)) }
        }
    }

    public var devices: DeviceRegistry { double.devices }
    public var faults: FaultEngine { double.faults }
    public var history: HistoryStore { double.history }

    /// Where each listener listens (empty before `start`).
    public var endpoints: [DoubleEndpoint] { bound.withLock { $0 } }

    public func endpoint(named name: String) -> DoubleEndpoint? { endpoints.first { $0.name == name } }

    /// Opens every listener. Throws ``PushDoubleServerError`` (or the transport's error,
    /// e.g. a port in use) and then leaves nothing open.
    public func start() throws {
        try phase.withLock { p in
            switch p {
            case .idle: p = .running
            case .running: throw PushDoubleServerError.alreadyStarted
            case .stopped: throw PushDoubleServerError.stopped
            }
        }
        do {
            try open()
        } catch {
            stopContainerSupport()  // the metrics thread, if the admin API was built
            // HTTPServer.start leaves nothing bound when it throws, so start may be retried.
            phase.withLock { $0 = .idle }
            throw error
        }
    }

    private func port(for name: String, default d: Int) -> Int {
        if let p = configuration.ports[name] { return p }
        return configuration.ephemeralPorts ? 0 : d
    }

    /// Builds every configured module's fake (options decoded here, so a bad one fails the start).
    private func buildInstances() throws -> [(module: any ProviderModule, instance: any ProviderInstance)] {
        var built: [(module: any ProviderModule, instance: any ProviderInstance)] = []
        for m in configuration.modules {
            let id = m.provider.rawValue
            let endpointsSource = bound
            let context = ProviderBuildContext(clock: configuration.clock, file: configuration.providerOptionsSource,
                                               optionsPath: "fakeOptions." + id, double: double,
                                               endpoints: { endpointsSource.withLock { $0 } })
            built.append((m, try m.instantiate(options: configuration.providerOptions[id], context: context)))
        }
        return built
    }

    private func open() throws {
        let built = try buildInstances()
        instances.withLock { $0 = built }
        var listeners: [ListenerConfiguration] = []
        var meta: [(name: String, provider: ProviderID?, environment: String?, tls: Bool)] = []
        var names = Set<String>()
        let hostRoutes = built.flatMap(\.instance.hostRoutes)
        let served = try configuration.servedCredentials()
        for declared in configuration.fakes ?? built.flatMap(\.instance.listeners) {
            guard names.insert(declared.name).inserted else { throw PushDoubleServerError.duplicateListener(declared.name) }
            let spec = configuration.security.listener(adding(hostRoutes, to: declared))
            var tls: TLSServerConfiguration? = nil
            if spec.useTLS {
                guard let c = served else { throw PushDoubleServerError.missingCredentials(spec.name) }
                tls = TLSServerConfiguration(certificateChainPEM: c.serverCertificatePEM, privateKeyPEM: c.serverKeyPEM, alpn: spec.alpn,
                                             clientCertificateCAPEM: spec.requestClientCertificate ? c.caPEM : nil)
            }
            var listener = ListenerConfiguration(name: spec.name, host: configuration.host, port: port(for: spec.name, default: spec.defaultPort),
                                                 tls: tls, http2: spec.http2, limits: spec.limits, allowHTTP1: spec.allowHTTP1,
                                                 allowHTTP2: spec.allowHTTP2, responder: try responder(for: spec))
            if let ws = spec.webSocket { listener.service = .webSocket(ws) }
            listeners.append(listener)
            meta.append((spec.name, spec.fake.provider, spec.environment, spec.useTLS))
        }
        if configuration.proxy {
            guard names.insert(Self.proxyListener).inserted else { throw PushDoubleServerError.duplicateListener(Self.proxyListener) }
            listeners.append(.connectProxy(name: Self.proxyListener, host: configuration.host,
                                           port: port(for: Self.proxyListener, default: DefaultPorts.proxy), limits: configuration.proxyLimits,
                                           proxy: proxyRoutes(to: listeners.map(\.name))))
            meta.append((Self.proxyListener, nil, nil, false))
        }
        if configuration.admin {
            guard names.insert("admin").inserted else { throw PushDoubleServerError.duplicateListener("admin") }
            let endpointsSource = bound
            // Weakly: the transport holds this responder, so a strong capture would keep the
            // transport, its listeners and the whole double alive after the server is gone.
            let transport = server
            let admin = AdminAPI(double: double, endpoints: { endpointsSource.withLock { $0 } },
                                 listeners: { [weak transport] in transport?.listenerStatistics ?? [] },
                                 streamHeartbeat: configuration.streamHeartbeat,
                                 providerRoutes: built.flatMap(\.instance.adminRoutes) + containerRoutes(transport: transport),
                                 page: InboxPage.adminPage(views: FakeRegistry.inboxViews), fakeOptions: configuration.providerOptions,
                                 scenarioLibrary: ScenarioLibrary(directories: configuration.scenarioLibrary))
            listeners.append(ListenerConfiguration(name: "admin", host: configuration.host, port: port(for: "admin", default: DefaultPorts.admin),
                                                   tls: nil, responder: admin))
            meta.append(("admin", nil, nil, false))
        }
        // The transport binds with SO_REUSEPORT, so a second double on the same fixed
        // port would silently share it; probe fixed ports without it first.
        for l in listeners where l.port != 0 {
            if !Self.portIsFree(host: l.host, port: l.port) { throw PushDoubleServerError.portInUse(name: l.name, port: l.port) }
        }
        let result = try server.start(listeners)
        var endpoints: [DoubleEndpoint] = []
        for (i, b) in result.enumerated() {
            let m = meta.first { $0.name == b.name } ?? meta[i]
            let host = configuration.toldHost(bound: b.host)
            let hostPart = host.contains(":") ? "[\(host)]" : host
            endpoints.append(DoubleEndpoint(name: b.name, provider: m.provider, environment: m.environment,
                                            url: (m.tls ? "https://" : "http://") + hostPart + ":" + String(b.port),
                                            host: host, port: b.port))
        }
        let declared = configuration.modules.flatMap(\.listenerDefaults)
        for i in endpoints.indices {
            let names = declared.filter { $0.name == endpoints[i].name }.flatMap(\.realHosts)
            if !names.isEmpty { endpoints[i].realHosts = names }
        }
        bound.withLock { $0 = endpoints }
    }

    /// The name of the CONNECT proxy listener (``PushDoubleConfiguration/proxy``).
    public static let proxyListener = "proxy"

    /// The proxy's routes: every real host name a module declares for one of `listeners`
    /// (``ListenerDefault/realHosts``), to that listener. The proxy itself names no provider.
    /// A name two listeners declare goes to the first, in module order.
    func proxyRoutes(to listeners: [String]) -> ConnectProxyConfiguration {
        var proxy = ConnectProxyConfiguration(onRefusal: configuration.proxyRefusalLog)
        let declared = configuration.modules.flatMap(\.listenerDefaults)
        for d in declared where listeners.contains(d.name) {
            for authority in d.realHosts { proxy.addRoute(authority, to: d.name) }
        }
        return proxy
    }

    /// `spec` with the ``HostRoute``s of every provider whose authority is one of the listener's
    /// real hosts (``ListenerDefault/realHosts``), each restricted to that host; a listener
    /// without real hosts is unchanged. Routes a provider declares itself come first.
    func adding(_ hostRoutes: [HostRoute], to spec: FakeListenerSpec) -> FakeListenerSpec {
        let realHosts = Set(configuration.modules.flatMap(\.listenerDefaults).filter { $0.name == spec.name }
            .flatMap(\.realHosts).compactMap(ConnectProxyRequest.normalize(authority:)))
        guard !realHosts.isEmpty else { return spec }
        var spec = spec
        for h in hostRoutes {
            guard let authority = ConnectProxyRequest.normalize(authority: h.authority), realHosts.contains(authority),
                  let colon = authority.lastIndex(of: ":") else { continue }
            var route = h.route
            route.host = String(authority[..<colon])
            spec.routes.append(route)
        }
        return spec
    }

    /// The request path of one listener: its fake's pipeline, or a ``Router`` over the
    /// pipelines of its routes' fakes with the listener's fake answering the rest.
    private func responder(for spec: FakeListenerSpec) throws -> any Responder {
        let fallback = double.pipeline(for: spec.fake, environment: spec.environment)
        guard !spec.routes.isEmpty else { return fallback }
        var router = Router()
        var pipelines = [fallback]
        for route in spec.routes {
            let pipeline = double.pipeline(for: route.fake, environment: spec.environment)
            pipelines.append(pipeline)
            do {
                try router.add(route.method, route.path, host: route.host) { request, _, context in pipeline.respond(to: request, context: context) }
            } catch {
                throw PushDoubleServerError.badRoute(listener: spec.name, reason: error.description)
            }
        }
        router.notFound = { request, context in fallback.respond(to: request, context: context) }
        router.methodNotAllowed = { request, _, context in fallback.respond(to: request, context: context) }
        router.limitExceeded = { violation, head, context in fallback.limitExceeded(violation, head: head, context: context) }
        router.streamRefused = { refusal, head, context in fallback.streamRefused(refusal, head: head, context: context) }
        let all = pipelines
        router.responseCompleted = { info, outcome in for p in all { p.responseCompleted(for: info, outcome: outcome) } }
        return router.build()
    }

    /// Whether `host:port` can be bound by a socket without SO_REUSEPORT (IPv4 literals and
    /// "localhost"; other hosts are left to the transport).
    static func portIsFree(host: String, port: Int) -> Bool {
        var addr = in_addr()
        guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &addr) == 1 else { return true }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = UInt16(port).bigEndian
        a.sin_addr = addr
        let rc = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        return rc == 0 || errno != EADDRINUSE
    }

    /// The provider fakes built at `start` (empty before), in module order.
    public var providerInstances: [any ProviderInstance] { instances.withLock { $0.map(\.instance) } }

    /// Writes what senders need into a new private directory and renders every provider's
    /// ``SenderMaterial`` for the bound endpoints. Only while running: throws
    /// ``PushDoubleServerError/notStarted`` before `start` and ``PushDoubleServerError/stopped``
    /// after `stop`. The files live until ``SenderKit/remove()`` or `stop`, whichever comes first.
    public func senderKit() throws -> SenderKit { try senderKit(realHosts: false) }

    /// The sender kit; with `realHosts`, every fake listener that stands in for a real host a
    /// client can dial is named by that host's URL (`https://api.push.apple.com`, the first of its
    /// ``ListenerDefault/realHosts``, port 443 left out) instead of its loopback address, so the
    /// sender reaches it through the CONNECT proxy (``PushDoubleConfiguration/proxy``, whose
    /// `HTTPS_PROXY` lines the kit carries when it is bound).
    public func senderKit(realHosts: Bool) throws -> SenderKit {
        var told = endpoints
        if realHosts {
            for i in told.indices { if let url = realURL(of: told[i].name) { told[i].url = url } }
        }
        switch phase.withLock({ $0 }) {
        case .idle: throw PushDoubleServerError.notStarted
        case .stopped: throw PushDoubleServerError.stopped
        case .running: break
        }
        let kit = try SenderKit(endpoints: told, credentials: configuration.credentials,
                                providers: instances.withLock { $0.map { ($0.module.provider, $0.instance) } })
        // Kept only if still running (a `stop` that ran meanwhile has already removed the others).
        let kept = phase.withLock { p -> Bool in
            guard p == .running else { return false }
            kits.withLock { $0.append(kit) }
            return true
        }
        guard kept else { kit.remove(); throw PushDoubleServerError.stopped }
        return kit
    }

    /// `https://` + the first real host of listener `name` a client can dial (not a wildcard).
    func realURL(of name: String) -> String? {
        let hosts = configuration.modules.flatMap(\.listenerDefaults).first { $0.name == name }?.realHosts ?? []
        guard let host = hosts.first(where: { !$0.hasPrefix("*") }) else { return nil }
        return "https://" + (host.hasSuffix(":443") ? String(host.dropLast(4)) : host)
    }

    /// Loads a scenario (replacing devices, rules and history unless `merge`).
    public func load(scenario: Scenario, merge: Bool = false) throws { try double.load(scenario, merge: merge) }

    /// Reads, decodes and loads a scenario file.
    public func load(scenarioFile path: String, merge: Bool = false) throws { try double.load(ScenarioLoader.load(path: path), merge: merge) }

    /// Forgets devices, rules and history (of one provider, or all).
    public func reset(provider: ProviderID? = nil) { double.reset(provider: provider) }

    /// Closes every listener and connection (gracefully: HTTP/2 GOAWAY, up to 2 s) and removes
    /// the files of every sender kit it handed out.
    /// Idempotent; a stopped server cannot be started again (make a new one).
    public func stop() {
        let wasRunning = phase.withLock { p -> Bool in let w = p == .running; if w { p = .stopped }; return w }
        guard wasRunning else { return }
        server.stop()
        stopContainerSupport()
        bound.withLock { $0 = [] }
        for kit in kits.withLock({ k -> [SenderKit] in defer { k = [] }; return k }) { kit.remove() }
    }
}

/// Why a ``PushDoubleServer`` could not start.
public enum PushDoubleServerError: Error, Equatable, CustomStringConvertible {
    case alreadyStarted
    case stopped
    /// A running server was needed (``PushDoubleServer/senderKit()`` before `start`).
    case notStarted
    case duplicateListener(String)
    case missingCredentials(String)
    case portInUse(name: String, port: Int)
    case badRoute(listener: String, reason: String)
    public var description: String {
        switch self {
        case .alreadyStarted: return "the server is already started"
        case .stopped: return "the server was stopped; create a new one"
        case .notStarted: return "the server is not started; call start() first"
        case .duplicateListener(let n): return "two listeners are named \"\(n)\""
        case .missingCredentials(let n): return "listener \"\(n)\" needs TLS but no credentials are configured"
        case .portInUse(let n, let p): return "port \(p) for listener \"\(n)\" is already in use (another pushdouble? try --ephemeral)"
        case .badRoute(let n, let r): return "listener \"\(n)\": bad route: \(r)"
        }
    }
}
