import XCTest
import PushDoubleTestSupport
@testable import PushDoubleHPACK

/// Encoder choices (indexing policy, never-index, size updates) and round trips.
final class HPACKEncoderTests: XCTestCase {
    func testAPNsResponsePatternKeepsTableSmall() throws {
        var e = HPACKEncoder(uniqueValueNames: ["apns-id"])  // as the APNs listener configures it
        var d = HPACKDecoder()
        let ids = ["8E5B7D7C-2B6B-4E0C-9C42-0F1E2D3C4B5A", "0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9",
                   "FFFFFFFF-0000-1111-2222-333344445555"]
        var first: [UInt8] = []
        e.encode([(":status", "200"), ("apns-id", ids[0])], into: &first)
        // :status 200 is static index 8; apns-id is new: incremental indexing puts its name in.
        XCTAssertEqual(first[0], 0x88)
        XCTAssertEqual(first[1], 0x40)
        XCTAssertEqual(try d.decode(first), fields([(":status", "200"), ("apns-id", ids[0])]))
        XCTAssertEqual(e.dynamicTableCount, 1)
        for id in ids.dropFirst() {
            var block: [UInt8] = []
            e.encode([(":status", "200"), ("apns-id", id)], into: &block)
            // Literal without indexing, name = dynamic index 62 (4-bit prefix: 0x0f 0x2f).
            XCTAssertEqual(Array(block.prefix(3)), [0x88, 0x0f, 0x2f])
            XCTAssertEqual(try d.decode(block), fields([(":status", "200"), ("apns-id", id)]))
            XCTAssertEqual(e.dynamicTableCount, 1)
            XCTAssertEqual(d.dynamicTableCount, 1)
        }
    }

    /// Every status below 600, after a block that filled the dynamic table with `:status`
    /// entries: the one-byte form is written exactly when it is what `encodeField` writes, and
    /// the encoder is left as `encodeField` leaves it.
    func testStaticStatusIsTheBytesEncodeFieldWrites() throws {
        var warm = HPACKEncoder()
        var ignored: [UInt8] = []
        warm.encode([(":status", "200"), (":status", "201"), (":status", "404"), ("server", "x")], into: &ignored)
        for status in 0..<600 {
            var viaField = warm, viaStatus = warm
            var a: [UInt8] = [], b: [UInt8] = []
            viaField.encodeField(name: ":status", value: String(status), neverIndex: false, into: &a)
            if !viaStatus.encodeStaticStatus(status, into: &b) {
                XCTAssertEqual(b, [], "\(status)")
                XCTAssertFalse([200, 204, 206, 304, 400, 404, 500].contains(status), "\(status)")
                continue
            }
            XCTAssertEqual(b, a, "\(status)")
            XCTAssertEqual(b.count, 1, "\(status)")
            // The same state after: the next field encodes alike.
            var c: [UInt8] = [], d: [UInt8] = []
            viaField.encodeField(name: ":status", value: "201", neverIndex: false, into: &c)
            viaStatus.encodeField(name: ":status", value: "201", neverIndex: false, into: &d)
            XCTAssertEqual(c, d, "\(status)")
            XCTAssertEqual(viaField.dynamicTableCount, viaStatus.dynamicTableCount, "\(status)")
        }
        var e = HPACKEncoder()
        var out: [UInt8] = []
        XCTAssertFalse(e.encodeStaticStatus(-1, into: &out))
        XCTAssertFalse(e.encodeStaticStatus(600, into: &out))
        XCTAssertEqual(out, [])
    }

    func testCommonHeadersAreIndexedThenReused() throws {
        var e = HPACKEncoder()
        var block: [UInt8] = []
        e.encode([("content-type", "application/json")], into: &block)
        XCTAssertEqual(block[0], 0x40 | 31)  // incremental, static name 31
        block = []
        e.encode([("content-type", "application/json")], into: &block)
        XCTAssertEqual(block, [0xbe])
    }

    func testAuthorizationIsNeverIndexed() throws {
        var e = HPACKEncoder(useHuffman: false)
        e.indexingPolicy = .always
        var block: [UInt8] = []
        e.encode([("authorization", "bearer abc")], into: &block)
        XCTAssertEqual(Array(block.prefix(2)), [0x1f, 0x08])  // never indexed, name index 23
        XCTAssertEqual(e.dynamicTableSize, 0)
        var d = HPACKDecoder()
        XCTAssertEqual(try d.decode(block), [HeaderField(name: "authorization", value: "bearer abc", neverIndex: true)])
        // A second identical field is still a literal, never an index.
        block = []
        e.encode([("authorization", "bearer abc")], into: &block)
        XCTAssertEqual(block[0], 0x1f)
    }

    func testNeverIndexFlagWithNewName() throws {
        var e = HPACKEncoder(useHuffman: false)
        var block: [UInt8] = []
        e.encode([HeaderField(name: "x-secret", value: "s", neverIndex: true)], into: &block)
        XCTAssertEqual(block[0], 0x10)
        XCTAssertEqual(e.dynamicTableCount, 0)
        var d = HPACKDecoder()
        XCTAssertEqual(try d.decode(block), [HeaderField(name: "x-secret", value: "s", neverIndex: true)])
    }

    func testPairAndFieldOverloadsAgree() {
        let pairs = [(":method", "POST"), (":path", "/3/device/abc"), ("apns-topic", "com.example.app")]
        var a = HPACKEncoder()
        var b = HPACKEncoder()
        var x: [UInt8] = []
        var y: [UInt8] = []
        a.encode(pairs, into: &x)
        b.encode(fields(pairs), into: &y)
        XCTAssertEqual(x, y)
    }

