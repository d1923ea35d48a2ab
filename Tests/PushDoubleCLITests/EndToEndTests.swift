import Foundation
import XCTest
import PushDoubleConformance
import PushDoubleTestSupport
@testable import pushdouble

/// `pushdouble conform` with real fakes (TLS + HTTP/2 on loopback) and real senders; the
/// runner-level end-to-end tests are PushDoubleConformanceTests' EndToEndTests.
final class EndToEndTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "the reference sender's process", "python3") }

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
        // How long the suite takes is a benchmark's question, not a test's (a loaded machine took
        // 100 s); each case is bounded by --timeout, so a hang still fails.
        print("httpx adapter through the shipped suite: \(String(format: "%.1f", Date().timeIntervalSince(start))) s")
    }
}

extension EndToEndTests {
    /// The short adapter printed in docs/conformance.md really works: it passes the cases
    /// that need no retries or rich mapping.
    func testDocsExampleAdapterWorks() throws {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent(); url.deleteLastPathComponent(); url.deleteLastPathComponent()
        let doc = try String(contentsOf: url.appendingPathComponent("docs/conformance.md"), encoding: .utf8)
        let section = try XCTUnwrap(doc.range(of: "## Writing an adapter"))
        let rest = doc[section.upperBound...]
        let open = try XCTUnwrap(rest.range(of: "```python\n"))
        let close = try XCTUnwrap(rest[open.upperBound...].range(of: "```"))
        let script = makeScript("docs_adapter.py", String(rest[open.upperBound..<close.lowerBound]))
        let (code, out, err) = runCLI(["--sender", "python3 \(script)", "--scenarios", shippedScenarioDirectory, "--timeout", "30",
                                       "--only", "apns.unregistered,apns.bad-device-token-environment,apns.device-token-not-for-topic,apns.jwt-reuse"])
        XCTAssertEqual(code, 0, out + err)
        XCTAssertTrue(out.hasSuffix("4 passed, 0 failed, 0 warned\n"), out + err)
    }
}

extension EndToEndTests {
    /// One sender process for several cases: every case is initialized afresh and still passes
    /// (shipped cases use distinct tokens, so a sender's memory of dead tokens cannot leak).
    func testReuseSenderAgainstRealFakes() {
        let (code, out, err) = runCLI(["--sender", "python3 \(Self.httpxAdapter)", "--scenarios", shippedScenarioDirectory, "--timeout", "30",
                                       "--reuse-sender", "--only", "apns.unregistered,apns.happy-path,apns.device-token-not-for-topic"])
        XCTAssertEqual(code, 0, out + err)
        XCTAssertTrue(out.hasSuffix("3 passed, 0 failed, 0 warned\n"), out + err)
    }
}
