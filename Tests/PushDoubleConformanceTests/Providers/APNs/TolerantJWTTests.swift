import Foundation
import XCTest
import PushDoubleTestSupport
@testable import PushDoubleConformance
import PushDoubleAPNs
import PushDoubleCore

/// JWTs that APNs (and the fake) accept but that are not Apple's exact form — `iat` as a
/// number with a fraction or as a digit string, an extra claim, PyJWT's `typ` header — are
/// no MUST failure: the SHOULD checks `apns.jwt-iat-integer` / `apns.jwt-exact-members` warn,
/// judged on what the real APNs fake recorded (`auth.extra["iatForm"]`).
final class TolerantJWTTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "the reference sender's process", "python3") }

    private func run(form: String) throws -> RunReport {
        let all = try ConformanceScenario.loadDirectory(shippedScenarioDirectory, knownChecks: CheckCatalogue.ids)
        let cases = all.filter { ["apns.happy-path", "apns.jwt-reuse"].contains($0.id) }
        XCTAssertEqual(cases.count, 2)
        var o = RunOptions(senderCommand: "JWT_FORM=\(form) python3 \(EndToEndTests.httpxAdapter)"); o.timeout = 30
        return ConformanceRunner(host: ServerFakeHost(), options: o).run(cases)
    }

    private func verdicts(_ report: RunReport, _ check: String) -> [Verdict] {
        report.cases.flatMap { $0.checks.filter { $0.id == check }.map(\.verdict) }
    }

    private func failures(_ report: RunReport) -> [String] {
        report.cases.flatMap { c in c.checks.filter { $0.verdict == .fail }.map { "\(c.id) \($0.id): \($0.message) \($0.evidence.prefix(2).map(\.rendered))" } }
            + report.cases.compactMap { c in c.driverFailure.map { "\(c.id): \($0)\n\(c.senderLog.suffix(800))" } }
    }

    func testIatFormsWarnButDoNotFail() throws {
        for form in ["fraction", "string"] {
            let report = try run(form: form)
            XCTAssertEqual(failures(report), [], "\(form): a tolerated iat is no MUST failure")
            XCTAssertEqual(Set(verdicts(report, "apns.jwt-iat-integer")), [.warn], form)
            XCTAssertEqual(Set(verdicts(report, "apns.jwt-exact-members")), [.pass], "\(form): PyJWT's typ header is tolerated")
            // The fake recorded the form it saw, and the check read that record.
            let forms = Set(report.cases.flatMap { $0.history.compactMap { $0.auth?.extra[APNsVerifiedToken.iatFormKey] } })
            XCTAssertEqual(forms, [form == "string" ? "string" : "fraction"], "\(form): the fake's iatForm record")
        }
    }

    func testExtraClaimWarnsButDoesNotFail() throws {
        let report = try run(form: "extra")
        XCTAssertEqual(failures(report), [], "an extra claim is no MUST failure")
        XCTAssertEqual(Set(verdicts(report, "apns.jwt-exact-members")), [.warn])
        XCTAssertEqual(Set(verdicts(report, "apns.jwt-iat-integer")), [.pass])
    }
}
