/// What every provider's sender is built from at `initialize`: the process's options and
/// environment. The scripted test mode replaces the network and the clock.
struct SenderContext: Sendable {
    /// The sender process's environment (each provider's fallback for missing params).
    var environment: [String: String]
    var mutant: MutantSet
    var variant: Variant?
    /// Seed for backoff jitter (nil: the system generator).
    var seed: UInt64?
    /// Scripted test mode (`--scripted-<id>`): a provider's in-memory service and virtual time.
    var scripted: (any ScriptedMode)?

    /// A fresh jitter source for one sender (seeded runs are reproducible per sender).
    func jitterSource() -> JitterSource { JitterSource(seed: seed) }
    /// The scripted clock in test mode, else the system clock.
    var clock: any SenderClock { scripted?.clock ?? SystemSenderClock() }

    /// ` mutant NAME variant NAME seed N` for the providers' initialize log lines.
    var logSuffix: String {
        (mutant.isEmpty ? "" : " mutant \(mutant.names)") + (variant.map { " variant \($0.rawValue)" } ?? "")
            + (seed.map { " seed \($0)" } ?? "")
    }
}

/// One device of a `send`, parsed, with its JSON as the runner sent it (Web Push reads its
/// subscription from the raw member).
struct DriverDevice: Sendable {
    var device: TargetDevice
    var json: JSON
}

/// One provider's half of the reference sender, as ``ProviderModule`` is the fakes' seam: the
/// driver (``DriverServer``) knows no provider, only this protocol and the registry
/// (``SenderProviders``). A provider configures itself from its `initialize` member, sends to
/// the devices and targets addressed to it, finishes deferred work in `settle`, and declares
/// its planted bugs and correct variants.
protocol SenderProvider: AnyObject, Sendable {
    /// The `provider` of its devices and targets, and its key in `initialize.params.providers`.
    static var id: String { get }
    /// Its mutant table: its planted bugs (`--mutant`), each with the checks it must fail
    /// (``Mutant``), declared next to its sender.
    static var mutants: [Mutant] { get }
    /// Its correct variants (`--variant`).
    static var variants: [Variant] { get }
    /// The non-device recipient kinds it sends to (`initialize` result `targets`).
    static var targetKinds: [String] { get }
    /// The notification fields it can express under `variant` (its member of the `initialize`
    /// result's `fields`); nil = every field (nothing declared).
    static func expressibleFields(variant: Variant?) -> [String]?

    /// The sender configured by `params` (its member of `initialize.params.providers`), each
    /// field falling back to its environment variable; nil when neither configures it.
    static func configure(_ params: JSONObject?, context: SenderContext) throws(DriverError) -> Self?
    /// A fresh scripted test mode for `--scripted-<id>`, if the provider offers one.
    static func scriptedMode() -> (any ScriptedMode)?

    /// Sends one notification to its devices and targets: one result per device, then one
    /// per target, in the order given; returns when every retry is done.
    func send(_ notification: NeutralNotification, to devices: [DriverDevice], targets: [SendTarget]) async -> [DeviceResult]
    /// Finishes deferred work; the results of devices whose outcome changed.
    func settle() async -> [DeviceResult]
    /// Subscribes its devices to a topic (driver `subscribe`): one result per device, in
    /// order; nil when the provider has no topic subscriptions.
    func subscribe(topic: String, devices: [TargetDevice]) async -> [DeviceResult]?
    /// Sends a broadcast (driver `broadcast`): one result whose `device` is the channel name;
    /// nil when the provider has no broadcasts.
    func broadcast(_ params: JSON) async throws(DriverError) -> DeviceResult?
    /// Closes its connections.
    func shutdown() async
}

extension SenderProvider {
    static var variants: [Variant] { [] }
    static var targetKinds: [String] { [] }
    static func expressibleFields(variant: Variant?) -> [String]? { nil }
    func settle() async -> [DeviceResult] { [] }
    func subscribe(topic: String, devices: [TargetDevice]) async -> [DeviceResult]? { nil }
    func broadcast(_ params: JSON) async throws(DriverError) -> DeviceResult? { nil }
    static func scriptedMode() -> (any ScriptedMode)? { nil }
}
