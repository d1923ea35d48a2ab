import Foundation
import XCTest
@testable import PushDoubleCore
import PushDoubleTransport

/// Every number of a rule, device or scenario is checked against ``InputLimits`` when it is
/// loaded (errors name the field and the range), every header a rule sends is valid, and
/// the fault engine's arithmetic never traps even for rules built in code.
final class InputLimitsTests: XCTestCase {
    private func error(_ json: String) -> String? {
        do { _ = try ScenarioLoader.decode(Data(json.utf8), file: "s.json"); return nil } catch { return "\(error)" }
    }

    private func assertRefused(_ json: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(error(json), "s.json: " + expected, file: file, line: line)
    }

    private func rule(_ rule: String) -> String { #"{"id":"x","faults":["# + rule + "]}" }

    // MARK: numbers name the field and the range

    func testOutOfRangeIntegersNameTheFieldAndTheRange() {
        assertRefused(rule(#"{"id":"a","action":{"type":"drop"},"times":1e30}"#),
                      "faults[0].times: expected an integer in 1…2147483647, found 1e30")
        assertRefused(rule(#"{"id":"a","action":{"type":"drop"},"times":0}"#),
                      "faults[0].times: expected an integer in 1…2147483647, found 0")
        assertRefused(#"{"id":"x","seed":-1}"#, "seed: expected an integer in 0…18446744073709551615, found -1")
        assertRefused(#"{"id":"x","seed":1.5}"#, "seed: expected an integer in 0…18446744073709551615, found 1.5")
        assertRefused(#"{"id":"x","seed":18446744073709551616}"#,
                      "seed: expected an integer in 0…18446744073709551615, found 18446744073709551616")
        XCTAssertNil(error(#"{"id":"x","seed":18446744073709551615}"#), "the whole UInt64 range is a seed")
        assertRefused(#"{"id":"x","devices":[{"id":"d","provider":"apns","token":"t","deliveries":-1}]}"#,
                      "devices[0].deliveries: expected an integer in 0…2147483647, found -1")
        assertRefused(#"{"id":"x","devices":[{"id":"d","provider":"apns","token":"t","transitions":[{"afterDeliveries":0,"state":"expired"}]}]}"#,
                      "devices[0].transitions[0].afterDeliveries: expected an integer in 1…2147483647, found 0")
        assertRefused(#"{"id":"x","devices":[{"id":"d","provider":"apns","token":"t","transitions":[{"afterSeconds":1e300,"state":"expired"}]}]}"#,
                      "devices[0].transitions[0].afterSeconds: expected a number in 0…31536000, found 1e300")
        assertRefused(#"{"id":"x","quotas":[{"id":"q","tokenBucket":{"rate":1,"burst":5},"times":-3}]}"#,
                      "quotas[0].times: expected an integer in 1…2147483647, found -3")
        assertRefused(rule(#"{"id":"a","match":{"nth":9223372036854775808},"action":{"type":"drop"}}"#),
                      "faults[0].match.nth: expected an integer in 1…2147483647, found 9223372036854775808")
        assertRefused(rule(#"{"id":"a","action":{"type":"goaway","lastStreamId":-1}}"#),
                      "faults[0].action.lastStreamId: expected an integer in 0…2147483647, found -1")
        assertRefused(rule(#"{"id":"a","action":{"type":"reset","errorCode":4294967296}}"#),
                      "faults[0].action.errorCode: expected an integer in 0…4294967295, found 4294967296")
    }

    /// The payloads that used to trap in the fault engine or the date code.
    func testTheCrashPayloadsAreRefusedAtLoad() {
        assertRefused(rule(#"{"id":"a","action":{"type":"quota","fixedWindow":{"limit":1,"seconds":1e-300}}}"#),
                      "faults[0].action.fixedWindow.seconds: expected a number in 0.001…31536000, found 1e-300")
        assertRefused(rule(#"{"id":"a","action":{"type":"quota","fixedWindow":{"limit":1,"seconds":1e300}}}"#),
                      "faults[0].action.fixedWindow.seconds: expected a number in 0.001…31536000, found 1e300")
        assertRefused(rule(#"{"id":"a","action":{"type":"quota","tokenBucket":{"rate":1e-300,"burst":1}}}"#),
                      "faults[0].action.tokenBucket.rate: expected a number in 1e-6…1000000, found 1e-300")
        assertRefused(rule(#"{"id":"a","action":{"type":"respond","status":429,"retryAfter":{"dateIn":9223372036854775807}}}"#),
                      "faults[0].action.retryAfter.dateIn: expected an integer in -1000000000…1000000000, found 9223372036854775807")
        assertRefused(#"{"id":"x","quotas":[{"id":"q","fixedWindow":{"limit":1,"seconds":1e-300}}]}"#,
                      "quotas[0].fixedWindow.seconds: expected a number in 0.001…31536000, found 1e-300")
        assertRefused(rule(#"{"id":"a","action":{"type":"delay","seconds":1e400}}"#),
                      "faults[0].action.seconds: expected a number in 0…3600, found 1e400")
        assertRefused(rule(#"{"id":"a","action":{"type":"respond","status":503,"retryAfter":-1}}"#),
                      "faults[0].action.retryAfter: expected delta-seconds, an integer in 0…2147483647, found -1")
        assertRefused(rule(#"{"id":"a","action":{"type":"respond","status":503,"retryAfter":1e30}}"#),
                      "faults[0].action.retryAfter: expected delta-seconds, an integer in 0…2147483647, found 1e30")
    }

    func testNaNAndInfinityAreNotJSON() {
        for v in ["NaN", "Infinity", "-Infinity"] {
            let message = error(rule(#"{"id":"a","action":{"type":"delay","seconds":"# + v + "}}"))
            XCTAssertTrue(message?.hasPrefix("s.json: not valid JSON: ") ?? false, message ?? "accepted \(v)")
        }
    }

    // MARK: rules whose output would be invalid HTTP

    func testRulesThatWouldSendInvalidHTTPAreRefused() {
        assertRefused(rule(#"{"id":"a","action":{"type":"respond","status":100}}"#),
                      "faults[0].action.status: expected an integer in 200…599, found 100")
        assertRefused(rule(#"{"id":"a","action":{"type":"quota","fixedWindow":{"limit":1,"seconds":1},"status":199}}"#),
                      "faults[0].action.status: expected an integer in 200…599, found 199")
        XCTAssertTrue(error(rule(#"{"id":"a","action":{"type":"respond","status":204,"body":"x"}}"#))?.contains("cannot carry content") ?? false)
        XCTAssertTrue(error(rule(#"{"id":"a","action":{"type":"respond","status":304,"reason":"Unregistered"}}"#))?.contains("cannot carry content") ?? false)
        XCTAssertNil(error(rule(#"{"id":"a","action":{"type":"respond","status":204}}"#)), "204 without content is fine")
        XCTAssertEqual(error(rule(#"{"id":"a","action":{"type":"respond","status":200,"headers":{"x-a":"1\r\nx-b: 2"}}}"#)),
                       "s.json: faults[0].action.headers.x-a: the value of x-a contains a control character (0xD); CR, LF, NUL and other controls are not allowed in a header value (RFC 9110 §5.5)")
        XCTAssertTrue(error(rule(#"{"id":"a","action":{"type":"respond","status":200,"headers":[["x-a","\u0000"]]}}"#))?
            .hasPrefix("s.json: faults[0].action.headers[0]: the value of x-a contains a control character (0x0)") ?? false)
        XCTAssertTrue(error(rule(#"{"id":"a","action":{"type":"respond","status":200,"headers":{"x-a":" padded"}}}"#))?.contains("whitespace") ?? false)
        XCTAssertTrue(error(rule(#"{"id":"a","action":{"type":"respond","status":200,"headers":{"bad name":"1"}}}"#))?.contains("not an RFC 9110 token") ?? false)
        XCTAssertTrue(error(rule(#"{"id":"a","action":{"type":"respond","status":200,"headers":{":status":"100"}}}"#))?.contains("not an RFC 9110 token") ?? false)
        for reserved in ["content-length", "Transfer-Encoding", "connection", "upgrade"] {
            XCTAssertTrue(error(rule(#"{"id":"a","action":{"type":"respond","status":200,"headers":{""# + reserved + #"":"99999"}}}"#))?
                .contains("written by the transport") ?? false, reserved)
        }
        XCTAssertTrue(error(rule(#"{"id":"a","action":{"type":"respond","status":200,"contentType":"text/plain\n"}}"#))?
            .hasPrefix("s.json: faults[0].action.contentType: the value of content-type contains a control character") ?? false)
        XCTAssertTrue(error(rule(#"{"id":"a","action":{"type":"respond","status":503,"retryAfter":"7\r\nx: y"}}"#))?
            .hasPrefix("s.json: faults[0].action.retryAfter: the value of retry-after contains a control character") ?? false)
        XCTAssertTrue(error(rule(#"{"id":"a","action":{"type":"truncate","response":{"status":200,"headers":{"content-length":"5"}}}}"#))?
            .hasPrefix("s.json: faults[0].action.response.headers.content-length: ") ?? false)
        XCTAssertEqual(error(rule(#"{"id":"a","action":{"type":"dribble","response":{"status":200,"bodyy":"x"}}}"#)),
                       "s.json: faults[0].action.response.bodyy: unknown field; expected one of body, contentType, custom, headers, reason, retryAfter, status")
    }

    func testGoAwayDebugDataMustFitOneFrame() {
        let limit = HTTP2Limits.defaultMaxFrameSize - 8
        XCTAssertNil(error(rule(#"{"id":"a","action":{"type":"goaway","debugData":""# + String(repeating: "x", count: limit) + #""}}"#)))
        let tooLong = error(rule(#"{"id":"a","action":{"type":"goaway","debugData":""# + String(repeating: "x", count: 20_000) + #""}}"#))
        XCTAssertEqual(tooLong, "s.json: faults[0].action.debugData: GOAWAY debug data is 20000 bytes; at most 16376 fit a frame of the initial SETTINGS_MAX_FRAME_SIZE 16384 (RFC 9113 §6.5.2, §6.8)")
        XCTAssertTrue(error(rule(#"{"id":"a","action":{"type":"goaway","debugJSON":{"r":""# + String(repeating: "x", count: limit) + #""}}}"#))?
            .hasPrefix("s.json: faults[0].action.debugJSON: GOAWAY debug data is 16384 bytes") ?? false)
        XCTAssertTrue(error(rule(#"{"id":"a","action":{"type":"goaway","debugData":"a","debugJSON":{}}}"#))?.contains("not both") ?? false)
    }

    func testThenIsBoundedAndNeverAQuota() {
        XCTAssertTrue(error(rule(#"{"id":"a","action":{"type":"delay","seconds":1,"then":{"type":"quota","fixedWindow":{"limit":1,"seconds":1}}}}"#))?
            .hasPrefix("s.json: faults[0].action.then: a quota is a rule of its own") ?? false)
        func nested(_ depth: Int) -> String {
            var a = #"{"type":"continue"}"#
            for _ in 0..<depth { a = #"{"type":"delay","seconds":0,"then":"# + a + "}" }
            return rule(#"{"id":"a","action":"# + a + "}")
        }
        XCTAssertNil(error(nested(InputLimits.maxThenDepth)), "\(InputLimits.maxThenDepth) nested thens")
        XCTAssertTrue(error(nested(InputLimits.maxThenDepth + 1))?.contains("nest at most 8 deep") ?? false)
    }

    // MARK: the admin API says the same

    func testAdminAPINamesTheFieldToo() throws {
        let admin = AdminAPI(double: DoubleState(clock: ManualClock()))
        let h = Harness()
        let cases: [(String, String, String)] = [
            ("/faults", #"{"id":"q","action":{"type":"quota","fixedWindow":{"limit":1,"seconds":1e-300}}}"#,
             "action.fixedWindow.seconds: expected a number in 0.001…31536000, found 1e-300"),
            ("/faults", #"[{"id":"q","action":{"type":"drop"},"times":1e30}]"#, "[0].times: expected an integer in 1…2147483647, found 1e30"),
            ("/devices", #"{"id":"d","provider":"test","token":"t","deliveries":-1}"#, "deliveries: expected an integer in 0…2147483647, found -1"),
            ("/scenarios", #"{"id":"s","seed":-1}"#, "request body: seed: expected an integer in 0…18446744073709551615, found -1"),
            ("/faults", #"{"id":"q","action":{"type":"drop"},"times":1"#, "not valid JSON: unexpected end of input, expected ',' or '}' at byte 44"),
        ]
        for (path, body, message) in cases {
            let a = h.send(admin, path, body: body)
            XCTAssertStatus(a, 400)
            XCTAssertEqual(a.response?.headers["content-type"], "application/json")
            let json = try XCTUnwrap(a.bodyText.flatMap { try? JSONValue.parse($0) })
            XCTAssertEqual(json["error"]?.stringValue, message, body)
        }
        XCTAssertTrue(admin.double.faults.list().isEmpty)
    }

    func testTransportRefusalsOnTheAdminPortAreJSON() throws {
        let admin = AdminAPI(double: DoubleState(clock: ManualClock()))
        let h = Harness()
        for (kind, status) in [(LimitViolation.Kind.bodyTooLarge, 413), (.headerListTooLarge, 431), (.malformedRequest, 400)] {
            let r = try XCTUnwrap(admin.limitExceeded(LimitViolation(kind: kind, message: "limit \(kind)"), head: h.request("/faults"),
                                                       context: RequestContext(connection: h.connection)))
            XCTAssertEqual(r.status, status)
            XCTAssertEqual(r.headers["content-type"], "application/json")
            XCTAssertEqual(try JSONValue.parse(r.body)["error"]?.stringValue, "limit \(kind)")
        }
    }

    // MARK: second line of defence: no trap even for rules built in code

    func testEngineArithmeticSaturatesForRulesBuiltInCode() {
        let clock = ManualClock()
        let engine = FaultEngine(clock: clock)
        let kinds: [QuotaSpec.Kind] = [
            .fixedWindow(limit: 1, seconds: 1e-300), .fixedWindow(limit: 1, seconds: 1e300), .fixedWindow(limit: 1, seconds: 0),
            .fixedWindow(limit: 1, seconds: -1), .fixedWindow(limit: 0, seconds: 1), .fixedWindow(limit: Int.max, seconds: .leastNonzeroMagnitude),
            .tokenBucket(rate: 1e-300, burst: 1), .tokenBucket(rate: 0, burst: 1), .tokenBucket(rate: -1, burst: 1),
            .tokenBucket(rate: .infinity, burst: 1), .tokenBucket(rate: .nan, burst: 1), .tokenBucket(rate: 1, burst: Int.max),
        ]
        for (i, k) in kinds.enumerated() {
            engine.reset()
            XCTAssertNoThrow(try engine.add(FaultRule(id: "q\(i)", action: .quota(QuotaSpec(k)))))
            for step in [0, 1e-9, 1e9, -1e12, 1e15, 1e300] {
                clock.advance(step)
                for _ in 0..<3 {
                    guard let hit = engine.evaluate(FaultRequest(provider: "test", endpoint: "test.push", token: "t")) else { continue }
                    let wait = hit.retryAfterSeconds ?? 0
                    XCTAssertTrue((1...2_147_483_647).contains(wait), "\(k) after \(step): \(wait)")
                }
            }
            clock.set(Date(timeIntervalSince1970: 1_800_000_000))
        }
    }

    func testDatesOutsideFourDigitYearsAreClamped() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        XCTAssertEqual(RetryAfter.dateIn(seconds: .max).headerValue(now: now), "Fri, 31 Dec 9999 23:59:59 GMT")
        XCTAssertEqual(RetryAfter.dateIn(seconds: .min).headerValue(now: now), "Mon, 01 Jan 0001 00:00:00 GMT")
        XCTAssertEqual(DateFormats.iso8601(Date(timeIntervalSince1970: 1e300)), "9999-12-31T23:59:59.999Z")
        XCTAssertEqual(DateFormats.iso8601(Date(timeIntervalSince1970: -1e300)), "0001-01-01T00:00:00.000Z")
        XCTAssertEqual(DateFormats.iso8601(Date(timeIntervalSince1970: .nan)), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(DateFormats.httpDate(Date(timeIntervalSince1970: 1e300)), "Fri, 31 Dec 9999 23:59:59 GMT")
        XCTAssertEqual(Saturating.int64(.nan), 0)
        XCTAssertEqual(Saturating.int64(1e300), .max)
        XCTAssertEqual(Saturating.int64(-1e300), .min)
        XCTAssertEqual(Saturating.int(0x1p63, in: 0...Int.max), .max)
        XCTAssertEqual(Saturating.int(-5, in: 1...10), 1)
        XCTAssertEqual(Int.max.saturatingIncrement, .max)
    }
}
