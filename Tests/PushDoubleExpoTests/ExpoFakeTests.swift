import Foundation
import XCTest
import PushDoubleCore
import PushDoubleTransport
@testable import PushDoubleExpo

/// The Expo fake over `HTTPRequest`s through the core's pipeline: tickets per recipient from
/// device states, receipts and their history annotations, access token, receipt delay / hold /
/// release / retention, the per-project rate, fault rules, magic tokens, the fallback answers.
final class ExpoFakeTests: XCTestCase {
    let a = "ExponentPushToken[aaaaaaaaaaaaaaaaaaaaaa]"
    let b = "ExponentPushToken[bbbbbbbbbbbbbbbbbbbbbb]"
    let c = "ExpoPushToken[cccccccccccccccccccccc]"
    let d = "ExponentPushToken[dddddddddddddddddddddd]"

    func testOneTicketPerRecipientInOrderFromDeviceStates() throws {
        let h = ExpoHarness()
        try h.register(#"{"id":"alive","provider":"expo","token":"\#(a)","topic":"@acme/app","transitions":[{"afterDeliveries":1,"state":"unregistered"}]}"#)
        try h.register(#"{"id":"dead","provider":"expo","token":"\#(b)","state":"unregistered"}"#)
        try h.register(#"{"id":"dies-later","provider":"expo","token":"\#(c)","receipt":"DeviceNotRegistered"}"#)
        let r = h.postSend(#"[{"to":["\#(a)","\#(b)"],"title":"t"},{"to":"\#(c)"},{"to":"not-a-token","body":"x"},{"to":"\#(d)"}]"#)
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.headers["content-type"], "application/json; charset=utf-8")
        // docs/expo.md §3.1: the DeviceNotRegistered ticket byte for byte, ok tickets with their ids.
        let dnr = { (t: String) in #"{"status":"error","message":"\"\#(t)\" is not a registered push notification recipient","details":{"error":"DeviceNotRegistered","expoPushToken":"\#(t)"}}"# }
        XCTAssertEqual(r.text, #"{"data":[{"status":"ok","id":"T1"},"# + dnr(b) + #",{"status":"ok","id":"T2"},"# + dnr("not-a-token")
                       + #",{"status":"ok","id":"T3"}]}"#)

        let e = try XCTUnwrap(h.double.history.all.last)
        XCTAssertEqual(e.endpoint, "expo.send")
        XCTAssertEqual(e.topic, "@acme/app", "the project of the registered device")
        let rs = try XCTUnwrap(e.recipients)
        XCTAssertEqual(rs.map(\.token), [a, b, c, "not-a-token", d])
        XCTAssertEqual(rs.map(\.deviceID), ["alive", "dead", "dies-later", nil, nil])
        XCTAssertEqual(rs.map(\.accepted), [true, false, true, false, true])
        XCTAssertEqual(rs.map(\.reason), [nil, "DeviceNotRegistered", nil, "DeviceNotRegistered", nil])
        XCTAssertEqual(rs[0].detail, ["status": "ok", "id": "T1"])
        XCTAssertEqual(e.notification?.arrayValue?.count, 4, "the messages are recorded")
        // The accepted delivery counted: "alive" died after it, so the next send is refused at the ticket.
        XCTAssertEqual(h.double.devices.device(id: "dead")?.deliveries, 0)
        let again = h.postSend(#"{"to":"\#(a)"}"#)
        XCTAssertEqual(again.json["data"]?["details"]?["error"], "DeviceNotRegistered", "one message object: one ticket object")
    }

    /// docs/expo.md §3.1: a body that is one message object to one recipient gets `data` as one
    /// ticket object (ok and error alike); an array body, or a `to` of several tokens, an array;
    /// option `singleTicket: "array"` keeps the array.
    func testSingleMessageBodyGetsOneTicketObject() throws {
        let h = ExpoHarness()
        try h.register(#"{"id":"dead","provider":"expo","token":"\#(b)","state":"unregistered"}"#)
        XCTAssertEqual(h.postSend(#"{"to":"\#(a)","title":"t"}"#).text, #"{"data":{"status":"ok","id":"T1"}}"#)
        XCTAssertEqual(h.postSend(#"{"to":"\#(b)"}"#).text,
                       #"{"data":{"status":"error","message":"\"\#(b)\" is not a registered push notification recipient","details":{"error":"DeviceNotRegistered","expoPushToken":"\#(b)"}}}"#)
        XCTAssertEqual(h.postSend(#"[{"to":"\#(a)"}]"#).text, #"{"data":[{"status":"ok","id":"T2"}]}"#, "an array body: an array")
        XCTAssertEqual(h.postSend(#"{"to":["\#(a)","\#(c)"]}"#).json["data"]?.arrayValue?.count, 2, "one message, two recipients: an array")
        try h.double.faults.add(FaultRule(id: "dnr", match: FaultMatch(token: a), action: .respond(ResponseSpec(reason: "DeviceNotRegistered")), times: 2))
        XCTAssertEqual(h.postSend(#"{"to":"\#(a)"}"#).json["data"]?["details"]?["error"], "DeviceNotRegistered", "a fault's error ticket: one object too")
        XCTAssertEqual(h.postSend(#"[{"to":"\#(a)"}]"#).json["data"]?[0]?["details"]?["error"], "DeviceNotRegistered")

        let arrays = ExpoHarness { $0.singleTicket = .array }
        XCTAssertEqual(arrays.postSend(#"{"to":"\#(a)"}"#).text, #"{"data":[{"status":"ok","id":"T1"}]}"#)
        let options = try ExpoModule().configuration(options: ["singleTicket": "array"], context: ProviderBuildContext(clock: ManualClock(), file: "t.json", optionsPath: "fakeOptions.expo"))
        XCTAssertEqual(options.singleTicket, .array)
        XCTAssertThrowsError(try ExpoModule().configuration(options: ["singleTicket": "list"], context: ProviderBuildContext(clock: ManualClock(), file: "t.json", optionsPath: "fakeOptions.expo")))
    }

    func testReceiptsAreServedAndAnnotatedOntoTheSendEntry() throws {
        let h = ExpoHarness()
        try h.register(#"{"id":"dies-later","provider":"expo","token":"\#(b)","receipt":"DeviceNotRegistered"}"#)
        try h.register(#"{"id":"big","provider":"expo","token":"\#(c)","receipt":"MessageTooBig"}"#)
        _ = h.postSend(#"{"to":["\#(a)","\#(b)","\#(c)"]}"#)
        let r = h.postReceipts(["T3", "nope", "T1", "T2", "T1"])
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.text, #"{"data":{"T3":{"status":"error","message":"Message too big: the total notification payload must be at most 4096 bytes.","details":{"error":"MessageTooBig"}},"#
                       + #""T1":{"status":"ok"},"T2":{"status":"error","message":"\"\#(b)\" is not a registered push notification recipient","details":{"error":"DeviceNotRegistered","expoPushToken":"\#(b)"}}}}"#,
                       "request order, unknown ids left out, each id once (expo.md §4)")
        _ = h.postReceipts(["T1"])
        let send = try XCTUnwrap(h.double.history.all.first)
        let receipts = try XCTUnwrap(send.annotations?["receipts"]?.objectValue)
        XCTAssertEqual(receipts.map(\.0), ["T3", "T2", "T1"], "in order of the latest fetch")
        XCTAssertEqual(send.annotations?["receipts"]?["T1"]?["fetches"], 2)
        XCTAssertEqual(send.annotations?["receipts"]?["T2"]?["receipt"]?["details"]?["error"], "DeviceNotRegistered")
        XCTAssertEqual(send.annotations?["receipts"]?["T3"]?["fetchedAt"], .string(DateFormats.iso8601(h.clock.now())))
        let fetch = h.double.history.all[1]
        XCTAssertEqual(fetch.endpoint, "expo.getReceipts")
        XCTAssertEqual(fetch.decidedBy.detail, "3 of 5 receipts")
        XCTAssertNil(fetch.annotations)
    }

    func testAccessToken() throws {
        let h = ExpoHarness()
        let unauthorized = #"{"errors":[{"code":"UNAUTHORIZED","message":"The request is not authorized: enhanced push security requires a valid access token in the Authorization header (Bearer <token>)."}]}"#
        for headers in [[], [("authorization", "Bearer wrong")], [("authorization", "Basic " + h.service.configuration.accessToken)]] {
            let r = h.postSend(#"{"to":"\#(a)"}"#, headers: headers)
            XCTAssertEqual(r.status, 401, "\(headers)")
            // docs/expo.md §3.2a: a wrong bearer token gets the OAuth-style body.
            XCTAssertEqual(r.text, headers.first?.1 == "Bearer wrong"
                           ? #"{"error":"invalid_token","error_description":"The bearer token is invalid"}"# : unauthorized)
        }
        XCTAssertEqual(h.double.history.all.map(\.decidedBy.stage), [.auth, .auth, .auth])
        XCTAssertEqual(h.double.history.all[1].auth?.scheme, "expo-access-token")
        XCTAssertEqual(h.double.history.all[1].auth?.valid, false)
        XCTAssertEqual(h.postSend(#"{"to":"\#(a)"}"#, headers: [("authorization", "bearer  " + h.service.configuration.accessToken)]).status, 200)
        XCTAssertEqual(h.postReceipts(["T1"]).status, 200, "getReceipts needs no token")

        // docs/expo.md §7: the 401 is UNCONFIRMED, so it can be changed (option errorStatuses).
        let forbidden = ExpoHarness { $0.decoder.statuses.overrides[.unauthorized] = 403 }
        XCTAssertEqual(forbidden.postSend(#"{"to":"\#(a)"}"#, headers: []).status, 403)

        let open = ExpoHarness { $0.requireAccessToken = false }
        XCTAssertEqual(open.postSend(#"{"to":"\#(a)"}"#, headers: []).status, 200)
        XCTAssertEqual(open.postSend(#"{"to":"\#(a)"}"#, headers: [("authorization", "Bearer wrong")]).status, 401, "a wrong token is refused anyway")
        XCTAssertEqual(open.double.history.all[0].auth?.valid, true)
        XCTAssertEqual(open.double.history.all[1].auth?.valid, false)
    }

    func testReceiptDelayHoldReleaseAndRetention() throws {
        let delayed = ExpoHarness { $0.receiptAvailability = .afterDelay(seconds: 5) }
        _ = delayed.postSend(#"{"to":"\#(a)"}"#)
        XCTAssertEqual(delayed.postReceipts(["T1"]).text, #"{"data":{}}"#, "an absent receipt is left out, not ok")
        delayed.clock.advance(5)
        XCTAssertEqual(delayed.postReceipts(["T1"]).text, #"{"data":{"T1":{"status":"ok"}}}"#)
        delayed.clock.advance(86_400)
        XCTAssertEqual(delayed.postReceipts(["T1"]).text, #"{"data":{}}"#, "cleared 24 h after it was recorded (expo.md §1)")

        let held = ExpoHarness { $0.receiptAvailability = .heldUntilReleased }
        _ = held.postSend(#"{"to":["\#(a)","\#(b)","\#(c)"]}"#)
        held.clock.advance(3600)
        XCTAssertEqual(held.postReceipts(["T1", "T2", "T3"]).text, #"{"data":{}}"#)
        let release = try XCTUnwrap(ExpoInstance(service: held.service).adminRoutes.first)
        XCTAssertEqual(release.method, "POST")
        XCTAssertEqual(release.path, "/expo/receipts/release")
        let one = release.handler(held.request("/expo/receipts/release", headers: [], body: Array(#"{"ids":["T2","T9"]}"#.utf8)), RouteParameters())
        XCTAssertEqual(one.text, #"{"released":1}"# + "\n")
        XCTAssertEqual(held.postReceipts(["T1", "T2", "T3"]).json["data"]?.objectValue?.map(\.0), ["T2"])
        let all = release.handler(held.request("/expo/receipts/release", headers: [], body: []), RouteParameters())
        XCTAssertEqual(all.text, #"{"released":2}"# + "\n")
        XCTAssertEqual(held.postReceipts(["T1", "T2", "T3"]).json["data"]?.objectValue?.map(\.0), ["T1", "T2", "T3"])
        let bad = release.handler(held.request("/expo/receipts/release", headers: [], body: Array(#"{"ids":"T1"}"#.utf8)), RouteParameters())
        XCTAssertEqual(bad.status, 400)
    }

    func testSixHundredNotificationsPerSecondPerProject() throws {
        let h = ExpoHarness()
        let hundred = (0..<100).map { "\"ExponentPushToken[p\($0)]\"" }.joined(separator: ",")
        for _ in 0..<6 { XCTAssertEqual(h.postSend(#"{"to":[\#(hundred)]}"#).status, 200) }
        let refused = h.postSend(#"{"to":"\#(a)"}"#)
        XCTAssertEqual(refused.status, 429)
        XCTAssertEqual(refused.json["errors"]?[0]?["code"], "TOO_MANY_REQUESTS")
        let entry = try XCTUnwrap(h.double.history.all.last)
        XCTAssertEqual(entry.decidedBy.stage, .quota)
        XCTAssertEqual(entry.response.reason, "TOO_MANY_REQUESTS")
        // Another project has its own budget; the window slides.
        try h.register(#"{"id":"other","provider":"expo","token":"\#(b)","topic":"@acme/other"}"#)
        XCTAssertEqual(h.postSend(#"{"to":"\#(b)"}"#).status, 200)
        h.clock.advance(1)
        XCTAssertEqual(h.postSend(#"{"to":"\#(a)"}"#).status, 200)

        let off = ExpoHarness { $0.rateLimitPerSecond = 0 }
        for _ in 0..<7 { XCTAssertEqual(off.postSend(#"{"to":[\#(hundred)]}"#).status, 200) }
    }

    func testRequestLevelErrors() throws {
        let h = ExpoHarness()
        let many = (0..<101).map { "\"ExponentPushToken[m\($0)]\"" }.joined(separator: ",")
        let tooMany = h.postSend(#"{"to":[\#(many)]}"#)
        XCTAssertEqual(tooMany.status, 400)
        XCTAssertEqual(tooMany.text, #"{"errors":[{"code":"PUSH_TOO_MANY_NOTIFICATIONS","message":"You can send a maximum of 100 notifications per request (received 101); divide your requests."}]}"#)
        try h.register(#"{"id":"p1","provider":"expo","token":"\#(a)","topic":"@username/projectAAA"}"#)
        try h.register(#"{"id":"p2","provider":"expo","token":"\#(b)","topic":"@username/projectBBB"}"#)
        let two = h.postSend(#"[{"to":"\#(a)"},{"to":"\#(b)"}]"#)
        XCTAssertEqual(two.text, #"{"errors":[{"code":"PUSH_TOO_MANY_EXPERIENCE_IDS","message":"All push notification messages in the same request must be for the same project; check the details field to investigate conflicting tokens.","details":{"@username/projectAAA":["\#(a)"],"@username/projectBBB":["\#(b)"]}}]}"#)
        XCTAssertEqual(h.postSend("{").json["errors"]?[0]?["code"], "API_ERROR")
        let ids = (0..<1001).map { "R\($0)" }
        let receipts = h.postReceipts(ids)
        XCTAssertEqual(receipts.status, 400)
        XCTAssertEqual(receipts.json["errors"]?[0]?["code"], "PUSH_TOO_MANY_RECEIPTS")
        // 4097 bytes → an ok ticket whose receipt is MessageTooBig (docs/expo.md §1).
        let big = String(repeating: "x", count: 4200)
        let r = h.postSend(#"{"to":"\#(d)","body":"\#(big)"}"#)
        XCTAssertEqual(r.json["data"]?["status"], "ok")
        let id = try XCTUnwrap(r.json["data"]?["id"]?.stringValue)
        XCTAssertEqual(h.postReceipts([id]).json["data"]?[id]?["details"]?["error"], "MessageTooBig")
        XCTAssertEqual(h.double.history.all.filter { $0.decidedBy.stage == .validation }.count, 4)
    }

    func testGzipBodyAndBomb() throws {
        let h = ExpoHarness()
        let messages = (0..<40).map { #"{"to":"ExponentPushToken[g\#($0)]","title":"hello","body":"a gzip body as the Node SDK sends over 1024 characters"}"# }
        let json = "[" + messages.joined(separator: ",") + "]"
        XCTAssertGreaterThan(json.utf8.count, 1024)
        // Python's gzip of `json` (Fixtures/make_fixtures.py): a committed file, so this test needs no tool.
        let gz = try ExpoFixtures.bytes("send-40-messages.json.gz")
        let r = h.call(h.send, ExpoService.sendPath, headers: [h.authorization, ("content-encoding", "gzip")], body: gz)
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.json["data"]?.arrayValue?.count, 40)
        XCTAssertEqual(h.double.history.all[0].notification?.arrayValue?.count, 40, "the history decodes the gzip body")
        let bomb = try ExpoFixtures.bytes("zeros-8MiB.gz")
        XCTAssertLessThan(bomb.count, 20_000)
        let refused = h.call(h.send, ExpoService.sendPath, headers: [h.authorization, ("content-encoding", "gzip")], body: bomb)
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(refused.text, #"{"errors":[{"code":"API_ERROR","message":"The request body is larger than 1048576 bytes once decompressed."}]}"#)
        XCTAssertEqual(h.call(h.send, ExpoService.sendPath, headers: [h.authorization, ("content-encoding", "gzip")], body: gz).status, 200)
    }

    func testFaultRulesNamingAnyRecipientAndExpoReasons() throws {
        let h = ExpoHarness()
        try h.register(#"{"id":"second","provider":"expo","token":"\#(b)"}"#)
        try h.double.faults.add(FaultRule(id: "dnr", match: FaultMatch(device: "second"), action: .respond(ResponseSpec(reason: "DeviceNotRegistered")), times: 1))
        let r = h.postSend(#"{"to":["\#(a)","\#(b)"]}"#)
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.json["data"]?.arrayValue?.compactMap { $0["details"]?["expoPushToken"]?.stringValue }, [a, b])
        XCTAssertEqual(h.double.history.all.last?.decidedBy, Decision(.fault, "dnr"))

        try h.double.faults.add(FaultRule(id: "rate", match: FaultMatch(token: a), action: .respond(ResponseSpec(reason: "MessageRateExceeded")), times: 1))
        let rate = h.postSend(#"{"to":"\#(a)"}"#)
        XCTAssertEqual(rate.text, #"{"data":{"status":"error","message":"The device is receiving too many messages; send them at a lower rate.","details":{"error":"MessageRateExceeded"}}}"#)

        try h.double.faults.add(FaultRule(id: "busy", match: FaultMatch(endpoint: "expo.send"),
                                          action: .quota(QuotaSpec(.fixedWindow(limit: 1, seconds: 60))), times: nil))
        XCTAssertEqual(h.postSend(#"{"to":"\#(a)"}"#).status, 200)
        let quota = h.postSend(#"{"to":"\#(a)"}"#)
        XCTAssertEqual(quota.status, 429)
        XCTAssertEqual(quota.headers["retry-after"], "60")
        XCTAssertEqual(quota.json["errors"]?[0]?["code"], "TOO_MANY_REQUESTS", "a quota rule answers in Expo's shape")
        _ = h.double.faults.remove(id: "busy")

        try h.double.faults.add(FaultRule(id: "odd", action: .respond(ResponseSpec(reason: "SOMETHING_ELSE", status: 503)), times: 1))
        let odd = h.postSend(#"{"to":"\#(a)"}"#)
        XCTAssertEqual(odd.status, 503)
        XCTAssertEqual(odd.text, #"{"errors":[{"code":"SOMETHING_ELSE","message":"The push service answered SOMETHING_ELSE."}]}"#)
        try h.double.faults.add(FaultRule(id: "bare", action: .respond(ResponseSpec(status: 502)), times: 1))
        XCTAssertEqual(h.postSend(#"{"to":"\#(a)"}"#).json["errors"]?[0]?["code"], "SYSTEM_ERROR")
        try h.double.faults.add(FaultRule(id: "r-unauth", match: FaultMatch(endpoint: "expo.getReceipts"), action: .respond(ResponseSpec(reason: "UNAUTHORIZED")), times: 1))
        XCTAssertEqual(h.postReceipts(["T1"]).status, 401)
    }

    func testMagicTokensAndClosedWorld() throws {
        let h = ExpoHarness()
        h.double.devices.setWorld(.closed, for: .expo)
        let tokens = ExpoMagicTokens.table.map(\.example) + ["ExpoPushToken[00000000DNRRsecond]", a]
        let r = h.postSend(#"{"to":[\#(tokens.map { "\"\($0)\"" }.joined(separator: ","))]}"#)
        let tickets = try XCTUnwrap(r.json["data"]?.arrayValue)
        XCTAssertEqual(tickets.map { $0["details"]?["error"]?.stringValue ?? $0["status"]?.stringValue ?? "?" },
                       ["DeviceNotRegistered", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "DeviceNotRegistered"],
                       "magic tokens exist in a closed world, an unknown token does not")
        let ids = tickets.compactMap { $0["id"]?.stringValue }
        let receipts = try XCTUnwrap(h.postReceipts(ids).json["data"]?.objectValue)
        XCTAssertEqual(receipts.map { $0.1["details"]?["error"]?.stringValue ?? "ok" },
                       ["DeviceNotRegistered", "MessageTooBig", "MessageRateExceeded", "MismatchSenderId", "InvalidCredentials", "ok", "DeviceNotRegistered"])
        XCTAssertEqual(receipts.last?.1["details"]?["expoPushToken"], "ExpoPushToken[00000000DNRRsecond]")
        XCTAssertNil(ExpoMagicTokens.entry(for: "ExponentPushToken[00000000XXXX]"))
        XCTAssertNil(ExpoMagicTokens.entry(for: "ExponentPushToken[0000000DNRT]"))
    }

    func testDeviceStatesWithoutAttributes() throws {
        let h = ExpoHarness()
        try h.register(#"{"id":"x","provider":"expo","token":"\#(a)","state":"expired"}"#)
        try h.register(#"{"id":"r","provider":"expo","token":"\#(b)","state":"rateLimited"}"#)
        try h.register(#"{"id":"o","provider":"expo","token":"\#(c)","state":"otherApp"}"#)
        let r = h.postSend(#"{"to":["\#(a)","\#(b)","\#(c)"]}"#)
        XCTAssertEqual(r.json["data"]?[0]?["details"]?["error"], "DeviceNotRegistered")
        let receipts = h.postReceipts(["T1", "T2"]).json["data"]
        XCTAssertEqual(receipts?["T1"]?["details"]?["error"], "MessageRateExceeded")
        XCTAssertEqual(receipts?["T2"]?["details"]?["error"], "MismatchSenderId")
    }

    func testFallbackAnswersInExpoShape() {
        let h = ExpoHarness()
        let notFound = h.call(h.other, "/--/api/v2/push/nothing", headers: [], body: [])
        XCTAssertEqual(notFound.status, 404)
        XCTAssertEqual(notFound.text, #"{"errors":[{"code":"NOT_FOUND","message":"There is no push service endpoint at /--/api/v2/push/nothing."}]}"#)
        let wrongMethod = h.call(h.other, ExpoService.sendPath + "?useFcmV1=true", method: "GET", headers: [], body: [])
        XCTAssertEqual(wrongMethod.status, 405)
        XCTAssertEqual(wrongMethod.headers["allow"], "POST")
        let head = h.request(ExpoService.sendPath, headers: [], body: [])
        let limit = h.other.limitExceeded(LimitViolation(kind: .bodyTooLarge, message: "request body exceeds 1048576 bytes"), head: head,
                                          context: RequestContext(connection: h.connection))
        XCTAssertEqual(limit?.status, 413)
        XCTAssertEqual(limit?.text, #"{"errors":[{"code":"API_ERROR","message":"request body exceeds 1048576 bytes"}]}"#)
        XCTAssertEqual(h.double.history.all.last?.endpoint, "expo.send")
    }
}
