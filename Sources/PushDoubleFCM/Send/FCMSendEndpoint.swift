#if canImport(Glibc)
import Glibc
#endif
import PushDoubleJSON
import PushDoubleTransport

/// The send endpoint's path and success body (docs/fcm.md §1, §3).
public enum FCMSendEndpoint {
    /// `POST /v1/projects/{project_id}/messages:send` (docs/fcm.md §1 [A]).
    public static let pathPrefix = prefixLiteral.description
    public static let pathSuffix = suffixLiteral.description
    /// The same two literals as raw UTF-8, for matching a path's bytes (no String, no array).
    private static var prefixLiteral: StaticString { "/v1/projects/" }
    private static var suffixLiteral: StaticString { "/messages:send" }

    /// The project segment of a send path: `parent` must match `^projects/[^/]+$` (docs/fcm.md §1),
    /// so the segment is non-empty and has no `/`. A query string is not part of the path
    /// here (the wiring splits it off). Nil for any other path.
    public static func project<Path: StringProtocol>(fromPath path: Path) -> String? {
        // Straight on the path's contiguous UTF-8 when it has some (a Substring of a native
        // String does), without first copying it into a String.
        if let r = path.utf8.withContiguousStorageIfAvailable({ project(fromPathBytes: $0) }) { return r }
        var s = String(path)
        return s.withUTF8 { project(fromPathBytes: $0) }
    }

    /// ``project(fromPath:)`` of a request's `:path` / request-target, its query (from the
    /// first `?`) left out; on the UTF-8 bytes in one go.
    public static func project(fromRequestPath path: String) -> String? {
        UTF8Bytes.of(path) { b in
            guard let base = b.baseAddress else { return nil }
            let end = memchr(base, Int32(UInt8(ascii: "?")), b.count).map { UnsafeRawPointer(base).distance(to: UnsafeRawPointer($0)) } ?? b.count
            return project(fromPathBytes: UnsafeBufferPointer(rebasing: b[..<end]))
        }
    }

    private static func project(fromPathBytes b: UnsafeBufferPointer<UInt8>) -> String? {
        let pre = prefixLiteral, suf = suffixLiteral
        let preCount = pre.utf8CodeUnitCount, sufCount = suf.utf8CodeUnitCount
        guard b.count > preCount + sufCount, let base = b.baseAddress else { return nil }
        let end = b.count - sufCount
        guard memcmp(base, pre.utf8Start, preCount) == 0, memcmp(base + end, suf.utf8Start, sufCount) == 0 else { return nil }
        guard memchr(base + preCount, Int32(UInt8(ascii: "/")), end - preCount) == nil else { return nil }
        return String(decoding: UnsafeBufferPointer(start: base + preCount, count: end - preCount), as: UTF8.self)
    }

