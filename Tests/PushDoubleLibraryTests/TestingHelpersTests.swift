import Foundation
import XCTest
import PushDoubleTesting

/// The testing helpers: a fresh, running double per scope or per test, stopped at its end.
final class TestingHelpersTests: XCTestCase {
    struct Planned: Error {}

    func testWithPushDoubleGivesAFreshDoubleAndStopsItOnReturnAndOnThrow() async throws {
        let first = try await withPushDouble(.ephemeral(tls: false)) { double -> PushDoubleServer in
            XCTAssertFalse(double.endpoints.isEmpty)
            _ = try double.devices.register(Device(id: "d", provider: .apns, token: String(repeating: "0", count: 64)))
            let kit = try double.senderKit()
            XCTAssertTrue(FileManager.default.fileExists(atPath: kit.directory.path))
            return double
        }
        XCTAssertTrue(first.endpoints.isEmpty, "stopped at the end of the scope")
        XCTAssertThrowsError(try first.senderKit())
        var thrown: PushDoubleServer?
        do {
            try await withPushDouble { double in
                XCTAssertTrue(double.endpoint(named: "apns-sandbox")?.url.hasPrefix("https://") ?? false, "TLS by default")
                XCTAssertTrue(double.devices.list().isEmpty, "nothing carried over from another double")
                thrown = double
                throw Planned()
            }
            XCTFail("the error did not come through")
        } catch is Planned {}
        XCTAssertEqual(thrown?.endpoints.isEmpty, true, "stopped when the scope threw")
    }

    /// Doubles started by ``XCTestCase/startPushDouble(_:)``; the teardown check below reads them.
    private var started: [PushDoubleServer] = []

    override func tearDown() {
        // Teardown blocks run before tearDown: every double of the test is stopped by now.
        for d in started { XCTAssertTrue(d.endpoints.isEmpty, "startPushDouble's double still running after the test") }
        started = []
        super.tearDown()
    }

    func testStartPushDoubleGivesEachCallItsOwnRunningDouble() throws {
        let a = try startPushDouble(.ephemeral(tls: false)), b = try startPushDouble()
        started = [a, b]
        XCTAssertFalse(a === b)
        XCTAssertNotEqual(a.endpoint(named: "admin")?.port, b.endpoint(named: "admin")?.port)
        XCTAssertTrue(a.endpoint(named: "fcm")?.url.hasPrefix("http://") ?? false)
        XCTAssertTrue(b.endpoint(named: "fcm")?.url.hasPrefix("https://") ?? false)
    }
}
