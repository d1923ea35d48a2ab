import Foundation
import XCTest
import PushDoubleCore
import PushDoubleTransport
@testable import PushDoubleFCM

/// Topic subscriptions (docs/fcm.md "Topic subscriptions"): the Instance ID API's batch,
/// relation and info calls, FCM's `topicSubscriptions` resource, declared subscriptions, and a
/// topic or condition send reaching exactly the subscribed devices, through the core pipeline.
final class FCMTopicTests: XCTestCase {
    let t1 = "fcm-topic-t1:APA91bTopicOne"
    let t2 = "fcm-topic-t2:APA91bTopicTwo"
    let t3 = "fcm-topic-t3:APA91bTopicThree"
    let dead = "pushdouble-fcm-404-topics"

    func iid(_ h: FCMHarness, _ path: String, method: String = "POST", bearer: String?, accessTokenAuth: Bool = true,
             body: String = "", authority: String = "iid.googleapis.com") -> HTTPResponse {
        var headers: [(String, String)] = [("content-type", "application/json")]
        if let bearer { headers.append(("authorization", bearer.hasPrefix("key=") ? bearer : "Bearer " + bearer)) }
        if accessTokenAuth { headers.append(("access_token_auth", "true")) }
        return h.answer(h.request(path, method: method, listener: FCMFake.sendListener, authority: authority, headers: headers, body: Array(body.utf8)))
    }

    /// A harness whose device registry judges FCM devices as the module does (`topics`).
    func harness() throws -> FCMHarness {
        let h = try FCMHarness()
        h.double.devices.setSchema({ try FCMModule().validateDevice(&$0) }, for: .fcm)
        return h
    }

    func batch(_ tokens: [String], topic: String = "/topics/news") -> String {
        JSONValue.object([("to", .string(topic)), ("registration_tokens", .array(tokens.map { .string($0) }))]).compactJSON
    }

    func testInstanceIDBatchAddReportsEachToken() throws {
        let h = try harness()
        let bearer = try h.mint()
        let r = iid(h, "/iid/v1:batchAdd", bearer: bearer, body: batch([t1, dead, "has space", t2]))
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), #"{"results":[{},{"error":"NOT_FOUND"},{"error":"INVALID_ARGUMENT"},{}]}"#)
        let e = try XCTUnwrap(h.double.history.all.last)
        XCTAssertEqual(e.endpoint, FCMFake.iidBatchAddEndpoint)
        XCTAssertEqual(e.recipients?.map(\.reason), [nil, "NOT_FOUND", "INVALID_ARGUMENT", nil])
        XCTAssertEqual(h.fake.subscriptions.topics(of: t1, declared: []).map(\.topic), ["news"])
        // Removing: a token that is not subscribed is no error.
        let removed = iid(h, "/iid/v1:batchRemove", bearer: bearer, body: batch([t1, t3]))
        XCTAssertEqual(String(decoding: removed.body, as: UTF8.self), #"{"results":[{},{}]}"#)
        XCTAssertEqual(h.fake.subscriptions.topics(of: t1, declared: []).map(\.topic), [])
        // The same paths on the fcm listener without Google's host name (a base-URL override).
        XCTAssertEqual(iid(h, "/iid/v1:batchAdd", bearer: bearer, body: batch([t3]), authority: "127.0.0.1:8723").status, 200)
    }

    func testInstanceIDAuthNeedsTheBearerAndAccessTokenAuth() throws {
        let h = try harness()
        let bearer = try h.mint()
        for (who, token, flag) in [("no header", bearer, false), ("no token", nil, true), ("server key", "key=AAAA", true), ("unknown token", "ya29.unknown", true)] {
            let r = iid(h, "/iid/v1:batchAdd", bearer: token, accessTokenAuth: flag, body: batch([t1]))
            XCTAssertEqual(r.status, 401, who)
            XCTAssertEqual(r.headers["content-type"], "text/html; charset=UTF-8", who)
            XCTAssertTrue(String(decoding: r.body, as: UTF8.self).contains("<H2>Error 401</H2>"), who)
        }
        XCTAssertEqual(h.double.history.all.last?.auth?.scheme, "oauth-bearer")
        XCTAssertTrue(h.fake.subscriptions.tokensWithChanges().isEmpty, "nothing subscribed by a refused request")
    }

