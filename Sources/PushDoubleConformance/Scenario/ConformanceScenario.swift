import Foundation
import PushDoubleCore

/// The conformance runner's view of one scenario file: identity, the devices as the
/// sender is told about them, the steps to drive and the checks to judge.
///
/// The same file also carries the fake-side parts (device states, faults, quotas, world,
/// seed) that PushDoubleCore's scenario loader reads; this type ignores them except for
/// what the sender must be told.
public struct ConformanceScenario: Sendable {
    /// Stable case id, e.g. "apns.unregistered". Never changes meaning once shipped.
    public var id: String
    public var title: String
    /// Spec references this case enforces (e.g. "A1", "G4", "apns.md §7.2").
    public var references: [String]
    public var devices: [ScenarioDevice]
    /// Whether a real client plays one of the devices (``ScenarioDevice/isLive``).
    public var hasLiveDevices: Bool { devices.contains { $0.isLive } }
    /// Recipients that are not devices (FCM topics and conditions), named by send steps'
    /// `targets`; their ids share one space with the device ids.
    public var targets: [ScenarioTarget]
    public var steps: [ScenarioStep]
    public var checks: [CheckInvocation]
    /// Seed from the file, if any (`--seed` overrides it).
    public var seed: UInt64?
    /// Where it was loaded from (nil for scenarios built in code).
    public var file: String?
    /// The file's own `tags` (``CheckCatalogue/tags(of:)`` adds the implied ones).
    public var tags: [String] = []
    /// The whole file as JSON, for the fake-side loader.
    public var raw: Data

    /// Providers the scenario needs the sender to support.
    public var providers: [String] { Array(Set(devices.map(\.provider) + targets.map(\.provider))).sorted() }

    /// Target kinds (`fcm.topic`, `fcm.condition`) the sender must list in its `initialize`
    /// result for this case to apply.
    public var targetKinds: [String] { Array(Set(targets.map(\.kind))).sorted() }

    public func device(_ id: String) -> ScenarioDevice? { devices.first { $0.id == id } }
    public func target(_ id: String) -> ScenarioTarget? { targets.first { $0.id == id } }

    public init(id: String, title: String, references: [String], devices: [ScenarioDevice], targets: [ScenarioTarget] = [],
                steps: [ScenarioStep], checks: [CheckInvocation], seed: UInt64? = nil, file: String? = nil, raw: Data = Data("{}".utf8)) {
        self.id = id; self.title = title; self.references = references; self.devices = devices; self.targets = targets
        self.steps = steps; self.checks = checks; self.seed = seed; self.file = file; self.raw = raw
    }
}

/// A device of a scenario as the sender sees it in `send.params.devices`.
public struct ScenarioDevice: Sendable, Equatable {
    public var id: String
    public var provider: String
    /// The token the sender is told; empty when the provider addresses devices otherwise
    /// (a Web Push subscription).
    public var token: String
    /// Provider environment as told to the sender (APNs: "production" or "sandbox").
    public var environment: String?
    public var topic: String?
    /// Provider-specific members passed to the sender as they are (Web Push: `subscription`):
    /// every member of the device JSON that is not the core's (id, provider, token,
    /// environment, topic) and not fake-only state (state, unregisteredAt, transitions, deliveries).
    public var attributes: [(String, JSONValue)]

    public init(id: String, provider: String, token: String, environment: String? = nil, topic: String? = nil,
                attributes: [(String, JSONValue)] = []) {
        self.id = id; self.provider = provider; self.token = token; self.environment = environment; self.topic = topic
        self.attributes = attributes
    }

    public static func == (a: ScenarioDevice, b: ScenarioDevice) -> Bool {
        a.id == b.id && a.provider == b.provider && a.token == b.token && a.environment == b.environment && a.topic == b.topic
            && JSONValue.object(a.attributes) == JSONValue.object(b.attributes)
    }

