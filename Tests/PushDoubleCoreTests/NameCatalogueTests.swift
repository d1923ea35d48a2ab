import Foundation
import XCTest
import PushDoubleCore
import PushDoubleTransport
import PushDoubleFCM
@testable import PushDouble

/// Every name the admin API takes is checked against the providers' catalogues (a typo is a
/// 400 listing the valid values, not a rule or a device that silently matches nothing), and a
/// rule naming no endpoint hits only its provider's send endpoints.
final class NameCatalogueTests: XCTestCase {
    /// A double with every registered module's catalogue, as the in-process server makes it.
    private func double() -> DoubleState {
        let d = DoubleState()
        for m in FakeRegistry.modules { d.register(ProviderCatalogue(module: m)) }
        return d
    }

    private func call(_ api: AdminAPI, _ method: String, _ path: String, _ body: String = "") -> (Int, [String: Any]) {
        let action = Harness().send(api, path, method: method, headers: [], body: body)
        let json = (try? JSONSerialization.jsonObject(with: Data((action.bodyText ?? "").utf8))) as? [String: Any] ?? [:]
        return (action.status ?? 0, json)
    }

    // MARK: scope of a rule

    func testAProviderRuleHitsOnlyTheProvidersSendEndpoints() throws {
        for module in FakeRegistry.modules {
            let d = double()
            try d.faults.add(FaultRule(id: "p", match: FaultMatch(provider: module.provider), action: .drop))
            XCTAssertTrue(module.endpoints.contains { $0.isSend }, "\(module.provider) declares a send endpoint")
            for e in module.endpoints {
                let hit = d.faults.evaluate(FaultRequest(provider: module.provider, endpoint: e.id))
                XCTAssertEqual(hit != nil, e.isSend, "\(module.provider) \(e.id) (\(e.kind))")
            }
        }
    }

    func testANamedEndpointIsHitAndOnlyIt() throws {
        let d = double()
        try d.faults.add(FaultRule(id: "t", match: FaultMatch(provider: "fcm", endpoint: "oauth.token"), action: .drop, times: 2))
        XCTAssertNil(d.faults.evaluate(FaultRequest(provider: "fcm", endpoint: "fcm.send")))
        XCTAssertNotNil(d.faults.evaluate(FaultRequest(provider: "fcm", endpoint: "oauth.token")))
        // Without a provider either: a rule with neither hits every provider's sends only.
        try d.faults.add(FaultRule(id: "all", action: .drop))
        XCTAssertNotNil(d.faults.evaluate(FaultRequest(provider: "expo", endpoint: "expo.send")))
        XCTAssertNil(d.faults.evaluate(FaultRequest(provider: "expo", endpoint: "expo.getReceipts")))
    }

    func testAnEngineWithoutCataloguesStillMatchesEveryEndpoint() throws {
        let d = DoubleState()
        try d.faults.add(FaultRule(id: "p", match: FaultMatch(provider: "fcm"), action: .drop))
        XCTAssertNotNil(d.faults.evaluate(FaultRequest(provider: "fcm", endpoint: "oauth.token")))
    }

    // MARK: typos refused

