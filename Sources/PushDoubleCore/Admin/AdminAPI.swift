import Foundation
import PushDoubleTransport

/// One listening endpoint of a running double, as `GET /endpoints` reports it.
public struct DoubleEndpoint: Sendable, Codable, Equatable {
    /// Listener name ("admin", "apns-production", …).
    public var name: String
    /// The provider served, nil for the admin API and the CONNECT proxy.
    public var provider: ProviderID?
    /// "production" / "sandbox" where it matters.
    public var environment: String?
    public var url: String
    public var host: String
    public var port: Int
    /// The real service's `host:port` names this listener stands in for (``ListenerDefault/realHosts``:
    /// what the CONNECT proxy routes here, and what an in-process host redirect maps); nil when none.
    public var realHosts: [String]?
    public init(name: String, provider: ProviderID?, environment: String?, url: String, host: String, port: Int) {
        self.name = name; self.provider = provider; self.environment = environment; self.url = url; self.host = host; self.port = port
    }
}

/// The admin API: a JSON-over-HTTP ``Responder`` for the double's devices, fault rules,
/// scenarios and history, served on its own loopback listener.
///
/// Routes (see docs/admin-openapi.yaml): `GET /health`, `GET /endpoints`,
/// `GET|DELETE /history`, `GET /history/stream` (server-sent events),
/// `GET|POST|DELETE /devices`, `GET|PUT|DELETE /devices/{id}`, `GET|POST|DELETE /faults`,
/// `GET|PUT|PATCH|DELETE /faults/{id}`, `GET /providers`, `PUT /providers/{id}`, `GET /catalogue`, `GET|POST /scenarios`,
/// `GET /scenario/export`, `POST /reset`, plus the routes of an ``AdminPage`` (the inbox web UI)
/// when one is given. Errors are `{"error":"…"}` with a 4xx status, including the requests
/// the transport refuses before routing (400 / 413 / 431); a name no provider's catalogue
/// has (provider, endpoint, reason) is a 400 that also lists the valid values
/// (`{"error":…,"field":…,"valid":[…]}`, ``NameCatalogue``). Routing is the
/// transport's ``Router``; the handlers live in ``AdminHandlers``.
public final class AdminAPI: Responder {
    public let handlers: AdminHandlers
    private let router: RouterResponder

    public var double: DoubleState { handlers.double }

