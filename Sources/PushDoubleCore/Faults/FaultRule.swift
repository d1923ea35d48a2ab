import Foundation
import PushDoubleTransport

/// One scripted misbehaviour: which requests it applies to, what to do instead, how often.
///
/// Rules are data (scenario files, the admin API) and are applied by ``FaultEngine`` at one
/// place in the request path, so every provider gets every fault kind.
///
/// JSON: `{"id":"f1","match":{…},"action":{"type":"respond",…},"times":2}`, plus
/// `"enabled":false` for a rule that is kept but switched off.
public struct FaultRule: Sendable, Equatable, Codable {
    public var id: String
    public var match: FaultMatch
    public var action: FaultAction
    /// How many times the rule may fire; nil = unlimited.
    public var times: Int?
    /// A switched-off rule stays in the list (and in an export) but matches nothing: it neither
    /// counts nor fires until it is switched on again (`PATCH /faults/{id}`).
    public var enabled: Bool

    public init(id: String, match: FaultMatch = FaultMatch(), action: FaultAction, times: Int? = nil, enabled: Bool = true) {
        self.id = id; self.match = match; self.action = action; self.times = times; self.enabled = enabled
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case id, match, action, times, enabled }

    public init(from decoder: Decoder) throws {
        try StrictKeys.check(decoder, allowed: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        guard !id.isEmpty else { throw DecodingError.dataCorruptedError(forKey: .id, in: c, debugDescription: "must not be empty") }
        match = try c.decodeIfPresent(FaultMatch.self, forKey: .match) ?? FaultMatch()
        action = try c.decode(FaultAction.self, forKey: .action)
        times = try c.decodeIntegerIfPresent(Int.self, forKey: .times, in: InputLimits.count)
        enabled = try c.decodeIfPresent(Bool.self, forKey: .enabled) ?? true
    }

    /// `enabled` is written only for a switched-off rule, so files of rules that are on stay as they were.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(match, forKey: .match)
        try c.encode(action, forKey: .action)
        try c.encodeIfPresent(times, forKey: .times)
        if !enabled { try c.encode(false, forKey: .enabled) }
    }
}

/// Which requests a rule applies to. Every field present must hold (AND); absent = any.
///
/// The static criteria (provider … until) decide whether a request *matches*; matching
/// requests are counted, and `nth` / `everyNth` test that count (1-based). `probability`
/// is drawn last, from the engine's seeded generator, only for requests that passed
/// everything else, so the same seed and request sequence give the same answers.
public struct FaultMatch: Sendable, Equatable, Codable {
    public var provider: ProviderID?
    /// Endpoint id from the fake ("apns.push", "fcm.send", "oauth.token", …).
    public var endpoint: String?
    public var token: String?
    /// Registered device id.
    public var device: String?
    public var topic: String?
    public var environment: String?
    /// Only the n-th matching request.
    public var nth: Int?
    /// Every n-th matching request (n, 2n, 3n, …).
    public var everyNth: Int?
    /// Time window in seconds since the rule was loaded: from ≤ t < until.
    public var from: Double?
    public var until: Double?
    /// Chance in [0, 1] that a request passing everything else is hit.
    public var probability: Double?
    /// The broadcast channel the request addresses (APNs `apns-channel-id`).
    public var channel: String?

    public init(provider: ProviderID? = nil, endpoint: String? = nil, token: String? = nil, device: String? = nil,
                topic: String? = nil, environment: String? = nil, nth: Int? = nil, everyNth: Int? = nil,
                from: Double? = nil, until: Double? = nil, probability: Double? = nil, channel: String? = nil) {
        self.provider = provider; self.endpoint = endpoint; self.token = token; self.device = device; self.topic = topic
        self.environment = environment; self.nth = nth; self.everyNth = everyNth; self.from = from; self.until = until
        self.probability = probability; self.channel = channel
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case provider, endpoint, token, device, topic, environment, nth, everyNth, from, until, probability, channel
    }

