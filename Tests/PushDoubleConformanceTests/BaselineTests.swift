import XCTest
@testable import PushDoubleConformance

final class BaselineTests: XCTestCase {
    func testKnownFailureDoesNotFailTheRun() throws {
        var r = ReportersTests.sampleReport()
        XCTAssertFalse(r.succeeded)
        let b = try Baseline.parse(Data("# known\napns.unregistered apns.no-retry-permanent\napns.happy apns.payload-limits\n".utf8), name: "b.txt")
        b.apply(to: &r)
        XCTAssertTrue(r.succeeded)
        XCTAssertTrue(r.cases[0].checks[1].known)
        XCTAssertEqual(r.fixed, [BaselineEntry(case: "apns.happy", check: "apns.payload-limits")])
        XCTAssertTrue(ConsoleReporter.render(r).contains("fixed since baseline: apns.happy apns.payload-limits"))
        XCTAssertTrue(ConsoleReporter.render(r).contains("FAIL (known)  apns.unregistered"))
    }

    func testNewFailureStillFails() throws {
        var r = ReportersTests.sampleReport()
        let b = try Baseline.parse(Data(#"{"knownFailures":[{"case":"apns.other","check":"apns.no-retry-permanent"}]}"#.utf8), name: "b.json")
        b.apply(to: &r)
        XCTAssertFalse(r.succeeded)
        XCTAssertEqual(r.fixed, [], "entries for cases that did not run are not reported fixed")
    }

    func testRoundTripAndErrors() throws {
        let r = ReportersTests.sampleReport()
        let b = Baseline.from(r)
        XCTAssertEqual(b.entries, [BaselineEntry(case: "apns.unregistered", check: "apns.no-retry-permanent")])
        XCTAssertEqual(try Baseline.parse(b.jsonData(), name: "x"), b)
        XCTAssertThrowsError(try Baseline.parse(Data("just-one-word\n".utf8), name: "bad.txt")) { e in
            XCTAssertTrue("\(e)".contains("bad.txt:1"), "\(e)")
        }
        XCTAssertThrowsError(try Baseline.parse(Data("{\"nope\":1}".utf8), name: "bad.json"))
        XCTAssertThrowsError(try Baseline.load("/nonexistent/baseline.json"))
    }
}
