import XCTest
@testable import PushDoubleConformance
import PushDoubleCore

/// The provider-neutral attempt model: the APNs judge, the classifier and the log.
final class AttemptTests: XCTestCase {
    func testAPNsJudgeBuildsOneAttemptPerPush() throws {
        var b = HistoryBuilder()
        b.send(["d1", "d2"], at: 0, end: 1)
        b.push("d1", at: 0.1, conn: 1)
        b.push("d2", at: 0.2, conn: 1, status: 410, reason: "Unregistered")
        b.push("d1", at: 0.3, conn: 2, status: 503, reason: "ServiceUnavailable", env: "sandbox", responseHeaders: [["Retry-After", "2"]])
        b.send(["d1"], at: 2, end: 3)
        b.push("d1", at: 2.1, conn: 2, status: nil, action: "drop")
        b.push("d1", at: 2.2, conn: 3, status: 500, reason: "InternalServerError")
        b.push("d1", at: 2.3, conn: 3, status: 429, reason: "TooManyRequests")
        b.push("d1", at: 2.4, conn: 3, status: 503, reason: "Shutdown")
        b.push("d1", at: 2.5, conn: 3, status: 400, reason: "BadPriority")
        b.push("d1", at: 2.6, conn: 3, status: 413, reason: "PayloadTooLarge")
        b.push("d1", at: 2.7, conn: 3, status: 403, reason: "ExpiredProviderToken")
        let ctx = b.context()
        let attempts = APNsConformance().attempts(ctx)
        XCTAssertEqual(attempts.count, b.history.count)
        XCTAssertEqual(attempts.map(\.classification), [.accepted, .dead, .transient, .lostResponse, .transient, .transient, .transient,
                                                        .requestError, .permanent, .retryable])
        XCTAssertEqual(attempts.map(\.step), [0, 0, 0, 1, 1, 1, 1, 1, 1, 1])
        XCTAssertEqual(attempts.map(\.device), ["d1", "d2", "d1", "d1", "d1", "d1", "d1", "d1", "d1", "d1"])
        XCTAssertEqual(attempts.map(\.recipient), Array(repeating: 0, count: 10))
        XCTAssertEqual(attempts[1].token, HistoryBuilder.token(2))
        XCTAssertEqual(attempts[2].retryAfter, "2")
        XCTAssertEqual(try XCTUnwrap(attempts[2].retryAfterSeconds), 2, accuracy: 0.001)
        XCTAssertEqual(attempts[2].pool, "sandbox")
        XCTAssertEqual(attempts[0].pool, "production")
        // Backoff asked without a stated delay: 5xx and 429 without Retry-After, not 503 Shutdown.
        XCTAssertEqual(attempts.map(\.backoff), [.none, .none, .none, .none, .serverError, .throttled, .none, .none, .none, .none])
        XCTAssertEqual(attempts.map(\.endsConnection), [false, false, false, true, false, false, false, false, false, false])
        XCTAssertTrue(attempts[1].deadToken && attempts[1].neverRetry)
        XCTAssertTrue(attempts[8].neverRetry && !attempts[8].deadToken)
        XCTAssertTrue(attempts[3].transientFailure && attempts[4].transientFailure)
        XCTAssertEqual(AttemptLog(ctx).describe(attempts[2]), "d1 conn 2 stream 1 → 503 ServiceUnavailable at +0.300 s")
        XCTAssertEqual(AttemptLog(ctx).describe(attempts[3]), "d1 conn 2 stream 3 → drop at +2.100 s")
    }