    public init(from decoder: Decoder) throws {
        try StrictKeys.check(decoder, allowed: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        provider = try c.decodeIfPresent(ProviderID.self, forKey: .provider)
        endpoint = try c.decodeIfPresent(String.self, forKey: .endpoint)
        token = try c.decodeIfPresent(String.self, forKey: .token)
        device = try c.decodeIfPresent(String.self, forKey: .device)
        topic = try c.decodeIfPresent(String.self, forKey: .topic)
        environment = try c.decodeIfPresent(String.self, forKey: .environment)
        nth = try c.decodeIntegerIfPresent(Int.self, forKey: .nth, in: InputLimits.count)
        everyNth = try c.decodeIntegerIfPresent(Int.self, forKey: .everyNth, in: InputLimits.count)
        from = try c.decodeNumberIfPresent(forKey: .from, in: InputLimits.elapsedSeconds)
        until = try c.decodeNumberIfPresent(forKey: .until, in: InputLimits.elapsedSeconds)
        probability = try c.decodeNumberIfPresent(forKey: .probability, in: 0...1)
        channel = try c.decodeIfPresent(String.self, forKey: .channel)
        if let f = from, let u = until, u <= f {
            throw DecodingError.dataCorruptedError(forKey: .until, in: c, debugDescription: "must be greater than \"from\"")
        }
    }
}

/// What a fired rule does instead of (or around) the normal answer.
///
/// JSON: an object with `"type"`, one of `respond`, `delay`, `drop`, `goaway`, `reset`,
/// `stall`, `dribble`, `truncate`, `quota`, `continue`; see docs/core.md for each.
public indirect enum FaultAction: Sendable, Equatable {
    /// Answer with a provider reason (rendered by the fake) or a raw status/body.
    case respond(ResponseSpec)
    /// Wait, then do `then` (``continue`` = answer normally).
    case delay(seconds: Double, then: FaultAction)
    /// Close the TCP connection at once.
    case drop
    /// GOAWAY, then (optionally) answer this stream with `then`.
    case goAway(lastStream: GoAwayLastStream, errorCode: HTTP2ErrorCode, debugData: GoAwayDebugData, then: FaultAction?)
    /// RST_STREAM with this code.
    case reset(HTTP2ErrorCode)
    /// Never answer.
    case stall
    /// Send the head, then the body `chunkSize` bytes every `interval` seconds; the normal
    /// answer unless `response` is given.
    case dribble(chunkSize: Int, interval: Double, response: ResponseSpec?)
    /// Send the head and `bodyBytes` bytes of the body, then drop the connection; the normal
    /// answer unless `response` is given.
    case truncate(bodyBytes: Int, response: ResponseSpec?)
    /// A stateful quota: requests within it pass on to later rules; beyond it the
    /// provider's rate-limit answer with a truthful `Retry-After`.
    case quota(QuotaSpec)
    /// Answer normally (used as the `then` of delay / goaway).
    case `continue`

    public var typeName: String {
        switch self {
        case .respond: return "respond"
        case .delay: return "delay"
        case .drop: return "drop"
        case .goAway: return "goaway"
        case .reset: return "reset"
        case .stall: return "stall"
        case .dribble: return "dribble"
        case .truncate: return "truncate"
        case .quota: return "quota"
        case .continue: return "continue"
        }
    }
}

/// GOAWAY debug data: plain text or compact JSON (`{"reason":"Shutdown"}`).
public enum GoAwayDebugData: Sendable, Equatable {
    case none
    case text(String)
    case json(JSONValue)

