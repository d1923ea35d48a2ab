import Foundation
import XCTest
@testable import PushDoubleCore
import PushDoubleTransport

/// A batch fake like Expo's send: `POST /batch` with `x-to: t1,t2,…`; one outcome per
/// recipient (dead devices refused, the rest accepted), the entry annotatable.
struct BatchFake: ProviderFake {
    var provider: ProviderID { "batch" }
    let recorded = Locked<[HistoryOutcome]>([])

    func admit(_ request: HTTPRequest, context: RequestContext, services: ProviderServices) -> Admission {
        var a = Admission(endpoint: "batch.send")
        let tokens = (request.headers["x-to"] ?? "").split(separator: ",").map(String.init)
        a.recipients = tokens
        a.token = tokens.first
        return a
    }

    func deliver(_ request: HTTPRequest, admission: Admission, device: DeviceLookup, context: RequestContext, services: ProviderServices) -> ProviderResponse {
        XCTFail("a multi-recipient admission must be answered per recipient")
        return ProviderResponse(HTTPResponse(status: 500), decidedBy: Decision(.accepted))
    }

    func deliver(_ request: HTTPRequest, admission: Admission, devices: [DeviceLookup], context: RequestContext, services: ProviderServices) -> ProviderResponse {
        let tokens = admission.recipients ?? []
        var outcomes: [RecipientOutcome] = []
        for (t, d) in zip(tokens, devices) {
            if case .unregistered = d.state { outcomes.append(RecipientOutcome(token: t, accepted: false, reason: "DeviceNotRegistered")) }
            else { outcomes.append(RecipientOutcome(token: t, accepted: true, detail: ["id": .string("ticket-" + t)])) }
        }
        var r = ProviderResponse(HTTPResponse(status: 200, contentType: "application/json", body: "{}"), decidedBy: Decision(.accepted))
        r.recipients = outcomes
        let box = recorded
        r.onRecorded = { entry in box.withLock { $0.append(entry) } }
        return r
    }

    func errorResponse(reason: String, status: Int?, headers: HTTPHeaders, request: HTTPRequest, admission: Admission) -> HTTPResponse? { nil }
    func magicDevice(token: String) -> MagicDevice? { nil }
    func isWellFormedToken(_ token: String) -> Bool { !token.isEmpty }
}

final class ProviderSeamTests: XCTestCase {
    let h = Harness()

    func testMultiRecipientAdmissionGetsOneOutcomePerRecipientAndCountsEachDelivery() throws {
        let clock = ManualClock()
        let double = DoubleState(clock: clock)
        let fake = BatchFake()
        let pipeline = double.pipeline(for: fake)
        try double.devices.register(Device(id: "alive", provider: "batch", token: "t1",
                                           transitions: [DeviceTransition(.afterDeliveries(1), to: .unregistered)]))
        try double.devices.register(Device(id: "dead", provider: "batch", token: "t2", state: .unregistered(since: clock.now())))
        _ = h.send(pipeline, "/batch", headers: [("x-to", "t1,t2,t3")])

        let e = try XCTUnwrap(double.history.all.first)
        XCTAssertEqual(e.token, "t1")
        XCTAssertEqual(e.deviceID, "alive")
        let r = try XCTUnwrap(e.recipients)
        XCTAssertEqual(r.map(\.token), ["t1", "t2", "t3"])
        XCTAssertEqual(r.map(\.deviceID), ["alive", "dead", nil], "the core fills in registered device ids")
        XCTAssertEqual(r.map(\.accepted), [true, false, true])
        XCTAssertEqual(r[1].reason, "DeviceNotRegistered")
        XCTAssertEqual(r[0].detail?["id"]?.stringValue, "ticket-t1")
        // The accepted delivery to "alive" counted: its afterDeliveries(1) transition fired.
        guard case .unregistered = try XCTUnwrap(double.devices.device(id: "alive")).state else { return XCTFail("expected the transition") }
        XCTAssertEqual(double.devices.device(id: "dead")?.deliveries, 0)
        // History queries find the batch by any recipient.
        XCTAssertEqual(double.history.query(HistoryQuery(device: "dead")).count, 1)
        XCTAssertEqual(double.history.query(HistoryQuery(token: "t3")).count, 1)
        XCTAssertEqual(double.history.query(HistoryQuery(token: "t9")).count, 0)
    }

    func testFaultRuleNamingAnyRecipientMatchesTheBatch() throws {
        let double = DoubleState(clock: ManualClock())
        let pipeline = double.pipeline(for: BatchFake())
        try double.devices.register(Device(id: "third", provider: "batch", token: "t3"))
        try double.faults.add(FaultRule(id: "by-token", match: FaultMatch(token: "t2"), action: .respond(ResponseSpec(status: 503)), times: 1))
        try double.faults.add(FaultRule(id: "by-device", match: FaultMatch(device: "third"), action: .respond(ResponseSpec(status: 502)), times: 1))
        XCTAssertStatus(h.send(pipeline, "/batch", headers: [("x-to", "t1,t2")]), 503)
        XCTAssertStatus(h.send(pipeline, "/batch", headers: [("x-to", "t1,t3")]), 502)
        XCTAssertStatus(h.send(pipeline, "/batch", headers: [("x-to", "t1,t4")]), 200)
    }

