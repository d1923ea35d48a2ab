import XCTest
import PushDoubleJSON
@testable import PushDoubleFCM

/// The request-level, target, data and size rules of ``FCMSendRequestValidator`` (docs/fcm.md §2, §2.1, §4.3, §4.5).
final class FCMSendRequestValidatorTests: XCTestCase {
    // MARK: Body and request (docs/fcm.md §2)

    func testBodyThatIsNotJSONOrNotAnObject() {
        let e = refuse("{\"message\":", .bodyNotJSON)
        XCTAssertEqual(e?.envelope, .invalidArgument)
        XCTAssertEqual(e?.httpStatus, 400)
        XCTAssertEqual(e?.fcmErrorCode, .invalidArgument)
        refuse("[1]", .bodyNotObject)
        refuse("\"x\"", .bodyNotObject)
    }

    func testValidateOnlyInBothCasings() {
        XCTAssertEqual(accept(msg(#""token":"t""#, validateOnly: "true"))?.validateOnly, true)
        XCTAssertEqual(accept(#"{"message":{"token":"t"},"validateOnly":true}"#)?.validateOnly, true)
        XCTAssertEqual(accept(msg(#""token":"t""#))?.validateOnly, false)
        XCTAssertEqual(accept(msg(#""token":"t""#, validateOnly: "false"))?.validateOnly, false)
        let e = refuse(msg(#""token":"t""#, validateOnly: "\"yes\""), .wrongType, field: "validate_only")
        XCTAssertEqual(e?.message, #"Invalid value at 'validate_only' (TYPE_BOOL), "yes""#)
    }

    /// The first occurrence of a field wins in either spelling and `null` is absent, whether
    /// the object is otherwise plain (snake_case only) or not.
    func testRepeatedAndNullFieldsInEitherSpelling() {
        XCTAssertEqual(accept(msg(#""token":"a","token":"b""#))?.target, .token("a"))
        XCTAssertEqual(accept(msg(#""token":null,"token":"b""#))?.target, .token("b"))
        XCTAssertNil(accept(msg(#""token":"t","notification":null"#))?.notification)
        XCTAssertEqual(accept(msg(#""token":"t","android":{"ttl":"1s","ttl":"2s"}"#))?.android?.ttl?.seconds, 1)
        XCTAssertEqual(accept(msg(#""token":"t","android":{"collapse_key":"a","collapseKey":"b"}"#))?.android?.collapseKey, "a")
        XCTAssertEqual(accept(msg(#""token":"t","android":{"collapseKey":"b","collapse_key":"a"}"#))?.android?.collapseKey, "b")
        XCTAssertEqual(accept(msg(#""token":"t","android":{"collapse_key":null,"collapseKey":"b"}"#))?.android?.collapseKey, "b")
        XCTAssertEqual(accept(msg(#""token":"t","android":{"ttl":"1s","foo":1}"#))?.unknownFields, ["message.android.foo"])
    }

    func testMessageThatIsNotAnObject() {
        let e = refuse(#"{"message":5}"#, .wrongType, field: "message")
        XCTAssertEqual(e?.message, "Invalid value at 'message' (TYPE_MESSAGE), 5")
        XCTAssertEqual(e?.detailTypes, [GoogleErrorDetail.badRequestType])
    }

    func testMissingMessageIsMissingRecipient() {
        XCTAssertEqual(refuse(#"{"validate_only":true}"#, .missingTarget)?.envelope, .missingRecipient)
        XCTAssertEqual(refuse("{}", .missingTarget)?.envelope, .missingRecipient)
    }

    // MARK: Targets (docs/fcm.md §2.1)

    func testEachTargetAlone() {
        XCTAssertEqual(accept(msg(#""token":"abc""#))?.target, .token("abc"))
        XCTAssertEqual(accept(msg(#""topic":"news""#))?.target, .topic("news"))
        XCTAssertEqual(accept(msg(#""condition":"'foo' in topics && 'bar' in topics""#))?.target, .condition("'foo' in topics && 'bar' in topics"))
        XCTAssertEqual(accept(msg(#""fid":"cXl1Ymk""#))?.target, .fid("cXl1Ymk"))
    }

    func testNoTargetIsTheRecordedMissingRecipientBody() {
        let e = refuse(msg(#""data":{"a":"b"}"#), .missingTarget, field: "message")
        XCTAssertEqual(e?.envelope, .missingRecipient)
        XCTAssertEqual(e?.message, "Recipient of the message is not set.")
        XCTAssertEqual(e?.detailTypes, [GoogleErrorDetail.badRequestType, GoogleErrorDetail.fcmErrorType])
        // null is proto3 JSON for "not set".
        refuse(msg(#""token":null"#), .missingTarget)
    }

    func testMoreThanOneTarget() {
        let e = refuse(msg(#""token":"t","topic":"news""#), .multipleTargets)
        XCTAssertEqual(e?.envelope, .invalidArgument)
        refuse(msg(#""condition":"'a' in topics","fid":"f""#), .multipleTargets)
        // Presence counts, not content: an empty token next to a topic is still two targets.
        refuse(msg(#""token":"","topic":"news""#), .multipleTargets)
        // An empty token alone is a target; whether it is a valid token is the wiring's call.
        XCTAssertEqual(accept(msg(#""token":"""#))?.target, .token(""))
    }

    func testFIDCanBeTurnedOff() {
        var c = FCMValidatorConfiguration()
        c.acceptFID = false
        refuse(msg(#""fid":"f""#), .fidNotAccepted, field: "message.fid", c)
    }

    func testTargetOfTheWrongType() {
        let e = refuse(msg(#""token":5"#), .wrongType, field: "message.token")
        XCTAssertEqual(e?.message, "Invalid value at 'message.token' (TYPE_STRING), 5")
        XCTAssertNil(e?.fcmErrorCode)
    }

    func testTopicNames() {
        for ok in ["news", "/topics/news", "private/x", "/topics/private/x", "a~b%c.d-e_f", "ABC123"] {
            XCTAssertNotNil(accept(msg("\"topic\":\"\(ok)\"")), ok)
        }
        for bad in ["bad topic", "", "a/b", "/topics/", "private/", "caf\u{e9}", "a+b"] {
            refuse(msg("\"topic\":\"\(bad)\""), .topicName, field: "message.topic")
        }
        var c = FCMValidatorConfiguration()
        c.acceptTopicsPrefix = false
        refuse(msg(#""topic":"/topics/news""#), .topicName, c)
        XCTAssertNotNil(accept(msg(#""topic":"news""#), c))
    }

    func testConditions() {
        let good = ["'foo' in topics && 'bar' in topics", "'a' in topics || ('b' in topics && !('c' in topics))",
                    "\\\"a\\\" in topics", "!'a' in topics", "  'a'   in   topics  ", "('a' in topics)||'b' in topics"]
        for c in good { XCTAssertNotNil(accept(msg("\"condition\":\"\(c)\"")), c) }
        let bad = ["'a' in topic", "'a' topics", "'a b' in topics", "'a' in topics &&", "('a' in topics", "",
                   "'a' in topicsX", "'a' intopics", "a in topics", "'a' in topics & 'b' in topics", "'' in topics",
                   "'a\\\" in topics"]
        for c in bad { refuse(msg("\"condition\":\"\(c)\""), .conditionSyntax, field: "message.condition") }
        XCTAssertEqual(FCMTopicSyntax.conditionTopics("'foo' in topics && ('bar' in topics || !'baz' in topics)"), ["foo", "bar", "baz"])
        XCTAssertNil(FCMTopicSyntax.conditionTopics(String(repeating: "(", count: 100) + "'a' in topics" + String(repeating: ")", count: 100)))
    }

    // MARK: data (docs/fcm.md §2.1, §4.3 doc example 1)

    func testDataValuesAreStrings() {
        let m = accept(msg(#""token":"t","data":{"a":"1","b":"x"}"#))
        XCTAssertEqual(m?.data, FCMStringMap(["a": "1", "b": "x"]))
        let e = refuse(msg(#""token":"t","data":{"score":12}"#), .wrongType, field: "message.data[0].value")
        XCTAssertEqual(e?.envelope, .invalidValue(field: "message.data[0].value", protoType: "TYPE_STRING", valueText: "12"))
        XCTAssertEqual(e?.message, "Invalid value at 'message.data[0].value' (TYPE_STRING), 12")
        XCTAssertEqual(e?.detailTypes, [GoogleErrorDetail.badRequestType])
        XCTAssertNil(e?.fcmErrorCode)
        XCTAssertEqual(refuse(msg(#""token":"t","data":{"a":"x","b":true}"#), .wrongType)?.field, "message.data[1].value")
        XCTAssertEqual(refuse(msg(#""token":"t","data":{"a":null}"#), .wrongType)?.message, "Invalid value at 'message.data[0].value' (TYPE_STRING), null")
        XCTAssertEqual(refuse(msg(#""token":"t","data":["a"]"#), .wrongType)?.field, "message.data")
    }

    func testTypeErrorsComeBeforeTheTargetCheck() {
        // Decoding (types) runs before FCM's checks, so a typed error wins over "no recipient".
        refuse(msg(#""data":{"a":1}"#), .wrongType)
    }

    func testReservedDataKeys() {
        for key in ["from", "message_type", "google", "google.c.a.e", "googleFoo", "gcm", "gcm.notification.title", "gcmX"] {
            let e = refuse(msg("\"token\":\"t\",\"data\":{\"ok\":\"1\",\"\(key)\":\"v\"}"), .reservedDataKey, field: "message.data[1].key")
            // docs/fcm.md §4.3a: the generic envelope, its message naming the key.
            var expected = GoogleErrorEnvelope.invalidArgument
            expected.message = "Invalid data payload key: " + key
            XCTAssertEqual(e?.envelope, expected, key)
        }
        for key in ["fromage", "my_google", "Google", "GCM", "message", "type"] {
            XCTAssertNotNil(accept(msg("\"token\":\"t\",\"data\":{\"\(key)\":\"v\"}")), key)
        }
        // docs/fcm.md lists the reserved keys for message.data only.
        XCTAssertNotNil(accept(msg(#""token":"t","android":{"data":{"from":"x"}}"#)))
        // The older docs' dotted prefixes, as an option.
        var c = FCMValidatorConfiguration()
        c.reservedDataKeyPrefixes = ["google.", "gcm.notification."]
        XCTAssertNotNil(accept(msg(#""token":"t","data":{"googleFoo":"v","gcmX":"v"}"#), c))
        refuse(msg(#""token":"t","data":{"google.x":"v"}"#), .reservedDataKey, c)
        // Keys and prefixes compare as Strings do (canonical equivalence), also on the byte
        // path: U+212A KELVIN SIGN equals K, e + U+0301 starts with é.
        var k = FCMValidatorConfiguration()
        k.reservedDataKeys = ["K1"]
        k.reservedDataKeyPrefixes = ["é"]
        refuse(msg("\"token\":\"t\",\"data\":{\"\u{212A}1\":\"v\"}"), .reservedDataKey, k)
        refuse(msg("\"token\":\"t\",\"data\":{\"e\u{301}x\":\"v\"}"), .reservedDataKey, k)
        XCTAssertNotNil(accept(msg(#""token":"t","data":{"k1":"v","ex":"v","K":"v"}"#), k))
    }

    // MARK: notification (docs/fcm.md §2.1)

    func testNotification() {
        let m = accept(msg(#""token":"t","notification":{"title":"T","body":"B","image":"https://i"}"#))
        XCTAssertEqual(m?.notification, FCMNotification(title: "T", body: "B", image: "https://i"))
        XCTAssertEqual(refuse(msg(#""token":"t","notification":{"title":1}"#), .wrongType)?.field, "message.notification.title")
        XCTAssertEqual(refuse(msg(#""token":"t","notification":"x""#), .wrongType)?.message,
                       #"Invalid value at 'message.notification' (TYPE_MESSAGE), "x""#)
    }

    // MARK: Unknown fields (docs/fcm.md records no error for them)

    func testUnknownFieldsAreAcceptedAndListedByDefault() {
        let m = accept(#"{"message":{"token":"t","foo":1,"android":{"bar":true,"notification":{"baz":"x"}}},"dry_run":true}"#)
        XCTAssertEqual(m?.unknownFields, ["dry_run", "message.foo", "message.android.bar", "message.android.notification.baz"])
    }

    func testUnknownFieldsCanBeRefused() {
        var c = FCMValidatorConfiguration()
        c.unknownFields = .reject
        XCTAssertEqual(refuse(msg(#""token":"t","android":{"colapse_key":"x"}"#), .unknownField, c)?.field, "message.android.colapse_key")
        refuse(#"{"message":{"token":"t"},"dry_run":true}"#, .unknownField, field: "dry_run", c)
        // A mixed spelling is not one of the two accepted forms.
        refuse(msg(#""token":"t","android":{"collapse_Key":"x"}"#), .unknownField, c)
        XCTAssertNotNil(accept(msg(#""token":"t","android":{"collapseKey":"x"}"#), c))
    }

    func testFirstSpellingOfAFieldWins() {
        XCTAssertEqual(accept(msg(#""token":"t","android":{"collapse_key":"a","collapseKey":"b"}"#))?.android?.collapseKey, "a")
        XCTAssertEqual(accept(msg(#""token":"t","android":{"collapseKey":"b","collapse_key":"a"}"#))?.android?.collapseKey, "b")
    }

    func testOutputOnlyNameIsAccepted() {
        XCTAssertNotNil(accept(msg(#""name":"projects/p/messages/1","token":"t""#)))
        refuse(msg(#""name":1,"token":"t""#), .wrongType, field: "message.name")
    }

    // MARK: Analytics label (docs/fcm.md §2.1, server rule UNCONFIRMED)

    func testAnalyticsLabelIsUncheckedByDefaultAndCheckable() {
        let body = msg(#""token":"t","fcm_options":{"analytics_label":"bad label!"}"#)
        XCTAssertEqual(accept(body)?.fcmOptions?.analyticsLabel, "bad label!")
        var c = FCMValidatorConfiguration()
        c.checkAnalyticsLabel = true
        refuse(body, .analyticsLabel, field: "message.fcm_options.analytics_label", c)
        XCTAssertNotNil(accept(msg("\"token\":\"t\",\"fcmOptions\":{\"analyticsLabel\":\"\(String(repeating: "a", count: 50))\"}"), c))
        refuse(msg("\"token\":\"t\",\"fcmOptions\":{\"analyticsLabel\":\"\(String(repeating: "a", count: 51))\"}"), .analyticsLabel, c)
        refuse(msg(#""token":"t","android":{"fcm_options":{"analytics_label":""}}"#), .analyticsLabel, field: "message.android.fcm_options.analytics_label", c)
        refuse(msg(#""token":"t","apns":{"fcm_options":{"analytics_label":"a b"}}"#), .analyticsLabel, field: "message.apns.fcm_options.analytics_label", c)
        refuse(msg(#""token":"t","webpush":{"fcm_options":{"analytics_label":"a b"}}"#), .analyticsLabel, field: "message.webpush.fcm_options.analytics_label", c)
    }

    // MARK: Payload size (docs/fcm.md §4.5, error §4.3)

    /// `data` with one key `k` and a value filling the payload to `total` bytes.
    private func dataOf(total: Int, target: String = #""token":"t""#) -> String {
        msg(target + ",\"data\":{\"k\":\"" + String(repeating: "v", count: total - 1) + "\"}")
    }

    func testPayloadLimitForTokenMessages() {
        XCTAssertEqual(accept(dataOf(total: 4096))?.payloadBytes, 4096)
        let e = refuse(dataOf(total: 4097), .payloadTooLarge, field: "message")
        XCTAssertEqual(e?.envelope, .payloadTooLarge)
        XCTAssertEqual(e?.message, "Android message is too big")
    }

    func testPayloadLimitForTopicMessages() {
        XCTAssertNotNil(accept(dataOf(total: 2048, target: #""topic":"news""#)))
        refuse(dataOf(total: 2049, target: #""topic":"news""#), .payloadTooLarge)
        // Conditions use the general limit unless configured.
        XCTAssertNotNil(accept(dataOf(total: 4096, target: #""condition":"'a' in topics""#)))
        var c = FCMValidatorConfiguration()
        c.conditionUsesTopicLimit = true
        refuse(dataOf(total: 2049, target: #""condition":"'a' in topics""#), .payloadTooLarge, c)
    }

    func testNotificationAndMultibyteCharactersCount() {
        // "title" (5) + "é"×2 (4 bytes) = 9; data "k"+"vvv" = 4.
        XCTAssertEqual(accept(msg(#""token":"t","data":{"k":"vvv"},"notification":{"title":"éé"}"#))?.payloadBytes, 13)
        var c = FCMValidatorConfiguration()
        c.maxPayloadBytes = 12
        refuse(msg(#""token":"t","data":{"k":"vvv"},"notification":{"title":"éé"}"#), .payloadTooLarge, c)
    }

    /// docs/fcm.md "Payload size": the Android message counts, so a long
    /// `android.notification.body` is too big although `message.data` and
    /// `message.notification` are small.
    func testAndroidBlockCounts() {
        let long = String(repeating: "b", count: 5000)
        let e = refuse(msg(#""token":"t","android":{"notification":{"body":"\#(long)"}}"#), .payloadTooLarge, field: "message")
        XCTAssertEqual(e?.message, "Android message is too big")
        // title 5 + 2, body 4 + 3 (android's over message's), channel_id 10 + 2, android.data k+v 2 (replaces message.data).
        XCTAssertEqual(accept(msg(#""token":"t","data":{"a":"1234567890"},"notification":{"title":"tt","body":"long message body"},"android":{"data":{"k":"v"},"notification":{"body":"bbb","channel_id":"c1"}}"#))?.payloadBytes,
                       max(11 + 5 + 2 + 4 + 17, 7 + 7 + 12 + 2))
        XCTAssertEqual(accept(msg(#""token":"t","android":{"notification":{"body_loc_args":["abc","de"],"body_loc_key":"k"}}"#))?.payloadBytes,
                       "body_loc_key".utf8.count + 1 + 5)
        // Without an android block the measure is message.data + message.notification.
        XCTAssertEqual(accept(msg(#""token":"t","data":{"k":"vvv"}"#))?.payloadBytes, 4)
    }

    func testWholeMessageMeasureAndLegacyBody() {
        var c = FCMValidatorConfiguration()
        c.payloadMeasure = .messageJSON
        c.maxPayloadBytes = 20
        // The message object {"token":"abcdefgh"} is 20 bytes of compact JSON.
        XCTAssertEqual(accept(msg(#""token":"abcdefgh""#), c)?.payloadBytes, 20)
        c.errorOverrides[.payloadTooLarge] = .payloadTooLargeLegacy
        XCTAssertEqual(refuse(msg(#""token":"abcdefghi""#), .payloadTooLarge, c)?.envelope, .payloadTooLargeLegacy)
    }

    // MARK: Data-only messages to iOS (docs/fcm.md §2.1)

    func testDataOnlyAPNsPriorityIsOffByDefaultAndCheckable() {
        let dataOnly = msg(#""token":"t","data":{"a":"b"},"apns":{"headers":{"apns-priority":"10"}}"#)
        XCTAssertNotNil(accept(dataOnly))
        var c = FCMValidatorConfiguration()
        c.checkDataOnlyAPNsPriority = true
        refuse(dataOnly, .dataOnlyAPNsPriority, field: "message.apns.headers", c)
        refuse(msg(#""token":"t","apns":{"headers":{"APNS-PRIORITY":"10"},"payload":{"aps":{"content-available":1}}}"#), .dataOnlyAPNsPriority, c)
        XCTAssertNotNil(accept(msg(#""token":"t","data":{"a":"b"},"apns":{"headers":{"apns-priority":"5"}}"#), c))
        XCTAssertNotNil(accept(msg(#""token":"t","notification":{"title":"x"},"apns":{"headers":{"apns-priority":"10"}}"#), c))
        XCTAssertNotNil(accept(msg(#""token":"t","apns":{"headers":{"apns-priority":"10"},"payload":{"aps":{"alert":"x"}}}"#), c))
    }

    // MARK: Error bodies of generic rules, overrides

    func testErrorOverridesReplaceARuleBody() {
        var c = FCMValidatorConfiguration()
        c.errorOverrides[.reservedDataKey] = .invalidRegistrationTokenLegacy
        XCTAssertEqual(refuse(msg(#""token":"t","data":{"from":"x"}"#), .reservedDataKey, c)?.envelope, .invalidRegistrationTokenLegacy)
        c.errorOverrides[.wrongType] = .invalidArgument
        XCTAssertEqual(refuse(msg(#""token":5"#), .wrongType, c)?.envelope, .invalidArgument)
    }

    func testDefaultBodyOfEveryRule() {
        let c = FCMValidatorConfiguration()
        for rule in FCMValidationRule.allCases {
            switch rule {
            case .missingTarget: XCTAssertEqual(c.error(for: rule), .missingRecipient)
            case .payloadTooLarge: XCTAssertEqual(c.error(for: rule), .payloadTooLarge)
            default: XCTAssertEqual(c.error(for: rule), .invalidArgument, rule.rawValue)
            }
        }
    }
}
