/// Rejects object keys a type does not know, so a typo in a scenario file ("mach" for
/// "match") is an error with a path instead of a silently ignored rule.
public enum StrictKeys {
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int?
        init(stringValue: String) { self.stringValue = stringValue; intValue = nil }
        init?(intValue: Int) { stringValue = String(intValue); self.intValue = intValue }
    }

    /// Throws `DecodingError.dataCorrupted` naming the first unknown key, at that key's path.
    public static func check<K: CodingKey & CaseIterable>(_ decoder: Decoder, allowed: K.Type) throws {
        let names = Set(K.allCases.map(\.stringValue))
        try check(decoder, names: names)
    }

    public static func check(_ decoder: Decoder, names: Set<String>) throws {
        guard let c = try? decoder.container(keyedBy: AnyKey.self) else { return }
        for key in c.allKeys where !names.contains(key.stringValue) {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath + [key],
                debugDescription: "unknown field; expected one of " + names.sorted().joined(separator: ", ")))
        }
    }
}

extension StrictKeys {
    /// A string enum's case, refusing any other string with the list of valid values
    /// (`unknown value "dead"; expected one of active, unregistered, …`).
    public static func decodeCase<T: RawRepresentable & CaseIterable>(_ decoder: Decoder) throws -> T where T.RawValue == String {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        guard let value = T(rawValue: text) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription:
                "unknown value \"\(text)\"; expected one of " + T.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return value
    }
}
