import Dispatch
import XCTest
import PushDoubleJSON
@testable import PushDoubleExpo

/// ``ExpoReceiptStore`` with a manual clock: delay, hold/release, 24 h expiry (docs/expo.md §1, §4),
/// capacity, concurrency.
final class ExpoReceiptStoreTests: XCTestCase {
    func store(_ availability: ExpoReceiptAvailability = .afterDelay(seconds: 0), capacity: Int = 100_000) -> ExpoReceiptStore {
        let ids = SequentialIDs()
        return ExpoReceiptStore(configuration: .init(capacity: capacity, availability: availability), idGenerator: { ids() })
    }

    func testDefaultsAreImmediateAnd24Hours() {
        let c = ExpoReceiptStoreConfiguration()
        XCTAssertEqual(c.retention, 86_400)
        XCTAssertEqual(c.availability, .afterDelay(seconds: 0))
        let s = ExpoReceiptStore()
        let t = s.issue(.ok, now: 100)
        let id = try? XCTUnwrap(t.id)
        // The default id looks like the §3.1 capture: 8-4-4-4-12 uppercase hex.
        XCTAssertEqual(id.map { ExpoPushTokenForm.isUUIDLike($0) }, true)
        XCTAssertEqual(id, id?.uppercased())
        XCTAssertEqual(s.state(of: id!, now: 100), .available(.ok))
        // Version 4, variant 10xx (RFC 9562 §5.4), and distinct.
        let ids = (0..<1000).map { _ in s.issue(.ok, now: 100).id! }
        XCTAssertEqual(Set(ids).count, 1000)
        for x in ids.prefix(50) {
            XCTAssertTrue(ExpoPushTokenForm.isUUIDLike(x), x)
            XCTAssertEqual(Array(x)[14], "4", x)
            XCTAssertTrue("89AB".contains(Array(x)[19]), x)
            XCTAssertNotNil(UUID(uuidString: x), x)
        }
    }

    func testAvailabilityAfterADelay() {
        let s = store(.afterDelay(seconds: 900))
        let id = s.issue(.messageRateExceeded, now: 1_000).id!
        XCTAssertEqual(id, "T1")
        XCTAssertEqual(s.state(of: id, now: 1_000), .pending(availableAt: 1_900))
        XCTAssertTrue(s.receipts(for: [id], now: 1_899.999).isEmpty)
        XCTAssertEqual(s.receipts(for: [id], now: 1_900).map(\.receipt), [ExpoReceiptOutcome.messageRateExceeded.receipt])
        XCTAssertEqual(s.state(of: id, now: 1_900), .available(ExpoReceiptOutcome.messageRateExceeded.receipt))
    }

    func testEarlyReleaseOfADelayedReceipt() {
        let s = store(.afterDelay(seconds: 900))
        let id = s.issue(.ok, now: 0).id!
        XCTAssertTrue(s.release(id, now: 10))
        XCTAssertEqual(s.receipts(for: [id], now: 10).count, 1)
    }

    func testHeldUntilReleased() {
        let s = store(.heldUntilReleased)
        let a = s.issue(.ok, now: 0).id!, b = s.issue(.invalidCredentials, now: 0).id!, c = s.issue(.mismatchSenderId, now: 0).id!
        XCTAssertEqual(s.state(of: a, now: 80_000), .held)
        XCTAssertTrue(s.receipts(for: [a, b, c], now: 80_000).isEmpty)
        XCTAssertTrue(s.release(b, now: 80_000))
        XCTAssertFalse(s.release("nope", now: 80_000))
        XCTAssertEqual(s.receipts(for: [a, b, c], now: 80_000).map(\.id), [b])
        XCTAssertEqual(s.releaseAll(now: 80_001), 2)
        XCTAssertEqual(s.releaseAll(now: 80_001), 0)
        XCTAssertEqual(s.receipts(for: [c, a, b], now: 80_001).map(\.id), [c, a, b])
        // Held time still counts toward the 24 h.
        XCTAssertTrue(s.receipts(for: [a, b, c], now: 86_400).isEmpty)
        let late = s.issue(.ok, now: 0).id!
        XCTAssertFalse(s.release(late, now: 86_400))
    }

