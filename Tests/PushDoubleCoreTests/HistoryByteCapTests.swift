import Foundation
import XCTest
@testable import PushDoubleCore
import PushDoubleTransport

/// The history's byte cap (``HistoryStore/maxBytes``): the oldest exchanges are dropped and
/// counted as the count cap drops them, whatever the size of each request.
extension HistoryPackingTests {
    func bigRecord(_ i: Int, bodyBytes: Int) -> ExchangeRecord {
        record(token: nil, body: [UInt8](repeating: UInt8(ascii: "a") + UInt8(i % 26), count: bodyBytes))
    }

    func testByteCapDropsTheOldestAndCountsThem() {
        let cap = 1 << 20
        let h = HistoryStore(cap: 50_000, maxBytes: cap)
        for i in 0..<200 { h.append(bigRecord(i, bodyBytes: 64 * 1024)) }
        XCTAssertLessThanOrEqual(h.bytes, cap, "accounted bytes stay under the cap")
        XCTAssertGreaterThan(h.bytes, cap - 2 * 66 * 1024, "and it is filled up to it (one record more would not fit)")
        XCTAssertEqual(h.count, 15, "1 MiB holds 15 records of 64 KiB and their overhead")
        XCTAssertEqual(h.dropped, UInt64(200 - h.count), "every exchange dropped by the byte cap is counted")
        XCTAssertEqual(h.all.map(\.seq), Array(UInt64(200 - h.count + 1)...200), "the oldest are the ones dropped")
        XCTAssertEqual(h.nextSeq, 201)
        // Each record is charged at least its body.
        XCTAssertGreaterThanOrEqual(h.bytes, h.count * 64 * 1024)
    }

    func testByteCapAndCountCapTogether() {
        let h = HistoryStore(cap: 10, maxBytes: 1 << 20)
        for i in 0..<30 { h.append(bigRecord(i, bodyBytes: 100)) }
        XCTAssertEqual(h.count, 10, "small records: the count cap decides")
        XCTAssertEqual(h.dropped, 20)
        for i in 0..<30 { h.append(bigRecord(i, bodyBytes: 300 * 1024)) }
        XCTAssertEqual(h.count, 3, "large records: the byte cap decides")
        XCTAssertEqual(h.dropped, 57)
        XCTAssertLessThanOrEqual(h.bytes, 1 << 20)
        h.clear(provider: "apns")
        XCTAssertEqual(h.bytes, 0, "clearing forgets the charges")
        XCTAssertEqual(h.count, 0)
        h.append(bigRecord(0, bodyBytes: 10))
        XCTAssertEqual(h.all.count, 1)
        h.clear()
        XCTAssertEqual(h.bytes, 0)
    }

    func testTheNewestExchangeIsKeptEvenAboveTheByteCap() {
        let h = HistoryStore(cap: 100, maxBytes: 4096)
        h.append(bigRecord(0, bodyBytes: 100))
        h.append(bigRecord(1, bodyBytes: 10_000))
        XCTAssertEqual(h.count, 1, "the older exchange made room; the newest stays readable")
        XCTAssertEqual(h.all.first?.seq, 2)
        XCTAssertEqual(h.dropped, 1)
        h.append(bigRecord(2, bodyBytes: 100))
        XCTAssertEqual(h.all.map(\.seq), [3])
        XCTAssertLessThanOrEqual(h.bytes, 4096)
    }

    func testTheRingStaysInOrderWhileItGrowsAndShrinks() {
        // Mixed sizes: the byte cap shrinks the ring, the count cap wraps it, the ring grows.
        let h = HistoryStore(cap: 3000, maxBytes: 2 << 20)
        var sizes: [Int] = []
        for i in 0..<6000 {
            let size = i % 500 == 0 ? 600 * 1024 : 50
            sizes.append(size)
            h.append(bigRecord(i, bodyBytes: size))
            if i % 997 == 0 {
                let seqs = h.items(after: nil, count: .max).map(\.seq)
                XCTAssertEqual(seqs, Array(seqs.first!...seqs.last!), "contiguous, oldest first")
                XCTAssertEqual(seqs.last, UInt64(i + 1))
                XCTAssertEqual(UInt64(seqs.count) + h.dropped, UInt64(i + 1), "stored + dropped = appended")
            }
        }
        XCTAssertLessThanOrEqual(h.bytes, 2 << 20)
        XCTAssertEqual(h.query(HistoryQuery(afterSeq: 5990)).map(\.seq), Array(5991...6000))
    }

    func testAnExchangeAppendedWholeIsChargedToo() {
        let h = HistoryStore(cap: 100, maxBytes: 64 * 1024)
        var e = makeExchange()
        e.request.body = String(repeating: "x", count: 20_000)
        for _ in 0..<10 { h.append(e) }
        XCTAssertEqual(h.count, 3)
        XCTAssertEqual(h.dropped, 7)
        XCTAssertLessThanOrEqual(h.bytes, 64 * 1024)
    }

    func testAWeakOutcomeDoesNotKeepADroppedExchange() {
        let h = HistoryStore(cap: 1)
        var r = bigRecord(0, bodyBytes: 10)
        r.annotatable = true
        let weak = h.appendTracked(r).1.weak
        weak.annotate("note", .string("kept"))
        XCTAssertEqual(h.all.first?.annotations, .object([("note", .string("kept"))]))
        h.append(bigRecord(1, bodyBytes: 10))
        XCTAssertNil(weak.box, "the dropped exchange is freed although a weak handle remains")
        weak.annotate("note", .string("late"))   // nothing to annotate, no crash
    }
}
