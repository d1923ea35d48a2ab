import XCTest
@testable import PushDoubleConformance
import PushDoubleCore

final class HeaderChecksTests: XCTestCase {
    func one(headers: [(String, String)], body: String = #"{"aps":{"alert":"hi"}}"#, env: String = "production",
             asked: JSONValue = .object([("title", .string("hi"))]), _ check: CheckDefinition, _ p: JSONValue = .object([])) -> CheckResult {
        var b = HistoryBuilder()
        b.send(["d1"], at: 0, end: 1, notification: asked)
        b.push("d1", at: 0.1, headers: headers, body: body, env: env)
        return b.run(check, p)
    }
    let topic = HistoryBuilder.topic

    func testTopicSuffix() {
        let voip = JSONValue.object([("pushType", .string("voip"))])
        let location = JSONValue.object([("pushType", .string("location"))])
        XCTAssertVerdict(one(headers: [("apns-topic", topic), ("apns-push-type", "alert")], HeaderChecks.topicSuffix), .pass)
        XCTAssertVerdict(one(headers: [("apns-topic", topic)], HeaderChecks.topicSuffix), .pass, "an alert may leave the type implicit")
        XCTAssertVerdict(one(headers: [("apns-topic", topic + ".voip"), ("apns-push-type", "voip")], asked: voip, HeaderChecks.topicSuffix), .pass)
        XCTAssertVerdict(one(headers: [("apns-topic", topic), ("apns-push-type", "voip")], asked: voip, HeaderChecks.topicSuffix), .fail)
        XCTAssertVerdict(one(headers: [("apns-topic", topic + ".voip"), ("apns-push-type", "alert")], asked: voip, HeaderChecks.topicSuffix), .fail)
        XCTAssertVerdict(one(headers: [("apns-push-type", "alert")], HeaderChecks.topicSuffix), .fail)
        XCTAssertVerdict(one(headers: [("apns-topic", topic + ".location-query"), ("apns-push-type", "location")], asked: location,
                             HeaderChecks.topicSuffix), .pass)
        // Judged against the request, not the header the sender chose: a voip notification
        // sent as a plain alert to the bare topic, or with no push type at all, fails.
        let dropped = one(headers: [("apns-topic", topic), ("apns-push-type", "alert")], asked: voip, HeaderChecks.topicSuffix)
        XCTAssertVerdict(dropped, .fail)
        XCTAssertTrue(dropped.evidence.map(\.note).joined().contains("apns-push-type alert for a notification that asks for voip"), "\(dropped.evidence)")
        XCTAssertTrue(dropped.evidence.map(\.note).joined().contains("expected \(topic).voip"), "\(dropped.evidence)")
        let absent = one(headers: [("apns-topic", topic)], asked: location, HeaderChecks.topicSuffix)
        XCTAssertVerdict(absent, .fail)
        XCTAssertTrue(absent.evidence.map(\.note).joined().contains("no apns-push-type for a location notification"), "\(absent.evidence)")
        // A voip header on an alert notification is as wrong.
        XCTAssertVerdict(one(headers: [("apns-topic", topic + ".voip"), ("apns-push-type", "voip")], HeaderChecks.topicSuffix), .fail)
    }

    func testWidgetAndControlPushesNeedTheirSuffixAndContentChanged() {
        let reload = #"{"aps":{"content-changed":true}}"#
        for (type, suffix) in [("widgets", ".push-type.widgets"), ("controls", ".push-type.controls")] {
            let asked = JSONValue.object([("pushType", .string(type))])
            XCTAssertVerdict(one(headers: [("apns-topic", topic + suffix), ("apns-push-type", type)], body: reload, asked: asked,
                                 HeaderChecks.topicSuffix), .pass, type)
            XCTAssertVerdict(one(headers: [("apns-topic", topic), ("apns-push-type", type)], body: reload, asked: asked,
                                 HeaderChecks.topicSuffix), .fail, "\(type) to the bare bundle id")
            XCTAssertVerdict(one(headers: [("apns-topic", topic + suffix), ("apns-push-type", type)], body: reload, asked: asked,
                                 MappingCheck.check), .pass, type)
            let plain = one(headers: [("apns-topic", topic + suffix), ("apns-push-type", type)], body: #"{"aps":{}}"#, asked: asked,
                            MappingCheck.check)
            XCTAssertVerdict(plain, .fail, "\(type) without content-changed")
            XCTAssertTrue(plain.evidence.map(\.note).joined().contains("aps.content-changed is missing"), "\(plain.evidence)")
        }
        // The two suffixes are not interchangeable.
        XCTAssertVerdict(one(headers: [("apns-topic", topic + ".push-type.widgets"), ("apns-push-type", "controls")], body: reload,
                             asked: .object([("pushType", .string("controls"))]), HeaderChecks.topicSuffix), .fail)
    }