    /// `listeners` reports each listener's connections for `GET /health` (the server's
    /// ``HTTPServer/listenerStatistics``).
    public init(double: DoubleState, endpoints: @escaping @Sendable () -> [DoubleEndpoint] = { [] },
                listeners: @escaping @Sendable () -> [ListenerStatistics] = { [] },
                streamHeartbeat: Double = 15, onScenarioLoaded: (@Sendable (Scenario) -> Void)? = nil,
                providerRoutes: [AdminRoute] = [], page: AdminPage? = nil, fakeOptions: [String: JSONValue] = [:],
                scenarioLibrary: ScenarioLibrary = ScenarioLibrary(directories: [])) {
        let h = AdminHandlers(double: double, endpoints: endpoints, listeners: listeners, streamHeartbeat: streamHeartbeat,
                              onScenarioLoaded: onScenarioLoaded, pageRoutes: page?.routes.map { "\($0.method) \($0.path)" } ?? [],
                              fakeOptions: fakeOptions, library: scenarioLibrary)
        handlers = h
        var r = Router()
        func on(_ method: String, _ pattern: String, _ body: @escaping @Sendable (AdminHandlers, AdminHandlers.Call) throws -> ResponseAction) {
            r.on(method, pattern) { request, params, _ in h.run(request, params, body) }
        }
        on("GET", "/") { h, c in
            // A browser asks for HTML: the page; every other client keeps the JSON index.
            if let page, AdminPage.acceptsHTML(c.request) { return .respond(page.index(c.request)) }
            return h.index()
        }
        on("GET", "/health") { h, _ in h.json(200, h.health()) }
        on("GET", "/endpoints") { h, _ in h.json(200, h.endpoints()) }
        on("GET", "/providers") { h, _ in try h.listProviders() }
        on("GET", "/catalogue") { h, _ in h.json(200, h.double.names.document) }
        on("PUT", "/providers/:id") { h, c in try h.setProvider(c) }
        on("GET", "/history") { h, c in try h.getHistory(c) }
        on("DELETE", "/history") { h, c in h.deleteHistory(c) }
        on("GET", "/history/stream") { h, c in try h.streamHistory(c) }
        on("GET", "/devices") { h, c in h.listDevices(c) }
        on("POST", "/devices") { h, c in try h.createDevices(c) }
        on("DELETE", "/devices") { h, c in h.deleteDevices(c) }
        on("GET", "/devices/:id") { h, c in try h.getDevice(c) }
        on("PUT", "/devices/:id") { h, c in try h.putDevice(c) }
        on("DELETE", "/devices/:id") { h, c in try h.deleteDevice(c) }
        on("GET", "/faults") { h, c in try h.listFaults(c) }
        on("POST", "/faults") { h, c in try h.createFaults(c) }
        on("DELETE", "/faults") { h, c in h.deleteFaults(c) }
        on("GET", "/faults/:id") { h, c in try h.getFault(c) }
        on("DELETE", "/faults/:id") { h, c in try h.deleteFault(c) }
        on("PUT", "/faults/:id") { h, c in try h.putFault(c) }
        on("PATCH", "/faults/:id") { h, c in try h.patchFault(c) }
        on("POST", "/scenarios") { h, c in try h.loadScenario(c) }
        on("GET", "/scenarios") { h, _ in h.json(200, h.library.entries(loaded: h.double.loadedScenarios)) }
        on("GET", "/scenario/export") { h, _ in h.exportScenario() }
        on("POST", "/reset") { h, c in h.reset(c) }
        // Provider modules' own routes (``ProviderInstance/adminRoutes``).
        for route in providerRoutes + (page?.routes ?? []) {
            let handler = route.handler
            r.on(route.method, route.path) { request, params, _ in .respond(handler(request, params)) }
        }
        r.notFound = { request, _ in .respond(AdminHandlers.error(404, "no such endpoint: \(request.method) \(request.pathWithoutQuery)")) }
        r.methodNotAllowed = { request, allowed, _ in
            var response = AdminHandlers.error(405, "method \(request.method) not allowed on \(request.pathWithoutQuery); allowed: \(allowed.joined(separator: ", "))")
            response.headers.add(name: "allow", value: allowed.joined(separator: ", "))
            return .respond(response)
        }
        // Requests the transport refuses (bad framing 400, body 413, header list 431) get
        // the same JSON error shape as every other admin error.
        r.limitExceeded = { violation, _, _ in AdminHandlers.error(violation.suggestedStatus, violation.message) }
        router = r.build()
    }

    public func respond(to request: HTTPRequest, context: RequestContext) -> ResponseAction {
        router.respond(to: request, context: context)
    }

    public func limitExceeded(_ violation: LimitViolation, head: HTTPRequest, context: RequestContext) -> HTTPResponse? {
        router.limitExceeded(violation, head: head, context: context)
    }
}

/// The admin API's handlers over one ``DoubleState`` (thread-safe: no state of its own).
public final class AdminHandlers: Sendable {
    public let double: DoubleState
    let endpoints: @Sendable () -> [DoubleEndpoint]
    let listeners: @Sendable () -> [ListenerStatistics]
    /// Called after a scenario was loaded through the API (e.g. to log it).
    let onScenarioLoaded: (@Sendable (Scenario) -> Void)?
    /// Seconds between keep-alive comments on `/history/stream`.
    public let streamHeartbeat: Double
    /// "GET /inbox", … of the ``AdminPage``, for the index.
    let pageRoutes: [String]
    /// The options the fakes were built with, for `GET /scenario/export`.
    let fakeOptions: [String: JSONValue]
    /// The scenario files `GET /scenarios` lists.
    let library: ScenarioLibrary

    init(double: DoubleState, endpoints: @escaping @Sendable () -> [DoubleEndpoint],
         listeners: @escaping @Sendable () -> [ListenerStatistics], streamHeartbeat: Double,
         onScenarioLoaded: (@Sendable (Scenario) -> Void)?, pageRoutes: [String] = [], fakeOptions: [String: JSONValue] = [:],
         library: ScenarioLibrary = ScenarioLibrary(directories: [])) {
        self.double = double; self.endpoints = endpoints; self.listeners = listeners
        self.streamHeartbeat = streamHeartbeat; self.onScenarioLoaded = onScenarioLoaded
        self.pageRoutes = pageRoutes; self.fakeOptions = fakeOptions; self.library = library
    }

