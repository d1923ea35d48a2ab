import Foundation
import XCTest
import PushDouble
import PushDoubleCore
import PushDoubleTestSupport

/// The export is a scenario file by the repository's own JSON Schema too (interop tier:
/// Python's jsonschema, Draft 2020-12, as ScenarioLoaderTests uses it), for a double holding
/// every kind of device member and several rule kinds.
final class ScenarioExportSchemaTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "python3 (jsonschema)") }

    func testTheExportValidatesAgainstScenarioSchema() throws {
        try requireTool("python3")
        let server = PushDoubleServer(configuration: .ephemeral())
        let json = #"""
        {"id":"setup","providers":{"expo":{"world":"closed"}},"seed":7,
         "devices":[{"id":"phone","provider":"apns","token":"abab","environment":"sandbox","topic":"com.example.app",
                     "transitions":[{"afterDeliveries":2,"state":"unregistered"}]},
                    {"id":"dead","provider":"fcm","token":"fcm-dead","state":"unregistered","unregisteredAt":"2026-01-02T03:04:05.000Z"}],
         "faults":[{"id":"busy","match":{"provider":"apns","nth":2},"action":{"type":"respond","reason":"ServiceUnavailable","retryAfter":7},"times":1},
                   {"id":"slow","match":{"provider":"fcm"},"action":{"type":"delay","seconds":0.5,"then":{"type":"continue"}}},
                   {"id":"bye","action":{"type":"goaway","lastStreamId":"this","errorCode":"NO_ERROR","debugData":"x"}}],
         "quotas":[{"id":"q","fixedWindow":{"limit":10,"seconds":60},"per":"token"}]}
        """#
        try server.load(scenario: ScenarioLoader.decode(Data(json.utf8), file: "setup"))
        let export = ScenarioExport.document(ScenarioExport.scenario(of: server.double, fakeOptions: ["apns": ["x": 1]]))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pd-export-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("export.json")
        try Data(export).write(to: file)
        let script = """
        import json, sys
        from jsonschema import Draft202012Validator
        v = Draft202012Validator(json.load(open(sys.argv[1])))
        doc = json.load(open(sys.argv[2]))
        errs = [(list(e.path), e.message) for e in v.iter_errors(doc)]
        assert not errs, errs
        print("ok", len(doc["devices"]), len(doc["faults"]))
        """
        let r = try runCommand(["python3", "-c", script, shippedScenarioDirectory + "/scenario.schema.json", file.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "ok 2 4")
    }
}