    func testClassifierUsesTheProviderFacts() {
        let f = ProviderFacts(deadReasons: ["Gone"], deadStatuses: [404], neverRetryReasons: ["Big"], neverRetryStatuses: [413],
                              retryableReasons: ["StaleKey"], resendAtOnceReasons: ["Moving"])
        XCTAssertEqual(f.classify(status: 201, reason: nil, action: "respond"), .accepted)
        XCTAssertEqual(f.classify(status: 201, reason: nil, action: "truncate"), .lostResponse)
        XCTAssertEqual(f.classify(status: 404, reason: nil, action: "respond"), .dead)
        XCTAssertEqual(f.classify(status: 400, reason: "Gone", action: "respond"), .dead)
        XCTAssertEqual(f.classify(status: 400, reason: "Big", action: "respond"), .permanent)
        XCTAssertEqual(f.classify(status: 401, reason: "StaleKey", action: "respond"), .retryable)
        XCTAssertEqual(f.classify(status: 400, reason: "Other", action: "respond"), .requestError)
        XCTAssertEqual(f.classify(status: nil, reason: nil, action: "goaway"), .transient)
        XCTAssertEqual(f.backoff(status: 503, reason: "Moving", retryAfter: nil, classification: .transient), .none)
        XCTAssertEqual(f.backoff(status: 503, reason: nil, retryAfter: "1", classification: .transient), .none)
        XCTAssertEqual(f.backoff(status: 502, reason: nil, retryAfter: nil, classification: .transient), .serverError)
    }

    /// One exchange with several recipients (an Expo-style batch) yields one attempt per
    /// recipient: each is its own message for the per-message checks, and the request counts
    /// once for connection reuse.
    func testOneExchangeYieldsAttemptsPerRecipient() throws {
        var b = HistoryBuilder()
        b.send(["d1", "d2", "d3"], at: 0, end: 1)
        for i in 0..<3 { b.push("d1", at: 0.1 + Double(i) * 0.1, conn: UInt64(i + 1)) }
        let ctx = b.context()
        var batch: [Attempt] = []
        for e in b.history {
            for (r, d) in ["d1", "d2", "d3"].enumerated() {
                batch.append(Attempt(provider: "batchy", exchange: e, recipient: r, token: HistoryBuilder.token(r + 1), device: d, step: 0,
                                     classification: r == 1 ? .dead : .accepted, status: 200, reason: nil, retryAfter: nil,
                                     backoff: .none, endsConnection: false, pool: "p", start: e.transport.headReceivedAt,
                                     end: e.respondedAt, comparableRequest: ""))
            }
        }
        // The targets of a recorded multi-recipient exchange, and of a single-token one.
        var e = b.history[0]
        XCTAssertEqual(AttemptTarget.of(e), [AttemptTarget(recipient: 0, token: HistoryBuilder.token(1), deviceID: "d1", accepted: nil, reason: nil)])
        e.recipients = [RecipientOutcome(token: "t1", deviceID: "d1", accepted: true),
                        RecipientOutcome(token: "t2", deviceID: nil, accepted: false, reason: "DeviceNotRegistered")]
        XCTAssertEqual(AttemptTarget.of(e).map(\.recipient), [0, 1])
        XCTAssertEqual(AttemptTarget.of(e)[1], AttemptTarget(recipient: 1, token: "t2", deviceID: nil, accepted: false, reason: "DeviceNotRegistered"))
        let log = AttemptLog(batch, t0: AttemptLog.timeZero(ctx))
        XCTAssertEqual(log.attempts.count, 9)
        XCTAssertEqual(log.groups.map { $0.map(\.device) }, [["d1", "d1", "d1"], ["d2", "d2", "d2"], ["d3", "d3", "d3"]])
        XCTAssertEqual(log.groups[1].map(\.seq), [1, 2, 3], "recipients share their exchange's seq")
    }
}

/// Old provider ids of generic checks stay valid everywhere an id is accepted.
final class CheckAliasTests: XCTestCase {
    static let renamed = ["outcome", "outcome-truthful", "no-loss", "no-retry-permanent", "dead-token-not-reused", "retry-after",
                          "transient-retried", "bounded-attempts", "no-tight-retry-loop", "backoff-grows", "backoff-jitter",
                          "no-duplicate-delivery", "connection-reuse"]

