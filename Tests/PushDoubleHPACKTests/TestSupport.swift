import XCTest
@testable import PushDoubleHPACK

/// Bytes from RFC-style hex dumps ("8286 8441 …"); whitespace is ignored.
func hex(_ s: String) -> [UInt8] {
    let digits = s.unicodeScalars.filter { !$0.properties.isWhitespace }.map { Character($0) }
    precondition(digits.count % 2 == 0, "odd hex string")
    var out: [UInt8] = []
    var i = 0
    while i < digits.count {
        out.append(UInt8(String(digits[i...i + 1]), radix: 16)!)
        i += 2
    }
    return out
}

func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

/// Deterministic PRNG (SplitMix64) so random tests replay exactly.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Asserts that `body` throws exactly `expected`.
func assertHPACKError<T>(_ expected: HPACKError, file: StaticString = #filePath, line: UInt = #line,
                         _ body: () throws(HPACKError) -> T) {
    do {
        let value = try body()
        XCTFail("expected \(expected), got \(value)", file: file, line: line)
    } catch {
        XCTAssertEqual(error, expected, file: file, line: line)
    }
}

/// Header list shorthand.
func fields(_ pairs: [(String, String)]) -> [HeaderField] {
    pairs.map { HeaderField(name: $0.0, value: $0.1) }
}
