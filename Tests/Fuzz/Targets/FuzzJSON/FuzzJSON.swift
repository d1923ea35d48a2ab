import FuzzSupport
import PushDoubleJSON

/// The JSON parser (RFC 8259) and writer.
///
/// Input: an option byte (nesting limit), then the JSON text.
/// Invariants: an error's offset lies within the input; a text accepted with
/// `rejectDuplicateKeys` parses to the same value without it, and one refused only for a
/// duplicate parses without it; the tape (``JSONTape``) refuses exactly what the tree parse
/// refuses, with the same error, and gives the same value for every node it accepts; every
/// accepted value written compactly or pretty parses back to the same value, and writing is
/// idempotent.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let maxDepth = [JSONParser.defaultMaxDepth, 2, 512][Int(input.byte()) % 3]
    let text = input.rest()

    let value: JSONValue
    let tape = Result { () throws(JSONParseError) in try JSONTape.parse(Array(text), maxDepth: maxDepth) }
    do {
        value = try JSONValue.parse(text, maxDepth: maxDepth)
    } catch {
        fuzzCheck(error.offset >= 0 && error.offset <= text.count, "\(error) outside \(text.count) bytes")
        if case .failure(let tapeError) = tape { fuzzCheck(tapeError == error, "tape refused with \(tapeError), tree with \(error)") }
        else { fuzzCheck(false, "tape accepted what the tree refused (\(error))") }
        return 0
    }
    switch tape {
    case .failure(let e): fuzzCheck(false, "tape refused (\(e)) what the tree accepted")
    case .success(let t): checkTape(t, t.root, value)
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

/// Every node of the tape, walked through its own accessors, agrees with the tree.
private func checkTape(_ t: JSONTape, _ i: JSONTape.Index, _ v: JSONValue) {
    fuzzCheck(t.value(i) == v, "tape node \(i) differs from the tree")
    switch v {
    case .object(let members):
        let walked = Array(t.members(i))
        fuzzCheck(walked.count == members.count && t.count(i) == members.count, "tape object \(i) has another member count")
        for (m, (k, value)) in zip(walked, members) {
            fuzzCheck(t.string(m.key) == k, "tape key differs")
            checkTape(t, m.value, value)
        }
    case .array(let items):
        let walked = t.elements(i)
        fuzzCheck(walked.count == items.count, "tape array \(i) has another element count")
        for (e, item) in zip(walked, items) { checkTape(t, e, item) }
    case .string(let s):
        fuzzCheck(t.kind(i) == .string && t.string(i) == s, "tape string differs")
        if let ascii = t.withASCIIBytes(i, { Array($0) }) { fuzzCheck(ascii == Array(s.utf8) && ascii.allSatisfy { $0 < 0x80 }, "tape ASCII bytes differ") }
    default: break
    }
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
