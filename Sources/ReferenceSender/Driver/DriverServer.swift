import Foundation

/// The server side of driver protocol v1 (docs/conformance.md "Driver protocol v1"):
/// JSON-RPC 2.0, one request per stdin line, one reply per stdout line, handled in order.
/// Logs go to stderr. It names no provider: `initialize` asks every registered
/// ``SenderProvider`` (``SenderProviders``) to configure itself, `send` hands each provider
/// the devices and targets addressed to it.
///
/// Threading: `run()` handles one request at a time; a `send` fans out to concurrent
/// tasks inside each provider's sender.
final class DriverServer {
    static let name = "pushdouble-reference-sender"
    static let version = "1.0.0"

    let context: SenderContext
    var mutant: MutantSet { context.mutant }
    /// Scripted test mode (`--scripted-<id>`): a provider's in-memory service and virtual time.
    var scripted: (any ScriptedMode)? { context.scripted }
    /// The providers `initialize` configured, in registry order.
    private var configured: [any SenderProvider] = []
    private var initialized = false
    /// Device id → when `register` said the app registered it again (the sender's clock);
    /// later sends give the device that `registeredAt` unless it carries its own.
    private var registered: [String: Double] = [:]

    init(mutant: MutantSet, variant: Variant? = nil, seed: UInt64? = nil, environment: [String: String], scripted: (any ScriptedMode)?) {
        context = SenderContext(environment: environment, mutant: mutant, variant: variant, seed: seed, scripted: scripted)
    }

    /// The configured provider of that type, if any (the scripted test mode reads its sender).
    func provider<P: SenderProvider>(_ type: P.Type) -> P? { configured.lazy.compactMap { $0 as? P }.first }

    /// Serves until `shutdown` or end of input; returns the exit status.
    func run() async -> Int32 {
        for await event in LineReader.lines() {
            switch event {
            case .tooLong:
                reply(id: .null, error: .invalidRequest("line longer than \(LineReader.maxLineBytes) bytes"))
            case .line(let bytes):
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
                if await handle(line: bytes) == .exit {
                    await shutdownProviders()
                    return 0
                }
            }
        }
        await shutdownProviders()
        return 0
    }

    enum Continuation { case keepGoing, exit }

    func handle(line: [UInt8]) async -> Continuation {
        let message: JSON
        do {
            message = try JSON.parse(line)
        } catch {
            reply(id: .null, error: .parse(error.description))
            return .keepGoing
        }
        guard let obj = message.objectValue else {
            reply(id: .null, error: .invalidRequest(message.arrayValue != nil ? "batches are not supported" : "expected an object"))
            return .keepGoing
        }
        // The id, if usable, is echoed even on errors; a missing id makes a notification.
        let id = obj["id"]
        let validId = id.map { v -> Bool in
            switch v { case .string, .int, .double, .null: return true; default: return false }
        } ?? true
        guard validId else {
            reply(id: .null, error: .invalidRequest("id must be a string, a number or null"))
            return .keepGoing
        }
        guard obj["jsonrpc"]?.stringValue == "2.0" else {
            reply(id: id ?? .null, error: .invalidRequest("jsonrpc must be \"2.0\""))
            return .keepGoing
        }
        guard let method = obj["method"]?.stringValue else {
            reply(id: id ?? .null, error: .invalidRequest("method must be a string"))
            return .keepGoing
        }
        let params = obj["params"] ?? .object(JSONObject())
        guard params.objectValue != nil || params.arrayValue != nil else {
            if let id { reply(id: id, error: .invalidRequest("params must be an object or an array")) }
            return .keepGoing
        }
        do {
            let result = try await dispatch(method: method, params: params)
            if let id { reply(id: id, result: result) }
        } catch {
            if let id { reply(id: id, error: error) }
        }
        return method == "shutdown" ? .exit : .keepGoing
    }

