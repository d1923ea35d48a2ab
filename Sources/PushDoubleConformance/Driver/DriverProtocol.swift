import Foundation
import PushDoubleCore

/// The wire vocabulary of driver protocol v1 (runner ↔ sender, JSON-RPC 2.0 over stdio).
///
/// One JSON object per line. The runner calls `initialize`, then `send` / `settle` as the
/// scenario's steps say, then `shutdown`. Everything here is the public contract that
/// adapters implement; `docs/conformance.md` documents it with a full example.
public enum DriverProtocol {
    /// The protocol version this runner speaks (`initialize.params.protocolVersion`).
    public static let version = 1
    /// Method names.
    public static let initialize = "initialize"
    public static let send = "send"
    public static let settle = "settle"
    public static let shutdown = "shutdown"
    /// Runner → sender, only to a sender declaring the `register` feature: "the app
    /// registered these devices' tokens again now" (params `{"devices": […]}`, result `{}`).
    public static let register = "register"
    /// Runner → sender, only to a sender declaring the `subscribe` feature: "subscribe these
    /// devices to this FCM topic" (params `{"topic": "news", "devices": […]}`, result `{"results": […]}`).
    public static let subscribe = "subscribe"
    /// Runner → sender, only to a sender declaring the `broadcast` feature: "send this Live
    /// Activity update on this broadcast channel" (params `{"provider", "channel",
    /// "environment", "messageStoragePolicy", "event", …}`, result `{"results": [one entry
    /// whose "device" is the channel name]}`; docs/conformance.md "broadcast").
    public static let broadcast = "broadcast"
}

/// The optional parts of driver protocol v1 a sender declares in its `initialize` result
/// (`"features": [...]`). Each addition to v1 is opt-in: a sender written before it declares
/// nothing and sees no change, and a case that needs a feature the sender did not declare is
/// n/a with the reason, never failed (docs/conformance.md "Optional features").
public enum SenderFeature {
    /// The sender reads each device's `registeredAt` (when the app last registered the token)
    /// and uses a token it had learnt was dead again once it was registered after the death.
    public static let registeredAt = "registeredAt"
    /// The sender implements the `register` method (the runner calls it before the send, for
    /// the devices the app registered again), the alternative to `registeredAt` for libraries
    /// whose only registration state is an "active" flag set by the app's registration call.
    public static let register = "register"
    /// The sender can authenticate with a TLS client certificate (APNs certificate-based
    /// provider authentication): given `providers.apns.certFile`, it presents that certificate
    /// instead of signing provider tokens.
    public static let certificate = "certificate"
    /// The sender manages FCM topic subscriptions: it implements the `subscribe` method (the
    /// Instance ID API's `batchAdd`), in batches of at most 1000 tokens, removing the tokens a
    /// batch reports `NOT_FOUND` and retrying 429/5xx answers.
    public static let subscribe = "subscribe"
    /// The sender sends declarative Web Push messages to a subscription the application marked
    /// so (the device's `"declarative": true`): `{"web_push": 8030, "notification": {…}}` with the
    /// notification's title and body and its `link` as `navigate` (docs/webpush.md "Declarative Web Push").
    public static let declarative = "declarative"
    /// The sender sends APNs broadcast pushes for Live Activities: it implements the
    /// `broadcast` method, creating each channel once on the channel management host with the
    /// storage policy asked for, reusing it, deleting it after an `end` event.
    public static let broadcast = "broadcast"
    /// Every feature this runner knows, for `--list` and the docs.
    public static let all: [(name: String, meaning: String)] = [
        (registeredAt, "devices carry registeredAt; a dead token registered again later is used again"),
        (register, "the runner calls register(devices) when the app registers tokens again"),
        (subscribe, "the runner calls subscribe(topic, devices): the sender subscribes the tokens to an FCM topic"),
        (certificate, "authenticates with the client certificate providers.apns.certFile instead of the key"),
        (declarative, "sends declarative Web Push messages (web_push 8030) to subscriptions marked \"declarative\": true"),
        (broadcast, "the runner calls broadcast(channel, event, …): the sender sends an APNs Live Activity broadcast on a channel it manages"),
    ]
}

/// What the sender reports for one device after a `send` (or `settle`).
public enum DeliveryOutcome: String, Sendable, Codable, CaseIterable {
    /// Accepted by the provider.
    case sent
    /// Accepted, final state comes later (Expo ticket).
    case pending
    /// The token is gone; the sender will not use it again.
    case dead
    /// The message itself is invalid (e.g. too large); not retried.
    case rejected
    /// Transient failure, retries exhausted.
    case failed
    /// Not attempted (e.g. known dead).
    case skipped
    /// Never attempted: the library aborted the batch before reaching this device (distinct
    /// from `skipped`, a choice, and `failed`, an attempt that did not succeed).
    case aborted
}

/// One element of `send.result.results` / `settle.result.results`.
public struct DeviceResult: Sendable, Codable, Equatable {
    public var device: String
    public var outcome: DeliveryOutcome
    public var reason: String?
    public var providerMessageId: String?
    public init(device: String, outcome: DeliveryOutcome, reason: String? = nil, providerMessageId: String? = nil) {
        self.device = device; self.outcome = outcome; self.reason = reason; self.providerMessageId = providerMessageId
    }
}

