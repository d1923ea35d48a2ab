import Foundation
import Synchronization

/// Test mode (`--scripted-apns`, offered through `APNsSenderProvider.scriptedMode()`): an in-memory APNs with scripted answers and virtual
/// time, so the sender's whole logic (retries, backoff, JWT reuse, dead tokens, GOAWAY
/// handling, mutants) can be tested through the process with no network and no waiting.
///
/// Extra JSON-RPC methods, only in this mode:
/// - `test/script` `{"rules":[rule…]}`: appends answer rules. A rule matches by `token`
///   (omitted = any) and is used `times` times (default 1, `-1` = always). It answers
///   `status` (default 200) with `{"reason"}` and `headers`, or fails with `error`:
///   `goAway` (not processed; the connection gets GOAWAY), `refusedStream`,
///   `connectionClosed` (outcome unknown; the connection dies), `timeout`,
///   `connectFailed` (the next connect fails). `delayMs` delays the answer (real time).
/// - `test/requests`: every request received, in order, with its connection id,
///   virtual time, headers, payload and decoded JWT.
/// - `test/sleeps`: every backoff sleep the sender asked for, in seconds.
/// - `test/advanceClock` `{"seconds"}`: moves virtual time.
/// - `test/plan` `{"notification","device"}`: the request the sender would build.
/// - `test/stats`: connections opened, JWTs minted, dead tokens.
final class ScriptedAPNs: ScriptedMode {
    struct Rule: Sendable {
        var token: String?
        var remaining: Int
        var status: Int
        var reason: String?
        var headers: [(name: String, value: String)]
        var error: String?
        var delayMs: Int
    }

    struct Recorded: Sendable {
        var connection: Int
        var time: Double
        var request: WireRequest
        var status: Int?
        var error: String?
    }

    private struct State {
        var rules: [Rule] = []
        var requests: [Recorded] = []
        var nextConnection = 1
        var failConnects = 0
    }

    private let state = Mutex(State())
    let clock: VirtualSenderClock
    var connector: any PushConnector { Connector(server: self) }

    init(startTime: Double = 1_800_000_000) { clock = VirtualSenderClock(start: startTime) }

    private struct Connector: PushConnector {
        let server: ScriptedAPNs
        func connect(to endpoint: HTTPSEndpoint) async -> Result<any PushConnection, TransportFailure> {
            server.connect()
        }
    }

    private func connect() -> Result<any PushConnection, TransportFailure> {
        state.withLock { s in
            if s.failConnects > 0 {
                s.failConnects -= 1
                return .failure(.connectFailed("scripted connect failure"))
            }
            let id = s.nextConnection
            s.nextConnection += 1
            return .success(Connection(id: id, server: self))
        }
    }

    /// One scripted connection.
    final class Connection: PushConnection {
        let connectionID: Int
        let server: ScriptedAPNs
        private let flags = Mutex<(usable: Bool, goAway: Bool)>((true, false))
        private let inFlight = Mutex(0)

        init(id: Int, server: ScriptedAPNs) { connectionID = id; self.server = server }
        var isUsable: Bool { flags.withLock { $0.usable } }
        var receivedGoAway: Bool { flags.withLock { $0.goAway } }
        var hasSendsInFlight: Bool { inFlight.withLock { $0 > 0 } }
        func close() async { flags.withLock { $0.usable = false } }
        func markGoAway() { flags.withLock { $0 = (false, true) } }
        func markDead() { flags.withLock { $0.usable = false } }

        func send(_ request: WireRequest) async -> AttemptResult {
            guard isUsable else { return .failure(.notProcessed("connection already closed")) }
            inFlight.withLock { $0 += 1 }
            defer { inFlight.withLock { $0 -= 1 } }
            return await server.answer(request, on: self)
        }
    }

    private func answer(_ request: WireRequest, on connection: Connection) async -> AttemptResult {
        let token = String(request.path.dropFirst(APNs.devicePathPrefix.count))
        let rule: Rule? = state.withLock { s in
            guard let i = s.rules.firstIndex(where: { ($0.token == nil || $0.token == token) && $0.remaining != 0 }) else { return nil }
            if s.rules[i].remaining > 0 { s.rules[i].remaining -= 1 }
            return s.rules[i]
        }
        if let delay = rule?.delayMs, delay > 0 { try? await Task.sleep(nanoseconds: UInt64(delay) * 1_000_000) }
        let now = clock.now()
        var record = Recorded(connection: connection.connectionID, time: now, request: request)
        let result: AttemptResult
        let apnsId = request.headers.first(where: { $0.name == APNs.Header.id })?.value ?? APNsRequestBuilder.newApnsId()
        switch rule?.error {
        case "goAway"?:
            connection.markGoAway()
            result = .failure(.notProcessed("GOAWAY"))
        case "refusedStream"?:
            result = .failure(.notProcessed("REFUSED_STREAM"))
        case "connectionClosed"?:
            connection.markDead()
            result = .failure(.outcomeUnknown("connection closed"))
        case "timeout"?:
            result = .failure(.outcomeUnknown("timeout"))
        default:
            let status = rule?.status ?? 200
            var headers: [(name: String, value: String)] = [(APNs.Header.id, apnsId)]
            headers.append(contentsOf: rule?.headers ?? [])
            var body: [UInt8] = []
            if let reason = rule?.reason {
                var o: JSONObject = ["reason": .string(reason)]
                if status == 410 { o["timestamp"] = .int64(Int64(now * 1000)) }
                body = JSON.object(o).bytes
            }
            result = .response(WireResponse(status: status, headers: headers, body: body))
            record.status = status
        }
        if case .failure(let f) = result { record.error = f.reason }
        state.withLock { $0.requests.append(record) }
        return result
    }