    func testEveryOldIDResolvesToTheGenericCheckScopedToAPNs() throws {
        for id in Self.renamed {
            let generic = try XCTUnwrap(CheckCatalogue.resolve(id))
            let old = try XCTUnwrap(CheckCatalogue.resolve("apns." + id), id)
            XCTAssertEqual(old.check.id, id)
            XCTAssertEqual(old.check.severity, generic.check.severity)
            XCTAssertEqual(old.scope, .apns)
            XCTAssertNil(generic.scope)
            XCTAssertTrue(CheckCatalogue.ids.contains("apns." + id))
            XCTAssertEqual(CheckCatalogue.canonicalID("apns." + id), id)
            XCTAssertNil(CheckCatalogue.byID["apns." + id], "aliases are not catalogue entries")
        }
        XCTAssertEqual(CheckCatalogue.aliases.count, Self.renamed.count)
        // Provider checks keep their ids; no alias shadows a catalogue id.
        XCTAssertNotNil(CheckCatalogue.byID["apns.jwt-reuse"])
        XCTAssertTrue(Set(CheckCatalogue.aliases.keys).isDisjoint(with: CheckCatalogue.byID.keys))
    }

    /// Severity is a property of the rule, not of its id: the old ids had these.
    func testSeveritiesUnchanged() throws {
        let should: Set<String> = ["backoff-grows", "backoff-jitter"]
        for id in Self.renamed {
            XCTAssertEqual(try XCTUnwrap(CheckCatalogue.byID[id]).severity, should.contains(id) ? .should : .must, id)
        }
    }

    func oldAndNewResults(_ old: String, _ new: String, params p: JSONValue = .object([])) -> (CheckResult, CheckResult) {
        var b = HistoryBuilder()
        b.send(["d1"], at: 0, end: 1, results: ["d1": .dead])
        b.push("d1", at: 0.1, status: 410, reason: "Unregistered")
        b.push("d1", at: 0.3, status: 410, reason: "Unregistered")
        let scenario = ConformanceScenario(id: "t", title: "t", references: [], devices: b.devices, steps: [],
                                           checks: [CheckInvocation(id: old, params: p), CheckInvocation(id: new, params: p)])
        var record = CaseRecord()
        record.history = b.history; record.steps = b.steps
        let checks = CaseJudge(scenario: scenario, started: Date(), historyExcerpt: 10).checks(record)
        return (checks[1], checks[2])
    }

    func testAResultShowsUnderTheIDTheScenarioNamed() {
        let (old, new) = oldAndNewResults("apns.no-retry-permanent", "no-retry-permanent")
        XCTAssertEqual(old.id, "apns.no-retry-permanent")
        XCTAssertEqual(new.id, "no-retry-permanent")
        XCTAssertVerdict(old, .fail)
        XCTAssertEqual(old.verdict, new.verdict)
        XCTAssertEqual(old.evidence, new.evidence)
        XCTAssertEqual(old.severity, new.severity)
    }

    func testScenarioWithOldIDsDecodesAgainstTheCatalogue() throws {
        let json = #"{"id":"a","devices":[{"id":"d1","provider":"apns","token":"aa"}],"checks":["apns.no-loss",{"id":"apns.outcome","expect":{"d1":"sent"}},"outcome"]}"#
        let s = try ConformanceScenario.decode(Data(json.utf8), file: "a.json", knownChecks: CheckCatalogue.ids)
        XCTAssertEqual(s.checks.map(\.id), ["apns.no-loss", "apns.outcome", "outcome"])
    }

    func testBaselineEntriesMatchAcrossOldAndNewIDs() throws {
        func report(_ check: String) -> RunReport {
            let c = CheckResult(id: check, title: "", reference: "", severity: .must, verdict: .fail, message: "", evidence: [])
            var r = CaseResult(id: "apns.unregistered", title: "", references: [], file: nil, verdict: .fail, notApplicableReason: nil,
                               sender: nil, driverFailure: nil, senderLog: "", durationSeconds: 0, checks: [c], steps: [], history: [])
            r.recomputeVerdict()
            return RunReport(sender: "s", seed: nil, startedAt: Date(), durationSeconds: 0, cases: [r])
        }
        let old = try Baseline.parse(Data("apns.unregistered apns.no-retry-permanent\n".utf8), name: "b.txt")
        var r1 = report("no-retry-permanent")
        old.apply(to: &r1)
        XCTAssertTrue(r1.cases[0].checks[0].known)
        XCTAssertEqual(r1.fixed, [])
        let new = Baseline([BaselineEntry(case: "apns.unregistered", check: "no-retry-permanent")])
        var r2 = report("apns.no-retry-permanent")
        new.apply(to: &r2)
        XCTAssertTrue(r2.cases[0].checks[0].known)
        var r3 = report("apns.no-loss")
        old.apply(to: &r3)
        XCTAssertFalse(r3.cases[0].checks[0].known)
        XCTAssertEqual(r3.fixed, [BaselineEntry(case: "apns.unregistered", check: "apns.no-retry-permanent")])
    }

