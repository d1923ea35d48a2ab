import FuzzSupport
import PushDoubleJSON

/// The JSON parser (RFC 8259) and writer.
///
/// Input: an option byte (nesting limit), then the JSON text.
/// Invariants: an error's offset lies within the input; a text accepted with
/// `rejectDuplicateKeys` parses to the same value without it, and one refused only for a
/// duplicate parses without it; every accepted value written compactly or pretty parses
/// back to the same value, and writing is idempotent.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let maxDepth = [JSONParser.defaultMaxDepth, 2, 512][Int(input.byte()) % 3]
    let text = input.rest()

    let value: JSONValue
    do {
        value = try JSONValue.parse(text, maxDepth: maxDepth)
    } catch {
        fuzzCheck(error.offset >= 0 && error.offset <= text.count, "\(error) outside \(text.count) bytes")
        return 0
    }
    do {
        let strict = try JSONValue.parse(text, maxDepth: maxDepth, rejectDuplicateKeys: true)
        fuzzCheck(strict == value, "rejectDuplicateKeys changed the value")
    } catch {
        guard case .duplicateKey = error.kind else {
            fuzzCheck(false, "rejectDuplicateKeys refused with \(error) a text accepted without it")
            return 0
        }
    }
    let compact = value.compactJSONBytes
    roundTrip(compact, value, "compact", maxDepth: maxDepth)
    roundTrip(value.serialized(.pretty), value, "pretty", maxDepth: maxDepth)
    return 0
}

private func roundTrip(_ written: [UInt8], _ value: JSONValue, _ style: String, maxDepth: Int) {
    do {
        let again = try JSONValue.parse(written, maxDepth: maxDepth)
        fuzzCheck(again == value, "\(style) output parses to a different value: \(String(decoding: written, as: UTF8.self))")
        fuzzCheck(JSONWriter().bytes(again) == JSONWriter().bytes(value), "\(style) writing not idempotent")
    } catch {
        fuzzCheck(false, "\(style) output refused (\(error)): \(String(decoding: written, as: UTF8.self))")
    }
}