    /// A Web Push subscription the application sends declarative messages (`"declarative": true`).
    public var wantsDeclarativeWebPush: Bool {
        provider == "webpush" && attributes.contains { $0.0 == "declarative" && $0.1 == .bool(true) }
    }

    /// A device a real client plays (`"browser": "firefox"`): the runner starts the client,
    /// which registers itself with the fake (``LiveDevices``); the fake never loads it.
    public var isLive: Bool { attributes.contains { $0.0 == Self.liveKey } }
    /// The member that names the real client playing a device.
    public static let liveKey = "browser"

    /// Device JSON members the sender is never told (the fake's own state of the device).
    static let fakeOnlyKeys: Set<String> = ["state", "unregisteredAt", "transitions", "deliveries"]
    static let coreKeys: Set<String> = ["id", "provider", "token", "environment", "topic"]

    /// The JSON object sent to the sender.
    public var driverJSON: JSONValue {
        var m: [(String, JSONValue)] = [("id", .string(id)), ("provider", .string(provider))]
        if !token.isEmpty { m.append(("token", .string(token))) }
        if let e = environment { m.append(("environment", .string(e))) }
        if let t = topic { m.append(("topic", .string(t))) }
        m += attributes
        return .object(m)
    }
}

/// A recipient that is not a device (driver protocol v1 `send.params.targets`): an FCM topic
/// (`message.topic`) or condition (`message.condition`), fcm.md §2.1. The sender answers one
/// result for it, under its id.
public struct ScenarioTarget: Sendable, Equatable {
    /// What the target addresses.
    public enum Address: Sendable, Equatable {
        /// A topic name, bare (no `/topics/` prefix).
        case topic(String)
        /// A condition over topics, e.g. `'news' in topics && 'sports' in topics`.
        case condition(String)
    }
    public var id: String
    public var provider: String
    public var address: Address

    public init(id: String, provider: String, address: Address) { self.id = id; self.provider = provider; self.address = address }

    /// `<provider>.topic` or `<provider>.condition`: what the sender must support.
    public var kind: String {
        switch address { case .topic: return provider + ".topic"; case .condition: return provider + ".condition" }
    }

    /// The JSON object sent to the sender: `{"id","provider","topic"}` or `{"id","provider","condition"}`.
    public var driverJSON: JSONValue {
        switch address {
        case .topic(let t): return .object([("id", .string(id)), ("provider", .string(provider)), ("topic", .string(t))])
        case .condition(let c): return .object([("id", .string(id)), ("provider", .string(provider)), ("condition", .string(c))])
        }
    }
}

/// One thing the runner does to the sender.
public enum ScenarioStep: Sendable, Equatable {
    /// `send` this notification to these device ids and target ids, `repeat` times in a row.
    case send(notification: JSONValue, devices: [String], targets: [String] = [], repeat: Int)
    /// `settle`.
    case settle
    /// Sleep (real time) before the next step.
    case wait(seconds: Double)
    /// Call one of the providers' admin routes (``ProviderInstance/adminRoutes``), e.g.
    /// `POST /expo/receipts/release` to make held receipts visible at this point of the case.
    case admin(method: String, path: String, body: JSONValue?)
    /// `subscribe` these device ids to an FCM topic (only for a sender declaring the
    /// `subscribe` feature; the case is n/a for any other).
    case subscribe(topic: String, devices: [String])
    /// `broadcast` a Live Activity update on a named channel (only for a sender declaring the
    /// `broadcast` feature; the case is n/a for any other). `params` is what the sender is
    /// given: the step's members but `type`, with `provider` and `channel`.
    case broadcast(channel: String, params: JSONValue)

    public var kind: String {
        switch self {
        case .send: return "send"; case .settle: return "settle"; case .wait: return "wait"; case .admin: return "admin"
        case .subscribe: return "subscribe"; case .broadcast: return "broadcast"
        }
    }
}

