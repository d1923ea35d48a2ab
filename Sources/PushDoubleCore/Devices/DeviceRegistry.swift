import Foundation

/// Devices per provider and their scheduled state transitions (open or closed world).
///
/// Thread-safe: all state sits in one ``Locked``; each call takes the lock once and never
/// calls out while holding it. The request path costs one acquisition (``lookup``) plus one
/// more only when a *registered* device accepted a delivery (``recordDelivery``).
///
/// Resolution order for a token (``lookup(provider:token:fake:)``):
/// 1. a registered device with that token (scheduled time transitions applied first);
/// 2. a magic test token, as the provider module's table says (`ProviderFake.magicDevice`);
/// 3. open world and well-formed (`ProviderFake.isWellFormedToken`): an active device;
/// 4. otherwise `source = .unknown`, state `.invalid` (the fake answers as its provider
///    answers an unknown token).
public final class DeviceRegistry: Sendable {
    private struct Entry {
        var device: Device
        var registeredAt: Date
        var order: UInt64
        /// Which of `device.transitions` have happened.
        var applied: [Bool]
    }

    private struct State {
        var byID: [String: Entry] = [:]
        var byToken: [ProviderID: [String: String]] = [:]
        var worlds: [ProviderID: WorldMode] = [:]
        var nextOrder: UInt64 = 0
    }

    private let state = Locked(State())
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
        let now = clock.now()
        return try state.withLock { s in
            if let owner = s.byToken[device.provider]?[device.token], owner != device.id {
                throw DeviceRegistryError.duplicateToken(provider: device.provider, token: device.token)
            }
            _ = Self.removeLocked(id: device.id, from: &s)
            return Self.insert(device, now: now, into: &s)
        }
    }

    private static func insert(_ device: Device, now: Date, into s: inout State) -> Device {
        var d = device
        if case .unregistered(let since) = d.state, since.timeIntervalSince1970 == 0 { d.state = .unregistered(since: now) }
        s.nextOrder += 1
        var entry = Entry(device: d, registeredAt: now, order: s.nextOrder, applied: Array(repeating: false, count: d.transitions.count))
        applyTimeTransitions(&entry, now: now)
        s.byID[d.id] = entry
        s.byToken[d.provider, default: [:]][d.token] = d.id
        return entry.device
    }

    /// Removes a device; false if there was none with that id.
    @discardableResult
    public func remove(id: String) -> Bool {
        state.withLock { Self.removeLocked(id: id, from: &$0) }
    }

    private static func removeLocked(id: String, from s: inout State) -> Bool {
        guard let e = s.byID.removeValue(forKey: id) else { return false }
        s.byToken[e.device.provider]?[e.device.token] = nil
        return true
    }

    /// The device with that id (time transitions applied).
    public func device(id: String) -> Device? {
        let now = clock.now()
        return state.withLock { s in
            guard var e = s.byID[id] else { return nil }
            if Self.applyTimeTransitions(&e, now: now) { s.byID[id] = e }
            return e.device
        }
    }

    /// Registered devices in registration order, optionally of one provider.
    public func list(provider: ProviderID? = nil) -> [Device] {
        let now = clock.now()
        return state.withLock { s in
            var out: [(UInt64, Device)] = []
            for (id, var e) in s.byID where provider == nil || e.device.provider == provider {
                if Self.applyTimeTransitions(&e, now: now) { s.byID[id] = e }
                out.append((e.order, e.device))
            }
            return out.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// Forgets every device (of one provider, or all) and restores the default world mode.
    public func reset(provider: ProviderID? = nil) {
        state.withLock { s in
            if let p = provider {
                for (id, e) in s.byID where e.device.provider == p { s.byID[id] = nil }
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
        let now = now ?? clock.now()
        let (found, world): (DeviceLookup?, WorldMode) = state.withLock { s in
            let world = s.worlds[provider] ?? defaultWorld
            guard let id = s.byToken[provider]?[token], var e = s.byID[id] else { return (nil, world) }
            if Self.applyTimeTransitions(&e, now: now) { s.byID[id] = e }
            let d = e.device
            return (DeviceLookup(deviceID: d.id, state: d.state, environment: d.environment, topic: d.topic,
                                 source: .registered, deliveries: d.deliveries), world)
        }
        if let found { return found }
        if let magic = fake.magicDevice(token: token) {
            return DeviceLookup(deviceID: token, state: magic.state, environment: magic.environment, topic: magic.topic, source: .magic)
        }
        if world == .open && fake.isWellFormedToken(token) {
            return DeviceLookup(deviceID: token, state: .active, source: .openWorld)
        }
        return DeviceLookup(deviceID: token, state: .invalid, source: .unknown)
    }

    /// Counts one accepted delivery to a registered device and applies the transitions it
    /// triggers. Returns the device after the update (nil if the token is not registered).
    @discardableResult
    public func recordDelivery(provider: ProviderID, token: String, now: Date? = nil) -> Device? {
        let now = now ?? clock.now()
        return state.withLock { s in
            guard let id = s.byToken[provider]?[token], var e = s.byID[id] else { return nil }
            e.device.deliveries += 1
            for (i, t) in e.device.transitions.enumerated() where !e.applied[i] {
                if case .afterDeliveries(let n) = t.trigger, e.device.deliveries >= n {
                    e.applied[i] = true
                    e.device.state = t.state.state(since: now)
                }
            }
            Self.applyTimeTransitions(&e, now: now)
            s.byID[id] = e
            return e.device
        }
    }

    /// Applies due `afterSeconds` transitions in schedule order; true if anything changed.
    @discardableResult
    private static func applyTimeTransitions(_ e: inout Entry, now: Date) -> Bool {
        var changed = false
        var due: [(Double, Int)] = []
        for (i, t) in e.device.transitions.enumerated() where !e.applied[i] {
            if case .afterSeconds(let s) = t.trigger, now.timeIntervalSince(e.registeredAt) >= s { due.append((s, i)) }
        }
        for (s, i) in due.sorted(by: { $0.0 < $1.0 }) {
            e.applied[i] = true
            e.device.state = e.device.transitions[i].state.state(since: e.registeredAt + s)
            changed = true
        }
        return changed
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
