import XCTest
@testable import PushDoubleConformance
import PushDoubleCore

/// The whole pipeline with real fakes (TLS + HTTP/2 on loopback) and real senders.
final class EndToEndTests: XCTestCase {
    static let httpxAdapter = makeScript("httpx_adapter.py", httpxAdapterPython)

    func runCLI(_ args: [String]) -> (Int32, String, String) {
        var o = "", e = ""
        let code = ConformCommand.run(args, host: ServerFakeHost(), output: { o += $0 }, errors: { e += $0 })
        return (code, o, e)
    }

    /// An independent sender (httpx + PyJWT, sequential, one device at a time) passes the shipped suite.
    func testHttpxAdapterPassesShippedSuite() throws {
        let json = NSTemporaryDirectory() + "pd-e2e-\(getpid()).json"
        let start = Date()
        let (code, out, err) = runCLI(["--sender", "python3 \(Self.httpxAdapter)", "--scenarios", shippedScenarioDirectory,
                                       "--timeout", "30", "--json", json])
        print(out, err)
        XCTAssertEqual(code, 0, out + err)
        XCTAssertTrue(out.contains(" 0 failed, 0 warned"), out)
        XCTAssertLessThan(Date().timeIntervalSince(start), 60)
    }
}
