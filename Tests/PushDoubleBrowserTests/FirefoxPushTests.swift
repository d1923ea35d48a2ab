import Foundation
import PushDoubleTestSupport
import XCTest

/// Web Push end to end in a real browser, offline: Debian's headless Firefox (firefox-esr) uses
/// the double's autopush listener as its push service, driven through Marionette by the example's
/// pytest suite (examples/webpush-browser: the page subscribes, pywebpush pushes, the service
/// worker decrypts and shows the exact text, non-ASCII included; a queued message arrives after
/// the reconnect; TTL 0 to an offline browser is dropped; an unsubscribed endpoint answers 410;
/// a 429 fault is seen by the sender and the retried message arrives once; the inbox, opened in the
/// same Firefox, shows the browser device with the delivery and its ack). One Firefox for the
/// whole suite (the session fixture `pushdouble_browser`).
/// Needs firefox-esr, python3 with pytest, marionette_driver and pywebpush (installed by `bash Tests/run.sh`).
final class FirefoxPushTests: XCTestCase {
    override func setUpWithError() throws {
        try requireInteropTier(needs: "firefox-esr", "python3 (pytest, marionette_driver, pywebpush)")
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    func testExampleSuiteInHeadlessFirefox() throws {
        try requireTool("python3")
        if (try? requireTool("firefox-esr")) == nil { try requireTool("firefox") }
        for module in ["pytest", "marionette_driver", "pywebpush"] {
            if try runCommand(["python3", "-c", "import \(module)"]).status != 0 { throw MissingTool(name: "python3 module \(module)") }
        }
        let binary = builtProduct(named: "pushdouble")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else { throw NotBuilt(path: binary.path) }
        let example = Self.packageRoot.appendingPathComponent("examples/webpush-browser")
        let kit = Self.packageRoot.appendingPathComponent("python/src").path
        let started = Date()
        let r = try runCommand(["env", "PYTHONPATH=\(kit)", "PUSHDOUBLE_BIN=\(binary.path)", "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1", "python3", "-m", "pytest", "-q",
                                "-p", "no:cacheprovider", "-p", "pushdouble.pytest_plugin", "-W", "ignore::DeprecationWarning",
                                "--durations=0", "--rootdir", example.path, "-c", example.appendingPathComponent("pytest.ini").path,
                                example.appendingPathComponent("tests").path], timeout: 300)
        print(r.stdout)
        print("firefox suite: \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        XCTAssertEqual(r.status, 0, "the browser suite failed:\n\(r.stdout.suffix(6000))\n\(r.stderr.suffix(3000))")
        XCTAssertTrue(r.stdout.contains("6 passed"), r.stdout)
    }
}
