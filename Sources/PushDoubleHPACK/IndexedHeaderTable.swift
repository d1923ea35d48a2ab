/// The single HPACK index space (RFC 7541 §2.3.3): static entries 1...61 followed by the
/// dynamic table, newest first, from 62 on.
struct IndexedHeaderTable: Sendable {
    var dynamic: DynamicHeaderTable

    init(capacity: Int, tracksLookups: Bool) {
        dynamic = DynamicHeaderTable(capacity: capacity, tracksLookups: tracksLookups)
    }

    /// Number of valid indices right now (61 + dynamic entries).
    var entryCount: Int { StaticHeaderTable.count + dynamic.count }

    /// The field at a 1-based index.
    ///
    /// - Throws: ``HPACKError/invalidIndex(index:tableEntries:)`` for 0 or past the end.
    @inline(__always)
    func field(at index: Int) throws(HPACKError) -> NameValue {
        if index >= 1 && index <= StaticHeaderTable.count {
            let e = StaticHeaderTable.entries[index - 1]
            return NameValue(name: e.name, value: e.value)
        }
        let d = index - StaticHeaderTable.count - 1
        guard index > 0, d < dynamic.count else { throw .invalidIndex(index: index, tableEntries: entryCount) }
        return dynamic[d]
    }

    /// What the table offers for a field: a full match beats a name match; at equal
    /// strength the static table wins (its indices are shorter and never evicted).
    enum Match: Equatable {
        case full(Int)
        case name(Int)
        case none
    }

    /// Best match for (name, value); see ``find(name:value:staticEntry:matchDynamicValue:)``.
    func find(name: String, value: String) -> Match {
        find(name: name, value: value, staticEntry: StaticHeaderTable.byName[name], matchDynamicValue: true)
    }

    /// Best match for (name, value), given the static table's entry for the name (already
    /// looked up by the caller). With `matchDynamicValue` off, the dynamic table is only
    /// searched by name (for values that are not expected to repeat).
    @inline(__always)
    func find(name: String, value: String, staticEntry: StaticHeaderTable.NameEntry?,
              matchDynamicValue: Bool) -> Match {
        if let entry = staticEntry {
            for v in entry.values where v.value == value { return .full(v.index) }
        }
        if matchDynamicValue, let d = dynamic.index(of: NameValue(name: name, value: value)) {
            return .full(d + StaticHeaderTable.count + 1)
        }
        if let entry = staticEntry { return .name(entry.firstIndex) }
        if let d = dynamic.index(ofName: name) { return .name(d + StaticHeaderTable.count + 1) }
        return .none
    }
}
