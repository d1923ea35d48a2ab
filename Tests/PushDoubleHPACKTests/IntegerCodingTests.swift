import XCTest
import PushDoubleTestSupport
@testable import PushDoubleHPACK

/// RFC 7541 §5.1 prefix integers, including Appendix C.1.
final class IntegerCodingTests: XCTestCase {
    private func encode(_ v: Int, prefix: Int, flags: UInt8 = 0) -> [UInt8] {
        var out: [UInt8] = []
        encodeInteger(v, prefixBits: prefix, flags: flags, into: &out)
        return out
    }

    private func decode(_ bytes: [UInt8], prefix: Int) throws(HPACKError) -> (Int, Int) {
        var offset = 0
        let result: Result<Int, HPACKError> = bytes.withUnsafeBytes { raw in
            do throws(HPACKError) { return .success(try decodeInteger(raw, offset: &offset, prefixBits: prefix)) } catch {
                return .failure(error)
            }
        }
        return (try result.get(), offset)
    }

    // RFC 7541 C.1.1: 10 with a 5-bit prefix is 0x0a (here with flags 0b111 above it).
    func testC_1_1_TenWithFiveBitPrefix() throws {
        XCTAssertEqual(encode(10, prefix: 5), [0x0a])
        XCTAssertEqual(encode(10, prefix: 5, flags: 0xe0), [0xea])
        let (v, used) = try decode([0xea], prefix: 5)
        XCTAssertEqual(v, 10)
        XCTAssertEqual(used, 1)
    }

    // RFC 7541 C.1.2: 1337 with a 5-bit prefix is 1f 9a 0a.
    func testC_1_2_1337WithFiveBitPrefix() throws {
        XCTAssertEqual(encode(1337, prefix: 5), [0x1f, 0x9a, 0x0a])
        let (v, used) = try decode([0x1f, 0x9a, 0x0a, 0xff], prefix: 5)
        XCTAssertEqual(v, 1337)
        XCTAssertEqual(used, 3)
    }

    // RFC 7541 C.1.3: 42 starting at an octet boundary (8-bit prefix) is 0x2a.
    func testC_1_3_FortyTwoOnOctetBoundary() throws {
        XCTAssertEqual(encode(42, prefix: 8), [0x2a])
        XCTAssertEqual(try decode([0x2a], prefix: 8).0, 42)
    }

    func testPrefixBoundaryNeedsAZeroContinuation() throws {
        // 2^N - 1 does not fit the prefix: prefix all ones then 0x00.
        XCTAssertEqual(encode(31, prefix: 5), [0x1f, 0x00])
        XCTAssertEqual(encode(30, prefix: 5), [0x1e])
        XCTAssertEqual(encode(127, prefix: 7), [0x7f, 0x00])
        XCTAssertEqual(encode(128, prefix: 7), [0x7f, 0x01])
        XCTAssertEqual(try decode([0x1f, 0x00], prefix: 5).0, 31)
    }

    func testRoundTripsAcrossPrefixesAndMagnitudes() throws {
        var rng = SeededRandomNumberGenerator(seed: 7)
        var values = [0, 1, 2, 14, 15, 16, 62, 63, 64, 126, 127, 128, 254, 255, 256, 16383, 16384,
                      2_097_151, 2_097_152, Int(Int32.max) - 1, Int(Int32.max)]
        for _ in 0..<2000 { values.append(Int.random(in: 0...Int(Int32.max), using: &rng)) }
        for prefix in 1...8 {
            for v in values {
                let bytes = encode(v, prefix: prefix)
                let (decoded, used) = try decode(bytes, prefix: prefix)
                XCTAssertEqual(decoded, v, "prefix \(prefix)")
                XCTAssertEqual(used, bytes.count)
            }
        }
    }

    func testTruncatedIntegerIsATypedError() {
        assertHPACKError(.truncatedInteger(offset: 0)) { () throws(HPACKError) in try decode([], prefix: 5) }
        assertHPACKError(.truncatedInteger(offset: 0)) { () throws(HPACKError) in try decode([0x1f], prefix: 5) }
        assertHPACKError(.truncatedInteger(offset: 0)) { () throws(HPACKError) in try decode([0x1f, 0x9a], prefix: 5) }
        assertHPACKError(.truncatedInteger(offset: 0)) { () throws(HPACKError) in try decode([0xff, 0x80, 0x80], prefix: 8) }
    }

    func testOverflowIsATypedError() {
        // 2^31 (one past the limit) with a 7-bit prefix.
        let tooBig = encode(Int(Int32.max) + 1, prefix: 7)
        assertHPACKError(.integerOverflow(offset: 0, limit: hpackIntegerLimit)) { () throws(HPACKError) in
            try decode(tooBig, prefix: 7)
        }
        // Ten continuation bytes of all ones: would overflow 64 bits too.
        let huge: [UInt8] = [0x7f] + [UInt8](repeating: 0xff, count: 10) + [0x01]
        assertHPACKError(.integerOverflow(offset: 0, limit: hpackIntegerLimit)) { () throws(HPACKError) in
            try decode(huge, prefix: 7)
        }
        // Endless zero-valued continuation bytes are junk, not a hang.
        let padded: [UInt8] = [0x7f] + [UInt8](repeating: 0x80, count: 40) + [0x00]
        assertHPACKError(.integerOverflow(offset: 0, limit: hpackIntegerLimit)) { () throws(HPACKError) in
            try decode(padded, prefix: 7)
        }
    }
}
