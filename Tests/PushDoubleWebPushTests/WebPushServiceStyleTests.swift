import XCTest
import PushDoubleJSON
@testable import PushDoubleWebPush

/// Every answer byte for byte against docs/webpush.md §6 (captures copied here, section named).
final class WebPushServiceStyleTests: XCTestCase {
    let endpoint = "https://updates.push.services.mozilla.com/wpush/v1/TOKEN"

    func style(_ s: WebPushService, _ o: WebPushStyleOptions = .init()) -> WebPushServiceStyle { WebPushServiceStyle(s, options: o) }
    func rejected(_ rule: WebPushRule) -> WebPushOutcome { .rejected(WebPushRejection(rule, "test")) }

    // MARK: FCM (§6.1)

    func testFCMSuccess() {
        let r = style(.fcm).response(for: .accepted(messageID: "m1", endpoint: "https://fcm.googleapis.com/fcm/send/T", ttl: 60))
        XCTAssertEqual(r.status, 201)
        XCTAssertEqual(r.body, [])
        XCTAssertEqual(r.header("Location"), "https://fcm.googleapis.com/fcm/send/T/m/m1")
        var o = WebPushStyleOptions()
        o.fcmLocation = .omitted
        XCTAssertEqual(style(.fcm, o).response(for: .accepted(messageID: "m1", endpoint: "e", ttl: 60)), WebPushResponse(status: 201))
    }

    /// §6.1: `410 Gone`, `Content-Type: text/plain; charset=utf-8`, `Content-Length: 47`,
    /// body `push subscription has unsubscribed or expired.\n`.
    func testFCMGone47Bytes() {
        for reason in [WebPushGoneReason.expired, .unsubscribed] {
            let r = style(.fcm).response(for: .gone(reason))
            XCTAssertEqual(r.status, 410)
            XCTAssertEqual(r.headers, [.init("Content-Type", "text/plain; charset=utf-8")])
            XCTAssertEqual(r.body, Array("push subscription has unsubscribed or expired.\n".utf8))
            XCTAssertEqual(r.body.count, 47)
        }
    }

    /// §6.1: invalid endpoint 404; stale subscription 404 whose body begins with the Pushpad text.
    func testFCMNotFound() {
        XCTAssertEqual(style(.fcm).response(for: .gone(.invalidEndpoint)), WebPushResponse(status: 404))
        let stale = style(.fcm).response(for: .gone(.stale))
        XCTAssertEqual(stale.status, 404)
        XCTAssertTrue(stale.bodyText.hasPrefix("A valid push subscription endpoint should be specified in the URL as such: https://fcm.googleapis.com/wp/"))
    }

    /// §6.1 "Bad VAPID / sender (legacy)": `400 UnauthorizedRegistration`, HTML with
    /// `<TITLE>UnauthorizedRegistration</TITLE>…<H2>Error 400</H2>`.
    func testFCMBadVAPID() throws {
        for rule in WebPushRule.allCases where rule.isVAPID && rule != .vapidKeyMismatch {
            let r = style(.fcm).response(for: rejected(rule))
            XCTAssertEqual(r.status, 400, "\(rule)")
            let text = r.bodyText
            let title = try XCTUnwrap(text.range(of: "<TITLE>UnauthorizedRegistration</TITLE>"))
            let h2 = try XCTUnwrap(text.range(of: "<H2>Error 400</H2>"))
            XCTAssertLessThan(title.upperBound, h2.lowerBound)
            XCTAssertEqual(r.header("Content-Type"), "text/html; charset=UTF-8")
        }
        // Not recorded for FCM: the RFC status, empty body.
        XCTAssertEqual(style(.fcm).response(for: rejected(.missingTTL)), WebPushResponse(status: 400))
        XCTAssertEqual(style(.fcm).response(for: rejected(.payloadTooLarge)), WebPushResponse(status: 413))
    }

    /// §6.1a: a key that is not the subscription's `applicationServerKey` gets FCM's current
    /// answer, 403 with a 121-byte `text/plain` body.
    func testFCMVAPIDKeyMismatch() {
        let r = style(.fcm).response(for: rejected(.vapidKeyMismatch))
        XCTAssertEqual(r.status, 403)
        XCTAssertEqual(r.header("Content-Type"), "text/plain; charset=utf-8")
        XCTAssertEqual(r.bodyText, "the VAPID credentials in the authorization header do not correspond to the credentials used to create the subscriptions.\n")
        XCTAssertEqual(r.body.count, 121)
    }

    func testRFCThrottle() {
        for s in [WebPushService.fcm, .apple] {
            XCTAssertEqual(style(s).response(for: .throttled(retryAfterSeconds: 30)),
                           WebPushResponse(status: 429, headers: [.init("Retry-After", "30")]))
        }
    }

