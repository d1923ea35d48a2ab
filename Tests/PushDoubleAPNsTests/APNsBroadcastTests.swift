import Foundation
import XCTest
import PushDoubleCore
import PushDoubleTransport
@testable import PushDoubleAPNs

/// Broadcast pushes (`POST /4/broadcasts/apps/<bundleId>`, docs/apns.md "Broadcast push")
/// through the real core pipeline: accepted on an existing channel, refused on a deleted or
/// unknown one and in the other environment, Apple's header checks, the history record.
final class APNsBroadcastTests: XCTestCase {
    let h = APNsHarness()
    let manage = FakeConnection(id: 21, listener: "apns-manage-production")
    let push = FakeConnection(id: 22, listener: "apns-production")
    static let update = #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"score":"1-0"}}}"#

    func createChannel(policy: Int = 1) throws -> String {
        let r = h.send(path: "/1/apps/\(Fixture.topic)/channels", method: "POST", headers: [],
                       body: #"{"message-storage-policy":\#(policy),"push-type":"LiveActivity"}"#, connection: manage)
        XCTAssertEqual(r.status, 201)
        return try XCTUnwrap(r.headers.first(name: "apns-channel-id"))
    }

    func broadcast(channel: String?, pushType: String? = "liveactivity", extra: [(String, String)] = [], body: String = APNsBroadcastTests.update,
                   path: String = "/4/broadcasts/apps/\(Fixture.topic)", method: String = "POST", connection: FakeConnection? = nil) -> HTTPResponse {
        var headers = extra
        if let channel { headers.append(("apns-channel-id", channel)) }
        if let pushType { headers.append(("apns-push-type", pushType)) }
        return h.send(path: path, method: method, headers: headers, body: body, connection: connection ?? push)
    }

    func testBroadcastToAChannel() throws {
        let id = try createChannel()
        let rid = "5b1c4f8e-9a0d-4e59-8f0e-1c2d3e4f5a6b"
        let r = broadcast(channel: id, extra: [("apns-request-id", rid), ("apns-priority", "5"), ("apns-expiration", "0")])
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.headers.first(name: "apns-request-id"), rid)
        XCTAssertNil(r.headers.first(name: "apns-id"))
        XCTAssertEqual(r.headers.first(name: "apns-unique-id")?.count, 36, "a server-generated UUID")
        XCTAssertTrue(r.body.isEmpty)
        let e = try XCTUnwrap(h.double.history.all.last)
        XCTAssertEqual(e.endpoint, "apns.broadcast")
        XCTAssertEqual(e.topic, Fixture.topic)
        XCTAssertEqual(e.environment, "production")
        let n = try XCTUnwrap(e.notification)
        XCTAssertEqual(n["channelId"]?.stringValue, id)
        XCTAssertEqual(n["priority"]?.intValue, 5)
        XCTAssertEqual(n["expiration"]?.intValue, 0)
        XCTAssertEqual(n["payload"]?["aps"]?["event"]?.stringValue, "update")
        XCTAssertNil(n["liveActivityProblems"])
    }

    func testDeletedUnknownAndOtherEnvironmentChannelsAreRefused() throws {
        let id = try createChannel()
        // The sandbox has no such channel.
        let sandbox = broadcast(channel: id, connection: FakeConnection(id: 23, listener: "apns-sandbox"))
        XCTAssertEqual(sandbox.status, 400)
        XCTAssertEqual(reason(sandbox), "ChannelNotRegistered")
        XCTAssertEqual(reason(broadcast(channel: "AAAAAAAAAAAAAAAAAAAAAA==")), "ChannelNotRegistered")
        let deleted = h.send(path: "/1/apps/\(Fixture.topic)/channels", method: "DELETE", headers: [("apns-channel-id", id)], body: "", connection: manage)
        XCTAssertEqual(deleted.status, 204)
        let after = broadcast(channel: id)
        XCTAssertEqual(after.status, 400)
        XCTAssertEqual(reason(after), "ChannelNotRegistered")
        XCTAssertEqual(h.double.history.all.last?.response.reason, "ChannelNotRegistered")
    }

    func testHeaderChecks() throws {
        let id = try createChannel()
        XCTAssertEqual(reason(broadcast(channel: nil)), "MissingChannelId")
        XCTAssertEqual(reason(broadcast(channel: "%%%")), "BadChannelId")
        XCTAssertEqual(reason(broadcast(channel: id, pushType: nil)), "MissingPushType")
        XCTAssertEqual(reason(broadcast(channel: id, pushType: "alert")), "InvalidPushType")
        XCTAssertEqual(reason(broadcast(channel: id, extra: [("apns-priority", "7")])), "BadPriority")
        XCTAssertEqual(reason(broadcast(channel: id, extra: [("apns-expiration", "soon")])), "BadExpirationDate")
        XCTAssertEqual(reason(broadcast(channel: id, body: "")), "PayloadEmpty")
        let big = #"{"aps":{"event":"update","timestamp":1,"content-state":{"x":""# + String(repeating: "a", count: 5100) + #""}}}"#
        // Apple's broadcast limit is 5120 bytes: a 4.1 KB payload is fine.
        let fits = #"{"aps":{"event":"update","timestamp":1,"content-state":{"x":""# + String(repeating: "a", count: 4100) + #""}}}"#
        XCTAssertEqual(broadcast(channel: id, body: fits).status, 200)
        let tooLarge = broadcast(channel: id, body: big)
        XCTAssertEqual(tooLarge.status, 413)
        XCTAssertEqual(reason(tooLarge), "PayloadTooLarge")
        XCTAssertEqual(broadcast(channel: id, method: "GET").status, 405)
        let badPath = broadcast(channel: id, path: "/4/broadcasts/\(Fixture.topic)")
        XCTAssertEqual(badPath.status, 404)
        XCTAssertEqual(reason(badPath), "BadPath")
        XCTAssertEqual(reason(broadcast(channel: id, path: "/4/broadcasts/apps/com.example.other")), "TopicDisallowed")
        let anonymous = h.send(path: "/4/broadcasts/apps/\(Fixture.topic)", headers: [("apns-channel-id", id), ("apns-push-type", "liveactivity")],
                               omitAuthorization: true, body: Self.update, connection: FakeConnection(id: 24))
        XCTAssertEqual(reason(anonymous), "MissingProviderToken")
    }

