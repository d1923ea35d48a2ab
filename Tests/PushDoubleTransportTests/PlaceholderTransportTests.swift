import XCTest
final class PlaceholderTransportTests: XCTestCase { func testBuilds() { XCTAssertTrue(true) } }
