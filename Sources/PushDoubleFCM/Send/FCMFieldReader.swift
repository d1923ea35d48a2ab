import PushDoubleJSON

/// The field names of one proto message, in both spellings proto3 JSON accepts: the
/// snake_case proto name and its lowerCamelCase JSON name (fcm.md §2 [A]: "both ... are
/// accepted"; the SDKs send snake_case).
struct FCMFieldSchema: Sendable {
    let names: [String]
    /// spelling → snake_case name.
    let lookup: [String: String]
    /// The same table by UTF-8 length: `(spelling, name)` pairs whose spelling has that many
    /// bytes, for ASCII member names (a few byte compares instead of hashing the name).
    let byLength: [[(spelling: String, name: String)]]

    init(_ names: [String]) {
        self.names = names
        var l: [String: String] = [:]
        for n in names { l[n] = n; l[Self.lowerCamel(n)] = n }
        lookup = l
        var buckets: [[(spelling: String, name: String)]] = Array(repeating: [], count: (l.keys.map(\.utf8.count).max() ?? 0) + 1)
        for (spelling, name) in l.sorted(by: { $0.key < $1.key }) { buckets[spelling.utf8.count].append((spelling, name)) }
        byLength = buckets
    }

    /// The snake_case name `key` spells, nil when it is not a field of this message.
    /// An ASCII key is compared byte for byte within its length bucket (for ASCII, String
    /// equality is byte equality); any other key goes through `lookup` (String equality is
    /// canonical equivalence, e.g. U+212A KELVIN SIGN equals `K`).
    func name(of key: String) -> String? {
        var k = key
        let n = k.withUTF8 { b -> Int? in
            for c in b where c >= 0x80 { return nil }
            return b.count
        }
        guard let n else { return lookup[key] }
        guard n < byLength.count else { return nil }
        for entry in byLength[n] where entry.spelling == key { return entry.name }
        return nil
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

/// The members of one JSON object looked up by snake_case name. The first occurrence of a
/// field wins (in either spelling); `null` counts as absent (proto3 JSON).
struct FCMObjectFields {
    /// The path of the enclosing object and this object's member name; the dotted path is
    /// joined only when asked for (errors, unknown fields, nested objects), not per object.
    let parentPath: String
    let memberName: String
    /// In member order; a linear list (objects have a few dozen fields at most, and a
    /// dictionary per object showed up on the request path).
    private var values: [(String, JSONValue)] = []

    init(members: [(String, JSONValue)], schema: FCMFieldSchema, parentPath: String, memberName: String, unknown: inout [String]) {
        self.parentPath = parentPath
        self.memberName = memberName
        // The usual object: every member spelled by its snake_case name, none null, none
        // repeated. Its own member list is then the field list, shared rather than copied.
        if Self.isPlain(members, schema) { values = members; return }
        values.reserveCapacity(members.count)
        for (key, value) in members {
            guard let name = schema.name(of: key) else {
                let path = Self.join(parentPath, memberName)
                unknown.append(path.isEmpty ? key : path + "." + key)
                continue
            }
            if !value.isNull, !values.contains(where: { $0.0 == name }) { values.append((name, value)) }
        }
    }

    /// Whether `members` needs no renaming or filtering: known snake_case names only, no
    /// `null`, no name twice (what the loop above would keep is then `members` itself).
    static func isPlain(_ members: [(String, JSONValue)], _ schema: FCMFieldSchema) -> Bool {
        for i in members.indices {
            let (key, value) = members[i]
            guard !value.isNull, let name = schema.name(of: key), name == key else { return false }
            for j in 0..<i where members[j].0 == key { return false }
        }
        return true
    }

    /// `parent.name`, or `name` at the top (the empty path is the request body itself).
    static func join(_ parent: String, _ name: String) -> String { parent.isEmpty ? name : parent + "." + name }

    /// The dotted path of this object (`""` for the body, `message.android`).
    var path: String { Self.join(parentPath, memberName) }
    subscript(name: String) -> JSONValue? {
        for v in values where v.0 == name { return v.1 }
        return nil
    }
    func path(_ name: String) -> String { Self.join(path, name) }
    var isEmpty: Bool { values.isEmpty }
}

/// The typed reads shared by every part of the validator; each failure is an ``FCMError``.
struct FCMFieldReader {
    let configuration: FCMValidatorConfiguration
    var unknown: [String] = []

    init(configuration: FCMValidatorConfiguration) { self.configuration = configuration }

    func fail(_ rule: FCMValidationRule, _ field: String?) -> FCMError {
        FCMError(rule: rule, field: field, envelope: configuration.error(for: rule))
    }

    /// `Invalid value at '<field>' (<TYPE>), <value>` (fcm.md §4.3 doc example 1).
    func wrongType(_ field: String, _ protoType: String, _ value: JSONValue) -> FCMError {
        let envelope = configuration.errorOverrides[.wrongType]
            ?? .invalidValue(field: field, protoType: protoType, valueText: value.compactJSON)
        return FCMError(rule: .wrongType, field: field, envelope: envelope)
    }

    /// The fields of the object at `parentPath`.`name` (both empty: the body); refuses a
    /// non-object and, under the `reject` policy, any unknown member.
    mutating func fields(_ value: JSONValue, _ schema: FCMFieldSchema, parentPath: String, name: String) throws(FCMError) -> FCMObjectFields {
        guard case .object(let members) = value else { throw wrongType(FCMObjectFields.join(parentPath, name), "TYPE_MESSAGE", value) }
        let before = unknown.count
        let f = FCMObjectFields(members: members, schema: schema, parentPath: parentPath, memberName: name, unknown: &unknown)
        if configuration.unknownFields == .reject, unknown.count > before { throw fail(.unknownField, unknown[before]) }
        return f
    }

    mutating func object(_ f: FCMObjectFields, _ name: String, _ schema: FCMFieldSchema) throws(FCMError) -> FCMObjectFields? {
        guard let v = f[name] else { return nil }
        return try fields(v, schema, parentPath: f.path, name: name)
    }

    func string(_ f: FCMObjectFields, _ name: String) throws(FCMError) -> String? {
        guard let v = f[name] else { return nil }
        guard case .string(let s) = v else { throw wrongType(f.path(name), "TYPE_STRING", v) }
        return s
    }

    func bool(_ f: FCMObjectFields, _ name: String) throws(FCMError) -> Bool? {
        guard let v = f[name] else { return nil }
        guard case .bool(let b) = v else { throw wrongType(f.path(name), "TYPE_BOOL", v) }
        return b
    }

    func number(_ f: FCMObjectFields, _ name: String) throws(FCMError) -> Double? {
        guard let v = f[name] else { return nil }
        guard let d = v.doubleValue else { throw wrongType(f.path(name), "TYPE_FLOAT", v) }
        return d
    }

    /// Any JSON object, kept as sent (`apns.payload`, `webpush.notification`).
    func anyObject(_ f: FCMObjectFields, _ name: String) throws(FCMError) -> JSONValue? {
        guard let v = f[name] else { return nil }
        guard case .object = v else { throw wrongType(f.path(name), "TYPE_MESSAGE", v) }
        return v
    }

    /// A `map<string,string>`: a value of another type is `<path>[<index>].value`.
    func stringMap(_ f: FCMObjectFields, _ name: String) throws(FCMError) -> FCMStringMap? {
        guard let v = f[name] else { return nil }
        guard case .object(let members) = v else { throw wrongType(f.path(name), "TYPE_MESSAGE", v) }
        var map = FCMStringMap()
        map.entries.reserveCapacity(members.count)
        for (index, (key, value)) in members.enumerated() {
            guard case .string(let s) = value else { throw wrongType("\(f.path(name))[\(index)].value", "TYPE_STRING", value) }
            map.entries.append(.init(key: key, value: s))
        }
        return map
    }

    func stringArray(_ f: FCMObjectFields, _ name: String) throws(FCMError) -> [String]? {
        guard let v = f[name] else { return nil }
        guard case .array(let items) = v else { throw wrongType(f.path(name), "TYPE_STRING", v) }
        var out: [String] = []
        for (i, item) in items.enumerated() {
            guard case .string(let s) = item else { throw wrongType("\(f.path(name))[\(i)]", "TYPE_STRING", item) }
            out.append(s)
        }
        return out
    }

    /// A google-duration string; anything else fails `rule`.
    func duration(_ f: FCMObjectFields, _ name: String, rule: FCMValidationRule) throws(FCMError) -> FCMDuration? {
        guard let v = f[name] else { return nil }
        guard case .string(let s) = v, let d = FCMDuration(s) else { throw fail(rule, f.path(name)) }
        return d
    }

    /// An enum given by name in any case (`android.priority`): one of `allowed` after
    /// uppercasing (ASCII text byte by byte; other text by `uppercased()`, as before).
    func caseInsensitiveEnumName(_ f: FCMObjectFields, _ name: String, allowed: Set<String>, rule: FCMValidationRule) throws(FCMError) -> String? {
        // ASCII text: the allowed name it equals once uppercased, found without building it.
        if case .string(var s)? = f[name], let hit = s.withUTF8({ b in Self.asciiUppercaseMatch(b, in: allowed) }) {
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
            var a = candidate
            let equal = a.withUTF8 { ab -> Bool in
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
        var t = s
        return t.withUTF8 { b -> String in
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
        guard let v = f[name] else { return nil }
        guard case .string(let s) = v else { throw fail(rule, f.path(name)) }
        let normalised = normalise(s)
        guard allowed.contains(normalised) else { throw fail(rule, f.path(name)) }
        return normalised
    }
}
