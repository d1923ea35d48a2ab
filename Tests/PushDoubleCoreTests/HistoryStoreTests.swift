import Foundation
import XCTest
@testable import PushDoubleCore
import PushDoubleTransport

final class HistoryStoreTests: XCTestCase {
    func testSequenceNumbersAndCapWithDroppedCount() {
        let h = HistoryStore(cap: 3)
        for i in 0..<5 { XCTAssertEqual(h.append(makeExchange(token: "t\(i)")), UInt64(i + 1)) }
        XCTAssertEqual(h.count, 3)
        XCTAssertEqual(h.dropped, 2)
        XCTAssertEqual(h.all.map(\.seq), [3, 4, 5])
        XCTAssertEqual(h.all.map(\.token), ["t2", "t3", "t4"])
        h.clear()
        XCTAssertEqual(h.count, 0)
        XCTAssertEqual(h.dropped, 0)
        XCTAssertEqual(h.append(makeExchange()), 6, "sequence numbers are never reused")
    }

    func testQueryFilters() {
        let h = HistoryStore()
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        h.append(makeExchange(provider: "apns", token: "a", device: "d1", at: t0))
        h.append(makeExchange(provider: "fcm", token: "b", endpoint: "fcm.send", at: t0 + 1))
        h.append(makeExchange(provider: "apns", token: "c", at: t0 + 2))
        XCTAssertEqual(h.query(HistoryQuery(provider: "apns")).map(\.seq), [1, 3])
        XCTAssertEqual(h.query(HistoryQuery(device: "d1")).map(\.seq), [1])
        XCTAssertEqual(h.query(HistoryQuery(device: "c")).map(\.seq), [3], "device matches the token too")
        XCTAssertEqual(h.query(HistoryQuery(token: "b")).map(\.seq), [2])
        XCTAssertEqual(h.query(HistoryQuery(endpoint: "fcm.send")).map(\.seq), [2])
        XCTAssertEqual(h.query(HistoryQuery(since: t0 + 1, until: t0 + 2)).map(\.seq), [2])
        XCTAssertEqual(h.query(HistoryQuery(afterSeq: 1)).map(\.seq), [2, 3])
        XCTAssertEqual(h.query(HistoryQuery(limit: 2)).map(\.seq), [1, 2])
        h.clear(provider: "apns")
        XCTAssertEqual(h.all.map(\.seq), [2])
    }

    func testSubscribersSeeEveryAppend() {
        let h = HistoryStore()
        h.append(makeExchange())
        let seen = Locked<[UInt64]>([])
        let (backlog, sub) = h.subscribe(backlog: HistoryQuery()) { e in seen.withLock { $0.append(e.seq) } }
        XCTAssertEqual(backlog.map(\.seq), [1])
        h.append(makeExchange()); h.append(makeExchange())
        h.unsubscribe(sub)
        h.append(makeExchange())
        XCTAssertEqual(seen.withLock { $0 }, [2, 3])
        XCTAssertEqual(h.subscriberCount, 0)
    }

    func testJSONHasSortedKeysAndMillisecondDates() throws {
        var e = makeExchange()
        e.seq = 9
        let text = String(decoding: ExchangeEncoding.json(e), as: UTF8.self)
        XCTAssertTrue(text.contains("\"receivedAt\":\"2027-01-15T08:00:00.123Z\""), text)
        let keys = ["\"auth\"", "\"decidedBy\"", "\"endpoint\"", "\"provider\"", "\"receivedAt\"", "\"request\"", "\"respondedAt\"", "\"response\"", "\"seq\"", "\"token\"", "\"transport\""]
        let positions = keys.compactMap { text.range(of: $0)?.lowerBound }
        XCTAssertEqual(positions.count, keys.count - 1, "nil auth is omitted")
        XCTAssertEqual(positions, positions.sorted())
        XCTAssertEqual(text, String(decoding: ExchangeEncoding.json(e), as: UTF8.self), "stable")
        let back = try ExchangeEncoding.makeDecoder().decode(Exchange.self, from: Data(text.utf8))
        XCTAssertEqual(back.receivedAt.timeIntervalSince1970, 1_800_000_000.123, accuracy: 0.0005)
        XCTAssertEqual(back.seq, 9)
    }

    func testJSONLinesOneObjectPerLine() throws {
        let lines = String(decoding: ExchangeEncoding.jsonLines([makeExchange(), makeExchange(token: "x\ny")]), as: UTF8.self)
        let parts = lines.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(parts.count, 3)
        XCTAssertEqual(parts[2], "")
        for p in parts.dropLast() { XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(p.utf8))) }
    }

    func testConcurrentAppendsKeepEverySeq() {
        let h = HistoryStore(cap: 1000)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in for _ in 0..<500 { h.append(makeExchange()) } }
        XCTAssertEqual(h.count, 1000)
        XCTAssertEqual(h.dropped, 1000)
        XCTAssertEqual(h.all.map(\.seq), Array(1001...2000))
    }
}
