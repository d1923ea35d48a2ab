import XCTest
@testable import PushDoubleJSON

/// ``JSONWriter/compactLength(_:)`` is the byte count of the compact text, for every kind of
/// value, every escaped byte and non-ASCII text.
final class JSONCompactLengthTests: XCTestCase {
    func testLengthIsTheCompactTextsByteCount() {
        var rng = SystemRandomNumberGenerator()
        let strings = ["", "a", "\"", "\\", "\u{8}\u{C}\n\r\t", "\u{0}\u{1}\u{1F}", "é", "😀", "a\"b\\c\u{7F}", "/"]
        func value(_ depth: Int) -> JSONValue {
            switch Int.random(in: 0..<(depth > 2 ? 6 : 8), using: &rng) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &rng))
            case 2: return .int([0, 9, 10, -1, -10, Int64.max, Int64.min, 12345].randomElement(using: &rng)!)
            case 3: return .double([0.1, 1e-05, 100.0, -2.5, .infinity, .nan, 1e300].randomElement(using: &rng)!)
            case 4, 5: return .string((0..<Int.random(in: 0...3, using: &rng)).map { _ in strings.randomElement(using: &rng)! }.joined())
            case 6: return .array((0..<Int.random(in: 0...3, using: &rng)).map { _ in value(depth + 1) })
            default: return .object((0..<Int.random(in: 0...3, using: &rng)).map { _ in (strings.randomElement(using: &rng)!, value(depth + 1)) })
            }
        }
        for _ in 0..<3000 {
            let v = value(0)
            XCTAssertEqual(JSONWriter.compactLength(v), v.compactJSONBytes.count, v.compactJSON)
        }
    }
}
