import XCTest
import PushDoubleTestSupport
@testable import PushDoubleConformance
import PushDoubleCore
import PushDoubleTransport

/// Fakes that start nothing: a fixed configuration and an empty history.
final class StubSession: FakeSession, @unchecked Sendable {
    let configuration = HistoryBuilder.configuration
    var recorded: [Exchange] = []
    func history() -> [Exchange] { recorded }
    func stop() {}
}
struct StubHost: FakeHost {
    var failValidation = false
    func validate(_ scenario: ConformanceScenario) throws {
        if failValidation { throw ScenarioError(file: scenario.id, path: "faults[0]", message: "bad rule") }
    }
    func start(_ scenario: ConformanceScenario, seed: UInt64) throws -> any FakeSession { StubSession() }
}

final class DriverTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "sender processes", "python3") }

    lazy var script = makeScript("fake_sender.py", fakeSenderPython)

    func command(_ mode: String) -> String { "MODE=\(mode) python3 \(script)" }

    func scenario() -> ConformanceScenario {
        ConformanceScenario(id: "apns.test", title: "t", references: ["A1"],
                            devices: [ScenarioDevice(id: "d1", provider: "apns", token: HistoryBuilder.token(1), environment: "production")],
                            steps: [.send(notification: .object([("title", .string("hi"))]), devices: ["d1"], repeat: 2), .settle, .wait(seconds: 0.01)],
                            checks: [CheckInvocation(id: "apns.outcome", params: params(#"{"expect":{"d1":"sent"}}"#))])
    }

    func runner(_ mode: String, timeout: Double = 5) -> ConformanceRunner {
        var o = RunOptions(senderCommand: command(mode)); o.timeout = timeout
        return ConformanceRunner(host: StubHost(), options: o)
    }

    func testGoodSenderProtocolAndEnvironment() throws {
        let p = try SenderProcess(command: command("good"), environment: HistoryBuilder.configuration.environment)
        let c = DriverClient(process: p, timeout: 5)
        let raw = try c.call("initialize", params: HistoryBuilder.configuration.initializeParams).get()
        XCTAssertEqual(raw["env"]?.stringValue, "https://127.0.0.1:1")
        XCTAssertEqual(raw["proto"]?.stringValue, "1")
        XCTAssertEqual(raw["params"]?["protocolVersion"]?.intValue, 1)
        XCTAssertEqual(raw["params"]?["providers"]?["apns"]?["sandboxUrl"]?.stringValue, "https://127.0.0.1:2")
        XCTAssertEqual(raw["params"]?["providers"]?["apns"]?["keyId"]?.stringValue, HistoryBuilder.keyID)
        let results = try c.results("send", params: .object([("notification", .object([])), ("devices", .array([.object([("id", .string("d1"))])]))])).get()
        XCTAssertEqual(results, [DeviceResult(device: "d1", outcome: .sent, providerMessageId: "x")])
        XCTAssertNil(c.shutdown())
        XCTAssertEqual(p.exitDescription, "exit status 0")
        XCTAssertTrue(p.log.contains("starting in mode good"))
    }

    func testRunnerGoodSender() {
        let r = runner("good").runCase(scenario())
        XCTAssertEqual(r.verdict, .pass)
        XCTAssertNil(r.driverFailure)
        XCTAssertEqual(r.sender?.name, "fake")
        XCTAssertEqual(r.steps.map(\.type), ["send", "send", "settle", "wait"])
        XCTAssertEqual(r.checks.first { $0.id == "apns.outcome" }?.verdict, .pass)
        XCTAssertEqual(r.checks.first { $0.id == "driver.protocol" }?.verdict, .pass)
    }

    func assertDriverFailure(_ mode: String, contains text: String, timeout: Double = 5, file: StaticString = #filePath, line: UInt = #line) -> CaseResult {
        let start = Date()
        let r = runner(mode, timeout: timeout).runCase(scenario())
        XCTAssertEqual(r.verdict, .fail, file: file, line: line)
        let d = r.checks.first { $0.id == "driver.protocol" }
        XCTAssertEqual(d?.verdict, .fail, file: file, line: line)
        XCTAssertTrue(r.driverFailure?.contains(text) ?? false, "\(r.driverFailure ?? "nil") should contain \(text)", file: file, line: line)
        XCTAssertLessThan(Date().timeIntervalSince(start), timeout + 4, file: file, line: line)
        return r
    }

    func testCrashIsAFailWithStderr() {
        let r = assertDriverFailure("crash", contains: "exited before replying to send (exit status 3)")
        XCTAssertTrue(r.senderLog.contains("Traceback: boom"), r.senderLog)
    }

    func testHangIsNoReply() {
        _ = assertDriverFailure("hang", contains: "no reply to send within 1 s", timeout: 1)
    }

    func testGarbage() {
        _ = assertDriverFailure("garbage", contains: "not a JSON-RPC message while answering send: \"{not json\"")
        _ = assertDriverFailure("garbage-init", contains: "hello, I am not JSON-RPC")
    }

    func testRPCErrorAndBadOutcome() {
        _ = assertDriverFailure("rpc-error", contains: "error -32000: no can do")
        _ = assertDriverFailure("bad-outcome", contains: "outcome must be one of sent|pending|dead|rejected|failed|skipped|aborted")
        _ = assertDriverFailure("wrong-id", contains: "reply id \"2\" does not match the request id 2")
    }

    func testMissingCommandCrashes() {
        var o = RunOptions(senderCommand: "/nonexistent/sender-binary"); o.timeout = 5
        let r = ConformanceRunner(host: StubHost(), options: o).runCase(scenario())
        XCTAssertEqual(r.verdict, .fail)
        XCTAssertTrue(r.driverFailure?.contains("exit status 127") ?? false, r.driverFailure ?? "nil")
    }

    func testUnsupportedProviderIsNotApplicable() {
        let r = runner("fcm-only").runCase(scenario())
        XCTAssertEqual(r.verdict, .notApplicable)
        XCTAssertEqual(r.notApplicableReason, "sender does not support apns")
        XCTAssertTrue(r.checks.allSatisfy { $0.verdict == .notApplicable })
    }

    /// A case with FCM topic / condition targets: a sender that lists the target kinds gets
    /// `send.params.targets` and answers for them; one that does not list them gets n/a.
    func testTargetsReachSendersThatListThem() {
        let scenario = ConformanceScenario(
            id: "fcm.targets", title: "t", references: ["fcm.md §2.1"],
            devices: [ScenarioDevice(id: "d1", provider: "fcm", token: "tok-1")],
            targets: [ScenarioTarget(id: "news", provider: "fcm", address: .topic("news")),
                      ScenarioTarget(id: "both", provider: "fcm", address: .condition("'a' in topics && 'b' in topics"))],
            steps: [.send(notification: .object([("title", .string("hi"))]), devices: ["d1"], targets: ["news", "both"], repeat: 1),
                    .send(notification: .object([("title", .string("again"))]), devices: [], targets: ["news"], repeat: 1)],
            checks: [CheckInvocation(id: "outcome", params: params(#"{"expect":{"d1":"sent","news":"sent","both":"sent"}}"#))])
        XCTAssertEqual(scenario.targetKinds, ["fcm.condition", "fcm.topic"])
        let r = runner("fcm-targets").runCase(scenario)
        XCTAssertEqual(r.verdict, .pass, r.checks.map { "\($0.id) \($0.verdict) \($0.message)" }.joined(separator: "\n"))
        XCTAssertEqual(r.steps.map { $0.targets ?? [] }, [["news", "both"], ["news"]])
        XCTAssertEqual(r.steps[1].results.map(\.device), ["news"])
        XCTAssertEqual(r.steps[0].results.map(\.device), ["d1", "news", "both"])
        XCTAssertEqual(r.steps[0].results.compactMap(\.reason), [#"{"id": "news", "provider": "fcm", "topic": "news"}"#,
                                                                  #"{"condition": "'a' in topics && 'b' in topics", "id": "both", "provider": "fcm"}"#],
                       "send.params.targets as the sender got them")
        let without = runner("fcm-only").runCase(scenario)
        XCTAssertEqual(without.verdict, .notApplicable)
        XCTAssertEqual(without.notApplicableReason, "sender does not support fcm.condition targets, fcm.topic targets")
        // A step without targets sends no `targets` member (unchanged v1 traffic).
        let plain = runner("good").runCase(self.scenario())
        XCTAssertEqual(plain.steps[0].results.map(\.device), ["d1"])
        XCTAssertNil(plain.steps[0].targets)
    }

    func testReuseSenderRunsAllCasesInOneProcess() {
        var o = RunOptions(senderCommand: command("good")); o.timeout = 5; o.reuseSender = true
        var s2 = scenario(); s2.id = "apns.test2"
        let report = ConformanceRunner(host: StubHost(), options: o).run([scenario(), s2])
        XCTAssertEqual(report.cases.map(\.id), ["apns.test", "apns.test2"])
        XCTAssertTrue(report.cases.allSatisfy { $0.driverFailure == nil })
        XCTAssertTrue(report.cases.allSatisfy { $0.checks.first { $0.id == "apns.outcome" }?.verdict == .pass })
    }

    func testConcurrentRunKeepsOrder() {
        var o = RunOptions(senderCommand: command("good")); o.timeout = 5; o.jobs = 3
        let cases = (0..<5).map { i -> ConformanceScenario in var s = scenario(); s.id = "apns.c\(i)"; return s }
        let report = ConformanceRunner(host: StubHost(), options: o).run(cases)
        XCTAssertEqual(report.cases.map(\.id), cases.map(\.id))
        XCTAssertTrue(report.cases.allSatisfy { $0.driverFailure == nil }, report.cases.compactMap(\.driverFailure).joined())
    }

    func testStderrIsBounded() throws {
        let p = try SenderProcess(command: "head -c 300000 /dev/zero | tr '\\0' 'x' >&2; echo done", environment: [:])
        XCTAssertEqual(p.nextLine(deadline: Date() + 5), .line("done"))
        p.waitForExit(timeout: 5)
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertLessThan(p.log.utf8.count, SenderProcess.maxLogBytes + 200)
        XCTAssertTrue(p.log.contains("bytes of log left out"))
    }
}

/// Records the seed each case's fakes were started with.
final class SeedRecordingHost: FakeHost, @unchecked Sendable {
    let seeds = Locked<[String: UInt64]>([:])
    func validate(_ scenario: ConformanceScenario) throws {}
    func start(_ scenario: ConformanceScenario, seed: UInt64) throws -> any FakeSession {
        seeds.withLock { $0[scenario.id] = seed }
        return StubSession()
    }
}

final class SeedTests: XCTestCase {
    func testSeedPrecedence() {
        let script = makeScript("fake_sender.py", fakeSenderPython)
        let base = ConformanceScenario(id: "apns.x", title: "t", references: [],
                                       devices: [ScenarioDevice(id: "d1", provider: "apns", token: HistoryBuilder.token(1))],
                                       steps: [.send(notification: .object([]), devices: ["d1"], repeat: 1)], checks: [])
        var a = base; a.id = "apns.own"; a.seed = 42
        var b = base; b.id = "apns.none"; b.seed = nil
        let host = SeedRecordingHost()
        var o = RunOptions(senderCommand: "MODE=good python3 \(script)"); o.timeout = 5
        _ = ConformanceRunner(host: host, options: o).run([a, b])
        XCTAssertEqual(host.seeds.withLock { $0 }, ["apns.own": 42, "apns.none": 1])
        o.seed = 7
        _ = ConformanceRunner(host: host, options: o).run([a, b])
        XCTAssertEqual(host.seeds.withLock { $0 }, ["apns.own": 7, "apns.none": 7])
    }
}