    public var bytes: [UInt8] {
        switch self {
        case .none: return []
        case .text(let s): return Array(s.utf8)
        case .json(let v): return Array(v.compactJSON.utf8)
        }
    }
}

/// A response a rule sends: a named provider reason (rendered by the fake to the byte) or a
/// raw status and body, plus extra headers and an optional `Retry-After`.
public struct ResponseSpec: Sendable, Equatable, Codable {
    /// Provider reason ("Unregistered", "UNAVAILABLE"); rendered by `ProviderFake.errorResponse`.
    public var reason: String?
    /// Status; overrides the provider's status for `reason`; required without a reason.
    public var status: Int?
    /// Raw body (without a reason).
    public var body: String?
    /// Content type of a raw body (default: JSON if the body parses as JSON, else text).
    public var contentType: String?
    /// Extra header fields, in order.
    public var headers: [HeaderField]
    public var retryAfter: RetryAfter?
    /// `reason` is one the provider never sends, on purpose: the admin API accepts it instead of
    /// refusing it with the provider's reasons (``NameCatalogue/check(_:)``), and the fake sends
    /// it in its error shape with `status` (default 500).
    public var custom: Bool

    public init(reason: String? = nil, status: Int? = nil, body: String? = nil, contentType: String? = nil,
                headers: [HeaderField] = [], retryAfter: RetryAfter? = nil, custom: Bool = false) {
        self.reason = reason; self.status = status; self.body = body; self.contentType = contentType
        self.headers = headers; self.retryAfter = retryAfter; self.custom = custom
    }

    /// One header of a ``ResponseSpec`` (JSON: an object `{"name":"value",…}` or an array of `[name, value]`).
    public struct HeaderField: Sendable, Equatable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) { self.name = name; self.value = value }
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case reason, status, body, contentType, headers, retryAfter, custom }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
        custom = try c.decodeIfPresent(Bool.self, forKey: .custom) ?? false
        status = try c.decodeIntegerIfPresent(Int.self, forKey: .status, in: InputLimits.finalStatus)
        body = try c.decodeIfPresent(String.self, forKey: .body)
        contentType = try c.decodeIfPresent(String.self, forKey: .contentType)
        retryAfter = try c.decodeIfPresent(RetryAfter.self, forKey: .retryAfter)
        headers = try Self.decodeHeaders(c)
        if reason == nil && status == nil {
            throw DecodingError.dataCorruptedError(forKey: .status, in: c, debugDescription: "a response needs a \"reason\" or a \"status\"")
        }
        if let s = status, InputLimits.statusesWithoutContent.contains(s), reason != nil || !(body ?? "").isEmpty {
            throw DecodingError.dataCorruptedError(forKey: .status, in: c, debugDescription:
                "a \(s) response cannot carry content (RFC 9110 §15.3.5, §15.4.5); drop \"reason\" and \"body\" or use another status")
        }
        if let t = contentType, let problem = HTTPFieldSyntax.problem(value: t, of: "content-type") {
            throw DecodingError.dataCorruptedError(forKey: .contentType, in: c, debugDescription: problem)
        }
    }

    /// `{"name":"value",…}` or `[[name, value], …]`, each field checked by ``HTTPFieldSyntax``.
    private static func decodeHeaders(_ c: KeyedDecodingContainer<CodingKeys>) throws -> [HeaderField] {
        var out: [HeaderField] = []
        var paths: [[CodingKey]] = []
        if let pairs = try? c.decodeIfPresent([[String]].self, forKey: .headers) {
            for (i, p) in pairs.enumerated() {
                let path = c.codingPath + [CodingKeys.headers, StrictKeys.AnyKey(intValue: i)!]
                guard p.count == 2 else { throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "expected a [name, value] pair")) }
                out.append(HeaderField(p[0], p[1]))
                paths.append(path)
            }
        } else {
            let dict = try c.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
            for name in dict.keys.sorted() {
                out.append(HeaderField(name, dict[name]!))
                paths.append(c.codingPath + [CodingKeys.headers, StrictKeys.AnyKey(stringValue: name)])
            }
        }
        for (field, path) in zip(out, paths) {
            if let problem = HTTPFieldSyntax.problem(name: field.name) ?? HTTPFieldSyntax.problem(value: field.value, of: field.name) {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: problem))
            }
        }
        return out
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(reason, forKey: .reason)
        try c.encodeIfPresent(status, forKey: .status)
        try c.encodeIfPresent(body, forKey: .body)
        try c.encodeIfPresent(contentType, forKey: .contentType)
        if !headers.isEmpty { try c.encode(headers.map { [$0.name, $0.value] }, forKey: .headers) }
        try c.encodeIfPresent(retryAfter, forKey: .retryAfter)
        if custom { try c.encode(true, forKey: .custom) }
    }
}