    // MARK: JSON-RPC

    func handle(method: String, params: JSON, server: DriverServer) async throws(DriverError) -> JSON {
        switch method {
        case "test/script":
            guard let list = params["rules"]?.arrayValue else { throw .invalidParams("rules must be an array") }
            var rules: [Rule] = []
            for r in list {
                guard let o = r.objectValue else { throw .invalidParams("a rule must be an object") }
                if o["error"]?.stringValue == "connectFailed" {
                    state.withLock { $0.failConnects += o["times"]?.int ?? 1 }
                    continue
                }
                var headers: [(name: String, value: String)] = []
                for m in o["headers"]?.objectValue ?? [] {
                    headers.append((m.0.lowercased(), m.1.stringValue ?? m.1.text))
                }
                rules.append(Rule(token: o["token"]?.stringValue, remaining: o["times"]?.int ?? 1,
                                  status: o["status"]?.int ?? 200, reason: o["reason"]?.stringValue,
                                  headers: headers, error: o["error"]?.stringValue, delayMs: o["delayMs"]?.int ?? 0))
            }
            state.withLock { $0.rules.append(contentsOf: rules) }
            return .object(["rules": .int(rules.count)])
        case "test/requests":
            let list = state.withLock { $0.requests }
            return .object(["requests": .array(list.map(Self.json))])
        case "test/sleeps":
            return .object(["sleeps": .array(clock.sleeps.map { .double($0) })])
        case "test/advanceClock":
            guard let s = params["seconds"]?.doubleValue else { throw .invalidParams("seconds must be a number") }
            clock.advance(by: s)
            return .object(["now": .double(clock.now())])
        case "test/plan":
            guard let n = params["notification"], let d = params["device"] else { throw .invalidParams("notification and device are required") }
            let notification = try NeutralNotification(json: n)
            let device = try TargetDevice(json: d, index: 0)
            let plan = APNsRequestBuilder(mutant: server.mutant).plan(
                notification, device: device, defaultTopic: params["defaultTopic"]?.stringValue,
                now: Int64(clock.now()), apnsId: APNsRequestBuilder.newApnsId())
            switch plan {
            case .rejected(let reason):
                return .object(["rejected": .string(reason)])
            case .unusableToken(let reason):
                return .object(["dead": .string(reason)])
            case .push(let p):
                var h = JSONObject()
                for f in p.headers { h[f.name] = .string(f.value) }
                return .object(["path": .string(p.path), "headers": .object(h),
                                "payload": (try? JSON.parse(p.body)) ?? .null, "size": .int(p.body.count)])
            }
        case "test/stats":
            guard let sender = server.provider(APNsSenderProvider.self)?.sender else { throw .notInitialized }
            let opened = await sender.pool.opened
            return .object(["connectionsOpened": .int(opened), "jwtMints": .int(sender.tokens.mintCount),
                            "deadTokens": .int(sender.dead.count)])
        default:
            throw .methodNotFound(method)
        }
    }

    private static func json(_ r: Recorded) -> JSON {
        var headers = JSONObject()
        var duplicates: [JSON] = []
        for f in r.request.headers {
            if headers[f.name] != nil { duplicates.append(.string(f.name)) }
            headers[f.name] = .string(f.value)
        }
        var o: JSONObject = [
            "connection": .int(r.connection), "time": .double(r.time),
            "path": .string(r.request.path), "authority": .string(r.request.authority),
            "headers": .object(headers), "duplicateHeaders": .array(duplicates),
            "payload": (try? JSON.parse(r.request.body)) ?? .null, "size": .int(r.request.body.count),
        ]
        if let auth = headers["authorization"]?.stringValue, auth.hasPrefix("bearer ") {
            let parts = auth.dropFirst(7).split(separator: ".", omittingEmptySubsequences: false)
            if parts.count == 3, let h = LooseBase64URL.decode(String(parts[0])), let c = LooseBase64URL.decode(String(parts[1])) {
                o["jwt"] = .object(["header": (try? JSON.parse(h)) ?? .null, "claims": (try? JSON.parse(c)) ?? .null,
                                    "signatureBytes": .int(LooseBase64URL.decode(String(parts[2]))?.count ?? -1)])
            }
        }
        if let s = r.status { o["status"] = .int(s) }
        if let e = r.error { o["error"] = .string(e) }
        return .object(o)
    }
}

/// base64url without padding (RFC 4648 §5), for reading JWT parts in test mode.
enum LooseBase64URL {
    static func decode(_ s: String) -> [UInt8]? {
        var b = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b.count % 4 != 0 { b.append("=") }
        return Data(base64Encoded: b).map { [UInt8]($0) }
    }
}