    private func dispatch(method: String, params: JSON) async throws(DriverError) -> JSON {
        switch method {
        case "initialize": return try initialize(params)
        case "send": return try await send(params)
        case "settle":
            var changed: [DeviceResult] = []
            for p in configured { changed += await p.settle() }
            return .object(["results": .array(changed.map(\.json))])
        case "register" where features.contains("register"):
            guard let list = params["devices"]?.arrayValue else { throw .invalidParams("devices must be an array") }
            let now = context.clock.now()
            for (i, d) in list.enumerated() { registered[try TargetDevice(json: d, index: i).id] = now }
            return .object(JSONObject())
        case "subscribe" where features.contains("subscribe"): return try await subscribe(params)
        case "broadcast" where features.contains("broadcast"): return try await broadcast(params)
        case "shutdown": return .object(JSONObject())
        default:
            if method.hasPrefix("test/"), let scripted { return try await scripted.handle(method: method, params: params, server: self) }
            throw .methodNotFound(method)
        }
    }

    // MARK: initialize

    private func initialize(_ params: JSON) throws(DriverError) -> JSON {
        if let v = params["protocolVersion"], !v.isNull, v.intValue != 1 {
            throw .invalidParams("protocolVersion \(v.text) is not supported (this sender speaks 1)")
        }
        let old = configured
        configured = []
        initialized = true
        if !old.isEmpty { Task { for p in old { await p.shutdown() } } }
        for type in SenderProviders.all {
            if let p = try type.configure(params["providers"]?[type.id]?.jsonObject, context: context) { configured.append(p) }
        }
        if configured.isEmpty {
            let names = SenderProviders.all.map { $0.id }.joined(separator: ", ")
            Log.info("initialize: no \(names) configuration (params or environment); no provider enabled")
        }
        return initializeResult(providers: configured.map { type(of: $0) })
    }

    /// The optional driver-protocol features this sender declares: `registeredAt` (the
    /// default), `register` instead (the `register-call` variant), none (`v1-no-features`);
    /// and `certificate` (APNs `certFile`), `subscribe` (FCM topic subscriptions), `declarative`
    /// (declarative Web Push) and `broadcast` (APNs Live Activity broadcasts) but in `v1-no-features`.
    var features: [String] {
        switch context.variant {
        case .v1NoFeatures?: return []
        case .registerCall?: return ["register", "certificate", "subscribe", "declarative", "broadcast"]
        default: return ["registeredAt", "certificate", "subscribe", "declarative", "broadcast"]
        }
    }

    /// `providers` in registry order; `targets` lists the non-device recipient kinds the
    /// configured providers send to (FCM topics and conditions), when there are any;
    /// `features` the optional protocol features it implements.
    func initializeResult(providers: [any SenderProvider.Type]) -> JSON {
        var o: JSONObject = ["name": .string(Self.name), "version": .string(Self.version), "providers": .array(providers.map { .string($0.id) })]
        let kinds = context.variant == .v1NoFeatures ? [] : providers.flatMap { $0.targetKinds }
        if !kinds.isEmpty { o["targets"] = .array(kinds.map(JSON.string)) }
        if !features.isEmpty { o["features"] = .array(features.map(JSON.string)) }
        var fields = JSONObject()
        for p in providers { if let f = p.expressibleFields(variant: context.variant) { fields[p.id] = .array(f.map(JSON.string)) } }
        if !fields.isEmpty { o["fields"] = .object(fields) }
        return .object(o)
    }

    private func shutdownProviders() async {
        for p in configured { await p.shutdown() }
    }

    // MARK: send

