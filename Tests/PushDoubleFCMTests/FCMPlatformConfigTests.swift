import XCTest
import PushDoubleJSON
@testable import PushDoubleFCM

/// `android`, `apns` and `webpush` blocks (docs/fcm.md §2.2–§2.5), and both field casings on a
/// message that uses every field.
final class FCMPlatformConfigTests: XCTestCase {
    private func android(_ members: String) -> String { msg(#""token":"t","android":{"# + members + "}") }
    private func note(_ members: String) -> String { android(#""notification":{"# + members + "}") }

    // MARK: AndroidConfig (docs/fcm.md §2.2)

    func testAndroidFieldsInBothCasings() {
        let snake = accept(android(#""collapse_key":"c","restricted_package_name":"com.x","direct_boot_ok":true,"bandwidth_constrained_ok":false,"restricted_satellite_ok":true,"fcm_options":{"analytics_label":"l"},"data":{"k":"v"}"#))?.android
        let camel = accept(android(#""collapseKey":"c","restrictedPackageName":"com.x","directBootOk":true,"bandwidthConstrainedOk":false,"restrictedSatelliteOk":true,"fcmOptions":{"analyticsLabel":"l"},"data":{"k":"v"}"#))?.android
        XCTAssertEqual(snake, camel)
        XCTAssertEqual(snake?.collapseKey, "c")
        XCTAssertEqual(snake?.restrictedPackageName, "com.x")
        XCTAssertEqual(snake?.directBootOK, true)
        XCTAssertEqual(snake?.bandwidthConstrainedOK, false)
        XCTAssertEqual(snake?.restrictedSatelliteOK, true)
        XCTAssertEqual(snake?.fcmOptions?.analyticsLabel, "l")
        XCTAssertEqual(snake?.data, FCMStringMap(["k": "v"]))
        XCTAssertEqual(refuse(android(#""direct_boot_ok":"true""#), .wrongType)?.message,
                       #"Invalid value at 'message.android.direct_boot_ok' (TYPE_BOOL), "true""#)
        XCTAssertEqual(refuse(android(#""data":{"k":1}"#), .wrongType)?.field, "message.android.data[0].value")
    }

    func testAndroidPriorityAcceptsBothCases() {
        for (text, value) in [("high", FCMAndroidPriority.high), ("HIGH", .high), ("normal", .normal), ("NORMAL", .normal), ("High", .high),
                             ("h\u{131}gh", .high) /* dotless ı uppercases to I: Unicode uppercasing, as before the ASCII fast path */] {
            XCTAssertEqual(accept(android("\"priority\":\"\(text)\""))?.android?.priority, value, text)
        }
        for bad in [#""urgent""#, "5", #""""#, #""PRIORITY_HIGH""#, #""hig""#, #""highh""#, #""h\u00e9gh""#] {
            XCTAssertEqual(refuse(android("\"priority\":\(bad)"), .androidPriority, field: "message.android.priority")?.envelope, .invalidArgument)
        }
    }

    func testTTLFormat() {
        let cases: [(String, Int64, Int32, Int64)] = [("3.5s", 3, 500_000_000, 3), ("3s", 3, 0, 3), ("3.000000001s", 3, 1, 3),
                                                      ("0s", 0, 0, 0), ("2419200s", 2_419_200, 0, 2_419_200), ("0.999999999s", 0, 999_999_999, 0)]
        for (text, s, n, whole) in cases {
            let ttl = accept(android("\"ttl\":\"\(text)\""))?.android?.ttl
            XCTAssertEqual(ttl?.seconds, s, text)
            XCTAssertEqual(ttl?.nanos, n, text)
            XCTAssertEqual(ttl?.wholeSeconds, whole, text)
            XCTAssertEqual(ttl?.text, text)
        }
        for bad in [#""3""#, #""3.s""#, #"".5s""#, #""3.1234567890s""#, #""abc""#, "3", #""3 s""#, #""+3s""#, #""s""#, #""3S""#, #""1e3s""#] {
            refuse(android("\"ttl\":\(bad)"), .ttlFormat, field: "message.android.ttl")
        }
    }

    func testTTLRange() {
        // Fractions are rounded down before the range check (docs/fcm.md §2.2).
        XCTAssertEqual(accept(android(#""ttl":"2419200.9s""#))?.android?.ttl?.wholeSeconds, 2_419_200)
        for bad in ["2419201s", "-1s", "-0.5s", "99999999999s"] {
            XCTAssertEqual(refuse(android("\"ttl\":\"\(bad)\""), .ttlRange, field: "message.android.ttl")?.envelope, .invalidArgument, bad)
        }
        var c = FCMValidatorConfiguration()
        c.maxTTLSeconds = 60
        refuse(android(#""ttl":"61s""#), .ttlRange, c)
        XCTAssertNotNil(accept(android(#""ttl":"60s""#), c))
        XCTAssertEqual(FCMDuration("-3.5s")?.wholeSeconds, -4)
    }

    // MARK: AndroidNotification (docs/fcm.md §2.3)

    func testAndroidNotificationStringsAndFlagsInBothCasings() {
        let snake = ##""title":"T","body":"B","icon":"i","color":"#a1B2c3","sound":"s","tag":"g","click_action":"a","body_loc_key":"bk","title_loc_key":"tk","channel_id":"ch","ticker":"tc","image":"im","sticky":true,"local_only":false,"default_sound":true,"default_vibrate_timings":false,"default_light_settings":true,"bypass_proxy_notification":false"##
        let camel = ##""title":"T","body":"B","icon":"i","color":"#a1B2c3","sound":"s","tag":"g","clickAction":"a","bodyLocKey":"bk","titleLocKey":"tk","channelId":"ch","ticker":"tc","image":"im","sticky":true,"localOnly":false,"defaultSound":true,"defaultVibrateTimings":false,"defaultLightSettings":true,"bypassProxyNotification":false"##
        let a = accept(note(snake))?.android?.notification
        XCTAssertEqual(a, accept(note(camel))?.android?.notification)
        XCTAssertEqual(a?.strings.count, 12)
        XCTAssertEqual(a?.strings["channel_id"], "ch")
        XCTAssertEqual(a?.title, "T")
        XCTAssertEqual(a?.flags.count, 6)
        XCTAssertEqual(a?.flags["default_light_settings"], true)
        XCTAssertEqual(accept(android(#""notification":{}"#))?.android?.notification, FCMAndroidNotification())
    }

    func testColor() {
        for bad in ["red", "#12345", "#1234567", "#gggggg", "123456", "#12 456"] {
            refuse(note("\"color\":\"\(bad)\""), .colorFormat, field: "message.android.notification.color")
        }
        XCTAssertNotNil(accept(note(##""color":"#FFFFFF""##)))
    }

    func testLocArgs() {
        let a = accept(note(#""body_loc_args":["a","b"],"titleLocArgs":["c"]"#))?.android?.notification
        XCTAssertEqual(a?.bodyLocArgs, ["a", "b"])
        XCTAssertEqual(a?.titleLocArgs, ["c"])
        refuse(note(#""body_loc_args":["a",2]"#), .wrongType, field: "message.android.notification.body_loc_args[1]")
        refuse(note(#""title_loc_args":"a""#), .wrongType, field: "message.android.notification.title_loc_args")
    }

    func testEventTime() {
        for ok in ["2026-12-01T10:00:00Z", "2026-12-01T10:00:00.123456789+01:00", "2026-12-01t10:00:00z", "2016-12-31T23:59:60-08:00"] {
            XCTAssertEqual(accept(note("\"eventTime\":\"\(ok)\""))?.android?.notification?.eventTime, ok)
        }
        for bad in [#""2026-13-01T00:00:00Z""#, #""2026-12-01 10:00:00Z""#, #""yesterday""#, #""2026-12-01T10:00:00""#,
                    #""2026-12-01T10:00:00.Z""#, #""2026-12-01T24:00:00Z""#, #""2026-12-01T10:00:00+1:00""#, "1764583200"] {
            refuse(note("\"event_time\":\(bad)"), .timestampFormat, field: "message.android.notification.event_time")
        }
    }

    func testVibrateTimingsAndLightSettings() {
        let a = accept(note(#""vibrate_timings":["0.5s","1s"],"light_settings":{"color":{"red":1,"green":0.5,"blue":0,"alpha":1},"light_on_duration":"0.2s","lightOffDuration":"1s"}"#))?.android?.notification
        XCTAssertEqual(a?.vibrateTimings?.map(\.text), ["0.5s", "1s"])
        XCTAssertEqual(a?.lightSettings?.green, 0.5)
        XCTAssertEqual(a?.lightSettings?.lightOnDuration?.nanos, 200_000_000)
        XCTAssertEqual(a?.lightSettings?.lightOffDuration?.seconds, 1)
        refuse(note(#""vibrateTimings":["1s","1"]"#), .durationFormat, field: "message.android.notification.vibrate_timings[1]")
        refuse(note(#""vibrate_timings":"1s""#), .wrongType, field: "message.android.notification.vibrate_timings")
        refuse(note(#""light_settings":{"light_on_duration":"x"}"#), .durationFormat, field: "message.android.notification.light_settings.light_on_duration")
        XCTAssertEqual(refuse(note(#""light_settings":{"color":{"red":"1"}}"#), .wrongType)?.message,
                       #"Invalid value at 'message.android.notification.light_settings.color.red' (TYPE_FLOAT), "1""#)
    }

    func testNotificationCount() {
        XCTAssertEqual(accept(note(#""notification_count":3"#))?.android?.notification?.notificationCount, 3)
        XCTAssertEqual(accept(note(#""notificationCount":"7""#))?.android?.notification?.notificationCount, 7)
        XCTAssertEqual(accept(note(#""notification_count":-2147483648"#))?.android?.notification?.notificationCount, Int32.min)
        refuse(note(#""notification_count":2147483648"#), .int32Range, field: "message.android.notification.notification_count")
        XCTAssertEqual(refuse(note(#""notification_count":"x""#), .wrongType)?.message,
                       #"Invalid value at 'message.android.notification.notification_count' (TYPE_INT32), "x""#)
        refuse(note(#""notification_count":1.5"#), .wrongType)
        refuse(note(#""notification_count":true"#), .wrongType)
    }

    func testAndroidNotificationEnums() {
        for p in FCMAndroidNotification.notificationPriorities { XCTAssertEqual(accept(note("\"notification_priority\":\"\(p)\""))?.android?.notification?.notificationPriority, p) }
        for v in FCMAndroidNotification.visibilities { XCTAssertEqual(accept(note("\"visibility\":\"\(v)\""))?.android?.notification?.visibility, v) }
        for p in FCMAndroidNotification.proxies { XCTAssertEqual(accept(note("\"proxy\":\"\(p)\""))?.android?.notification?.proxy, p) }
        XCTAssertEqual(accept(note(#""notificationPriority":"PRIORITY_MAX""#))?.android?.notification?.notificationPriority, "PRIORITY_MAX")
        refuse(note(#""notification_priority":"high""#), .enumValue, field: "message.android.notification.notification_priority")
        refuse(note(#""visibility":"private""#), .enumValue, field: "message.android.notification.visibility")
        refuse(note(#""proxy":"NOPE""#), .enumValue, field: "message.android.notification.proxy")
        refuse(note(#""proxy":1"#), .enumValue)
    }

    // MARK: ApnsConfig (docs/fcm.md §2.4)

    func testApns() {
        let a = accept(msg(#""token":"t","apns":{"headers":{"apns-priority":"5","apns-push-type":"background"},"payload":{"aps":{"content-available":1},"x":[1]},"fcm_options":{"analytics_label":"l","image":"https://i"}}"#))?.apns
        XCTAssertEqual(a?.headers?["apns-priority"], "5")
        XCTAssertEqual(a?.headers?.value(forHeader: "APNS-PUSH-TYPE"), "background")
        XCTAssertEqual(a?.payload?["aps"]?["content-available"], .int(1))
        XCTAssertEqual(a?.fcmOptions, FCMOptions(analyticsLabel: "l", image: "https://i"))
        XCTAssertEqual(accept(msg(#""token":"t","apns":{"fcmOptions":{"analyticsLabel":"l","image":"https://i"}}"#))?.apns?.fcmOptions, a?.fcmOptions)
        refuse(msg(#""token":"t","apns":{"headers":{"apns-priority":5}}"#), .wrongType, field: "message.apns.headers[0].value")
        refuse(msg(#""token":"t","apns":{"payload":"x"}"#), .wrongType, field: "message.apns.payload")
        // The payload is arbitrary JSON: its members are not field names (no unknown fields).
        XCTAssertEqual(accept(msg(#""token":"t","apns":{"payload":{"anything_goes":{"deep":true}}}"#))?.unknownFields, [])
    }

    // MARK: WebpushConfig (docs/fcm.md §2.5)

    func testWebpush() {
        let w = accept(msg(#""token":"t","webpush":{"headers":{"TTL":"15"},"data":{"a":"b"},"notification":{"title":"T","actions":[]},"fcm_options":{"link":"https://example.com/x","analytics_label":"l"}}"#))?.webpush
        XCTAssertEqual(w?.headers?.value(forHeader: "ttl"), "15")
        XCTAssertEqual(w?.data, FCMStringMap(["a": "b"]))
        XCTAssertEqual(w?.notification?["title"], "T")
        XCTAssertEqual(w?.fcmOptions, FCMOptions(analyticsLabel: "l", link: "https://example.com/x"))
        XCTAssertNotNil(accept(msg(#""token":"t","webpush":{"fcmOptions":{"link":"HTTPS://example.com"}}"#)))
        for bad in ["http://example.com", "example.com", "https://", "ftp://x"] {
            refuse(msg("\"token\":\"t\",\"webpush\":{\"fcm_options\":{\"link\":\"\(bad)\"}}"), .webpushLink, field: "message.webpush.fcm_options.link")
        }
        refuse(msg(#""token":"t","webpush":{"data":{"a":1}}"#), .wrongType, field: "message.webpush.data[0].value")
        refuse(msg(#""token":"t","webpush":{"notification":[1]}"#), .wrongType, field: "message.webpush.notification")
    }

    // MARK: Both casings on a message with every field (docs/fcm.md §2)

    /// A message in the shape the Admin SDKs send (snake_case), every schema field used.
    static let everyFieldSnake = #"""
    {"message":{"token":"tok","data":{"snake_key":"v"},"notification":{"title":"T","body":"B","image":"https://i"},
     "fcm_options":{"analytics_label":"top"},
     "android":{"collapse_key":"c","priority":"high","ttl":"3.5s","restricted_package_name":"com.x","data":{"a_b":"c"},
       "fcm_options":{"analytics_label":"and"},"direct_boot_ok":true,"bandwidth_constrained_ok":true,"restricted_satellite_ok":false,
       "notification":{"title":"t","body":"b","icon":"i","color":"#000000","sound":"s","tag":"g","click_action":"ca",
         "body_loc_key":"bk","body_loc_args":["1"],"title_loc_key":"tk","title_loc_args":["2"],"channel_id":"ch","ticker":"tk",
         "sticky":true,"event_time":"2026-12-01T10:00:00Z","local_only":true,"notification_priority":"PRIORITY_HIGH",
         "default_sound":true,"default_vibrate_timings":true,"default_light_settings":false,"vibrate_timings":["1s"],
         "visibility":"PUBLIC","notification_count":2,"light_settings":{"color":{"red":1,"green":1,"blue":1,"alpha":1},
         "light_on_duration":"1s","light_off_duration":"2s"},"image":"https://a","bypass_proxy_notification":false,"proxy":"ALLOW"}},
     "apns":{"headers":{"apns_priority_like":"10"},"payload":{"aps":{"mutable_content":1}},"fcm_options":{"analytics_label":"ap","image":"https://b"}},
     "webpush":{"headers":{"Urgency":"high"},"data":{"w_k":"v"},"notification":{"require_interaction":true},
       "fcm_options":{"link":"https://l","analytics_label":"wp"}}},
     "validate_only":true}
    """#

    /// Renames every field name to lowerCamelCase; map keys (`data`, `headers`) and the
    /// arbitrary JSON of `apns.payload` and `webpush.notification` keep their spelling.
    static func camelised(_ v: JSONValue, parent: String = "") -> JSONValue {
        guard case .object(let members) = v else { return v }
        return .object(members.map { k, value in
            let opaque = ["data", "headers", "payload"].contains(k) || (parent == "webpush" && k == "notification")
            return (FCMFieldSchema.lowerCamel(k), opaque ? value : camelised(value, parent: k))
        })
    }

    func testEveryFieldDecodesTheSameInBothCasings() throws {
        let camel = Self.camelised(try JSONValue.parse(Self.everyFieldSnake))
        let camelText = camel.compactJSON
        XCTAssertTrue(camelText.contains("\"validateOnly\":true"))
        XCTAssertTrue(camelText.contains("\"bypassProxyNotification\":false"))
        XCTAssertTrue(camelText.contains("\"snake_key\""), "map keys keep their spelling")
        XCTAssertTrue(camelText.contains("\"mutable_content\""), "apns.payload keeps its spelling")
        XCTAssertTrue(camelText.contains("\"require_interaction\""), "webpush.notification keeps its spelling")
        var strict = FCMValidatorConfiguration()
        strict.unknownFields = .reject
        let a = accept(Self.everyFieldSnake, strict)
        let b = accept(camelText, strict)
        XCTAssertNotNil(a)
        XCTAssertEqual(a, b)
        XCTAssertEqual(a?.validateOnly, true)
        XCTAssertEqual(a?.android?.notification?.strings.count, 12)
        XCTAssertEqual(a?.android?.notification?.flags.count, 6)
        XCTAssertEqual(a?.android?.ttl?.wholeSeconds, 3)
        XCTAssertEqual(a?.webpush?.fcmOptions?.link, "https://l")
        XCTAssertEqual(a?.unknownFields, [])
    }

    func testLowerCamelNames() {
        XCTAssertEqual(FCMFieldSchema.lowerCamel("direct_boot_ok"), "directBootOk")
        XCTAssertEqual(FCMFieldSchema.lowerCamel("fcm_options"), "fcmOptions")
        XCTAssertEqual(FCMFieldSchema.lowerCamel("token"), "token")
    }
}
