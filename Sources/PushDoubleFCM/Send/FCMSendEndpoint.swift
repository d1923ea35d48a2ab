import PushDoubleJSON

/// The send endpoint's path and success body (fcm.md §1, §3).
public enum FCMSendEndpoint {
    /// `POST /v1/projects/{project_id}/messages:send` (fcm.md §1 [A]).
    public static let pathPrefix = "/v1/projects/"
    public static let pathSuffix = "/messages:send"

    /// The project segment of a send path: `parent` must match `^projects/[^/]+$` (fcm.md §1),
    /// so the segment is non-empty and has no `/`. A query string is not part of the path
    /// here (the wiring splits it off). Nil for any other path.
    public static func project(fromPath path: String) -> String? {
        guard path.hasPrefix(pathPrefix), path.hasSuffix(pathSuffix),
              path.utf8.count > pathPrefix.utf8.count + pathSuffix.utf8.count else { return nil }
        let project = path.dropFirst(pathPrefix.count).dropLast(pathSuffix.count)
        guard !project.isEmpty, !project.contains("/") else { return nil }
        return String(project)
    }

    /// Whether `project` is a project number rather than an id: decimal digits without zero
    /// padding (fcm.md §1: "The numeric project number (no zero padding) is accepted").
    public static func isProjectNumber(_ project: String) -> Bool {
        guard let first = project.utf8.first, first != 0x30 else { return false }
        return project.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// `projects/{project}/messages/{messageID}` (fcm.md §2.1 `name`, §3).
    public static func messageName(project: String, messageID: String) -> String {
        "projects/\(project)/messages/\(messageID)"
    }

    /// The fixed id real FCM returns for `validate_only: true` (fcm.md §3 [O], pushiko capture).
    /// That the project segment echoes the request's project is UNCONFIRMED (§3).
    public static let validateOnlyMessageID = "fake_message_id"

    /// A message id in the documented shape `0:<16 digits>%<16 hex digits>` (fcm.md §3 example
    /// `0:1500415314455276%31bd1c9631bd1c96`); the wiring chooses the numbers.
    public static func messageID(timestampMicros: UInt64, tag: UInt64) -> String {
        let digits = String(timestampMicros % 10_000_000_000_000_000)
        let hex = String(tag, radix: 16)
        return "0:" + String(repeating: "0", count: 16 - digits.count) + digits + "%" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The 200 body `{"name": "…"}`, pretty-printed as the pushiko capture shows it
    /// (fcm.md §3 [O]); the SDKs read only `name`.
    public static func successBody(name: String, trailingNewline: Bool = false) -> [UInt8] {
        var out = JSONValue.object([("name", .string(name))]).serialized(.pretty)
        if trailingNewline { out.append(0x0A) }
        return out
    }
}
