import XCTest
@testable import PushDoubleConformance
import PushDoubleCore

/// The steps before a run (``ConformanceSuite``) and its errors (``ConformanceError``).
final class ConformanceSuiteTests: XCTestCase {
    private func tempDir() throws -> String {
        let dir = NSTemporaryDirectory() + "pd-suite-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    func testGlob() {
        XCTAssertTrue(globMatch("apns.*", "apns.unregistered"))
        XCTAssertTrue(globMatch("*.retry-?fter", "apns.retry-after"))
        XCTAssertFalse(globMatch("apns.*", "fcm.x"))
        XCTAssertTrue(globMatch("*", ""))
    }

    func testSelectByOnlyAndSkip() {
        let cases = ["apns.a", "apns.b", "fcm.a"].map {
            ConformanceScenario(id: $0, title: $0, references: [], devices: [], steps: [], checks: [])
        }
        XCTAssertEqual(ConformanceSuite.select(cases, only: [], skip: []).map(\.id), ["apns.a", "apns.b", "fcm.a"])
        XCTAssertEqual(ConformanceSuite.select(cases, only: ["apns.*"], skip: ["*.b"]).map(\.id), ["apns.a"])
        XCTAssertEqual(ConformanceSuite.select(cases, only: ["fcm.*", "apns.b"], skip: []).map(\.id), ["apns.b", "fcm.a"])
    }

    func testPreflightSender() throws {
        XCTAssertNoThrow(try ConformanceSuite.preflightSender("MODE=x sh -c true"))
        XCTAssertNoThrow(try ConformanceSuite.preflightSender("exec /nonexistent/but/exec/is/a/builtin"))
        XCTAssertThrowsError(try ConformanceSuite.preflightSender("")) { XCTAssertEqual($0 as? ConformanceError, .emptySenderCommand) }
        XCTAssertThrowsError(try ConformanceSuite.preflightSender("/nonexistent/adapter --x")) {
            XCTAssertEqual($0 as? ConformanceError, .senderNotExecutable("/nonexistent/adapter"))
            XCTAssertEqual("\($0)", "sender not found: /nonexistent/adapter does not exist or is not executable (fix --sender)")
        }
        XCTAssertThrowsError(try ConformanceSuite.preflightSender("definitely-not-a-program-xyz")) {
            XCTAssertEqual($0 as? ConformanceError, .senderNotOnPath("definitely-not-a-program-xyz"))
        }
    }

    func testLoadScenariosReportsBadFilesAsConformanceErrors() throws {
        let dir = try tempDir()
        try "{ not json".write(toFile: dir + "/x.json", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try ConformanceSuite.loadScenarios(directory: dir, host: ServerFakeHost())) {
            guard case .badScenario(let message)? = $0 as? ConformanceError else { return XCTFail("\($0)") }
            XCTAssertTrue(message.contains("x.json"), message)
            XCTAssertTrue("\($0)".hasPrefix("bad scenario file: "), "\($0)")
        }
    }

    func testDefaultScenarioDirectory() throws {
        let root = try tempDir()
        try FileManager.default.createDirectory(atPath: root + "/Scenarios", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/.build/debug", withIntermediateDirectories: true)
        let other = try tempDir()
        XCTAssertEqual(ConformanceSuite.defaultScenarioDirectory(currentDirectory: other, executable: root + "/.build/debug/pushdouble"),
                       root + "/Scenarios")
        XCTAssertEqual(ConformanceSuite.defaultScenarioDirectory(currentDirectory: root, executable: nil), root + "/Scenarios")
    }
}