/// A `Retry-After` value (RFC 9110 §10.2.3): delta-seconds or an HTTP-date.
///
/// JSON: `7` (delta-seconds), `{"dateIn":7}` (the HTTP-date 7 s after the answer), or a
/// string sent verbatim (`"Wed, 21 Oct 2026 07:28:00 GMT"`).
public enum RetryAfter: Sendable, Equatable, Codable {
    case seconds(Int)
    case dateIn(seconds: Int)
    case literal(String)

    /// The header value at time `now`.
    public func headerValue(now: Date) -> String {
        switch self {
        case .seconds(let s): return String(s)
        case .dateIn(let s): return DateFormats.httpDate(now + Double(s))
        case .literal(let v): return v
        }
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case dateIn }

    public init(from decoder: Decoder) throws {
        if let c = try? decoder.container(keyedBy: CodingKeys.self) {
            try StrictKeys.check(decoder, allowed: CodingKeys.self)
            self = .dateIn(seconds: try c.decodeInteger(Int.self, forKey: .dateIn, in: InputLimits.retryAfterDateIn))
            return
        }
        let c = try decoder.singleValueContainer()
        if let s = try? c.decode(String.self) {
            if let problem = HTTPFieldSyntax.problem(value: s, of: "retry-after") { throw DecodingError.dataCorruptedError(in: c, debugDescription: problem) }
            self = .literal(s); return
        }
        let range = InputLimits.retryAfterSeconds
        let n: Int
        do { n = try c.decode(Int.self) } catch is DecodingError {
            throw DecodingError.typeMismatch(Int.self, .init(codingPath: decoder.codingPath,
                debugDescription: "expected delta-seconds (integer), an HTTP-date string or {\"dateIn\": seconds}"))
        } catch {
            let found = NumberText.parsedLiteral(in: error) ?? (try? c.decode(Double.self)).map(NumberText.format) ?? "a number beyond the range of a double"
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "expected delta-seconds, an integer in \(range.lowerBound)…\(range.upperBound), found \(found)")
        }
        guard range.contains(n) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "expected delta-seconds, an integer in \(range.lowerBound)…\(range.upperBound), found \(n)")
        }
        self = .seconds(n)
    }

    public func encode(to encoder: Encoder) throws {
        switch self {
        case .seconds(let s): var c = encoder.singleValueContainer(); try c.encode(s)
        case .literal(let v): var c = encoder.singleValueContainer(); try c.encode(v)
        case .dateIn(let s): var c = encoder.container(keyedBy: CodingKeys.self); try c.encode(s, forKey: .dateIn)
        }
    }
}

/// A stateful quota: fixed window (N per W seconds, windows aligned to the rule's load
/// time) or token bucket (rate per second, burst), counted for all matching requests or
/// per token. Beyond it: `reason` (default: the provider's rate-limit reason) with
/// `Retry-After` = seconds until the window resets / a token is available, rounded up.
public struct QuotaSpec: Sendable, Equatable {
    /// The quota algorithm.
    public enum Kind: Sendable, Equatable {
        case fixedWindow(limit: Int, seconds: Double)
        case tokenBucket(rate: Double, burst: Int)
    }
    /// What a quota is counted over.
    public enum Scope: String, Sendable, Codable { case all, token }
    public var kind: Kind
    public var per: Scope
    public var reason: String?
    public var status: Int

