import Synchronization
import PushDoubleTransport

/// Strings that repeat across history records (a JWT in `authorization`, a topic, header
/// names, a user agent), each stored once and referred to by a small id.
///
/// A pool is one *generation*: ids are only ever added, so an id stays valid as long as the
/// pool lives, and every record holds a reference to the pool its ids point into. When a
/// generation is full (``maxValues``) the history starts a new one; the old one is freed
/// with the last record that uses it. Memory is therefore bounded by the records alive.
///
/// Admission: a string enters the pool on its second sighting (a direct-mapped table of
/// recent hashes remembers the first), so values unique to one request (a generated
/// `apns-id`) are stored inline in their record and never fill the pool. Field `slot`s
/// remember the last string seen at that position of a record, which makes the common case
/// (the same JWT on every request of a connection) one string comparison, no hashing.
///
/// Also shares the per-connection facts (``ConnectionInfo``) and identities
/// (``AuthIdentity``) that every request of a connection repeats.
final class StringPool: Sendable {
    /// Most distinct strings per generation.
    static let maxValues = 16_384
    /// Longest string pooled (longer ones are stored inline).
    static let maxLength = 4096
    static let slots = 48
    private static let recentSize = 2048

    /// The pool's contents; touched only under ``state``'s lock (``withLock``).
    struct Contents {
        /// The current generation.
        private(set) var store: ValueStore
        var index: [Key: UInt32] = [:]
        var recent = [Int](repeating: 0, count: StringPool.recentSize)
        var last: [(String, UInt32)] = Array(repeating: ("", UInt32.max), count: StringPool.slots)
        var connections: [UInt64: SharedConnection] = [:]
        var lastConnection: SharedConnection?
        var identities: [SharedAuth] = []
        let scratch = PackedFields.Scratch()
        /// Heap bytes of the strings pooled since the caller last reset it (the record being
        /// packed is charged for the strings it added, ``HistoryFootprint``).
        var addedBytes = 0

        var isFull: Bool { store.count >= StringPool.maxValues }

        init(store: ValueStore) { self.store = store }

        /// Starts a new generation when the current one is full (before packing a record,
        /// so all of a record's ids point into one generation).
        mutating func rotateIfFull() {
            guard isFull else { return }
            store = ValueStore()
            index.removeAll(keepingCapacity: true)
            last = Array(repeating: ("", UInt32.max), count: StringPool.slots)
        }

        /// The id of `s` if it is pooled (or pooled now, on its second sighting), else nil.
        /// `slot` < ``StringPool/slots`` names the field position for the fast path.
        mutating func id(_ s: String, slot: Int) -> UInt32? {
            if slot >= 0 && slot < StringPool.slots {
                let (ls, lid) = last[slot]
                if lid != UInt32.max && ls == s { return lid }
            }
            let n = s.utf8.count
            guard n > 0, n <= StringPool.maxLength else { return nil }
            let key = Key(s)
            let id: UInt32?
            if let known = index[key] {
                id = known
            } else {
                guard !isFull else { return nil }
                let r = key.hash & (StringPool.recentSize - 1)
                if recent[r] != key.hash { recent[r] = key.hash; return nil }
                let new = UInt32(store.append(s))
                addedBytes += HistoryFootprint.string(s) + 16
                index[key] = new
                id = new
            }
            if let id, slot >= 0, slot < StringPool.slots { last[slot] = (s, id) }
            return id
        }

        /// Connection ids are process-unique and a connection's facts never change.
        mutating func connection(_ c: ConnectionInfo) -> SharedConnection {
            if let l = lastConnection, l.info.id == c.id { return l }
            if let known = connections[c.id] { lastConnection = known; return known }
            if connections.count >= 4096 { connections.removeAll(keepingCapacity: true) }
            let box = SharedConnection(c)
            connections[c.id] = box
            lastConnection = box
            return box
        }

        mutating func identity(_ a: AuthIdentity) -> SharedAuth {
            // The scalar fields first: they differ between identities in practice, and
            // comparing `extra` (a dictionary) is the slow part of ==.
            for box in identities {
                let b = box.identity
                if b.issuedAt == a.issuedAt && b.valid == a.valid && b.keyID == a.keyID && b.issuer == a.issuer && b == a { return box }
            }
            if identities.count >= 16 { identities.removeFirst() }
            let box = SharedAuth(a)
            identities.append(box)
            return box
        }
    }

    /// A pooled string with its hash computed once (the dictionary then hashes an Int).
    struct Key: Hashable {
        let string: String
        let hash: Int
        init(_ s: String) { string = s; hash = s.hashValue }
        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
        static func == (a: Key, b: Key) -> Bool { a.hash == b.hash && a.string == b.string }
    }

    private let state: Mutex<Contents>

    init() { state = Mutex(Contents(store: ValueStore())) }

    /// Runs `body` with the pool locked (the append path packs a whole record in one go).
    func withLock<R>(_ body: (inout Contents) -> R) -> R { state.withLock { body(&$0) } }

    /// Strings in the current generation.
    var count: Int { state.withLock { $0.store.count } }

    /// The pooled strings of one generation, in a buffer allocated once: appended under the
    /// pool's lock, published with a release store, read without a lock.
    final class ValueStore: @unchecked Sendable {
        // @unchecked: slots below `published` are immutable once published; slots above are
        // written only under the pool's lock before being published.
        private let slots = UnsafeMutablePointer<String>.allocate(capacity: StringPool.maxValues)
        private let published = Atomic<Int>(0)

        var count: Int { published.load(ordering: .acquiring) }

        /// Appends (caller holds the pool lock and checked there is room); returns the id.
        func append(_ s: String) -> Int {
            let n = published.load(ordering: .relaxed)
            (slots + n).initialize(to: s)
            published.store(n + 1, ordering: .releasing)
            return n
        }

        func value(_ id: Int) -> String {
            precondition(id < count, "history string id out of range")
            return slots[id]
        }

        /// The UTF-8 bytes of string `id`, read in place (no retain of the string: the log
        /// thread reads strings the event loops are comparing at the same time).
        func withUTF8<R>(_ id: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            precondition(id < count, "history string id out of range")
            return UTF8Bytes.of(slots[id], body)
        }

        deinit {
            slots.deinitialize(count: published.load(ordering: .acquiring))
            slots.deallocate()
        }
    }
}

/// One connection's facts, shared by every record of its requests.
final class SharedConnection: Sendable {
    let info: ConnectionInfo
    init(_ info: ConnectionInfo) { self.info = info }
}

/// One identity, shared by the records that authenticated with it.
final class SharedAuth: Sendable {
    let identity: AuthIdentity
    init(_ identity: AuthIdentity) { self.identity = identity }
}
