import XCTest
@testable import PushDoubleConformance
import PushDoubleCore

/// The field-by-field comparison of the requested notification with what reached FCM and Expo,
/// and the `fields` declaration that turns a check of an inexpressible field into n/a.
final class FieldMappingTests: XCTestCase {
    private func json(_ s: String) throws -> JSONValue { try JSONValue.parse(Array(s.utf8)) }
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    func testFCMFieldCountsWhereverFCMTakesIt() throws {
        let n = try json(#"{"title":"T","body":"B","data":{"n":1,"s":"x"},"ttlSeconds":60,"priority":"high","sound":"ping","badge":3,"channelId":"c"}"#)
        // Title and body only in the android block, TTL and priority there too, badge in apns: all mapped.
        let platform = try json(#"""
        {"target":{"token":"t"},"data":{"n":"1","s":"x"},
         "android":{"ttl":"60s","priority":"HIGH","notification":{"title":"T","body":"B","channel_id":"c","sound":"ping"}},
         "apns":{"payload":{"aps":{"badge":3}}}}
        """#)
        XCTAssertEqual(FCMMappingCheck.differences(n, platform, sentAt: now), [])
        // lowerCamelCase spellings are FCM's too.
        let camel = try json(#"{"notification":{"title":"T","body":"B"},"data":{"n":"1","s":"x"},"android":{"ttl":"60s","priority":"high","notification":{"channelId":"c","sound":"ping"}},"apns":{"payload":{"aps":{"badge":3}}}}"#)
        XCTAssertEqual(FCMMappingCheck.differences(n, camel, sentAt: now), [])
    }

    func testFCMDroppedOrChangedFieldsAreNamed() throws {
        let n = try json(#"{"title":"T","body":"B","data":{"k":"v"},"ttlSeconds":60,"priority":"high","collapseKey":"c1"}"#)
        let message = try json(#"{"notification":{"title":"T"},"android":{"ttl":"3600s"}}"#)
        let fields = Set(FCMMappingCheck.differences(n, message, sentAt: now).map(\.field))
        XCTAssertEqual(fields, [.body, .data, .ttlSeconds, .priority, .collapseKey])
    }

    func testFCMPriorityNormalMayBeLeftToFCMsDefault() throws {
        let n = try json(#"{"title":"T","priority":"normal"}"#)
        XCTAssertEqual(FCMMappingCheck.differences(n, try json(#"{"notification":{"title":"T"}}"#), sentAt: now), [])
        XCTAssertEqual(FCMMappingCheck.differences(n, try json(#"{"notification":{"title":"T"},"android":{"priority":"high"}}"#), sentAt: now).map(\.field),
                       [.priority])
    }

    func testFCMTTLViaAPNsExpirationOrWebPushTTL() throws {
        let n = try json(#"{"ttlSeconds":120}"#)
        let exp = Int(now.timeIntervalSince1970) + 120
        XCTAssertEqual(FCMMappingCheck.differences(n, try json(#"{"apns":{"headers":{"apns-expiration":"\#(exp)"}}}"#), sentAt: now), [])
        XCTAssertEqual(FCMMappingCheck.differences(n, try json(#"{"webpush":{"headers":{"TTL":"120"}}}"#), sentAt: now), [])
        XCTAssertEqual(FCMMappingCheck.differences(n, try json(#"{"webpush":{"headers":{"TTL":"0"}}}"#), sentAt: now).map(\.field), [.ttlSeconds])
    }

    func testExpoMapping() throws {
        let n = try json(#"{"title":"T","subtitle":"S","body":"B","data":{"count":7},"ttlSeconds":60,"priority":"high","sound":"default","badge":1,"channelId":"c","category":"K","contentAvailable":true}"#)
        let good = try json(#"{"to":"x","title":"T","subtitle":"S","body":"B","data":{"count":7},"ttl":60,"priority":"high","sound":"default","badge":1,"channelId":"c","categoryId":"K","_contentAvailable":true}"#)
        XCTAssertEqual(ExpoMappingCheck.differences(n, good, sentAt: now), [])
        let bad = try json(#"{"to":"x","title":"T","body":"other","priority":"default"}"#)
        XCTAssertEqual(Set(ExpoMappingCheck.differences(n, bad, sentAt: now).map(\.field)),
                       [.subtitle, .body, .data, .ttlSeconds, .priority, .sound, .badge, .channelId, .category, .contentAvailable])
    }

    func testFieldsDeclaration() throws {
        let declared = try XCTUnwrap(try NotificationField.declaration(json(#"{"apns":["title","body"],"webpush":[]}"#)).get())
        let fields = SenderFields(declared)
        XCTAssertTrue(fields.canExpress(.title, for: .apns))
        XCTAssertFalse(fields.canExpress(.pushType, for: .apns))
        XCTAssertEqual(fields.inexpressible(.ttlSeconds, for: .webpush), "sender cannot express webpush ttlSeconds")
        XCTAssertTrue(fields.canExpress(.ttlSeconds, for: .fcm), "a provider not declared: every field")
        XCTAssertEqual(fields.unexpressed(in: try json(#"{"title":"a","pushType":"voip","ttlSeconds":5}"#), for: .apns), [.ttlSeconds, .pushType])
        for bad in [#"["title"]"#, #"{"apns":"title"}"#, #"{"apns":[1]}"#] {
            guard case .failure = NotificationField.declaration(try json(bad)) else { return XCTFail(bad) }
        }
    }

    /// A check of a field the sender declared it cannot express is n/a, never a pass; the other
    /// fields are still judged.
    func testInexpressibleFieldsAreNotJudged() throws {
        let wanted = try json(#"{"ttlSeconds":30,"priority":"high","title":"T","body":"B"}"#)
        XCTAssertEqual(SenderFields(["webpush": ["title", "body"]]).inexpressible(.priority, for: .webpush),
                       "sender cannot express webpush priority")
        let n = try json(#"{"title":"T","body":"B","ttlSeconds":30}"#)
        let message = try json(#"{"notification":{"title":"T","body":"other"}}"#)
        let all = FCMMappingCheck.differences(n, message, sentAt: now)
        XCTAssertEqual(Set(all.map(\.field)), [.body, .ttlSeconds])
        XCTAssertEqual(all.expressible(by: SenderFields(["fcm": ["title", "body"]]), for: .fcm).map(\.field), [.body])
        XCTAssertEqual(FieldDifference.notJudgedNote([.ttlSeconds], provider: .fcm), "; not judged: fcm ttlSeconds (the sender cannot express it)")
        XCTAssertEqual(NotificationField.requestedPushType(wanted), "alert")
        XCTAssertEqual(NotificationField.requestedPushType(try json(#"{"contentAvailable":true}"#)), "background")
    }
}
