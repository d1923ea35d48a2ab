import PushDoubleCore

/// Why a payload could not be decoded as JSON (recorded in the history, never sent:
/// Apple documents no reason for invalid JSON, so the fake accepts such a push).
public struct APNsPayloadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset of the problem.
    public var offset: Int
    public var message: String
    public var description: String { "invalid JSON at byte \(offset): \(message)" }
}

/// Decodes an APNs payload with the shared strict parser (`JSONValue.parse`): object keys
/// in document order, integers kept apart from doubles, depth bounded by ``maxDepth``.
public struct APNsPayloadDecoder {
    public static let maxDepth = JSONParser.defaultMaxDepth

    /// Parses one JSON text (surrounding whitespace allowed).
    public static func decode(_ bytes: [UInt8]) -> Result<JSONValue, APNsPayloadError> {
        do throws(JSONParseError) {
            return .success(try JSONValue.parse(bytes, maxDepth: maxDepth))
        } catch {
            return .failure(APNsPayloadError(offset: error.offset, message: error.message))
        }
    }
}