    public init(_ kind: Kind, per: Scope = .all, reason: String? = nil, status: Int = 429) {
        self.kind = kind; self.per = per; self.reason = reason; self.status = status
    }
}

// MARK: - FaultAction coding

extension FaultAction: Codable {
    enum Keys: String, CodingKey, CaseIterable {
        case type, reason, status, body, contentType, headers, retryAfter, custom
        case seconds, then, lastStreamId, errorCode, debugData, debugJSON, chunkSize, interval, response, bodyBytes
        case fixedWindow, tokenBucket, per
    }
    enum WindowKeys: String, CodingKey, CaseIterable { case limit, seconds }
    enum BucketKeys: String, CodingKey, CaseIterable { case rate, burst }

    static let allowedKeys: [String: Set<String>] = [
        "respond": ["type", "reason", "status", "body", "contentType", "headers", "retryAfter", "custom"],
        "delay": ["type", "seconds", "then"],
        "drop": ["type"], "stall": ["type"], "continue": ["type"],
        "goaway": ["type", "lastStreamId", "errorCode", "debugData", "debugJSON", "then"],
        "reset": ["type", "errorCode"],
        "dribble": ["type", "chunkSize", "interval", "response"],
        "truncate": ["type", "bodyBytes", "response"],
        "quota": ["type", "fixedWindow", "tokenBucket", "per", "reason", "status"],
    ]

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        let type = try c.decode(String.self, forKey: .type)
        guard let allowed = Self.allowedKeys[type] else {
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription:
                "unknown action type \"\(type)\"; expected one of " + Self.allowedKeys.keys.sorted().joined(separator: ", "))
        }
        try StrictKeys.check(decoder, names: allowed)
        switch type {
        case "respond":
            self = .respond(try ResponseSpec(from: decoder))
        case "delay":
            let s = try c.decodeNumber(forKey: .seconds, in: InputLimits.waitSeconds)
            self = .delay(seconds: s, then: try Self.decodeThen(c, decoder) ?? .continue)
        case "drop": self = .drop
        case "stall": self = .stall
        case "continue": self = .continue
        case "goaway":
            let last: GoAwayLastStream
            if c.contains(.lastStreamId), (try? c.decode(String.self, forKey: .lastStreamId)) == nil {
                last = .explicit(try c.decodeInteger(UInt32.self, forKey: .lastStreamId, in: InputLimits.streamID))
            } else {
                switch try c.decodeIfPresent(String.self, forKey: .lastStreamId) ?? "before" {
                case "before": last = .beforeThisStream
                case "this": last = .thisStream
                case "highest": last = .highestSeen
                case let other:
                    throw DecodingError.dataCorruptedError(forKey: .lastStreamId, in: c,
                        debugDescription: "unknown value \"\(other)\"; expected \"before\", \"this\", \"highest\" or a stream id")
                }
            }
            let code = try Self.decodeErrorCode(c, default: .noError)
            let debug = try Self.decodeDebugData(c)
            let thenDefault: FaultAction? = (last == .thisStream || last == .highestSeen) ? .continue : nil
            let then = try Self.decodeThen(c, decoder) ?? thenDefault
            self = .goAway(lastStream: last, errorCode: code, debugData: debug, then: then)
        case "reset":
            self = .reset(try Self.decodeErrorCode(c, default: .internalError))
        case "dribble":
            let size = try c.decodeIntegerIfPresent(Int.self, forKey: .chunkSize, in: InputLimits.count) ?? 1
            let interval = try c.decodeNumberIfPresent(forKey: .interval, in: InputLimits.waitSeconds) ?? 0.1
            self = .dribble(chunkSize: size, interval: interval, response: try Self.decodeResponse(c))
        case "truncate":
            let n = try c.decodeIntegerIfPresent(Int.self, forKey: .bodyBytes, in: InputLimits.countFromZero) ?? 0
            self = .truncate(bodyBytes: n, response: try Self.decodeResponse(c))
        default: // "quota"
            self = .quota(try QuotaSpec(from: decoder))
        }
    }

    /// A name (`"REFUSED_STREAM"`) or any 32-bit number (RFC 9113 §7: unknown codes are allowed).
    static func decodeErrorCode(_ c: KeyedDecodingContainer<Keys>, default d: HTTP2ErrorCode) throws -> HTTP2ErrorCode {
        guard c.contains(.errorCode), !(try c.decodeNil(forKey: .errorCode)) else { return d }
        if (try? c.decode(String.self, forKey: .errorCode)) == nil {
            return HTTP2ErrorCode(try c.decodeInteger(UInt32.self, forKey: .errorCode, in: 0...UInt32.max))
        }
        let name = try c.decode(String.self, forKey: .errorCode)
        guard let code = HTTP2ErrorCode(name: name) else {
            throw DecodingError.dataCorruptedError(forKey: .errorCode, in: c, debugDescription: "unknown HTTP/2 error code \"\(name)\"")
        }
        return code
    }

    /// `then`: any action but a quota, nested at most ``InputLimits/maxThenDepth`` deep.
    static func decodeThen(_ c: KeyedDecodingContainer<Keys>, _ decoder: Decoder) throws -> FaultAction? {
        guard c.contains(.then) else { return nil }
        let depth = decoder.codingPath.filter { $0.stringValue == Keys.then.stringValue }.count + 1
        guard depth <= InputLimits.maxThenDepth else {
            throw DecodingError.dataCorruptedError(forKey: .then, in: c, debugDescription: "\"then\" actions nest at most \(InputLimits.maxThenDepth) deep")
        }
        let then = try c.decode(FaultAction.self, forKey: .then)
        if case .quota = then {
            throw DecodingError.dataCorruptedError(forKey: .then, in: c, debugDescription: "a quota is a rule of its own and cannot be the \"then\" of another action")
        }
        return then
    }

    /// `debugData` (text) or `debugJSON`, at most ``InputLimits/goAwayDebugBytes`` bytes.
    static func decodeDebugData(_ c: KeyedDecodingContainer<Keys>) throws -> GoAwayDebugData {
        let text = try c.decodeIfPresent(String.self, forKey: .debugData)
        let json = try c.decodeIfPresent(JSONValue.self, forKey: .debugJSON)
        if text != nil && json != nil {
            throw DecodingError.dataCorruptedError(forKey: .debugJSON, in: c, debugDescription: "give \"debugData\" or \"debugJSON\", not both")
        }
        let debug: GoAwayDebugData = text.map { .text($0) } ?? json.map { .json($0) } ?? .none
        let size = debug.bytes.count, limit = InputLimits.goAwayDebugBytes.upperBound
        guard size <= limit else {
            throw DecodingError.dataCorruptedError(forKey: text != nil ? .debugData : .debugJSON, in: c, debugDescription:
                "GOAWAY debug data is \(size) bytes; at most \(limit) fit a frame of the initial SETTINGS_MAX_FRAME_SIZE 16384 (RFC 9113 §6.5.2, §6.8)")
        }
        return debug
    }

    /// The optional `response` of dribble / truncate, with its fields checked like a `respond`'s.
    static func decodeResponse(_ c: KeyedDecodingContainer<Keys>) throws -> ResponseSpec? {
        guard c.contains(.response), !(try c.decodeNil(forKey: .response)) else { return nil }
        try StrictKeys.check(try c.superDecoder(forKey: .response), allowed: ResponseSpec.CodingKeys.self)
        return try c.decode(ResponseSpec.self, forKey: .response)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(typeName, forKey: .type)
        switch self {
        case .respond(let spec): try spec.encode(to: encoder)
        case .delay(let s, let then):
            try c.encode(s, forKey: .seconds)
            try c.encode(then, forKey: .then)
        case .drop, .stall, .continue: break
        case .goAway(let last, let code, let debug, let then):
            switch last {
            case .beforeThisStream: try c.encode("before", forKey: .lastStreamId)
            case .thisStream: try c.encode("this", forKey: .lastStreamId)
            case .highestSeen: try c.encode("highest", forKey: .lastStreamId)
            case .explicit(let n): try c.encode(n, forKey: .lastStreamId)
            }
            try c.encode(code.name, forKey: .errorCode)
            switch debug {
            case .none: break
            case .text(let t): try c.encode(t, forKey: .debugData)
            case .json(let j): try c.encode(j, forKey: .debugJSON)
            }
            try c.encodeIfPresent(then, forKey: .then)
        case .reset(let code): try c.encode(code.name, forKey: .errorCode)
        case .dribble(let size, let interval, let response):
            try c.encode(size, forKey: .chunkSize)
            try c.encode(interval, forKey: .interval)
            try c.encodeIfPresent(response, forKey: .response)
        case .truncate(let n, let response):
            try c.encode(n, forKey: .bodyBytes)
            try c.encodeIfPresent(response, forKey: .response)
        case .quota(let q): try q.encode(to: encoder)
        }
    }
}

