import Foundation
import Synchronization
import PushDoubleJSON

/// The knobs of ``ExpoReceiptStore``.
public struct ExpoReceiptStoreConfiguration: Sendable, Equatable {
    /// Receipts kept at most; beyond it the oldest is evicted.
    public var capacity: Int
    /// Bytes of receipts kept at most (each charged ``ExpoReceiptStore/charge(id:_:)``); beyond
    /// it the oldest are evicted, as beyond ``capacity``.
    public var maxBytes: Int
    /// Seconds a receipt lives after it is recorded (docs/expo.md §1 [A]: deleted after 24 hours).
    public var retention: Double
    public var availability: ExpoReceiptAvailability

    /// 64 MiB: about 130 000 receipts of the common kinds, beyond the default ``capacity``,
    /// so the byte cap matters only for receipts with large custom details.
    public static let defaultMaxBytes = 64 << 20

    public init(capacity: Int = 100_000, maxBytes: Int = ExpoReceiptStoreConfiguration.defaultMaxBytes,
                retention: Double = 24 * 60 * 60, availability: ExpoReceiptAvailability = .afterDelay(seconds: 0)) {
        precondition(capacity > 0 && maxBytes > 0 && retention > 0, "capacity, maxBytes and retention must be positive")
        self.capacity = capacity; self.maxBytes = maxBytes; self.retention = retention; self.availability = availability
    }
}

/// Who wants to hear when a receipt is served (the fake: the history entry of the send that
/// issued the ticket). Called outside the store's lock, on the caller's thread.
public protocol ExpoReceiptOwner: AnyObject, Sendable {
    func receiptServed(id: String, receipt: ExpoReceipt, now: Double)
}

/// The receipts of issued tickets, keyed by ticket id (docs/expo.md §4). Thread-safe (one `Mutex`),
/// bounded (``ExpoReceiptStoreConfiguration/capacity``, oldest evicted), time from the caller's
/// clock (`now`, seconds). A receipt is visible once its availability allows and until
/// `retention` after it was recorded; every receipt has the same retention, so the oldest
/// expires first and expired ones are purged from the front on each write (with a clock that
/// goes back, purging may stop early, but an expired receipt is never served).
public final class ExpoReceiptStore: Sendable {
    public let configuration: ExpoReceiptStoreConfiguration
    private let generate: @Sendable () -> String

    /// Lifecycle of one receipt.
    private enum Phase {
        case waiting(until: Double)
        case held
        case released
    }
    private struct Entry {
        var outcome: ExpoReceiptOutcome
        var recordedAt: Double
        var phase: Phase
        var owner: (any ExpoReceiptOwner)?
        var charge: Int
    }
    private struct State {
        var entries: [String: Entry] = [:]
        /// Ids in record order; `head` skips the evicted or purged prefix.
        var order: [String] = []
        var head = 0
        /// Sum of the kept receipts' charges.
        var bytes = 0

        /// Removes the receipt `id` (if kept) and its charge.
        mutating func remove(_ id: String) {
            if let e = entries.removeValue(forKey: id) { bytes -= e.charge }
        }
    }
    private let state = Mutex(State())

    /// `idGenerator` makes ticket ids (tests inject a deterministic one); the default is an
    /// uppercase version-4 UUID, the form of the §3.1 capture (`XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX`).
    public init(configuration: ExpoReceiptStoreConfiguration = .init(), idGenerator: (@Sendable () -> String)? = nil) {
        self.configuration = configuration
        // Not `idGenerator ?? …`: a closure taken out of an `Optional` is called through two
        // reabstraction thunks, on every id.
        if let idGenerator { self.generate = idGenerator } else { self.generate = Self.uuidGenerator() }
    }

