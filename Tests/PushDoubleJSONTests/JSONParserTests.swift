import XCTest
import Foundation
@testable import PushDoubleJSON

/// RFC 8259 grammar, JSONTestSuite-style accept/refuse cases, numbers, strings, depth.
final class JSONParserTests: XCTestCase {
    func parse(_ s: String) throws -> JSONValue { try JSONValue.parse(s) }
    func error(_ s: String) -> JSONParseError? {
        do { _ = try JSONValue.parse(s); return nil } catch { return error }
    }

    func testRFC8259Examples() throws {
        // RFC 8259 §13, first example (abridged whitespace kept).
        let image = """
            {
              "Image": {
                  "Width":  800,
                  "Height": 600,
                  "Title":  "View from 15th Floor",
                  "Thumbnail": {
                      "Url":    "http://www.example.com/image/481989943",
                      "Height": 125,
                      "Width":  100
                  },
                  "Animated" : false,
                  "IDs": [116, 943, 234, 38793]
                }
            }
            """
        let v = try parse(image)
        XCTAssertEqual(v["Image"]?.objectValue?.map(\.0), ["Width", "Height", "Title", "Thumbnail", "Animated", "IDs"])
        XCTAssertEqual(v["Image"]?["Thumbnail"]?["Url"], .string("http://www.example.com/image/481989943"))
        XCTAssertEqual(v["Image"]?["IDs"], [116, 943, 234, 38793])
        XCTAssertEqual(v["Image"]?["Animated"], .bool(false))
        // §13, second example.
        let places = try parse("""
            [{"precision": "zip", "Latitude":  37.7668, "Longitude": -122.3959, "Address": "",
              "City": "SAN FRANCISCO", "State": "CA", "Zip": "94107", "Country": "US"},
             {"precision": "zip", "Latitude": 37.371991, "Longitude": -122.026020, "Address": "",
              "City": "SUNNYVALE", "State": "CA", "Zip": "94085", "Country": "US"}]
            """)
        XCTAssertEqual(places.arrayValue?.count, 2)
        XCTAssertEqual(places.arrayValue?[1]["Longitude"], .double(-122.026020))
        // §13: small texts containing only values.
        XCTAssertEqual(try parse(#""Hello world!""#), "Hello world!")
        XCTAssertEqual(try parse("42"), .int(42))
        XCTAssertEqual(try parse("true"), .bool(true))
        XCTAssertEqual(try parse("null"), .null)
    }

    func testAccepts() throws {
        let ok: [String] = [
            "[]", "{}", " [ ] ", "\t\r\n{}\n", "[[]]", "[{}]", "[null,true,false]", "[-0]", "[0e1]", "[0E+1]", "[1E-2]",
            "[-1.5e+300]", "[1.0]", "[123e65]", "[\"\"]", #"["\u0000"]"#, #"["\/"]"#, #"{"":0}"#, #"{"a":[],"b":{}}"#,
            #"["\uD834\uDD1E"]"#, #"["\u00e9\u20AC"]"#, "[\"\u{7F}\"]", "[\"\u{10FFFF}\"]", "[1e-999]",
            #"{"a":1,"a":2}"#, "[-9223372036854775808]", "[9223372036854775807]",
        ]
        for s in ok { XCTAssertNoThrow(try parse(s), s) }
    }

    func testRefusesWithTypedErrors() {
        let cases: [(String, JSONParseError.Kind)] = [
            ("", .unexpectedEnd), (" ", .unexpectedEnd), ("[", .unexpectedEnd), ("{", .unexpectedEnd),
            ("[1,]", .unexpectedByte(UInt8(ascii: "]"))), (#"{"a":1,}"#, .unexpectedByte(UInt8(ascii: "}"))),
            ("[,1]", .unexpectedByte(UInt8(ascii: ","))), ("[1 2]", .unexpectedByte(UInt8(ascii: "2"))),
            (#"{"a" 1}"#, .unexpectedByte(UInt8(ascii: "1"))), ("{'a':1}", .unexpectedByte(UInt8(ascii: "'"))),
            (#"{a:1}"#, .unexpectedByte(UInt8(ascii: "a"))), ("[01]", .invalidNumber), ("[-01]", .invalidNumber),
            ("[1.]", .invalidNumber), ("[.5]", .unexpectedByte(UInt8(ascii: "."))), ("[-]", .invalidNumber),
            ("[1e]", .invalidNumber), ("[1e+]", .invalidNumber), ("[+1]", .unexpectedByte(UInt8(ascii: "+"))),
            ("[0x10]", .unexpectedByte(UInt8(ascii: "x"))), ("[NaN]", .unexpectedByte(UInt8(ascii: "N"))),
            ("[Infinity]", .unexpectedByte(UInt8(ascii: "I"))), ("[1e999]", .numberOutOfRange),
            ("[-1e999]", .numberOutOfRange), ("[tru]", .unexpectedByte(UInt8(ascii: "]"))), ("nul", .unexpectedEnd),
            ("[True]", .unexpectedByte(UInt8(ascii: "T"))), (#"["\x"]"#, .invalidEscape), (#"["\u12G4"]"#, .invalidEscape),
            (#"["\uD800"]"#, .loneSurrogate), (#"["\uDC00"]"#, .loneSurrogate), (#"["\uD800\u0041"]"#, .loneSurrogate),
            (#"["\uD800\n"]"#, .loneSurrogate), ("[\"a\u{01}\"]", .controlCharacter), ("[\"\t\"]", .controlCharacter),
            ("[\"\n\"]", .controlCharacter), ("\"abc", .unexpectedEnd), (#""\"#, .unexpectedEnd), (#""\u12"#, .unexpectedEnd),
            ("{} x", .trailingData), ("[] []", .trailingData), ("1 2", .trailingData), ("[]\u{0}", .trailingData),
            ("/* c */ []", .unexpectedByte(UInt8(ascii: "/"))), ("[1]//", .trailingData), ("\u{FEFF}[]", .unexpectedByte(0xEF)),
            ("[\u{A0}1]", .unexpectedByte(0xC2)), ("{\"a\":1 \"b\":2}", .unexpectedByte(UInt8(ascii: "\""))),
        ]
        for (text, kind) in cases {
            XCTAssertEqual(error(text)?.kind, kind, text.debugDescription)
        }
    }

    func testErrorCarriesOffsetAndExpectation() throws {
        let e = try XCTUnwrap(error(#"{"a":1,"b" 2}"#))
        XCTAssertEqual(e.offset, 11)
        XCTAssertEqual(e.kind, .unexpectedByte(UInt8(ascii: "2")))
        XCTAssertEqual(e.expected, "':'")
        XCTAssertEqual(e.description, "unexpected '2', expected ':' at byte 11")
        XCTAssertEqual(error("[1,2,]")?.offset, 5)
        XCTAssertEqual(error("  [01]")?.offset, 4)
    }

    func testInvalidUTF8IsRefused() {
        let bad: [[UInt8]] = [
            [0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xC0, 0xAF, 0x22] /* overlong '/' */,
            [0x22, 0xED, 0xA0, 0x80, 0x22] /* encoded surrogate */, [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22] /* > U+10FFFF */,
            [0x22, 0x5C, 0x6E, 0xFE, 0x22] /* after an escape */, [0x22, 0x61, 0x80, 0x22],
        ]
        for b in bad {
            do { _ = try JSONValue.parse(b); XCTFail("accepted \(b)") } catch {
                XCTAssertEqual(error.kind, .invalidUTF8, "\(b)")
            }
        }
        do { _ = try JSONValue.parse([0x22, 0x61, 0x62, 0xFF, 0x22]) } catch { XCTAssertEqual(error.offset, 3) }
    }

    func testIntegerDoubleDistinction() throws {
        XCTAssertEqual(try parse("1"), .int(1))
        XCTAssertEqual(try parse("-1"), .int(-1))
        XCTAssertEqual(try parse("-0"), .int(0))
        XCTAssertEqual(try parse("1.0"), .double(1.0))
        XCTAssertEqual(try parse("1e2"), .double(100))
        XCTAssertEqual(try parse("1E2"), .double(100))
        XCTAssertEqual(try parse("0.1"), .double(0.1))
        XCTAssertEqual(try parse("9223372036854775807"), .int(.max))
        XCTAssertEqual(try parse("-9223372036854775808"), .int(.min))
        XCTAssertEqual(try parse("9223372036854775808"), .double(9223372036854775808.0))
        XCTAssertEqual(try parse("-9223372036854775809"), .double(-9223372036854775809.0))
        XCTAssertEqual(try parse("99999999999999999999"), .double(1e20))
        XCTAssertEqual(try parse("1e-999"), .double(0))
        XCTAssertEqual(try parse("1.7976931348623157e308"), .double(.greatestFiniteMagnitude))
        XCTAssertEqual(try parse("1.0").intValue, 1)
        XCTAssertNil(try parse("1.5").intValue)
        XCTAssertEqual(try parse("7").doubleValue, 7)
    }

    func testStrings() throws {
        XCTAssertEqual(try parse(#""a\"b\\c\/d\b\f\n\r\t""#), .string("a\"b\\c/d\u{08}\u{0C}\n\r\t"))
        XCTAssertEqual(try parse(#""\u00e9\u00C9\u20ac""#), .string("éÉ€"))
        XCTAssertEqual(try parse(#""\ud83d\ude00 \uD834\uDD1E""#), .string("😀 𝄞"))
        XCTAssertEqual(try parse(#""\u0000""#), .string("\u{0}"))
        XCTAssertEqual(try parse("\"h\u{e9}llo \u{1F600}\""), .string("héllo 😀"))
        XCTAssertEqual(try parse(#""\uFFFF""#), .string("\u{FFFF}"))
        XCTAssertEqual(try parse("\"\u{7F}\""), .string("\u{7F}"))
    }

    /// The string scan reads eight bytes at a time: a special byte (quote, backslash,
    /// control character, non-ASCII, invalid UTF-8) at every position of a long string,
    /// and strings ending at every length, give the same answer and offset as byte by byte.
    func testStringScanFindsEveryByteAtEveryPosition() throws {
        for n in 0..<40 {
            let text = String(repeating: "a", count: n)
            XCTAssertEqual(try parse("\"\(text)\""), .string(text), "length \(n)")
            XCTAssertEqual(error("\"\(text)")?.kind, .unexpectedEnd, "unterminated, length \(n)")
        }
        for at in 0..<24 {
            let before = [UInt8](repeating: 0x61, count: at), after = [UInt8](repeating: 0x62, count: 20)
            func body(_ middle: [UInt8]) -> [UInt8] { [0x22] + before + middle + after + [0x22] }
            XCTAssertEqual(try JSONValue.parse(body([0x5C, 0x6E])), .string(String(repeating: "a", count: at) + "\n" + String(repeating: "b", count: 20)), "escape at \(at)")
            XCTAssertEqual(try JSONValue.parse(body([0xC3, 0xA9])), .string(String(repeating: "a", count: at) + "é" + String(repeating: "b", count: 20)), "é at \(at)")
            XCTAssertEqual(try JSONValue.parse(body([0x7F])), .string(String(repeating: "a", count: at) + "\u{7F}" + String(repeating: "b", count: 20)), "DEL at \(at)")
            for control: UInt8 in [0x00, 0x0A, 0x1F] {
                do { _ = try JSONValue.parse(body([control])); XCTFail("control \(control) at \(at) accepted") } catch {
                    XCTAssertEqual(error.kind, .controlCharacter); XCTAssertEqual(error.offset, 1 + at)
                }
            }
            do { _ = try JSONValue.parse(body([0xFF])); XCTFail("0xFF at \(at) accepted") } catch {
                XCTAssertEqual(error.kind, .invalidUTF8); XCTAssertEqual(error.offset, 1 + at)
            }
            // A quote ends the string early: what follows is trailing data.
            do { _ = try JSONValue.parse(body([0x22])); XCTFail("inner quote at \(at) accepted") } catch {
                XCTAssertEqual(error.kind, .trailingData); XCTAssertEqual(error.offset, 2 + at)
            }
        }
    }

    func testKeyOrderAndDuplicatesKept() throws {
        let v = try parse(#"{"z":1,"a":2,"m":{"y":true,"b":null},"a":3}"#)
        XCTAssertEqual(v.objectValue?.map(\.0), ["z", "a", "m", "a"])
        XCTAssertEqual(v["a"], .int(2), "subscript returns the first match")
        XCTAssertEqual(v["m"]?.objectValue?.map(\.0), ["y", "b"])
        XCTAssertEqual(v.objectValue?["z"], .int(1))
        XCTAssertEqual(v.jsonObject?.keys, ["z", "a", "m"])
        XCTAssertEqual(v.jsonObject?["a"], .int(3), "JSONObject: first position, last value")
        XCTAssertThrowsError(try JSONValue.parse(Array(#"{"a":1,"b":{"c":1,"c":2}}"#.utf8), rejectDuplicateKeys: true)) { e in
            XCTAssertEqual((e as? JSONParseError)?.kind, .duplicateKey("c"))
            XCTAssertEqual((e as? JSONParseError)?.offset, 18)
        }
        // Large objects switch to a set for duplicate detection; still exact.
        let many = "{" + (0..<100).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        XCTAssertNoThrow(try JSONValue.parse(Array((many + "}").utf8), rejectDuplicateKeys: true))
        XCTAssertThrowsError(try JSONValue.parse(Array((many + ",\"k7\":0}").utf8), rejectDuplicateKeys: true))
    }

    func testDepthLimit() throws {
        let limit = JSONParser.defaultMaxDepth
        XCTAssertEqual(limit, 64)
        let ok = String(repeating: "[", count: limit) + "1" + String(repeating: "]", count: limit)
        XCTAssertNoThrow(try parse(ok))
        let okObj = String(repeating: "{\"a\":", count: limit) + "1" + String(repeating: "}", count: limit)
        XCTAssertNoThrow(try parse(okObj))
        let over = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        XCTAssertEqual(error(over)?.kind, .tooDeep(limit: limit))
        XCTAssertEqual(error(over)?.offset, limit)
        // Hostile depth: a typed error, not a stack overflow.
        for n in [1_000, 100_000, 1_000_000] {
            XCTAssertEqual(error(String(repeating: "[", count: n))?.kind, .tooDeep(limit: limit))
            XCTAssertEqual(error(String(repeating: "{\"\":", count: n))?.kind, .tooDeep(limit: limit))
        }
        XCTAssertEqual(try JSONValue.parse(Array("[[[]]]".utf8), maxDepth: 3), [[[]]])
        XCTAssertThrowsError(try JSONValue.parse(Array("[[[[]]]]".utf8), maxDepth: 3))
    }

    func testNonContiguousInput() throws {
        let bytes = Array(#"{"a":[1,2.5]}"#.utf8)
        XCTAssertEqual(try JSONValue.parse(bytes[...]), ["a": [1, 2.5]])
        XCTAssertEqual(try JSONValue.parse(AnySequence(bytes).map { $0 }), ["a": [1, 2.5]])
        XCTAssertEqual(try JSONValue.parse(Data(bytes)), ["a": [1, 2.5]])
    }
}

/// ``JSONTape``: the same grammar as the tree (one parser), so the same answers; nodes,
/// members and strings read without making the tree.
final class JSONTapeTests: XCTestCase {
    func tape(_ s: String) throws -> JSONTape { try JSONTape.parse(Array(s.utf8)) }

    func testSameValueAsTheTreeForEveryNode() throws {
        let texts = [
            #"{"message":{"token":"abc","data":{"k":"v","n":"1"},"android":{"ttl":"3600s","priority":"high"}},"validate_only":false}"#,
            #"[1,-2,3.5,1e3,-0,12345678901234567890,true,false,null,"",[],{},[[{}]]]"#,
            #"{"a\u0062":"\u00e9\ud83d\ude00","dup":1,"dup":2,"esc":"tab\there \"q\" \\ \/","ü":"ünïcode"}"#,
            "  \"top\"\n", "0", "-9223372036854775808", "9223372036854775807", "9223372036854775808", "null",
        ]
        for text in texts {
            let t = try tape(text)
            XCTAssertEqual(t.value(t.root), try JSONValue.parse(text), text)
        }
    }

    func testSameErrorsAsTheTree() {
        for text in ["", "{", #"{"a":}"#, "[1,]", "01", #""\x""#, #""\ud800""#, "1 2", "\"\u{01}\"", #"{"a" 1}"#, "nul",
                     "[" + String(repeating: "[", count: 70) + String(repeating: "]", count: 71)] {
            var tree: JSONParseError?, flat: JSONParseError?
            do { _ = try JSONValue.parse(text) } catch { tree = error }
            do { _ = try JSONTape.parse(Array(text.utf8)) } catch { flat = error }
            XCTAssertNotNil(tree, text)
            XCTAssertEqual(tree, flat, text)
        }
    }

    func testWalksMembersAndSkipsNestedValues() throws {
        let t = try tape(#"{"a":{"x":[1,{"y":2}],"z":3},"b":"two","c":[true],"a":null}"#)
        let members = Array(t.members(t.root))
        XCTAssertEqual(members.map { t.string($0.key) }, ["a", "b", "c", "a"])
        XCTAssertEqual(t.kind(members[0].value), .object)
        XCTAssertEqual(t.count(members[0].value), 2)
        XCTAssertEqual(t.string(members[1].value), "two")
        XCTAssertEqual(t.elements(members[2].value).map { t.bool($0) }, [true])
        XCTAssertTrue(t.isNull(members[3].value))
        XCTAssertNil(t.string(members[0].value))
        XCTAssertEqual(Array(t.members(members[1].value)).count, 0, "a string has no members")
    }

    func testASCIIBytesOnlyForUndecodedStrings() throws {
        let t = try tape(#"["plain","esc\n","é"]"#)
        let e = t.elements(t.root)
        XCTAssertEqual(t.withASCIIBytes(e[0]) { String(decoding: $0, as: UTF8.self) }, "plain")
        XCTAssertNil(t.withASCIIBytes(e[1]) { _ in true })
        XCTAssertNil(t.withASCIIBytes(e[2]) { _ in true })
        XCTAssertEqual(t.string(e[1]), "esc\n")
        XCTAssertEqual(t.string(e[2]), "é")
    }
}