/// A check to run on a case, with its parameters (the whole object from `checks[]`).
public struct CheckInvocation: Sendable, Equatable {
    public var id: String
    public var params: JSONValue
    public init(id: String, params: JSONValue = .object([])) { self.id = id; self.params = params }
}

extension ConformanceScenario {
    /// Decodes a scenario file's conformance parts. `knownChecks` (if given) rejects unknown check ids.
    public static func decode(_ data: Data, file: String, knownChecks: Set<String>? = nil) throws -> ConformanceScenario {
        let root: JSONValue
        do { root = try JSONDecoder().decode(JSONValue.self, from: data) }
        catch { throw ScenarioError(file: file, path: "", message: "not valid JSON (\(Self.describe(error)))") }
        func fail(_ p: String) -> ScenarioError { ScenarioError(file: file, path: "", message: p) }
        guard case .object = root else { throw fail("the top level must be a JSON object") }
        guard let id = root["id"]?.stringValue, !id.isEmpty else { throw fail("missing string \"id\" (the stable case id, e.g. \"apns.unregistered\")") }
        let title = root["title"]?.stringValue ?? id
        var references: [String] = []
        if let r = root["references"] ?? root["spec"] {
            if let s = r.stringValue { references = [s] }
            else if let a = r.arrayValue { references = a.compactMap(\.stringValue) }
            else { throw fail("\"references\" must be a string or an array of strings") }
        }
        var devices: [ScenarioDevice] = []
        for (i, d) in (root["devices"]?.arrayValue ?? []).enumerated() {
            guard let did = d["id"]?.stringValue else { throw fail("devices[\(i)] has no string \"id\"") }
            guard let provider = d["provider"]?.stringValue, !provider.isEmpty else {
                throw fail("devices[\(i)] (\(did)) has no string \"provider\"")
            }
            // What the sender is told may differ from what the fake knows (e.g. a token of the
            // other environment): top-level "senderDevices": {"d1": {"environment": …}} overrides
            // environment/topic/token for the driver only (the core's device objects are strict).
            let o = root["senderDevices"]?[did]
            let attributes = (d.objectValue ?? []).filter {
                !ScenarioDevice.coreKeys.contains($0.0) && !ScenarioDevice.fakeOnlyKeys.contains($0.0)
            }
            // A provider that addresses devices by attributes (a Web Push subscription) has no token.
            guard let token = o?["token"]?.stringValue ?? d["token"]?.stringValue ?? (attributes.isEmpty ? nil : "") else {
                throw fail("devices[\(i)] (\(did)) has no string \"token\"")
            }
            let env = o?["environment"]?.stringValue ?? d["environment"]?.stringValue
            if devices.contains(where: { $0.id == did }) { throw fail("duplicate device id \"\(did)\"") }
            devices.append(ScenarioDevice(id: did, provider: provider, token: token, environment: env,
                                          topic: o?["topic"]?.stringValue ?? d["topic"]?.stringValue, attributes: attributes))
        }
        let targets = try decodeTargets(root["targets"], devices: devices, fail: fail)
        var steps: [ScenarioStep] = []
        for (i, s) in (root["steps"]?.arrayValue ?? []).enumerated() {
            guard let type = s["type"]?.stringValue else { throw fail("steps[\(i)] has no \"type\" (send, settle, wait, admin, subscribe or broadcast)") }
            switch type {
            case "send":
                guard let n = s["notification"], case .object = n else { throw fail("steps[\(i)]: send needs a \"notification\" object") }
                var ids: [String] = [], targetIDs: [String] = []
                for d in s["devices"]?.arrayValue ?? [] {
                    guard let did = d.stringValue else { throw fail("steps[\(i)]: \"devices\" must hold device id strings") }
                    guard devices.contains(where: { $0.id == did }) else { throw fail("steps[\(i)]: unknown device id \"\(did)\"") }
                    ids.append(did)
                }
                if let ts = s["targets"] {
                    guard let list = ts.arrayValue else { throw fail("steps[\(i)]: \"targets\" must be an array of target ids") }
                    for t in list {
                        guard let tid = t.stringValue, targets.contains(where: { $0.id == tid }) else {
                            throw fail("steps[\(i)]: unknown target id \(t.compactJSON) (declare it in the top-level \"targets\")")
                        }
                        targetIDs.append(tid)
                    }
                }
                guard !ids.isEmpty || !targetIDs.isEmpty else {
                    throw fail("steps[\(i)]: send needs a non-empty \"devices\" array of device ids (or \"targets\")")
                }
                let rep = s["repeat"]?.intValue ?? 1
                guard rep >= 1 && rep <= 10_000 else { throw fail("steps[\(i)]: \"repeat\" must be 1…10000") }
                steps.append(.send(notification: n, devices: ids, targets: targetIDs, repeat: Int(rep)))
            case "settle": steps.append(.settle)
            case "wait":
                guard let sec = s["seconds"]?.doubleValue, sec >= 0, sec <= 3600 else { throw fail("steps[\(i)]: wait needs \"seconds\" (0…3600)") }
                steps.append(.wait(seconds: sec))
            case "admin":
                guard let path = s["path"]?.stringValue, path.hasPrefix("/") else { throw fail("steps[\(i)]: admin needs a \"path\" such as \"/expo/receipts/release\"") }
                let method = s["method"]?.stringValue ?? "POST"
                steps.append(.admin(method: method, path: path, body: s["body"]))
            case "subscribe":
                guard let topic = s["topic"]?.stringValue, !topic.isEmpty else { throw fail("steps[\(i)]: subscribe needs a \"topic\" (the bare topic name)") }
                var ids: [String] = []
                for d in s["devices"]?.arrayValue ?? [] {
                    guard let did = d.stringValue, devices.contains(where: { $0.id == did }) else {
                        throw fail("steps[\(i)]: unknown device id \(d.compactJSON)")
                    }
                    ids.append(did)
                }
                guard !ids.isEmpty else { throw fail("steps[\(i)]: subscribe needs a non-empty \"devices\" array of device ids") }
                steps.append(.subscribe(topic: topic, devices: ids))
            case "broadcast":
                steps.append(try decodeBroadcast(s, index: i, fail: fail))
            default: throw fail("steps[\(i)]: unknown step type \"\(type)\" (send, settle, wait, admin, subscribe or broadcast)")
            }
        }
        var checks: [CheckInvocation] = []
        for (i, c) in (root["checks"]?.arrayValue ?? []).enumerated() {
            let cid: String
            if let s = c.stringValue { cid = s; checks.append(CheckInvocation(id: s)) }
            else if let s = c["id"]?.stringValue { cid = s; checks.append(CheckInvocation(id: s, params: c)) }
            else { throw fail("checks[\(i)] must be a check id or an object with \"id\"") }
            if let known = knownChecks, !known.contains(cid) {
                throw fail("checks[\(i)]: unknown check id \"\(cid)\" (see `pushdouble conform --list`)")
            }
        }
        let seed = root["seed"]?.intValue.flatMap { UInt64(exactly: $0) }
        var tags: [String] = []
        if let t = root["tags"] {
            guard let list = t.arrayValue?.compactMap(\.stringValue), list.count == t.arrayValue?.count,
                  list.allSatisfy({ !$0.isEmpty && !$0.contains(",") && !$0.contains(" ") }) else {
                throw fail("\"tags\" must be an array of words (no spaces or commas), e.g. [\"retries\"]")
            }
            tags = list
        }
        var scenario = ConformanceScenario(id: id, title: title, references: references, devices: devices, targets: targets, steps: steps,
                                           checks: checks, seed: seed, file: file, raw: data)
        scenario.tags = tags
        return scenario
    }

