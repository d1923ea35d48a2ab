import XCTest
@testable import PushDoubleHPACK

/// Static table (Appendix A), dynamic table (§4) and the joined index space (§2.3.3).
final class HeaderTableTests: XCTestCase {
    func testStaticTableMatchesAppendixA() {
        XCTAssertEqual(StaticHeaderTable.entries.count, 61)
        XCTAssertEqual(StaticHeaderTable.entries[0].name, ":authority")
        XCTAssertEqual(StaticHeaderTable.entries[1].value, "GET")
        XCTAssertEqual(StaticHeaderTable.entries[7].name, ":status")
        XCTAssertEqual(StaticHeaderTable.entries[7].value, "200")
        XCTAssertEqual(StaticHeaderTable.entries[15].value, "gzip, deflate")
        XCTAssertEqual(StaticHeaderTable.entries[22].name, "authorization")
        XCTAssertEqual(StaticHeaderTable.entries[54].name, "set-cookie")
        XCTAssertEqual(StaticHeaderTable.entries[60].name, "www-authenticate")
        XCTAssertEqual(StaticHeaderTable.byName[":status"]?.values.first { $0.value == "404" }?.index, 13)
        XCTAssertEqual(StaticHeaderTable.byName[":status"]?.firstIndex, 8)
        XCTAssertEqual(StaticHeaderTable.byName["content-type"]?.firstIndex, 31)
        XCTAssertNil(StaticHeaderTable.byName["apns-id"])
    }

    func testSizeAccountingAndEvictionOrder() {
        var t = DynamicHeaderTable(capacity: 100)
        t.add(name: "a", value: "1")  // 34
        t.add(name: "b", value: "22")  // 35
        XCTAssertEqual(t.size, 69)
        XCTAssertEqual(t.count, 2)
        XCTAssertEqual(t[0], NameValue(name: "b", value: "22"))
        XCTAssertEqual(t[1], NameValue(name: "a", value: "1"))
        t.add(name: "c", value: "333")  // 36: evicts "a" (69 + 36 > 100)
        XCTAssertEqual(t.count, 2)
        XCTAssertEqual(t.size, 71)
        XCTAssertEqual(t[0].name, "c")
        XCTAssertEqual(t[1].name, "b")
    }

    func testSizeCountsUTF8Octets() {
        var t = DynamicHeaderTable(capacity: 4096)
        t.add(name: "x", value: "é€")  // 2 + 3 UTF-8 octets
        XCTAssertEqual(t.size, 1 + 5 + 32)
    }

    func testEntryLargerThanCapacityEmptiesTable() {
        // RFC 7541 §4.4: not an error; the table ends up empty.
        var t = DynamicHeaderTable(capacity: 64)
        t.add(name: "a", value: "b")
        t.add(name: "long-name", value: String(repeating: "v", count: 40))
        XCTAssertEqual(t.count, 0)
        XCTAssertEqual(t.size, 0)
    }

    func testCapacityChangesEvict() {
        var t = DynamicHeaderTable(capacity: 4096)
        for i in 0..<10 { t.add(name: "n\(i)", value: "v") }  // 35 each
        XCTAssertEqual(t.size, 350)
        t.setCapacity(100)
        XCTAssertEqual(t.count, 2)
        XCTAssertEqual(t[0].name, "n9")
        XCTAssertEqual(t[1].name, "n8")
        t.setCapacity(0)
        XCTAssertEqual(t.count, 0)
        XCTAssertEqual(t.size, 0)
        t.add(name: "a", value: "b")
        XCTAssertEqual(t.count, 0)
    }

    func testRingGrowsAndWrapsKeepingOrder() {
        var t = DynamicHeaderTable(capacity: 35 * 40)
        for i in 0..<1000 {
            t.add(name: "k\(i % 10)", value: "\(i % 10)")  // 2 + 1 + 32 = 35 each
            XCTAssertEqual(t[0], NameValue(name: "k\(i % 10)", value: "\(i % 10)"))
        }
        XCTAssertEqual(t.count, 40)  // 40 * 35 = 1400
        for i in 0..<t.count {
            let expected = (999 - i) % 10
            XCTAssertEqual(t[i].name, "k\(expected)")
        }
    }

    func testLookupsFollowEvictions() {
        var t = DynamicHeaderTable(capacity: 3 * 34, tracksLookups: true)
        t.add(name: "a", value: "1")
        t.add(name: "b", value: "1")
        t.add(name: "a", value: "2")
        XCTAssertEqual(t.index(of: NameValue(name: "a", value: "1")), 2)
        XCTAssertEqual(t.index(of: NameValue(name: "a", value: "2")), 0)
        XCTAssertEqual(t.index(ofName: "a"), 0)
        XCTAssertEqual(t.index(ofName: "b"), 1)
        t.add(name: "c", value: "1")  // evicts a:1
        XCTAssertNil(t.index(of: NameValue(name: "a", value: "1")))
        XCTAssertEqual(t.index(ofName: "a"), 1)  // a:2 still there
        t.add(name: "d", value: "1")  // evicts b:1
        XCTAssertNil(t.index(ofName: "b"))
        t.add(name: "e", value: "1")  // evicts a:2
        XCTAssertNil(t.index(ofName: "a"))
        XCTAssertEqual(t.index(ofName: "c"), 2)
    }

    func testIndexSpaceJoinsStaticAndDynamic() throws {
        var t = IndexedHeaderTable(capacity: 4096, tracksLookups: true)
        XCTAssertEqual(try t.field(at: 2), NameValue(name: ":method", value: "GET"))
        XCTAssertEqual(try t.field(at: 61).name, "www-authenticate")
        XCTAssertThrowsError(try t.field(at: 62))
        XCTAssertThrowsError(try t.field(at: 0))
        t.dynamic.add(name: "x", value: "1")
        t.dynamic.add(name: "y", value: "2")
        XCTAssertEqual(try t.field(at: 62), NameValue(name: "y", value: "2"))
        XCTAssertEqual(try t.field(at: 63), NameValue(name: "x", value: "1"))
        XCTAssertEqual(t.find(name: ":status", value: "200"), .full(8))
        XCTAssertEqual(t.find(name: ":status", value: "201"), .name(8))
        XCTAssertEqual(t.find(name: "x", value: "1"), .full(63))
        XCTAssertEqual(t.find(name: "x", value: "9"), .name(63))
        XCTAssertEqual(t.find(name: "zz", value: "9"), .none)
        do {
            _ = try t.field(at: 64)
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error, .invalidIndex(index: 64, tableEntries: 63))
        }
    }
}