    func testAnnotationsAreAddedAfterTheAnswerAndOnlyToAnnotatableEntries() throws {
        let double = DoubleState(clock: ManualClock())
        let fake = BatchFake()
        let pipeline = double.pipeline(for: fake)
        _ = h.send(pipeline, "/batch", headers: [("x-to", "t1")])
        let entry = try XCTUnwrap(fake.recorded.withLock { $0.first })
        XCTAssertNil(double.history.all[0].annotations)
        entry.annotate("receipt", ["status": "ok"])
        entry.annotate("receipt", ["status": "error"])
        entry.annotate("fetchedBy", 7)
        XCTAssertEqual(double.history.all[0].annotations, ["receipt": ["status": "error"], "fetchedBy": 7])

        // A single-recipient fake's entry is not annotatable: nothing is kept.
        let plain = double.pipeline(for: TestFake())
        _ = h.send(plain, "/push/abc", headers: [("authorization", "ok")])
        XCTAssertNil(double.history.all[1].recipients)
        XCTAssertNil(double.history.all[1].annotations)
    }

    func testDeviceAttributesAreKeptAndJudgedByTheProviderSchema() throws {
        let json = #"{"id":"w1","provider":"batch","subscription":{"endpoint":"https://push.example/x1","keys":{"p256dh":"k","auth":"a"}}}"#
        let device = try JSONDecoder().decode(Device.self, from: Data(json.utf8))
        XCTAssertEqual(device.token, "")
        XCTAssertEqual(device.attributes["subscription"]?["endpoint"]?.stringValue, "https://push.example/x1")
        // Before its schema derived a token, it round-trips without one (FuzzScenario found this).
        XCTAssertEqual(try JSONDecoder().decode(Device.self, from: JSONEncoder().encode(device)), device)

        let registry = DeviceRegistry(clock: ManualClock())
        // No schema for the provider: attributes are unknown fields, a missing token is an error.
        XCTAssertThrowsError(try registry.register(device)) { XCTAssertTrue("\($0)".contains("subscription: unknown field for a batch device"), "\($0)") }
        registry.setSchema({ d in
            try DeviceSchemaError.refuseAttributes(of: d, allowed: ["subscription"])
            guard let endpoint = d.attributes["subscription"]?["endpoint"]?.stringValue else {
                throw DeviceSchemaError(deviceID: d.id, field: "subscription.endpoint", message: "required")
            }
            d.token = String(endpoint.split(separator: "/").last ?? "")
        }, for: "batch")
        let stored = try registry.register(device)
        XCTAssertEqual(stored.token, "x1", "the schema derived the token")
        XCTAssertEqual(registry.lookup(provider: "batch", token: "x1", fake: BatchFake()).deviceID, "w1")
        // Round trip: attributes come back as top-level members.
        let again = try JSONDecoder().decode(Device.self, from: JSONEncoder().encode(stored))
        XCTAssertEqual(again, stored)
        var bad = device
        bad.id = "w2"
        bad.attributes = ["colour": "red"]
        XCTAssertThrowsError(try registry.register(bad)) { XCTAssertTrue("\($0)".contains("colour: unknown field"), "\($0)") }
    }

    func testQuiesceWaitsForShapedAnswersOutcomes() throws {
        let double = DoubleState(clock: ManualClock())
        let pipeline = double.pipeline(for: TestFake())
        XCTAssertTrue(double.quiesce(timeout: 0.1), "nothing in flight")
        try double.faults.add(FaultRule(id: "slow", action: .delay(seconds: 5, then: .continue)))
        let request = h.request("/push/abc", headers: [("authorization", "ok")])
        _ = pipeline.respond(to: request, context: RequestContext(connection: h.connection))
        XCTAssertEqual(pipeline.pendingOutcomes, 1)
        XCTAssertFalse(double.quiesce(timeout: 0.05), "the delayed answer's outcome is still to come")
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) {
            pipeline.responseCompleted(for: request.info, outcome: ResponseOutcome(kind: .completed, at: Date()))
        }
        XCTAssertTrue(double.quiesce(timeout: 2))
        XCTAssertTrue(double.history.all[0].response.detail?.contains("outcome: completed") ?? false)
    }

    func testOneClockReadingPerRequest() throws {
        let clock = CountingClock()
        let double = DoubleState(clock: clock)
        let pipeline = double.pipeline(for: TestFake())
        let before = clock.reads
        _ = h.send(pipeline, "/push/abc", headers: [("authorization", "ok")])
        XCTAssertEqual(clock.reads - before, 1)
        let e = double.history.all[0]
        XCTAssertEqual(e.receivedAt, e.respondedAt)
    }
}

/// A clock that counts how often it is read.
final class CountingClock: DoubleClock, @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    var reads: Int { lock.lock(); defer { lock.unlock() }; return n }
    func now() -> Date { lock.lock(); n += 1; lock.unlock(); return Date(timeIntervalSince1970: 1_800_000_000) }
}