    /// The top-level `targets`: `{"id", "provider", "topic"}` or `{"id", "provider", "condition"}`,
    /// ids distinct from each other and from the device ids.
    static func decodeTargets(_ json: JSONValue?, devices: [ScenarioDevice], fail: (String) -> ScenarioError) throws -> [ScenarioTarget] {
        guard let json else { return [] }
        guard let list = json.arrayValue else { throw fail("\"targets\" must be an array of {\"id\", \"provider\", \"topic\" or \"condition\"}") }
        var out: [ScenarioTarget] = []
        for (i, t) in list.enumerated() {
            guard let tid = t["id"]?.stringValue, !tid.isEmpty else { throw fail("targets[\(i)] has no string \"id\"") }
            guard let provider = t["provider"]?.stringValue, !provider.isEmpty else { throw fail("targets[\(i)] (\(tid)) has no string \"provider\"") }
            if devices.contains(where: { $0.id == tid }) || out.contains(where: { $0.id == tid }) {
                throw fail("targets[\(i)]: id \"\(tid)\" is already used by a device or target")
            }
            let known: Set<String> = ["id", "provider", "topic", "condition"]
            if let extra = t.objectValue?.first(where: { !known.contains($0.0) }) {
                throw fail("targets[\(i)] (\(tid)): unknown member \"\(extra.0)\" (id, provider, topic or condition)")
            }
            let address: ScenarioTarget.Address
            switch (t["topic"]?.stringValue, t["condition"]?.stringValue) {
            case (let topic?, nil) where !topic.isEmpty: address = .topic(topic)
            case (nil, let condition?) where !condition.isEmpty: address = .condition(condition)
            default: throw fail("targets[\(i)] (\(tid)) needs exactly one non-empty string \"topic\" or \"condition\"")
            }
            out.append(ScenarioTarget(id: tid, provider: provider, address: address))
        }
        return out
    }

