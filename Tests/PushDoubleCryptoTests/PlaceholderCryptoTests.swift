import XCTest
final class PlaceholderCryptoTests: XCTestCase { func testBuilds() { XCTAssertTrue(true) } }
