import XCTest
import PushDoubleTestSupport
@testable import PushDoubleHPACK

/// RFC 7541 §5.2 / Appendix B Huffman coding.
final class HuffmanCodingTests: XCTestCase {
    private func huffEncode(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        bytes.withUnsafeBufferPointer { HuffmanCoding.encode($0, into: &out) }
        XCTAssertEqual(out.count, bytes.withUnsafeBufferPointer { HuffmanCoding.encodedLength($0) })
        return out
    }

    private func huffDecode(_ bytes: [UInt8]) throws(HPACKError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: bytes.count * 8 / 5 + 1)
        let result: Result<Int, HPACKError> = bytes.withUnsafeBytes { raw in
            out.withUnsafeMutableBufferPointer { buf in
                do throws(HPACKError) { return .success(try HuffmanCoding.decode(raw, into: buf, baseOffset: 0)) } catch {
                    return .failure(error)
                }
            }
        }
        return Array(out.prefix(try result.get()))
    }

    /// Every Huffman-coded literal of RFC 7541 C.4 and C.6.
    static let rfcStrings: [(String, String)] = [
        ("www.example.com", "f1e3 c2e5 f23a 6ba0 ab90 f4ff"),
        ("no-cache", "a8eb 1064 9cbf"),
        ("custom-key", "25a8 49e9 5ba9 7d7f"),
        ("custom-value", "25a8 49e9 5bb8 e8b4 bf"),
        ("302", "6402"),
        ("307", "640e ff"),
        ("private", "aec3 771a 4b"),
        ("Mon, 21 Oct 2013 20:13:21 GMT", "d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff"),
        ("Mon, 21 Oct 2013 20:13:22 GMT", "d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff"),
        ("https://www.example.com", "9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3"),
        ("gzip", "9bd9 ab"),
        ("foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1",
         "94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07"),
    ]

    func testRFCAppendixCStringsEncodeAndDecode() throws {
        for (plain, coded) in Self.rfcStrings {
            XCTAssertEqual(hexString(huffEncode(Array(plain.utf8))), hexString(hex(coded)), plain)
            XCTAssertEqual(String(decoding: try huffDecode(hex(coded)), as: UTF8.self), plain)
        }
    }

    func testTableMatchesAppendixBSamples() {
        // Spot checks against RFC 7541 Appendix B rows.
        XCTAssertEqual(HuffmanTable.codes[48], 0x0); XCTAssertEqual(HuffmanTable.lengths[48], 5)      // '0'
        XCTAssertEqual(HuffmanTable.codes[97], 0x3); XCTAssertEqual(HuffmanTable.lengths[97], 5)      // 'a'
        XCTAssertEqual(HuffmanTable.codes[32], 0x14); XCTAssertEqual(HuffmanTable.lengths[32], 6)     // ' '
        XCTAssertEqual(HuffmanTable.codes[0], 0x1ff8); XCTAssertEqual(HuffmanTable.lengths[0], 13)
        XCTAssertEqual(HuffmanTable.codes[255], 0x3ffffee); XCTAssertEqual(HuffmanTable.lengths[255], 26)
        XCTAssertEqual(HuffmanTable.codes[256], 0x3fffffff); XCTAssertEqual(HuffmanTable.lengths[256], 30) // EOS
        XCTAssertEqual(HuffmanTable.codes.count, 257)
        XCTAssertEqual(HuffmanTable.lengths.count, 257)
        // Kraft equality: a complete prefix code.
        var kraft = 0.0
        for l in HuffmanTable.lengths { kraft += 1.0 / Double(1 << Int(l)) }
        XCTAssertEqual(kraft, 1.0, accuracy: 1e-12)
    }

    func testEveryByteValueRoundTrips() throws {
        let all = (0...255).map { UInt8($0) }
        XCTAssertEqual(try huffDecode(huffEncode(all)), all)
        for b in all { XCTAssertEqual(try huffDecode(huffEncode([b])), [b]) }
    }

    func testRandomStringsRoundTrip() throws {
        var rng = SeededRandomNumberGenerator(seed: 42)
        for i in 0..<5000 {
            let len = Int.random(in: 0...64, using: &rng)
            let bytes: [UInt8]
            if i % 2 == 0 {  // header-like ASCII
                bytes = (0..<len).map { _ in UInt8.random(in: 0x20...0x7e, using: &rng) }
            } else {
                bytes = (0..<len).map { _ in UInt8.random(in: 0...255, using: &rng) }
            }
            XCTAssertEqual(try huffDecode(huffEncode(bytes)), bytes)
        }
    }

    func testEmptyStringIsValid() throws {
        XCTAssertEqual(huffEncode([]), [])
        XCTAssertEqual(try huffDecode([]), [])
    }

    func testPaddingLongerThanSevenBitsIsAnError() {
        // 'a' (00011) + 111 padding = 0x1f is fine; one more 0xff byte makes 11 padding bits.
        XCTAssertEqual(try? huffDecode([0x1f]), Array("a".utf8))
        assertHPACKError(.invalidHuffmanPadding(paddingBits: 11)) { () throws(HPACKError) in try huffDecode([0x1f, 0xff]) }
        // A lone 0xff: eight bits of padding.
        assertHPACKError(.invalidHuffmanPadding(paddingBits: 8)) { () throws(HPACKError) in try huffDecode([0xff]) }
    }

    func testPaddingNotAllOnesIsAnError() {
        // 'a' (00011) followed by 000 padding.
        assertHPACKError(.invalidHuffmanPadding(paddingBits: 3)) { () throws(HPACKError) in try huffDecode([0x18]) }
        // Three '0' symbols (00000 each) leave one 0 bit as padding.
        assertHPACKError(.invalidHuffmanPadding(paddingBits: 1)) { () throws(HPACKError) in try huffDecode([0x00, 0x00]) }
    }

    func testEOSInsideStringIsAnError() {
        // 30 ones are EOS.
        assertHPACKError(.huffmanEOS(offset: 3)) { () throws(HPACKError) in try huffDecode([0xff, 0xff, 0xff, 0xff]) }
        // 'a' then EOS: 00011 + 30 ones ends in byte index 4.
        assertHPACKError(.huffmanEOS(offset: 4)) { () throws(HPACKError) in
            try huffDecode([0x1f, 0xff, 0xff, 0xff, 0xff])
        }
    }
}