    /// An old id judges its provider's devices only; a device of a provider with no
    /// conformance folder is judged by nobody.
    func testScope() {
        var b = HistoryBuilder()
        b.devices.append(ScenarioDevice(id: "w1", provider: "example", token: "sub"))
        var ctx = b.context()
        XCTAssertTrue(ctx.judges(device: "d1"))
        XCTAssertFalse(ctx.judges(device: "w1"))
        ctx.scope = .apns
        XCTAssertTrue(ctx.judges(device: "d1"))
        ctx.scope = "fcm"
        XCTAssertFalse(ctx.judges(device: "d1"))
    }

    func testMutantRowsNameCanonicalIDs() {
        for e in SenderMutants.all { for c in e.failingChecks { XCTAssertNotNil(CheckCatalogue.byID[c], "\(e.name): \(c)") } }
    }

    func testListShowsOldIDs() {
        let text = CatalogueReporter.render(scenarios: [])
        XCTAssertTrue(text.contains("  no-retry-permanent  [MUST]"))
        XCTAssertTrue(text.contains("  apns.no-retry-permanent  [MUST]"))
        XCTAssertTrue(text.contains("(old id of no-retry-permanent over apns attempts only)"))
    }
}

/// A dead token the app registered again (`registeredAt`, driver protocol) is used again.
final class RegistrationTests: XCTestCase {
    /// d1 dies in step 1 and is registered again before step 2; d3 dies and is told an older registration.
    func reregistered(sendAgain d1Again: Bool, control d3Again: Bool) -> HistoryBuilder {
        var b = HistoryBuilder()
        b.send(["d1", "d2", "d3"], at: 0, end: 1, results: ["d1": .dead, "d2": .sent, "d3": .dead])
        b.push("d1", at: 0.1, status: 410, reason: "Unregistered")
        b.push("d2", at: 0.1)
        b.push("d3", at: 0.1, status: 410, reason: "Unregistered")
        b.send(["d1", "d2", "d3"], at: 2, end: 3, results: ["d1": d1Again ? .sent : .skipped, "d2": .sent, "d3": d3Again ? .dead : .skipped])
        b.steps[1].registeredAt = ["d1": HistoryBuilder.t0 + 2, "d3": HistoryBuilder.t0 - 86400]
        if d1Again { b.push("d1", at: 2.1) }
        b.push("d2", at: 2.1)
        if d3Again { b.push("d3", at: 2.2, status: 410, reason: "Unregistered") }
        return b
    }

    func testReregisteredTokenUsed() {
        let ok = reregistered(sendAgain: true, control: false)
        XCTAssertVerdict(ok.run(RegistrationChecks.reregisteredTokenUsed), .pass)
        XCTAssertVerdict(ok.run(RetryChecks.deadTokenNotReused), .pass)
        XCTAssertVerdict(ok.run(OutcomeChecks.truthful), .pass)

        let skipped = reregistered(sendAgain: false, control: false)
        let r = skipped.run(RegistrationChecks.reregisteredTokenUsed)
        XCTAssertVerdict(r, .fail)
        XCTAssertEqual(r.evidence.count, 1)
        XCTAssertTrue(r.evidence[0].note.contains("step 2: d1 was registered again"), r.evidence[0].note)
        XCTAssertTrue(r.evidence[0].note.contains("reported skipped"), r.evidence[0].note)
        XCTAssertEqual(r.evidence[0].seqs, [1])
        // Skipping is otherwise fine: no other check objects.
        XCTAssertVerdict(skipped.run(RetryChecks.deadTokenNotReused), .pass)
        XCTAssertVerdict(skipped.run(OutcomeChecks.noLoss), .pass)
    }

    /// A registration older than the death does not revive the token.
    func testControlDeviceStaysDead() {
        let b = reregistered(sendAgain: true, control: true)
        let r = b.run(RetryChecks.deadTokenNotReused)
        XCTAssertVerdict(r, .fail)
        XCTAssertEqual(r.evidence.map(\.seqs), [[3, 6]])
        XCTAssertVerdict(b.run(RegistrationChecks.reregisteredTokenUsed), .pass)
    }