    /// Whether `project` is a project number rather than an id: decimal digits without zero
    /// padding (docs/fcm.md §1: "The numeric project number (no zero padding) is accepted").
    public static func isProjectNumber(_ project: String) -> Bool {
        guard let first = project.utf8.first, first != 0x30 else { return false }
        return project.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// `projects/{project}/messages/{messageID}` (docs/fcm.md §2.1 `name`, §3).
    public static func messageName(project: String, messageID: String) -> String {
        "projects/\(project)/messages/\(messageID)"
    }

    /// The fixed id real FCM returns for `validate_only: true` (docs/fcm.md §3 [O], pushiko capture).
    /// That the project segment echoes the request's project is UNCONFIRMED (§3).
    public static let validateOnlyMessageID = "fake_message_id"

    /// A message id in the documented shape `0:<16 digits>%<16 hex digits>` (docs/fcm.md §3 example
    /// `0:1500415314455276%31bd1c9631bd1c96`); the wiring chooses the numbers.
    public static func messageID(timestampMicros: UInt64, tag: UInt64) -> String {
        // Written digit by digit straight into the string's storage (it is made for every
        // accepted send).
        String(unsafeUninitializedCapacity: messageIDLength) { out in
            writeMessageID(timestampMicros: timestampMicros, tag: tag, into: out)
            return messageIDLength
        }
    }
    /// `"0:"`, 16 digits, `"%"`, 16 hex digits.
    static let messageIDLength = 35

    /// The bytes of ``messageID(timestampMicros:tag:)`` into `out[0..<35]`.
    static func writeMessageID(timestampMicros: UInt64, tag: UInt64, into out: UnsafeMutableBufferPointer<UInt8>) {
        out[0] = 0x30; out[1] = 0x3A; out[18] = 0x25
        var t = timestampMicros % 10_000_000_000_000_000
        for i in stride(from: 17, through: 2, by: -1) { out[i] = 0x30 + UInt8(t % 10); t /= 10 }
        var x = tag
        for i in stride(from: 34, through: 19, by: -1) {
            let d = UInt8(x & 0xF)
            out[i] = d < 10 ? 0x30 + d : 0x57 + d  // 0-9, a-f
            x >>= 4
        }
    }

    /// The 200 body `{"name": "…"}`, pretty-printed as the pushiko capture shows it
    /// (docs/fcm.md §3 [O]); the SDKs read only `name`.
    public static func successBody(name: String, trailingNewline: Bool = false) -> [UInt8] {
        var out: [UInt8]
        if needsNoEscape(name) {
            // Nothing to escape: the same bytes as the writer's, without building a JSON tree.
            out = Array("{\n  \"name\": \"".utf8)
            out.reserveCapacity(out.count + name.utf8.count + 4)
            out.append(contentsOf: name.utf8)
            out.append(contentsOf: "\"\n}".utf8)
        } else {
            out = JSONValue.object([("name", .string(name))]).serialized(.pretty)
        }
        if trailingNewline { out.append(0x0A) }
        return out
    }

    /// Printable ASCII without `"` or `\`: written as is in a JSON string.
    private static func needsNoEscape(_ s: String) -> Bool {
        UTF8Bytes.of(s) { b in
            for c in b where c &- 0x20 >= 0x5F || c == 0x22 || c == 0x5C { return false }  // outside 0x20...0x7E
            return true
        }
    }

    /// `successBody(name: messageName(project:messageID:))`, written in one buffer without
    /// building the name first (the answer of every accepted send).
    public static func successBody(project: String, messageID: String) -> [UInt8] {
        guard needsNoEscape(project), needsNoEscape(messageID) else {
            return successBody(name: messageName(project: project, messageID: messageID))
        }
        return UTF8Bytes.of(project) { pb in
            UTF8Bytes.of(messageID) { mb in
                var out = [UInt8]()
                out.reserveCapacity(successBodyHead.count + pb.count + successBodyMiddle.count + mb.count + successBodyTail.count)
                out.append(contentsOf: successBodyHead)
                out.append(contentsOf: pb)
                out.append(contentsOf: successBodyMiddle)
                out.append(contentsOf: mb)
                out.append(contentsOf: successBodyTail)
                return out
            }
        }
    }

    /// `successBody(project:messageID: messageID(timestampMicros:tag:))`, the id's digits
    /// written straight into the body (the answer of every accepted send).
    public static func successBody(project: String, timestampMicros: UInt64, tag: UInt64) -> [UInt8] {
        guard let body = UTF8Bytes.of(project, { pb -> [UInt8]? in
            for c in pb where c &- 0x20 >= 0x5F || c == 0x22 || c == 0x5C { return nil }
            let idAt = successBodyHead.count + pb.count + successBodyMiddle.count
            let count = idAt + messageIDLength + successBodyTail.count
            return [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
                var k = 0
                func put<C: Collection>(_ bytes: C) where C.Element == UInt8 { for c in bytes { out[k] = c; k += 1 } }
                put(successBodyHead); put(pb); put(successBodyMiddle)
                writeMessageID(timestampMicros: timestampMicros, tag: tag, into: UnsafeMutableBufferPointer(rebasing: out[idAt..<(idAt + messageIDLength)]))
                k += messageIDLength
                put(successBodyTail)
                initialized = k
            }
        }) else {
            return successBody(project: project, messageID: messageID(timestampMicros: timestampMicros, tag: tag))
        }
        return body
    }
    private static let successBodyHead = Array("{\n  \"name\": \"projects/".utf8)
    private static let successBodyMiddle = Array("/messages/".utf8)
    private static let successBodyTail = Array("\"\n}".utf8)
}
