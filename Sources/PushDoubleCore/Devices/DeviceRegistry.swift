import Foundation
import PushDoubleTransport
import Synchronization

/// Counts accepted deliveries to one registered device without the registry's lock.
///
/// Returned by ``DeviceRegistry/lookupForDelivery(provider:token:fake:now:)``. Counting is
/// an atomic increment; the registry's lock is taken only when the count reaches a
/// scheduled `afterDeliveries` transition. A handle of a device removed or replaced
/// meanwhile counts into the old record, harmlessly.
public struct DeliveryCounter: Sendable {
    let slot: DeviceRegistry.Slot
    let registry: DeviceRegistry

    /// Counts one accepted delivery; applies the transitions it triggers.
    public func recordDelivery(now: Date) {
        let n = slot.deliveries.add(1, ordering: .relaxed).newValue
        if n >= slot.nextThreshold.load(ordering: .relaxed) { registry.applyDeliveryTransitions(slot, now: now) }
    }
}

/// Devices per provider and their scheduled state transitions (open or closed world).
///
/// Thread-safe: the table sits in one ``Locked``; each call takes the lock once and never
/// calls out while holding it. The request path takes it once (the lookup); counting an
/// accepted delivery is an atomic increment (``DeliveryCounter``), plus the lock only at
/// the delivery that triggers an `afterDeliveries` transition.
///
/// Resolution order for a token (``lookup(provider:token:fake:now:)``):
/// 1. a registered device with that token (scheduled time transitions applied first);
/// 2. a magic test token, as the provider module's table says (`ProviderFake.magicDevice`);
/// 3. open world and well-formed (`ProviderFake.isWellFormedToken`): an active device;
/// 4. otherwise `source = .unknown`, state `.invalid` (the fake answers as its provider
///    answers an unknown token).
public final class DeviceRegistry: Sendable {
    /// One registered device. `device` (except its delivery count), `registeredAt`,
    /// `order` and `applied` are guarded by the registry's lock; `deliveries` and
    /// `nextThreshold` are atomics read and written without it.
    final class Slot: @unchecked Sendable {
        var device: Device
        let registeredAt: Date
        let order: UInt64
        /// Which of `device.transitions` have happened.
        var applied: [Bool]
        let deliveries: Atomic<Int>
        /// Smallest delivery count of a pending `afterDeliveries` transition (Int.max: none).
        let nextThreshold = Atomic<Int>(Int.max)

        init(device: Device, registeredAt: Date, order: UInt64) {
            self.device = device; self.registeredAt = registeredAt; self.order = order
            applied = Array(repeating: false, count: device.transitions.count)
            deliveries = Atomic(device.deliveries)
        }

        /// The device with its current delivery count (call under the lock).
        var snapshot: Device {
            var d = device
            d.deliveries = deliveries.load(ordering: .relaxed)
            return d
        }

        /// Recomputes `nextThreshold` (call under the lock).
        func updateThreshold() {
            var next = Int.max
            for (i, t) in device.transitions.enumerated() where !applied[i] {
                if case .afterDeliveries(let n) = t.trigger { next = min(next, n) }
            }
            nextThreshold.store(next, ordering: .relaxed)
        }
    }

    private struct State {
        var byID: [String: Slot] = [:]
        var byToken: [ProviderID: [String: Slot]] = [:]
        var worlds: [ProviderID: WorldMode] = [:]
        var nextOrder: UInt64 = 0
    }

    private let state = Locked(State())
    private let schemas = Locked<[ProviderID: DeviceSchema]>([:])
    public let clock: any DoubleClock
    /// World mode of providers not set explicitly.
    public let defaultWorld: WorldMode

    public init(clock: any DoubleClock = SystemClock(), defaultWorld: WorldMode = .open) {
        self.clock = clock
        self.defaultWorld = defaultWorld
    }

    // MARK: world

    /// Sets the world mode for one provider.
    public func setWorld(_ mode: WorldMode, for provider: ProviderID) {
        state.withLock { $0.worlds[provider] = mode }
    }

    public func world(for provider: ProviderID) -> WorldMode {
        state.withLock { $0.worlds[provider] } ?? defaultWorld
    }