    func testUnknownProviderIsRefusedWithTheValidValues() {
        let api = AdminAPI(double: double())
        let valid = FakeRegistry.modules.map(\.provider.rawValue).sorted()
        for (method, path, body, field) in [
            ("POST", "/devices", #"{"id":"d","provider":"android","token":"t"}"#, "provider"),
            ("PUT", "/devices/d", #"{"provider":"android","token":"t"}"#, "provider"),
            ("POST", "/faults", #"{"id":"f","match":{"provider":"android"},"action":{"type":"drop"}}"#, "match.provider"),
            ("GET", "/history?provider=FCM", "", "provider"),
            ("GET", "/devices?provider=FCM", "", "provider"),
            ("DELETE", "/faults?provider=android", "", "provider"),
            ("POST", "/reset?provider=android", "", "provider"),
            ("PUT", "/providers/android", #"{"world":"closed"}"#, "id"),
        ] {
            let (status, json) = call(api, method, path, body)
            XCTAssertEqual(status, 400, "\(method) \(path): \(json)")
            XCTAssertEqual(json["field"] as? String, field, "\(method) \(path)")
            XCTAssertEqual(json["valid"] as? [String], valid, "\(method) \(path)")
            XCTAssertTrue((json["error"] as? String ?? "").contains("expected one of apns, expo, fcm, webpush"), "\(json)")
        }
    }

    func testUnknownEndpointIsRefusedWithTheProvidersEndpoints() {
        let api = AdminAPI(double: double())
        var (status, json) = call(api, "POST", "/faults", #"{"id":"f","match":{"provider":"fcm","endpoint":"messages:send"},"action":{"type":"drop"}}"#)
        XCTAssertEqual(status, 400)
        XCTAssertEqual(json["field"] as? String, "match.endpoint")
        let fcmEndpoints = FCMModule().endpoints.map(\.id).sorted()
        XCTAssertTrue(fcmEndpoints.contains("fcm.send") && fcmEndpoints.contains("oauth.token"), "\(fcmEndpoints)")
        XCTAssertEqual(json["valid"] as? [String], fcmEndpoints)
        (status, json) = call(api, "GET", "/history?provider=fcm&endpoint=messages:send")
        XCTAssertEqual(status, 400)
        XCTAssertEqual(json["valid"] as? [String], (fcmEndpoints + ["transport.limit", "transport.refused"]).sorted())
        // The core's own endpoints are valid history filters: the page is streamed.
        guard case .stream = Harness().send(api, "/history?endpoint=transport.refused", method: "GET", headers: []) else {
            return XCTFail("a history query for transport.refused is answered")
        }
    }

    func testUnknownReasonIsRefusedUnlessMarkedCustom() {
        let api = AdminAPI(double: double())
        var (status, json) = call(api, "POST", "/faults", #"{"id":"f","match":{"provider":"fcm"},"action":{"type":"respond","reason":"Unavailable"}}"#)
        XCTAssertEqual(status, 400)
        XCTAssertEqual(json["field"] as? String, "action.reason")
        let valid = json["valid"] as? [String] ?? []
        XCTAssertTrue(valid.contains("UNAVAILABLE") && valid.contains("UNREGISTERED"), "\(valid)")
        XCTAssertFalse(valid.contains("invalid_grant"), "token reasons are not send reasons")
        // The token endpoint has its own catalogue.
        (status, json) = call(api, "POST", "/faults", #"{"id":"f","match":{"provider":"fcm","endpoint":"oauth.token"},"action":{"type":"respond","reason":"UNAVAILABLE"}}"#)
        XCTAssertEqual(status, 400)
        XCTAssertEqual(json["valid"] as? [String], FCMCatalogueFacts.tokenReasons)
        // Nested responses and quotas are checked too; a reason valid for one provider is not for another.
        XCTAssertEqual(call(api, "POST", "/faults", #"{"id":"f","match":{"provider":"apns"},"action":{"type":"delay","seconds":0,"then":{"type":"respond","reason":"UNREGISTERED"}}}"#).1["field"] as? String,
                       "action.then.reason")
        XCTAssertEqual(call(api, "POST", "/faults", #"{"id":"f","match":{"provider":"apns"},"action":{"type":"quota","fixedWindow":{"limit":1,"seconds":1},"reason":"QUOTA_EXCEEDED"}}"#).0, 400)
        XCTAssertEqual(call(api, "POST", "/faults", #"{"id":"f","action":{"type":"respond","reason":"Unregistered"}}"#).0, 400,
                       "a rule for every provider names a reason every provider sends")
        // Known reasons pass; an unknown one passes when marked custom.
        XCTAssertEqual(call(api, "POST", "/faults", #"{"id":"ok","match":{"provider":"apns"},"action":{"type":"respond","reason":"Unregistered"}}"#).0, 201)
        (status, json) = call(api, "POST", "/faults", #"{"id":"c","match":{"provider":"fcm"},"action":{"type":"respond","reason":"Unavailable","custom":true}}"#)
        XCTAssertEqual(status, 201, "\(json)")
        XCTAssertEqual((json["rule"] as? [String: Any]).flatMap { ($0["action"] as? [String: Any])?["custom"] as? Bool }, true)
    }

    func testUnknownDeviceStateAndWorldListTheValidValues() {
        let api = AdminAPI(double: double())
        var (status, json) = call(api, "POST", "/devices", #"{"id":"d","provider":"apns","token":"ab","state":"dead"}"#)
        XCTAssertEqual(status, 400)
        XCTAssertEqual(json["error"] as? String,
                       #"state: unknown value "dead"; expected one of active, unregistered, expired, invalid, otherApp, rateLimited"#)
        (status, json) = call(api, "PUT", "/providers/apns", #"{"world":"shut"}"#)
        XCTAssertEqual(status, 400)
        XCTAssertEqual(json["error"] as? String, #"world: unknown value "shut"; expected one of open, closed"#)
    }

    func testAScenarioWithAnUnknownNameIsRefusedAndLoadsNothing() {
        let d = double()
        let api = AdminAPI(double: d)
        let (status, json) = call(api, "POST", "/scenarios",
                                  #"{"id":"s","devices":[{"id":"d1","provider":"apns","token":"ab"}],"faults":[{"id":"f","match":{"provider":"fcm","endpoint":"fcm.sendd"},"action":{"type":"drop"}}]}"#)
        XCTAssertEqual(status, 400)
        XCTAssertEqual(json["field"] as? String, #"rule "f" match.endpoint"#)
        XCTAssertEqual(d.devices.list().count, 0)
        XCTAssertEqual(d.faults.list().count, 0)
    }

    func testCatalogueAndNeverFiredRules() throws {
        let d = double()
        let api = AdminAPI(double: d)
        let (status, json) = call(api, "GET", "/catalogue")
        XCTAssertEqual(status, 200)
        let providers = try XCTUnwrap(json["providers"] as? [[String: Any]])
        XCTAssertEqual(providers.compactMap { $0["provider"] as? String }, ["apns", "expo", "fcm", "webpush"])
        let fcm = try XCTUnwrap(providers.first { $0["provider"] as? String == "fcm" })
        let endpoints = try XCTUnwrap(fcm["endpoints"] as? [[String: Any]])
        XCTAssertEqual(endpoints.map { "\($0["id"]!):\($0["kind"]!)" }, FCMModule().endpoints.map { "\($0.id):\($0.kind.rawValue)" })
        XCTAssertEqual(endpoints.prefix(2).map { "\($0["id"]!):\($0["kind"]!)" }, ["fcm.send:send", "oauth.token:token"])
        XCTAssertEqual(json["deviceStates"] as? [String], DeviceStateKind.allCases.map(\.rawValue))

        try d.faults.add(FaultRule(id: "hit", match: FaultMatch(provider: "apns"), action: .drop))
        try d.faults.add(FaultRule(id: "missed", match: FaultMatch(provider: "fcm", endpoint: "oauth.token"), action: .drop))
        _ = d.faults.evaluate(FaultRequest(provider: "apns", endpoint: "apns.push"))
        let unfired = Harness().send(api, "/faults?neverFired=true", method: "GET", headers: [])
        let list = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data((unfired.bodyText ?? "").utf8)) as? [[String: Any]])
        XCTAssertEqual(list.compactMap { ($0["rule"] as? [String: Any])?["id"] as? String }, ["missed"])
        XCTAssertEqual(list.first?["neverFired"] as? Bool, true)
        XCTAssertEqual(call(api, "GET", "/faults?fired=0").0, 400)
    }
}

/// The FCM token endpoint's reasons as the module declares them (read, not restated).
private enum FCMCatalogueFacts {
    static var tokenReasons: [String] {
        (FakeRegistry.module("fcm")?.endpoints.first { $0.id == "oauth.token" }?.reasons ?? []).sorted()
    }
}
