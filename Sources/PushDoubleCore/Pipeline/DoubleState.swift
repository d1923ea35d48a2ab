import Foundation
import PushDoubleTransport
import Synchronization

/// Everything one running double shares across its fakes: clock, devices, fault rules,
/// history. Provider-agnostic; fakes plug in through ``pipeline(for:environment:)``.
///
/// Thread-safe (each component has its own lock).
public final class DoubleState: Sendable {
    public let clock: any DoubleClock
    public let devices: DeviceRegistry
    public let faults: FaultEngine
    public let history: HistoryStore
    /// The names rules, devices and queries may use (``NameCatalogue``); see ``register(_:)``.
    public let names = NameCatalogue()
    private let fakes = Locked<[ProviderID: any ProviderFake]>([:])
    private let loaded = Locked<[String]>([])
    /// What `reset` also forgets, per provider: state a fake keeps beside devices, rules and
    /// history (``onReset(of:_:)``).
    private let resetActions = Locked<[(provider: ProviderID, action: @Sendable () -> Void)]>([])
    /// Every pipeline made, held weakly: a pipeline holds its double, and the listener that
    /// owns the pipeline decides how long it lives (a strong list here made a cycle that kept
    /// every stopped server's state alive).
    private let pipelines = Locked<[WeakPipeline]>([])
    private struct WeakPipeline { weak var pipeline: DoublePipeline? }
    /// Requests inside a pipeline right now (admitted, not yet recorded).
    private let inFlight = Atomic<Int>(0)

    /// - Parameters:
    ///   - historyCap: most exchanges kept; older ones are dropped and counted.
    ///   - historyMaxBytes: most bytes of history kept (``HistoryStore/init(cap:maxBytes:)``);
    ///     older exchanges are dropped and counted the same way.
    ///   - seed: seed of the fault engine's generator.
    ///   - defaultWorld: world mode of providers a scenario does not set.
    public init(clock: any DoubleClock = SystemClock(), historyCap: Int = 50_000,
                historyMaxBytes: Int = HistoryStore.defaultMaxBytes, seed: UInt64 = 0, defaultWorld: WorldMode = .open) {
        self.clock = clock
        devices = DeviceRegistry(clock: clock, defaultWorld: defaultWorld)
        faults = FaultEngine(clock: clock, seed: seed)
        history = HistoryStore(cap: historyCap, maxBytes: historyMaxBytes)
    }

    /// Registers one provider's catalogue: its names are checked from now on, and a fault rule
    /// naming no endpoint no longer hits the provider's non-send endpoints.
    public func register(_ catalogue: ProviderCatalogue) {
        names.register(catalogue)
        faults.setNamedOnlyEndpoints(names.namedOnlyEndpoints)
    }

    /// Checks a rule's names against the registered catalogues (``NameCatalogue/check(_:)``).
    public func check(rule: FaultRule) throws { try names.check(rule) }

    /// Checks a device's provider against the registered catalogues.
    public func check(device: Device) throws { try names.check(provider: device.provider, field: "provider") }

    /// The request path for one listener of `fake` (also registers the fake by provider).
    public func pipeline(for fake: any ProviderFake, environment: String? = nil) -> DoublePipeline {
        fakes.withLock { $0[fake.provider] = fake }
        let p = DoublePipeline(fake: fake, double: self, environment: environment)
        pipelines.withLock { list in
            list.removeAll { $0.pipeline == nil }
            list.append(WeakPipeline(pipeline: p))
        }
        return p
    }

    func requestStarted() { inFlight.add(1, ordering: .relaxed) }
    func requestFinished() { inFlight.subtract(1, ordering: .relaxed) }

    /// The quiesce point: waits until no request is inside a pipeline and every answer a
    /// fault rule shaped (delayed, dribbled, reset, …) has its final outcome recorded, so a
    /// history read afterwards is complete. Returns false if that did not happen within
    /// `timeout` seconds (a stalled answer on a connection that is still open).
    @discardableResult
    public func quiesce(timeout: Double = 1) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let busy = inFlight.load(ordering: .acquiring) > 0 || pipelines.withLock { $0.contains { ($0.pipeline?.pendingOutcomes ?? 0) > 0 } }
            if !busy { return true }
            if Date() >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.001)
        }
    }

    /// Providers with a fake plugged in.
    public var providers: [ProviderID] { fakes.withLock { Array($0.keys) }.sorted { $0.rawValue < $1.rawValue } }

    /// Ids of scenarios loaded since the last full reset, in order.
    public var loadedScenarios: [String] { loaded.withLock { $0 } }

    /// Applies a scenario: world modes, seed, devices, then fault rules and quotas.
    ///
    /// - Parameter merge: false (default) resets devices, rules and history first, so the
    ///   scenario runs from a clean state; true adds to what is loaded (ids must not clash).
    public func load(_ scenario: Scenario, merge: Bool = false) throws {
        let rules = scenario.rules
        for r in rules {
            do { try check(rule: r) } catch var u as UnknownName { u.field = "rule \"\(r.id)\" \(u.field)"; throw u }
        }
        for d in scenario.devices {
            do { try check(device: d) } catch var u as UnknownName { u.field = "device \"\(d.id)\" \(u.field)"; throw u }
        }
        for name in scenario.providers.keys.sorted() { try names.check(provider: ProviderID(rawValue: name), field: "providers") }
        if !merge { reset() }
        try faults.add(contentsOf: rules)
        do {
            for d in scenario.devices { try devices.register(d) }
        } catch {
            for r in rules { faults.remove(id: r.id) }
            throw error
        }
        for (name, options) in scenario.providers {
            if let w = options.world { devices.setWorld(w, for: ProviderID(rawValue: name)) }
        }
        if let seed = scenario.seed { faults.reseed(seed) }
        loaded.withLock { $0.append(scenario.id) }
    }

    /// Forgets devices, fault rules and history, of one provider or all (the generator
    /// restarts from its seed).
    public func reset(provider: ProviderID? = nil) {
        devices.reset(provider: provider)
        faults.reset(provider: provider)
        if let p = provider { history.clear(provider: p) } else {
            history.clear()
            loaded.withLock { $0.removeAll() }
        }
        for r in resetActions.withLock({ $0 }) where provider == nil || r.provider == provider { r.action() }
    }

    /// Registers what `reset` (of `provider`, or of everything) must also forget: state a
    /// provider's fake keeps beside devices, rules and history (APNs broadcast channels, FCM
    /// topic subscriptions), so a reset double is as a fresh one.
    public func onReset(of provider: ProviderID, _ action: @escaping @Sendable () -> Void) {
        resetActions.withLock { $0.append((provider, action)) }
    }
}
