import FuzzSupport
import PushDoubleHPACK

/// HPACK decoder (RFC 7541) fed the header blocks of one connection.
///
/// Input: one option byte (dynamic table size, header list limit), then header blocks as
/// ``FuzzInput/chunks()``. Decoding stops at the first error, as a connection would.
/// Invariants: the dynamic table never exceeds its capacity or the advertised maximum,
/// and every decoded list survives a round trip through ``HPACKEncoder`` and a fresh
/// decoder (same names and values; never-indexed stays never-indexed).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHPACK(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let options = input.byte()
    let tableSizes = [0, 64, 256, 4096, 65536]
    let tableSize = tableSizes[Int(options & 0x7) % tableSizes.count]
    let listLimit = (options & 0x8) != 0 ? 256 : 1 << 20
    var decoder = HPACKDecoder(maxTableSize: tableSize, maxHeaderListSize: listLimit)
    var encoder = HPACKEncoder(maxTableSize: tableSize)
    var checker = HPACKDecoder(maxTableSize: tableSize, maxHeaderListSize: Int.max)
    for block in input.chunks() {
        let fields: [HeaderField]
        do {
            fields = try decoder.decode(block)
        } catch .headerListTooLarge {
            continue  // the table stays in sync (HPACKError docs); only the stream is refused
        } catch {
            break
        }
        fuzzCheck(decoder.dynamicTableSize <= decoder.dynamicTableCapacity, "table size over capacity")
        fuzzCheck(decoder.dynamicTableCapacity <= tableSize, "table capacity over the advertised maximum")
        var reencoded: [UInt8] = []
        encoder.encode(fields, into: &reencoded)
        let again: [HeaderField]
        do { again = try checker.decode(reencoded) } catch {
            fuzzCheck(false, "re-encoded block refused: \(error)")
            return 0
        }
        fuzzCheck(again.count == fields.count, "round trip changed the field count")
        for (a, b) in zip(fields, again) {
            fuzzCheck(a.name == b.name && a.value == b.value, "round trip changed \(a) into \(b)")
            fuzzCheck(!a.neverIndex || b.neverIndex, "round trip lost never-indexed on \(a.name)")
        }
    }
    return 0
}
