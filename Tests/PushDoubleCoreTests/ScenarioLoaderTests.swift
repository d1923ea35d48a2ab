import Foundation
import XCTest
import PushDoubleTestSupport
@testable import PushDoubleCore
import PushDoubleTransport

final class ScenarioLoaderTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "python3") }

    private func decode(_ json: String, file: String = "apns.unregistered.json") throws -> Scenario {
        try ScenarioLoader.decode(Data(json.utf8), file: file)
    }

    private func assertError(_ json: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try decode(json), file: file, line: line) { error in
            XCTAssertEqual((error as? ScenarioError)?.description, expected, file: file, line: line)
        }
    }

    let full = """
    {
      "id": "apns.unregistered", "title": "Dead token", "description": "A device dies after its second push.",
      "references": ["apns.md §7"],
      "providers": {"apns": {"world": "closed"}},
      "seed": 42,
      "devices": [
        {"id": "d1", "provider": "apns", "token": "aa", "environment": "production", "topic": "com.example",
         "transitions": [{"afterDeliveries": 2, "state": "unregistered"}]},
        {"id": "d2", "provider": "apns", "token": "bb", "state": "expired"}
      ],
      "faults": [
        {"id": "f1", "match": {"provider": "apns", "nth": 1}, "action": {"type": "respond", "reason": "ServiceUnavailable", "retryAfter": 7}, "times": 1},
        {"id": "f2", "match": {"device": "d2"}, "action": {"type": "goaway", "lastStreamId": "before", "errorCode": "NO_ERROR", "debugJSON": {"reason": "Shutdown"}}}
      ],
      "quotas": [{"id": "q1", "match": {"provider": "apns"}, "fixedWindow": {"limit": 5, "seconds": 60}, "per": "token"}],
      "steps": [{"type": "send", "id": "s1", "notification": {"title": "hi"}, "devices": ["d1"]}],
      "checks": [{"type": "outcome", "id": "c1", "expect": {"d1": "sent"}}],
      "x-anything": true
    }
    """

    func testFullScenarioDecodesAndKeepsStepsAndChecks() throws {
        let s = try decode(full)
        XCTAssertEqual(s.id, "apns.unregistered")
        XCTAssertEqual(s.providers["apns"]?.world, .closed)
        XCTAssertEqual(s.seed, 42)
        XCTAssertEqual(s.devices.map(\.id), ["d1", "d2"])
        XCTAssertEqual(s.devices[1].state, .expired)
        XCTAssertEqual(s.faults[0].action, .respond(ResponseSpec(reason: "ServiceUnavailable", retryAfter: .seconds(7))))
        XCTAssertEqual(s.faults[1].action, .goAway(lastStream: .beforeThisStream, errorCode: .noError,
                                                   debugData: .json(.object([("reason", .string("Shutdown"))])), then: nil))
        XCTAssertEqual(s.rules.map(\.id), ["f1", "f2", "q1"])
        XCTAssertEqual(s.steps.count, 1)
        XCTAssertEqual(s.steps[0]["type"], .string("send"))
        XCTAssertEqual(s.checks[0]["id"], .string("c1"))
    }

    func testLoadAppliesEverything() throws {
        let clock = ManualClock()
        let d = DoubleState(clock: clock)
        try d.load(try decode(full))
        XCTAssertEqual(d.devices.world(for: "apns"), .closed)
        XCTAssertEqual(d.devices.list().map(\.id), ["d1", "d2"])
        XCTAssertEqual(d.faults.list().map(\.rule.id), ["f1", "f2", "q1"])
        XCTAssertEqual(d.faults.seed, 42)
        XCTAssertEqual(d.loadedScenarios, ["apns.unregistered"])
        // Loading again replaces (no duplicate-id error); merge mode refuses clashes atomically.
        try d.load(try decode(full))
        XCTAssertThrowsError(try d.load(try decode(full), merge: true))
        XCTAssertEqual(d.faults.list().count, 3)
        XCTAssertEqual(d.devices.list().count, 2)
    }

    func testErrorsNameFileAndFieldPath() {
        assertError(#"{"id":"x","faults":[{"id":"a","action":{"type":"drop"}},{"id":"b","action":{"type":"drop"}},{"id":"c","action":{"type":"respond","status":"503"}}]}"#,
                    "apns.unregistered.json: faults[2].action.status: expected integer, found string")
        assertError(#"{"id":"x","devices":[{"id":"d","provider":"apns"}]}"#,
                    "apns.unregistered.json: devices[0].token: missing required field")
        assertError(#"{"title":"no id"}"#, "apns.unregistered.json: id: missing required field")
        assertError(#"{"id":"x","faults":[{"id":"a","action":{"type":"explode"}}]}"#,
                    "apns.unregistered.json: faults[0].action.type: unknown action type \"explode\"; expected one of continue, delay, dribble, drop, goaway, quota, reset, respond, stall, truncate")
        assertError(#"{"id":"x","faults":[{"id":"a","mach":{},"action":{"type":"drop"}}]}"#,
                    "apns.unregistered.json: faults[0].mach: unknown field; expected one of action, enabled, id, match, times")
        assertError(#"{"id":"x","faults":[{"id":"a","action":{"type":"drop","seconds":3}}]}"#,
                    "apns.unregistered.json: faults[0].action.seconds: unknown field; expected one of type")
        assertError(#"{"id":"x","devices":[{"id":"d","provider":"apns","token":"t","state":"zombie"}]}"#,
                    #"apns.unregistered.json: devices[0].state: unknown value "zombie"; expected one of active, unregistered, expired, invalid, otherApp, rateLimited"#)
        assertError(#"{"id":"x","providers":{"apns":{"world":"flat"}}}"#,
                    #"apns.unregistered.json: providers.apns.world: unknown value "flat"; expected one of open, closed"#)
        assertError(#"{"id":"x","faults":[{"id":"a","match":{"probability":2},"action":{"type":"drop"}}]}"#,
                    "apns.unregistered.json: faults[0].match.probability: expected a number in 0…1, found 2")
        assertError(#"{"id":"x","faults":[{"id":"a","action":{"type":"respond"}}]}"#,
                    "apns.unregistered.json: faults[0].action.status: a response needs a \"reason\" or a \"status\"")
        assertError(#"{"id":"x","faults":[{"id":"a","action":{"type":"drop"}},{"id":"a","action":{"type":"stall"}}]}"#,
                    "apns.unregistered.json: faults[1].id: duplicate rule id \"a\"")
        assertError(#"{"id":"x","quotas":[{"id":"q","fixedWindow":{"limit":0,"seconds":1}}]}"#,
                    "apns.unregistered.json: quotas[0].fixedWindow.limit: expected an integer in 1…2147483647, found 0")
        assertError(#"{"id":"x","quotas":[{"id":"q"}]}"#,
                    "apns.unregistered.json: quotas[0].fixedWindow: a quota needs exactly one of \"fixedWindow\" or \"tokenBucket\"")
        assertError(#"{"id":"x","faults":[{"id":"a","action":{"type":"reset","errorCode":"NOPE"}}]}"#,
                    "apns.unregistered.json: faults[0].action.errorCode: unknown HTTP/2 error code \"NOPE\"")
        assertError(#"{"id":"x","faults":[{"id":"a","action":{"type":"delay","seconds":1,"then":{"type":"respond","status":true}}}]}"#,
                    "apns.unregistered.json: faults[0].action.then.status: expected integer, found boolean")
        assertError(#"{"id":"x","devices":[{"id":"d","provider":"apns","token":"t","transitions":[{"state":"expired"}]}]}"#,
                    "apns.unregistered.json: devices[0].transitions[0].state: a transition needs exactly one of \"afterDeliveries\" or \"afterSeconds\"")
        assertError(#"{"id":"x","steps":{"type":"send"}}"#, "apns.unregistered.json: steps: expected array, found object")
    }

    func testInvalidJSONNamesTheFile() {
        XCTAssertThrowsError(try decode("{\"id\": ", file: "broken.json")) { error in
            let e = error as? ScenarioError
            XCTAssertEqual(e?.file, "broken.json")
            XCTAssertEqual(e?.path, "")
            XCTAssertTrue(e?.message.hasPrefix("not valid JSON") ?? false, "\(String(describing: e))")
        }
    }

    func testLoadFromFileUsesFileName() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pd-scn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("fcm.quota.json")
        try Data(#"{"id":"fcm.quota","seed":"x"}"#.utf8).write(to: url)
        XCTAssertThrowsError(try ScenarioLoader.load(contentsOf: url)) {
            XCTAssertEqual(($0 as? ScenarioError)?.description, "fcm.quota.json: seed: expected integer, found string")
        }
        XCTAssertThrowsError(try ScenarioLoader.load(path: dir.appendingPathComponent("missing.json").path)) {
            XCTAssertEqual(($0 as? ScenarioError)?.file, "missing.json")
        }
    }

    static var scenariosDir: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scenarios")
    }

    func testShippedScenariosDecode() throws {
        let dir = Self.scenariosDir
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") && $0 != "scenario.schema.json" }
        for f in files {
            XCTAssertNoThrow(try ScenarioLoader.load(contentsOf: dir.appendingPathComponent(f)), f)
        }
    }

    /// The JSON Schema accepts what the loader accepts and rejects typical mistakes
    /// (checked with Python's jsonschema, Draft 2020-12, including every shipped scenario).
    func testSchemaAgreesWithLoader() throws {
        let schema = Self.scenariosDir.appendingPathComponent("scenario.schema.json")
        let script = """
        import json, sys, glob, os
        from jsonschema import Draft202012Validator
        s = json.load(open(sys.argv[1]))
        Draft202012Validator.check_schema(s)
        v = Draft202012Validator(s)
        good = json.loads(sys.argv[2])
        errs = list(v.iter_errors(good))
        assert not errs, [e.message for e in errs]
        bad = json.loads(sys.argv[3])
        for b in bad:
            assert list(v.iter_errors(b)), b
        n = 0
        for f in glob.glob(os.path.join(os.path.dirname(sys.argv[1]), "*.json")):
            if f.endswith("scenario.schema.json"): continue
            errs = list(v.iter_errors(json.load(open(f))))
            assert not errs, (f, [e.message for e in errs][:3])
            n += 1
        print("ok", len(bad), n)
        """
        let bad = [
            #"{"id":"x","faults":[{"id":"a","action":{"type":"respond","status":"503"}}]}"#,
            #"{"id":"x","faults":[{"id":"a","action":{"type":"drop","seconds":3}}]}"#,
            #"{"id":"x","faults":[{"id":"a","mach":{},"action":{"type":"drop"}}]}"#,
            #"{"id":"x","faults":[{"id":"a","action":{"type":"respond"}}]}"#,
            #"{"id":"x","quotas":[{"id":"q"}]}"#,
            #"{"id":"x","devices":[{"id":"d","provider":"apns"}]}"#,
            #"{"id":"x","devices":[{"id":"d","provider":"apns","token":"t","state":"zombie"}]}"#,
            #"{"title":"no id"}"#,
            #"{"id":"x","faults":[{"id":"a","action":{"type":"quota","fixedWindow":{"limit":1,"seconds":1e-300}}}]}"#,
            #"{"id":"x","faults":[{"id":"a","action":{"type":"respond","status":100}}]}"#,
            #"{"id":"x","faults":[{"id":"a","action":{"type":"respond","status":200,"headers":{"x-a":"1\r\nx-b: 2"}}}]}"#,
            #"{"id":"x","faults":[{"id":"a","action":{"type":"respond","status":200,"headers":[["content-length","99999"]]}}]}"#,
            #"{"id":"x","faults":[{"id":"a","action":{"type":"respond","status":429,"retryAfter":{"dateIn":9223372036854775807}}}]}"#,
            #"{"id":"x","devices":[{"id":"d","provider":"apns","token":"t","deliveries":-1}]}"#,
        ]
        // Every bad example is also refused by the loader.
        for b in bad { XCTAssertThrowsError(try ScenarioLoader.decode(Data(b.utf8), file: "bad.json"), b) }
        _ = try ScenarioLoader.decode(Data(full.utf8), file: "full.json")
        let r = try runCommand(["python3", "-c", script, schema.path, full, "[" + bad.joined(separator: ",") + "]"], timeout: 20)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("ok 14 "), r.stdout + r.stderr)
    }
}
