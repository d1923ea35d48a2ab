import Foundation
import PushDouble
import PushDoubleCore
import PushDoubleTestSupport
import XCTest

/// The inbox page and the HTML conformance report in a real browser — Debian's
/// headless Chromium driven by Selenium (Tests/Browser/, docs/inbox.md "How the inbox is
/// tested"). The double runs in-process; one push per provider is sent first with the
/// interop clients (Tests/Browser/send_pushes.py: httpx HTTP/2 + PyJWT for APNs, google-auth for
/// FCM, an Expo POST, pywebpush to a subscription made through the admin API), then
/// Tests/Browser/inbox_test.py checks the page against them. Screenshots go to
/// `$PUSHDOUBLE_TEST_OUTPUT/browser` or `.build/browser-output/`.
/// Needs chromium, chromedriver, python3 and selenium (installed by `bash Tests/run.sh`).
final class InboxBrowserTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "chromium", "chromedriver", "python3 (selenium)", "curl") }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let scripts = packageRoot.appendingPathComponent("Tests/Browser")

    /// Where the screenshots go: next to the test output.
    static var outputDirectory: URL {
        if let dir = ProcessInfo.processInfo.environment["PUSHDOUBLE_TEST_OUTPUT"], !dir.isEmpty {
            return URL(fileURLWithPath: dir).appendingPathComponent("browser")
        }
        return packageRoot.appendingPathComponent(".build/browser-output")
    }

    /// The timeline lists each provider's pushes, filters narrow it, the device inboxes render
    /// title and body, the APNs detail shows the decoded JWT, a device-state change through the
    /// UI makes the next push 410, the fault form adds a rule, the exported scenario replays in
    /// a fresh `pushdouble replay`; each platform's notification preview (iOS alert and silent,
    /// Live Activity, Android, browser), a device's story of a retried notification, Copy as curl
    /// whose command, run with curl, sends the recorded request again, an Expo receipt on its
    /// device; keyboard and narrow-window checks; a device subscribed to an APNs broadcast channel
    /// shows the broadcast its Live Activity got; a second double past its history cap shows the
    /// dropped-entries banner.
    func testInboxPageInHeadlessChromium() throws {
        try requireBrowser()
        try requireTool("curl")  // the copy-curl checks run the copied command
        let pushdouble = try built("pushdouble")
        let out = try outputDirectory("inbox")
        let (server, kit) = try startDouble()
        guard let admin = server.endpoint(named: "admin")?.url else { return XCTFail("no admin listener") }
        // A second double whose history cap the script's pushes pass: dropped-banner.
        let (capped, cappedKit) = try startDouble(historyCap: 3)
        let cappedFile = out.appendingPathComponent("capped-endpoints.json")
        try cappedKit.endpointsDocument(endpoints: capped.endpoints).write(to: cappedFile)

        let manifest = out.appendingPathComponent("sent.json").path
        let sent = try python("send_pushes.py", ["--manifest", manifest], environment: kit.environment, timeout: 60)
        XCTAssertEqual(sent.status, 0, "send_pushes.py:\n\(sent.stdout)\n\(sent.stderr)")
        guard sent.status == 0 else { return }
        let providers = Set(server.history.all.filter { $0.deviceID != nil }.map(\.provider.rawValue))
        XCTAssertEqual(providers, ["apns", "fcm", "expo", "webpush"], "the double recorded a device push of each provider")

        let r = try python("inbox_test.py", ["--admin", admin, "--manifest", manifest, "--out", out.path,
                                             "--pushdouble", pushdouble, "--capped", cappedFile.path],
                           environment: kit.environment, timeout: 300)
        print(r.stdout)
        XCTAssertEqual(r.status, 0, "inbox_test.py failed:\n\(r.stdout)\n\(r.stderr.suffix(4000))")
        XCTAssertTrue(r.stdout.contains("inbox_test: all "), r.stdout)
    }

    /// `pushdouble conform --html FILE` with the reference sender on cases that retry (APNs 429
    /// with Retry-After, FCM Retry-After as an HTTP date) and the happy path, then
    /// Tests/Browser/report_test.py: the summary, each case with its verdicts, a retry timeline
    /// with the retry and its Retry-After window, no early mark.
    func testHTMLReportInHeadlessChromium() throws {
        try htmlReport(sender: built("pushdouble-reference-sender"), cases: "apns.happy-path,apns.too-many-requests,fcm.retry-after-date",
                       expectedExit: 0, directory: "report", extra: [])
    }

    /// The same for the `ignore-retry-after` mutant (retries at once): its case fails and the
    /// retry is marked early on the report's timeline — visible at a glance.
    func testHTMLReportMarksAnEarlyRetryInHeadlessChromium() throws {
        try htmlReport(sender: built("pushdouble-reference-sender") + " --mutant ignore-retry-after",
                       cases: "apns.too-many-requests", expectedExit: 1, directory: "report-mutant", extra: ["--early"])
    }

    func htmlReport(sender: String, cases: String, expectedExit: Int32, directory: String, extra: [String],
                    file: StaticString = #filePath, line: UInt = #line) throws {
        try requireBrowser()
        let pushdouble = try built("pushdouble")
        let out = try outputDirectory(directory)
        let report = out.appendingPathComponent("conformance-report.html").path
        let conform = try runCommand([pushdouble, "conform", "--sender", sender, "--scenarios", shippedScenarioDirectory,
                                      "--only", cases, "--html", report], timeout: 180)
        XCTAssertEqual(conform.status, expectedExit, "conform --html:\n\(conform.stdout)\n\(conform.stderr)", file: file, line: line)
        guard FileManager.default.fileExists(atPath: report) else {
            return XCTFail("conform wrote no \(report)", file: file, line: line)
        }
        let r = try python("report_test.py", ["--report", report, "--out", out.path, "--retry-case", "apns.too-many-requests"] + extra,
                           environment: [], timeout: 120)
        print(r.stdout)
        XCTAssertEqual(r.status, 0, "report_test.py failed:\n\(r.stdout)\n\(r.stderr.suffix(4000))", file: file, line: line)
        XCTAssertTrue(r.stdout.contains("report_test: all "), r.stdout, file: file, line: line)
    }

    // MARK: - helpers

    /// chromium, chromedriver, python3 and the selenium module, each reported by name when missing.
    func requireBrowser() throws {
        for tool in ["python3", "chromium", "chromedriver"] { try requireTool(tool) }
        let check = try runCommand(["python3", "-c", "import selenium"])
        if check.status != 0 { throw MissingTool(name: "selenium") }
    }

    /// An in-process double on ephemeral ports and its sender kit, both gone at teardown.
    func startDouble(historyCap: Int? = nil) throws -> (PushDoubleServer, SenderKit) {
        var configuration = PushDoubleConfiguration.ephemeral()
        if let cap = historyCap { configuration.historyCap = cap }
        // The shipped scenarios, as `serve` lists them by default (the `library` check).
        configuration.scenarioLibrary = [Self.packageRoot.appendingPathComponent("Scenarios").path]
        let server = PushDoubleServer(configuration: configuration)
        try server.start()
        addTeardownBlock { server.stop() }
        let kit = try server.senderKit()
        addTeardownBlock { kit.remove() }
        return (server, kit)
    }

    func built(_ name: String) throws -> String {
        let url = builtProduct(named: name)
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw NotBuilt(path: url.path)
        }
        return url.path
    }

    /// A fresh (emptied) directory for one test's screenshots: no stale FAIL-*.png from an earlier run.
    func outputDirectory(_ name: String) throws -> URL {
        let dir = Self.outputDirectory.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        print("browser screenshots: \(dir.path)")
        return dir
    }

    /// Runs Tests/Browser/<script> with the double's sender environment added (through env(1)).
    func python(_ script: String, _ arguments: [String], environment: [(String, String)], timeout: Double) throws -> ProcessResult {
        let assignments = environment.map { "\($0.0)=\($0.1)" }
        return try runCommand(["env"] + assignments + ["python3", Self.scripts.appendingPathComponent(script).path] + arguments,
                              timeout: timeout)
    }
}

/// An executable product the test runs is not built: a failure naming the fix.
struct NotBuilt: Error, CustomStringConvertible {
    let path: String
    var description: String { "\(path) is not built (run swift build)" }
}
