import Foundation
import PushDoubleTransport

/// One listening endpoint of a running double, as `GET /endpoints` reports it.
public struct DoubleEndpoint: Sendable, Codable, Equatable {
    /// Listener name ("admin", "apns-production", …).
    public var name: String
    /// The provider served, nil for the admin API.
    public var provider: ProviderID?
    /// "production" / "sandbox" where it matters.
    public var environment: String?
    public var url: String
    public var host: String
    public var port: Int
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
/// `GET|DELETE /faults/{id}`, `GET /providers`, `PUT /providers/{id}`, `POST /scenarios`,
/// `POST /reset`. Errors are `{"error":"…"}` with a 4xx status.
public final class AdminAPI: Responder {
    public let double: DoubleState
    private let endpoints: @Sendable () -> [DoubleEndpoint]
    /// Called after a scenario was loaded through the API (e.g. to log it).
    private let onScenarioLoaded: (@Sendable (Scenario) -> Void)?
    /// Seconds between keep-alive comments on `/history/stream`.
    public let streamHeartbeat: Double

    public init(double: DoubleState, endpoints: @escaping @Sendable () -> [DoubleEndpoint] = { [] },
                streamHeartbeat: Double = 15, onScenarioLoaded: (@Sendable (Scenario) -> Void)? = nil) {
        self.double = double
        self.streamHeartbeat = streamHeartbeat
        self.endpoints = endpoints
        self.onScenarioLoaded = onScenarioLoaded
    }

    /// A failed admin request: status plus message, rendered as `{"error":"…"}`.
    struct Failure: Error {
        var status: Int
        var message: String
        init(_ status: Int, _ message: String) { self.status = status; self.message = message }
    }

    public func respond(to request: HTTPRequest, context: RequestContext) -> ResponseAction {
        do {
            return try route(request)
        } catch let f as Failure {
            return .respond(Self.error(f.status, f.message))
        } catch {
            return .respond(Self.error(500, "\(error)"))
        }
    }

    // MARK: routing

    private func route(_ request: HTTPRequest) throws -> ResponseAction {
        let path = String(request.pathWithoutQuery)
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map { QueryString.decode($0) }
        let query = QueryString.parse(request.query)
        let method = request.method
        func param(_ name: String) -> String? { query.last { $0.0 == name }?.1 }
        func only(_ allowed: String...) throws {
            if !allowed.contains(method) { throw Failure(405, "method \(method) not allowed on \(path); allowed: \(allowed.joined(separator: ", "))") }
        }

        switch segments.first {
        case nil:
            try only("GET")
            return json(200, IndexDoc())
        case "health":
            try only("GET")
            return json(200, health())
        case "endpoints":
            try only("GET")
            return json(200, endpoints())
        case "history" where segments.count == 1:
            try only("GET", "DELETE")
            if method == "DELETE" {
                if let p = param("provider") { double.history.clear(provider: ProviderID(rawValue: p)) } else { double.history.clear() }
                return json(200, ["cleared": true])
            }
            let q = try historyQuery(query)
            let exchanges = double.history.query(q)
            if param("format") == "jsonl" {
                var h = HTTPHeaders()
                h.add(name: "content-type", value: "application/x-ndjson")
                h.add(name: "x-pushdouble-dropped", value: String(double.history.dropped))
                return .respond(HTTPResponse(status: 200, headers: h, body: ExchangeEncoding.jsonLines(exchanges)))
            }
            return .respond(HTTPResponse(status: 200, headers: ["content-type": "application/json"],
                                         body: ExchangeEncoding.document(exchanges, dropped: double.history.dropped, nextSeq: double.history.nextSeq)))
        case "history" where segments.count == 2 && segments[1] == "stream":
            try only("GET")
            var q = try historyQuery(query)
            if q.afterSeq == nil, let last = request.headers["last-event-id"], let n = UInt64(last) { q.afterSeq = n }
            var h = HTTPHeaders()
            h.add(name: "content-type", value: "text/event-stream")
            h.add(name: "cache-control", value: "no-cache")
            return .stream(HTTPResponse(status: 200, headers: h), source: HistoryEventStream(history: double.history, query: q, heartbeat: streamHeartbeat))
        case "devices":
            return try devices(method, segments, param, request)
        case "faults":
            return try faults(method, segments, param, request)
        case "providers":
            return try providers(method, segments, request)
        case "scenarios" where segments.count == 1:
            try only("POST")
            let scenario: Scenario
            do { scenario = try ScenarioLoader.decode(Data(request.body), file: param("name") ?? "request body") } catch let e as ScenarioError {
                throw Failure(400, e.description)
            }
            do { try double.load(scenario, merge: param("merge") == "true") } catch {
                throw Failure(409, "\(error)")
            }
            onScenarioLoaded?(scenario)
            return json(201, ["loaded": scenario.id, "devices": String(scenario.devices.count), "rules": String(scenario.rules.count)])
        case "reset" where segments.count == 1:
            try only("POST")
            let p = param("provider").map { ProviderID(rawValue: $0) }
            double.reset(provider: p)
            return json(200, ["reset": p?.rawValue ?? "all"])
        default:
            throw Failure(404, "no such endpoint: \(method) \(path)")
        }
    }

