// Re-exported: JWT's public API is written in the shared JSON types.
@_exported import PushDoubleJSON

/// A JSON value as JOSE uses it: the shared ``JSONValue`` (integers kept apart from doubles
/// and booleans, members in order). Literals build values: `1_700_000_000` is `.int`.
public typealias JOSEValue = JSONValue

/// A JOSE header or claims set: the shared ordered ``JSONObject`` with unique member names,
/// e.g. `["alg": "ES256", "kid": "ABC123DEFG"]`.
public typealias JOSEObject = JSONObject

extension JSONValue {
    /// Parses JSON text for JOSE: the shared strict parser, plus no repeated member names
    /// at any level (RFC 7515 §4: a JWS with duplicate header names must be rejected).
    public static func parse<Bytes: Collection>(json: Bytes) throws(JSONParseError) -> JSONValue where Bytes.Element == UInt8 {
        try JSONValue.parse(json, maxDepth: JSONParser.defaultMaxDepth, rejectDuplicateKeys: true)
    }
}
