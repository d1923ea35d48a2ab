import Foundation
import PushDoubleTransport

/// One request endpoint a provider's fakes answer, by the id fault rules and the history use
/// ("apns.push", "oauth.token", "expo.getReceipts"), with the reasons a `respond` rule may
/// name there.
///
/// `send` endpoints carry notifications; a fault rule that names no endpoint hits only those.
/// Every other endpoint (a token endpoint, receipts, a fallback for unknown paths) is hit only
/// by a rule that names it, so "fail the next 2 FCM requests" never quietly fails the OAuth
/// token mint instead of the send.
public struct ProviderEndpoint: Sendable, Equatable, Encodable {
    /// What the endpoint is for.
    public enum Kind: String, Sendable, Encodable {
        /// Carries notifications (the default target of a provider-level rule).
        case send
        /// Mints or checks credentials (Google's OAuth token endpoint).
        case token
        /// Reads back what an earlier send produced (Expo receipts).
        case receipts
        /// Manages who receives what (FCM topic subscriptions through the Instance ID API).
        case subscriptions
        /// Answers requests to no documented path.
        case other
    }
    public var id: String
    public var kind: Kind
    /// The reasons the provider sends on this endpoint, as a `respond` rule names them.
    public var reasons: [String]
    /// What the endpoint is, one line (shown by `GET /catalogue`).
    public var summary: String

    public init(_ id: String, kind: Kind, summary: String, reasons: [String]) {
        self.id = id; self.kind = kind; self.summary = summary; self.reasons = reasons
    }

    /// Whether a rule that names no endpoint hits this one.
    public var isSend: Bool { kind == .send }
}

/// Every name the admin API and scenario files accept for one provider: its endpoints (with
/// their reasons), its option keys and the inbox's actions on its devices. Built from the provider's module (``ProviderModule``),
/// so each fact has one source; served by `GET /catalogue` for the kits.
public struct ProviderCatalogue: Sendable, Equatable, Encodable {
    public var provider: ProviderID
    public var endpoints: [ProviderEndpoint]
    public var optionKeys: [String]
    /// What the inbox offers on the provider's devices (``ProviderModule/deviceActions``).
    public var deviceActions: [DeviceAction]
    /// How the inbox creates a device of the provider (``ProviderModule/deviceForm``); nil = `POST /devices` with a token.
    public var deviceForm: DeviceForm?

    public init(provider: ProviderID, endpoints: [ProviderEndpoint], optionKeys: [String], deviceActions: [DeviceAction] = [],
                deviceForm: DeviceForm? = nil) {
        self.provider = provider; self.endpoints = endpoints; self.optionKeys = optionKeys; self.deviceActions = deviceActions
        self.deviceForm = deviceForm
    }

    public init(module: any ProviderModule) {
        self.init(provider: module.provider, endpoints: module.endpoints, optionKeys: module.optionKeys, deviceActions: module.deviceActions,
                  deviceForm: module.deviceForm)
    }

    public func endpoint(_ id: String) -> ProviderEndpoint? { endpoints.first { $0.id == id } }
}

/// A name the catalogue does not know: the field, the value and the valid values, so the
/// admin API's 400 (and the kits' `ValueError`) can list them.
public struct UnknownName: Error, Equatable, CustomStringConvertible {
    /// Where the name was given ("match.provider", "action.reason", "provider").
    public var field: String
    public var value: String
    /// What is accepted there, sorted.
    public var valid: [String]
    /// Extra advice appended to the message (how to send a reason the provider never sends).
    public var hint: String?

    public init(field: String, value: String, valid: [String], hint: String? = nil) {
        self.field = field; self.value = value; self.valid = valid; self.hint = hint
    }

    public var description: String {
        "\(field): unknown value \"\(value)\"; expected one of " + valid.joined(separator: ", ") + (hint.map { " (\($0))" } ?? "")
    }
}

/// The catalogues of the providers one double serves, and the checks every name goes through
/// before a rule, a device or a query is accepted (``DoubleState/names``).
///
/// Empty (a double assembled by hand, without modules): every name is accepted, as before the
/// catalogue existed. The in-process server registers every module's catalogue at start-up.
public final class NameCatalogue: Sendable {
    private let catalogues = Locked<[ProviderCatalogue]>([])