    /// One request as a handler sees it: the request, its decoded path parameters and query.
    struct Call {
        var request: HTTPRequest
        var params: RouteParameters
        var query: [(String, String)]
        func param(_ name: String) -> String? { query.last { $0.0 == name }?.1 }
        /// A path parameter, percent-decoded.
        func path(_ name: String) -> String { QueryString.decode((params[name] ?? "")[...], plusAsSpace: false) }
        var provider: ProviderID? { param("provider").map { ProviderID(rawValue: $0) } }
    }

    /// A device the registry refused: 400 when its provider's schema or the catalogue refused
    /// it, 409 for a clash.
    static func registrationFailure(_ error: any Error) -> Failure {
        if let e = error as? DeviceSchemaError { return Failure(400, "\(e.field): \(e.message)") }
        if let u = error as? UnknownName { return Failure(u) }
        return Failure(409, "\(error)")
    }

    /// A failed admin request: status plus message, rendered as `{"error":"…"}` (plus the
    /// field and its valid values for an unknown name).
    struct Failure: Error {
        var status: Int
        var message: String
        var unknown: UnknownName? = nil
        init(_ status: Int, _ message: String) { self.status = status; self.message = message }
        init(_ unknown: UnknownName) { status = 400; message = unknown.description; self.unknown = unknown }
    }

    func run(_ request: HTTPRequest, _ params: RouteParameters, _ body: (AdminHandlers, Call) throws -> ResponseAction) -> ResponseAction {
        do {
            let call = Call(request: request, params: params, query: QueryString.parse(request.query))
            // `?provider=` of every route names a served provider (a typo would match nothing).
            if let p = call.provider { try double.names.check(provider: p, field: "provider") }
            return try body(self, call)
        } catch let f as Failure {
            return .respond(Self.error(f.status, f.message, unknown: f.unknown))
        } catch let u as UnknownName {
            return .respond(Self.error(400, u.description, unknown: u))
        } catch {
            return .respond(Self.error(500, "\(error)"))
        }
    }

    func index() -> ResponseAction { json(200, IndexDoc(routes: IndexDoc.builtIn + pageRoutes)) }

    /// One page of the history (``HistoryPaging``: `limit` default 1000, at most 5000;
    /// `after`/`cursor` = the last seq already seen), streamed from a background queue.
    func getHistory(_ c: Call) throws -> ResponseAction {
        let q = try historyQuery(c.query)
        var h = HTTPHeaders()
        let format: HistoryPageSource.Format
        if c.param("format") == "jsonl" {
            h.add(name: "content-type", value: "application/x-ndjson")
            h.add(name: "x-pushdouble-dropped", value: String(double.history.dropped))
            format = .jsonLines
        } else {
            h.add(name: "content-type", value: "application/json")
            format = .document
        }
        return .stream(HTTPResponse(status: 200, headers: h), source: HistoryPageSource(history: double.history, query: q, format: format))
    }

    func deleteHistory(_ c: Call) -> ResponseAction {
        if let p = c.provider { double.history.clear(provider: p) } else { double.history.clear() }
        return json(200, ["cleared": c.provider?.rawValue ?? "all"])
    }

    func streamHistory(_ c: Call) throws -> ResponseAction {
        var q = try historyQuery(c.query)
        if q.afterSeq == nil, let last = c.request.headers["last-event-id"], let n = UInt64(last) { q.afterSeq = n }
        var h = HTTPHeaders()
        h.add(name: "content-type", value: "text/event-stream")
        h.add(name: "cache-control", value: "no-cache")
        // HTTP/1.1: the connection ends with the stream, so a client cut off as `lagged` is
        // disconnected, not left holding a keep-alive connection (HTTP/2 drops the header).
        h.add(name: "connection", value: "close")
        return .stream(HTTPResponse(status: 200, headers: h), source: HistoryEventStream(history: double.history, query: q, heartbeat: streamHeartbeat))
    }

    func loadScenario(_ c: Call) throws -> ResponseAction {
        let scenario: Scenario
        do { scenario = try ScenarioLoader.decode(Data(c.request.body), file: c.param("name") ?? "request body") } catch let e as ScenarioError {
            throw Failure(400, e.description)
        }
        do { try double.load(scenario, merge: c.param("merge") == "true") } catch {
            throw Self.registrationFailure(error)
        }
        onScenarioLoaded?(scenario)
        return json(201, ["loaded": scenario.id, "devices": String(scenario.devices.count), "rules": String(scenario.rules.count)])
    }

