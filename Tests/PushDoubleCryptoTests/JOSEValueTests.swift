import XCTest
@testable import PushDoubleCrypto

/// The ordered JSON reader/writer used for JOSE headers and claims.
final class JOSEValueTests: XCTestCase {
    func parse(_ s: String) throws -> JOSEValue { try JOSEValue.parse(json: Array(s.utf8)) }

    func testParsesEveryKindAndKeepsOrder() throws {
        let v = try parse(#" { "b" : 1 , "a" : [true, false, null, -0.5, 1e3, "x"], "c": {"z": -12} } "#)
        let o = try XCTUnwrap(v.jsonObject)
        XCTAssertEqual(o.keys, ["b", "a", "c"])
        XCTAssertEqual(o["b"], .int(1))
        XCTAssertEqual(o["a"], [true, false, nil, .double(-0.5), .double(1000), "x"])
        XCTAssertEqual(o["c"]?.jsonObject?.int("z"), -12)
    }

    func testIntegersStayIntegersAndBooleansStayBooleans() throws {
        XCTAssertEqual(try parse("1700000000"), .int(1_700_000_000))
        XCTAssertEqual(try parse("1"), .int(1))
        XCTAssertEqual(try parse("true"), .bool(true))
        XCTAssertEqual(try parse("1.0"), .double(1.0))
        XCTAssertNil(try parse("1.5").intValue)
        // Beyond Int64: kept as a double rather than failing.
        XCTAssertEqual(try parse("92233720368547758070"), .double(9.223372036854775807e19))
    }

    func testStringEscapes() throws {
        XCTAssertEqual(try parse(#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#), .string("a\"b\\c/d\n\té😀"))
    }

    func testSerialisationIsCompactOrderedAndDoesNotEscapeSlash() {
        let o: JOSEObject = ["iss": "a/b", "iat": 5, "q": "\"\n\u{01}", "arr": [1, "x"], "n": nil, "t": true]
        XCTAssertEqual(o.compactJSON, #"{"iss":"a/b","iat":5,"q":"\"\n\u0001","arr":[1,"x"],"n":null,"t":true}"#)
    }

    func testRoundTrip() throws {
        let o: JOSEObject = ["k": "é ünïcode", "nested": ["a": [1, 2, ["b": false]]], "d": 0.25]
        XCTAssertEqual(try parse(o.compactJSON), .object(o))
    }

    func testLiteralWithRepeatedNameKeepsFirstPositionLastValue() {
        let dup = JOSEObject([("x", 1), ("y", 2), ("x", 3)])
        XCTAssertEqual(dup.keys, ["x", "y"])
        XCTAssertEqual(dup.int("x"), 3)
    }

    func testRejections() {
        let bad = [
            "", "{", "{\"a\":1,}", "[1,]", "{\"a\" 1}", "{'a':1}", "01", "1.", "-", "1e", "tru", "nul",
            "\"unterminated", "\"ctl\u{01}\"", "\"\\x\"", "\"\\ud800\"", "\"\\udc00\"", "{} x", "{\"a\":1,\"a\":2}",
        ]
        for text in bad {
            XCTAssertThrowsError(try parse(text), "accepted \(text.debugDescription)")
        }
        XCTAssertThrowsError(try JOSEValue.parse(json: [0x22, 0xFF, 0x22]), "invalid UTF-8")
    }

    func testDepthLimit() throws {
        let ok = String(repeating: "[", count: JSONParser.defaultMaxDepth) + String(repeating: "]", count: JSONParser.defaultMaxDepth)
        XCTAssertNoThrow(try parse(ok))
        let deep = String(repeating: "[", count: 100_000)
        XCTAssertThrowsError(try parse(deep)) { error in
            XCTAssertEqual((error as? JSONParseError)?.kind, .tooDeep(limit: JSONParser.defaultMaxDepth))
        }
    }
}
