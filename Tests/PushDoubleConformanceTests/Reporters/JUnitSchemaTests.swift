import XCTest
import PushDoubleTestSupport
@testable import PushDoubleConformance

/// Validates the JUnit reporter's output against the common JUnit XML schema
/// (`Fixtures/junit.xsd`: the Ant/Jenkins/Surefire shape CI systems read) with `xmllint`.
final class JUnitSchemaTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "xmllint") }

    static let schema = repositoryRoot.appendingPathComponent("Tests/PushDoubleConformanceTests/Fixtures/junit.xsd").path

    /// Runs `xmllint --noout --schema junit.xsd` on `xml`; returns (exit status, output).
    func validate(_ xml: String, file: StaticString = #filePath, line: UInt = #line) throws -> (Int32, String) {
        let path = NSTemporaryDirectory() + "pd-junit-schema-\(getpid())-\(UUID().uuidString).xml"
        try xml.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try requireTool("xmllint")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["xmllint", "--noout", "--schema", Self.schema, path]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        do { try p.run() } catch {
            XCTFail("xmllint is needed (Debian package libxml2-utils; bash .ci/run installs it): \(error)", file: file, line: line)
            throw error
        }
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, out)
    }

    func testReportWithFailuresSkipsWarningsAndLogsValidates() throws {
        let xml = JUnitReporter.render(ReportersTests.sampleReport())
        XCTAssertTrue(xml.contains("<failure"), "the sample must exercise failures")
        XCTAssertTrue(xml.contains("<skipped"), "the sample must exercise skipped checks")
        XCTAssertTrue(xml.contains("<system-err>"), "the sample must exercise the sender's log")
        let (status, out) = try validate(xml)
        XCTAssertEqual(status, 0, out)
        XCTAssertTrue(out.contains("validates"), out)
    }

    func testEmptyRunValidates() throws {
        let report = RunReport(sender: "x", seed: 1, startedAt: Date(timeIntervalSince1970: 1_800_000_000), durationSeconds: 0, cases: [])
        let (status, out) = try validate(JUnitReporter.render(report))
        XCTAssertEqual(status, 0, out)
    }

    /// The schema check can fail: a testcase without `classname`, and a failure outside a testcase.
    func testSchemaRejectsMalformedReports() throws {
        let noClassname = """
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites><testsuite name="a" tests="1"><testcase name="c"/></testsuite></testsuites>
        """
        XCTAssertNotEqual(try validate(noClassname).0, 0)
        let strayFailure = """
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites><testsuite name="a" tests="1"><failure message="m"/></testsuite></testsuites>
        """
        XCTAssertNotEqual(try validate(strayFailure).0, 0)
        let badCount = """
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites><testsuite name="a" tests="-1"/></testsuites>
        """
        XCTAssertNotEqual(try validate(badCount).0, 0)
    }
}
