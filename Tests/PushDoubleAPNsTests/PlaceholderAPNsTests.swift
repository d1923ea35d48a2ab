import XCTest
final class PlaceholderAPNsTests: XCTestCase { func testBuilds() { XCTAssertTrue(true) } }