    /// The current devices, rules, world modes, seed and fake options as a scenario file
    /// (``ScenarioExport``), downloaded as `pushdouble-scenario.json`.
    func exportScenario() -> ResponseAction {
        var h = HTTPHeaders()
        h.add(name: "content-type", value: "application/json")
        h.add(name: "content-disposition", value: "attachment; filename=\"\(ScenarioExport.fileName)\"")
        h.add(name: "cache-control", value: "no-store")
        let scenario = ScenarioExport.scenario(of: double, fakeOptions: fakeOptions)
        return .respond(HTTPResponse(status: 200, headers: h, body: ScenarioExport.document(scenario)))
    }

    func reset(_ c: Call) -> ResponseAction {
        double.reset(provider: c.provider)
        return json(200, ["reset": c.provider?.rawValue ?? "all"])
    }

    // MARK: resources

    func listDevices(_ c: Call) -> ResponseAction { json(200, double.devices.list(provider: c.provider)) }

    func createDevices(_ c: Call) throws -> ResponseAction {
        let list = try decodeOneOrMany(Device.self, c.request.body)
        for d in list { try double.check(device: d) }
        var created: [Device] = []
        for d in list {
            do { created.append(try double.devices.register(d)) } catch { throw Self.registrationFailure(error) }
        }
        return createdResponse(created, requestBody: c.request.body)
    }

    func deleteDevices(_ c: Call) -> ResponseAction {
        double.devices.reset(provider: c.provider)
        return resetResponse(c, "devices")
    }

    func getDevice(_ c: Call) throws -> ResponseAction {
        let id = c.path("id")
        guard let d = double.devices.device(id: id) else { throw notFound("device", id) }
        return json(200, d)
    }

    func putDevice(_ c: Call) throws -> ResponseAction {
        let id = c.path("id")
        let value = try objectBody(c, id: id)
        guard value["id"] == .string(id) else { throw Failure(400, "id: must match the path (\"\(id)\")") }
        let device = try decodeBody(Device.self, Array(value.compactJSON.utf8))
        try double.check(device: device)
        do { return json(200, try double.devices.upsert(device)) } catch { throw Self.registrationFailure(error) }
    }

    func deleteDevice(_ c: Call) throws -> ResponseAction {
        let id = c.path("id")
        guard double.devices.remove(id: id) else { throw notFound("device", id) }
        return json(200, ["deleted": id])
    }

    /// The rules in order with their counters; `?neverFired=true` only the rules that have not
    /// fired yet (a fault a test set up but no request hit).
    func listFaults(_ c: Call) throws -> ResponseAction {
        var onlyUnfired = false
        for (k, v) in c.query {
            switch (k, v) {
            case ("neverFired", "true"): onlyUnfired = true
            case ("neverFired", "false"): onlyUnfired = false
            case ("neverFired", _): throw Failure(400, "neverFired: expected true or false")
            default: throw Failure(400, "unknown query parameter \"\(k)\"; expected neverFired")
            }
        }
        let all = double.faults.list()
        return json(200, onlyUnfired ? all.filter(\.neverFired) : all)
    }

    func createFaults(_ c: Call) throws -> ResponseAction {
        let rules = try decodeOneOrMany(FaultRule.self, c.request.body)
        for (i, r) in rules.enumerated() {
            do { try double.check(rule: r) } catch var u as UnknownName {
                if isArray(c.request.body) { u.field = "[\(i)].\(u.field)" }
                throw u
            }
        }
        do { try double.faults.add(contentsOf: rules) } catch { throw Failure(409, "\(error)") }
        let added = rules.compactMap { double.faults.rule(id: $0.id) }
        return createdResponse(added, requestBody: c.request.body)
    }

    func deleteFaults(_ c: Call) -> ResponseAction {
        double.faults.reset(provider: c.provider)
        return resetResponse(c, "rules")
    }

    func getFault(_ c: Call) throws -> ResponseAction {
        let id = c.path("id")
        guard let r = double.faults.rule(id: id) else { throw notFound("fault rule", id) }
        return json(200, r)
    }

    func deleteFault(_ c: Call) throws -> ResponseAction {
        let id = c.path("id")
        guard double.faults.remove(id: id) else { throw notFound("fault rule", id) }
        return json(200, ["deleted": id])
    }

