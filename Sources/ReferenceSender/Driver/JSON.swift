import PushDoubleJSON

/// The sender's JSON is the shared `JSONValue` (PushDoubleJSON): ordered members, integers
/// kept apart from doubles and booleans, strict parser with a depth limit. Forwarded
/// `data` values therefore keep their kind; integers beyond Int64 become doubles.
typealias JSON = JSONValue
/// An editable ordered object (the shared `JSONObject`), visible to every file of the sender.
typealias JSONObject = PushDoubleJSON.JSONObject

extension JSONValue {
    /// An integer value from a Swift `Int`.
    static func int(_ v: Int) -> JSONValue { .int(Int64(v)) }
    /// An integer value from an `Int64`.
    static func int64(_ v: Int64) -> JSONValue { .int(v) }
    /// The integer as a Swift `Int` (see `intValue`).
    var int: Int? { intValue.flatMap { Int(exactly: $0) } }
    /// Compact JSON text.
    var text: String { compactJSON }
    /// Compact JSON bytes.
    var bytes: [UInt8] { compactJSONBytes }
}