    // MARK: Mozilla autopush (§6.2)

    /// §6.2: `201` + `Location: <endpoint_url>/m/<message_id>` + `TTL: <ttl actually used>`,
    /// no body; TTL clamped to 30 days without error.
    func testAutopushSuccess() {
        let r = style(.mozilla).response(for: .accepted(messageID: "gAAAA", endpoint: endpoint, ttl: 60))
        XCTAssertEqual(r, WebPushResponse(status: 201, headers: [.init("Location", endpoint + "/m/gAAAA"), .init("TTL", "60")]))
        let clamped = style(.mozilla).response(for: .accepted(messageID: "x", endpoint: endpoint, ttl: 2_419_200 * 2))
        XCTAssertEqual(clamped.header("TTL"), "2592000")
        XCTAssertEqual(clamped.status, 201)
    }

    /// The 5-key JSON (§6.2), with the messages docs/webpush.md quotes.
    func testAutopushErrorBodies() {
        let mi = "http://autopush.readthedocs.io/en/latest/http.html#error-codes"
        let expected: [(WebPushRule, Int, String)] = [
            (.missingTTL, 400, #"{"code":400,"errno":111,"error":"Bad Request","message":"Missing TTL value","more_info":"\#(mi)"}"#),
            (.invalidTTL, 400, #"{"code":400,"errno":111,"error":"Bad Request","message":"Missing TTL value","more_info":"\#(mi)"}"#),
            (.missingContentEncoding, 400, #"{"code":400,"errno":110,"error":"Bad Request","message":"Missing Content-Encoding header","more_info":"\#(mi)"}"#),
            (.unknownContentEncoding, 400, #"{"code":400,"errno":110,"error":"Bad Request","message":"Unknown Content-Encoding header","more_info":"\#(mi)"}"#),
            (.missingEncryptionHeader, 400, #"{"code":400,"errno":110,"error":"Bad Request","message":"Missing Encryption header","more_info":"\#(mi)"}"#),
            (.invalidSalt, 400, #"{"code":400,"errno":110,"error":"Bad Request","message":"Invalid salt value in Encryption header","more_info":"\#(mi)"}"#),
            (.vapidAudience, 401, #"{"code":401,"errno":109,"error":"Unauthorized","message":"Invalid VAPID audience","more_info":"\#(mi)"}"#),
            (.vapidExpired, 401, #"{"code":401,"errno":109,"error":"Unauthorized","message":"Invalid VAPID expiry","more_info":"\#(mi)"}"#),
            (.vapidExpiryTooLong, 401, #"{"code":401,"errno":109,"error":"Unauthorized","message":"The VAPID token expiration is too long","more_info":"\#(mi)"}"#),
            (.vapidKeyMismatch, 401, #"{"code":401,"errno":109,"error":"Unauthorized","message":"VAPID public key mismatch","more_info":"\#(mi)"}"#),
            (.vapidSubjectMissing, 401, #"{"code":401,"errno":109,"error":"Unauthorized","message":"Missing sub","more_info":"\#(mi)"}"#),
            (.unknownAuthScheme, 401, #"{"code":401,"errno":109,"error":"Unauthorized","message":"Unknown auth scheme","more_info":"\#(mi)"}"#),
        ]
        for (rule, status, body) in expected {
            let r = style(.mozilla).response(for: rejected(rule))
            XCTAssertEqual(r.status, status, "\(rule)")
            XCTAssertEqual(r.bodyText, body, "\(rule)")
            XCTAssertEqual(r.headers, [.init("Content-Type", "application/json")])
        }
    }

    /// Each rule has an errno from §6.2's table (null only for Urgency, which it does not
    /// list), 401 not 403 for VAPID, 413 errno 104, 114 for a negative TTL, 113 for Topic.
    func testAutopushEveryRuleHasTheTableErrno() throws {
        for rule in WebPushRule.allCases {
            let r = style(.mozilla).response(for: rejected(rule))
            let j = try JSONValue.parse(r.body)
            XCTAssertEqual(j.objectValue?.map { $0.0 }, ["code", "errno", "error", "message", "more_info"])
            XCTAssertEqual(j["code"]?.intValue, Int64(r.status))
            if rule.isVAPID && rule != .vapidKeyEqualsECDHKey {
                XCTAssertEqual(r.status, 401, "\(rule)")
                XCTAssertEqual(j["errno"]?.intValue, 109, "\(rule)")
            }
        }
        func errno(_ rule: WebPushRule) throws -> JSONValue? { try JSONValue.parse(style(.mozilla).response(for: rejected(rule)).body)["errno"] }
        XCTAssertEqual(try errno(.negativeTTL), 114)
        XCTAssertEqual(try errno(.invalidTopic), 113)
        XCTAssertEqual(try errno(.payloadTooLarge), 104)
        XCTAssertEqual(try errno(.invalidUrgency), .null)
        XCTAssertEqual(style(.mozilla).response(for: rejected(.payloadTooLarge)).status, 413)
    }

    /// §6.2: 404 errno 102 `Invalid token`, 410 errno 103 `UAID not found` / 106 `No such
    /// subscription`, 410 adds `Cache-Control: max-age=86400`.
    func testAutopushDeadSubscriptions() {
        let mi = "http://autopush.readthedocs.io/en/latest/http.html#error-codes"
        let notFound = style(.mozilla).response(for: .gone(.invalidEndpoint))
        XCTAssertEqual(notFound, WebPushResponse(status: 404, headers: [.init("Content-Type", "application/json")],
                                                 body: Array(#"{"code":404,"errno":102,"error":"Not Found","message":"Invalid token","more_info":"\#(mi)"}"#.utf8)))
        let expired = style(.mozilla).response(for: .gone(.expired))
        XCTAssertEqual(expired, WebPushResponse(status: 410, headers: [.init("Content-Type", "application/json"), .init("Cache-Control", "max-age=86400")],
                                                body: Array(#"{"code":410,"errno":103,"error":"Gone","message":"UAID not found","more_info":"\#(mi)"}"#.utf8)))
        let unsub = style(.mozilla).response(for: .gone(.unsubscribed))
        XCTAssertEqual(unsub.bodyText, #"{"code":410,"errno":106,"error":"Gone","message":"No such subscription","more_info":"\#(mi)"}"#)
        XCTAssertEqual(unsub.header("Cache-Control"), "max-age=86400")
    }

    /// §6.2: 503 errno 201 (back off) with `Retry-After: 120`.
    func testAutopushThrottle() throws {
        let r = style(.mozilla).response(for: .throttled(retryAfterSeconds: 5))
        XCTAssertEqual(r.status, 503)
        XCTAssertEqual(r.header("Retry-After"), "120")
        let j = try JSONValue.parse(r.body)
        XCTAssertEqual(j["errno"], 201)
        XCTAssertEqual(j["error"], "Service Unavailable")
        XCTAssertEqual(j["code"], 503)
    }

    // MARK: Apple (§6.3)

    func testAppleAnswers() {
        XCTAssertEqual(style(.apple).response(for: .accepted(messageID: "a", endpoint: "e", ttl: 1)), WebPushResponse(status: 201))
        for rule in WebPushRule.allCases where rule.isVAPID && rule != .vapidKeyEqualsECDHKey {
            let r = style(.apple).response(for: rejected(rule))
            XCTAssertEqual(r.status, 403, "\(rule)")
            XCTAssertEqual(r.body, Array(#"{"reason":"BadJwtToken"}"#.utf8), "\(rule)")
        }
        XCTAssertEqual(style(.apple).response(for: rejected(.missingTTL)), WebPushResponse(status: 400))
        XCTAssertEqual(style(.apple).response(for: .gone(.expired)), WebPushResponse(status: 410))
        var o = WebPushStyleOptions()
        o.appleGoneStatus = 403
        o.appleGoneBody = Array(#"{"reason":"Unregistered"}"#.utf8)
        XCTAssertEqual(style(.apple, o).response(for: .gone(.unsubscribed)), WebPushResponse(status: 403, body: o.appleGoneBody))
    }

    // MARK: WNS (§6.4)

    func testWNSStatuses() {
        XCTAssertEqual(style(.wns).response(for: .accepted(messageID: "a", endpoint: "e", ttl: 1)).status, 201)
        var o = WebPushStyleOptions()
        o.wnsSuccessStatus = 200
        XCTAssertEqual(style(.wns, o).response(for: .accepted(messageID: "a", endpoint: "e", ttl: 1)).status, 200)
        XCTAssertEqual(style(.wns).response(for: rejected(.missingTTL)).status, 400)
        XCTAssertEqual(style(.wns).response(for: rejected(.vapidMissing)).status, 401)
        XCTAssertEqual(style(.wns).response(for: rejected(.vapidSignatureInvalid)).status, 401)
        XCTAssertEqual(style(.wns).response(for: rejected(.vapidKeyMismatch)).status, 403)
        XCTAssertEqual(style(.wns).response(for: rejected(.payloadTooLarge)).status, 413)
        XCTAssertEqual(style(.wns).response(for: .gone(.invalidEndpoint)).status, 404)
        XCTAssertEqual(style(.wns).response(for: .gone(.expired)).status, 410)
        XCTAssertEqual(style(.wns).response(for: .throttled(retryAfterSeconds: 9)), WebPushResponse(status: 406))
    }
}