    func testLiveActivityPayloadProblemsAreRecorded() throws {
        let id = try createChannel(policy: 0)
        let r = broadcast(channel: id, body: #"{"aps":{"event":"start","content-state":{}}}"#)
        XCTAssertEqual(r.status, 200)
        let problems = h.double.history.all.last?.notification?["liveActivityProblems"]?.arrayValue?.compactMap(\.stringValue)
        XCTAssertEqual(problems, ["aps.timestamp missing or not a number", "aps.event is not \"update\" or \"end\""])
        XCTAssertEqual(APNsBroadcastRequest.liveActivityProblems(try APNsPayloadDecoder.decode(Array(#"{"aps":{"event":"update","timestamp":1}}"#.utf8)).get()),
                       ["aps.content-state missing on update"])
        XCTAssertEqual(APNsBroadcastRequest.liveActivityProblems(try APNsPayloadDecoder.decode(Array(#"{"aps":{"event":"end","timestamp":1}}"#.utf8)).get()), [])
    }

    /// Apple: a nonzero expiration on a No Message Stored channel is rejected; 0 is fine, and a
    /// Most Recent Message Stored channel takes any expiration.
    func testNonzeroExpirationOnANoStorageChannelIsRefused() throws {
        let none = try createChannel(policy: 0), stored = try createChannel(policy: 1)
        let refused = broadcast(channel: none, extra: [("apns-expiration", "1900000000")])
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(reason(refused), "BadExpirationDate")
        XCTAssertEqual(broadcast(channel: none, extra: [("apns-expiration", "0")]).status, 200)
        XCTAssertEqual(broadcast(channel: stored, extra: [("apns-expiration", "1900000000")]).status, 200)
    }

    /// A fault rule with `channel` fires on that channel's broadcasts only (and on its read
    /// and delete requests when the rule names no endpoint but theirs).
    func testFaultRulesMatchAChannel() throws {
        let hit = try createChannel(), other = try createChannel()
        try h.double.faults.add(FaultRule(id: "c", match: FaultMatch(endpoint: APNsFake.broadcastEndpoint, channel: hit),
                                          action: .respond(ResponseSpec(reason: "ServiceUnavailable"))))
        let refused = broadcast(channel: hit)
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(reason(refused), "ServiceUnavailable")
        XCTAssertNotNil(refused.headers.first(name: "apns-request-id"))
        XCTAssertEqual(broadcast(channel: other).status, 200)
        let rule = try JSONDecoder().decode(FaultRule.self, from: Data(#"{"id":"r","match":{"endpoint":"apns.channels.delete","channel":"\#(other)"},"action":{"type":"respond","reason":"InternalServerError"}}"#.utf8))
        XCTAssertEqual(rule.match.channel, other)
        try h.double.faults.add(rule)
        XCTAssertEqual(h.send(path: "/1/apps/\(Fixture.topic)/channels", method: "DELETE", headers: [("apns-channel-id", hit)], body: "", connection: manage).status, 204)
        XCTAssertEqual(h.send(path: "/1/apps/\(Fixture.topic)/channels", method: "DELETE", headers: [("apns-channel-id", other)], body: "", connection: manage).status, 500)
    }

    func testDevicePushesAreUnchanged() {
        XCTAssertEqual(h.send(connection: FakeConnection(id: 25)).status, 200)
        XCTAssertEqual(h.double.history.all.last?.endpoint, "apns.push")
    }
}

extension APNsBroadcastTests {
    /// A body over the transport's limit on a broadcast or a channel request: `PayloadTooLarge`
    /// with `apns-request-id`, under the request's own endpoint.
    func testOversizedBodiesAnswerWithTheRequestID() throws {
        let violation = LimitViolation(kind: .bodyTooLarge, message: "request body larger than 1048576 bytes")
        let rid = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
        let cases: [(String, FakeConnection, String)] = [
            ("/4/broadcasts/apps/\(Fixture.topic)", FakeConnection(id: 41), "apns.broadcast"),
            ("/1/apps/\(Fixture.topic)/channels", FakeConnection(id: 42, listener: "apns-manage-sandbox"), "apns.channels"),
        ]
        for (path, connection, endpoint) in cases {
            let head = Fixture.request(path: path, headers: [("apns-request-id", rid)], body: "", connection: connection)
            let admission = try XCTUnwrap(h.fake.limitRefusal(violation, request: head, context: RequestContext(connection: connection)))
            XCTAssertEqual(admission.endpoint, endpoint)
            guard case .respond(let r)? = admission.refusal?.action else { return XCTFail(path) }
            XCTAssertEqual(r.status, 413)
            XCTAssertEqual(r.headers.first(name: "apns-request-id"), rid)
            XCTAssertEqual(reason(r), "PayloadTooLarge")
        }
        XCTAssertEqual(h.fake.limitRefusal(violation, request: Fixture.request(body: ""), context: RequestContext(connection: FakeConnection()))?.endpoint,
                       "apns.push")
    }
}
