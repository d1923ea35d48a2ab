import XCTest
import PushDoubleTestSupport
@testable import PushDoubleHPACK

/// Every RFC 7541 Appendix C example (C.2–C.6), decoded and encoded byte for byte.
///
/// The RFC's encoder used incremental indexing for every literal in C.3–C.6 and
/// Huffman coding in C.4/C.6 only, so the encoder here is configured the same way
/// (`indexingPolicy = .always`, `useHuffman` per section). After every step the dynamic
/// table (entries, newest first, and size) is compared with the RFC's listing.
final class HPACKCodingTests: XCTestCase {
    struct Step {
        var wire: String
        var headers: [(String, String)]
        var table: [(String, String)]  // newest first, as the RFC lists it
        var tableSize: Int
    }

    private func run(_ steps: [Step], tableSize: Int, huffman: Bool,
                     file: StaticString = #filePath, line: UInt = #line) throws {
        var decoder = HPACKDecoder(maxTableSize: tableSize)
        var encoder = HPACKEncoder(maxTableSize: tableSize, useHuffman: huffman)
        encoder.indexingPolicy = .always
        for (n, step) in steps.enumerated() {
            let wire = hex(step.wire)
            let decoded = try decoder.decode(wire)
            XCTAssertEqual(decoded, fields(step.headers), "step \(n + 1) header list", file: file, line: line)
            XCTAssertEqual(decoder.dynamicTableSize, step.tableSize, "step \(n + 1) decoder table size", file: file, line: line)
            XCTAssertEqual(decoder.dynamicTableCount, step.table.count, "step \(n + 1) entries", file: file, line: line)
            for (i, entry) in step.table.enumerated() {
                XCTAssertEqual(decoder.dynamicEntry(hpackIndex: 62 + i), HeaderField(name: entry.0, value: entry.1),
                               "step \(n + 1) entry [\(i + 1)]", file: file, line: line)
            }
            XCTAssertNil(decoder.dynamicEntry(hpackIndex: 62 + step.table.count), file: file, line: line)

            var out: [UInt8] = []
            encoder.encode(fields(step.headers), into: &out)
            XCTAssertEqual(hexString(out), hexString(wire), "step \(n + 1) encoding", file: file, line: line)
            XCTAssertEqual(encoder.dynamicTableSize, step.tableSize, "step \(n + 1) encoder table size", file: file, line: line)
            XCTAssertEqual(encoder.dynamicTableCount, step.table.count, file: file, line: line)
        }
    }

    // MARK: C.2 Header field representation examples

    // C.2.1 Literal Header Field with Indexing.
    func testC_2_1_LiteralWithIndexing() throws {
        try run([Step(wire: "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572",
                      headers: [("custom-key", "custom-header")],
                      table: [("custom-key", "custom-header")], tableSize: 55)],
                tableSize: 4096, huffman: false)
    }

    // C.2.2 Literal Header Field without Indexing.
    func testC_2_2_LiteralWithoutIndexing() throws {
        let wire = hex("040c 2f73 616d 706c 652f 7061 7468")
        var decoder = HPACKDecoder()
        XCTAssertEqual(try decoder.decode(wire), fields([(":path", "/sample/path")]))
        XCTAssertEqual(decoder.dynamicTableSize, 0)
        var encoder = HPACKEncoder(useHuffman: false)
        encoder.indexingPolicy = .never
        var out: [UInt8] = []
        encoder.encode([(":path", "/sample/path")], into: &out)
        XCTAssertEqual(out, wire)
        // The default policy never indexes :path either.
        var automatic = HPACKEncoder(useHuffman: false)
        out = []
        automatic.encode([(":path", "/sample/path")], into: &out)
        XCTAssertEqual(out, wire)
    }

    // C.2.3 Literal Header Field Never Indexed.
    func testC_2_3_LiteralNeverIndexed() throws {
        let wire = hex("1008 7061 7373 776f 7264 0673 6563 7265 74")
        var decoder = HPACKDecoder()
        XCTAssertEqual(try decoder.decode(wire), [HeaderField(name: "password", value: "secret", neverIndex: true)])
        XCTAssertEqual(decoder.dynamicTableSize, 0)
        var encoder = HPACKEncoder(useHuffman: false)
        encoder.indexingPolicy = .always
        var out: [UInt8] = []
        encoder.encode([HeaderField(name: "password", value: "secret", neverIndex: true)], into: &out)
        XCTAssertEqual(out, wire)
        XCTAssertEqual(encoder.dynamicTableSize, 0)
    }

    // C.2.4 Indexed Header Field.
    func testC_2_4_IndexedField() throws {
        var decoder = HPACKDecoder()
        XCTAssertEqual(try decoder.decode([0x82]), fields([(":method", "GET")]))
        XCTAssertEqual(decoder.dynamicTableSize, 0)
        var encoder = HPACKEncoder()
        var out: [UInt8] = []
        encoder.encode([(":method", "GET")], into: &out)
        XCTAssertEqual(out, [0x82])
    }

