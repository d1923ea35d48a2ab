import Foundation

/// One thing the inbox can do to a device with one click ("make dead", "throttle the next 3"),
/// contributed by the device's provider (``ProviderModule/deviceActions``) so each provider
/// offers its own answers, and served by `GET /catalogue` under each provider.
///
/// An action is data, applied with the admin API calls anyone can make (docs/inbox.md
/// "Device actions"): a state or an attribute change is a `PUT /devices/{id}`, an armed answer
/// is a `POST /faults` of a rule matching the device, with `times` the count the console asks for.
///
/// JSON: `{"id":"dead","label":"Make dead","summary":"…","effect":{"kind":"state","state":"unregistered"}}`.
public struct DeviceAction: Sendable, Equatable, Encodable {
    /// What applying the action changes.
    public enum Effect: Sendable, Equatable {
        /// Puts the device in `state` (`unregistered`: dead since the moment it is applied)
        /// and/or sets provider attributes of it (Expo's `receipt`).
        case device(state: DeviceStateKind?, attributes: [String: JSONValue])
        /// Moves the device to the first of these environments it is not in (a token of the
        /// other environment than the one the sender pushes to).
        case environment([String])
        /// Arms a fault rule for the device's next requests: `match` names the provider and the
        /// device, `times` is the count asked for.
        case rule(FaultAction)
    }

    /// Unique within the provider ("dead", "throttle").
    public var id: String
    /// The button's text.
    public var label: String
    /// What the provider then answers, one line.
    public var summary: String
    public var effect: Effect
    /// The console also removes the rules armed for the device (revive).
    public var clearsRules: Bool

    public init(id: String, label: String, summary: String, effect: Effect, clearsRules: Bool = false) {
        self.id = id; self.label = label; self.summary = summary; self.effect = effect; self.clearsRules = clearsRules
    }

    /// A state change only.
    public init(id: String, label: String, summary: String, state: DeviceStateKind) {
        self.init(id: id, label: label, summary: summary, effect: .device(state: state, attributes: [:]))
    }

    enum CodingKeys: String, CodingKey { case id, label, summary, effect, clearsRules }
    enum EffectKeys: String, CodingKey { case kind, state, environments, attributes, action }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(label, forKey: .label)
        try c.encode(summary, forKey: .summary)
        if clearsRules { try c.encode(true, forKey: .clearsRules) }
        var e = c.nestedContainer(keyedBy: EffectKeys.self, forKey: .effect)
        switch effect {
        case .device(let s, let a):
            try e.encode("device", forKey: .kind)
            try e.encodeIfPresent(s, forKey: .state)
            if !a.isEmpty { try e.encode(a, forKey: .attributes) }
        case .environment(let list): try e.encode("environment", forKey: .kind); try e.encode(list, forKey: .environments)
        case .rule(let a): try e.encode("rule", forKey: .kind); try e.encode(a, forKey: .action)
        }
    }

    /// The fault rule the action arms for `device`, `times` times (nil for a state or attribute change).
    public func rule(id ruleID: String, for device: Device, times: Int) -> FaultRule? {
        guard case .rule(let action) = effect else { return nil }
        return FaultRule(id: ruleID, match: FaultMatch(provider: device.provider, device: device.id), action: action, times: times)
    }

    // MARK: the actions every provider shares, in its own words

    /// The device's token unregistered now (`state: unregistered`); `summary` says what the provider answers then.
    public static func dead(_ summary: String) -> DeviceAction {
        DeviceAction(id: "dead", label: "Make dead", summary: summary, state: .unregistered)
    }

    /// Back to `active` with `attributes`; the console also removes the rules armed for the device.
    public static func revive(attributes: [String: JSONValue] = [:]) -> DeviceAction {
        DeviceAction(id: "revive", label: "Revive", summary: "active again; rules armed for this device are removed",
                     effect: .device(state: .active, attributes: attributes), clearsRules: true)
    }

    /// The next request(s) for the device: the connection is closed without an answer.
    public static let dropNextConnection = DeviceAction(id: "drop", label: "Drop next connection",
                                                        summary: "the connection closes without an answer", effect: .rule(.drop))

    /// The next request(s) answered with `reason` (or a bare `status` when the provider has no reason for it).
    public static func respond(id: String, label: String, summary: String, reason: String? = nil, status: Int? = nil,
                               retryAfter: RetryAfter? = nil) -> DeviceAction {
        DeviceAction(id: id, label: label, summary: summary,
                     effect: .rule(.respond(ResponseSpec(reason: reason, status: status, retryAfter: retryAfter))))
    }
}

/// How the inbox creates a device of one provider (``ProviderModule/deviceForm``): the admin
/// route it posts to and the fields it asks for, the provider's own (APNs environment, Expo
/// receipt outcome, Web Push service style). The console always asks for an `id`; for
/// `POST /devices` it adds `provider`.
public struct DeviceForm: Sendable, Equatable, Encodable {
    /// One field of the form: a JSON member of the request body.
    public struct Field: Sendable, Equatable, Encodable {
        public var name: String
        public var label: String
        /// The values offered (a select, the first the default); nil = free text.
        public var values: [String]?
        public var required: Bool
        public init(_ name: String, label: String, values: [String]? = nil, required: Bool = false) {
            self.name = name; self.label = label; self.values = values; self.required = required
        }
        /// The device token, as the provider spells it.
        public static let token = Field("token", label: "Token", required: true)
    }
    /// The admin route the form posts to ("/devices", "/webpush/subscriptions").
    public var route: String
    public var fields: [Field]
    public init(route: String = "/devices", fields: [Field]) { self.route = route; self.fields = fields }
}
