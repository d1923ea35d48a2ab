import Foundation
import XCTest
import PushDoubleCore
import PushDoubleTransport
@testable import PushDoubleFCM

/// A rule for "the next FCM requests" hits the send, not Google's token endpoint: a sender whose
/// token mint was quietly retried by its auth library must not pass a test of its own retry.
final class FCMFaultScopeTests: XCTestCase {
    private func harness() throws -> FCMHarness {
        let h = try FCMHarness()
        h.double.register(ProviderCatalogue(module: FCMModule()))
        return h
    }

    func testAProviderRuleLeavesTheTokenMintAlone() throws {
        let h = try harness()
        try h.double.faults.add(FaultRule(id: "f", match: FaultMatch(provider: .fcm),
                                          action: .respond(ResponseSpec(reason: "UNAVAILABLE")), times: 2))
        let bearer = try h.mint()
        XCTAssertEqual(h.answer(h.send(FCMFakeTests.okMessage, bearer: bearer)).status, 503)
        XCTAssertEqual(h.answer(h.send(FCMFakeTests.okMessage, bearer: bearer)).status, 503)
        XCTAssertEqual(h.answer(h.send(FCMFakeTests.okMessage, bearer: bearer)).status, 200)
        XCTAssertEqual(h.double.faults.rule(id: "f")?.fired, 2)
        let endpoints = h.double.history.query(HistoryQuery()).map(\.endpoint)
        XCTAssertEqual(endpoints, ["oauth.token", "fcm.send", "fcm.send", "fcm.send"])
    }

    func testARuleNamingTheTokenEndpointHitsTheMint() throws {
        let h = try harness()
        try h.double.faults.add(FaultRule(id: "t", match: FaultMatch(provider: .fcm, endpoint: FCMFake.tokenEndpoint),
                                          action: .respond(ResponseSpec(reason: "invalid_grant")), times: 1))
        let refused = h.answer(h.tokenRequest(try h.assertion()))
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(try JSONValue.parse(refused.body)["error"]?.stringValue, "invalid_grant")
        _ = try h.mint()
    }

    /// A custom reason on the token endpoint: OAuth's error shape, 500 unless the rule gives a
    /// status (docs/core.md: a reason the provider does not send defaults to 500).
    func testACustomReasonOnTheTokenEndpointIs500InOAuthShape() throws {
        let h = try harness()
        try h.double.faults.add(FaultRule(id: "c", match: FaultMatch(provider: .fcm, endpoint: FCMFake.tokenEndpoint),
                                          action: .respond(ResponseSpec(reason: "backend_hiccup", custom: true)), times: 1))
        let r = h.answer(h.tokenRequest(try h.assertion()))
        XCTAssertEqual(r.status, 500)
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), #"{"error":"backend_hiccup"}"#)
        try h.double.faults.add(FaultRule(id: "s", match: FaultMatch(provider: .fcm, endpoint: FCMFake.tokenEndpoint),
                                          action: .respond(ResponseSpec(reason: "backend_hiccup", status: 503, custom: true)), times: 1))
        XCTAssertEqual(h.answer(h.tokenRequest(try h.assertion())).status, 503)
        // A reason of the send endpoint is not one of the token endpoint's: refused unless
        // custom, then 500 in OAuth's shape like any other (not 400, not the send's envelope).
        XCTAssertThrowsError(try h.double.check(rule: FaultRule(
            id: "u0", match: FaultMatch(provider: .fcm, endpoint: FCMFake.tokenEndpoint), action: .respond(ResponseSpec(reason: "UNAVAILABLE")))))
        try h.double.faults.add(FaultRule(id: "u", match: FaultMatch(provider: .fcm, endpoint: FCMFake.tokenEndpoint),
                                          action: .respond(ResponseSpec(reason: "UNAVAILABLE", custom: true)), times: 1))
        let unavailable = h.answer(h.tokenRequest(try h.assertion()))
        XCTAssertEqual(unavailable.status, 500)
        XCTAssertEqual(String(decoding: unavailable.body, as: UTF8.self), #"{"error":"UNAVAILABLE"}"#)
    }

    /// Every endpoint the FCM fakes record is in the catalogue, so a rule or a history query may
    /// name it (the topic subscription endpoints and the legacy API too); only the send is hit by
    /// a rule that names none.
    func testTheSubscriptionAndLegacyEndpointsAreNamedOnly() throws {
        let h = try harness()
        let declared = FCMModule().endpoints
        for id in [FCMFake.topicSubscriptionEndpoint, FCMFake.iidBatchAddEndpoint, FCMFake.iidBatchRemoveEndpoint,
                   FCMFake.iidRelationEndpoint, FCMFake.iidInfoEndpoint, FCMFake.iidOtherEndpoint, FCMFake.legacyEndpoint] {
            let e = try XCTUnwrap(declared.first { $0.id == id }, id)
            XCTAssertFalse(e.isSend, id)
            try h.double.faults.add(FaultRule(id: "r-" + id, match: FaultMatch(provider: .fcm, endpoint: id),
                                              action: .respond(ResponseSpec(reason: e.reasons.first ?? "UNAVAILABLE", custom: e.reasons.isEmpty))))
        }
        XCTAssertEqual(declared.filter(\.isSend).map(\.id), [FCMFake.sendEndpoint])
        XCTAssertThrowsError(try h.double.names.check(endpoint: "iid.bogus", provider: .fcm))
        XCTAssertNoThrow(try h.double.names.check(endpoint: FCMFake.iidBatchAddEndpoint, provider: .fcm))
    }
}