    /// Replaces a rule in place with the body (a rule; its `id` may be left out, or name a new
    /// id): same checks as `POST /faults`, counters start afresh.
    func putFault(_ c: Call) throws -> ResponseAction {
        let id = c.path("id")
        let rule = try decodeBody(FaultRule.self, Array(try objectBody(c, id: id).compactJSON.utf8))
        try double.check(rule: rule)
        let replaced: Bool
        do { replaced = try double.faults.replace(id: id, with: rule) } catch { throw Failure(409, "\(error)") }
        guard replaced else { throw notFound("fault rule", id) }
        return json(200, double.faults.rule(id: rule.id))
    }

    /// Body of `PATCH /faults/{id}`.
    private struct FaultSwitch: Decodable {
        var enabled: Bool
        enum CodingKeys: String, CodingKey, CaseIterable { case enabled }
        init(from decoder: Decoder) throws {
            try StrictKeys.check(decoder, allowed: CodingKeys.self)
            enabled = try decoder.container(keyedBy: CodingKeys.self).decode(Bool.self, forKey: .enabled)
        }
    }

    /// `{"enabled": false}` switches a rule off (it stays listed, matches nothing), `true` on
    /// again; the counters are kept.
    func patchFault(_ c: Call) throws -> ResponseAction {
        let id = c.path("id")
        let change = try decodeBody(FaultSwitch.self, c.request.body)
        guard double.faults.setEnabled(id: id, change.enabled) else { throw notFound("fault rule", id) }
        return json(200, double.faults.rule(id: id))
    }

    private struct ProviderDoc: Encodable { let provider: String; let world: WorldMode; let devices: Int }

    private func providerDoc(_ p: ProviderID) -> ProviderDoc {
        ProviderDoc(provider: p.rawValue, world: double.devices.world(for: p), devices: double.devices.list(provider: p).count)
    }

    func listProviders() throws -> ResponseAction { json(200, double.providers.map { providerDoc($0) }) }

    func setProvider(_ c: Call) throws -> ResponseAction {
        let p = ProviderID(rawValue: c.path("id"))
        try double.names.check(provider: p, field: "id")
        let options = try decodeBody(ProviderOptions.self, c.request.body)
        if let w = options.world { double.devices.setWorld(w, for: p) }
        return json(200, providerDoc(p))
    }

    private struct IndexDoc: Encodable {
        let name = "pushdouble admin API"
        let routes: [String]
        static let builtIn = ["GET /health", "GET /endpoints", "GET /providers", "PUT /providers/{id}", "GET /catalogue", "GET /history", "GET /history/stream",
                      "DELETE /history", "GET /devices", "POST /devices", "DELETE /devices", "GET /devices/{id}", "PUT /devices/{id}",
                      "DELETE /devices/{id}", "GET /faults", "POST /faults", "DELETE /faults", "GET /faults/{id}", "PUT /faults/{id}", "PATCH /faults/{id}", "DELETE /faults/{id}",
                      "GET /scenarios", "POST /scenarios", "GET /scenario/export", "POST /reset"]
    }

    struct HealthDoc: Encodable {
        /// `dropped` counts exchanges dropped by either cap; `bytes` is what the stored ones are charged.
        struct History: Encodable { let count: Int; let dropped: UInt64; let nextSeq: UInt64; let cap: Int; let bytes: Int; let maxBytes: Int }
        let status = "ok"
        let providers: [String]
        let devices: Int
        let faults: Int
        let scenarios: [String]
        let history: History
        /// Connections per listener: open now, refused at accept, shed to make room (docs/transport.md "Fairness and floods").
        let listeners: [Listener]
        struct Listener: Encodable { let name: String; let open: Int; let refused: Int; let shed: Int }
    }

    func health() -> HealthDoc {
        let h = double.history
        return HealthDoc(providers: double.providers.map(\.rawValue), devices: double.devices.list().count, faults: double.faults.list().count,
                         scenarios: double.loadedScenarios, history: .init(count: h.count, dropped: h.dropped, nextSeq: h.nextSeq, cap: h.cap,
                                                                      bytes: h.bytes, maxBytes: h.maxBytes),
                         listeners: listeners().map { .init(name: $0.listener.name, open: $0.openConnections,
                                                            refused: $0.refusedConnections, shed: $0.shedConnections) })
    }

    // MARK: helpers

