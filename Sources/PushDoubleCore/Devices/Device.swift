import Foundation

/// The name of a ``DeviceState`` without its data: what scenario files, the admin API and
/// transitions use ("active", "unregistered", "expired", "invalid", "otherApp", "rateLimited").
public enum DeviceStateKind: String, Sendable, Codable, CaseIterable {
    case active, unregistered, expired, invalid, otherApp, rateLimited

    public init(from decoder: Decoder) throws { self = try StrictKeys.decodeCase(decoder) }

    public init(_ state: DeviceState) {
        switch state {
        case .active: self = .active
        case .unregistered: self = .unregistered
        case .expired: self = .expired
        case .invalid: self = .invalid
        case .otherApp: self = .otherApp
        case .rateLimited: self = .rateLimited
        }
    }

    /// The state, with `since` as the unregistration time where one is needed.
    public func state(since: Date) -> DeviceState {
        switch self {
        case .active: return .active
        case .unregistered: return .unregistered(since: since)
        case .expired: return .expired
        case .invalid: return .invalid
        case .otherApp: return .otherApp
        case .rateLimited: return .rateLimited
        }
    }
}

/// Open world: any well-formed unknown token is an active device (the `serve` default).
/// Closed world: only registered devices and magic tokens exist.
public enum WorldMode: String, Sendable, Codable, CaseIterable {
    case open, closed
    public init(from decoder: Decoder) throws { self = try StrictKeys.decodeCase(decoder) }
}

/// A scheduled change of a device's state ("dies after its second push").
public struct DeviceTransition: Sendable, Equatable, Codable {
    /// When the transition happens.
    public enum Trigger: Sendable, Equatable {
        /// Right after the n-th accepted (2xx) delivery to the device.
        case afterDeliveries(Int)
        /// This many seconds after the device was registered (loaded).
        case afterSeconds(Double)
    }
    public var trigger: Trigger
    /// The state the device moves to (an unregistered device is "dead since" the moment of the transition).
    public var state: DeviceStateKind

    public init(_ trigger: Trigger, to state: DeviceStateKind) { self.trigger = trigger; self.state = state }

    enum CodingKeys: String, CodingKey, CaseIterable { case afterDeliveries, afterSeconds, state }

