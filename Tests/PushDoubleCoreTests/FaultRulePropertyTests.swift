import Foundation
import XCTest
@testable import PushDoubleCore
import PushDoubleTransport

/// Every rule kind × every numeric field × extreme values (and the same for device and
/// scenario numbers): the loader either refuses the document with an error that names the
/// field, or it runs through the pipeline (a ManualClock jumping far forward and back)
/// without trapping and answers valid HTTP.
final class FaultRulePropertyTests: XCTestCase {
    /// One template per numeric field of every rule kind; `$V` is replaced by each extreme.
    static let templates: [String] = [
        #"{"id":"r","action":{"type":"respond","status":$V}}"#,
        #"{"id":"r","action":{"type":"respond","reason":"Unregistered","status":$V}}"#,
        #"{"id":"r","action":{"type":"respond","status":503,"retryAfter":$V}}"#,
        #"{"id":"r","action":{"type":"respond","reason":"TooManyRequests","retryAfter":{"dateIn":$V}}}"#,
        #"{"id":"r","action":{"type":"delay","seconds":$V}}"#,
        #"{"id":"r","action":{"type":"delay","seconds":0,"then":{"type":"respond","status":$V,"body":"x"}}}"#,
        #"{"id":"r","action":{"type":"goaway","lastStreamId":$V}}"#,
        #"{"id":"r","action":{"type":"goaway","lastStreamId":"this","errorCode":$V,"debugData":"bye"}}"#,
        #"{"id":"r","action":{"type":"reset","errorCode":$V}}"#,
        #"{"id":"r","action":{"type":"dribble","chunkSize":$V}}"#,
        #"{"id":"r","action":{"type":"dribble","interval":$V,"response":{"status":200,"body":"abc"}}}"#,
        #"{"id":"r","action":{"type":"truncate","bodyBytes":$V}}"#,
        #"{"id":"r","action":{"type":"truncate","bodyBytes":1,"response":{"status":$V,"body":"abc"}}}"#,
        #"{"id":"r","action":{"type":"quota","fixedWindow":{"limit":$V,"seconds":1}}}"#,
        #"{"id":"r","action":{"type":"quota","fixedWindow":{"limit":1,"seconds":$V}}}"#,
        #"{"id":"r","action":{"type":"quota","tokenBucket":{"rate":$V,"burst":1}}}"#,
        #"{"id":"r","action":{"type":"quota","tokenBucket":{"rate":1,"burst":$V}}}"#,
        #"{"id":"r","action":{"type":"quota","fixedWindow":{"limit":1,"seconds":1},"status":$V}}"#,
        #"{"id":"r","action":{"type":"drop"},"times":$V}"#,
        #"{"id":"r","match":{"nth":$V},"action":{"type":"stall"}}"#,
        #"{"id":"r","match":{"everyNth":$V},"action":{"type":"continue"}}"#,
        #"{"id":"r","match":{"from":$V},"action":{"type":"respond","status":503}}"#,
        #"{"id":"r","match":{"until":$V},"action":{"type":"respond","status":503}}"#,
        #"{"id":"r","match":{"probability":$V},"action":{"type":"respond","status":503}}"#,
    ]

    /// 0, ±tiny, ±huge, the Int32/Int64/UInt32/UInt64 bounds and one beyond, the edges of
    /// the documented ranges, beyond-Double numbers, and the non-JSON NaN / Infinity.
    static let extremes: [String] = [
        "0", "-0", "0.0", "1", "-1", "0.5", "1.5", "1e-300", "-1e-300", "5e-324", "0.001", "0.000001",
        "1e300", "-1e300", "1e400", "-1e400", "100", "199", "200", "204", "304", "599", "600",
        "3600", "3600.0001", "31536000", "31536001", "1000000", "1000000001", "-1000000001",
        "2147483647", "2147483648", "4294967295", "4294967296",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551615", "18446744073709551616",
        "NaN", "Infinity", "-Infinity",
    ]

    /// Scenario-level numbers: device deliveries and transitions, the seed.
    static let scenarioTemplates: [String] = [
        #"{"id":"p","devices":[{"id":"d","provider":"test","token":"abc","deliveries":$V,"transitions":[{"afterDeliveries":1,"state":"unregistered"}]}]}"#,
        #"{"id":"p","devices":[{"id":"d","provider":"test","token":"abc","transitions":[{"afterDeliveries":$V,"state":"unregistered"}]}]}"#,
        #"{"id":"p","devices":[{"id":"d","provider":"test","token":"abc","transitions":[{"afterSeconds":$V,"state":"unregistered"}]}]}"#,
        #"{"id":"p","seed":$V,"faults":[{"id":"r","match":{"probability":0.5},"action":{"type":"respond","status":503}}]}"#,
        #"{"id":"p","quotas":[{"id":"q","fixedWindow":{"limit":1,"seconds":1},"times":$V}]}"#,
    ]

