import XCTest
import PushDoubleTestSupport
@testable import PushDoubleHPACK

/// Decoder rules and every invalid-input class, each with its typed error and evidence.
final class HPACKDecoderTests: XCTestCase {
    private func decode(_ bytes: [UInt8], maxTableSize: Int = 4096) throws(HPACKError) -> [HeaderField] {
        var d = HPACKDecoder(maxTableSize: maxTableSize)
        return try d.decode(bytes)
    }

    /// Never-indexed Huffman literals (Bearer tokens, remembered whatever their length) and
    /// other literals decode to their own text when they repeat, alternate, or share a length.
    func testRepeatedNeverIndexedLiteralsDecodeExactly() throws {
        var encoder = HPACKEncoder(useHuffman: true)
        var decoder = HPACKDecoder()
        let tokens = (0..<6).map { "Bearer ya29." + String(repeating: "abcdefgh", count: 8).dropLast($0) + String($0) }
        let sameLength = ["Bearer ya29." + String(repeating: "x", count: 60), "Bearer ya29." + String(repeating: "y", count: 60)]
        for round in 0..<3 {
            for value in tokens + sameLength + tokens.reversed() {
                var block: [UInt8] = []
                let path = "/v1/projects/p/messages:send?n=\(round)"
                encoder.encode([HeaderField(name: "authorization", value: value, neverIndex: true), HeaderField(name: ":path", value: path)], into: &block)
                let fields = try decoder.decode(block)
                XCTAssertEqual(fields.map(\.name), ["authorization", ":path"])
                XCTAssertEqual(fields.map(\.value), [value, path])
                XCTAssertEqual(fields.first?.neverIndex, true)
            }
        }
    }

    func testIndexZeroIsAnError() {
        assertHPACKError(.invalidIndex(index: 0, tableEntries: 61)) { () throws(HPACKError) in try decode([0x80]) }
    }

    func testIndexPastTableIsAnError() {
        assertHPACKError(.invalidIndex(index: 62, tableEntries: 61)) { () throws(HPACKError) in try decode([0xbe]) }
        // Literal whose indexed name is past the table.
        assertHPACKError(.invalidIndex(index: 62, tableEntries: 61)) { () throws(HPACKError) in
            try decode([0x7e, 0x01, 0x61])
        }
        // After one insertion, 62 is valid and 63 is not.
        var d = HPACKDecoder()
        XCTAssertNoThrow(try d.decode(hex("400161 0162")))
        XCTAssertEqual(try d.decode([0xbe]), [HeaderField(name: "a", value: "b")])
        assertHPACKError(.invalidIndex(index: 63, tableEntries: 62)) { () throws(HPACKError) in try d.decode([0xbf]) }
    }

    func testSizeUpdateAboveLimitIsAnError() {
        // 001xxxxx with 4097: 3f e2 1f.
        var out: [UInt8] = []
        encodeInteger(4097, prefixBits: 5, flags: 0x20, into: &out)
        assertHPACKError(.tableSizeUpdateTooLarge(requested: 4097, limit: 4096)) { () throws(HPACKError) in try decode(out) }
        assertHPACKError(.tableSizeUpdateTooLarge(requested: 300, limit: 256)) { () throws(HPACKError) in
            var o: [UInt8] = []
            encodeInteger(300, prefixBits: 5, flags: 0x20, into: &o)
            return try decode(o, maxTableSize: 256)
        }
    }

    func testSizeUpdatesAtBlockStartApply() throws {
        var d = HPACKDecoder()
        _ = try d.decode(hex("400161 0162"))  // a: b, 34 octets
        XCTAssertEqual(d.dynamicTableSize, 34)
        // Two updates (0 then 4096) then an indexed field: legal, table flushed.
        var block: [UInt8] = [0x20]
        encodeInteger(4096, prefixBits: 5, flags: 0x20, into: &block)
        block.append(0x82)
        XCTAssertEqual(try d.decode(block), fields([(":method", "GET")]))
        XCTAssertEqual(d.dynamicTableSize, 0)
        XCTAssertEqual(d.dynamicTableCapacity, 4096)
        // A block consisting of a size update alone is legal too.
        XCTAssertEqual(try d.decode([0x3f, 0x11]), [])  // 31 + 17 = 48
        XCTAssertEqual(d.dynamicTableCapacity, 48)
    }

