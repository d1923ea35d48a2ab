import Foundation
import XCTest
@testable import PushDoubleJSON

/// Seeded random-input fuzzing and a differential check against Foundation's JSONSerialization.
final class JSONFuzzTests: XCTestCase {
    /// 60k random byte strings (biased toward JSON punctuation): only typed errors or values,
    /// never a crash or hang, and every accepted text round-trips through the writer.
    func testRandomBytesGiveValuesOrTypedErrors() {
        var rng = SeededGenerator(seed: 0x5EED_0001)
        let alphabet = Array(#"{}[],:"\/ -+.eE0123456789truefalsnul\u00ABCDEF"#.utf8) + [0x0A, 0x09, 0xC3, 0xA9, 0xFF, 0x00, 0xED]
        var accepted = 0
        for n in 0..<60_000 {
            let len = Int(rng.next() % 48)
            var bytes = [UInt8]()
            bytes.reserveCapacity(len)
            for _ in 0..<len {
                let r = rng.next()
                bytes.append(r % 4 == 0 ? UInt8(truncatingIfNeeded: r >> 8) : alphabet[Int((r >> 8) % UInt64(alphabet.count))])
            }
            if n % 3 == 0, let seed = Self.seeds.randomElement(using: &rng) {
                // Mutate a valid document: flip, drop or insert one byte.
                bytes = Array(seed.utf8)
                let at = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 3 {
                case 0: bytes[at] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet[Int(rng.next() % UInt64(alphabet.count))], at: at)
                }
            }
            do {
                let v = try JSONValue.parse(bytes)
                accepted += 1
                XCTAssertEqual(try? JSONValue.parse(v.compactJSONBytes), v, "\(bytes)")
            } catch {
                XCTAssert(error.offset >= 0 && error.offset <= bytes.count, "\(error) for \(bytes)")
            }
        }
        XCTAssertGreaterThan(accepted, 1_000, "the mix should produce some valid documents too")
    }

    static let seeds = [
        #"{"aps":{"alert":{"title":"T","body":"B"},"badge":3,"sound":"default"},"k":[1,2.5,-3e2,true,null]}"#,
        #"["\u00e9\ud83d\ude00",{"":{}},[[]],"a\"b"]"#, "[0,-0,1.0e+2,123456789012345678901234567890]",
    ]

    /// Valid documents: accepted by both parsers, with the same content.
    func testDifferentialAgainstJSONSerialization() throws {
        var corpus = [
            "{}", "[]", "0", "-0", "1.5", "\"x\"", "true", "false", "null", #"{"a":[1,2,{"b":null}]}"#,
            #"["\u0000\u001f\"\\\/\b\f\n\r\t"]"#, #"["\ud834\udd1e","é","\u20AC"]"#, "[1e2,1E-2,-1.25e+3,0.000001]",
            #"{"Image":{"Width":800,"IDs":[116,943,234,38793],"Animated":false}}"#, " \t\r\n[ 1 , 2 ] \n",
            "[-9223372036854775808,9223372036854775807]", "[1.7976931348623157e308,5e-324]",
        ] + Self.seeds
        // Generated documents.
        var rng = SeededGenerator(seed: 0xD1FF)
        for _ in 0..<3_000 { corpus.append(Self.randomValue(&rng, depth: 0).compactJSON) }
        for text in corpus {
            let bytes = Array(text.utf8)
            let ours = try JSONValue.parse(bytes)
            let theirs = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            XCTAssertTrue(Self.same(ours, theirs), "differs on \(text)")
        }
    }

    /// Invalid documents both refuse. JSONSerialization on Linux is laxer in places (it
    /// accepts trailing commas such as `[1,]`, which we refuse), so the list is the
    /// clear-cut n_ cases both refuse.
    func testBothRefuseClearlyInvalid() {
        for text in ["[01]", "[1.]", "[.1]", "['a']", "{a:1}", "[\"\\x\"]", "[\"a\u{01}\"]", "[1 2]", "[", "]", "[NaN]", "{\"a\"}"] {
            XCTAssertThrowsError(try JSONValue.parse(text), text)
            XCTAssertThrowsError(try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]), text)
        }
    }

    static func randomValue(_ rng: inout SeededGenerator, depth: Int) -> JSONValue {
        let pick = depth > 4 ? rng.next() % 5 : rng.next() % 7
        switch pick {
        case 0: return .null
        case 1: return .bool(rng.next() % 2 == 0)
        case 2: return .int(Int64(bitPattern: rng.next()) >> Int64(rng.next() % 64))
        case 3:
            let d = Double(Int64(bitPattern: rng.next()) >> 20) / Double(1 << (rng.next() % 40))
            return .double(d)
        case 4:
            let pool: [Character] = ["a", "Z", "é", "😀", "\"", "\\", "/", "\n", "\u{01}", " ", "€"]
            return .string(String((0..<(rng.next() % 8)).map { _ in pool[Int(rng.next() % UInt64(pool.count))] }))
        case 5: return .array((0..<(rng.next() % 4)).map { _ in randomValue(&rng, depth: depth + 1) })
        default:
            // Unique keys: JSONSerialization keeps only one of a repeated key.
            return .object((0..<(rng.next() % 4)).map { i in ("k\(i)\(rng.next() % 3)", randomValue(&rng, depth: depth + 1)) })
        }
    }

    /// Content equality between our value and JSONSerialization's (key order ignored there).
    static func same(_ v: JSONValue, _ o: Any) -> Bool {
        switch v {
        case .null: return o is NSNull
        case .bool(let b): return (o as? Bool) == b
        case .int(let i): return (o as? NSNumber)?.int64Value == i
        case .double(let d):
            guard let n = o as? NSNumber else { return false }
            // swift-corelibs-foundation's number reader is not correctly rounded (off by a
            // few ULPs, e.g. 1675.9066892485134, -3577.2855035807006); ours uses Swift's correctly rounded
            // Double(String), checked exactly in JSONWriterTests.testNumbers.
            return abs(n.doubleValue - d) <= abs(d) * 1e-14
        case .string(let s): return (o as? String) == s
        case .array(let a):
            guard let arr = o as? [Any], arr.count == a.count else { return false }
            return zip(a, arr).allSatisfy { same($0, $1) }
        case .object(let m):
            guard let dict = o as? [String: Any], dict.count == m.count else { return false }
            return m.allSatisfy { k, v in dict[k].map { same(v, $0) } ?? false }
        }
    }
}
