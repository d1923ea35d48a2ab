import Foundation
import XCTest
@testable import PushDoubleConformance
import PushDoubleCore
import PushDoubleFCM
import PushDoubleTransport

/// The topic subscription checks over Instance ID batches the real FCM fake answered: a good
/// manager holds each, each bad habit violates its own check; the `subscribe` step and the
/// feature that makes it apply.
final class FCMSubscriptionChecksTests: XCTestCase {
    typealias Run = FCMConformanceTests.Run

    @discardableResult
    func batch(_ run: Run, _ topic: String, _ tokens: [String], bearer: String) -> HTTPResponse {
        let list = tokens.map { "\"\($0)\"" }.joined(separator: ",")
        return run.respond("/iid/v1:batchAdd", listener: "fcm", headers: [("authorization", "Bearer \(bearer)"), ("access_token_auth", "true")],
                           body: #"{"to":"/topics/\#(topic)","registration_tokens":[\#(list)]}"#)
    }

    func verdicts(_ run: Run) -> [String: Verdict] {
        Dictionary(uniqueKeysWithValues: FCMSubscriptionChecks.all.map { ($0.id, $0.run(run.context()).verdict) })
    }

    func testAGoodManagerHoldsEveryCheck() throws {
        let run = try Run()
        let bearer = try XCTUnwrap(run.mint())
        XCTAssertEqual(verdicts(run).values.filter { $0 != .notApplicable }.count, 0, "no batch: n/a")
        try run.double.faults.add(FaultRule(id: "u", match: FaultMatch(endpoint: FCMFake.iidBatchAddEndpoint),
                                            action: .respond(ResponseSpec(reason: "UNAVAILABLE")), times: 1))
        run.step(["d1", "d2"]) {
            XCTAssertEqual(batch(run, "news", ["fcm-conf-token-1", "pushdouble-fcm-404-conf"], bearer: bearer).status, 503)
            let r = batch(run, "news", ["fcm-conf-token-1", "pushdouble-fcm-404-conf"], bearer: bearer)
            XCTAssertEqual((try? JSONValue.parse(r.body))?["results"], [[:], ["error": "NOT_FOUND"]])
            batch(run, "sports", ["fcm-conf-token-1"], bearer: bearer)
        }
        XCTAssertEqual(verdicts(run), ["fcm.topic-not-found-removed": .pass, "fcm.topic-no-batch-resend": .pass,
                                       "fcm.topic-retried": .pass, "fcm.topic-batch-size": .pass])
    }

    func testEachBadHabitViolatesItsCheck() throws {
        let keeps = try Run()
        var bearer = try XCTUnwrap(keeps.mint())
        keeps.step(["d1", "d2"]) {
            batch(keeps, "news", ["fcm-conf-token-1", "pushdouble-fcm-404-conf"], bearer: bearer)
            batch(keeps, "sports", ["fcm-conf-token-1", "pushdouble-fcm-404-conf"], bearer: bearer)
        }
        XCTAssertEqual(FCMSubscriptionChecks.notFoundRemoved.run(keeps.context()).verdict, .fail)
        XCTAssertEqual(FCMSubscriptionChecks.noBatchResend.run(keeps.context()).verdict, .pass, "another topic")

        let resends = try Run()
        bearer = try XCTUnwrap(resends.mint())
        resends.step(["d1", "d2"]) {
            batch(resends, "news", ["fcm-conf-token-1", "pushdouble-fcm-404-conf"], bearer: bearer)
            batch(resends, "news", ["fcm-conf-token-1"], bearer: bearer)
        }
        XCTAssertEqual(FCMSubscriptionChecks.noBatchResend.run(resends.context()).verdict, .fail)
        XCTAssertEqual(FCMSubscriptionChecks.notFoundRemoved.run(resends.context()).verdict, .pass)

        let givesUp = try Run()
        bearer = try XCTUnwrap(givesUp.mint())
        try givesUp.double.faults.add(FaultRule(id: "q", match: FaultMatch(endpoint: FCMFake.iidBatchAddEndpoint),
                                                action: .respond(ResponseSpec(reason: "QUOTA_EXCEEDED")), times: 1))
        givesUp.step(["d1"]) { XCTAssertEqual(batch(givesUp, "news", ["fcm-conf-token-1"], bearer: bearer).status, 429) }
        XCTAssertEqual(FCMSubscriptionChecks.retried.run(givesUp.context()).verdict, .fail)

        let big = try Run()
        bearer = try XCTUnwrap(big.mint())
        big.step(["d1"]) {
            XCTAssertEqual(batch(big, "news", (0...FCMFake.iidMaxBatchTokens).map { "fcm-big-\($0):APA91b" }, bearer: bearer).status, 400)
        }
        XCTAssertEqual(FCMSubscriptionChecks.batchSize.run(big.context()).verdict, .fail)
    }

    /// A `subscribe` step is read from a scenario, and a sender that did not declare the
    /// feature is missing it (the case is n/a for it).
    func testTheSubscribeStepNeedsTheFeature() throws {
        let json = #"{"id":"x","devices":[{"id":"d1","provider":"fcm","token":"t1"}],"steps":[{"type":"subscribe","topic":"news","devices":["d1"]}]}"#
        let s = try ConformanceScenario.decode(Data(json.utf8), file: "x.json")
        XCTAssertEqual(s.steps, [.subscribe(topic: "news", devices: ["d1"])])
        XCTAssertThrowsError(try ConformanceScenario.decode(Data(json.replacingOccurrences(of: #""topic":"news","#, with: "").utf8), file: "x.json"))
        let config = SenderConfiguration(caFile: "", providers: [], environment: [])
        let registrations = try Registrations(s)
        XCTAssertEqual(ConformanceRunner.missingFeatures(registrations, SenderIdentity(name: "a", version: "1", providers: ["fcm"]), config, steps: s.steps),
                       [SenderFeature.subscribe])
        XCTAssertEqual(ConformanceRunner.missingFeatures(registrations, SenderIdentity(name: "a", version: "1", providers: ["fcm"], features: ["subscribe"]),
                                                         config, steps: s.steps), [])
    }
}