    func testSizeUpdateNotAtBlockStartIsAnError() {
        assertHPACKError(.tableSizeUpdateNotAtStart(offset: 1)) { () throws(HPACKError) in try decode([0x82, 0x20]) }
    }

    func testLoweredLimitRequiresSizeUpdate() throws {
        var d = HPACKDecoder()
        d.maxTableSize = 1024
        assertHPACKError(.missingTableSizeUpdate(limit: 1024, current: 4096)) { () throws(HPACKError) in
            try d.decode([0x82])
        }
        var ok = HPACKDecoder()
        ok.maxTableSize = 1024
        var block: [UInt8] = []
        encodeInteger(1000, prefixBits: 5, flags: 0x20, into: &block)
        block.append(0x82)
        XCTAssertEqual(try ok.decode(block), fields([(":method", "GET")]))
        XCTAssertEqual(ok.dynamicTableCapacity, 1000)
        XCTAssertEqual(try ok.decode([0x82]), fields([(":method", "GET")]))  // obligation met
    }

    func testTruncatedIntegerIsAnError() {
        assertHPACKError(.truncatedInteger(offset: 0)) { () throws(HPACKError) in try decode([0xff]) }
        assertHPACKError(.truncatedInteger(offset: 1)) { () throws(HPACKError) in try decode([0x82, 0xff, 0x80]) }
        // String length integer cut off.
        assertHPACKError(.truncatedInteger(offset: 1)) { () throws(HPACKError) in try decode([0x40, 0x7f]) }
    }

    func testIntegerOverflowIsAnError() {
        assertHPACKError(.integerOverflow(offset: 0, limit: hpackIntegerLimit)) { () throws(HPACKError) in
            try decode([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])
        }
    }

    func testTruncatedLiteralIsAnError() {
        // Literal with new name: the name string is missing entirely.
        assertHPACKError(.truncatedBlock(offset: 1)) { () throws(HPACKError) in try decode([0x40]) }
        // Name present, value missing.
        assertHPACKError(.truncatedBlock(offset: 3)) { () throws(HPACKError) in try decode([0x40, 0x01, 0x61]) }
    }

    func testStringLengthPastEndIsAnError() {
        assertHPACKError(.stringPastEnd(offset: 1, length: 10, available: 3)) { () throws(HPACKError) in
            try decode([0x40, 0x0a, 0x61, 0x62, 0x63])
        }
        // Huffman string too.
        assertHPACKError(.stringPastEnd(offset: 1, length: 5, available: 1)) { () throws(HPACKError) in
            try decode([0x04, 0x85, 0x1f])
        }
    }

    func testBadHuffmanPaddingIsAnError() {
        // :path (literal without indexing, name 4) with Huffman value "a" padded with 0s.
        assertHPACKError(.invalidHuffmanPadding(paddingBits: 3)) { () throws(HPACKError) in try decode([0x04, 0x81, 0x18]) }
        assertHPACKError(.invalidHuffmanPadding(paddingBits: 11)) { () throws(HPACKError) in
            try decode([0x04, 0x82, 0x1f, 0xff])
        }
    }

    func testEOSInHuffmanStringIsAnError() {
        assertHPACKError(.huffmanEOS(offset: 5)) { () throws(HPACKError) in
            try decode([0x04, 0x84, 0xff, 0xff, 0xff, 0xff])
        }
    }

    func testNeverIndexedFlagIsReported() throws {
        // 0001xxxx with name index 23 (authorization).
        let got = try decode([0x1f, 0x08, 0x03, 0x61, 0x62, 0x63])
        XCTAssertEqual(got, [HeaderField(name: "authorization", value: "abc", neverIndex: true)])
    }