    /// After a re-registration, `dead` needs a new dead answer: the old one no longer backs it.
    func testTruthfulAfterRegistration() {
        var b = reregistered(sendAgain: false, control: false)
        b.steps[1].results = [DeviceResult(device: "d1", outcome: .dead), DeviceResult(device: "d2", outcome: .sent),
                              DeviceResult(device: "d3", outcome: .dead)]
        let r = b.run(OutcomeChecks.truthful)
        XCTAssertVerdict(r, .fail)
        XCTAssertEqual(r.evidence.count, 1)
        XCTAssertTrue(r.evidence[0].note.contains("step 2: d1 reported dead"), r.evidence[0].note)
    }

    func testNotApplicableWithoutRegistrations() {
        var b = reregistered(sendAgain: false, control: false)
        b.steps[1].registeredAt = nil
        XCTAssertVerdict(b.run(RegistrationChecks.reregisteredTokenUsed), .notApplicable)
        XCTAssertVerdict(HistoryBuilder().run(RegistrationChecks.reregisteredTokenUsed), .notApplicable)
    }

    func scenario(_ steps: String) throws -> ConformanceScenario {
        try ConformanceScenario.decode(Data(#"{"id":"r","devices":[{"id":"d1","provider":"apns","token":"aa"},{"id":"d2","provider":"apns","token":"bb"}],"steps":\#(steps)}"#.utf8),
                                       file: "r.json")
    }

    func testRegistrationsAreReadFromSendSteps() throws {
        let s = try scenario(#"[{"type":"send","notification":{},"devices":["d1"]},{"type":"wait","seconds":0},"#
            + #"{"type":"send","notification":{},"devices":["d1","d2"],"registeredAt":{"d1":"now","d2":"2025-06-01T00:00:00.000Z"}}]"#)
        let r = try Registrations(s)
        let old = try XCTUnwrap(DateFormats.parseISO8601("2025-06-01T00:00:00.000Z"))
        XCTAssertEqual(r.byStep, [2: ["d1": .now, "d2": .at(old)]])
        let now = Date(timeIntervalSince1970: 1_800_000_000.1234)
        let dates = try XCTUnwrap(r.dates(step: 2, now: now))
        XCTAssertEqual(try XCTUnwrap(dates["d1"]).timeIntervalSince1970, 1_800_000_000.124, accuracy: 0.0001,
                       "as sent: milliseconds, rounded up (never before the step's start)")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(dates["d1"]), now)
        XCTAssertEqual(dates["d2"], old)
        XCTAssertNil(r.dates(step: 0, now: now))
        // The device object the sender gets.
        let json = StepDriver.driverJSON(s.devices[0], registeredAt: dates["d1"])
        XCTAssertEqual(json["registeredAt"]?.stringValue, "2027-01-15T08:00:00.124Z")
        XCTAssertEqual(json["token"]?.stringValue, "aa")
        XCTAssertNil(StepDriver.driverJSON(s.devices[0], registeredAt: nil)["registeredAt"])
    }

    func testRegistrationErrorsAreClear() throws {
        func err(_ steps: String) throws -> String {
            do { _ = try Registrations(try scenario(steps)); return "" } catch { return "\(error)" }
        }
        XCTAssertTrue(try err(#"[{"type":"settle","registeredAt":{"d1":"now"}}]"#).contains("only a send step may carry registeredAt"))
        XCTAssertTrue(try err(#"[{"type":"send","notification":{},"devices":["d1"],"registeredAt":{"d2":"now"}}]"#)
            .contains("steps[0].registeredAt.d2: device \"d2\" is not one of this step's devices"))
        XCTAssertTrue(try err(#"[{"type":"send","notification":{},"devices":["d1"],"registeredAt":{"d1":"yesterday"}}]"#)
            .contains("expected \"now\" or an ISO 8601 date"))
        XCTAssertTrue(try err(#"[{"type":"send","notification":{},"devices":["d1"],"registeredAt":["d1"]}]"#).contains("expected an object"))
    }
}
