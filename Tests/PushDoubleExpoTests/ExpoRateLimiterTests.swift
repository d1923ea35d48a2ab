import Dispatch
import XCTest
@testable import PushDoubleExpo

/// 600 notifications / s / project (docs/expo.md §1 [A]) → `TOO_MANY_REQUESTS`, 429, on a manual clock.
final class ExpoRateLimiterTests: XCTestCase {
    func testSixHundredPerSecondPerProject() {
        let l = ExpoRateLimiter()
        for i in 0..<6 { XCTAssertTrue(l.admit(project: "A", notifications: 100, now: 10 + Double(i) * 0.1), "\(i)") }
        XCTAssertEqual(l.count(project: "A", now: 10.5), 600)
        // The 601st in the same second is refused, and the refusal counts nothing.
        XCTAssertFalse(l.admit(project: "A", notifications: 1, now: 10.9))
        XCTAssertEqual(l.count(project: "A", now: 10.9), 600)
        // Another project has its own budget.
        XCTAssertTrue(l.admit(project: "B", notifications: 600, now: 10.9))
        // One second after the first request, its 100 leave the window.
        XCTAssertFalse(l.admit(project: "A", notifications: 1, now: 10.999))
        XCTAssertTrue(l.admit(project: "A", notifications: 100, now: 11.0))
        XCTAssertFalse(l.admit(project: "A", notifications: 1, now: 11.05))
        XCTAssertEqual(l.count(project: "A", now: 20), 0)
    }

    func testARequestIsAdmittedWholeOrRefusedWhole() {
        let l = ExpoRateLimiter(limit: 10)
        XCTAssertTrue(l.admit(project: "A", notifications: 7, now: 0))
        XCTAssertFalse(l.admit(project: "A", notifications: 4, now: 0.5))
        XCTAssertTrue(l.admit(project: "A", notifications: 3, now: 0.5))
        XCTAssertFalse(l.admit(project: "A", notifications: 11, now: 100))
    }

    func testCheckThrowsTheTooManyRequestsBody() {
        let l = ExpoRateLimiter(limit: 1)
        XCTAssertNoThrow(try l.check(project: "A", notifications: 1, now: 0))
        XCTAssertThrowsError(try l.check(project: "A", notifications: 1, now: 0.5)) { error in
            let e = error as? ExpoRequestError
            XCTAssertEqual(e?.httpStatus, 429)
            XCTAssertEqual(e?.rule, .rateLimit)
            XCTAssertEqual(e?.bodyText,
                           #"{"errors":[{"code":"TOO_MANY_REQUESTS","message":"You are sending more than 1 notifications per second for this project; slow down."}]}"#)
        }
    }

    func testProjectsAreBounded() {
        let l = ExpoRateLimiter(limit: 5, maxProjects: 3)
        for p in 0..<3 { XCTAssertTrue(l.admit(project: "P\(p)", notifications: 5, now: Double(p) / 10)) }
        // All three are busy: the least recently used one goes.
        XCTAssertTrue(l.admit(project: "P3", notifications: 1, now: 0.5))
        XCTAssertEqual(l.projectCount, 3)
        XCTAssertEqual(l.count(project: "P0", now: 0.5), 0)
        // Idle projects are dropped first.
        XCTAssertTrue(l.admit(project: "P4", notifications: 1, now: 5))
        XCTAssertEqual(l.projectCount, 1)
        for i in 0..<1000 { XCTAssertTrue(l.admit(project: "Q", notifications: 1, now: 10 + Double(i))) }
        XCTAssertLessThanOrEqual(l.projectCount, 3)
    }

    func testConcurrentAdmissionsNeverExceedTheLimit() {
        let l = ExpoRateLimiter(limit: 600)
        let admitted = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            var n = 0
            for _ in 0..<200 where l.admit(project: "A", notifications: 1, now: 0) { n += 1 }
            admitted.withLock { $0 += n }
        }
        XCTAssertEqual(admitted.withLock { $0 }, 600)
    }
}

import Synchronization
