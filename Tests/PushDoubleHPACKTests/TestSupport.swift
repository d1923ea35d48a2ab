import XCTest
@testable import PushDoubleHPACK

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