    private func send(_ params: JSON) async throws(DriverError) -> JSON {
        if !initialized {
            // Adapters may skip initialize and rely on the environment alone.
            _ = try initialize(.object(JSONObject()))
        }
        guard let n = params["notification"] else { throw .invalidParams("notification is required") }
        let notification = try NeutralNotification(json: n)
        guard let list = params["devices"]?.arrayValue else { throw .invalidParams("devices must be an array") }
        var devices: [DriverDevice] = []
        devices.reserveCapacity(list.count)
        for (i, d) in list.enumerated() {
            var device = try TargetDevice(json: d, index: i)
            if !features.contains("registeredAt") { device.registeredAt = registered[device.id] }
            devices.append(DriverDevice(device: device, json: d))
        }
        var targets: [SendTarget] = []
        if let t = params["targets"], !t.isNull {
            guard let tl = t.arrayValue else { throw .invalidParams("targets must be an array") }
            for (i, x) in tl.enumerated() { targets.append(try SendTarget(json: x, index: i)) }
        }
        // Unknown providers, and registered ones `initialize` did not configure, are skipped;
        // a target for a provider that sends to no targets is rejected.
        var results: [DeviceResult] = devices.map { d in
            let known = SenderProviders.all.contains { $0.id == d.device.provider }
            return DeviceResult(device: d.device.id, outcome: .skipped, reason: known ? "ProviderNotConfigured" : "UnsupportedProvider")
        }
        var targetResults: [DeviceResult] = targets.map { t in
            let type = SenderProviders.all.first { $0.id == t.provider }
            guard let type, !type.targetKinds.isEmpty else { return DeviceResult(device: t.id, outcome: .rejected, reason: "UnsupportedTarget") }
            return DeviceResult(device: t.id, outcome: .skipped, reason: "ProviderNotConfigured")
        }
        // Each configured provider gets its devices and targets; results in the request's order.
        for p in configured {
            let id = type(of: p).id
            let di = devices.indices.filter { devices[$0].device.provider == id }
            let ti = type(of: p).targetKinds.isEmpty ? [] : targets.indices.filter { targets[$0].provider == id }
            guard !di.isEmpty || !ti.isEmpty else { continue }
            let r = await p.send(notification, to: di.map { devices[$0] }, targets: ti.map { targets[$0] })
            for (k, i) in di.enumerated() { results[i] = r[k] }
            for (k, i) in ti.enumerated() { targetResults[i] = r[di.count + k] }
        }
        return .object(["results": .array(results.map(\.json) + targetResults.map(\.json))])
    }

    // MARK: subscribe

    /// `{"topic", "devices"}` → each configured provider subscribes its devices; one result per
    /// device in the request's order (`skipped` for a provider without subscriptions).
    private func subscribe(_ params: JSON) async throws(DriverError) -> JSON {
        guard let topic = params["topic"]?.stringValue, !topic.isEmpty else { throw .invalidParams("topic is required") }
        guard let list = params["devices"]?.arrayValue else { throw .invalidParams("devices must be an array") }
        var devices: [TargetDevice] = []
        for (i, d) in list.enumerated() { devices.append(try TargetDevice(json: d, index: i)) }
        var results = devices.map { DeviceResult(device: $0.id, outcome: .skipped, reason: "ProviderNotConfigured") }
        for p in configured {
            let di = devices.indices.filter { devices[$0].provider == type(of: p).id }
            guard !di.isEmpty, let r = await p.subscribe(topic: topic, devices: di.map { devices[$0] }) else { continue }
            for (k, i) in di.enumerated() where k < r.count { results[i] = r[k] }
        }
        return .object(["results": .array(results.map(\.json))])
    }

    /// `broadcast`: the provider named by `params.provider` (APNs) sends it; one result.
    private func broadcast(_ params: JSON) async throws(DriverError) -> JSON {
        let provider = params["provider"]?.stringValue ?? "apns"
        let name = params["channel"]?.stringValue ?? ""
        var result = DeviceResult(device: name, outcome: .skipped, reason: "ProviderNotConfigured")
        for p in configured where type(of: p).id == provider {
            if let r = try await p.broadcast(params) { result = r }
        }
        return .object(["results": .array([result.json])])
    }

    // MARK: replies

    private func reply(id: JSON, result: JSON) {
        StdoutWriter.writeLine(JSON.object(["jsonrpc": .string("2.0"), "id": id, "result": result]).bytes)
    }

    private func reply(id: JSON, error: DriverError) {
        let e: JSONObject = ["code": .int(error.code), "message": .string(error.message)]
        StdoutWriter.writeLine(JSON.object(["jsonrpc": .string("2.0"), "id": id, "error": .object(e)]).bytes)
    }
}
