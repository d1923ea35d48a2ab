import PushDoubleJSON
import PushDoubleTransport

/// The field names of one proto message, in both spellings proto3 JSON accepts: the
/// snake_case proto name and its lowerCamelCase JSON name (docs/fcm.md §2 [A]: "both ... are
/// accepted"; the SDKs send snake_case). A field is known by its slot, its index in `names`.
/// A class: every object read refers to its schema, without copying the tables.
final class FCMFieldSchema: Sendable {
    let names: [String]
    /// spelling → slot.
    let lookup: [String: Int]
    /// Every spelling's bytes back to back, and per UTF-8 length the offset in it and the
    /// slot of each spelling that long: member names are matched on the body's bytes.
    let spellingBytes: [UInt8]
    let spellingsByLength: [[(offset: Int, slot: Int)]]

    init(_ names: [String]) {
        self.names = names
        var l: [String: Int] = [:]
        for (slot, n) in names.enumerated() { l[n] = slot; l[Self.lowerCamel(n)] = slot }
        lookup = l
        var buckets: [[(spelling: String, slot: Int)]] = Array(repeating: [], count: (l.keys.map(\.utf8.count).max() ?? 0) + 1)
        for (spelling, slot) in l.sorted(by: { $0.key < $1.key }) { buckets[spelling.utf8.count].append((spelling, slot)) }
        var all: [UInt8] = []
        spellingsByLength = buckets.map { bucket in
            bucket.map { entry in
                defer { all.append(contentsOf: entry.spelling.utf8) }
                return (all.count, entry.slot)
            }
        }
        spellingBytes = all
    }

    /// The slot of the field a member name given as its ASCII bytes spells (for ASCII,
    /// byte equality is String equality), nil when it is not a field of this message.
    func slot(ofASCII key: UnsafeBufferPointer<UInt8>) -> Int? {
        let n = key.count
        guard n < spellingsByLength.count else { return nil }
        return spellingBytes.withUnsafeBufferPointer { all -> Int? in
            candidates: for entry in spellingsByLength[n] {
                for j in 0..<n where all[entry.offset + j] != key[j] { continue candidates }
                return entry.slot
            }
            return nil
        }
    }

    /// The slot of the field any member name spells (String equality: canonical
    /// equivalence, e.g. U+212A KELVIN SIGN equals `K`).
    func slot(of key: String) -> Int? { lookup[key] }

    /// Whether field `slot` is the one named `name` (snake_case): lengths first, as nearly
    /// every lookup compares a name with fields it is not.
    @inline(__always) func slot(_ slot: Int, is name: String) -> Bool {
        let own = names[slot]
        return own.utf8.count == name.utf8.count && own == name
    }

    /// `collapse_key` → `collapseKey`, `direct_boot_ok` → `directBootOk`.
    static func lowerCamel(_ snake: String) -> String {
        var out = "", upper = false
        for c in snake {
            if c == "_" { upper = true; continue }
            out.append(upper ? Character(c.uppercased()) : c)
            upper = false
        }
        return out
    }
}

/// One JSON object of the body as a message of `schema`: its fields are the entries
/// `range` of the reader's field table (``FCMFieldReader/value(_:_:)`` looks them up). The
/// first occurrence of a field wins (in either spelling); `null` counts as absent (proto3
/// JSON).
struct FCMObjectFields {
    /// The path of the enclosing object and this object's member name; the dotted path is
    /// joined only when asked for (errors, unknown fields, nested objects), not per object.
    let parentPath: String
    let memberName: String
    let schema: FCMFieldSchema
    let range: Range<Int>

    /// `parent.name`, or `name` at the top (the empty path is the request body itself).
    static func join(_ parent: String, _ name: String) -> String { parent.isEmpty ? name : parent + "." + name }

    /// The dotted path of this object (`""` for the body, `message.android`).
    var path: String { Self.join(parentPath, memberName) }
    func path(_ name: String) -> String { Self.join(path, name) }
}

/// The typed reads shared by every part of the validator, on the body's ``JSONTape``; each
/// failure is an ``FCMError``.
struct FCMFieldReader {
    let configuration: FCMValidatorConfiguration
    let tape: JSONTape
    var unknown: [String] = []
    /// The fields of every object read so far, (slot, value node), object after object
    /// (one table per body rather than one list per object).
    private var table: [(slot: Int, value: JSONTape.Index)] = []