    // MARK: administration

    /// Adds a new device. Throws if its id, or its token for that provider, is taken.
    /// An `unregistered` state without a time (epoch 0) becomes "unregistered since now".
    @discardableResult
    public func register(_ device: Device) throws -> Device {
        let device = try validated(device)
        let now = clock.now()
        return try state.withLock { s in
            if s.byID[device.id] != nil { throw DeviceRegistryError.duplicateID(device.id) }
            if s.byToken[device.provider]?[device.token] != nil {
                throw DeviceRegistryError.duplicateToken(provider: device.provider, token: device.token)
            }
            return Self.insert(device, now: now, into: &s)
        }
    }

    /// Adds or replaces the device with `device.id` (scheduled transitions restart from now).
    @discardableResult
    public func upsert(_ device: Device) throws -> Device {
        let device = try validated(device)
        let now = clock.now()
        return try state.withLock { s in
            if let owner = s.byToken[device.provider]?[device.token], owner.device.id != device.id {
                throw DeviceRegistryError.duplicateToken(provider: device.provider, token: device.token)
            }
            _ = Self.removeLocked(id: device.id, from: &s)
            return Self.insert(device, now: now, into: &s)
        }
    }

    /// A provider's device schema (``ProviderModule/validateDevice(_:)``): validates, and may
    /// complete, a device before it is registered.
    public typealias DeviceSchema = @Sendable (inout Device) throws -> Void

    /// Installs the device schema of `provider` (the in-process server does, for every module
    /// it serves). A provider without one accepts no attributes.
    public func setSchema(_ schema: @escaping DeviceSchema, for provider: ProviderID) {
        schemas.withLock { $0[provider] = schema }
    }

    /// `device` as its provider's schema accepts it; the token must be known afterwards.
    private func validated(_ device: Device) throws -> Device {
        var d = device
        if let schema = schemas.withLock({ $0[device.provider] }) { try schema(&d) }
        else { try DeviceSchemaError.refuseAttributes(of: d, allowed: []) }
        guard !d.token.isEmpty else {
            throw DeviceSchemaError(deviceID: d.id, field: "token", message: "required for a \(d.provider) device")
        }
        return d
    }

    private static func insert(_ device: Device, now: Date, into s: inout State) -> Device {
        var d = device
        if case .unregistered(let since) = d.state, since.timeIntervalSince1970 == 0 { d.state = .unregistered(since: now) }
        s.nextOrder += 1
        let slot = Slot(device: d, registeredAt: now, order: s.nextOrder)
        applyTimeTransitions(slot, now: now)
        slot.updateThreshold()
        s.byID[d.id] = slot
        s.byToken[d.provider, default: [:]][d.token] = slot
        return slot.snapshot
    }

    /// Removes a device; false if there was none with that id.
    @discardableResult
    public func remove(id: String) -> Bool {
        state.withLock { Self.removeLocked(id: id, from: &$0) }
    }

    private static func removeLocked(id: String, from s: inout State) -> Bool {
        guard let slot = s.byID.removeValue(forKey: id) else { return false }
        s.byToken[slot.device.provider]?[slot.device.token] = nil
        return true
    }

    /// The device with that id (time transitions applied).
    public func device(id: String) -> Device? {
        let now = clock.now()
        return state.withLock { s in
            guard let slot = s.byID[id] else { return nil }
            Self.applyTimeTransitions(slot, now: now)
            return slot.snapshot
        }
    }

