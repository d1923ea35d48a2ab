import Foundation
import XCTest
import PushDoubleCore
@testable import PushDoubleWebPush

/// Declarative Web Push (docs/webpush.md "Declarative Web Push"): the browser half of an
/// Apple-style subscription reads a decrypted `{"web_push":8030,"notification":{…}}` as the
/// notification Safari shows, falls back to the service worker for an invalid one, and the
/// history records which.
final class WebPushDeclarativeTests: XCTestCase {
    let valid = #"{"web_push":8030,"notification":{"title":"Hello","body":"World","navigate":"https://example.com/a?b=1","lang":"en-US","dir":"ltr","mutable":true},"app_badge":3}"#

    func testAValidMessageIsTheNotificationShown() {
        guard case .notification(let n, let badge, let mutable) = WebPushDeclarativeMessage.interpret(valid) else {
            return XCTFail("\(WebPushDeclarativeMessage.interpret(valid))")
        }
        XCTAssertEqual(n, ["title": "Hello", "navigate": "https://example.com/a?b=1", "body": "World", "lang": "en-US", "dir": "ltr"])
        XCTAssertEqual(badge, 3)
        XCTAssertTrue(mutable)
        let minimal = WebPushDeclarativeMessage.interpret(#"{"web_push":8030,"notification":{"title":"t","navigate":"https://e.com/","mutable":"yes"},"app_badge":"1"}"#)
        XCTAssertEqual(minimal, .notification(["title": "t", "navigate": "https://e.com/"], appBadge: nil, mutable: false),
                       "a non-boolean mutable and a non-integer app_badge are ignored")
    }

    func testInvalidOnesFallBackToTheServiceWorkerWithTheReason() {
        let cases: [(String, String)] = [
            (#"{"web_push":9001,"notification":{"title":"t","navigate":"https://e.com/"}}"#, "web_push is 9001, not 8030"),
            (#"{"web_push":8030}"#, "notification is missing or not an object"),
            (#"{"web_push":8030,"notification":{"navigate":"https://e.com/"}}"#, "notification.title is missing or not a string"),
            (#"{"web_push":8030,"notification":{"title":"t"}}"#, "notification.navigate is missing or not a string"),
            (#"{"web_push":8030,"notification":{"title":"t","navigate":"/relative"}}"#, "notification.navigate is not an absolute http(s) URL: /relative"),
            (#"{"web_push":8030,"notification":{"title":"t","navigate":"javascript:alert(1)"}}"#, "notification.navigate is not an absolute http(s) URL: javascript:alert(1)"),
            (#"{"web_push":8030,"notification":{"title":"t","navigate":"https://e.com/","dir":"up"}}"#, "notification.dir is \"up\", not auto, ltr or rtl"),
        ]
        for (text, why) in cases { XCTAssertEqual(WebPushDeclarativeMessage.interpret(text), .fallback(why), text) }
        for ordinary in ["hello", #"{"title":"t"}"#, "[1,2]", ""] {
            XCTAssertEqual(WebPushDeclarativeMessage.interpret(ordinary), .ordinary, ordinary)
        }
    }

    func testTheFakeRecordsWhatSafariWouldShowForAppleSubscriptionsOnly() throws {
        let h = WebPushHarness()
        let apple = try h.subscribe(.apple, id: "safari")
        XCTAssertEqual(try h.push(apple, valid).status, 201)
        let shown = try XCTUnwrap(h.last?.notification?["declarative"])
        XCTAssertEqual(shown["shown"], "notification")
        XCTAssertEqual(shown["notification"]?["title"], "Hello")
        XCTAssertEqual(shown["app_badge"], 3)
        XCTAssertEqual(h.last?.notification?["payload"]?["data"], .string(valid), "the decrypted text stays recorded")

        XCTAssertEqual(try h.push(apple, #"{"web_push":8030,"notification":{"title":"no link"}}"#).status, 201)
        XCTAssertEqual(h.last?.notification?["declarative"]?["shown"], "serviceWorkerPush")
        XCTAssertEqual(try h.push(apple, "plain text").status, 201)
        XCTAssertNil(h.last?.notification?["declarative"], "an ordinary message")

        let chrome = try h.subscribe(.fcm, id: "chrome")
        XCTAssertEqual(try h.push(chrome, valid).status, 201)
        XCTAssertNil(h.last?.notification?["declarative"], "only Safari reads declarative messages")
    }

    /// A sender's view: the fallback reason, or the members the browser ignores for their type.
    func testProblemsNameWhatTheBrowserWouldNotShow() {
        XCTAssertEqual(WebPushDeclarativeMessage.problems(valid), [])
        XCTAssertEqual(WebPushDeclarativeMessage.problems("hello"), ["not a declarative message (no JSON object with web_push)"])
        XCTAssertEqual(WebPushDeclarativeMessage.problems(#"{"web_push":8030,"notification":{"title":"t"}}"#),
                       ["notification.navigate is missing or not a string"])
        XCTAssertEqual(WebPushDeclarativeMessage.problems(#"{"web_push":8030,"notification":{"title":"t","navigate":"https://e.com/","mutable":1},"app_badge":"2"}"#),
                       ["notification.mutable is 1, not a boolean (ignored)", "app_badge is \"2\", not an integer from 0 to 2^63-1 (ignored)"])
    }

    /// A subscription device may be marked `declarative` (a boolean) for the conformance feature.
    func testTheDeclarativeMarkIsABoolean() throws {
        let sub = try WebPushSubscription(service: .apple, origin: "https://127.0.0.1:8726")
        var attributes = try WebPushDeviceSchema.attributes(of: sub)
        attributes["declarative"] = .bool(true)
        var ok = Device(id: "s", provider: .webpush, token: "", attributes: attributes)
        XCTAssertNoThrow(try WebPushDeviceSchema.validate(&ok))
        attributes["declarative"] = "yes"
        var bad = Device(id: "s", provider: .webpush, token: "", attributes: attributes)
        XCTAssertThrowsError(try WebPushDeviceSchema.validate(&bad)) { XCTAssertTrue("\($0)".contains("declarative"), "\($0)") }
    }
}
