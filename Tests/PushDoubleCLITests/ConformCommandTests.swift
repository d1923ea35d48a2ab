import XCTest
import PushDoubleConformance
import PushDoubleCore
import PushDoubleTestSupport
@testable import pushdouble

/// `pushdouble conform` in-process against the shipped fakes (``ServerFakeHost``), with the
/// Python fake sender of the driver tests: flags, exit codes, reports, baseline.
final class ConformCommandTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "the reference sender's process", "python3") }

    var out = ""
    var err = ""

    func run(_ args: [String], host: any FakeHost = ServerFakeHost()) -> Int32 {
        out = ""; err = ""
        var o = "", e = ""
        let code = ConformCommand.run(args, host: host, output: { o += $0 }, errors: { e += $0 })
        out = o; err = e
        return code
    }

    func scenarioDir(_ files: [String: String]) -> String {
        let dir = NSTemporaryDirectory() + "pd-cli-\(getpid())-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (n, t) in files { try! t.write(toFile: dir + "/" + n, atomically: true, encoding: .utf8) }
        return dir
    }

    static let token = String(repeating: "01", count: 32)
    static func caseJSON(_ id: String, expect: String = "sent") -> String {
        #"{"id":"\#(id)","title":"T \#(id)","references":["A1"],"devices":[{"id":"d1","provider":"apns","token":"\#(token)","environment":"production"}],"#
        + #""steps":[{"type":"send","notification":{"title":"hi"},"devices":["d1"]}],"checks":[{"id":"apns.outcome","expect":{"d1":"\#(expect)"}}]}"#
    }

    lazy var sender = "MODE=good python3 " + makeScript("fake_sender.py", fakeSenderPython)

    func testParse() throws {
        let a = try ConformCommand.parse(["conform", "--sender", "x y", "--only", "apns.*,fcm.*", "--skip=apns.slow", "--seed", "7",
                                          "--timeout", "2.5", "--reuse-sender", "--junit", "j.xml", "--json", "r.json", "--jobs", "2",
                                          "--html", "r.html"])
        XCTAssertEqual(a.sender, "x y")
        XCTAssertEqual(a.only, ["apns.*", "fcm.*"])
        XCTAssertEqual(a.skip, ["apns.slow"])
        XCTAssertEqual(a.seed, 7); XCTAssertEqual(a.timeout, 2.5); XCTAssertTrue(a.reuseSender); XCTAssertEqual(a.jobs, 2)
        XCTAssertEqual(a.junit, "j.xml"); XCTAssertEqual(a.json, "r.json"); XCTAssertEqual(a.html, "r.html")
        XCTAssertEqual(try ConformCommand.parse(["--only", "a.*", "--only=b.*,c.*", "-v"]).only, ["a.*", "b.*", "c.*"])
        XCTAssertTrue(try ConformCommand.parse(["-v"]).verbose)
        XCTAssertThrowsError(try ConformCommand.parse(["--seed", "-1"])) {
            XCTAssertEqual($0 as? CLIError, .invalidValue(option: "--seed", value: "-1", expected: "a non-negative integer"))
        }
        XCTAssertThrowsError(try ConformCommand.parse(["--timeout", "0"])) {
            XCTAssertEqual($0 as? CLIError, .invalidValue(option: "--timeout", value: "0", expected: "a number of seconds in (0, 86400]"))
        }
        XCTAssertThrowsError(try ConformCommand.parse(["--jobs", "65"])) {
            XCTAssertEqual($0 as? CLIError, .invalidValue(option: "--jobs", value: "65", expected: "an integer from 1 to 64"))
        }
        XCTAssertThrowsError(try ConformCommand.parse(["--sender"])) { XCTAssertEqual($0 as? CLIError, .missingValue("--sender")) }
        XCTAssertThrowsError(try ConformCommand.parse(["--frobnicate"])) { XCTAssertEqual($0 as? CLIError, .unknownOption("--frobnicate")) }
        XCTAssertThrowsError(try ConformCommand.parse(["--sender", "a", "--sender", "b"])) { XCTAssertEqual($0 as? CLIError, .repeated("--sender")) }
        XCTAssertThrowsError(try ConformCommand.parse(["stray"])) { XCTAssertEqual($0 as? CLIError, .unexpectedArgument("stray")) }
    }

    func testUsageErrorsExit2() {
        let dir = scenarioDir(["a.json": Self.caseJSON("apns.a")])
        XCTAssertEqual(run(["--scenarios", dir]), 2)
        XCTAssertEqual(err, "pushdouble conform: missing --sender \"CMD\" (the command that starts your adapter)\nrun `pushdouble conform --help` for usage\n")
        XCTAssertEqual(run(["--bogus"]), 2)
        XCTAssertEqual(err, "pushdouble conform: unknown option --bogus\nrun `pushdouble conform --help` for usage\n")
        XCTAssertEqual(run(["conform", "--jobs=0", "--sender", sender]), 2)
        XCTAssertTrue(err.contains("option --jobs: \"0\" is not an integer from 1 to 64"), err)
        XCTAssertEqual(run(["--sender", "definitely-not-a-program-xyz --flag", "--scenarios", dir]), 2)
        XCTAssertTrue(err.contains("sender not found: \"definitely-not-a-program-xyz\" is not on PATH"), err)
        XCTAssertEqual(run(["--sender", "/nonexistent/adapter", "--scenarios", dir]), 2)
        XCTAssertTrue(err.contains("/nonexistent/adapter does not exist"), err)
        XCTAssertEqual(run(["--sender", sender, "--scenarios", "/nonexistent/dir"]), 2)
        XCTAssertTrue(err.contains("scenario directory not found"), err)
        XCTAssertEqual(run(["--sender", sender, "--scenarios", dir, "--only", "nothing.*"]), 2)
        XCTAssertTrue(err.contains("no case matches"), err)
        XCTAssertEqual(run(["--help"]), 0)
        XCTAssertTrue(out.contains("--reuse-sender"))
        XCTAssertTrue(out.contains("--html FILE"), out)
    }

    func testBadScenarioFilesExit2() {
        let bad = scenarioDir(["x.json": "{ not json"])
        XCTAssertEqual(run(["--sender", sender, "--scenarios", bad]), 2)
        XCTAssertTrue(err.contains("bad scenario file") && err.contains("x.json") && err.contains("not valid JSON"), err)
        let unknownCheck = scenarioDir(["x.json": Self.caseJSON("apns.a").replacingOccurrences(of: "apns.outcome", with: "apns.nope")])
        XCTAssertEqual(run(["--sender", sender, "--scenarios", unknownCheck]), 2)
        XCTAssertTrue(err.contains("unknown check id \"apns.nope\""), err)
        let unknownDevice = scenarioDir(["x.json": Self.caseJSON("apns.a").replacingOccurrences(of: #""devices":["d1"]"#, with: #""devices":["d9"]"#)])
        XCTAssertEqual(run(["--sender", sender, "--scenarios", unknownDevice]), 2)
        XCTAssertTrue(err.contains("unknown device id \"d9\""), err)
        let dup = scenarioDir(["a.json": Self.caseJSON("apns.a"), "b.json": Self.caseJSON("apns.a")])
        XCTAssertEqual(run(["--sender", sender, "--scenarios", dup]), 2)
        XCTAssertTrue(err.contains("also used by"), err)
        // The host validates the fake-side parts (here the APNs fake's options).
        let badOption = scenarioDir(["a.json": Self.caseJSON("apns.a").replacingOccurrences(of: #""steps":"#, with: #""fakeOptions":{"apns":{"bogus":1}},"steps":"#)])
        XCTAssertEqual(run(["--sender", sender, "--scenarios", badOption]), 2)
        XCTAssertTrue(err.contains("bad scenario file") && err.contains("fakeOptions.apns.bogus: unknown option"), err)
    }

    func testListExit0() {
        let dir = scenarioDir(["a.json": Self.caseJSON("apns.a"), "b.json": Self.caseJSON("apns.b")])
        XCTAssertEqual(run(["--list", "--scenarios", dir, "--skip", "apns.b"]), 0)
        XCTAssertTrue(out.contains("apns.a — T apns.a"))
        XCTAssertFalse(out.contains("apns.b — "))
        XCTAssertTrue(out.contains("apns.jwt-reuse"))
        XCTAssertTrue(out.contains("      tags: apns, outcomes\n"), out)
        // Selected by tag.
        XCTAssertEqual(run(["--list", "--scenarios", dir, "--only", "tag:outcomes", "--skip", "apns.b"]), 0)
        XCTAssertTrue(out.contains("apns.a — T apns.a"), out)
        XCTAssertEqual(run(["--list", "--scenarios", dir, "--only", "tag:retries"]), 0)
        XCTAssertFalse(out.contains("apns.a — "), out)
    }

    func testRunExitCodesReportsAndBaseline() throws {
        let dir = scenarioDir(["a.json": Self.caseJSON("apns.a"), "b.json": Self.caseJSON("apns.b", expect: "dead")])
        let outDir = scenarioDir([:])
        let junit = outDir + "/out.xml", json = outDir + "/out.json", base = outDir + "/base.json", html = outDir + "/out.html"
        XCTAssertEqual(run(["--sender", sender, "--scenarios", dir, "--junit", junit, "--json", json, "--write-baseline", base, "--timeout", "5",
                            "--html", html]), 0, "a run that wrote its baseline succeeds")
        XCTAssertTrue(out.hasSuffix("1 passed, 1 failed, 0 warned\n"), out)
        XCTAssertTrue(out.contains("FAIL  apns.b"), out)
        XCTAssertTrue(FileManager.default.fileExists(atPath: junit))
        XCTAssertTrue(FileManager.default.fileExists(atPath: json))
        let page = try String(contentsOfFile: html, encoding: .utf8)
        XCTAssertTrue(page.contains("data-testid=\"case\" data-case-id=\"apns.a\" data-verdict=\"pass\""), page)
        XCTAssertTrue(page.contains("data-testid=\"case\" data-case-id=\"apns.b\" data-verdict=\"fail\""), page)
        // With the failures as a baseline the run passes.
        XCTAssertEqual(run(["--sender", sender, "--scenarios", dir, "--baseline", base, "--timeout", "5"]), 0)
        XCTAssertTrue(out.contains("FAIL (known)  apns.b"), out)
        // Without writing a baseline the failure fails the run.
        XCTAssertEqual(run(["--sender", sender, "--scenarios", dir, "--timeout", "5"]), 1)
        // Only the passing case.
        XCTAssertEqual(run(["--sender", sender, "--scenarios", dir, "--only", "apns.a"]), 0)
        XCTAssertTrue(out.hasSuffix("1 passed, 0 failed, 0 warned\n"), out)
        // Bad baseline file → 2.
        XCTAssertEqual(run(["--sender", sender, "--scenarios", dir, "--baseline", dir + "/missing.json"]), 2)
        // Unwritable report → 2.
        XCTAssertEqual(run(["--sender", sender, "--scenarios", dir, "--only", "apns.a", "--junit", "/nonexistent/dir/j.xml"]), 2)
    }

    func testSenderCrashIsAnErrorExit3ButRunGoesOn() {
        let crash = "MODE=crash python3 " + makeScript("fake_sender.py", fakeSenderPython)
        let dir = scenarioDir(["a.json": Self.caseJSON("apns.a"), "b.json": Self.caseJSON("apns.b")])
        let html = scenarioDir([:]) + "/crash.html"
        XCTAssertEqual(run(["--sender", crash, "--scenarios", dir, "--timeout", "5", "--html", html]), 3)
        XCTAssertTrue(out.contains("sender exited before replying to send"), out)
        let page = (try? String(contentsOfFile: html, encoding: .utf8)) ?? ""
        XCTAssertEqual(page.components(separatedBy: "data-verdict=\"error\"").count - 1, 2, "a case cut short by the driver is an error")
        XCTAssertTrue(page.contains("data-testid=\"summary-error\">2<"), page)
        XCTAssertTrue(out.contains("| Traceback: boom"), out)
        XCTAssertTrue(out.hasSuffix("0 passed, 0 failed, 0 warned, 2 errors\n"), out)
        XCTAssertTrue(out.contains("ERROR  apns.a"), out)
    }
}
