/// The HPACK dynamic table (RFC 7541 §2.3.2, §4): a FIFO of header fields bounded by
/// size, with eviction, size accounting and capacity changes.
///
/// Index 0 is the newest entry. Entries live in a power-of-two ring buffer, so adding,
/// evicting and indexing are O(1). When `tracksLookups` is on (the encoder's table) two
/// dictionaries map (name, value) and name to the newest entry holding them, so finding
/// a match is one hash rather than a scan; the decoder's table leaves them off.
struct DynamicHeaderTable: Sendable {
    /// RFC 7541 §4.1: an entry's size is its name and value lengths in octets plus 32.
    static let entryOverhead = 32

    private var ring: [NameValue]
    private var sizes: [Int]
    private var start = 0          // ring slot of the oldest entry
    private(set) var count = 0
    /// Sum of the entry sizes (RFC 7541 §4.1).
    private(set) var size = 0
    /// Current maximum size; always <= the limit the owner enforces.
    private(set) var capacity: Int
    /// Number of entries ever added: entry with insertion id `k` sits at index
    /// `inserted - 1 - k`.
    private var inserted = 0

    private let tracksLookups: Bool
    private var exactIDs: [NameValue: Int] = [:]
    private var nameIDs: [String: Int] = [:]

    init(capacity: Int, tracksLookups: Bool = false) {
        self.capacity = capacity
        self.tracksLookups = tracksLookups
        let slots = 16
        ring = [NameValue](repeating: NameValue(name: "", value: ""), count: slots)
        sizes = [Int](repeating: 0, count: slots)
    }

    @inline(__always)
    static func entrySize(name: String, value: String) -> Int {
        name.utf8.count + value.utf8.count + entryOverhead
    }

    /// The entry at `index` (0 = newest); the caller has checked `index < count`.
    @inline(__always)
    subscript(index: Int) -> NameValue {
        ring[(start + count - 1 - index) & (ring.count - 1)]
    }

    /// Adds a field as the newest entry, evicting from the oldest end first.
    ///
    /// RFC 7541 §4.4: an entry larger than the capacity empties the table and is not
    /// added ("This is not an error condition").
    mutating func add(name: String, value: String) {
        let entrySize = Self.entrySize(name: name, value: value)
        guard entrySize <= capacity else {
            removeAll()
            return
        }
        while size + entrySize > capacity { evictOldest() }
        if count == ring.count { grow() }
        let slot = (start + count) & (ring.count - 1)
        let entry = NameValue(name: name, value: value)
        ring[slot] = entry
        sizes[slot] = entrySize
        count += 1
        size += entrySize
        if tracksLookups {
            exactIDs[entry] = inserted
            nameIDs[name] = inserted
        }
        inserted += 1
    }

    /// Changes the maximum size, evicting until the table fits (RFC 7541 §4.3).
    mutating func setCapacity(_ newCapacity: Int) {
        capacity = newCapacity
        while size > capacity { evictOldest() }
    }

    /// Index (0 = newest) of the newest entry equal to (name, value), if any.
    @inline(__always)
    func index(of key: NameValue) -> Int? {
        guard let id = exactIDs[key] else { return nil }
        return inserted - 1 - id
    }

    /// Index (0 = newest) of the newest entry with that name, if any.
    @inline(__always)
    func index(ofName name: String) -> Int? {
        guard let id = nameIDs[name] else { return nil }
        return inserted - 1 - id
    }

    private mutating func evictOldest() {
        let slot = start
        let entry = ring[slot]
        size -= sizes[slot]
        ring[slot] = NameValue(name: "", value: "")  // release the strings now
        start = (start + 1) & (ring.count - 1)
        count -= 1
        if tracksLookups {
            let id = inserted - 1 - count  // the evicted entry was the oldest
            if exactIDs[entry] == id { exactIDs[entry] = nil }
            if nameIDs[entry.name] == id { nameIDs[entry.name] = nil }
        }
    }

    private mutating func removeAll() {
        while count > 0 { evictOldest() }
    }

    private mutating func grow() {
        var newRing = [NameValue](repeating: NameValue(name: "", value: ""), count: ring.count * 2)
        var newSizes = [Int](repeating: 0, count: ring.count * 2)
        for i in 0..<count {
            let slot = (start + i) & (ring.count - 1)
            newRing[i] = ring[slot]
            newSizes[i] = sizes[slot]
        }
        ring = newRing
        sizes = newSizes
        start = 0
    }
}