    static func describe(_ error: Error) -> String {
        if let e = error as? DecodingError {
            switch e {
            case .dataCorrupted(let c): return c.underlyingError.map { "\($0.localizedDescription)" } ?? c.debugDescription
            default: return "\(e)"
            }
        }
        return "\(error)"
    }

    /// Loads every `*.json` file of a directory except `*.schema.json` (sorted by name). Throws the first bad file.
    public static func loadDirectory(_ path: String, knownChecks: Set<String>? = nil) throws -> [ConformanceScenario] {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue else {
            throw ScenarioError(file: path, path: "", message: "scenario directory not found (give one with --scenarios DIR)")
        }
        // Every `*.json` is a scenario except JSON Schemas (`*.schema.json`, e.g. the core's scenario.schema.json).
        let names = try FileManager.default.contentsOfDirectory(atPath: path)
            .filter { $0.hasSuffix(".json") && !$0.hasSuffix(".schema.json") }.sorted()
        var out: [ConformanceScenario] = []
        var seen: [String: String] = [:]
        for n in names {
            let full = (path as NSString).appendingPathComponent(n)
            guard let data = FileManager.default.contents(atPath: full) else { throw ScenarioError(file: full, path: "", message: "cannot read") }
            let s = try decode(data, file: full, knownChecks: knownChecks)
            if let other = seen[s.id] { throw ScenarioError(file: full, path: "id", message: "case id \"\(s.id)\" is also used by \(other)") }
            seen[s.id] = full
            out.append(s)
        }
        return out
    }
}

/// Shell-style glob matching (`*`, `?`) used by `--only` / `--skip`.
public func globMatch(_ pattern: String, _ text: String) -> Bool {
    let p = Array(pattern.unicodeScalars), t = Array(text.unicodeScalars)
    var pi = 0, ti = 0, star = -1, mark = 0
    while ti < t.count {
        if pi < p.count && (p[pi] == "?" || p[pi] == t[ti]) { pi += 1; ti += 1 }
        else if pi < p.count && p[pi] == "*" { star = pi; mark = ti; pi += 1 }
        else if star >= 0 { pi = star + 1; mark += 1; ti = mark }
        else { return false }
    }
    while pi < p.count && p[pi] == "*" { pi += 1 }
    return pi == p.count
}
