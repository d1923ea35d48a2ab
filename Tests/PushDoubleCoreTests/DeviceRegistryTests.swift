import Foundation
import XCTest
@testable import PushDoubleCore

final class DeviceRegistryTests: XCTestCase {
    let fake = TestFake()

    func testOpenWorldAcceptsWellFormedUnknownTokens() {
        let r = DeviceRegistry()
        let l = r.lookup(provider: "test", token: "abc123", fake: fake)
        XCTAssertEqual(l.source, .openWorld)
        XCTAssertEqual(l.state, .active)
        let bad = r.lookup(provider: "test", token: "NOT_WELL_FORMED", fake: fake)
        XCTAssertEqual(bad.source, .unknown)
    }

    func testClosedWorldRefusesUnknownButKeepsMagicAndRegistered() throws {
        let r = DeviceRegistry()
        r.setWorld(.closed, for: "test")
        XCTAssertEqual(r.world(for: "test"), .closed)
        XCTAssertEqual(r.world(for: "other"), .open)
        XCTAssertEqual(r.lookup(provider: "test", token: "abc", fake: fake).source, .unknown)
        XCTAssertEqual(r.lookup(provider: "test", token: "magic-expired", fake: fake), DeviceLookup(deviceID: "magic-expired", state: .expired, source: .magic))
        try r.register(Device(id: "d1", provider: "test", token: "abc", topic: "com.example"))
        let l = r.lookup(provider: "test", token: "abc", fake: fake)
        XCTAssertEqual(l.source, .registered)
        XCTAssertEqual(l.deviceID, "d1")
        XCTAssertEqual(l.topic, "com.example")
        // Same token, other provider: not the same device.
        XCTAssertEqual(r.lookup(provider: "other", token: "abc", fake: fake).source, .openWorld)
    }

    func testDiesAfterSecondDelivery() throws {
        let clock = ManualClock()
        let r = DeviceRegistry(clock: clock)
        try r.register(Device(id: "d1", provider: "test", token: "abc", transitions: [DeviceTransition(.afterDeliveries(2), to: .unregistered)]))
        XCTAssertEqual(r.recordDelivery(provider: "test", token: "abc")?.state, .active)
        clock.advance(5)
        let d = r.recordDelivery(provider: "test", token: "abc")
        XCTAssertEqual(d?.deliveries, 2)
        XCTAssertEqual(d?.state, .unregistered(since: clock.now()))
        XCTAssertEqual(r.lookup(provider: "test", token: "abc", fake: fake).deliveries, 2)
    }

    func testTimeTransitionAppliesAtTPlusDelta() throws {
        let clock = ManualClock()
        let start = clock.now()
        let r = DeviceRegistry(clock: clock)
        try r.register(Device(id: "d1", provider: "test", token: "abc",
                              transitions: [DeviceTransition(.afterSeconds(30), to: .unregistered), DeviceTransition(.afterSeconds(60), to: .expired)]))
        clock.advance(29.999)
        XCTAssertEqual(r.lookup(provider: "test", token: "abc", fake: fake).state, .active)
        clock.advance(0.001)
        XCTAssertEqual(r.lookup(provider: "test", token: "abc", fake: fake).state, .unregistered(since: start + 30))
        clock.advance(100)
        XCTAssertEqual(r.device(id: "d1")?.state, .expired)
    }