    func testExpiryAfter24HoursOfTheCallersClock() {
        let s = store()
        let id = s.issue(.deviceNotRegistered(token: tok("q")), now: 5_000).id!
        XCTAssertEqual(s.receipts(for: [id], now: 5_000 + 86_399.5).count, 1)
        XCTAssertTrue(s.receipts(for: [id], now: 5_000 + 86_400).isEmpty)
        XCTAssertEqual(s.state(of: id, now: 5_000 + 86_400), .expired)
        XCTAssertEqual(s.count, 1)
        XCTAssertEqual(s.purgeExpired(now: 5_000 + 86_400), 1)
        XCTAssertEqual(s.state(of: id, now: 5_000 + 86_400), .unknown)
        XCTAssertEqual(s.count, 0)
    }

    func testWritesPurgeExpiredReceiptsOldestFirst() {
        let s = store()
        for t in 0..<10 { _ = s.issue(.ok, now: Double(t) * 3_600) }
        XCTAssertEqual(s.count, 10)
        _ = s.issue(.ok, now: 86_400 + 3 * 3_600)   // T1…T4 are now 24 h old or more
        XCTAssertEqual(s.count, 7)
        XCTAssertEqual(s.state(of: "T4", now: 86_400 + 3 * 3_600), .unknown)
        XCTAssertEqual(s.state(of: "T5", now: 86_400 + 3 * 3_600), .available(.ok))
        let retention = ExpoReceiptStore(configuration: .init(retention: 60))
        let id = retention.issue(.ok, now: 0).id!
        XCTAssertTrue(retention.receipts(for: [id], now: 60).isEmpty)
    }

    func testUnknownAndDuplicateIds() {
        let s = store()
        let a = s.issue(.ok, now: 0).id!
        XCTAssertEqual(s.state(of: "missing", now: 0), .unknown)
        let r = s.receipts(for: ["missing", a, a, "other", a], now: 1)
        XCTAssertEqual(r.map(\.id), [a])
    }

    func testRecordReplacesAndRestartsTheLife() {
        let s = store()
        s.record(id: "X", .ok, now: 0)
        s.record(id: "Y", .ok, now: 10)
        s.record(id: "X", .messageTooBig, now: 50_000)
        XCTAssertEqual(s.count, 2)
        XCTAssertEqual(s.receipts(for: ["X"], now: 100_000).map(\.receipt), [ExpoReceiptOutcome.messageTooBig.receipt])
        // Replacing moved X behind Y: purging from the front removes Y and keeps X.
        XCTAssertEqual(s.purgeExpired(now: 86_410), 1)
        XCTAssertEqual(s.state(of: "Y", now: 86_410), .unknown)
        XCTAssertEqual(s.state(of: "X", now: 86_410), .available(ExpoReceiptOutcome.messageTooBig.receipt))
    }

    /// A clock that goes back: purging from the front stops early, but an expired receipt is
    /// still never served.
    func testExpiredNeverServedEvenWithANonMonotonicClock() {
        let s = store()
        s.record(id: "late", .ok, now: 50_000)
        s.record(id: "early", .ok, now: 10)
        XCTAssertTrue(s.receipts(for: ["early"], now: 86_410).isEmpty)
        XCTAssertEqual(s.state(of: "early", now: 86_410), .expired)
        XCTAssertEqual(s.receipts(for: ["late"], now: 86_410).count, 1)
    }