    init(configuration: FCMValidatorConfiguration, tape: JSONTape) {
        self.configuration = configuration; self.tape = tape
        table.reserveCapacity(min(tape.nodeCount / 2, 256))
    }

    /// The value node of field `name` (snake_case) of `f`, nil when absent or null.
    func value(_ f: FCMObjectFields, _ name: String) -> JSONTape.Index? {
        for i in f.range where f.schema.slot(table[i].slot, is: name) { return table[i].value }
        return nil
    }

    func fail(_ rule: FCMValidationRule, _ field: String?) -> FCMError {
        FCMError(rule: rule, field: field, envelope: configuration.error(for: rule))
    }

    /// `Invalid value at '<field>' (<TYPE>), <value>` (docs/fcm.md §4.3 doc example 1).
    func wrongType(_ field: String, _ protoType: String, _ value: JSONTape.Index) -> FCMError {
        let envelope = configuration.errorOverrides[.wrongType]
            ?? .invalidValue(field: field, protoType: protoType, valueText: tape.value(value).compactJSON)
        return FCMError(rule: .wrongType, field: field, envelope: envelope)
    }

    /// The fields of the object at `parentPath`.`name` (both empty: the body); refuses a
    /// non-object and, under the `reject` policy, any unknown member.
    mutating func fields(_ value: JSONTape.Index, _ schema: FCMFieldSchema, parentPath: String, name: String) throws(FCMError) -> FCMObjectFields {
        guard tape.kind(value) == .object else { throw wrongType(FCMObjectFields.join(parentPath, name), "TYPE_MESSAGE", value) }
        let before = unknown.count
        let start = table.count
        tape.withBytes { body in
            for (key, member) in tape.members(value) {
                // A plain ASCII name is matched on the body's bytes; any other is made a String.
                let slot = tape.asciiRange(key).map { schema.slot(ofASCII: UnsafeBufferPointer(rebasing: body[$0])) }
                    ?? tape.string(key).flatMap(schema.slot(of:))
                guard let slot else {
                    let path = FCMObjectFields.join(parentPath, name)
                    let text = tape.string(key) ?? ""
                    unknown.append(path.isEmpty ? text : path + "." + text)
                    continue
                }
                if !tape.isNull(member), !hasSlot(slot, from: start) { table.append((slot, member)) }
            }
        }
        let f = FCMObjectFields(parentPath: parentPath, memberName: name, schema: schema, range: start..<table.count)
        if configuration.unknownFields == .reject, unknown.count > before { throw fail(.unknownField, unknown[before]) }
        return f
    }

    /// Whether `table[start...]` holds `slot` (an index loop: a slice would retain the table
    /// once per member).
    private func hasSlot(_ slot: Int, from start: Int) -> Bool {
        var i = start
        while i < table.count { if table[i].slot == slot { return true }; i += 1 }
        return false
    }

    mutating func object(_ f: FCMObjectFields, _ name: String, _ schema: FCMFieldSchema) throws(FCMError) -> FCMObjectFields? {
        guard let v = value(f, name) else { return nil }
        return try fields(v, schema, parentPath: f.path, name: name)
    }

    func string(_ f: FCMObjectFields, _ name: String) throws(FCMError) -> String? {
        guard let v = value(f, name) else { return nil }
        guard let s = tape.string(v) else { throw wrongType(f.path(name), "TYPE_STRING", v) }
        return s
    }

    func bool(_ f: FCMObjectFields, _ name: String) throws(FCMError) -> Bool? {
        guard let v = value(f, name) else { return nil }
        guard let b = tape.bool(v) else { throw wrongType(f.path(name), "TYPE_BOOL", v) }
        return b
    }

    func number(_ f: FCMObjectFields, _ name: String) throws(FCMError) -> Double? {
        guard let v = value(f, name) else { return nil }
        let kind = tape.kind(v)
        // Kind first: `value` of an object or array would build it only to fail.
        guard kind == .int || kind == .double, let d = tape.value(v).doubleValue else {
            throw wrongType(f.path(name), "TYPE_FLOAT", v)
        }
        return d
    }

    /// Any JSON object, kept as sent (`apns.payload`, `webpush.notification`).
    func anyObject(_ f: FCMObjectFields, _ name: String) throws(FCMError) -> JSONValue? {
        guard let v = value(f, name) else { return nil }
        guard tape.kind(v) == .object else { throw wrongType(f.path(name), "TYPE_MESSAGE", v) }
        return tape.value(v)
    }