    func testUnregisteredWithoutTimeIsDeadSinceRegistration() throws {
        let clock = ManualClock()
        let r = DeviceRegistry(clock: clock)
        let d = try JSONDecoder().decode(Device.self, from: Data(#"{"id":"d","provider":"test","token":"t","state":"unregistered"}"#.utf8))
        XCTAssertEqual(try r.register(d).state, .unregistered(since: clock.now()))
    }

    func testDuplicatesUpsertRemoveListReset() throws {
        let r = DeviceRegistry()
        try r.register(Device(id: "a", provider: "test", token: "t1"))
        try r.register(Device(id: "b", provider: "fcm", token: "t1"))
        XCTAssertThrowsError(try r.register(Device(id: "a", provider: "test", token: "t9"))) {
            XCTAssertEqual($0 as? DeviceRegistryError, .duplicateID("a"))
        }
        XCTAssertThrowsError(try r.register(Device(id: "c", provider: "test", token: "t1"))) {
            XCTAssertEqual($0 as? DeviceRegistryError, .duplicateToken(provider: "test", token: "t1"))
        }
        try r.upsert(Device(id: "a", provider: "test", token: "t2", state: .expired))
        XCTAssertEqual(r.lookup(provider: "test", token: "t1", fake: fake).source, .openWorld)
        XCTAssertEqual(r.lookup(provider: "test", token: "t2", fake: fake).state, .expired)
        XCTAssertEqual(r.list().map(\.id), ["b", "a"])
        XCTAssertEqual(r.list(provider: "fcm").map(\.id), ["b"])
        r.setWorld(.closed, for: "fcm")
        r.reset(provider: "fcm")
        XCTAssertEqual(r.list().map(\.id), ["a"])
        XCTAssertEqual(r.world(for: "fcm"), .open)
        XCTAssertTrue(r.remove(id: "a"))
        XCTAssertFalse(r.remove(id: "a"))
        XCTAssertTrue(r.list().isEmpty)
    }

    func testDeviceJSONRoundTrip() throws {
        let json = #"{"id":"d1","provider":"apns","token":"ab","state":"unregistered","unregisteredAt":"2026-01-02T03:04:05.678Z","environment":"sandbox","topic":"com.x","transitions":[{"afterDeliveries":2,"state":"expired"},{"afterSeconds":1.5,"state":"active"}]}"#
        let d = try JSONDecoder().decode(Device.self, from: Data(json.utf8))
        XCTAssertEqual(d.state, .unregistered(since: DateFormats.parseISO8601("2026-01-02T03:04:05.678Z")!))
        XCTAssertEqual(d.transitions, [DeviceTransition(.afterDeliveries(2), to: .expired), DeviceTransition(.afterSeconds(1.5), to: .active)])
        let back = try JSONDecoder().decode(Device.self, from: JSONEncoder().encode(d))
        XCTAssertEqual(back, d)
    }

    func testConcurrentDeliveriesAreAllCounted() throws {
        let r = DeviceRegistry()
        try r.register(Device(id: "d", provider: "test", token: "t"))
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<1000 { r.recordDelivery(provider: "test", token: "t") }
        }
        XCTAssertEqual(r.device(id: "d")?.deliveries, 8000)
    }

    func testDeliveryCounterFromLookupAppliesTransitionOnceUnderConcurrency() throws {
        let clock = ManualClock()
        let r = DeviceRegistry(clock: clock)
        try r.register(Device(id: "d", provider: "test", token: "t",
                              transitions: [DeviceTransition(.afterDeliveries(500), to: .unregistered),
                                            DeviceTransition(.afterDeliveries(6000), to: .expired)]))
        let (lookup, counter) = r.lookupForDelivery(provider: "test", token: "t", fake: fake)
        XCTAssertEqual(lookup.source, .registered)
        let c = try XCTUnwrap(counter)
        XCTAssertNil(r.lookupForDelivery(provider: "test", token: "open", fake: fake).1, "no counter for unregistered tokens")
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<1000 { c.recordDelivery(now: clock.now()) }
        }
        let d = try XCTUnwrap(r.device(id: "d"))
        XCTAssertEqual(d.deliveries, 8000)
        XCTAssertEqual(d.state, .expired, "both thresholds passed, applied in order")
        XCTAssertEqual(r.lookup(provider: "test", token: "t", fake: fake).deliveries, 8000)
    }

    func testCounterOfRemovedDeviceIsHarmless() throws {
        let r = DeviceRegistry()
        try r.register(Device(id: "d", provider: "test", token: "t"))
        let counter = try XCTUnwrap(r.lookupForDelivery(provider: "test", token: "t", fake: fake).1)
        XCTAssertTrue(r.remove(id: "d"))
        try r.register(Device(id: "d", provider: "test", token: "t"))
        counter.recordDelivery(now: Date())
        XCTAssertEqual(r.device(id: "d")?.deliveries, 0, "the new registration starts from zero")
    }
}