    public init() {}

    /// Adds (or replaces) one provider's catalogue.
    public func register(_ catalogue: ProviderCatalogue) {
        catalogues.withLock { list in
            list.removeAll { $0.provider == catalogue.provider }
            list.append(catalogue)
            list.sort { $0.provider.rawValue < $1.provider.rawValue }
        }
    }

    /// Every registered catalogue, by provider id.
    public var all: [ProviderCatalogue] { catalogues.withLock { $0 } }

    /// The endpoints a rule must name to hit: every registered endpoint that is not a send one.
    public var namedOnlyEndpoints: Set<String> {
        Set(all.flatMap { $0.endpoints.filter { !$0.isSend }.map(\.id) })
    }

    /// The device states a device or a transition may name.
    public static var deviceStates: [String] { DeviceStateKind.allCases.map(\.rawValue) }

    // MARK: checks

    /// `provider` if it is registered (or nothing is), else ``UnknownName``.
    public func check(provider: ProviderID, field: String = "provider") throws {
        let list = all
        guard !list.isEmpty, !list.contains(where: { $0.provider == provider }) else { return }
        throw UnknownName(field: field, value: provider.rawValue, valid: list.map(\.provider.rawValue))
    }

    /// An endpoint id, of `provider` when given, else of any provider (or one of `also`).
    public func check(endpoint: String, provider: ProviderID?, field: String = "endpoint", also: [String] = []) throws {
        let list = all.filter { provider == nil || $0.provider == provider }
        guard !all.isEmpty else { return }
        let ids = list.flatMap { $0.endpoints.map(\.id) } + also
        guard !ids.contains(endpoint) else { return }
        throw UnknownName(field: field, value: endpoint, valid: ids.sorted())
    }

    /// The provider, endpoint and reasons of a rule: a reason must be one that every endpoint
    /// the rule can hit sends, unless the rule's response is marked `custom`.
    public func check(_ rule: FaultRule) throws {
        guard !all.isEmpty else { return }
        if let p = rule.match.provider { try check(provider: p, field: "match.provider") }
        if let e = rule.match.endpoint { try check(endpoint: e, provider: rule.match.provider, field: "match.endpoint") }
        let targets = endpoints(hitBy: rule.match)
        for (field, reason) in Self.reasons(of: rule.action, path: "action") {
            for (provider, endpoint) in targets where !endpoint.reasons.contains(reason) {
                throw UnknownName(field: field, value: reason, valid: endpoint.reasons.sorted(),
                                  hint: "the reasons \(provider) sends on \(endpoint.id); mark the response \"custom\": true to send another")
            }
        }
    }

    /// The endpoints a match can hit: the named one, or every send endpoint (of its provider).
    func endpoints(hitBy match: FaultMatch) -> [(ProviderID, ProviderEndpoint)] {
        all.filter { match.provider == nil || $0.provider == match.provider }.flatMap { c in
            c.endpoints.filter { endpoint in match.endpoint.map { endpoint.id == $0 } ?? endpoint.isSend }.map { (c.provider, $0) }
        }
    }

    /// Every reason an action names that is not marked custom, with its JSON path.
    static func reasons(of action: FaultAction, path: String) -> [(String, String)] {
        func spec(_ s: ResponseSpec?, _ p: String) -> [(String, String)] {
            guard let s, let r = s.reason, !s.custom else { return [] }
            return [(p + ".reason", r)]
        }
        switch action {
        case .respond(let s): return spec(s, path)
        case .delay(_, let then): return reasons(of: then, path: path + ".then")
        case .goAway(_, _, _, let then): return then.map { reasons(of: $0, path: path + ".then") } ?? []
        case .dribble(_, _, let r), .truncate(_, let r): return spec(r, path + ".response")
        case .quota(let q): return q.reason.map { [(path + ".reason", $0)] } ?? []
        case .drop, .reset, .stall, .continue: return []
        }
    }

    /// The valid values of every name, as `GET /catalogue` serves them.
    public struct Document: Encodable {
        public var providers: [ProviderCatalogue]
        public var deviceStates: [String]
        public var worlds: [String]
    }

    public var document: Document {
        Document(providers: all, deviceStates: Self.deviceStates, worlds: WorldMode.allCases.map(\.rawValue))
    }
}
