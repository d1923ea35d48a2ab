import XCTest
import Foundation
@testable import PushDoubleJSON

/// Compact, sorted and pretty output; escaping; double formatting; round trips.
final class JSONWriterTests: XCTestCase {
    func testCompactKeepsOrderWithoutSpaces() {
        let v: JSONValue = ["z": 1, "a": [true, false, nil, -7, 2.5, "x"], "m": [:], "e": []]
        XCTAssertEqual(v.compactJSON, #"{"z":1,"a":[true,false,null,-7,2.5,"x"],"m":{},"e":[]}"#)
        XCTAssertEqual(v.compactJSONBytes, Array(v.compactJSON.utf8))
        let dup = JSONValue.object([("a", 1), ("b", 2), ("a", 3)])
        XCTAssertEqual(dup.compactJSON, #"{"a":1,"b":2,"a":3}"#)
    }

    func testEscapingIsMinimal() {
        XCTAssertEqual(JSONValue.string("a/b").compactJSON, #""a/b""#)
        XCTAssertEqual(JSONValue.string("\"\\").compactJSON, #""\"\\""#)
        XCTAssertEqual(JSONValue.string("\u{08}\u{0C}\n\r\t").compactJSON, #""\b\f\n\r\t""#)
        XCTAssertEqual(JSONValue.string("\u{0}\u{01}\u{1F}\u{7F}").compactJSON, "\"\\u0000\\u0001\\u001f\u{7F}\"")
        XCTAssertEqual(JSONValue.string("é😀\u{2028}").compactJSON, "\"é😀\u{2028}\"")
        XCTAssertEqual(JSONValue.object([("k\"ey", .string("v"))]).compactJSON, #"{"k\"ey":"v"}"#)
        var s = "x="
        JSONValue.writeString("Shut\"down\n", into: &s)
        XCTAssertEqual(s, #"x="Shut\"down\n""#)
    }

    func testNumbers() {
        let cases: [(JSONValue, String)] = [
            (.int(0), "0"), (.int(7), "7"), (.int(-12), "-12"), (.int(.max), "9223372036854775807"),
            (.int(.min), "-9223372036854775808"), (.double(2.5), "2.5"), (.double(100), "100.0"), (.double(-0.0), "-0.0"),
            (.double(0.1), "0.1"), (.double(1e-5), "1e-05"), (.double(1e20), "1e+20"), (.double(1.7976931348623157e308), "1.7976931348623157e+308"),
            (.double(.infinity), "null"), (.double(.nan), "null"),
        ]
        for (v, text) in cases { XCTAssertEqual(v.compactJSON, text) }
        // Every finite double written reads back as the same double.
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<2_000 {
            let d = Double(bitPattern: rng.next())
            guard d.isFinite else { continue }
            XCTAssertEqual(try JSONValue.parse(JSONValue.double(d).compactJSONBytes), .double(d), "\(d)")
        }
    }

    func testSortedKeys() {
        let v: JSONValue = ["b": 1, "a": ["z": 1, "y": 2], "B": 0, "é": 3, "a0": 4]
        XCTAssertEqual(String(decoding: v.serialized(.sortedKeys), as: UTF8.self),
                       #"{"B":0,"a":{"y":2,"z":1},"a0":4,"b":1,"é":3}"#)
        let dup = JSONValue.object([("b", 1), ("a", 2), ("b", 0)])
        XCTAssertEqual(String(decoding: dup.serialized(.sortedKeys), as: UTF8.self), #"{"a":2,"b":1,"b":0}"#)
    }

    func testPretty() {
        let v: JSONValue = ["error": ["code": 400, "message": "bad", "details": [["@type": "x"]], "empty": [], "o": [:]]]
        XCTAssertEqual(v.prettyJSON, """
            {
              "error": {
                "code": 400,
                "message": "bad",
                "details": [
                  {
                    "@type": "x"
                  }
                ],
                "empty": [],
                "o": {}
              }
            }
            """)
        XCTAssertEqual(JSONValue.int(1).prettyJSON, "1")
        XCTAssertEqual(String(decoding: (["b": 1, "a": 2] as JSONValue).serialized([.pretty, .sortedKeys]), as: UTF8.self),
                       "{\n  \"a\": 2,\n  \"b\": 1\n}")
    }

    func testRoundTrips() throws {
        let docs = [
            #"{"z":1,"a":[true,false,null,-7,2.5,"x",1.0,1e+20],"m":{"":{}},"e":[[]]}"#,
            #"["\"\\\/\b\f\n\r\t\u0001","é😀","a/b"]"#, "-0.0", "[0,-0,1.5e-7]", #"{"a":1,"a":2}"#,
        ]
        for d in docs {
            let v = try JSONValue.parse(d)
            XCTAssertEqual(try JSONValue.parse(v.compactJSONBytes), v, d)
            XCTAssertEqual(try JSONValue.parse(v.serialized(.pretty)), v, d)
            // Writing is a fixed point after one round.
            XCTAssertEqual(try JSONValue.parse(v.compactJSONBytes).compactJSON, v.compactJSON)
        }
        XCTAssertEqual(try JSONValue.parse(#"{"a":1.0,"b":1,"c":1e2}"#).compactJSON, #"{"a":1.0,"b":1,"c":100.0}"#)
    }

    func testCodable() throws {
        let v: JSONValue = ["s": "x", "i": 3, "d": 2.5, "b": true, "n": nil, "a": [1, "y"], "o": ["k": "v"]]
        let data = try JSONEncoder().encode(v)
        let back = try JSONDecoder().decode(JSONValue.self, from: data)
        // Codable has no key order: keys come back sorted; parse() keeps the document order.
        XCTAssertEqual(back.objectValue?.map(\.0), ["a", "b", "d", "i", "n", "o", "s"])
        XCTAssertEqual(back["i"], .int(3))
        XCTAssertEqual(back["d"], .double(2.5))
        XCTAssertEqual(back["b"], .bool(true))
        XCTAssertEqual(back["n"], .null)
        XCTAssertEqual(back["a"], [1, "y"])
        XCTAssertEqual(try JSONValue.parse(data)["o"], ["k": "v"])
    }

    func testJSONObject() {
        var o: JSONObject = ["a": 1, "b": 2]
        o["a"] = 3
        o["c"] = 4
        o["b"] = nil
        XCTAssertEqual(o.keys, ["a", "c"])
        XCTAssertEqual(o.int("a"), 3)
        XCTAssertEqual(o.keySet, ["a", "c"])
        XCTAssertEqual(o.compactJSON, #"{"a":3,"c":4}"#)
        XCTAssertEqual(JSONValue.object(o), ["a": 3, "c": 4])
        XCTAssertEqual(JSONObject([("x", 1), ("y", 2), ("x", 3)]).keys, ["x", "y"])
    }
}

/// Deterministic PRNG for the fuzz and round-trip loops (64-bit LCG, output mixed with a
/// xorshift so low bits are usable).
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state ^ (state >> 29)
    }
}
