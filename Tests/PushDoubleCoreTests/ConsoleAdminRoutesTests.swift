import Foundation
import XCTest
import PushDoubleCore
import PushDoubleTransport
@testable import PushDouble
import PushDoubleExpo

/// Expo's receipt values, as its device schema accepts them.
private enum ExpoReceiptValues { static let values = ExpoDeviceOutcome.receiptValues }

/// The admin routes the inbox's console is built on: editing and switching off a fault rule
/// (`PUT` / `PATCH /faults/{id}`) and the device actions each provider contributes to
/// `GET /catalogue`.
final class ConsoleAdminRoutesTests: XCTestCase {
    private func double() -> DoubleState {
        let d = DoubleState()
        for m in FakeRegistry.modules { d.register(ProviderCatalogue(module: m)) }
        return d
    }

    private func call(_ api: AdminAPI, _ method: String, _ path: String, _ body: String = "") -> (Int, Any?) {
        let action = Harness().send(api, path, method: method, headers: [], body: body)
        return (action.status ?? 0, try? JSONSerialization.jsonObject(with: Data((action.bodyText ?? "").utf8)))
    }

    private func ids(_ d: DoubleState) -> [String] { d.faults.list().map(\.rule.id) }

    // MARK: PUT /faults/{id}

    func testPutReplacesARuleInPlaceAndRestartsItsCounters() throws {
        let d = double()
        let api = AdminAPI(double: d)
        for id in ["a", "b", "c"] {
            XCTAssertEqual(call(api, "POST", "/faults", #"{"id":"\#(id)","match":{"provider":"fcm"},"action":{"type":"respond","reason":"UNAVAILABLE"},"times":1}"#).0, 201)
        }
        XCTAssertNotNil(d.faults.evaluate(FaultRequest(provider: "fcm", endpoint: "fcm.send")))
        XCTAssertEqual(d.faults.rule(id: "b")?.matched, 1)
        // No id in the body: the path's; same place, new rule, counters from zero.
        let (status, json) = call(api, "PUT", "/faults/b", #"{"match":{"provider":"fcm"},"action":{"type":"respond","reason":"INTERNAL","retryAfter":3},"times":2}"#)
        XCTAssertEqual(status, 200, "\(String(describing: json))")
        XCTAssertEqual(ids(d), ["a", "b", "c"])
        let b = try XCTUnwrap(d.faults.rule(id: "b"))
        XCTAssertEqual(b.matched, 0)
        XCTAssertEqual(b.rule.times, 2)
        XCTAssertEqual(b.rule.action, .respond(ResponseSpec(reason: "INTERNAL", retryAfter: .seconds(3))))
        XCTAssertEqual(((json as? [String: Any])?["rule"] as? [String: Any])?["id"] as? String, "b")
        // A new id is a rename, unless another rule has it.
        XCTAssertEqual(call(api, "PUT", "/faults/b", #"{"id":"b2","action":{"type":"drop"}}"#).0, 200)
        XCTAssertEqual(ids(d), ["a", "b2", "c"])
        XCTAssertEqual(call(api, "PUT", "/faults/b2", #"{"id":"c","action":{"type":"drop"}}"#).0, 409)
        // The same checks as POST: an unknown reason lists the valid ones; an unknown rule is 404.
        let (refused, error) = call(api, "PUT", "/faults/a", #"{"match":{"provider":"fcm"},"action":{"type":"respond","reason":"Unregistered"}}"#)
        XCTAssertEqual(refused, 400)
        XCTAssertEqual((error as? [String: Any])?["field"] as? String, "action.reason")
        XCTAssertEqual(call(api, "PUT", "/faults/nope", #"{"action":{"type":"drop"}}"#).0, 404)
        XCTAssertEqual(call(api, "PUT", "/faults/a", #"[1]"#).0, 400)
        XCTAssertEqual(ids(d), ["a", "b2", "c"], "a refused edit changes nothing")
    }

    // MARK: PATCH /faults/{id}

    func testASwitchedOffRuleNeitherCountsNorFiresAndKeepsItsCounters() throws {
        let d = double()
        let api = AdminAPI(double: d)
        XCTAssertEqual(call(api, "POST", "/faults", #"{"id":"busy","match":{"provider":"apns"},"action":{"type":"respond","reason":"TooManyRequests"},"times":5}"#).0, 201)
        let push = { d.faults.evaluate(FaultRequest(provider: "apns", endpoint: "apns.push")) }
        XCTAssertNotNil(push())
        var (status, json) = call(api, "PATCH", "/faults/busy", #"{"enabled":false}"#)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(((json as? [String: Any])?["rule"] as? [String: Any])?["enabled"] as? Bool, false)
        XCTAssertNil(push())
        XCTAssertNil(push())
        XCTAssertEqual(d.faults.rule(id: "busy")?.matched, 1, "a switched-off rule does not count")
        XCTAssertEqual(d.faults.rule(id: "busy")?.fired, 1)
        // Exported (and so replayed) switched off.
        let export = Harness().send(api, "/scenario/export", method: "GET", headers: []).bodyText ?? ""
        let scenario = try ScenarioLoader.decode(Data(export.utf8), file: "export")
        XCTAssertEqual(scenario.faults.first?.enabled, false, export)
        (status, json) = call(api, "PATCH", "/faults/busy", #"{"enabled":true}"#)
        XCTAssertEqual(status, 200)
        XCTAssertNil(((json as? [String: Any])?["rule"] as? [String: Any])?["enabled"], "a rule that is on is written as before")
        XCTAssertNotNil(push())
        XCTAssertEqual(d.faults.rule(id: "busy")?.fired, 2)
        XCTAssertEqual(call(api, "PATCH", "/faults/busy", #"{"enabled":"no"}"#).0, 400)
        XCTAssertEqual(call(api, "PATCH", "/faults/busy", #"{"enabled":true,"times":1}"#).0, 400)
        XCTAssertEqual(call(api, "PATCH", "/faults/none", #"{"enabled":true}"#).0, 404)
    }

    func testARuleFileMaySwitchARuleOff() throws {
        let rule = try JSONDecoder().decode(FaultRule.self, from: Data(#"{"id":"x","action":{"type":"drop"},"enabled":false}"#.utf8))
        XCTAssertFalse(rule.enabled)
        let engine = FaultEngine()
        try engine.add(rule)
        XCTAssertNil(engine.evaluate(FaultRequest(provider: "apns", endpoint: "apns.push")))
        XCTAssertTrue(try JSONDecoder().decode(FaultRule.self, from: Data(#"{"id":"x","action":{"type":"drop"}}"#.utf8)).enabled)
    }

    // MARK: GET /scenarios

    func testTheScenarioLibraryListsEachFileWithWhatItArms() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pd-library-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = #"{"id":"lib.one","title":"One dead device","devices":[{"id":"d","provider":"apns","token":"ab","state":"unregistered"}],"faults":[{"id":"r","action":{"type":"drop"}}]}"#
        try good.write(to: dir.appendingPathComponent("b.json"), atomically: true, encoding: .utf8)
        try #"{"title":"no id"}"#.write(to: dir.appendingPathComponent("a.json"), atomically: true, encoding: .utf8)
        try "{}".write(to: dir.appendingPathComponent(ScenarioLibrary.schemaFile), atomically: true, encoding: .utf8)
        try "x".write(to: dir.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        let d = double()
        let api = AdminAPI(double: d, scenarioLibrary: ScenarioLibrary(directories: [dir.path]))
        var (status, json) = call(api, "GET", "/scenarios")
        XCTAssertEqual(status, 200)
        var list = try XCTUnwrap(json as? [[String: Any]])
        XCTAssertEqual(list.map { $0["file"] as? String }, ["a.json", "b.json"], "JSON files but the schema, by name")
        XCTAssertNotNil(list[0]["error"], "a file that does not load says why")
        XCTAssertEqual(list[1]["title"] as? String, "One dead device")
        XCTAssertEqual(list[1]["rules"] as? [String], ["r"])
        XCTAssertEqual((list[1]["devices"] as? [[String: String]]) ?? [], [["id": "d", "provider": "apns", "state": "unregistered"]])
        XCTAssertEqual(list[1]["loaded"] as? Bool, false)
        // The document loads through POST /scenarios as the page posts it.
        let document = try JSONSerialization.data(withJSONObject: try XCTUnwrap(list[1]["document"]))
        XCTAssertEqual(call(api, "POST", "/scenarios?merge=true&name=b.json", String(decoding: document, as: UTF8.self)).0, 201)
        XCTAssertEqual(d.devices.device(id: "d").map { DeviceStateKind($0.state) }, .unregistered)
        (status, json) = call(api, "GET", "/scenarios")
        list = try XCTUnwrap(json as? [[String: Any]])
        XCTAssertEqual(list[1]["loaded"] as? Bool, true)
        XCTAssertEqual(call(AdminAPI(double: d), "GET", "/scenarios").1 as? [String], [], "no directory, no entry")
    }

    // MARK: device actions in GET /catalogue

    func testEveryProviderContributesDeviceActionsTheAdminAPIAccepts() throws {
        let d = double()
        let api = AdminAPI(double: d)
        let (status, doc) = call(api, "GET", "/catalogue")
        XCTAssertEqual(status, 200)
        let providers = try XCTUnwrap((doc as? [String: Any])?["providers"] as? [[String: Any]])
        for module in FakeRegistry.modules {
            let actions = module.deviceActions
            XCTAssertEqual(Set(actions.map(\.id)).count, actions.count, "\(module.provider): unique action ids")
            for required in ["dead", "throttle", "fail-500", "fail-503", "drop", "revive"] {
                XCTAssertTrue(actions.contains { $0.id == required }, "\(module.provider) offers \(required)")
            }
            XCTAssertTrue(actions.contains { $0.id == "revive" && $0.clearsRules })
            let served = try XCTUnwrap(providers.first { $0["provider"] as? String == module.provider.rawValue }?["deviceActions"] as? [[String: Any]])
            XCTAssertEqual(served.compactMap { $0["id"] as? String }, actions.map(\.id))
            // Each armed answer is a rule the admin API accepts for a device of the provider.
            let device = Device(id: "dev", provider: module.provider, token: "t")
            for a in actions {
                guard let rule = a.rule(id: "r-\(a.id)", for: device, times: 2) else { continue }
                XCTAssertNoThrow(try d.check(rule: rule), "\(module.provider) \(a.id)")
                XCTAssertEqual(rule.match.device, "dev")
                XCTAssertEqual(rule.times, 2)
            }
        }
        let apns = try XCTUnwrap(providers.first { $0["provider"] as? String == "apns" }?["deviceActions"] as? [[String: Any]])
        let env = try XCTUnwrap(apns.first { $0["id"] as? String == "wrong-environment" }?["effect"] as? [String: Any])
        XCTAssertEqual(env["kind"] as? String, "environment")
        XCTAssertEqual(env["environments"] as? [String], ["sandbox", "production"])
        let dead = try XCTUnwrap(apns.first { $0["id"] as? String == "dead" }?["effect"] as? [String: Any])
        XCTAssertEqual(dead["state"] as? String, "unregistered")
        let expo = try XCTUnwrap(providers.first { $0["provider"] as? String == "expo" }?["deviceActions"] as? [[String: Any]])
        let receipt = try XCTUnwrap(expo.first { $0["id"] as? String == "receipt-dead" }?["effect"] as? [String: Any])
        XCTAssertEqual(receipt["attributes"] as? [String: String], ["receipt": "DeviceNotRegistered"])
        // The create-device forms: APNs asks the environment, Expo the receipt, Web Push posts a subscription.
        let forms = Dictionary(uniqueKeysWithValues: providers.compactMap { p in (p["provider"] as? String).map { ($0, p["deviceForm"] as? [String: Any] ?? [:]) } })
        XCTAssertEqual(forms["apns"]?["route"] as? String, "/devices")
        XCTAssertTrue((forms["apns"]?["fields"] as? [[String: Any]] ?? []).contains { $0["name"] as? String == "environment" })
        let expoReceipt = (forms["expo"]?["fields"] as? [[String: Any]] ?? []).first { $0["name"] as? String == "receipt" }
        XCTAssertEqual(expoReceipt?["values"] as? [String], ExpoReceiptValues.values)
        XCTAssertEqual(forms["webpush"]?["route"] as? String, "/webpush/subscriptions")
        XCTAssertEqual(((forms["webpush"]?["fields"] as? [[String: Any]])?.first?["values"] as? [String])?.first, "mozilla")
    }
}
