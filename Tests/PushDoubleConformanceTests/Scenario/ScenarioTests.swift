import XCTest
@testable import PushDoubleConformance
import PushDoubleCore

final class ScenarioTests: XCTestCase {
    func testShippedSuiteDecodesWithBothLoaders() throws {
        let all = try ConformanceScenario.loadDirectory(shippedScenarioDirectory, knownChecks: CheckCatalogue.ids)
        let apns = all.filter { $0.id.hasPrefix("apns.") }
        XCTAssertGreaterThanOrEqual(apns.count, 14)
        let expo = all.filter { $0.id.hasPrefix("expo.") }
        XCTAssertGreaterThanOrEqual(expo.count, 10, "the Expo suite covers every Expo rule (E1–E9)")
        for s in apns + expo {
            XCTAssertEqual((s.file! as NSString).lastPathComponent, s.id + ".json")
            XCTAssertFalse(s.references.isEmpty, s.id)
            XCTAssertFalse(s.steps.isEmpty, s.id)
            XCTAssertFalse(s.checks.isEmpty, s.id)
            XCTAssertNoThrow(try ServerFakeHost().validate(s), s.id)
        }
        // Every APNs rule the suite claims is referenced by some case.
        let refs = Set(apns.flatMap(\.references))
        for a in ["A1", "A2", "A3", "A4", "A5", "A6", "A7", "A9", "A10", "A12", "A13", "A14", "G1", "G2", "G3", "G4", "G5"] {
            XCTAssertTrue(refs.contains(a), "no case references \(a)")
        }
        // Every FCM case is as complete as the APNs ones (at least 12).
        let fcm = all.filter { $0.id.hasPrefix("fcm.") }
        XCTAssertGreaterThanOrEqual(fcm.count, 12)
        for s in fcm {
            XCTAssertEqual((s.file! as NSString).lastPathComponent, s.id + ".json")
            XCTAssertFalse(s.references.isEmpty, s.id)
            XCTAssertFalse(s.checks.isEmpty, s.id)
            XCTAssertNoThrow(try ServerFakeHost().validate(s), s.id)
        }
        // Every check a mutant must fail is used by some case.
        let used = Set(all.flatMap { $0.checks.map(\.id) })
        for e in SenderMutants.all { for c in e.failingChecks { XCTAssertTrue(used.contains(c), "\(e.name): \(c) unused") } }
    }

