import Foundation
import XCTest
import PushDoubleAPNs
#if canImport(Glibc)
import Glibc
#endif
import PushDouble
import PushDoubleCore
import PushDoubleTransport
import PushDoubleCrypto
import PushDoubleTestSupport
import PushDoubleCoreTestSupport
@testable import pushdouble

/// `serve` / `replay` run in-process, with the test fake or the shipped fakes.
final class ServeCommandTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "curl") }

    let spec = FakeListenerSpec(name: "test", defaultPort: 0, fake: TestFake(), useTLS: false)

    private func tempDir() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("pd-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: d) }
        return d
    }

    /// Writes `text` to `name` in `dir`.
    private func write(_ text: String, to name: String, in dir: URL) throws -> URL {
        let f = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: f)
        return f
    }

    func testHelpAndUsageErrors() {
        let out = Captured(), err = Captured()
        XCTAssertEqual(ServeCommand.run(["--help"], mode: .serve, out: out.console, err: err.console), 0)
        XCTAssertTrue(out.value.contains("--ephemeral"))
        XCTAssertTrue(out.value.contains("--scenario FILE"))
        // The port list comes from the registry, not a copy.
        XCTAssertTrue(out.value.contains("(admin \(DefaultPorts.admin), "), out.value)
        for listener in FakeRegistry.listenerDefaults {
            XCTAssertTrue(out.value.contains("\(listener.name) \(listener.defaultPort)"), listener.name)
        }
        XCTAssertEqual(ServeCommand.run(["--bogus"], mode: .serve, out: out.console, err: err.console), 2)
        XCTAssertTrue(err.value.contains("unknown option --bogus"), err.value)
        XCTAssertEqual(ServeCommand.run(["--seed", "x"], mode: .serve, out: out.console, err: err.console), 2)
        XCTAssertEqual(ServeCommand.run(["--history-cap"], mode: .serve, out: out.console, err: err.console), 2)
        XCTAssertEqual(ServeCommand.run(["--quiet", "--quiet"], mode: .serve, out: out.console, err: err.console), 2)
        XCTAssertEqual(ServeCommand.run([], mode: .replay, out: out.console, err: err.console), 2)
        XCTAssertTrue(err.value.contains("missing scenario file"), err.value)
    }

    /// Numeric options and numbers in scenario files out of range: a usage error naming the
    /// option, or the scenario error naming the field and the range; never a trap.
    func testOutOfRangeNumbersAreUsageOrScenarioErrors() throws {
        for (option, value) in [("--seed", "-1"), ("--seed", "1.5"), ("--seed", "18446744073709551616"), ("--seed", "1e30"),
                                ("--history-cap", "0"), ("--history-cap", "-1"), ("--history-cap", "1e30"),
                                ("--history-cap", "9223372036854775808"), ("--history-max-bytes", "0"),
                                ("--history-max-bytes", "-5"), ("--history-max-bytes", "1T"), ("--history-max-bytes", "+5"),
                                ("--history-max-bytes", "99999999999G"), ("--history-max-bytes", "M")] {
            let out = Captured(), err = Captured()
            XCTAssertEqual(ServeCommand.run([option, value], mode: .serve, out: out.console, err: err.console), 2, "\(option) \(value)")
            XCTAssertTrue(err.value.contains("option \(option): \"\(value)\" is not"), err.value)
        }
        let err = try serveBadScenario(named: "crash.json", #"{"id":"c","quotas":[{"id":"q","tokenBucket":{"rate":1e-300,"burst":1}}]}"#)
        XCTAssertTrue(err.contains("crash.json: quotas[0].tokenBucket.rate: expected a number in 1e-6…1000000, found 1e-300"), err)
    }

    /// `--option PROVIDER.KEY=VALUE` reaches the module, which judges it before anything listens;
    /// a scenario's bad `fakeOptions` is a scenario error (exit 1).
    func testProviderOptionsAreJudgedByTheirModule() throws {
        func run(_ args: [String]) -> (Int32, String) {
            let out = Captured(), err = Captured()
            return (ServeCommand.run(["--ephemeral"] + args, mode: .serve, out: out.console, err: err.console,
                                     fakes: [spec], credentials: .some(nil)), err.value)
        }
        var (status, err) = run(["--option", "apns.nope=1"])
        XCTAssertEqual(status, 2)
        XCTAssertTrue(err.contains("--option: fakeOptions.apns.nope: unknown option; expected one of"), err)
        (status, err) = run(["--option", "apns.tooManyRequestsPerDevice=x"])
        XCTAssertEqual(status, 2)
        XCTAssertTrue(err.contains("fakeOptions.apns.tooManyRequestsPerDevice: expected a non-negative integer"), err)
        (status, err) = run(["--option", "nosuch.key=1"])
        XCTAssertEqual(status, 2)
        XCTAssertTrue(err.contains("fakeOptions.nosuch: no such provider"), err)
        (status, err) = run(["--option", "apns"])
        XCTAssertEqual(status, 2)
        XCTAssertTrue(err.contains("is not PROVIDER.KEY=VALUE"), err)
        let bad = try serveBadScenario(named: "opts.json", #"{"id":"o","fakeOptions":{"apns":{"requireExactClaims":"yes"}}}"#)
        XCTAssertTrue(bad.contains("scenario o: fakeOptions.apns.requireExactClaims: expected true or false"), bad)

        var c = PushDoubleConfiguration()
        c.applyFakeOptions(of: [try ScenarioLoader.decode(Data(#"{"id":"s","fakeOptions":{"apns":{"tooManyRequestsPerDevice":5,"requireExactClaims":true}}}"#.utf8), file: "s.json")])
        c.setProviderOption("apns", "tooManyRequestsPerDevice", 7)
        XCTAssertEqual(c.providerOptions["apns"], ["requireExactClaims": true, "tooManyRequestsPerDevice": 7])
        XCTAssertNoThrow(try c.validateProviderOptions())
    }

    func testBadScenarioFailsBeforeListening() throws {
        let err = try serveBadScenario(named: "broken.json", #"{"id":"b","devices":[{"id":"d","provider":"test","token":5}]}"#)
        XCTAssertTrue(err.contains("broken.json: devices[0].token: expected string, found number"), err)
    }

    /// `serve --scenario FILE` with `json` in FILE must exit 1; returns what it printed to stderr.
    private func serveBadScenario(named name: String, _ json: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let dir = try tempDir()
        let f = try write(json, to: name, in: dir)
        let out = Captured(), err = Captured()
        XCTAssertEqual(ServeCommand.run(["--ephemeral", "--scenario", f.path], mode: .serve, out: out.console, err: err.console,
                                        fakes: [spec], credentials: .some(nil)), 1, file: file, line: line)
        return err.value
    }

    func testServeStartsAnswersLogsAndStopsOnSIGTERM() throws {
        let dir = try tempDir()
        let endpointsFile = dir.appendingPathComponent("endpoints.json")
        let scenarioFile = try write(#"{"id":"t.dead","devices":[{"id":"d1","provider":"test","token":"dead","state":"unregistered"}]}"#,
                                     to: "t.dead.json", in: dir)
        let started = Date()
        let run = BackgroundServe(["--ephemeral", "--endpoints-file", endpointsFile.path, "--scenario", scenarioFile.path, "--seed", "7",
                                   "--history-cap", "50", "--history-max-bytes", "3M"], mode: .serve, fakes: [spec], credentials: .some(nil))
        let out = run.out
        XCTAssertTrue(run.waitFor("ready"), out.value + run.err.value)
        print("serve ready after \(Int(Date().timeIntervalSince(started) * 1000)) ms (in-process, including the thread start)")

        let (urls, env) = try endpointsDocument(endpointsFile)
        let admin = try XCTUnwrap(urls["admin"]), fake = try XCTUnwrap(urls["test"])
        XCTAssertEqual(env["PUSHDOUBLE_ADMIN_URL"], admin)
        XCTAssertEqual(env["PUSHDOUBLE_PROTOCOL"], "1")
        XCTAssertTrue(out.value.contains("export PUSHDOUBLE_ADMIN_URL=\(admin)"), out.value)
        XCTAssertTrue(out.value.contains("inbox (web UI): \(admin)/inbox\n"), out.value)

        let health = try Curl.call("GET", admin + "/health")
        XCTAssertEqual(health.code, 200)
        XCTAssertTrue(health.body.contains(#""cap":50"#) && health.body.contains(#""maxBytes":3145728"#), health.body)
        let dead = try Curl.call("POST", fake + "/push/dead", body: "{}", headers: ["authorization: ok"])
        XCTAssertEqual(dead.code, 410)
        XCTAssertEqual(try Curl.call("POST", fake + "/push/alive", body: "{}", headers: ["authorization: ok"]).code, 200)
        run.waitFor("#2 ", timeout: 3)
        XCTAssertTrue(out.value.contains("#1 test test.push POST /push/dead → 410 Unregistered [device d1]"), out.value)
        XCTAssertTrue(out.value.contains("#2 test test.push POST /push/alive → 200 [accepted]"), out.value)

        XCTAssertEqual(run.stop(with: SIGTERM), 0)
        XCTAssertTrue(out.value.contains("stopping (2 exchanges, 0 dropped)"), out.value)
        XCTAssertFalse(FileManager.default.fileExists(atPath: endpointsFile.path), "a stopped serve removes its endpoints file")
        // The listeners are closed.
        XCTAssertNotEqual(try Curl.call("GET", admin + "/health", timeout: 2).exit, 0)
    }

    /// What the inbox's "Export as scenario" downloads, `replay` loads: the same devices and rules.
    func testReplayLoadsAnExportedScenario() throws {
        let dir = try tempDir()
        let first = BackgroundServe(["--ephemeral", "--endpoints-file", dir.appendingPathComponent("a.json").path], mode: .serve,
                                    fakes: [spec], credentials: .some(nil))
        XCTAssertTrue(first.waitFor("ready"), first.out.value + first.err.value)
        let admin = try XCTUnwrap(try endpointsDocument(dir.appendingPathComponent("a.json")).urls["admin"])
        XCTAssertEqual(try Curl.call("POST", admin + "/devices", body: #"{"id":"d1","provider":"test","token":"dead","state":"unregistered"}"#).code, 201)
        XCTAssertEqual(try Curl.call("POST", admin + "/faults", body: #"{"id":"f1","match":{"nth":2},"action":{"type":"respond","reason":"ServiceUnavailable","retryAfter":7},"times":1}"#).code, 201)
        let devices = try Curl.call("GET", admin + "/devices").body, rules = try Curl.call("GET", admin + "/faults").json as? [[String: Any]]
        let export = try Curl.call("GET", admin + "/scenario/export")
        XCTAssertEqual(export.code, 200)
        XCTAssertEqual(export.header("content-disposition"), "attachment; filename=\"pushdouble-scenario.json\"")
        XCTAssertEqual(first.stop(with: SIGTERM), 0)
        let file = try write(export.body, to: "pushdouble-scenario.json", in: dir)

        let replay = BackgroundServe(["--ephemeral", "--endpoints-file", dir.appendingPathComponent("b.json").path, file.path], mode: .replay,
                                     fakes: [spec], credentials: .some(nil))
        XCTAssertTrue(replay.waitFor("ready"), replay.out.value + replay.err.value)
        let again = try XCTUnwrap(try endpointsDocument(dir.appendingPathComponent("b.json")).urls["admin"])
        XCTAssertTrue(replay.out.value.contains("scenarios: exported"), replay.out.value)
        XCTAssertEqual(try Curl.call("GET", again + "/devices").body, devices)
        let replayed = try Curl.call("GET", again + "/faults").json as? [[String: Any]]
        XCTAssertEqual(replayed?.map { ($0["rule"] as? [String: Any]).map { NSDictionary(dictionary: $0) } },
                       rules?.map { ($0["rule"] as? [String: Any]).map { NSDictionary(dictionary: $0) } })
        XCTAssertEqual(replay.stop(with: SIGINT), 0)
    }

    func testReplayPrintsEachExchangeInDetail() throws {
        let dir = try tempDir()
        let endpointsFile = dir.appendingPathComponent("endpoints.json")
        let scenarioFile = try write(#"{"id":"t.fault","faults":[{"id":"f1","action":{"type":"respond","reason":"ServiceUnavailable","retryAfter":7}}]}"#,
                                     to: "t.fault.json", in: dir)
        let run = BackgroundServe(["--ephemeral", "--endpoints-file", endpointsFile.path, scenarioFile.path], mode: .replay,
                                  fakes: [spec], credentials: .some(nil))
        XCTAssertTrue(run.waitFor("ready"), run.out.value + run.err.value)
        let fake = try XCTUnwrap(try endpointsDocument(endpointsFile).urls["test"])
        XCTAssertEqual(try Curl.call("POST", fake + "/push/abc", body: #"{"aps":{}}"#, headers: ["authorization: ok"]).code, 503)
        run.waitFor("< retry-after", timeout: 3)
        XCTAssertEqual(run.stop(with: SIGINT), 0)
        let text = run.out.value
        XCTAssertTrue(text.contains("scenarios: t.fault"), text)
        XCTAssertTrue(text.contains("> POST /push/abc"), text)
        XCTAssertTrue(text.contains(#"> {"aps":{}}"#), text)
        XCTAssertTrue(text.contains("< 503 ServiceUnavailable [fault f1]"), text)
        XCTAssertTrue(text.contains("< retry-after: 7"), text)
    }

    /// The shipped fakes and credentials: the sender environment names the credential files, which are removed on exit.
    func testServeExportsSenderEnvironmentWithCredentialFiles() throws {
        let endpointsFile = try tempDir().appendingPathComponent("endpoints.json")
        let run = BackgroundServe(["--ephemeral", "--quiet", "--endpoints-file", endpointsFile.path], mode: .serve)
        let out = run.out
        XCTAssertTrue(run.waitFor("ready"), out.value + run.err.value)
        let env = try endpointsDocument(endpointsFile).environment
        let embedded = try XCTUnwrap(FakeRegistry.embeddedCredentials)
        XCTAssertEqual(try String(contentsOfFile: try XCTUnwrap(env["SSL_CERT_FILE"]), encoding: .utf8), embedded.caPEM)
        XCTAssertEqual(env["REQUESTS_CA_BUNDLE"], env["SSL_CERT_FILE"])
        XCTAssertEqual(env["PUSHDOUBLE_CA_FILE"], env["SSL_CERT_FILE"])
        XCTAssertEqual(try String(contentsOfFile: try XCTUnwrap(env["APNS_KEY_FILE"]), encoding: .utf8), APNsTestCredentials.keyPEM)
        XCTAssertEqual(env["APNS_KEY_ID"], APNsTestCredentials.keyID)
        XCTAssertEqual(env["APNS_TEAM_ID"], APNsTestCredentials.teamID)
        XCTAssertEqual(env["APNS_TOPIC"], APNsTestCredentials.topic)
        XCTAssertEqual(try String(contentsOfFile: try XCTUnwrap(env["APNS_CERT_FILE"]), encoding: .utf8),
                       APNsTestCredentials.ProviderCertificate.universal.pem)
        XCTAssertEqual(try String(contentsOfFile: try XCTUnwrap(env["APNS_CERT_SANDBOX_FILE"]), encoding: .utf8),
                       APNsTestCredentials.ProviderCertificate.sandbox.pem)
        XCTAssertEqual(try String(contentsOfFile: try XCTUnwrap(env["APNS_CERT_PRODUCTION_FILE"]), encoding: .utf8),
                       APNsTestCredentials.ProviderCertificate.production.pem)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: try XCTUnwrap(env["APNS_CERT_P12_FILE"]))).base64EncodedString(),
                       EmbeddedTestCredentials.contents(of: APNsTestCredentials.ProviderCertificate.universal.pkcs12FileName))
        XCTAssertEqual(env["APNS_CERT_PASSWORD"], APNsTestCredentials.certificatePassword)
        XCTAssertTrue(env["APNS_URL"]?.hasPrefix("https://127.0.0.1:") ?? false)
        XCTAssertNotNil(env["APNS_SANDBOX_URL"])
        // The broadcast channel management listeners, whose names are longer than 16 characters, uncut.
        XCTAssertTrue(env["APNS_MANAGE_URL"]?.hasPrefix("https://127.0.0.1:") ?? false)
        XCTAssertTrue(env["APNS_MANAGE_SANDBOX_URL"]?.hasPrefix("https://127.0.0.1:") ?? false)
        XCTAssertTrue(out.value.contains("  apns-manage-production "), out.value)
        for key in ["APNS_URL", "APNS_KEY_FILE", "SSL_CERT_FILE", "PUSHDOUBLE_ADMIN_URL"] {
            XCTAssertTrue(out.value.contains("export \(key)="), key)
        }
        let keyFile = env["APNS_KEY_FILE"]!
        XCTAssertEqual(run.stop(with: SIGTERM), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: keyFile), "credential files are removed on exit")
    }
}

/// One `serve` / `replay` run on its own thread, as the executable runs it, until a stop signal.
final class BackgroundServe: Sendable {
    let out = Captured(), err = Captured()
    private let status = Locked<Int32?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    init(_ arguments: [String], mode: ServeCommand.Mode, fakes: [FakeListenerSpec]? = nil, credentials: DoubleCredentials?? = nil) {
        Thread.detachNewThread { [out, err, status, finished] in
            let s = ServeCommand.run(arguments, mode: mode, out: out.console, err: err.console, fakes: fakes, credentials: credentials)
            status.withLock { $0 = s }
            finished.signal()
        }
    }

    /// Waits until stdout contains `text` (at most `timeout` seconds); whether it does.
    @discardableResult
    func waitFor(_ text: String, timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !out.value.contains(text) && Date() < deadline { usleep(2_000) }
        return out.value.contains(text)
    }

    /// Sends `signal` to this process and waits (10 s at most) for the run to return; its exit status.
    func stop(with signal: Int32) -> Int32? {
        kill(getpid(), signal)
        guard finished.wait(timeout: .now() + 10) == .success else { return nil }
        return status.withLock { $0 }
    }
}

/// The `--endpoints-file` document: endpoint URLs by name, and the environment.
func endpointsDocument(_ file: URL) throws -> (urls: [String: String], environment: [String: String]) {
    let doc = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
    let endpoints = try XCTUnwrap(doc["endpoints"] as? [[String: Any]])
    var urls: [String: String] = [:]
    for e in endpoints { if let n = e["name"] as? String, let u = e["url"] as? String { urls[n] = u } }
    return (urls, try XCTUnwrap(doc["environment"] as? [String: String]))
}

/// `--exit-with-parent`'s test of the parent: the id it had at start, compared with the current one.
final class ParentWatchTests: XCTestCase {
    func testTheParentIsGoneOnceTheParentIDChanges() {
        let current = Locked<pid_t>(4242)
        let watch = ServeCommand.ParentWatch(parent: 4242, current: { current.withLock { $0 } })
        XCTAssertFalse(watch.parentIsGone)
        current.withLock { $0 = 1 }  // re-parented to init (or a subreaper)
        XCTAssertTrue(watch.parentIsGone)
    }
}
