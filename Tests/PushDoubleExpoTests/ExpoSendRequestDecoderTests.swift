import XCTest
import PushDoubleJSON
@testable import PushDoubleExpo

/// The rules of ``ExpoSendRequestDecoder`` (docs/expo.md §1, §2, §5), accepted and refused.
final class ExpoSendRequestDecoderTests: XCTestCase {
    // MARK: Shape (§2: one object or an array)

    func testSingleObjectAndArray() throws {
        let one = try XCTUnwrap(acceptSend(#"{"to":"\#(tok("a"))","title":"hi"}"#))
        XCTAssertFalse(one.bodyWasArray)
        XCTAssertTrue(one.allowsSingleTicketObject)
        XCTAssertEqual(one.messages.count, 1)
        XCTAssertEqual(one.messages[0].title, "hi")
        let many = try XCTUnwrap(acceptSend(#"[{"to":"\#(tok("a"))"},{"to":"\#(tok("b"))","body":"x"}]"#))
        XCTAssertTrue(many.bodyWasArray)
        XCTAssertFalse(many.allowsSingleTicketObject)
        XCTAssertEqual(many.messages.map(\.to), [[tok("a")], [tok("b")]])
        XCTAssertEqual(many.project, "@username/projectAAA")
        // An array body with one message still answers with an array.
        XCTAssertFalse(try XCTUnwrap(acceptSend(#"[{"to":"\#(tok("a"))"}]"#)).allowsSingleTicketObject)
        // An empty array is zero messages, zero tickets.
        XCTAssertEqual(acceptSend("[]")?.recipients.count, 0)
    }

    func testArrayItemThatIsNotAnObject() {
        let e = refuseSend(#"[{"to":"\#(tok("a"))"},"x"]"#, .bodyShape)
        XCTAssertEqual(e?.message, #""value" at position 1 fails because ["1" must be an object]."#)
        XCTAssertEqual(e?.code, .apiError)
    }

    func testBodyThatIsNotJSON() {
        let e = refuseSend(#"{"to":"#, .bodyNotJSON)
        XCTAssertEqual(e?.code, .apiError)
        XCTAssertEqual(e?.httpStatus, 400)
        XCTAssertTrue(e?.message.hasPrefix("The request body is not valid JSON: ") ?? false, e?.message ?? "")
        refuseSend("", .bodyNotJSON)
        refuseSend(#"{"to":"a"} x"#, .bodyNotJSON)
    }

    // MARK: `to` (§2: string or array, required; one recipient each, in order)

    func testToAsStringOrArrayGivesRecipientsInOrder() throws {
        let r = try XCTUnwrap(acceptSend(#"[{"to":["\#(tok("a1"))","\#(tok("a2"))"]},{"to":"\#(tok("a3"))"},{"to":["\#(tok("a4"))"]}]"#))
        XCTAssertEqual(r.recipients.map(\.token), [tok("a1"), tok("a2"), tok("a3"), tok("a4")])
        XCTAssertEqual(r.recipients.map(\.index), [0, 1, 2, 3])
        XCTAssertEqual(r.recipients.map(\.messageIndex), [0, 0, 1, 2])
        XCTAssertEqual(r.messages.map(\.toWasArray), [true, false, true])
        XCTAssertEqual(acceptSend(#"{"to":[]}"#)?.recipients.count, 0)
    }

    func testMissingTo() {
        XCTAssertEqual(refuseSend(#"{"title":"t"}"#, .missingTo)?.message, #"child "to" fails because ["to" is required]. "value" must be an array."#)
        refuseSend(#"{"to":null}"#, .missingTo)
        XCTAssertEqual(refuseSend(#"[{"to":"\#(tok("a"))"},{}]"#, .missingTo)?.message,
                       #""value" at position 1 fails because [child "to" fails because ["to" is required]]."#)
    }

    func testToArrayItemsMustBeStrings() {
        XCTAssertEqual(refuseSend(#"{"to":["\#(tok("a"))",7]}"#, .fieldType)?.message,
                       #"child "to" fails because ["to" at position 1 fails because ["1" must be a string]]. "value" must be an array."#)
        XCTAssertEqual(refuseSend(#"[{"to":[null]}]"#, .fieldType)?.message,
                       #""value" at position 0 fails because [child "to" fails because ["to" at position 0 fails because ["0" must be a string]]]."#)
    }

    // MARK: Message fields (§2 table)

    func testEveryFieldAccepted() throws {
        let body = #"""
        {"to":"\#(tok("a"))","data":{"k":[1,{"x":null}]},"title":"T","body":"B","subtitle":"S","sound":"default",
         "ttl":60,"expiration":1700000000.5,"priority":"high","badge":0,"channelId":"c","categoryId":"cat",
         "mutableContent":true,"interruptionLevel":"time-sensitive","icon":"i.png","richContent":{"image":"https://x/i.png"},
         "collapseId":"col","tag":"t","_contentAvailable":true,"_displayInForeground":false}
        """#
        let m = try XCTUnwrap(acceptSend(body)).messages[0]
        XCTAssertEqual(m.data, ["k": [1, ["x": nil]]])
        XCTAssertEqual(m.title, "T"); XCTAssertEqual(m.body, "B"); XCTAssertEqual(m.subtitle, "S")
        XCTAssertEqual(m.sound, .default)
        XCTAssertEqual(m.ttl, 60); XCTAssertEqual(m.expiration, 1_700_000_000.5)
        XCTAssertEqual(m.priority, .high); XCTAssertEqual(m.badge, 0)
        XCTAssertEqual(m.channelId, "c"); XCTAssertEqual(m.categoryId, "cat")
        XCTAssertEqual(m.mutableContent, true); XCTAssertEqual(m.interruptionLevel, .timeSensitive)
        XCTAssertEqual(m.icon, "i.png"); XCTAssertEqual(m.richContent, ["image": "https://x/i.png"])
        XCTAssertEqual(m.collapseId, "col"); XCTAssertEqual(m.tag, "t")
        XCTAssertEqual(m.contentAvailable, true); XCTAssertEqual(m.displayInForeground, false)
        XCTAssertEqual(m.unknownFields, [])
        XCTAssertEqual(ExpoPushMessage.fieldNames.count, 20)
    }

    func testEachFieldOfTheWrongType() {
        let cases: [(String, String, String)] = [
            ("data", "\"x\"", #""data" must be an object"#), ("data", "[1]", #""data" must be an object"#),
            ("title", "1", #""title" must be a string"#), ("body", "{}", #""body" must be a string"#),
            ("subtitle", "true", #""subtitle" must be a string"#),
            ("ttl", "\"60\"", #""ttl" must be a number"#), ("expiration", "[]", #""expiration" must be a number"#),
            ("badge", "\"1\"", #""badge" must be a number"#),
            ("channelId", "5", #""channelId" must be a string"#), ("categoryId", "false", #""categoryId" must be a string"#),
            ("mutableContent", "\"true\"", #""mutableContent" must be a boolean"#),
            ("_contentAvailable", "1", #""_contentAvailable" must be a boolean"#),
            ("_displayInForeground", "\"no\"", #""_displayInForeground" must be a boolean"#),
            ("priority", "\"urgent\"", #""priority" must be one of [default, normal, high]"#),
            ("priority", "10", #""priority" must be one of [default, normal, high]"#),
            ("interruptionLevel", "\"loud\"", #""interruptionLevel" must be one of [active, critical, passive, time-sensitive]"#),
            ("sound", "\"chime.wav\"", #""sound" must be one of [default]"#), ("sound", "3", #""sound" must be a string"#),
        ]
        for (field, value, inner) in cases {
            let e = refuseSend("{\"to\":\"\(tok("a"))\",\"\(field)\":\(value)}", .fieldType)
            XCTAssertEqual(e?.message, "child \"\(field)\" fails because [\(inner)]. \"value\" must be an array.", "\(field): \(value)")
            XCTAssertEqual(e?.code, .apiError)
        }
    }

    func testEnumsAcceptEveryListedValue() {
        for p in ["default", "normal", "high"] { XCTAssertEqual(acceptSend("{\"to\":\"\(tok("a"))\",\"priority\":\"\(p)\"}")?.messages[0].priority?.rawValue, p) }
        for l in ["active", "critical", "passive", "time-sensitive"] {
            XCTAssertEqual(acceptSend("{\"to\":\"\(tok("a"))\",\"interruptionLevel\":\"\(l)\"}")?.messages[0].interruptionLevel?.rawValue, l)
        }
    }

    func testSoundForms() {
        func sound(_ v: String, _ c: ExpoSendDecoderConfiguration = .init()) -> ExpoSound? {
            acceptSend("{\"to\":\"\(tok("a"))\",\"sound\":\(v)}", c)?.messages[0].sound
        }
        XCTAssertEqual(sound("null"), ExpoSound.none)
        XCTAssertEqual(sound("\"default\""), .default)
        XCTAssertEqual(sound(#"{"critical":true,"name":"default","volume":0.5}"#), .object(critical: true, name: "default", volume: 0.5))
        XCTAssertEqual(sound(#"{"name":null}"#), .object(critical: nil, name: nil, volume: nil))
        XCTAssertEqual(sound("{}"), .object(critical: nil, name: nil, volume: nil))
        XCTAssertEqual(acceptSend("{\"to\":\"\(tok("a"))\"}")?.messages[0].sound, nil)
        var c = ExpoSendDecoderConfiguration()
        c.acceptCustomSoundNames = true
        XCTAssertEqual(sound("\"chime.wav\"", c), .named("chime.wav"))
        for (v, inner) in [(#"{"critical":"yes"}"#, #"child "critical" fails because ["critical" must be a boolean]"#),
                           (#"{"name":1}"#, #"child "name" fails because ["name" must be a string]"#),
                           (#"{"volume":"loud"}"#, #"child "volume" fails because ["volume" must be a number]"#)] {
            XCTAssertEqual(refuseSend("{\"to\":\"\(tok("a"))\",\"sound\":\(v)}", .fieldType)?.message,
                           "child \"sound\" fails because [\(inner)]. \"value\" must be an array.")
        }
    }

    func testNullFieldsCountAsAbsent() throws {
        let m = try XCTUnwrap(acceptSend(#"{"to":"\#(tok("a"))","title":null,"badge":null,"data":null,"priority":null}"#)).messages[0]
        XCTAssertNil(m.title); XCTAssertNil(m.badge); XCTAssertNil(m.data); XCTAssertNil(m.priority)
    }

    func testFirstOccurrenceOfARepeatedMemberWins() {
        XCTAssertEqual(acceptSend(#"{"to":"\#(tok("a"))","title":"one","title":2}"#)?.messages[0].title, "one")
    }

    func testUnknownFieldsAcceptedByDefaultRefusedOnRequest() {
        XCTAssertEqual(acceptSend(#"{"to":"\#(tok("a"))","foo":1,"bar":2,"foo":3}"#)?.messages[0].unknownFields, ["foo", "bar"])
        var c = ExpoSendDecoderConfiguration()
        c.unknownFields = .reject
        XCTAssertEqual(refuseSend(#"{"to":"\#(tok("a"))","foo":1}"#, .unknownField, c)?.message,
                       #"child "foo" fails because ["foo" is not allowed]. "value" must be an array."#)
        XCTAssertEqual(refuseSend(#"{"to":"\#(tok("a"))","sound":{"pitch":2}}"#, .unknownField, c)?.message,
                       #"child "sound" fails because [child "pitch" fails because ["pitch" is not allowed]]. "value" must be an array."#)
        XCTAssertNotNil(acceptSend(#"{"to":"\#(tok("a"))","sound":{"pitch":2}}"#))
    }

    func testSDKOnlyFieldsKeptAsSentUnlessChecked() {
        let loose = #"{"to":"\#(tok("a"))","icon":5,"richContent":"x","collapseId":[1],"tag":{}}"#
        let m = acceptSend(loose)?.messages[0]
        XCTAssertEqual(m?.icon, 5); XCTAssertEqual(m?.richContent, "x"); XCTAssertEqual(m?.collapseId, [1]); XCTAssertEqual(m?.tag, [:])
        var c = ExpoSendDecoderConfiguration()
        c.checkSDKOnlyFields = true
        XCTAssertEqual(refuseSend(loose, .fieldType, c)?.message, #"child "icon" fails because ["icon" must be a string]. "value" must be an array."#)
        XCTAssertEqual(refuseSend(#"{"to":"\#(tok("a"))","richContent":{"image":3}}"#, .fieldType, c)?.message,
                       #"child "richContent" fails because [child "image" fails because ["image" must be a string]]. "value" must be an array."#)
        refuseSend(#"{"to":"\#(tok("a"))","richContent":"x"}"#, .fieldType, c)
        XCTAssertNotNil(acceptSend(#"{"to":"\#(tok("a"))","icon":"i","richContent":{"image":"u"},"collapseId":"c","tag":"t"}"#, c))
    }

    func testCustomFieldProblemText() {
        var c = ExpoSendDecoderConfiguration()
        c.fieldProblemText = { p in "bad \(p.path.joined(separator: "."))" }
        XCTAssertEqual(refuseSend(#"{"to":"\#(tok("a"))","sound":{"name":1}}"#, .fieldType, c)?.message, "bad sound.name")
    }

    // MARK: Recipient limit (§1: ≤ 100, every `to` entry counts)

    func testOneHundredRecipientsAcceptedOneHundredAndOneRefused() {
        func body(_ n: Int, perMessage: Int) -> String {
            var messages: [String] = []
            var i = 0
            while i < n {
                let k = min(perMessage, n - i)
                messages.append("{\"to\":[" + (i..<(i + k)).map { "\"\(tok("a\($0)"))\"" }.joined(separator: ",") + "]}")
                i += k
            }
            return "[" + messages.joined(separator: ",") + "]"
        }
        XCTAssertEqual(acceptSend(body(100, perMessage: 100))?.recipients.count, 100)
        XCTAssertEqual(acceptSend(body(100, perMessage: 7))?.recipients.count, 100)
        XCTAssertEqual(refuseSend(body(101, perMessage: 1), .tooManyRecipients)?.message,
                       "You can send a maximum of 100 notifications per request (received 101); divide your requests.")
        XCTAssertEqual(refuseSend(body(101, perMessage: 50), .tooManyRecipients)?.code, .tooManyNotifications)
        // Invalid tokens count too: the limit is on recipients, not deliveries.
        let bad = "{\"to\":[" + (0..<101).map { _ in "\"nope\"" }.joined(separator: ",") + "]}"
        refuseSend(bad, .tooManyRecipients)
        var c = ExpoSendDecoderConfiguration()
        c.maxRecipients = 3
        XCTAssertEqual(refuseSend(body(4, perMessage: 2), .tooManyRecipients, c)?.message,
                       "You can send a maximum of 3 notifications per request (received 4); divide your requests.")
    }

    // MARK: Tokens (§5)

    func testTokenForms() {
        XCTAssertEqual(ExpoPushTokenForm.of("ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]"), .exponentPushToken)
        XCTAssertEqual(ExpoPushTokenForm.of("ExpoPushToken[abc]"), .expoPushToken)
        XCTAssertEqual(ExpoPushTokenForm.of("0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d"), .bareUUID)
        XCTAssertEqual(ExpoPushTokenForm.of("ABCDEFGH-IJKL-MNOP-QRST-UVWXYZ012345"), .bareUUID)
        for bad in ["", "ExponentPushToken[]", "ExponentPushToken[abc", "ExponentPushToken", "exponentpushtoken[abc]",
                    "ExpoPushToken[", "FooPushToken[abc]", "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5", "0a1b2c3d_4e5f-6a7b-8c9d-0e1f2a3b4c5d",
                    "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5!", "dGVzdA:APA91bH", "ExponentPushToken[abc]x"] {
            XCTAssertNil(ExpoPushTokenForm.of(bad), bad)
        }
    }

    func testMalformedTokenGetsTheDeviceNotRegisteredTicketInItsPlace() throws {
        let r = try XCTUnwrap(acceptSend(#"{"to":["\#(tok("a1"))","not-a-token","ExpoPushToken[a2]"]}"#))
        XCTAssertEqual(r.recipients.map(\.form), [.exponentPushToken, nil, .expoPushToken])
        XCTAssertEqual(r.recipients[1].verdict, .refused(.deviceNotRegistered(token: "not-a-token"), .tokenFormat))
        XCTAssertNil(r.recipients[1].project)
        XCTAssertEqual(r.recipients[1].verdict.rule, .tokenFormat)
        XCTAssertEqual(r.recipients[0].verdict, .deliverable)
        XCTAssertEqual(r.recipients[2].verdict, .deliverable)
    }

    func testTokenFormsCanBeNarrowedAndMalformedTokensCanRefuseTheRequest() throws {
        var c = ExpoSendDecoderConfiguration()
        c.acceptedTokenForms = [.exponentPushToken]
        let r = try XCTUnwrap(acceptSend(#"{"to":["ExpoPushToken[a]","0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d"]}"#, c))
        XCTAssertEqual(r.recipients.map(\.verdict.rule), [.tokenFormat, .tokenFormat])
        c = ExpoSendDecoderConfiguration()
        c.invalidToken = .requestError
        XCTAssertEqual(refuseSend(#"{"to":["\#(tok("a"))","x"]}"#, .tokenFormat, c)?.message,
                       #"child "to" fails because ["to" at position 1 fails because ["1" must be a valid push token]]. "value" must be an array."#)
        XCTAssertEqual(refuseSend(#"[{"to":"x"}]"#, .tokenFormat, c)?.message,
                       #""value" at position 0 fails because [child "to" fails because ["to" must be a valid push token]]."#)
    }

    // MARK: One project (§1)

    func testOneProjectPerRequest() throws {
        XCTAssertEqual(acceptSend(#"[{"to":"\#(tok("a"))"},{"to":["\#(tok("b"))","\#(tok("c"))"]}]"#)?.project, "@username/projectAAA")
        XCTAssertEqual(acceptSend(#"{"to":["\#(tok("B1"))","\#(tok("B2"))"]}"#)?.project, "@username/projectBBB")
        // Unknown and malformed tokens belong to no project and do not conflict.
        let r = try XCTUnwrap(acceptSend(#"{"to":["\#(tok("U1"))","\#(tok("B1"))","zzz"]}"#))
        XCTAssertEqual(r.project, "@username/projectBBB")
        XCTAssertEqual(r.recipients.map(\.project), [nil, "@username/projectBBB", nil])
        XCTAssertNil(acceptSend(#"{"to":"\#(tok("U1"))"}"#)?.project)
        let e = refuseSend(#"{"to":["\#(tok("a"))","\#(tok("B"))"]}"#, .oneProject)
        XCTAssertEqual(e?.code, .tooManyExperienceIDs)
        XCTAssertEqual(e?.message, ExpoRequestError.tooManyExperienceIDsMessage)
    }

    func testRecipientLimitIsCheckedBeforeProjects() {
        let to = (0..<101).map { "\"\(tok($0 % 2 == 0 ? "a\($0)" : "B\($0)"))\"" }.joined(separator: ",")
        refuseSend("{\"to\":[\(to)]}", .tooManyRecipients)
    }

    // MARK: Size (§1: 4096 bytes per message)

    func testPayloadSizeLimitDefaultsToAMessageTooBigReceipt() throws {
        // {"data":{"k":"…"}} is 17 bytes plus the string: 4079 characters make exactly 4096.
        let fits = String(repeating: "x", count: 4079), over = fits + "x"
        let ok = try XCTUnwrap(acceptSend("{\"to\":\"\(tok("a"))\",\"data\":{\"k\":\"\(fits)\"}}"))
        XCTAssertEqual(ok.messages[0].payloadBytes, 4096)
        XCTAssertEqual(ok.recipients[0].verdict, .deliverable)
        let big = try XCTUnwrap(acceptSend("[{\"to\":[\"\(tok("a"))\",\"bad\"],\"data\":{\"k\":\"\(over)\"}},{\"to\":\"\(tok("b"))\"}]"))
        XCTAssertEqual(big.messages[0].payloadBytes, 4097)
        XCTAssertEqual(big.recipients[0].verdict, .acceptedWithReceipt(.messageTooBig, .messageSize))
        // A recipient already refused keeps its ticket; the other message is unaffected.
        XCTAssertEqual(big.recipients[1].verdict.rule, .tokenFormat)
        XCTAssertEqual(big.recipients[2].verdict, .deliverable)
    }

    func testPayloadSizeAsATicketAndOtherMeasures() throws {
        var c = ExpoSendDecoderConfiguration()
        c.messageTooBig = .ticket
        c.maxPayloadBytes = 20
        let r = try XCTUnwrap(acceptSend(#"{"to":"\#(tok("a"))","title":"0123456789"}"#, c))  // {"title":"0123456789"}: 22
        XCTAssertEqual(r.messages[0].payloadBytes, 22)
        XCTAssertEqual(r.recipients[0].verdict, .refused(.messageTooBig(limit: 20), .messageSize))
        XCTAssertEqual(ExpoTicket.messageTooBig(limit: 20).json.compactJSON,
                       #"{"status":"error","message":"Message too big: the total notification payload must be at most 20 bytes.","details":{"error":"MessageTooBig"}}"#)
        c.payloadMeasure = .wholeMessage
        c.maxPayloadBytes = 4096
        let whole = try XCTUnwrap(acceptSend(#"{"to":"\#(tok("a"))","title":"t"}"#, c))
        XCTAssertEqual(whole.messages[0].payloadBytes, #"{"to":"ExponentPushToken[a]","title":"t"}"#.utf8.count)
    }

    // MARK: Tickets in recipient order (§2, §3.1)

    func testTicketsFollowRecipientOrderAcrossMessages() throws {
        let r = try XCTUnwrap(acceptSend(#"[{"to":["\#(tok("a1"))","bad1","\#(tok("a2"))"]},{"to":"\#(tok("a3"))"},{"to":["bad2","\#(tok("a4"))"]}]"#))
        var asked: [String] = []
        let tickets = r.tickets { rec in
            asked.append(rec.token)
            return rec.token == tok("a3") ? .deviceNotRegistered(token: rec.token) : .ok(id: "id-\(rec.index)")
        }
        XCTAssertEqual(asked, [tok("a1"), tok("a2"), tok("a3"), tok("a4")])
        XCTAssertEqual(tickets, [.ok(id: "id-0"), .deviceNotRegistered(token: "bad1"), .ok(id: "id-2"),
                                 .deviceNotRegistered(token: tok("a3")), .deviceNotRegistered(token: "bad2"), .ok(id: "id-5")])
        XCTAssertEqual(String(decoding: ExpoSendResponse.body(tickets), as: UTF8.self).components(separatedBy: "\"status\"").count - 1, 6)
    }

    func testTicketsWithAReceiptStore() throws {
        let ids = SequentialIDs()
        let store = ExpoReceiptStore(idGenerator: { ids() })
        let r = try XCTUnwrap(acceptSend(#"{"to":["\#(tok("a1"))","\#(tok("a2"))","x"]}"#))
        let tickets = r.tickets { rec in store.issue(rec.token == tok("a2") ? .deviceNotRegistered(token: rec.token) : .ok, now: 0) }
        XCTAssertEqual(tickets.map(\.id), ["T1", "T2", nil])
        XCTAssertEqual(String(decoding: ExpoSendResponse.body(tickets), as: UTF8.self),
                       #"{"data":[{"status":"ok","id":"T1"},{"status":"ok","id":"T2"},{"status":"error","message":"\"x\" is not a registered push notification recipient","details":{"error":"DeviceNotRegistered","expoPushToken":"x"}}]}"#)
        XCTAssertEqual(store.receipts(for: ["T2", "T1"], now: 1).map(\.id), ["T2", "T1"])
    }
}
