import XCTest
import PushDoubleTestSupport
@testable import PushDoubleConformance
import PushDoubleCore

/// `webpush.real-browser` with a real headless Firefox as the device (docs/conformance.md "A real
/// browser as the device"): the reference sender passes, a sender that encrypts to another key
/// than the subscription's `p256dh` fails `webpush.browser-decrypted` (Firefox acks 101), and
/// without Firefox the case is n/a with the reason. One Firefox per run of the case.
final class RealBrowserCaseTests: XCTestCase {
    override func setUpWithError() throws {
        try requireInteropTier(needs: "firefox-esr", "the reference sender's process")
        if FirefoxProcess.find() == nil { try requireTool("firefox-esr") }
    }

    func run(_ sender: String) throws -> CaseResult {
        let all = try ConformanceScenario.loadDirectory(shippedScenarioDirectory, knownChecks: CheckCatalogue.ids)
        let scenario = try XCTUnwrap(all.first { $0.id == "webpush.real-browser" })
        var o = RunOptions(senderCommand: sender); o.timeout = 30
        let started = Date()
        let report = ConformanceRunner(host: ServerFakeHost(), options: o).run([scenario])
        print(String(format: "webpush.real-browser (%@): %.1f s", sender, Date().timeIntervalSince(started)))
        return try XCTUnwrap(report.cases.first)
    }

    func verdict(_ c: CaseResult, _ check: String) -> Verdict? { c.checks.first { $0.id == check }?.verdict }

    func testReferenceSenderPassesInARealFirefox() throws {
        let c = try run(SuiteAcceptanceTests.executable)
        XCTAssertEqual(c.verdict, .pass, ConsoleReporter.caseLines(c))
        XCTAssertEqual(verdict(c, "webpush.browser-decrypted"), .pass)
        XCTAssertEqual(verdict(c, "webpush.payload-content"), .pass)
        // The text came from the browser's service worker, not the fake's own decryption.
        let exchange = try XCTUnwrap(c.history.first { $0.provider == .webpush && $0.annotations?["serviceWorker"] != nil })
        let text = try XCTUnwrap(exchange.annotations?["serviceWorker"]?["text"]?.stringValue)
        XCTAssertTrue(text.contains("Café ☕ ready") && text.contains("Order 42 — pick it up at the counter 🎉"), text)
        XCTAssertEqual(exchange.annotations?["browser"]?["code"]?.intValue, 100)
    }

    func testWrongReceiverKeyFailsInTheBrowser() throws {
        let c = try run(SuiteAcceptanceTests.executable + " --mutant webpush-wrong-receiver-key")
        XCTAssertEqual(verdict(c, "webpush.browser-decrypted"), .fail, ConsoleReporter.caseLines(c))
        let evidence = c.checks.first { $0.id == "webpush.browser-decrypted" }?.evidence.map(\.note).joined() ?? ""
        XCTAssertTrue(evidence.contains("ack code 101"), evidence)
        // The service accepted it (201): only the browser could tell.
        XCTAssertTrue(c.history.contains { $0.provider == .webpush && $0.response.status == 201 })
    }

    /// The runner's profile and the Python kit's launcher (`pushdouble.browser`) set the same
    /// preferences (the runner adds `network.proxy.type`; the kit adds `marionette.port` and
    /// `browser.startup.page`: the runner's start-up page is its test page).
    func testProfileMatchesThePythonKitsLauncher() throws {
        let kit = URL(fileURLWithPath: shippedScenarioDirectory).deletingLastPathComponent().appendingPathComponent("python/src").path
        let script = "import json, pushdouble.browser as b; d = dict(b.OFFLINE_PREFS); d.update(b.PUSH_PREFS); print(json.dumps(d))"
        let r = try runCommand(["env", "PYTHONPATH=\(kit)", "python3", "-c", script])
        XCTAssertEqual(r.status, 0, r.stderr)
        guard case .object(let members)? = try? JSONValue.parse(r.stdout) else { return XCTFail(r.stdout) }
        let python = Dictionary(uniqueKeysWithValues: members.filter { !["marionette.port", "browser.startup.page"].contains($0.0) }.map { ($0.0, $0.1.compactJSON) })
        let swift = Dictionary(uniqueKeysWithValues: FirefoxProcess.preferences.filter { $0.0 != "network.proxy.type" })
        XCTAssertEqual(swift, python)
    }

    /// Without Firefox (an empty PATH, no PUSHDOUBLE_FIREFOX) the case is n/a with the reason.
    func testNotApplicableWithoutFirefox() throws {
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("real-browser-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: json) }
        let pushdouble = URL(fileURLWithPath: SuiteAcceptanceTests.executable).deletingLastPathComponent().appendingPathComponent("pushdouble").path
        let r = try runCommand(["env", "-i", "PATH=/nonexistent", pushdouble, "conform", "--sender", SuiteAcceptanceTests.executable,
                                "--scenarios", shippedScenarioDirectory, "--only", "webpush.real-browser", "--json", json], timeout: 60)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let report = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: json))))
        let c = try XCTUnwrap(report["cases"]?.arrayValue?.first)
        XCTAssertEqual(c["verdict"]?.stringValue, "n/a", c.compactJSON)
        XCTAssertEqual(c["notApplicableReason"]?.stringValue, "Firefox not found (firefox-esr)")
    }
}

/// A case a real client plays a device in runs after the run's other cases, by itself
/// (docs/conformance.md "A real browser as the device"); results keep the scenarios' order.
final class LiveCaseSchedulingTests: XCTestCase {
    /// Records the order in which cases start their fakes, and starts none.
    final class RecordingHost: FakeHost, @unchecked Sendable {
        private let lock = NSLock()
        private var started: [String] = []
        var order: [String] { lock.lock(); defer { lock.unlock() }; return started }
        func validate(_ scenario: ConformanceScenario) throws {}
        func start(_ scenario: ConformanceScenario, seed: UInt64) throws -> any FakeSession {
            lock.lock(); started.append(scenario.id); lock.unlock()
            Thread.sleep(forTimeInterval: 0.02)
            throw CocoaError(.featureUnsupported)
        }
    }

    func testALiveCaseRunsAfterTheOthersAndAlone() {
        func scenario(_ id: String, live: Bool) -> ConformanceScenario {
            let device = ScenarioDevice(id: "d", provider: "webpush", token: "", attributes: live ? [(ScenarioDevice.liveKey, .string("firefox"))] : [])
            return ConformanceScenario(id: id, title: id, references: [], devices: [device], steps: [], checks: [])
        }
        let scenarios = [scenario("live", live: true)] + (1...6).map { scenario("c\($0)", live: false) }
        XCTAssertTrue(scenarios[0].hasLiveDevices)
        XCTAssertFalse(scenarios[1].hasLiveDevices)
        let host = RecordingHost()
        var o = RunOptions(senderCommand: "true"); o.jobs = 4
        let report = ConformanceRunner(host: host, options: o).run(scenarios)
        XCTAssertEqual(host.order.last, "live", "\(host.order)")
        XCTAssertEqual(host.order.count, 7)
        XCTAssertEqual(report.cases.map(\.id), scenarios.map(\.id))
    }
}