    func testHeaderListTooLargeKeepsTableInSync() throws {
        var d = HPACKDecoder(maxTableSize: 4096, maxHeaderListSize: 100)
        var e = HPACKEncoder()
        e.indexingPolicy = .always
        var block: [UInt8] = []
        e.encode([("x-one", String(repeating: "1", count: 40)), ("x-two", String(repeating: "2", count: 40))], into: &block)
        do {
            _ = try d.decode(block)
            XCTFail("expected headerListTooLarge")
        } catch {
            XCTAssertEqual(error, .headerListTooLarge(size: 2 * (5 + 40 + 32), limit: 100))
        }
        // Both literals were still inserted: the next block referencing them decodes.
        XCTAssertEqual(d.dynamicTableCount, 2)
        XCTAssertEqual(d.dynamicTableSize, e.dynamicTableSize)
        block = []
        e.encode([("x-two", String(repeating: "2", count: 40))], into: &block)
        XCTAssertEqual(block, [0xbe])
        XCTAssertEqual(try d.decode(block), fields([("x-two", String(repeating: "2", count: 40))]))
    }

    func testHeaderListSizeExactlyAtLimitIsAccepted() throws {
        var d = HPACKDecoder(maxTableSize: 4096, maxHeaderListSize: 32 + 7 + 3)  // ":method" + "GET"
        XCTAssertEqual(try d.decode([0x82]).count, 1)
        XCTAssertThrowsError(try d.decode([0x82, 0x82]))
    }

    func testUnsafeRawBufferOverloadMatches() throws {
        let wire = hex("8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff")
        var a = HPACKDecoder()
        var b = HPACKDecoder()
        let viaArray = try a.decode(wire)
        let viaRaw = try wire.withUnsafeBytes { raw in try b.decode(raw) }
        XCTAssertEqual(viaArray, viaRaw)
        XCTAssertEqual(a.dynamicTableSize, b.dynamicTableSize)
    }

    /// A sink sees exactly the list's fields in order; past the list limit it sees the fields
    /// that fit, and the block still ends with headerListTooLarge.
    func testSinkGetsTheListsFieldsAndStopsAtTheLimit() throws {
        struct Recorder: HPACKFieldSink {
            var got: [HeaderField] = []
            mutating func field(name: consuming String, value: consuming String, neverIndex: Bool) {
                got.append(HeaderField(name: name, value: value, neverIndex: neverIndex))
            }
        }
        let wire = hex("8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff") + [0x1f, 0x08, 0x03, 0x61, 0x62, 0x63]
        var a = HPACKDecoder(), b = HPACKDecoder()
        var sink = Recorder()
        try b.decode(wire, into: &sink)
        XCTAssertEqual(sink.got, try a.decode(wire))
        XCTAssertEqual(sink.got.count, 5)
        XCTAssertEqual(a.dynamicTableSize, b.dynamicTableSize)

        var limited = HPACKDecoder(maxTableSize: 4096, maxHeaderListSize: 32 + 7 + 3 + 32 + 7 + 4)   // :method GET, :scheme http
        var partial = Recorder()
        XCTAssertThrowsError(try limited.decode(wire, into: &partial))
        XCTAssertEqual(partial.got.map(\.name), [":method", ":scheme"])
    }

    func testEmptyBlockDecodesToNothing() throws {
        XCTAssertEqual(try decode([]), [])
    }

    func testInvalidUTF8IsRepairedNotFatal() throws {
        // A raw value with 0xff: HPACK carries octets; String repair is the decoder's choice.
        let got = try decode([0x04, 0x02, 0x2f, 0xff])
        XCTAssertEqual(got.count, 1)
        XCTAssertEqual(got[0].name, ":path")
    }
}

extension HPACKDecoderTests {
    /// A long never-indexed Huffman literal (a bearer token on every request) is decoded once
    /// and then recognised by its bytes; a literal that differs is decoded afresh.
    func testRepeatedLongLiteralsDecodeTheSameAndDistinctOnesDiffer() throws {
        var encoder = HPACKEncoder()
        var decoder = HPACKDecoder()
        let jwt = "bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IlBEVEVTVEtFWTEifQ." + String(repeating: "abcdefghij", count: 12)
        for round in 0..<6 {
            // Rounds 3–5 change one character near the end: same encoded length, other bytes.
            let value = round < 3 ? jwt : String(jwt.dropLast()) + String(round)
            var block: [UInt8] = []
            encoder.encode([HeaderField(name: "authorization", value: value)], into: &block)
            XCTAssertGreaterThanOrEqual(block.count, 64, "long enough to be remembered")
            let fields = try decoder.decode(block)
            XCTAssertEqual(fields.map(\.value), [value], "round \(round)")
        }
    }
}