    func testInstanceIDBodyLimitsAndTopicNames() throws {
        let h = try harness()
        let bearer = try h.mint()
        let many = (0...1000).map { "fcm-many-\($0):APA91b" }
        XCTAssertEqual(iid(h, "/iid/v1:batchAdd", bearer: bearer, body: batch(Array(many.prefix(1000)))).status, 200)
        let tooMany = iid(h, "/iid/v1:batchAdd", bearer: bearer, body: batch(many))
        XCTAssertEqual(tooMany.status, 400)
        XCTAssertEqual(String(decoding: tooMany.body, as: UTF8.self), #"{"error":"INVALID_ARGUMENT"}"#)
        XCTAssertEqual(iid(h, "/iid/v1:batchAdd", bearer: bearer, body: batch([t1], topic: "/topics/bad topic")).status, 400)
        XCTAssertEqual(iid(h, "/iid/v1:batchAdd", bearer: bearer, body: #"{"to":"/topics/news"}"#).status, 400)
        XCTAssertEqual(iid(h, "/iid/v1:batchAdd", bearer: bearer, body: batch([t1], topic: "news")).status, 200, "the prefix is optional")
        XCTAssertEqual(iid(h, "/iid/v2/other", bearer: bearer).status, 404)
    }

    func testRelationAndInfo() throws {
        let h = try harness()
        let bearer = try h.mint()
        try h.double.devices.register(Device(id: "declared", provider: .fcm, token: t2, attributes: ["topics": ["weather"]]))
        XCTAssertEqual(iid(h, "/iid/v1/\(t2)/rel/topics/news", bearer: bearer).status, 200)
        XCTAssertEqual(iid(h, "/iid/v1/\(dead)/rel/topics/news", bearer: bearer).status, 404)
        let info = iid(h, "/iid/info/\(t2)?details=true", method: "GET", bearer: bearer)
        XCTAssertEqual(info.status, 200)
        let json = try JSONValue.parse(info.body)
        XCTAssertEqual(json["authorizedEntity"], .string(FCMConfiguration.shippedProjectNumber))
        XCTAssertEqual(json["rel"]?["topics"]?.objectValue?.map(\.0), ["weather", "news"])
        XCTAssertEqual(json["rel"]?["topics"]?["news"]?["addDate"]?.stringValue?.count, 10)
        XCTAssertNil(try JSONValue.parse(iid(h, "/iid/info/\(t2)", method: "GET", bearer: bearer).body)["rel"], "details only when asked")
        XCTAssertEqual(iid(h, "/iid/info/\(dead)", method: "GET", bearer: bearer).status, 404)
    }

    func topicSubscription(_ h: FCMHarness, _ method: String, _ path: String, bearer: String?) -> HTTPResponse {
        var headers: [(String, String)] = []
        if let bearer { headers.append(("authorization", "Bearer " + bearer)) }
        return h.answer(h.request("/v1/projects/\(FCMHarness.project)/registrations/" + path, method: method, listener: FCMFake.sendListener,
                                  authority: "fcm.googleapis.com", headers: headers, body: Array((method == "POST" ? "{}" : "").utf8)))
    }

    func testTopicSubscriptionResource() throws {
        let h = try harness()
        let bearer = try h.mint()
        let encoded = t1.replacingOccurrences(of: ":", with: "%3A")
        let created = topicSubscription(h, "POST", "\(encoded)/topicSubscriptions?topic_name=news", bearer: bearer)
        XCTAssertEqual(created.status, 200)
        let body = try JSONValue.parse(created.body)
        XCTAssertEqual(body["name"], .string("projects/\(FCMHarness.project)/registrations/\(t1)/topicSubscriptions/news"))
        XCTAssertEqual(body["topic_name"], "news")
        XCTAssertNotNil(body["create_time"]?.stringValue)
        XCTAssertEqual(topicSubscription(h, "POST", "\(t1)/topicSubscriptions?topicName=news", bearer: bearer).status, 409)
        XCTAssertEqual(googleError(topicSubscription(h, "POST", "\(t1)/topicSubscriptions?topic_name=news", bearer: bearer))?["status"], "ALREADY_EXISTS")
        XCTAssertEqual(topicSubscription(h, "GET", "\(t1)/topicSubscriptions/news", bearer: bearer).status, 200)
        XCTAssertEqual(topicSubscription(h, "POST", "\(dead)/topicSubscriptions?topic_name=news", bearer: bearer).status, 404)
        XCTAssertEqual(topicSubscription(h, "POST", "\(t1)/topicSubscriptions?topic_name=bad%20name", bearer: bearer).status, 400)
        XCTAssertEqual(topicSubscription(h, "POST", "\(t1)/topicSubscriptions?topic_name=news", bearer: nil).status, 401)
        XCTAssertEqual(topicSubscription(h, "DELETE", "\(t1)/topicSubscriptions/news", bearer: bearer).status, 200)
        XCTAssertEqual(topicSubscription(h, "DELETE", "\(t1)/topicSubscriptions/news", bearer: bearer).status, 404)
        XCTAssertEqual(topicSubscription(h, "DELETE", "\(t1)/topicSubscriptions/news?allow_missing=true", bearer: bearer).status, 200)
        XCTAssertEqual(h.double.history.all.filter { $0.endpoint == FCMFake.topicSubscriptionEndpoint }.count, 10)
    }

    func testTopicAndConditionSendsReachExactlyTheSubscribedDevices() throws {
        let h = try harness()
        let bearer = try h.mint()
        try h.double.devices.register(Device(id: "d1", provider: .fcm, token: t1, attributes: ["topics": ["news", "sports"]]))
        try h.double.devices.register(Device(id: "d2", provider: .fcm, token: t2, attributes: ["topics": ["news"]]))
        try h.double.devices.register(Device(id: "gone", provider: .fcm, token: "fcm-topic-gone:APA91b", state: .unregistered(since: Date()),
                                             attributes: ["topics": ["news"]]))
        _ = iid(h, "/iid/v1:batchAdd", bearer: bearer, body: batch([t3], topic: "/topics/sports"))
        _ = iid(h, "/iid/v1:batchRemove", bearer: bearer, body: batch([t2]))  // a declared subscription removed

        XCTAssertEqual(h.answer(h.send(#""topic":"news","notification":{"title":"t"}"#, bearer: bearer)).status, 200)
        let news = try XCTUnwrap(h.double.history.all.last?.recipients)
        XCTAssertEqual(news.map(\.token), [t1, "fcm-topic-gone:APA91b"])
        XCTAssertEqual(news.map(\.deviceID), ["d1", "gone"])
        XCTAssertEqual(news.map(\.accepted), [true, false])
        XCTAssertEqual(h.double.devices.device(id: "d1")?.deliveries, 1, "a topic send counts as a delivery of each device it reached")

        _ = h.answer(h.send(#""condition":"'sports' in topics && !('news' in topics)""#, bearer: bearer))
        XCTAssertEqual(h.double.history.all.last?.recipients?.map(\.token), [t3])
        _ = h.answer(h.send(#""condition":"'news' in topics || 'sports' in topics && 'none' in topics""#, bearer: bearer))
        XCTAssertEqual(h.double.history.all.last?.recipients?.map(\.token), [t1, "fcm-topic-gone:APA91b"], "&& binds tighter than ||")
        _ = h.answer(h.send(#""topic":"nobody""#, bearer: bearer))
        XCTAssertEqual(h.double.history.all.last?.recipients ?? [], [], "a topic nobody is subscribed to reaches nobody")
        _ = h.answer(h.send(#""topic":"news""#, bearer: bearer, extra: #","validate_only":true"#))
        XCTAssertNil(h.double.history.all.last?.recipients, "validate_only reaches nobody")
    }

    func testConditionEvaluation() {
        let member: (String) -> Bool = { ["a", "b"].contains($0) }
        XCTAssertEqual(FCMTopicSyntax.matches("'a' in topics && 'b' in topics", isMember: member), true)
        XCTAssertEqual(FCMTopicSyntax.matches("'a' in topics && 'c' in topics", isMember: member), false)
        XCTAssertEqual(FCMTopicSyntax.matches("'c' in topics || 'a' in topics && 'b' in topics", isMember: member), true)
        XCTAssertEqual(FCMTopicSyntax.matches("('c' in topics || 'a' in topics) && !('b' in topics)", isMember: member), false)
        XCTAssertNil(FCMTopicSyntax.matches("'a' in topics &&", isMember: member))
        XCTAssertEqual(FCMTopicSyntax.conditionTopics("'a' in topics || ('b' in topics && !'c' in topics)"), ["a", "b", "c"])
        var bad = Device(id: "x", provider: .fcm, token: "t", attributes: ["topics": ["/topics/news"]])
        XCTAssertThrowsError(try FCMModule().validateDevice(&bad), "declared topics are bare names")
    }

    func testResetForgetsTopicSubscriptions() throws {
        let double = DoubleState(clock: ManualClock())
        let context = ProviderBuildContext(clock: double.clock, optionsPath: "fakeOptions.fcm", double: double)
        let instance = try XCTUnwrap(FCMModule().instantiate(options: nil, context: context) as? FCMInstance)
        XCTAssertEqual(instance.fake.subscriptions.subscribe("tok", to: "news", declared: [], now: 0), .added)
        double.reset(provider: ProviderID(rawValue: "apns"))
        XCTAssertEqual(instance.fake.subscriptions.topics(of: "tok", declared: []).map(\.topic), ["news"])
        double.reset()
        XCTAssertEqual(instance.fake.subscriptions.topics(of: "tok", declared: []).map(\.topic), [])
    }

    func testSubscriptionStoreLimitsAndDeclaredTopics() {
        let s = FCMTopicSubscriptions(maxTokens: 2)
        XCTAssertEqual(s.subscribe("x", to: "declared", declared: ["declared"], now: 0), .alreadySubscribed)
        XCTAssertTrue(s.unsubscribe("x", from: "declared", declared: ["declared"]))
        XCTAssertEqual(s.topics(of: "x", declared: ["declared"]).map(\.topic), [])
        XCTAssertEqual(s.subscribe("x", to: "declared", declared: ["declared"], now: 0), .added)
        XCTAssertEqual(s.topics(of: "x", declared: ["declared"]).map(\.topic), ["declared"])
        let many = (0..<FCMTopicSubscriptions.maxTopicsPerToken).map { "t\($0)" }
        XCTAssertEqual(s.subscribe("y", to: "one-more", declared: many, now: 0), .tooManyTopics)
        _ = s.subscribe("a", to: "t", declared: [], now: 0)
        _ = s.subscribe("b", to: "t", declared: [], now: 0)
        _ = s.subscribe("c", to: "t", declared: [], now: 0)
        XCTAssertEqual(s.tokensWithChanges(), ["b", "c"], "bounded: the oldest token is forgotten")
    }
}
