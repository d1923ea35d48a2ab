import Foundation
import PushDoubleTransport

/// One provider as the double assembles it: the seam every provider module implements once
/// (APNs, FCM, Expo, Web Push), and the only thing the in-process server, `serve`, `replay`,
/// the conformance runner's fake host and the help text know about a provider.
///
/// A module is a stateless description. ``instantiate(options:context:)`` builds the running
/// fake (with its state: keys, access tokens, receipts) for one double from the module's
/// options — the `fakeOptions.<provider>` object of a scenario file, or `serve --option` — and
/// the instance then says how it listens, which admin routes it adds and what a sender must be
/// told once the ports are bound (``ProviderInstance``).
///
/// Registered in one list (`FakeRegistry.modules` in the PushDouble library); adding a provider
/// adds a module folder and one line there (docs/adding-a-provider.md).
public protocol ProviderModule: Sendable {
    /// The provider id of scenario files, devices, the history and the admin API.
    var provider: ProviderID { get }
    /// A human name for help text and the banner ("Apple Push Notification service").
    var title: String { get }
    /// The listeners this provider opens, with their documented default ports (help text,
    /// README port table). Must match the names of the instance's ``ProviderInstance/listeners``.
    var listenerDefaults: [ListenerDefault] { get }
    /// Keys ``instantiate(options:context:)`` accepts in its options object, for help text and
    /// error messages.
    var optionKeys: [String] { get }
    /// Every endpoint id the provider's fakes admit requests as, which of them carry
    /// notifications (a fault rule naming no endpoint hits only those) and the reasons a
    /// `respond` rule may name on each (``ProviderEndpoint``). The admin API refuses any other
    /// endpoint or reason (docs/core.md "Names are checked").
    var endpoints: [ProviderEndpoint] { get }

    /// Builds the fake for one double. `options` is the provider's options object (nil =
    /// defaults); an unknown key or a bad value throws a ``ScenarioError`` whose path starts with
    /// `context.optionsPath`.
    func instantiate(options: JSONValue?, context: ProviderBuildContext) throws -> any ProviderInstance

    /// Validates (and may complete) a device of this provider before it is registered: the
    /// provider's device schema. `device.attributes` holds the members of the device JSON the
    /// core does not know (Web Push: `subscription`); a module throws
    /// ``DeviceSchemaError`` for an attribute it does not accept, and fills `device.token`
    /// when the provider derives it from attributes. Default: no attributes accepted.
    func validateDevice(_ device: inout Device) throws

    /// How the inbox shows this provider's notifications (``InboxView``). Default: none (the
    /// inbox then shows the recorded notification as JSON).
    var inboxView: InboxView? { get }

    /// What the inbox offers on each of this provider's devices (``DeviceAction``): make dead,
    /// throttle, fail, … in the provider's own answers. Default: none.
    var deviceActions: [DeviceAction] { get }

    /// How the inbox creates a device of this provider (``DeviceForm``). Default: `POST /devices`
    /// with a token.
    var deviceForm: DeviceForm { get }
}

extension ProviderModule {
    public var optionKeys: [String] { [] }

    public func validateDevice(_ device: inout Device) throws {
        try DeviceSchemaError.refuseAttributes(of: device, allowed: [])
    }

    public var inboxView: InboxView? { nil }

    public var deviceActions: [DeviceAction] { [] }

    public var deviceForm: DeviceForm { DeviceForm(fields: [.token]) }

    /// The common check of an options object: it is an object and names only `optionKeys`.
    /// Returns its members (empty for nil).
    public func optionMembers(_ options: JSONValue?, context: ProviderBuildContext) throws -> [(String, JSONValue)] {
        guard let options else { return [] }
        guard let members = options.objectValue else {
            throw ScenarioError(file: context.file, path: context.optionsPath, message: "expected an object")
        }
        for (k, _) in members where !optionKeys.contains(k) {
            throw ScenarioError(file: context.file, path: context.optionsPath + "." + k,
                                message: "unknown option; expected one of " + optionKeys.sorted().joined(separator: ", "))
        }
        return members
    }
}

/// A provider fake built for one double: its listeners, admin routes and sender material.
public protocol ProviderInstance: Sendable {
    /// The listeners to open (each with its ``ProviderFake``); names are unique across providers.
    var listeners: [FakeListenerSpec] { get }
    /// Provider-specific admin API routes (Expo receipts release, Web Push subscriptions, FCM
    /// token revocation), served next to the core's. Default: none.
    var adminRoutes: [AdminRoute] { get }
    /// Routes this provider serves on other providers' listeners, by the real host those
    /// listeners stand in for (``HostRoute``; Web Push's `/fcm/send/` paths on
    /// `fcm.googleapis.com`). Default: none.
    var hostRoutes: [HostRoute] { get }
    /// What a sender needs to reach this fake, rendered once the listeners are bound:
    /// credential files, environment lines (docs/conformance.md "Driver protocol v1") and the driver's `initialize` params.
    /// nil when the provider has nothing bound (no listener of it is open).
    func senderMaterial(_ context: SenderMaterialContext) throws -> SenderMaterial?
}

extension ProviderInstance {
    public var adminRoutes: [AdminRoute] { [] }
    public var hostRoutes: [HostRoute] { [] }
}

/// One listener a provider opens by default, for help text and the port table.
public struct ListenerDefault: Sendable, Equatable {
    /// Listener name ("apns-production"); also the key of `--port`-style overrides.
    public var name: String
    public var defaultPort: Int
    /// What it serves, one short line ("APNs production, TLS, h2 only").
    public var summary: String
    /// The real service's host names (and ports) this listener stands in for
    /// ("api.push.apple.com:443"): what the CONNECT proxy routes here. Empty = none.
    public var realHosts: [String]
    public init(name: String, defaultPort: Int, summary: String, realHosts: [String] = []) {
        self.name = name; self.defaultPort = defaultPort; self.summary = summary; self.realHosts = realHosts
    }
}