    func testCapacityEvictsTheOldest() {
        let s = store(capacity: 3)
        let ids = (0..<5).map { s.issue(.ok, now: Double($0)).id! }
        XCTAssertEqual(s.count, 3)
        XCTAssertEqual(s.receipts(for: ids, now: 10).map(\.id), ["T3", "T4", "T5"])
        // Many more than capacity: the order list is compacted, the count stays bounded.
        for i in 0..<5_000 { _ = s.issue(.ok, now: Double(10 + i)) }
        XCTAssertEqual(s.count, 3)
        XCTAssertEqual(s.receipts(for: ["T5003", "T5004", "T5005", "T5002"], now: 6_000).map(\.id), ["T5003", "T5004", "T5005"])
    }

    func testByteCapEvictsTheOldestLikeTheCapacity() {
        let ids = SequentialIDs()
        let s = ExpoReceiptStore(configuration: .init(capacity: 100_000, maxBytes: 64 * 1024), idGenerator: { ids() })
        // Receipts with large custom details (a fault rule's `other` outcome): the bytes decide.
        let details: JSONObject = ["blob": .string(String(repeating: "x", count: 4000))]
        let issued = (0..<100).map { s.issue(.other(error: "DeveloperError", message: "m", extraDetails: details), now: Double($0)).id! }
        XCTAssertLessThanOrEqual(s.bytes, 64 * 1024)
        XCTAssertEqual(s.count, 7, "64 KiB hold 7 receipts charged ~8.4 KB each")
        XCTAssertEqual(s.receipts(for: issued, now: 200).map(\.id), issued.suffix(7), "the newest are kept")
        // Small receipts: the default byte cap never binds before the count cap.
        let c = ExpoReceiptStoreConfiguration()
        XCTAssertGreaterThan(c.maxBytes / ExpoReceiptStore.charge(id: "T12345678-1234-1234-1234-123456789012", .deviceNotRegistered(token: "ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]")), c.capacity)
        // Expiry gives the bytes back.
        XCTAssertEqual(s.purgeExpired(now: 1_000_000), 7)
        XCTAssertEqual(s.bytes, 0)
    }

    func testConcurrentIssueAndLookup() {
        let s = ExpoReceiptStore(configuration: .init(capacity: 1_000_000))
        let ids = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            var mine: [String] = []
            for i in 0..<500 {
                let id = s.issue(i % 2 == 0 ? .ok : .messageTooBig, now: 0).id!
                mine.append(id)
                XCTAssertEqual(s.receipts(for: [id], now: 0).count, 1)
                if i % 50 == 0 { _ = s.releaseAll(now: 0); _ = s.purgeExpired(now: 0) }
            }
            ids.withLock { $0 += mine }
            _ = worker
        }
        let all = ids.withLock { $0 }
        XCTAssertEqual(Set(all).count, 4_000)
        XCTAssertEqual(s.count, 4_000)
        XCTAssertEqual(s.receipts(for: Array(all.prefix(1000)), now: 1).count, 1000)
    }

    /// An owner hears of each receipt ``ExpoReceiptStore/serve(_:now:)`` serves, not of lookups.
    func testServeTellsTheOwner() {
        final class Owner: ExpoReceiptOwner {
            let served = Mutex<[String]>([])
            func receiptServed(id: String, receipt: ExpoReceipt, now: Double) { served.withLock { $0.append("\(id)@\(Int(now)):\(receipt.json.compactJSON)") } }
        }
        let s = store(.afterDelay(seconds: 10))
        let owner = Owner()
        let a = s.issue(.ok, now: 0, owner: owner).id!
        let b = s.issue(.messageTooBig, now: 0).id!
        XCTAssertEqual(s.serve([a, b], now: 5).count, 0, "not yet visible: nobody is told")
        XCTAssertEqual(s.receipts(for: [a], now: 10).count, 1)
        XCTAssertEqual(owner.served.withLock { $0 }, [], "a lookup is not a serve")
        XCTAssertEqual(s.serve([b, a, a], now: 11).map(\.id), [b, a])
        XCTAssertEqual(owner.served.withLock { $0 }, [#"T1@11:{"status":"ok"}"#])
    }
}

import Synchronization
