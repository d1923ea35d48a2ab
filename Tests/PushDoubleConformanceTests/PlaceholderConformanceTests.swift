import XCTest
final class PlaceholderConformanceTests: XCTestCase { func testBuilds() { XCTAssertTrue(true) } }