    /// Registered devices in registration order, optionally of one provider.
    public func list(provider: ProviderID? = nil) -> [Device] {
        let now = clock.now()
        return state.withLock { s in
            var out: [(UInt64, Device)] = []
            for slot in s.byID.values where provider == nil || slot.device.provider == provider {
                Self.applyTimeTransitions(slot, now: now)
                out.append((slot.order, slot.snapshot))
            }
            return out.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// Forgets every device (of one provider, or all) and restores the default world mode.
    public func reset(provider: ProviderID? = nil) {
        state.withLock { s in
            if let p = provider {
                for (id, slot) in s.byID where slot.device.provider == p { s.byID[id] = nil }
                s.byToken[p] = nil
                s.worlds[p] = nil
            } else {
                s = State()
            }
        }
    }

    // MARK: request path

    /// What the double knows about `token` for `provider` (see the type's resolution order).
    /// `now` defaults to the registry's clock (the pipeline passes the time it already read).
    public func lookup(provider: ProviderID, token: String, fake: any ProviderFake, now: Date? = nil) -> DeviceLookup {
        lookupForDelivery(provider: provider, token: token, fake: fake, now: now).0
    }

    /// ``lookup(provider:token:fake:now:)`` plus, for a registered device, the counter to
    /// call when the request was accepted (one lock acquisition in all).
    public func lookupForDelivery(provider: ProviderID, token: String, fake: any ProviderFake,
                                  now: Date? = nil) -> (DeviceLookup, DeliveryCounter?) {
        let now = now ?? clock.now()
        let (found, world): ((DeviceLookup, Slot)?, WorldMode) = state.withLock { s in
            let world = s.worlds.isEmpty ? defaultWorld : (s.worlds[provider] ?? defaultWorld)
            guard !s.byID.isEmpty, let slot = s.byToken[provider]?[token] else { return (nil, world) }
            if !slot.device.transitions.isEmpty { Self.applyTimeTransitions(slot, now: now) }
            let d = slot.device
            return ((DeviceLookup(deviceID: d.id, state: d.state, environment: d.environment, topic: d.topic,
                                  source: .registered, deliveries: slot.deliveries.load(ordering: .relaxed)), slot), world)
        }
        if let (lookup, slot) = found { return (lookup, DeliveryCounter(slot: slot, registry: self)) }
        if let magic = fake.magicDevice(token: token) {
            return (DeviceLookup(deviceID: token, state: magic.state, environment: magic.environment, topic: magic.topic, source: .magic), nil)
        }
        if world == .open && fake.isWellFormedToken(token) {
            return (DeviceLookup(deviceID: token, state: .active, source: .openWorld), nil)
        }
        return (DeviceLookup(deviceID: token, state: .invalid, source: .unknown), nil)
    }

    /// Counts one accepted delivery to a registered device and applies the transitions it
    /// triggers. Returns the device after the update (nil if the token is not registered).
    @discardableResult
    public func recordDelivery(provider: ProviderID, token: String, now: Date? = nil) -> Device? {
        let now = now ?? clock.now()
        guard let slot = state.withLock({ $0.byToken[provider]?[token] }) else { return nil }
        DeliveryCounter(slot: slot, registry: self).recordDelivery(now: now)
        return state.withLock { _ in slot.snapshot }
    }

    /// Applies the `afterDeliveries` transitions reached by the slot's count.
    func applyDeliveryTransitions(_ slot: Slot, now: Date) {
        state.withLock { _ in
            let n = slot.deliveries.load(ordering: .relaxed)
            for (i, t) in slot.device.transitions.enumerated() where !slot.applied[i] {
                if case .afterDeliveries(let k) = t.trigger, n >= k {
                    slot.applied[i] = true
                    slot.device.state = t.state.state(since: now)
                }
            }
            slot.updateThreshold()
        }
    }

    /// Applies due `afterSeconds` transitions in schedule order (call under the lock).
    private static func applyTimeTransitions(_ slot: Slot, now: Date) {
        var due: [(Double, Int)] = []
        for (i, t) in slot.device.transitions.enumerated() where !slot.applied[i] {
            if case .afterSeconds(let s) = t.trigger, now.timeIntervalSince(slot.registeredAt) >= s { due.append((s, i)) }
        }
        for (s, i) in due.sorted(by: { $0.0 < $1.0 }) {
            slot.applied[i] = true
            slot.device.state = slot.device.transitions[i].state.state(since: slot.registeredAt + s)
        }
    }
}

/// Why a device could not be registered.
public enum DeviceRegistryError: Error, Equatable, CustomStringConvertible {
    case duplicateID(String)
    case duplicateToken(provider: ProviderID, token: String)

    public var description: String {
        switch self {
        case .duplicateID(let id): return "a device with id \"\(id)\" already exists"
        case .duplicateToken(let p, let t): return "a \(p) device with token \"\(t)\" already exists"
        }
    }
}
