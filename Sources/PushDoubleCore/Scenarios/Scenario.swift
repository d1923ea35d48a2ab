import Foundation

/// A scenario file (`Scenarios/*.json`) as the core reads it.
///
/// The core applies `providers` (world mode), `seed`, `devices`, `faults` and `quotas`;
/// `fakeOptions` (one object per provider) is handed to that provider's module when the
/// fakes are built (``ProviderModule/instantiate(options:context:)``).
/// `steps` and `checks` belong to the conformance runner, which decodes the same file
/// with its own types; here they are kept as raw JSON and never interpreted. Unknown
/// top-level fields are ignored (room for the runner's additions); unknown fields
/// inside devices, faults and quotas are errors.
public struct Scenario: Sendable, Equatable, Codable {
    public var id: String
    public var title: String?
    public var description: String?
    public var references: [String]
    public var providers: [String: ProviderOptions]
    /// Seed for the fault engine's generator (probability rules).
    public var seed: UInt64?
    public var devices: [Device]
    public var faults: [FaultRule]
    public var quotas: [QuotaRule]
    /// Per-provider fake settings (`"fakeOptions":{"apns":{"tokenMinRefreshSeconds":60}}`), raw:
    /// each provider module decodes its own object.
    public var fakeOptions: [String: JSONValue]
    /// Raw, for the conformance runner.
    public var steps: [JSONValue]
    public var checks: [JSONValue]

    public init(id: String, title: String? = nil, description: String? = nil, references: [String] = [],
                providers: [String: ProviderOptions] = [:], seed: UInt64? = nil, devices: [Device] = [],
                faults: [FaultRule] = [], quotas: [QuotaRule] = [], fakeOptions: [String: JSONValue] = [:],
                steps: [JSONValue] = [], checks: [JSONValue] = []) {
        self.id = id; self.title = title; self.description = description; self.references = references
        self.providers = providers; self.seed = seed; self.devices = devices; self.faults = faults; self.quotas = quotas
        self.fakeOptions = fakeOptions
        self.steps = steps; self.checks = checks
    }

    enum CodingKeys: String, CodingKey {
        case id, title, description, references, providers, seed, devices, faults, quotas, fakeOptions, steps, checks
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        guard !id.isEmpty else { throw DecodingError.dataCorruptedError(forKey: .id, in: c, debugDescription: "must not be empty") }
        title = try c.decodeIfPresent(String.self, forKey: .title)
        description = try c.decodeIfPresent(String.self, forKey: .description)
        references = try c.decodeIfPresent([String].self, forKey: .references) ?? []
        providers = try c.decodeIfPresent([String: ProviderOptions].self, forKey: .providers) ?? [:]
        seed = try c.decodeIntegerIfPresent(UInt64.self, forKey: .seed, in: 0...UInt64.max)
        devices = try (c.decodeIfPresent([FileDevice].self, forKey: .devices) ?? []).compactMap(\.device)
        faults = try c.decodeIfPresent([FaultRule].self, forKey: .faults) ?? []
        quotas = try c.decodeIfPresent([QuotaRule].self, forKey: .quotas) ?? []
        fakeOptions = try c.decodeIfPresent([String: JSONValue].self, forKey: .fakeOptions) ?? [:]
        steps = try c.decodeIfPresent([JSONValue].self, forKey: .steps) ?? []
        checks = try c.decodeIfPresent([JSONValue].self, forKey: .checks) ?? []
        // Cross-field checks, reported at the offending element.
        var ids = Set<String>()
        var tokens = Set<String>()
        for (i, d) in devices.enumerated() {
            if !ids.insert(d.id).inserted { throw Self.error(c, .devices, i, "id", "duplicate device id \"\(d.id)\"") }
            if !d.token.isEmpty && !tokens.insert(d.provider.rawValue + "\u{0}" + d.token).inserted {
                throw Self.error(c, .devices, i, "token", "duplicate \(d.provider) token")
            }
        }
        var ruleIDs = Set<String>()
        for (i, f) in faults.enumerated() where !ruleIDs.insert(f.id).inserted {
            throw Self.error(c, .faults, i, "id", "duplicate rule id \"\(f.id)\"")
        }
        for (i, q) in quotas.enumerated() where !ruleIDs.insert(q.id).inserted {
            throw Self.error(c, .quotas, i, "id", "duplicate rule id \"\(q.id)\" (fault and quota ids share one space)")
        }
    }