    public init(from decoder: Decoder) throws {
        try StrictKeys.check(decoder, allowed: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        state = try c.decode(DeviceStateKind.self, forKey: .state)
        let n = try c.decodeIntegerIfPresent(Int.self, forKey: .afterDeliveries, in: InputLimits.count)
        let s = try c.decodeNumberIfPresent(forKey: .afterSeconds, in: InputLimits.elapsedSeconds)
        switch (n, s) {
        case let (n?, nil):
            trigger = .afterDeliveries(n)
        case let (nil, s?):
            trigger = .afterSeconds(s)
        default:
            throw DecodingError.dataCorruptedError(forKey: .state, in: c, debugDescription: "a transition needs exactly one of \"afterDeliveries\" or \"afterSeconds\"")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch trigger {
        case .afterDeliveries(let n): try c.encode(n, forKey: .afterDeliveries)
        case .afterSeconds(let s): try c.encode(s, forKey: .afterSeconds)
        }
        try c.encode(state, forKey: .state)
    }
}

/// A device the double knows: one provider's token with a state and scheduled transitions.
///
/// JSON form (scenario files and the admin API):
/// `{"id":"d1","provider":"apns","token":"…","state":"unregistered","unregisteredAt":"2026-…Z",
///   "environment":"sandbox","topic":"com.example.app","transitions":[{"afterDeliveries":2,"state":"unregistered"}],
///   "deliveries":0}`. Only `id` and `provider` are required, and `token` unless the provider
/// derives it (Web Push: from the subscription); `state` defaults to "active". Members the core
/// does not know are kept in ``attributes`` and judged by the provider's device schema
/// (``ProviderModule/validateDevice(_:)``) when the device is registered.
public struct Device: Sendable, Equatable, Codable {
    public var id: String
    public var provider: ProviderID
    public var token: String
    public var state: DeviceState
    /// APNs: "production" / "sandbox"; nil = either.
    public var environment: String?
    /// The app/topic/project the token belongs to; nil = any.
    public var topic: String?
    public var transitions: [DeviceTransition]
    /// Accepted (2xx) deliveries so far.
    public var deliveries: Int
    /// Provider-specific members of the device JSON (Web Push: `subscription` with its keys),
    /// validated by the provider's device schema at registration.
    public var attributes: [String: JSONValue]

    public init(id: String, provider: ProviderID, token: String, state: DeviceState = .active, environment: String? = nil,
                topic: String? = nil, transitions: [DeviceTransition] = [], deliveries: Int = 0,
                attributes: [String: JSONValue] = [:]) {
        self.id = id; self.provider = provider; self.token = token; self.state = state
        self.environment = environment; self.topic = topic; self.transitions = transitions; self.deliveries = deliveries
        self.attributes = attributes
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case id, provider, token, state, unregisteredAt, environment, topic, transitions, deliveries }

    /// The members of the device JSON every provider shares.
    public static let coreKeys: Set<String> = Set(CodingKeys.allCases.map(\.stringValue))

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        provider = try c.decode(ProviderID.self, forKey: .provider)
        guard !id.isEmpty else { throw DecodingError.dataCorruptedError(forKey: .id, in: c, debugDescription: "must not be empty") }
        attributes = [:]
        let all = try decoder.container(keyedBy: StrictKeys.AnyKey.self)
        for key in all.allKeys where !Self.coreKeys.contains(key.stringValue) {
            attributes[key.stringValue] = try all.decode(JSONValue.self, forKey: key)
        }
        // The token is required unless provider attributes may name the device (the schema
        // derives it then, e.g. from a Web Push subscription).
        token = attributes.isEmpty ? try c.decode(String.self, forKey: .token) : try c.decodeIfPresent(String.self, forKey: .token) ?? ""
        if c.contains(.token) && token.isEmpty {
            throw DecodingError.dataCorruptedError(forKey: .token, in: c, debugDescription: "must not be empty")
        }
        let kind = try c.decodeIfPresent(DeviceStateKind.self, forKey: .state) ?? .active
        var since = Date(timeIntervalSince1970: 0)
        if let text = try c.decodeIfPresent(String.self, forKey: .unregisteredAt) {
            guard let d = DateFormats.parseISO8601(text) else {
                throw DecodingError.dataCorruptedError(forKey: .unregisteredAt, in: c, debugDescription: "expected an ISO 8601 date such as 2026-01-02T03:04:05.000Z")
            }
            since = d
        }
        state = kind.state(since: since)
        environment = try c.decodeIfPresent(String.self, forKey: .environment)
        topic = try c.decodeIfPresent(String.self, forKey: .topic)
        transitions = try c.decodeIfPresent([DeviceTransition].self, forKey: .transitions) ?? []
        deliveries = try c.decodeIntegerIfPresent(Int.self, forKey: .deliveries, in: InputLimits.countFromZero) ?? 0
        // An unregistered device without a time is dead "since registration": marked with 0 here and
        // replaced by the registration time in ``DeviceRegistry/register(_:)``.
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(provider, forKey: .provider)
        // A device named by its attributes alone (its schema derives the token) round-trips without one.
        if !token.isEmpty { try c.encode(token, forKey: .token) }
        try c.encode(DeviceStateKind(state), forKey: .state)
        if case .unregistered(let since) = state { try c.encode(DateFormats.iso8601(since), forKey: .unregisteredAt) }
        try c.encodeIfPresent(environment, forKey: .environment)
        try c.encodeIfPresent(topic, forKey: .topic)
        try c.encode(transitions, forKey: .transitions)
        try c.encode(deliveries, forKey: .deliveries)
        var extra = encoder.container(keyedBy: StrictKeys.AnyKey.self)
        for (k, v) in attributes.sorted(by: { $0.key < $1.key }) { try extra.encode(v, forKey: StrictKeys.AnyKey(stringValue: k)) }
    }
}