    // MARK: resources

    private func devices(_ method: String, _ seg: [String], _ param: (String) -> String?, _ request: HTTPRequest) throws -> ResponseAction {
        if seg.count == 1 {
            switch method {
            case "GET":
                return json(200, double.devices.list(provider: param("provider").map { ProviderID(rawValue: $0) }))
            case "POST":
                let list = try decodeOneOrMany(Device.self, request.body)
                var created: [Device] = []
                for d in list {
                    do { created.append(try double.devices.register(d)) } catch { throw Failure(409, "\(error)") }
                }
                return json(201, created.count == 1 && !isArray(request.body) ? AnyEncodable(created[0]) : AnyEncodable(created))
            case "DELETE":
                double.devices.reset(provider: param("provider").map { ProviderID(rawValue: $0) })
                return json(200, ["deleted": "all"])
            default: throw Failure(405, "method \(method) not allowed on /devices; allowed: GET, POST, DELETE")
            }
        }
        guard seg.count == 2 else { throw Failure(404, "no such endpoint: /" + seg.joined(separator: "/")) }
        let id = seg[1]
        switch method {
        case "GET":
            guard let d = double.devices.device(id: id) else { throw Failure(404, "no device with id \"\(id)\"") }
            return json(200, d)
        case "PUT":
            var value = try decodeBody(JSONValue.self, request.body)
            guard case .object(var members) = value else { throw Failure(400, "expected a JSON object") }
            if let given = value["id"] {
                guard given == .string(id) else { throw Failure(400, "id: must match the path (\"\(id)\")") }
            } else {
                members.append(("id", .string(id)))
                value = .object(members)
            }
            let device = try decodeBody(Device.self, Array(value.compactJSON.utf8))
            do { return json(200, try double.devices.upsert(device)) } catch { throw Failure(409, "\(error)") }
        case "DELETE":
            guard double.devices.remove(id: id) else { throw Failure(404, "no device with id \"\(id)\"") }
            return json(200, ["deleted": id])
        default: throw Failure(405, "method \(method) not allowed on /devices/{id}; allowed: GET, PUT, DELETE")
        }
    }

    private func faults(_ method: String, _ seg: [String], _ param: (String) -> String?, _ request: HTTPRequest) throws -> ResponseAction {
        if seg.count == 1 {
            switch method {
            case "GET": return json(200, double.faults.list())
            case "POST":
                let rules = try decodeOneOrMany(FaultRule.self, request.body)
                do { try double.faults.add(contentsOf: rules) } catch { throw Failure(409, "\(error)") }
                let added = rules.compactMap { double.faults.rule(id: $0.id) }
                return json(201, rules.count == 1 && !isArray(request.body) ? AnyEncodable(added[0]) : AnyEncodable(added))
            case "DELETE":
                double.faults.reset(provider: param("provider").map { ProviderID(rawValue: $0) })
                return json(200, ["deleted": "all"])
            default: throw Failure(405, "method \(method) not allowed on /faults; allowed: GET, POST, DELETE")
            }
        }
        guard seg.count == 2 else { throw Failure(404, "no such endpoint: /" + seg.joined(separator: "/")) }
        let id = seg[1]
        switch method {
        case "GET":
            guard let r = double.faults.rule(id: id) else { throw Failure(404, "no fault rule with id \"\(id)\"") }
            return json(200, r)
        case "DELETE":
            guard double.faults.remove(id: id) else { throw Failure(404, "no fault rule with id \"\(id)\"") }
            return json(200, ["deleted": id])
        default: throw Failure(405, "method \(method) not allowed on /faults/{id}; allowed: GET, DELETE")
        }
    }