    func testEveryRuleKindWithExtremeValuesIsRefusedCleanlyOrRunsWithoutTrapping() throws {
        try check(Self.templates.map { #"{"id":"p","faults":["# + $0 + "]}" }, pathPrefix: "faults[0]", minAccepted: 100, minRefused: 300)
    }

    func testDeviceAndScenarioNumbersWithExtremeValuesAreRefusedCleanlyOrRunWithoutTrapping() throws {
        try check(Self.scenarioTemplates, pathPrefix: "", minAccepted: 20, minRefused: 60)
    }

    private func check(_ templates: [String], pathPrefix: String, minAccepted: Int, minRefused: Int) throws {
        var accepted = 0, refused = 0
        for template in templates {
            for value in Self.extremes {
                let doc = template.replacingOccurrences(of: "$V", with: value)
                // RFC 8259 has no NaN / Infinity; 1e400 is valid JSON grammar (beyond a double).
                let isJSON = !["NaN", "Infinity", "-Infinity"].contains(value)
                let scenario: Scenario
                do { scenario = try ScenarioLoader.decode(Data(doc.utf8), file: "p.json") } catch let e as ScenarioError {
                    refused += 1
                    if isJSON {
                        XCTAssertTrue(!e.path.isEmpty && e.path.hasPrefix(pathPrefix), "a refused number names its field: \(doc) → \(e)")
                    } else {
                        XCTAssertTrue(e.message.hasPrefix("not valid JSON"), "\(doc) → \(e)")
                    }
                    continue
                }
                XCTAssertTrue(isJSON, "NaN / Infinity are not JSON and must be refused: \(doc)")
                accepted += 1
                try run(scenario, doc)
            }
        }
        XCTAssertGreaterThan(accepted, minAccepted)
        XCTAssertGreaterThan(refused, minRefused)
    }

    /// Loads the rule and pushes through the pipeline while the clock jumps around.
    private func run(_ scenario: Scenario, _ ruleJSON: String) throws {
        let clock = ManualClock()
        let double = DoubleState(clock: clock, historyCap: 100)
        let pipeline = double.pipeline(for: TestFake(), environment: "production")
        try double.load(scenario)
        let h = Harness()
        for step in [0, 1e-9, 0.5, 1, 59, 3600, 1e9, -2e9, 1e12] {
            clock.advance(step)
            for token in ["abc", "def"] {
                let action = h.send(pipeline, "/push/" + token)
                assertValidHTTP(action, ruleJSON)
            }
        }
        // The history (dates of a clock far away included) renders too.
        XCTAssertFalse(ExchangeEncoding.document(double.history.all, dropped: 0, nextSeq: 0).isEmpty)
        XCTAssertFalse(try JSONEncoder().encode(double.faults.list()).isEmpty)
        XCTAssertFalse(try JSONEncoder().encode(double.devices.list()).isEmpty)
    }

    private func assertValidHTTP(_ action: ResponseAction, _ rule: String, depth: Int = 0, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertLessThanOrEqual(depth, InputLimits.maxThenDepth + 1, rule, file: file, line: line)
        switch action {
        case .respond(let r), .stream(let r, _):
            assertValid(r, rule, file: file, line: line)
        case .truncate(let r, let n):
            XCTAssertGreaterThanOrEqual(n, 0, rule, file: file, line: line)
            assertValid(r, rule, file: file, line: line)
        case .dribble(let r, let size, let interval):
            XCTAssertGreaterThanOrEqual(size, 1, rule, file: file, line: line)
            XCTAssertTrue(InputLimits.waitSeconds.contains(interval), rule, file: file, line: line)
            assertValid(r, rule, file: file, line: line)
        case .delayed(let s, let then):
            XCTAssertTrue(InputLimits.waitSeconds.contains(s), rule, file: file, line: line)
            assertValidHTTP(then, rule, depth: depth + 1, file: file, line: line)
        case .heldUntilGoAway(let s, let then):
            XCTAssertEqual(s, FaultEngine.goAwayHoldSeconds, rule, file: file, line: line)
            assertValidHTTP(then, rule, depth: depth + 1, file: file, line: line)
        case .goAway(let last, _, let debug, let then):
            XCTAssertLessThanOrEqual(debug.count, HTTP2Limits.defaultMaxFrameSize - 8, rule, file: file, line: line)
            if case .explicit(let n) = last { XCTAssertLessThanOrEqual(n, 0x7fff_ffff, rule, file: file, line: line) }
            if let then { assertValidHTTP(then, rule, depth: depth + 1, file: file, line: line) }
        case .resetStream, .dropConnection, .stall:
            break
        }
    }

    private func assertValid(_ r: HTTPResponse, _ rule: String, file: StaticString, line: UInt) {
        XCTAssertTrue(InputLimits.finalStatus.contains(r.status), "status \(r.status): \(rule)", file: file, line: line)
        if InputLimits.statusesWithoutContent.contains(r.status) { XCTAssertTrue(r.body.isEmpty, rule, file: file, line: line) }
        for f in r.headers {
            XCTAssertNil(HTTPFieldSyntax.problem(name: f.name), "\(f.name): \(rule)", file: file, line: line)
            XCTAssertNil(HTTPFieldSyntax.problem(value: f.value, of: f.name), "\(f.name): \(rule)", file: file, line: line)
        }
        if let ra = r.headers["retry-after"] {
            let isDelta = !ra.isEmpty && ra.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } && ra.count <= 10
            let isDate = ra.range(of: #"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$"#,
                                  options: .regularExpression) != nil
            XCTAssertTrue(isDelta || isDate, "Retry-After \(ra): \(rule)", file: file, line: line)
        }
    }
}
