import XCTest
final class PlaceholderHPACKTests: XCTestCase { func testBuilds() { XCTAssertTrue(true) } }