extension QuotaSpec: Codable {
    typealias Keys = FaultAction.Keys
    typealias WindowKeys = FaultAction.WindowKeys
    typealias BucketKeys = FaultAction.BucketKeys

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        let hasWindow = c.contains(.fixedWindow), hasBucket = c.contains(.tokenBucket)
        guard hasWindow != hasBucket else {
            throw DecodingError.dataCorruptedError(forKey: .fixedWindow, in: c, debugDescription: "a quota needs exactly one of \"fixedWindow\" or \"tokenBucket\"")
        }
        if hasWindow {
            let w = try c.nestedContainer(keyedBy: WindowKeys.self, forKey: .fixedWindow)
            try StrictKeys.check(try c.superDecoder(forKey: .fixedWindow), allowed: WindowKeys.self)
            let limit = try w.decodeInteger(Int.self, forKey: .limit, in: InputLimits.count)
            let seconds = try w.decodeNumber(forKey: .seconds, in: InputLimits.windowSeconds)
            kind = .fixedWindow(limit: limit, seconds: seconds)
        } else {
            let b = try c.nestedContainer(keyedBy: BucketKeys.self, forKey: .tokenBucket)
            try StrictKeys.check(try c.superDecoder(forKey: .tokenBucket), allowed: BucketKeys.self)
            let rate = try b.decodeNumber(forKey: .rate, in: InputLimits.tokenRate)
            let burst = try b.decodeInteger(Int.self, forKey: .burst, in: InputLimits.count)
            kind = .tokenBucket(rate: rate, burst: burst)
        }
        per = try c.decodeIfPresent(Scope.self, forKey: .per) ?? .all
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
        status = try c.decodeIntegerIfPresent(Int.self, forKey: .status, in: InputLimits.finalStatus) ?? 429
        guard !InputLimits.statusesWithoutContent.contains(status) else {
            throw DecodingError.dataCorruptedError(forKey: .status, in: c, debugDescription:
                "a \(status) response cannot carry content (RFC 9110 §15.3.5, §15.4.5), and a quota's answer carries its reason")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        switch kind {
        case .fixedWindow(let limit, let seconds):
            var w = c.nestedContainer(keyedBy: WindowKeys.self, forKey: .fixedWindow)
            try w.encode(limit, forKey: .limit); try w.encode(seconds, forKey: .seconds)
        case .tokenBucket(let rate, let burst):
            var b = c.nestedContainer(keyedBy: BucketKeys.self, forKey: .tokenBucket)
            try b.encode(rate, forKey: .rate); try b.encode(burst, forKey: .burst)
        }
        try c.encode(per, forKey: .per)
        try c.encodeIfPresent(reason, forKey: .reason)
        try c.encode(status, forKey: .status)
    }
}
