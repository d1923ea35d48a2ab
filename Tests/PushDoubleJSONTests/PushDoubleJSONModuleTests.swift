import XCTest
@testable import PushDoubleJSON
final class PushDoubleJSONModuleTests: XCTestCase {
    func testModuleLinks() { XCTAssertNotNil(PushDoubleJSON.self as Any.Type?) }
}