    private static func error(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys, _ index: Int, _ field: String, _ message: String) -> DecodingError {
        DecodingError.dataCorrupted(.init(codingPath: c.codingPath + [key, StrictKeys.AnyKey(intValue: index)!, StrictKeys.AnyKey(stringValue: field)],
                                          debugDescription: message))
    }

    /// Every rule in evaluation order: `faults` first, then `quotas`.
    public var rules: [FaultRule] { faults + quotas.map(\.asFaultRule) }

    /// The scenario file the decoder reads back: `id` first, empty members left out.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encodeIfPresent(title, forKey: .title)
        try c.encodeIfPresent(description, forKey: .description)
        if !references.isEmpty { try c.encode(references, forKey: .references) }
        if !providers.isEmpty { try c.encode(providers, forKey: .providers) }
        try c.encodeIfPresent(seed, forKey: .seed)
        try c.encode(devices, forKey: .devices)
        try c.encode(faults, forKey: .faults)
        if !quotas.isEmpty { try c.encode(quotas, forKey: .quotas) }
        if !fakeOptions.isEmpty { try c.encode(fakeOptions, forKey: .fakeOptions) }
        if !steps.isEmpty { try c.encode(steps, forKey: .steps) }
        if !checks.isEmpty { try c.encode(checks, forKey: .checks) }
    }
}

/// Per-provider options of a scenario: `{"world":"open"|"closed"}`.
public struct ProviderOptions: Sendable, Equatable, Codable {
    public var world: WorldMode?
    public init(world: WorldMode? = nil) { self.world = world }
    enum CodingKeys: String, CodingKey, CaseIterable { case world }
    public init(from decoder: Decoder) throws {
        try StrictKeys.check(decoder, allowed: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        world = try c.decodeIfPresent(WorldMode.self, forKey: .world)
    }
}

/// A quota in the scenario's `quotas` list: sugar for a fault rule with a `quota` action.
///
/// JSON: `{"id":"q1","match":{…},"fixedWindow":{"limit":5,"seconds":60},"per":"token","reason":"TooManyRequests"}`
/// or with `"tokenBucket":{"rate":2,"burst":5}`.
public struct QuotaRule: Sendable, Equatable, Codable {
    public var id: String
    public var match: FaultMatch
    public var quota: QuotaSpec
    public var times: Int?

    enum CodingKeys: String, CodingKey, CaseIterable { case id, match, times, fixedWindow, tokenBucket, per, reason, status }

    public init(id: String, match: FaultMatch = FaultMatch(), quota: QuotaSpec, times: Int? = nil) {
        self.id = id; self.match = match; self.quota = quota; self.times = times
    }

    public init(from decoder: Decoder) throws {
        try StrictKeys.check(decoder, allowed: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        guard !id.isEmpty else { throw DecodingError.dataCorruptedError(forKey: .id, in: c, debugDescription: "must not be empty") }
        match = try c.decodeIfPresent(FaultMatch.self, forKey: .match) ?? FaultMatch()
        times = try c.decodeIntegerIfPresent(Int.self, forKey: .times, in: InputLimits.count)
        quota = try QuotaSpec(from: decoder)
    }

    public var asFaultRule: FaultRule { FaultRule(id: id, match: match, action: .quota(quota), times: times) }

    /// The scenario's `quotas` entry: `id`, `match`, `times` and the quota's own members.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(match, forKey: .match)
        try c.encodeIfPresent(times, forKey: .times)
        try quota.encode(to: encoder)
    }
}

/// A scenario file that could not be read, with the file and the path of the bad field:
/// `apns.unregistered.json: faults[2].action.status: expected integer`.
public struct ScenarioError: Error, Equatable, CustomStringConvertible {
    /// File name (or "<body>" for the admin API).
    public var file: String
    /// JSON path of the offending field, e.g. `faults[2].action.status`; empty for the whole document.
    public var path: String
    public var message: String
    public init(file: String, path: String, message: String) { self.file = file; self.path = path; self.message = message }
    public var description: String { path.isEmpty ? "\(file): \(message)" : "\(file): \(path): \(message)" }
}

/// A device of a scenario file, or nil for one a real client plays (`"browser"`, e.g. a
/// Firefox subscribing through the Web Push fake's autopush listener): the conformance runner
/// starts that client, which registers itself, so the fake has nothing to load for it.
struct FileDevice: Decodable {
    var device: Device?

    private enum LiveKey: String, CodingKey { case browser }

