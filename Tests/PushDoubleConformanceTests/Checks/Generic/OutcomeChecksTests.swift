import XCTest
@testable import PushDoubleConformance
import PushDoubleCore

final class OutcomeChecksTests: XCTestCase {
    func unregisteredRun(reported: DeliveryOutcome, later: DeliveryOutcome = .skipped) -> HistoryBuilder {
        var b = HistoryBuilder()
        b.send(["d1", "d2"], at: 0, end: 1, results: ["d1": reported, "d2": .sent])
        b.push("d1", at: 0.1, status: 410, reason: "Unregistered")
        b.push("d2", at: 0.2)
        b.send(["d1", "d2"], at: 2, end: 3, results: ["d1": later, "d2": .sent])
        b.push("d2", at: 2.1)
        return b
    }

    func testOutcomePassesWhenAsExpected() {
        let b = unregisteredRun(reported: .dead)
        XCTAssertVerdict(b.run(OutcomeChecks.outcome, params(#"{"expect":{"d1":"dead","d2":"sent"},"expectLater":{"d1":["skipped","dead"]}}"#)), .pass)
    }

    func testOutcomeFailsOnWrongOutcome() {
        let b = unregisteredRun(reported: .sent)
        let r = b.run(OutcomeChecks.outcome, params(#"{"expect":{"d1":"dead"}}"#))
        XCTAssertVerdict(r, .fail)
        XCTAssertTrue(r.evidence[0].note.contains("d1 reported sent, expected dead"), r.evidence[0].note)
    }

    func testOutcomeFailsOnLaterStepAndMissingResult() {
        var b = unregisteredRun(reported: .dead, later: .sent)
        XCTAssertVerdict(b.run(OutcomeChecks.outcome, params(#"{"expectLater":{"d1":"skipped"}}"#)), .fail)
        b.steps[0].results.removeAll { $0.device == "d1" }
        XCTAssertVerdict(b.run(OutcomeChecks.outcome, params(#"{"expect":{"d1":"dead"}}"#)), .fail)
    }

    /// A sender that declared coarse outcomes for the provider reports only whether a push went
    /// out: `failed` for a dead token passes `outcome` (and says it was judged coarsely), a wrong
    /// precise word or a `sent` for the dead token still fails, and without the declaration the
    /// same `failed` fails.
    func testCoarseOutcomesAreJudgedAsOne() {
        let b = unregisteredRun(reported: .failed, later: .failed)
        let expectation = params(#"{"expect":{"d1":"dead","d2":"sent"},"expectLater":{"d1":["skipped","dead"]}}"#)
        var coarse = b.context(expectation)
        coarse.coarseOutcomes = ["apns"]
        let r = OutcomeChecks.outcome.run(coarse)
        XCTAssertVerdict(r, .pass)
        XCTAssertTrue(r.message.contains("2 judged coarsely: the sender declared coarse outcomes for apns"), r.message)
        XCTAssertVerdict(b.run(OutcomeChecks.outcome, expectation), .fail, "precise sender")
        var lying = unregisteredRun(reported: .sent).context(expectation)
        lying.coarseOutcomes = ["apns"]
        XCTAssertVerdict(OutcomeChecks.outcome.run(lying), .fail, "sent for a dead token")
        var wrongWord = unregisteredRun(reported: .rejected).context(params(#"{"expect":{"d1":"dead"}}"#))
        wrongWord.coarseOutcomes = ["apns"]
        XCTAssertVerdict(OutcomeChecks.outcome.run(wrongWord), .fail, "a precise word that is wrong")
        var otherProvider = b.context(expectation)
        otherProvider.coarseOutcomes = ["fcm"]
        XCTAssertVerdict(OutcomeChecks.outcome.run(otherProvider), .fail, "declared for another provider")
        XCTAssertEqual(OutcomeChecks.coarse([.skipped]), [.skipped, .failed])
        XCTAssertEqual(OutcomeChecks.coarse([.pending]), [.pending, .sent])
    }

    func testTheOutcomesDeclarationIsRead() throws {
        XCTAssertEqual(try SenderIdentity.coarseOutcomes(.string("coarse"), providers: ["apns", "fcm"]).get(), ["apns", "fcm"])
        XCTAssertNil(try SenderIdentity.coarseOutcomes(.string("precise"), providers: ["apns"]).get())
        XCTAssertEqual(try SenderIdentity.coarseOutcomes(params(#"{"fcm":"coarse","apns":"precise"}"#), providers: ["apns", "fcm"]).get(), ["fcm"])
        XCTAssertThrowsError(try SenderIdentity.coarseOutcomes(.string("rough"), providers: ["apns"]).get())
        XCTAssertThrowsError(try SenderIdentity.coarseOutcomes(params(#"{"fcm":1}"#), providers: ["fcm"]).get())
        XCTAssertThrowsError(try SenderIdentity.coarseOutcomes(.int(1), providers: ["fcm"]).get())
    }

    func testOutcomeNotApplicableWithoutExpectations() {
        XCTAssertVerdict(unregisteredRun(reported: .dead).run(OutcomeChecks.outcome), .notApplicable)
    }

    func testTruthfulPassesAndFails() {
        XCTAssertVerdict(unregisteredRun(reported: .dead).run(OutcomeChecks.truthful), .pass)
        // "sent" for a token the fake answered 410.
        let lie = unregisteredRun(reported: .sent)
        let r = lie.run(OutcomeChecks.truthful)
        XCTAssertVerdict(r, .fail)
        XCTAssertEqual(r.evidence.first?.seqs, [1])
        // "dead" without any dead answer from the fake.
        var b = HistoryBuilder()
        b.send(["d1"], at: 0, end: 1, results: ["d1": .dead])
        b.push("d1", at: 0.1)
        XCTAssertVerdict(b.run(OutcomeChecks.truthful), .fail)
        // "skipped" but pushed anyway.
        var c = unregisteredRun(reported: .dead)
        c.push("d1", at: 2.2, status: 410, reason: "Unregistered")
        XCTAssertVerdict(c.run(OutcomeChecks.truthful), .fail)
    }

    func testNoLoss() {
        var b = HistoryBuilder()
        b.send(["d1", "d2", "d3"], at: 0, end: 1, results: ["d1": .sent, "d2": .sent, "d3": .failed])
        b.push("d1", at: 0.1, status: nil, action: "drop")
        b.push("d1", at: 0.3, conn: 2)
        b.push("d2", at: 0.2, conn: 2)
        b.push("d3", at: 0.2, conn: 2, status: 503, reason: "ServiceUnavailable")
        XCTAssertVerdict(b.run(OutcomeChecks.noLoss), .pass)
        var lost = HistoryBuilder()
        lost.send(["d1", "d2"], at: 0, end: 1, results: ["d1": .sent, "d2": .sent])
        lost.push("d1", at: 0.1, status: nil, action: "drop")
        lost.push("d2", at: 0.2, conn: 2)
        let r = lost.run(OutcomeChecks.noLoss)
        XCTAssertVerdict(r, .fail)
        XCTAssertTrue(r.evidence[0].note.contains("d1 was never accepted"))
    }
}