/// What a module gets to build its fake.
public struct ProviderBuildContext: Sendable {
    /// The double's clock (fakes date some answers with it).
    public var clock: any DoubleClock
    /// Where the options came from, for errors ("apns.tcp-drop.json", "--option").
    public var file: String
    /// JSON path of the options object in that source ("fakeOptions.apns").
    public var optionsPath: String
    /// The double the instance serves (its devices and history), for admin routes that
    /// register devices or read the history; nil when the instance is built only to list its
    /// listeners or to check options.
    public var double: DoubleState?
    /// The double's bound listeners once it has started (empty before): for admin routes that
    /// answer with a listener's URL (a Web Push subscription's endpoint).
    public var endpoints: @Sendable () -> [DoubleEndpoint]
    public init(clock: any DoubleClock, file: String = "<options>", optionsPath: String, double: DoubleState? = nil,
                endpoints: @escaping @Sendable () -> [DoubleEndpoint] = { [] }) {
        self.clock = clock; self.file = file; self.optionsPath = optionsPath
        self.double = double; self.endpoints = endpoints
    }
}

/// An admin API route a provider adds (method, path pattern of the transport's ``Router``,
/// handler). The handler answers with a JSON response; errors use the admin API's
/// `{"error":"…"}` shape (``AdminRoute/error(_:_:)``).
public struct AdminRoute: Sendable {
    public var method: String
    /// A ``Router`` pattern, e.g. "/expo/receipts/release" or "/webpush/subscriptions/:id".
    public var path: String
    public var handler: @Sendable (HTTPRequest, RouteParameters) -> HTTPResponse
    public init(_ method: String, _ path: String, handler: @escaping @Sendable (HTTPRequest, RouteParameters) -> HTTPResponse) {
        self.method = method; self.path = path; self.handler = handler
    }

    /// The admin API's error shape: `{"error":"…"}` with `status`.
    public static func error(_ status: Int, _ message: String) -> HTTPResponse { AdminHandlers.error(status, message) }

    /// A JSON answer.
    public static func json(_ status: Int, _ value: JSONValue) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: value.compactJSON + "\n")
    }
}

/// What a provider hands a sender (docs/conformance.md "Driver protocol v1"), rendered after the listeners are bound.
/// Sender parameters whose meaning is not one provider's own.
public enum SenderCredential {
    /// `providers.<id>.certFile`: authenticate with this TLS client certificate (PEM, with its
    /// key) instead of the provider's key. Only a sender that declared the driver feature
    /// `certificate` is run with it (docs/conformance.md "Optional features").
    public static let certificateParameter = "certFile"
}

public struct SenderMaterial: Sendable {
    /// Environment lines in order (`APNS_URL`, `FCM_SERVICE_ACCOUNT_FILE`, …); also written
    /// under `"environment"` in the endpoints file.
    public var environment: [(String, String)]
    /// The provider's object under `initialize` → `providers.<id>` of the driver protocol.
    public var driverParameters: JSONValue
    public init(environment: [(String, String)], driverParameters: JSONValue) {
        self.environment = environment; self.driverParameters = driverParameters
    }
}

/// What a provider may use to render its ``SenderMaterial``: the bound endpoints, the CA file
/// and a private directory to write credential files into.
public struct SenderMaterialContext: Sendable {
    /// Every bound listener of the double.
    public var endpoints: [DoubleEndpoint]
    /// The test CA file senders must trust, if TLS credentials are configured.
    public var caFile: String?
    /// A private (0700) directory owned by the caller; removed with it.
    public var directory: URL

    public init(endpoints: [DoubleEndpoint], caFile: String?, directory: URL) {
        self.endpoints = endpoints; self.caFile = caFile; self.directory = directory
    }

    /// The URL of the listener named `name`, if it is bound.
    public func url(_ name: String) -> String? { endpoints.first { $0.name == name }?.url }

    /// Writes `contents` to `name` inside ``directory`` (0600) and returns its path.
    public func writeFile(_ name: String, contents: String) throws -> String {
        try writeFile(name, data: Data(contents.utf8))
    }

    /// ``writeFile(_:contents:)`` for binary contents (a PKCS#12 file).
    public func writeFile(_ name: String, data: Data) throws -> String {
        let url = directory.appendingPathComponent(name)
        try data.write(to: url, options: .atomic)
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        return url.path
    }
}

/// A device its provider's schema refuses (unknown attribute, missing subscription, …).
public struct DeviceSchemaError: Error, Equatable, CustomStringConvertible {
    public var deviceID: String
    /// The device JSON member at fault ("subscription.keys.p256dh").
    public var field: String
    public var message: String
    public init(deviceID: String, field: String, message: String) {
        self.deviceID = deviceID; self.field = field; self.message = message
    }
    public var description: String { "device \"\(deviceID)\": \(field): \(message)" }

    /// Throws for the first attribute of `device` not in `allowed` (the core's strict-keys
    /// rule, applied once the provider is known).
    public static func refuseAttributes(of device: Device, allowed: Set<String>) throws {
        if let (k, _) = device.attributes.first(where: { !allowed.contains($0.0) }) {
            var expected = Device.coreKeys.sorted()
            expected += allowed.sorted()
            throw DeviceSchemaError(deviceID: device.id, field: k,
                                    message: "unknown field for a \(device.provider) device; expected one of " + expected.joined(separator: ", "))
        }
    }
}
