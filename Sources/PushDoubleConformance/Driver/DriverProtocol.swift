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

/// Where and how the sender reaches the APNs fake (`initialize.params.providers.apns`).
///
/// `url` is the production host, `sandboxUrl` the sandbox host (an addition to DESIGN §4:
/// devices carry `environment`, so the sender needs both).
public struct APNsProviderConfig: Sendable, Codable, Equatable {
    public var url: String
    public var sandboxUrl: String
    public var caFile: String
    public var keyFile: String
    public var keyId: String
    public var teamId: String
    public var topic: String
    public init(url: String, sandboxUrl: String, caFile: String, keyFile: String, keyId: String, teamId: String, topic: String) {
        self.url = url; self.sandboxUrl = sandboxUrl; self.caFile = caFile; self.keyFile = keyFile
        self.keyId = keyId; self.teamId = teamId; self.topic = topic
    }
}

/// Everything the runner tells a sender about the fakes of one scenario: the
/// `initialize` params and the environment variables of DESIGN §4.
public struct SenderConfiguration: Sendable, Equatable {
    /// The test CA's PEM file (also in SSL_CERT_FILE / REQUESTS_CA_BUNDLE / PUSHDOUBLE_CA_FILE).
    public var caFile: String
    public var apns: APNsProviderConfig?
    public init(caFile: String, apns: APNsProviderConfig?) { self.caFile = caFile; self.apns = apns }

    /// `initialize` params.
    public var initializeParams: JSONValue {
        var providers: [(String, JSONValue)] = []
        if let a = apns {
            providers.append(("apns", .object([
                ("url", .string(a.url)), ("sandboxUrl", .string(a.sandboxUrl)), ("caFile", .string(a.caFile)),
                ("keyFile", .string(a.keyFile)), ("keyId", .string(a.keyId)), ("teamId", .string(a.teamId)),
                ("topic", .string(a.topic)),
            ])))
        }
        return .object([("protocolVersion", .int(Int64(DriverProtocol.version))), ("providers", .object(providers))])
    }

    /// Environment variables given to the sender process (added to the runner's own).
    public var environment: [String: String] {
        var env: [String: String] = [
            "PUSHDOUBLE_PROTOCOL": String(DriverProtocol.version),
            "SSL_CERT_FILE": caFile, "REQUESTS_CA_BUNDLE": caFile, "PUSHDOUBLE_CA_FILE": caFile,
        ]
        if let a = apns {
            env["APNS_URL"] = a.url
            env["APNS_SANDBOX_URL"] = a.sandboxUrl
            env["APNS_KEY_FILE"] = a.keyFile
            env["APNS_KEY_ID"] = a.keyId
            env["APNS_TEAM_ID"] = a.teamId
            env["APNS_TOPIC"] = a.topic
        }
        return env
    }

    /// Provider ids this configuration offers.
    public var providerIDs: [String] { apns == nil ? [] : ["apns"] }
}

/// The `initialize` result: who the sender is and which providers it supports.
public struct SenderIdentity: Sendable, Codable, Equatable {
    public var name: String
    public var version: String
    public var providers: [String]
    public init(name: String, version: String, providers: [String]) {
        self.name = name; self.version = version; self.providers = providers
    }
}
