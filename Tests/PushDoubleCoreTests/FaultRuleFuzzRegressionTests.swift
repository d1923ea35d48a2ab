import Foundation
import XCTest
@testable import PushDoubleCore
import PushDoubleTransport

/// Inputs found by `FuzzScenario` (docs/fuzzing.md), each with the behaviour it broke.
final class FaultRuleFuzzRegressionTests: XCTestCase {
    /// A reset with an HTTP/2 error code that has no RFC name was written as "0x4d", which
    /// reading refused ("unknown HTTP/2 error code"): a rule read from a scenario could
    /// not be read back from what the double writes about it.
    func testResetWithAnUnnamedErrorCodeRoundTrips() throws {
        let input = #"{"id":"x","faults":[{"id":"a","action":{"type":"reset","errorCode":"77"}}]}"#
        let scenario = try ScenarioLoader.decode(Data(input.utf8), file: "fuzz.json")
        let rule = try XCTUnwrap(scenario.faults.first)
        XCTAssertEqual(rule.action, .reset(HTTP2ErrorCode(77)))
        let written = try JSONEncoder().encode(rule)
        XCTAssertTrue(String(decoding: written, as: UTF8.self).contains(#""errorCode":"0x4d""#))
        XCTAssertEqual(try JSONDecoder().decode(FaultRule.self, from: written), rule)
    }

    /// The same for GOAWAY's error code, and for the name form itself.
    func testGoAwayWithAnUnnamedErrorCodeRoundTrips() throws {
        let input = #"{"id":"x","faults":[{"id":"g","action":{"type":"goaway","errorCode":4660}}]}"#
        let rule = try XCTUnwrap(try ScenarioLoader.decode(Data(input.utf8), file: "fuzz.json").faults.first)
        XCTAssertEqual(try JSONDecoder().decode(FaultRule.self, from: JSONEncoder().encode(rule)), rule)
        for raw: UInt32 in [0, 0xd, 0xe, 0x4d, 0xffff_ffff] {
            XCTAssertEqual(HTTP2ErrorCode(name: HTTP2ErrorCode(raw).name), HTTP2ErrorCode(raw), "0x\(String(raw, radix: 16))")
        }
        XCTAssertNil(HTTP2ErrorCode(name: "0x"))
        XCTAssertNil(HTTP2ErrorCode(name: "0x+4d"))
    }
}