    func testSetMaxTableSizeEmitsUpdateAtNextBlockStart() throws {
        var e = HPACKEncoder()
        var d = HPACKDecoder()
        var block: [UInt8] = []
        e.encode([("x-a", "1")], into: &block)
        _ = try d.decode(block)
        e.setMaxTableSize(100)
        block = []
        e.encode([(":method", "GET")], into: &block)
        XCTAssertEqual(block, [0x3f, 0x45, 0x82])  // size update 100 (31 + 69), then index 2
        XCTAssertEqual(try d.decode(block), fields([(":method", "GET")]))
        XCTAssertEqual(d.dynamicTableCapacity, 100)
        XCTAssertEqual(e.dynamicTableCapacity, 100)
        // Next block has no update.
        block = []
        e.encode([(":method", "GET")], into: &block)
        XCTAssertEqual(block, [0x82])
    }

    func testShrinkThenGrowSignalsMinimumThenFinal() throws {
        var e = HPACKEncoder()
        var block: [UInt8] = []
        e.encode([("x-a", "1")], into: &block)
        XCTAssertEqual(e.dynamicTableCount, 1)
        e.setMaxTableSize(0)
        e.setMaxTableSize(4096)
        block = []
        e.encode([(":method", "GET")], into: &block)
        // §4.2: the smallest size (0) then the final size (4096 = 31 + 4065).
        XCTAssertEqual(block, [0x20, 0x3f, 0xe1, 0x1f, 0x82])
        XCTAssertEqual(e.dynamicTableCount, 0)
        var d = HPACKDecoder()
        XCTAssertEqual(try d.decode(block), fields([(":method", "GET")]))
    }

    func testTableSizeIsCappedByCeiling() {
        var e = HPACKEncoder()
        e.setMaxTableSize(1 << 30)
        var block: [UInt8] = []
        e.encode([(":method", "GET")], into: &block)
        XCTAssertEqual(e.dynamicTableCapacity, HPACKEncoder.tableSizeCeiling)
    }

    func testHugeFieldIsNotIndexed() throws {
        var e = HPACKEncoder(maxTableSize: 256)
        var block: [UInt8] = []
        e.encode([("x-big", String(repeating: "z", count: 200))], into: &block)
        XCTAssertEqual(block[0], 0x00)  // literal without indexing, new name
        XCTAssertEqual(e.dynamicTableCount, 0)
        var d = HPACKDecoder(maxTableSize: 256)
        XCTAssertEqual(try d.decode(block)[0].value.count, 200)
    }

    func testNeverPolicyAddsNothing() throws {
        var e = HPACKEncoder()
        e.indexingPolicy = .never
        var block: [UInt8] = []
        e.encode([("x-a", "1"), ("content-type", "text/plain")], into: &block)
        XCTAssertEqual(e.dynamicTableCount, 0)
        var d = HPACKDecoder()
        XCTAssertEqual(try d.decode(block), fields([("x-a", "1"), ("content-type", "text/plain")]))
        XCTAssertEqual(d.dynamicTableCount, 0)
    }

    func testHuffmanOnlyWhenShorter() {
        var e = HPACKEncoder(useHuffman: true)
        var block: [UInt8] = []
        // "\u{1}" takes 13 bits Huffman-coded (2 bytes) vs 1 raw byte: sent raw.
        e.encode([(":path", "\u{1}")], into: &block)
        XCTAssertEqual(block, [0x04, 0x01, 0x01])
    }

    func testRandomRoundTripsKeepTablesInSync() throws {
        var rng = SeededRandomNumberGenerator(seed: 2024)
        let names = [":status", ":path", "content-type", "apns-id", "apns-topic", "x-custom", "authorization",
                     "date", "cache-control", "x-\u{e9}t\u{e9}"]
        for round in 0..<30 {
            let size = [0, 64, 256, 4096][round % 4]
            var e = HPACKEncoder(maxTableSize: size, useHuffman: round % 3 != 0)
            e.indexingPolicy = [.automatic, .always, .never][round % 3]
            var d = HPACKDecoder(maxTableSize: 4096)
            if size != 4096 {
                // Both sides start from 4096 in HTTP/2; the encoder announces its size.
                e = HPACKEncoder(maxTableSize: 4096, useHuffman: round % 3 != 0)
                e.indexingPolicy = [.automatic, .always, .never][round % 3]
                e.setMaxTableSize(size)
            }
            for step in 0..<200 {
                if step % 50 == 49 {
                    let newSize = Int.random(in: 0...4096, using: &rng)
                    e.setMaxTableSize(newSize)
                }
                var list: [HeaderField] = []
                for _ in 0..<Int.random(in: 0...8, using: &rng) {
                    let name = names.randomElement(using: &rng)!
                    let valueLen = Int.random(in: 0...(step % 7 == 0 ? 300 : 20), using: &rng)
                    let value = String((0..<valueLen).map { _ in Character(Unicode.Scalar(UInt8.random(in: 0x20...0x7e, using: &rng))) })
                    list.append(HeaderField(name: name, value: value, neverIndex: Int.random(in: 0..<10, using: &rng) == 0))
                }
                var block: [UInt8] = []
                e.encode(list, into: &block)
                let got = try d.decode(block)
                XCTAssertEqual(got.map(\.name), list.map(\.name))
                XCTAssertEqual(got.map(\.value), list.map(\.value))
                for (g, l) in zip(got, list) where l.neverIndex { XCTAssertTrue(g.neverIndex) }
                XCTAssertEqual(d.dynamicTableSize, e.dynamicTableSize, "round \(round) step \(step)")
                XCTAssertEqual(d.dynamicTableCount, e.dynamicTableCount)
                XCTAssertLessThanOrEqual(e.dynamicTableSize, e.dynamicTableCapacity)
            }
        }
    }
}