    func testDecodeErrorsAreClear() {
        func err(_ json: String) -> String {
            do { _ = try ConformanceScenario.decode(Data(json.utf8), file: "x.json"); return "" } catch { return "\(error)" }
        }
        XCTAssertTrue(err("[]").contains("top level must be a JSON object"))
        XCTAssertTrue(err("{}").contains("missing string \"id\""))
        XCTAssertTrue(err(#"{"id":"a","steps":[{"type":"jump"}]}"#).contains("unknown step type \"jump\""))
        XCTAssertTrue(err(#"{"id":"a","steps":[{"type":"wait"}]}"#).contains("wait needs \"seconds\""))
        XCTAssertTrue(err(#"{"id":"a","steps":[{"type":"admin","path":"expo"}]}"#).contains("admin needs a \"path\""))
        XCTAssertEqual(try ConformanceScenario.decode(Data(#"{"id":"a","steps":[{"type":"admin","path":"/expo/receipts/release"}]}"#.utf8), file: "x.json").steps,
                       [.admin(method: "POST", path: "/expo/receipts/release", body: nil)])
        XCTAssertTrue(err(#"{"id":"a","steps":[{"type":"send","notification":{},"devices":[]}]}"#).contains("non-empty \"devices\""))
        XCTAssertTrue(err(#"{"id":"a","devices":[{"id":"d1","token":"t"}]}"#).contains("has no string \"provider\""))
        // The provider's device schema (the APNs module's) judges provider fields, before any case starts.
        func hostErr(_ json: String) -> String {
            do { try ServerFakeHost().validate(try ConformanceScenario.decode(Data(json.utf8), file: "x.json")); return "" } catch { return "\(error)" }
        }
        XCTAssertTrue(hostErr(#"{"id":"a","devices":[{"id":"d1","provider":"apns","token":"t","environment":"staging"}]}"#).contains("environment: must be"))
        XCTAssertTrue(hostErr(#"{"id":"a","devices":[{"id":"d1","provider":"apns","token":"t","colour":"red"}]}"#).contains("unknown field for a apns device"))
        XCTAssertTrue(hostErr(#"{"id":"a","fakeOptions":{"nope":{}}}"#).contains("fakeOptions.nope: no such provider"))
        XCTAssertTrue(hostErr(#"{"id":"a","fakeOptions":{"apns":{"x":1}}}"#).contains("fakeOptions.apns.x: unknown option"))
        XCTAssertTrue(err(#"{"id":"a","checks":[7]}"#).contains("checks[0]"))
    }

    /// Top-level `targets` (FCM topics and conditions) named by send steps; errors name their place.
    func testTargetsDecodeAndErrors() throws {
        let s = try ConformanceScenario.decode(Data(#"""
        {"id":"a","devices":[{"id":"d1","provider":"fcm","token":"t"}],
         "targets":[{"id":"news","provider":"fcm","topic":"news"},{"id":"ab","provider":"fcm","condition":"'a' in topics || 'b' in topics"}],
         "steps":[{"type":"send","notification":{"title":"t"},"devices":["d1"],"targets":["news","ab"]},
                  {"type":"send","notification":{"title":"t"},"targets":["ab"]}]}
        """#.utf8), file: "a.json")
        XCTAssertEqual(s.targets, [ScenarioTarget(id: "news", provider: "fcm", address: .topic("news")),
                                   ScenarioTarget(id: "ab", provider: "fcm", address: .condition("'a' in topics || 'b' in topics"))])
        XCTAssertEqual(s.steps, [.send(notification: .object([("title", .string("t"))]), devices: ["d1"], targets: ["news", "ab"], repeat: 1),
                                 .send(notification: .object([("title", .string("t"))]), devices: [], targets: ["ab"], repeat: 1)])
        XCTAssertEqual(s.providers, ["fcm"])
        XCTAssertEqual(s.target("news")?.driverJSON.compactJSON, #"{"id":"news","provider":"fcm","topic":"news"}"#)
        func err(_ json: String) -> String {
            do { _ = try ConformanceScenario.decode(Data(json.utf8), file: "x.json"); return "" } catch { return "\(error)" }
        }
        XCTAssertTrue(err(#"{"id":"a","targets":{}}"#).contains("\"targets\" must be an array"))
        XCTAssertTrue(err(#"{"id":"a","targets":[{"id":"t","provider":"fcm","topic":"x","condition":"'x' in topics"}]}"#).contains("exactly one"))
        XCTAssertTrue(err(#"{"id":"a","targets":[{"id":"t","provider":"fcm"}]}"#).contains("exactly one"))
        XCTAssertTrue(err(#"{"id":"a","targets":[{"id":"t","provider":"fcm","topic":"x","colour":1}]}"#).contains("unknown member \"colour\""))
        XCTAssertTrue(err(#"{"id":"a","targets":[{"id":"t","topic":"x"}]}"#).contains("no string \"provider\""))
        XCTAssertTrue(err(#"{"id":"a","devices":[{"id":"t","provider":"fcm","token":"x"}],"targets":[{"id":"t","provider":"fcm","topic":"x"}]}"#)
            .contains("already used by a device or target"))
        XCTAssertTrue(err(#"{"id":"a","steps":[{"type":"send","notification":{},"targets":["nope"]}]}"#).contains("unknown target id \"nope\""))
    }

    func testSenderDeviceOverrides() throws {
        let s = try ConformanceScenario.decode(Data(#"""
        {"id":"a","devices":[{"id":"d1","provider":"apns","token":"aa","environment":"production","topic":"x"}],
         "senderDevices":{"d1":{"environment":"sandbox","topic":"y"}},
         "steps":[{"type":"send","notification":{"title":"t"},"devices":["d1"],"repeat":3},{"type":"settle"},{"type":"wait","seconds":0.5}]}
        """#.utf8), file: "a.json")
        XCTAssertEqual(s.devices[0], ScenarioDevice(id: "d1", provider: "apns", token: "aa", environment: "sandbox", topic: "y"))
        XCTAssertEqual(s.steps.count, 3)
        XCTAssertEqual(s.steps[0], .send(notification: .object([("title", .string("t"))]), devices: ["d1"], repeat: 3))
        XCTAssertEqual(s.steps[2], .wait(seconds: 0.5))
        XCTAssertEqual(s.providers, ["apns"])
    }
}

final class DocsTests: XCTestCase {
    /// docs/conformance.md lists every check id and every shipped case (the catalogue stays documented).
    func testDocsListEveryCheckAndCase() throws {
        let doc = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/conformance.md"), encoding: .utf8)
        for c in CheckCatalogue.all { XCTAssertTrue(doc.contains("`\(c.id)`"), c.id) }
        for s in try ConformanceScenario.loadDirectory(shippedScenarioDirectory) { XCTAssertTrue(doc.contains("`\(s.id)`"), s.id) }
        for e in SenderMutants.all { XCTAssertTrue(doc.contains("`\(e.name)`"), e.name) }
    }
}

extension ScenarioTests {
    /// Device tokens are unique across the shipped suite (a reused sender's state cannot leak between cases).
    func testShippedTokensAreUnique() throws {
        let tokens = try ConformanceScenario.loadDirectory(shippedScenarioDirectory).flatMap { $0.devices.map(\.token) }
        XCTAssertEqual(Set(tokens).count, tokens.count)
    }
}
