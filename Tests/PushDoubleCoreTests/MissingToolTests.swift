import XCTest
import PushDoubleTestSupport

/// A test whose external tool is missing fails naming the tool and how to install it.
final class MissingToolTests: XCTestCase {
    func testAMissingToolIsNamedWithItsPackage() {
        XCTAssertThrowsError(try runCommand(["nghttpd-that-does-not-exist", "--version"])) { error in
            XCTAssertEqual("\(error)", "nghttpd-that-does-not-exist is not installed (run bash Tests/run.sh)")
        }
        XCTAssertEqual(MissingTool(name: "nghttpd").description,
                       "nghttpd is not installed (run bash Tests/run.sh, or apt-get install nghttp2-server)")
        XCTAssertNoThrow(try requireTool("sh"))
        XCTAssertThrowsError(try requireTool("/no/such/tool"))
    }
}