    private func historyQuery(_ q: [(String, String)]) throws -> HistoryQuery {
        var out = HistoryQuery()
        func date(_ name: String, _ v: String) throws -> Date {
            if let d = DateFormats.parseISO8601(v) { return d }
            if let s = Double(v) { return Date(timeIntervalSince1970: s) }
            throw Failure(400, "\(name): expected an ISO 8601 date or seconds since the epoch")
        }
        for (k, v) in q {
            switch k {
            case "provider": out.provider = ProviderID(rawValue: v)
            case "device": out.device = v
            case "token": out.token = v
            case "endpoint":
                try double.names.check(endpoint: v, provider: out.provider ?? q.first { $0.0 == "provider" }.map { ProviderID(rawValue: $0.1) },
                                       also: DoublePipeline.transportEndpoints)
                out.endpoint = v
            case "since": out.since = try date(k, v)
            case "until": out.until = try date(k, v)
            case "after", "cursor":
                guard let n = UInt64(v) else { throw Failure(400, "\(k): expected a sequence number") }
                out.afterSeq = n
            case "limit":
                guard let n = Int(v), n >= 0 else { throw Failure(400, "limit: expected a non-negative integer") }
                out.limit = n
            case "format":
                guard v == "json" || v == "jsonl" else { throw Failure(400, "format: expected json or jsonl") }
            default: throw Failure(400, "unknown query parameter \"\(k)\"; expected provider, device, token, endpoint, since, until, after, cursor, limit, format")
            }
        }
        return out
    }

    /// 201 with the one created item when the request body was a single object, else the list.
    private func createdResponse<T: Encodable>(_ items: [T], requestBody: [UInt8]) -> ResponseAction {
        json(201, items.count == 1 && !isArray(requestBody) ? AnyEncodable(items[0]) : AnyEncodable(items))
    }

    /// 200 naming what a reset deleted: everything, or every `noun` of the `?provider=` filter.
    private func resetResponse(_ c: Call, _ noun: String) -> ResponseAction {
        json(200, ["deleted": c.provider.map { "all \($0) \(noun)" } ?? "all"])
    }

    /// The body of a `PUT /…/{id}`: a JSON object, with `"id": id` added when it names none.
    private func objectBody(_ c: Call, id: String) throws -> JSONValue {
        let value = try decodeBody(JSONValue.self, c.request.body)
        guard case .object(var members) = value else { throw Failure(400, "expected a JSON object") }
        if value["id"] != nil { return value }
        members.append(("id", .string(id)))
        return .object(members)
    }

    /// 404 for an unknown `what` (device, fault rule) id.
    private func notFound(_ what: String, _ id: String) -> Failure {
        Failure(404, "no \(what) with id \"\(id)\"")
    }

    private func isArray(_ body: [UInt8]) -> Bool {
        body.first { $0 != 0x20 && $0 != 0x0a && $0 != 0x0d && $0 != 0x09 } == UInt8(ascii: "[")
    }

    private func decodeOneOrMany<T: Decodable>(_ type: T.Type, _ body: [UInt8]) throws -> [T] {
        isArray(body) ? try decodeBody([T].self, body) : [try decodeBody(T.self, body)]
    }

    private func decodeBody<T: Decodable>(_ type: T.Type, _ body: [UInt8]) throws -> T {
        guard !body.isEmpty else { throw Failure(400, "expected a JSON body") }
        do { return try JSONDecoder().decode(T.self, from: Data(body)) } catch let e as DecodingError {
            let se = ScenarioLoader.describe(e, file: "body", data: body)
            throw Failure(400, se.path.isEmpty ? se.message : se.path + ": " + se.message)
        } catch {
            throw Failure(400, ScenarioLoader.unreadable(body))
        }
    }

    func json<T: Encodable>(_ status: Int, _ value: T) -> ResponseAction {
        let body = (try? ExchangeEncoding.makeEncoder().encode(value)).map { Array($0) + [0x0a] } ?? Array("{}\n".utf8)
        return .respond(HTTPResponse(status: status, headers: ["content-type": "application/json"], body: body))
    }

    static func error(_ status: Int, _ message: String, unknown: UnknownName? = nil) -> HTTPResponse {
        var members: [(String, JSONValue)] = [("error", .string(message))]
        if let unknown {
            members += [("field", .string(unknown.field)), ("value", .string(unknown.value)), ("valid", .array(unknown.valid.map { .string($0) }))]
        }
        return HTTPResponse(status: status, contentType: "application/json", body: JSONValue.object(members).compactJSON + "\n")
    }
}

/// Type-erased Encodable for responses that are one object or a list.
struct AnyEncodable: Encodable {
    let encodeFn: (Encoder) throws -> Void
    init<T: Encodable>(_ value: T) { encodeFn = value.encode }
    func encode(to encoder: Encoder) throws { try encodeFn(encoder) }
}
