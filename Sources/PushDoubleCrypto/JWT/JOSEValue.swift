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
    public static func parse<Bytes: Collection>(json: Bytes) throws(JOSEJSON.ParseError) -> JSONValue where Bytes.Element == UInt8 {
        try JSONValue.parse(json, maxDepth: JOSEJSON.maximumDepth, rejectDuplicateKeys: true)
    }
}

/// JOSE's view of the shared JSON parser: its error type and nesting limit.
public enum JOSEJSON {
    /// Why JSON text was refused, with the byte offset.
    public typealias ParseError = JSONParseError
    /// Nesting deeper than this is refused (bounded recursion on hostile input).
    public static let maximumDepth = JSONParser.defaultMaxDepth
}