    /// A `map<string,string>`: a value of another type is `<path>[<index>].value`.
    func stringMap(_ f: FCMObjectFields, _ name: String) throws(FCMError) -> FCMStringMap? {
        guard let v = value(f, name) else { return nil }
        guard tape.kind(v) == .object else { throw wrongType(f.path(name), "TYPE_MESSAGE", v) }
        var map = FCMStringMap()
        map.entries.reserveCapacity(tape.count(v))
        for (index, (key, value)) in tape.members(v).enumerated() {
            guard let s = tape.string(value) else { throw wrongType("\(f.path(name))[\(index)].value", "TYPE_STRING", value) }
            map.entries.append(.init(key: tape.string(key) ?? "", value: s))
        }
        return map
    }

    func stringArray(_ f: FCMObjectFields, _ name: String) throws(FCMError) -> [String]? {
        guard let v = value(f, name) else { return nil }
        guard tape.kind(v) == .array else { throw wrongType(f.path(name), "TYPE_STRING", v) }
        var out: [String] = []
        for (i, item) in tape.elements(v).enumerated() {
            guard let s = tape.string(item) else { throw wrongType("\(f.path(name))[\(i)]", "TYPE_STRING", item) }
            out.append(s)
        }
        return out
    }

    /// A google-duration string; anything else fails `rule`.
    func duration(_ f: FCMObjectFields, _ name: String, rule: FCMValidationRule) throws(FCMError) -> FCMDuration? {
        guard let v = value(f, name) else { return nil }
        guard let s = tape.string(v), let d = FCMDuration(s) else { throw fail(rule, f.path(name)) }
        return d
    }

    /// An enum given by name in any case (`android.priority`): one of `allowed` after
    /// uppercasing (ASCII text byte by byte; other text by `uppercased()`, as before).
    func caseInsensitiveEnumName(_ f: FCMObjectFields, _ name: String, allowed: Set<String>, rule: FCMValidationRule) throws(FCMError) -> String? {
        // ASCII text: the allowed name it equals once uppercased, found without building it.
        if let v = value(f, name), case .some(.some(let hit)) = tape.withASCIIBytes(v, { Self.asciiUppercaseMatch($0, in: allowed) }) {
            guard let found = hit else { throw fail(rule, f.path(name)) }
            return found
        }
        return try enumName(f, name, allowed: allowed, rule: rule, normalise: Self.uppercased)
    }

    /// For ASCII `b`: `.some(the member of allowed equal to uppercased(b))`, `.some(nil)` when
    /// none is; nil when `b` is not ASCII (then `uppercased()` decides).
    static func asciiUppercaseMatch(_ b: UnsafeBufferPointer<UInt8>, in allowed: Set<String>) -> String?? {
        for c in b where c >= 0x80 { return nil }
        for candidate in allowed {
            let equal = UTF8Bytes.of(candidate) { ab -> Bool in
                guard ab.count == b.count else { return false }
                for i in 0..<b.count where (b[i] &- 0x61 < 26 ? b[i] - 0x20 : b[i]) != ab[i] { return false }
                return true
            }
            if equal { return .some(candidate) }
        }
        return .some(nil)
    }

    /// `s.uppercased()`: for ASCII text that is `a`–`z` → `A`–`Z` only, done on the bytes.
    static func uppercased(_ s: String) -> String {
        return UTF8Bytes.of(s) { b -> String in
            var lower = false
            for c in b {
                if c >= 0x80 { return s.uppercased() }
                if c &- 0x61 < 26 { lower = true }
            }
            guard lower else { return s }
            return String(unsafeUninitializedCapacity: b.count) { out in
                for i in 0..<b.count { out[i] = b[i] &- 0x61 < 26 ? b[i] - 0x20 : b[i] }
                return b.count
            }
        }
    }

    /// An enum given by name: one of `allowed`, compared after `normalise`.
    func enumName(_ f: FCMObjectFields, _ name: String, allowed: Set<String>, rule: FCMValidationRule,
                  normalise: (String) -> String = { $0 }) throws(FCMError) -> String? {
        guard let v = value(f, name) else { return nil }
        guard let s = tape.string(v) else { throw fail(rule, f.path(name)) }
        let normalised = normalise(s)
        guard allowed.contains(normalised) else { throw fail(rule, f.path(name)) }
        return normalised
    }
}