    /// Uppercase version-4 UUIDs from a SplitMix64 stream seeded once from the system generator:
    /// unique and unpredictable enough for ticket ids, without a system call and a `printf` per
    /// id as `UUID().uuidString` costs (one is made for every recipient of every send).
    static func uuidGenerator() -> @Sendable () -> String {
        var system = SystemRandomNumberGenerator()
        let state = Mutex(system.next() as UInt64)
        return {
            let (a0, b0) = state.withLock { s -> (UInt64, UInt64) in (splitMix(&s), splitMix(&s)) }
            let a = (a0 & ~(0xF << 12)) | (0x4 << 12)      // version 4
            let b = (b0 & ~(0x3 << 62)) | (0x2 << 62)      // variant 10xx
            // Written into the new string's storage (no intermediate arrays).
            return String(unsafeUninitializedCapacity: 36) { out in
                var i = 0
                func hex(_ word: UInt64) {
                    for d in 0..<16 {
                        if i == 8 || i == 13 || i == 18 || i == 23 { out[i] = UInt8(ascii: "-"); i += 1 }
                        let v = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * d)) & 0xF
                        out[i] = v < 10 ? 0x30 + v : 0x41 + v - 10
                        i += 1
                    }
                }
                hex(a); hex(b)
                return 36
            }
        }
    }

    /// SplitMix64 (Steele, Lea, Flood 2014).
    static func splitMix(_ s: inout UInt64) -> UInt64 {
        s &+= 0x9E37_79B9_7F4A_7C15
        var z = s
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Records a receipt with a fresh id and returns its ok ticket (docs/expo.md §3.1). `owner` is
    /// told each time ``serve(_:now:)`` serves it.
    public func issue(_ outcome: ExpoReceiptOutcome, now: Double, owner: (any ExpoReceiptOwner)? = nil) -> ExpoTicket {
        let id = generate()
        record(id: id, outcome, now: now, owner: owner)
        return .ok(id: id)
    }

    /// ``issue(_:now:owner:)`` for several receipts of one send: fresh ids in order, recorded
    /// under one acquisition of the store's lock; returns the ids.
    public func issue(_ outcomes: [ExpoReceiptOutcome], now: Double, owner: (any ExpoReceiptOwner)? = nil) -> [String] {
        let ids = outcomes.map { _ in generate() }
        let phase = phase(now: now)
        let charges = zip(ids, outcomes).map { Self.charge(id: $0, $1) }
        state.withLock { s in
            Self.purge(&s, now: now, retention: configuration.retention)
            for i in ids.indices {
                insert(&s, id: ids[i], Entry(outcome: outcomes[i], recordedAt: now, phase: phase, owner: owner, charge: charges[i]))
            }
            Self.compact(&s)
        }
        return ids
    }

    /// Records (or replaces) the receipt of ticket `id`.
    public func record(id: String, _ outcome: ExpoReceiptOutcome, now: Double, owner: (any ExpoReceiptOwner)? = nil) {
        let entry = Entry(outcome: outcome, recordedAt: now, phase: phase(now: now), owner: owner, charge: Self.charge(id: id, outcome))
        state.withLock { s in
            Self.purge(&s, now: now, retention: configuration.retention)
            insert(&s, id: id, entry)
            Self.compact(&s)
        }
    }

    /// The phase a receipt recorded at `now` starts in.
    private func phase(now: Double) -> Phase {
        switch configuration.availability {
        case .afterDelay(let seconds): return .waiting(until: now + seconds)
        case .heldUntilReleased: return .held
        }
    }

    /// Adds (or replaces) one receipt, then evicts the oldest beyond the caps.
    private func insert(_ s: inout State, id: String, _ entry: Entry) {
        if let old = s.entries.updateValue(entry, forKey: id) {
            s.bytes -= old.charge
            if let i = s.order[s.head...].firstIndex(of: id) {
                // A replaced receipt starts a new life: move it to the back of the order.
                s.order.remove(at: i)
                s.order.append(id)
            }
        } else {
            s.order.append(id)
        }
        s.bytes += entry.charge
        while s.entries.count > configuration.capacity || s.bytes > configuration.maxBytes, s.head < s.order.count {
            s.remove(s.order[s.head])
            s.head += 1
        }
    }

    /// Makes a held (or still waiting) receipt visible now; false when unknown or expired.
    @discardableResult
    public func release(_ id: String, now: Double) -> Bool {
        state.withLock { s in
            guard let e = s.entries[id], now < e.recordedAt + configuration.retention else { return false }
            s.entries[id]?.phase = .released
            return true
        }
    }

    /// Releases every receipt not yet visible; returns how many.
    @discardableResult
    public func releaseAll(now: Double) -> Int {
        state.withLock { s in
            Self.purge(&s, now: now, retention: configuration.retention)
            var n = 0
            for (id, e) in s.entries where !Self.isVisible(e.phase, now: now) {
                s.entries[id]?.phase = .released
                n += 1
            }
            return n
        }
    }

    /// Where `id`'s receipt is at `now`.
    public func state(of id: String, now: Double) -> ExpoReceiptState {
        guard let e = state.withLock({ $0.entries[id] }) else { return .unknown }
        if now >= e.recordedAt + configuration.retention { return .expired }
        switch e.phase {
        case .held: return .held
        case .waiting(let until) where now < until: return .pending(availableAt: until)
        default: return .available(e.outcome.receipt)
        }
    }

    /// The visible receipts of `ids` at `now`, in request order, each id once; unknown, expired
    /// and not yet visible ids are left out (docs/expo.md §4).
    public func receipts(for ids: [String], now: Double) -> [(id: String, receipt: ExpoReceipt)] {
        visible(ids, now: now).map { ($0.0, $0.1.receipt) }
    }

    /// ``receipts(for:now:)``, telling each served receipt's owner (getReceipts answering a sender).
    public func serve(_ ids: [String], now: Double) -> [(id: String, receipt: ExpoReceipt)] {
        visible(ids, now: now).map { id, outcome, owner in
            let receipt = outcome.receipt
            owner?.receiptServed(id: id, receipt: receipt, now: now)
            return (id, receipt)
        }
    }

    private func visible(_ ids: [String], now: Double) -> [(String, ExpoReceiptOutcome, (any ExpoReceiptOwner)?)] {
        state.withLock { s in
            var seen = Set<String>(), out: [(String, ExpoReceiptOutcome, (any ExpoReceiptOwner)?)] = []
            for id in ids where !seen.contains(id) {
                seen.insert(id)
                guard let e = s.entries[id], now < e.recordedAt + configuration.retention,
                      Self.isVisible(e.phase, now: now) else { continue }
                out.append((id, e.outcome, e.owner))
            }
            return out
        }
    }

    /// Removes every expired receipt; returns how many.
    @discardableResult
    public func purgeExpired(now: Double) -> Int {
        state.withLock { s in
            let before = s.entries.count
            Self.purge(&s, now: now, retention: configuration.retention)
            Self.compact(&s)
            return before - s.entries.count
        }
    }

    /// Receipts held (any state, expired ones until purged).
    public var count: Int { state.withLock { $0.entries.count } }
    /// Bytes the held receipts are charged.
    public var bytes: Int { state.withLock { $0.bytes } }

    /// The bytes one receipt is charged: its id and outcome, the table's entry and order slot,
    /// and a share of what its owner keeps once it is fetched (the history annotation).
    static func charge(id: String, _ outcome: ExpoReceiptOutcome) -> Int {
        var n = 384 + id.utf8.count
        switch outcome {
        case .deviceNotRegistered(let token?): n += token.utf8.count
        case .other(let error, let message, let extra):
            n += error.utf8.count + message.utf8.count + JSONValue.object(extra).serialized().count * 2
        default: break
        }
        return n
    }

    // MARK: Internals

    private static func isVisible(_ phase: Phase, now: Double) -> Bool {
        switch phase {
        case .released: return true
        case .held: return false
        case .waiting(let until): return now >= until
        }
    }

    /// Drops expired receipts from the front of the order (oldest first).
    private static func purge(_ s: inout State, now: Double, retention: Double) {
        while s.head < s.order.count {
            let id = s.order[s.head]
            if let e = s.entries[id], now < e.recordedAt + retention { break }
            s.remove(id)
            s.head += 1
        }
    }

    private static func compact(_ s: inout State) {
        if s.head > 1024, s.head * 2 > s.order.count {
            s.order.removeFirst(s.head)
            s.head = 0
        }
    }
}