/// Everything the runner tells a sender about the fakes of one scenario: the
/// `initialize` params and the environment variables of the driver protocol (docs/conformance.md), as the provider modules
/// rendered them once the fakes' ports were bound (``SenderMaterial``).
public struct SenderConfiguration: Sendable, Equatable {
    /// The test CA's PEM file (also in SSL_CERT_FILE / REQUESTS_CA_BUNDLE / PUSHDOUBLE_CA_FILE).
    public var caFile: String
    /// `initialize.params.providers`, one object per provider, in registry order.
    public var providers: [(id: String, parameters: JSONValue)]
    /// Environment lines for the sender process (added to the runner's own), in order.
    public var environmentLines: [(String, String)]

    public init(caFile: String, providers: [(id: String, parameters: JSONValue)], environment: [(String, String)]) {
        self.caFile = caFile; self.providers = providers; self.environmentLines = environment
    }

    public static func == (a: SenderConfiguration, b: SenderConfiguration) -> Bool {
        a.caFile == b.caFile && a.providers.count == b.providers.count
            && zip(a.providers, b.providers).allSatisfy { $0.id == $1.id && $0.parameters == $1.parameters }
            && a.environmentLines.count == b.environmentLines.count
            && zip(a.environmentLines, b.environmentLines).allSatisfy { $0 == $1 }
    }

    /// `initialize` params.
    public var initializeParams: JSONValue {
        .object([("protocolVersion", .int(Int64(DriverProtocol.version))),
                 ("providers", .object(providers.map { ($0.id, $0.parameters) }))])
    }

    /// Environment variables given to the sender process (added to the runner's own).
    public var environment: [String: String] {
        var env: [String: String] = [:]
        for (k, v) in environmentLines { env[k] = v }
        return env
    }

    /// One provider's `initialize` params, if this configuration offers it.
    public func parameters(of provider: String) -> JSONValue? { providers.first { $0.id == provider }?.parameters }

    /// Provider ids this configuration offers.
    public var providerIDs: [String] { providers.map(\.id) }
}

/// The `initialize` result: who the sender is and which providers it supports.
public struct SenderIdentity: Sendable, Codable, Equatable {
    public var name: String
    public var version: String
    public var providers: [String]
    /// The non-device recipients it sends to (`fcm.topic`, `fcm.condition`; optional in v1,
    /// nil = none): a case naming a kind not listed is n/a for this sender.
    public var targets: [String]?
    /// The optional protocol features it declared (``SenderFeature``; nil = none).
    public var features: [String]?
    /// Per provider id, the notification fields (``NotificationField``) the sender can express
    /// for that provider (optional in v1; nil, or a provider not in the map = every field).
    /// A check of a field the sender declared it cannot express is n/a, never passed.
    public var fields: [String: [String]]?
    /// The providers for which the sender declared coarse outcomes (`"outcomes": "coarse"` for
    /// all, or `{"<provider>": "coarse"}`; optional in v1, nil = precise everywhere): it reports
    /// only whether a push went out, so `dead`, `rejected` and `failed` are judged as one.
    public var coarseOutcomes: [String]?
    public init(name: String, version: String, providers: [String], targets: [String]? = nil, features: [String]? = nil,
                fields: [String: [String]]? = nil, coarseOutcomes: [String]? = nil) {
        self.name = name; self.version = version; self.providers = providers; self.targets = targets; self.features = features
        self.fields = fields; self.coarseOutcomes = coarseOutcomes
    }

    /// Whether the sender declared coarse outcomes for `provider`.
    public func reportsCoarseOutcomes(for provider: String) -> Bool { coarseOutcomes?.contains(provider) ?? false }

    /// Reads the `outcomes` member of an `initialize` result: `"coarse"` or `"precise"` for every
    /// provider of `providers`, or an object mapping provider ids to one of them. Returns the
    /// coarse providers (nil when none), or the problem.
    public static func coarseOutcomes(_ value: JSONValue, providers: [String]) -> Result<[String]?, DeclarationProblem> {
        let kinds = ["coarse", "precise"]
        if let all = value.stringValue {
            guard kinds.contains(all) else { return .failure(DeclarationProblem("\"outcomes\" must be \"coarse\" or \"precise\", not \"\(all)\"")) }
            return .success(all == "coarse" ? providers : nil)
        }
        guard let members = value.objectValue else {
            return .failure(DeclarationProblem("\"outcomes\" must be \"coarse\", \"precise\" or an object of provider ids to one of them"))
        }
        var coarse: [String] = []
        for (provider, kind) in members {
            guard let k = kind.stringValue, kinds.contains(k) else {
                return .failure(DeclarationProblem("\"outcomes\".\(provider) must be \"coarse\" or \"precise\""))
            }
            if k == "coarse" { coarse.append(provider) }
        }
        return .success(coarse.isEmpty ? nil : coarse)
    }

    /// A malformed declaration in an `initialize` result.
    public struct DeclarationProblem: Error, Sendable {
        public var problem: String
        init(_ problem: String) { self.problem = problem }
    }

    /// What the sender can express of the notification, per provider (``SenderFields``).
    public var expressible: SenderFields { SenderFields(fields) }

    /// Whether it declared `feature`.
    public func supports(_ feature: String) -> Bool { features?.contains(feature) ?? false }
}
