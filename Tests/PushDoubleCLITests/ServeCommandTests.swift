import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
import PushDouble
import PushDoubleCore
import PushDoubleTestSupport
import PushDoubleCoreTestSupport
@testable import pushdouble

/// `serve` / `replay` run in-process, with the test fake or the shipped fakes.
final class ServeCommandTests: XCTestCase {
    let spec = FakeListenerSpec(name: "test", defaultPort: 0, fake: TestFake(), useTLS: false)

    private func tempDir() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("pd-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    func testHelpAndUsageErrors() {
        let out = Captured(), err = Captured()
        XCTAssertEqual(ServeCommand.run(["--help"], mode: .serve, out: out.console, err: err.console), 0)
        XCTAssertTrue(out.value.contains("--ephemeral"))
        XCTAssertTrue(out.value.contains("--scenario FILE"))
        // The port list comes from the registry, not a copy.
        XCTAssertTrue(out.value.contains("(admin \(DefaultPorts.admin), "), out.value)
        for spec in FakeRegistry.defaultListeners() {
            XCTAssertTrue(out.value.contains("\(spec.name) \(spec.defaultPort)"), spec.name)
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
                                ("--history-cap", "9223372036854775808")] {
            let out = Captured(), err = Captured()
            XCTAssertEqual(ServeCommand.run([option, value], mode: .serve, out: out.console, err: err.console), 2, "\(option) \(value)")
            XCTAssertTrue(err.value.contains("option \(option): \"\(value)\" is not"), err.value)
        }
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let f = dir.appendingPathComponent("crash.json")
        try Data(#"{"id":"c","quotas":[{"id":"q","tokenBucket":{"rate":1e-300,"burst":1}}]}"#.utf8).write(to: f)
        let out = Captured(), err = Captured()
        XCTAssertEqual(ServeCommand.run(["--ephemeral", "--scenario", f.path], mode: .serve, out: out.console, err: err.console, fakes: [spec], credentials: .some(nil)), 1)
        XCTAssertTrue(err.value.contains("crash.json: quotas[0].tokenBucket.rate: expected a number in 1e-6…1000000, found 1e-300"), err.value)
    }

    func testBadScenarioFailsBeforeListening() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let f = dir.appendingPathComponent("broken.json")
        try Data(#"{"id":"b","devices":[{"id":"d","provider":"test","token":5}]}"#.utf8).write(to: f)
        let out = Captured(), err = Captured()
        XCTAssertEqual(ServeCommand.run(["--ephemeral", "--scenario", f.path], mode: .serve, out: out.console, err: err.console, fakes: [spec], credentials: .some(nil)), 1)
        XCTAssertTrue(err.value.contains("broken.json: devices[0].token: expected string, found number"), err.value)
    }

    func testServeStartsAnswersLogsAndStopsOnSIGTERM() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let endpointsFile = dir.appendingPathComponent("endpoints.json")
        let scenarioFile = dir.appendingPathComponent("t.dead.json")
        try Data(#"{"id":"t.dead","devices":[{"id":"d1","provider":"test","token":"dead","state":"unregistered"}]}"#.utf8).write(to: scenarioFile)
        let out = Captured(), err = Captured()
        let status = Locked<Int32?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let spec = self.spec
        let args = ["--ephemeral", "--endpoints-file", endpointsFile.path, "--scenario", scenarioFile.path, "--seed", "7", "--history-cap", "50"]
        let started = Date()
        Thread.detachNewThread {
            let s = ServeCommand.run(args, mode: .serve, out: out.console, err: err.console, fakes: [spec], credentials: .some(nil))
            status.withLock { $0 = s }
            finished.signal()
        }
        let deadline = Date().addingTimeInterval(10)
        while !out.value.contains("ready") && Date() < deadline { usleep(2_000) }
        let readyAfter = Date().timeIntervalSince(started)
        XCTAssertTrue(out.value.contains("ready"), out.value + err.value)
        print("serve ready after \(Int(readyAfter * 1000)) ms (in-process, including the thread start)")

        let doc = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: endpointsFile)) as? [String: Any])
        let endpoints = try XCTUnwrap(doc["endpoints"] as? [[String: Any]])
        let env = try XCTUnwrap(doc["environment"] as? [String: String])
        let admin = try XCTUnwrap(endpoints.first { $0["name"] as? String == "admin" }?["url"] as? String)
        let fake = try XCTUnwrap(endpoints.first { $0["name"] as? String == "test" }?["url"] as? String)
        XCTAssertEqual(env["PUSHDOUBLE_ADMIN_URL"], admin)
        XCTAssertEqual(env["PUSHDOUBLE_PROTOCOL"], "1")
        XCTAssertTrue(out.value.contains("export PUSHDOUBLE_ADMIN_URL=\(admin)"), out.value)

        XCTAssertEqual(try Curl.call("GET", admin + "/health").code, 200)
        let dead = try Curl.call("POST", fake + "/push/dead", body: "{}", headers: ["authorization: ok"])
        XCTAssertEqual(dead.code, 410)
        XCTAssertEqual(try Curl.call("POST", fake + "/push/alive", body: "{}", headers: ["authorization: ok"]).code, 200)
        let logDeadline = Date().addingTimeInterval(3)
        while !out.value.contains("#2 ") && Date() < logDeadline { usleep(5_000) }
        XCTAssertTrue(out.value.contains("#1 test test.push POST /push/dead → 410 Unregistered [device d1]"), out.value)
        XCTAssertTrue(out.value.contains("#2 test test.push POST /push/alive → 200 [accepted]"), out.value)

        kill(getpid(), SIGTERM)
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(status.withLock { $0 }, 0)
        XCTAssertTrue(out.value.contains("stopping (2 exchanges, 0 dropped)"), out.value)
        // The listeners are closed.
        XCTAssertNotEqual(try Curl.call("GET", admin + "/health", timeout: 2).exit, 0)
    }

    func testReplayPrintsEachExchangeInDetail() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let endpointsFile = dir.appendingPathComponent("endpoints.json")
        let scenarioFile = dir.appendingPathComponent("t.fault.json")
        try Data(#"{"id":"t.fault","faults":[{"id":"f1","action":{"type":"respond","reason":"ServiceUnavailable","retryAfter":7}}]}"#.utf8).write(to: scenarioFile)
        let out = Captured(), err = Captured()
        let finished = DispatchSemaphore(value: 0)
        let spec = self.spec
        Thread.detachNewThread {
            _ = ServeCommand.run(["--ephemeral", "--endpoints-file", endpointsFile.path, scenarioFile.path], mode: .replay,
                                 out: out.console, err: err.console, fakes: [spec], credentials: .some(nil))
            finished.signal()
        }
        let deadline = Date().addingTimeInterval(10)
        while !out.value.contains("ready") && Date() < deadline { usleep(2_000) }
        let doc = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: endpointsFile)) as? [String: Any])
        let fake = try XCTUnwrap((doc["endpoints"] as? [[String: Any]])?.first { $0["name"] as? String == "test" }?["url"] as? String)
        XCTAssertEqual(try Curl.call("POST", fake + "/push/abc", body: #"{"aps":{}}"#, headers: ["authorization: ok"]).code, 503)
        let logDeadline = Date().addingTimeInterval(3)
        while !out.value.contains("< retry-after") && Date() < logDeadline { usleep(5_000) }
        kill(getpid(), SIGINT)
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
        let text = out.value
        XCTAssertTrue(text.contains("scenarios: t.fault"), text)
        XCTAssertTrue(text.contains("> POST /push/abc"), text)
        XCTAssertTrue(text.contains(#"> {"aps":{}}"#), text)
        XCTAssertTrue(text.contains("< 503 ServiceUnavailable [fault f1]"), text)
        XCTAssertTrue(text.contains("< retry-after: 7"), text)
    }

    /// The shipped fakes and credentials: the sender environment names the credential files, which are removed on exit.
    func testServeExportsSenderEnvironmentWithCredentialFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pd-env-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let endpointsFile = dir.appendingPathComponent("endpoints.json")
        let out = Captured(), err = Captured()
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = ServeCommand.run(["--ephemeral", "--quiet", "--endpoints-file", endpointsFile.path], mode: .serve, out: out.console, err: err.console)
            finished.signal()
        }
        let deadline = Date().addingTimeInterval(10)
        while !out.value.contains("ready") && Date() < deadline { usleep(2_000) }
        XCTAssertTrue(out.value.contains("ready"), out.value + err.value)
        let doc = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: endpointsFile)) as? [String: Any])
        let env = try XCTUnwrap(doc["environment"] as? [String: String])
        let embedded = try XCTUnwrap(FakeRegistry.embeddedCredentials)
        XCTAssertEqual(try String(contentsOfFile: try XCTUnwrap(env["SSL_CERT_FILE"]), encoding: .utf8), embedded.caPEM)
        XCTAssertEqual(env["REQUESTS_CA_BUNDLE"], env["SSL_CERT_FILE"])
        XCTAssertEqual(env["PUSHDOUBLE_CA_FILE"], env["SSL_CERT_FILE"])
        XCTAssertEqual(try String(contentsOfFile: try XCTUnwrap(env["APNS_KEY_FILE"]), encoding: .utf8), embedded.apnsKeyPEM)
        XCTAssertEqual(env["APNS_KEY_ID"], embedded.apnsKeyID)
        XCTAssertEqual(env["APNS_TEAM_ID"], embedded.apnsTeamID)
        XCTAssertEqual(env["APNS_TOPIC"], embedded.apnsTopic)
        XCTAssertTrue(env["APNS_URL"]?.hasPrefix("https://127.0.0.1:") ?? false)
        XCTAssertNotNil(env["APNS_SANDBOX_URL"])
        for key in ["APNS_URL", "APNS_KEY_FILE", "SSL_CERT_FILE", "PUSHDOUBLE_ADMIN_URL"] {
            XCTAssertTrue(out.value.contains("export \(key)="), key)
        }
        let keyFile = env["APNS_KEY_FILE"]!
        kill(getpid(), SIGTERM)
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
        XCTAssertFalse(FileManager.default.fileExists(atPath: keyFile), "credential files are removed on exit")
    }
}