    // MARK: C.3 / C.4 requests

    static let request1: [(String, String)] = [(":method", "GET"), (":scheme", "http"), (":path", "/"),
                                              (":authority", "www.example.com")]
    static let request2 = request1 + [("cache-control", "no-cache")]
    static let request3: [(String, String)] = [(":method", "GET"), (":scheme", "https"), (":path", "/index.html"),
                                              (":authority", "www.example.com"), ("custom-key", "custom-value")]
    static let requestTables: [[(String, String)]] = [
        [(":authority", "www.example.com")],
        [("cache-control", "no-cache"), (":authority", "www.example.com")],
        [("custom-key", "custom-value"), ("cache-control", "no-cache"), (":authority", "www.example.com")],
    ]

    // C.3 Request Examples without Huffman Coding (C.3.1, C.3.2, C.3.3).
    func testC_3_RequestsWithoutHuffman() throws {
        try run([
            Step(wire: "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
                 headers: Self.request1, table: Self.requestTables[0], tableSize: 57),
            Step(wire: "8286 84be 5808 6e6f 2d63 6163 6865",
                 headers: Self.request2, table: Self.requestTables[1], tableSize: 110),
            Step(wire: "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
                 headers: Self.request3, table: Self.requestTables[2], tableSize: 164),
        ], tableSize: 4096, huffman: false)
    }

    // C.4 Request Examples with Huffman Coding (C.4.1, C.4.2, C.4.3).
    func testC_4_RequestsWithHuffman() throws {
        try run([
            Step(wire: "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
                 headers: Self.request1, table: Self.requestTables[0], tableSize: 57),
            Step(wire: "8286 84be 5886 a8eb 1064 9cbf",
                 headers: Self.request2, table: Self.requestTables[1], tableSize: 110),
            Step(wire: "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
                 headers: Self.request3, table: Self.requestTables[2], tableSize: 164),
        ], tableSize: 4096, huffman: true)
    }

    // MARK: C.5 / C.6 responses, SETTINGS_HEADER_TABLE_SIZE = 256

    static let date1 = "Mon, 21 Oct 2013 20:13:21 GMT"
    static let date2 = "Mon, 21 Oct 2013 20:13:22 GMT"
    static let location = "https://www.example.com"
    static let cookie = "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"
    static let response1: [(String, String)] = [(":status", "302"), ("cache-control", "private"),
                                               ("date", date1), ("location", location)]
    static let response2: [(String, String)] = [(":status", "307"), ("cache-control", "private"),
                                               ("date", date1), ("location", location)]
    static let response3: [(String, String)] = [(":status", "200"), ("cache-control", "private"), ("date", date2),
                                               ("location", location), ("content-encoding", "gzip"), ("set-cookie", cookie)]
    static let responseTables: [[(String, String)]] = [
        [("location", location), ("date", date1), ("cache-control", "private"), (":status", "302")],
        // ":status: 302" evicted to make room for ":status: 307".
        [(":status", "307"), ("location", location), ("date", date1), ("cache-control", "private")],
        // cache-control, date(…21), location and :status 307 evicted.
        [("set-cookie", cookie), ("content-encoding", "gzip"), ("date", date2)],
    ]

    // C.5 Response Examples without Huffman Coding (C.5.1, C.5.2, C.5.3).
    func testC_5_ResponsesWithoutHuffman() throws {
        try run([
            Step(wire: """
                 4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133
                 2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70
                 6c65 2e63 6f6d
                 """, headers: Self.response1, table: Self.responseTables[0], tableSize: 222),
            Step(wire: "4803 3330 37c1 c0bf",
                 headers: Self.response2, table: Self.responseTables[1], tableSize: 222),
            Step(wire: """
                 88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d
                 54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049
                 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e
                 3d31
                 """, headers: Self.response3, table: Self.responseTables[2], tableSize: 215),
        ], tableSize: 256, huffman: false)
    }

    // C.6 Response Examples with Huffman Coding (C.6.1, C.6.2, C.6.3).
    func testC_6_ResponsesWithHuffman() throws {
        try run([
            Step(wire: """
                 4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6
                 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3
                 """, headers: Self.response1, table: Self.responseTables[0], tableSize: 222),
            Step(wire: "4883 640e ffc1 c0bf",
                 headers: Self.response2, table: Self.responseTables[1], tableSize: 222),
            Step(wire: """
                 88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab
                 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f
                 9587 3160 65c0 03ed 4ee5 b106 3d50 07
                 """, headers: Self.response3, table: Self.responseTables[2], tableSize: 215),
        ], tableSize: 256, huffman: true)
    }
}