    init(from decoder: Decoder) throws {
        if let c = try? decoder.container(keyedBy: LiveKey.self), c.contains(.browser) { device = nil; return }
        device = try Device(from: decoder)
    }
}

/// Reads scenario files with typed decoding and turns `DecodingError`s into ``ScenarioError``s.
public enum ScenarioLoader {
    /// Decodes a scenario from bytes; `file` names it in errors.
    public static func decode(_ data: Data, file: String) throws -> Scenario {
        do {
            return try JSONDecoder().decode(Scenario.self, from: data)
        } catch let error as DecodingError {
            throw describe(error, file: file, data: Array(data))
        } catch {
            throw ScenarioError(file: file, path: "", message: unreadable(Array(data)))
        }
    }

    /// Why Foundation refused a document without naming a field: the project's strict
    /// parser's own message with its byte offset, or, for valid JSON (Foundation also
    /// says "not valid JSON" for a number its target type cannot hold), that a number
    /// was out of range. Numbers of the core's own fields are range-checked with a path
    /// before this (``InputLimits``); this covers free-form JSON such as `debugJSON`.
    public static func unreadable(_ data: [UInt8]) -> String {
        do { _ = try JSONValue.parse(data) } catch { return "not valid JSON: \(error)" }
        return "a number is outside the range of the field it is given for"
    }

    /// Reads and decodes a file; errors name the file by its last path component.
    public static func load(contentsOf url: URL) throws -> Scenario {
        let name = url.lastPathComponent
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ScenarioError(file: name, path: "", message: "cannot read file (\(url.path))")
        }
        return try decode(data, file: name)
    }

    public static func load(path: String) throws -> Scenario { try load(contentsOf: URL(fileURLWithPath: path)) }

    /// `a.b[2].c` from a coding path.
    public static func pathString(_ path: [CodingKey]) -> String {
        var out = ""
        for key in path {
            if let i = key.intValue { out += "[\(i)]" } else {
                if !out.isEmpty { out += "." }
                out += key.stringValue
            }
        }
        return out
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt64.Type, is UInt32.Type, is UInt.Type: return "integer"
        case is Double.Type, is Float.Type: return "number"
        case is String.Type: return "string"
        case is Bool.Type: return "boolean"
        default:
            let n = String(describing: type)
            if n.hasPrefix("Array") || n.hasPrefix("[") { return "array" }
            return "object"
        }
    }

    /// `data`, if given, is the document, to explain errors Foundation reports without a path.
    public static func describe(_ error: DecodingError, file: String, data: [UInt8]? = nil) -> ScenarioError {
        switch error {
        case .typeMismatch(let type, let ctx):
            let text = ctx.debugDescription
            var message = "expected \(typeName(type))"
            if let r = text.range(of: "but found ") {
                var found = String(text[r.upperBound...])
                for suffix in [".", " instead"] where found.hasSuffix(suffix) { found.removeLast(suffix.count) }
                for article in ["a ", "an "] where found.hasPrefix(article) { found.removeFirst(article.count) }
                let names = ["dictionary": "object", "bool": "boolean", "number": "number", "string": "string", "array": "array"]
                message += ", found " + (names[found] ?? found)
            } else if text.lowercased().hasPrefix("expected delta-seconds") {
                message = text.prefix(1).lowercased() + text.dropFirst()
            }
            return ScenarioError(file: file, path: pathString(ctx.codingPath), message: message)
        case .valueNotFound(let type, let ctx):
            return ScenarioError(file: file, path: pathString(ctx.codingPath), message: "expected \(typeName(type)), found null")
        case .keyNotFound(let key, let ctx):
            return ScenarioError(file: file, path: pathString(ctx.codingPath + [key]), message: "missing required field")
        case .dataCorrupted(let ctx):
            if ctx.codingPath.isEmpty, let data { return ScenarioError(file: file, path: "", message: unreadable(data)) }
            if ctx.codingPath.isEmpty {
                var m = "not valid JSON"
                if let u = ctx.underlyingError { m += ": \((u as NSError).userInfo[NSDebugDescriptionErrorKey] ?? u.localizedDescription)" }
                else if !ctx.debugDescription.isEmpty { m += ": " + ctx.debugDescription }
                return ScenarioError(file: file, path: "", message: m)
            }
            var m = ctx.debugDescription
            if m.hasPrefix("Cannot initialize "), let r = m.range(of: "from invalid String value ") {
                m = "unknown value " + m[r.upperBound...]
            }
            return ScenarioError(file: file, path: pathString(ctx.codingPath), message: m)
        @unknown default:
            return ScenarioError(file: file, path: "", message: "\(error)")
        }
    }
}