    func testBackgroundListsEveryProblem() {
        // Empty alert, null badge and sound, priority 10, no push type: every rule is named.
        let r = one(headers: [("apns-topic", topic)], body: #"{"aps":{"content-available":1,"alert":"","badge":null,"sound":null}}"#,
                    asked: .object([("contentAvailable", .bool(true))]), HeaderChecks.background,
                    .object([("requirePushType", .string("background"))]))
        XCTAssertVerdict(r, .fail)
        let text = r.evidence.map(\.note).joined()
        for part in ["apns-push-type is absent", "apns-priority is absent (10)", "aps has alert", "aps has sound", "aps has badge"] {
            XCTAssertTrue(text.contains(part), "\(part) in \(text)")
        }
        // A content-available notification sent as an alert with priority 10 is judged too.
        XCTAssertVerdict(one(headers: [("apns-topic", topic), ("apns-push-type", "alert"), ("apns-priority", "10")],
                             body: #"{"aps":{"content-available":1}}"#, asked: .object([("contentAvailable", .bool(true))]),
                             HeaderChecks.background), .fail)
    }

    func testBackground() {
        let ok = [("apns-topic", topic), ("apns-push-type", "background"), ("apns-priority", "5")]
        XCTAssertVerdict(one(headers: ok, body: #"{"aps":{"content-available":1},"k":"v"}"#, HeaderChecks.background), .pass)
        XCTAssertVerdict(one(headers: [("apns-topic", topic), ("apns-push-type", "background"), ("apns-priority", "10")],
                             body: #"{"aps":{"content-available":1}}"#, HeaderChecks.background), .fail)
        XCTAssertVerdict(one(headers: [("apns-topic", topic), ("apns-push-type", "background")],
                             body: #"{"aps":{"content-available":1}}"#, HeaderChecks.background), .fail)
        XCTAssertVerdict(one(headers: ok, body: #"{"aps":{"content-available":1,"sound":"default"}}"#, HeaderChecks.background), .fail)
        XCTAssertVerdict(one(headers: [("apns-topic", topic), ("apns-push-type", "alert")], HeaderChecks.background), .notApplicable)
        XCTAssertVerdict(one(headers: [("apns-topic", topic), ("apns-push-type", "alert")], body: #"{"aps":{"content-available":1}}"#,
                             HeaderChecks.background, params(#"{"requirePushType":"background"}"#)), .fail)
    }

    func testExpiration() {
        let now = Int(HistoryBuilder.t0.timeIntervalSince1970)
        XCTAssertVerdict(one(headers: [("apns-expiration", String(now + 3600))], HeaderChecks.expiration), .pass)
        XCTAssertVerdict(one(headers: [("apns-expiration", "0")], HeaderChecks.expiration), .pass)
        XCTAssertVerdict(one(headers: [("apns-expiration", String((now + 3600) * 1000))], HeaderChecks.expiration), .fail)
        XCTAssertVerdict(one(headers: [("apns-expiration", "3600")], HeaderChecks.expiration), .fail)
        XCTAssertVerdict(one(headers: [("apns-expiration", "soon")], HeaderChecks.expiration), .fail)
        XCTAssertVerdict(one(headers: [], HeaderChecks.expiration), .notApplicable)
    }

    func testCollapseID() {
        XCTAssertVerdict(one(headers: [("apns-collapse-id", String(repeating: "a", count: 64))], HeaderChecks.collapseID), .pass)
        // SHOULD: a sender that sends it, gets 400 and reports rejected loses nothing.
        XCTAssertVerdict(one(headers: [("apns-collapse-id", String(repeating: "a", count: 65))], HeaderChecks.collapseID), .warn)
        // 22 three-byte characters = 66 bytes.
        XCTAssertVerdict(one(headers: [("apns-collapse-id", String(repeating: "€", count: 22))], HeaderChecks.collapseID), .warn)
    }

    func testApnsID() {
        XCTAssertVerdict(one(headers: [("apns-id", "123e4567-e89b-12d3-a456-426655440000")], HeaderChecks.apnsID), .pass)
        XCTAssertVerdict(one(headers: [("apns-id", "123E4567-E89B-12D3-A456-426655440000")], HeaderChecks.apnsID), .fail)
        XCTAssertVerdict(one(headers: [("apns-id", "123e4567-e89b-12d3-a456-42665544000")], HeaderChecks.apnsID), .fail)
    }

    func testNoDuplicateHeaders() {
        XCTAssertVerdict(one(headers: [("apns-topic", topic), ("apns-priority", "10")], HeaderChecks.noDuplicateHeaders), .pass)
        let r = one(headers: [("apns-topic", topic), ("APNS-Topic", topic)], HeaderChecks.noDuplicateHeaders)
        XCTAssertVerdict(r, .fail)
        XCTAssertTrue(r.evidence[0].note.contains("apns-topic"))
    }

    func testPayloadLimits() {
        let big = #"{"aps":{"alert":""# + String(repeating: "x", count: 4100) + #""}}"#
        XCTAssertVerdict(one(headers: [("apns-push-type", "alert")], HeaderChecks.payloadLimits), .pass)
        // SHOULD: not validating locally loses nothing when the 413 is reported rejected.
        XCTAssertVerdict(one(headers: [("apns-push-type", "alert")], body: big, HeaderChecks.payloadLimits), .warn)
        XCTAssertVerdict(one(headers: [("apns-push-type", "voip")], body: big, asked: .object([("pushType", .string("voip"))]),
                             HeaderChecks.payloadLimits), .pass)
        XCTAssertVerdict(one(headers: [("apns-push-type", "alert")], body: "", HeaderChecks.payloadLimits), .warn)
        // An empty payload is the sender's own mapping bug: apns.mapping fails it (MUST).
        XCTAssertVerdict(one(headers: [("apns-push-type", "alert")], body: "", MappingCheck.check), .fail)
    }

    func testEnvironmentHost() {
        XCTAssertVerdict(one(headers: [], env: "production", HeaderChecks.environmentHost), .pass)
        var b = HistoryBuilder()
        b.devices[0].environment = "sandbox"
        b.send(["d1"], at: 0, end: 1)
        b.push("d1", at: 0.1, env: "production")
        XCTAssertVerdict(b.run(HeaderChecks.environmentHost), .fail)
        b.history.removeAll()
        b.push("d1", at: 0.1, env: "sandbox")
        XCTAssertVerdict(b.run(HeaderChecks.environmentHost), .pass)
    }

    func testCatalogueIDsAreUniqueAndMutantTableNamesKnownChecks() {
        XCTAssertEqual(CheckCatalogue.all.count, CheckCatalogue.byID.count)
        for e in MutantTable.entries { for c in e.failingChecks { XCTAssertNotNil(CheckCatalogue.byID[c], c) } }
        XCTAssertEqual(MutantTable.entries.count, 66)  // 25 APNs/generic + 20 FCM (1 more warns only) + 9 Web Push (2 more warn only) + 12 Expo
        XCTAssertEqual(MutantTable.entries.filter { $0.mutant.hasPrefix("fcm-") }.count, 20)
        XCTAssertEqual(Severity.must.violationVerdict, .fail)
        XCTAssertEqual(Severity.should.violationVerdict, .warn)
        XCTAssertEqual(Severity.may.violationVerdict, .info)
    }
}

final class MappingCheckTests: XCTestCase {
    let n = params(#"{"title":"Hi","body":"There","sound":"default","badge":2,"threadId":"t","data":{"k":"v","n":1},"collapseKey":"c1","priority":"high","ttlSeconds":60}"#)

    func run(body: String, headers: [(String, String)]) -> CheckResult {
        var b = HistoryBuilder()
        b.send(["d1"], at: 0, end: 1)
        b.steps[0].notification = n
        b.push("d1", at: 0.1, headers: headers, body: body)
        return b.run(MappingCheck.check)
    }

    func testMappedCorrectly() {
        let exp = String(Int(HistoryBuilder.t0.timeIntervalSince1970) + 60)
        let r = run(body: #"{"aps":{"alert":{"title":"Hi","body":"There"},"sound":"default","badge":2,"thread-id":"t"},"k":"v","n":1}"#,
                    headers: [("apns-collapse-id", "c1"), ("apns-priority", "10"), ("apns-expiration", exp)])
        XCTAssertVerdict(r, .pass)
    }

    func testMappedWrongly() {
        let r = run(body: #"{"aps":{"alert":{"title":"Hi"},"badge":3},"data":{"k":"v"}}"#, headers: [("apns-priority", "5")])
        XCTAssertVerdict(r, .fail)
        let note = r.evidence[0].note
        for s in ["aps.alert.body is missing", "aps.badge is 3", "top-level k is missing", "apns-collapse-id is missing",
                  "priority high → apns-priority is 5", "no apns-expiration"] {
            XCTAssertTrue(note.contains(s), "\(s) in \(note)")
        }
    }
}