    private struct ProviderDoc: Encodable { let provider: String; let world: WorldMode; let devices: Int }

    private func providers(_ method: String, _ seg: [String], _ request: HTTPRequest) throws -> ResponseAction {
        if seg.count == 1 {
            guard method == "GET" else { throw Failure(405, "method \(method) not allowed on /providers; allowed: GET") }
            return json(200, double.providers.map { ProviderDoc(provider: $0.rawValue, world: double.devices.world(for: $0), devices: double.devices.list(provider: $0).count) })
        }
        guard seg.count == 2 else { throw Failure(404, "no such endpoint: /" + seg.joined(separator: "/")) }
        guard method == "PUT" else { throw Failure(405, "method \(method) not allowed on /providers/{id}; allowed: PUT") }
        let p = ProviderID(rawValue: seg[1])
        let options = try decodeBody(ProviderOptions.self, request.body)
        if let w = options.world { double.devices.setWorld(w, for: p) }
        return json(200, ProviderDoc(provider: p.rawValue, world: double.devices.world(for: p), devices: double.devices.list(provider: p).count))
    }

    private struct IndexDoc: Encodable {
        let name = "pushdouble admin API"
        let routes = ["GET /health", "GET /endpoints", "GET /providers", "PUT /providers/{id}", "GET /history", "GET /history/stream",
                      "DELETE /history", "GET /devices", "POST /devices", "DELETE /devices", "GET /devices/{id}", "PUT /devices/{id}",
                      "DELETE /devices/{id}", "GET /faults", "POST /faults", "DELETE /faults", "GET /faults/{id}", "DELETE /faults/{id}",
                      "POST /scenarios", "POST /reset"]
    }

    private struct HealthDoc: Encodable {
        struct History: Encodable { let count: Int; let dropped: UInt64; let nextSeq: UInt64; let cap: Int }
        let status = "ok"
        let providers: [String]
        let devices: Int
        let faults: Int
        let scenarios: [String]
        let history: History
    }

    private func health() -> HealthDoc {
        let h = double.history
        return HealthDoc(providers: double.providers.map(\.rawValue), devices: double.devices.list().count, faults: double.faults.list().count,
                         scenarios: double.loadedScenarios, history: .init(count: h.count, dropped: h.dropped, nextSeq: h.nextSeq, cap: h.cap))
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
            case "endpoint": out.endpoint = v
            case "since": out.since = try date(k, v)
            case "until": out.until = try date(k, v)
            case "after":
                guard let n = UInt64(v) else { throw Failure(400, "after: expected a sequence number") }
                out.afterSeq = n
            case "limit":
                guard let n = Int(v), n >= 0 else { throw Failure(400, "limit: expected a non-negative integer") }
                out.limit = n
            case "format":
                guard v == "json" || v == "jsonl" else { throw Failure(400, "format: expected json or jsonl") }
            default: throw Failure(400, "unknown query parameter \"\(k)\"; expected provider, device, token, endpoint, since, until, after, limit, format")
            }
        }
        return out
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
            let se = ScenarioLoader.describe(e, file: "body")
            throw Failure(400, se.path.isEmpty ? se.message : se.path + ": " + se.message)
        } catch {
            throw Failure(400, "not valid JSON")
        }
    }

    private func json<T: Encodable>(_ status: Int, _ value: T) -> ResponseAction {
        let body = (try? ExchangeEncoding.makeEncoder().encode(value)).map { Array($0) + [0x0a] } ?? Array("{}\n".utf8)
        return .respond(HTTPResponse(status: status, headers: ["content-type": "application/json"], body: body))
    }

    static func error(_ status: Int, _ message: String) -> HTTPResponse {
        var s = "{\"error\":"
        JSONValue.writeString(message, into: &s)
        s += "}\n"
        return HTTPResponse(status: status, contentType: "application/json", body: s)
    }
}

/// Type-erased Encodable for responses that are one object or a list.
struct AnyEncodable: Encodable {
    let encodeFn: (Encoder) throws -> Void
    init<T: Encodable>(_ value: T) { encodeFn = value.encode }
    func encode(to encoder: Encoder) throws { try encodeFn(encoder) }
}
