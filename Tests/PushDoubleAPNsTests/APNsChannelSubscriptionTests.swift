import Foundation
import XCTest
import PushDoubleCore
import PushDoubleTransport
@testable import PushDoubleAPNs

/// Simulated devices whose Live Activity subscribed to a broadcast channel: each accepted
/// broadcast reaches them, and a Most Recent Message channel hands its stored message to a
/// device that subscribes later, until it expires (on the double's manual clock).
final class APNsChannelSubscriptionTests: XCTestCase {
    var h: APNsHarness!
    var instance: APNsInstance!
    var registered = 0

    override func setUp() {
        h = APNsHarness()
        instance = APNsInstance(fake: h.fake, devices: h.double.devices)
    }

    func register(_ id: String, environment: String? = "production", topic: String? = nil, state: DeviceState = .active,
                  provider: ProviderID = .apns) throws {
        registered += 1
        _ = try h.double.devices.register(Device(id: id, provider: provider, token: String(format: "%064x", registered),
                                                 state: state, environment: environment, topic: topic))
    }

    /// A channel made through the production management listener.
    func createChannel(policy: Int) throws -> String {
        let r = h.send(path: "/1/apps/\(Fixture.topic)/channels", method: "POST", headers: [],
                       body: #"{"message-storage-policy":\#(policy),"push-type":"LiveActivity"}"#,
                       connection: FakeConnection(id: 41, listener: "apns-manage-production"))
        XCTAssertEqual(r.status, 201)
        return try XCTUnwrap(r.headers.first(name: "apns-channel-id"))
    }

    @discardableResult
    func broadcast(_ channel: String, score: String, expiration: Int64? = nil, file: StaticString = #filePath, line: UInt = #line) -> Int {
        var headers = [("apns-channel-id", channel), ("apns-push-type", "liveactivity")]
        if let e = expiration { headers.append(("apns-expiration", String(e))) }
        return h.send(path: "/4/broadcasts/apps/\(Fixture.topic)", headers: headers,
                      body: #"{"aps":{"event":"update","timestamp":1,"content-state":{"score":"\#(score)"}}}"#,
                      connection: FakeConnection(id: 42), file: file, line: line).status
    }

    /// One admin API request through the double's router (the core's routes and the APNs ones).
    func admin(_ method: String, _ path: String, body: String = "") throws -> (Int, JSONValue) {
        let api = AdminAPI(double: h.double, providerRoutes: instance.adminRoutes)
        let connection = FakeConnection(listener: "admin")
        let info = RequestInfo(connection: connection.info, streamID: 1, version: .http1_1, headReceivedAt: Date(), bodyReceivedAt: Date())
        let request = HTTPRequest(method: method, path: path, scheme: "http", authority: "127.0.0.1", headers: [:], body: Array(body.utf8), info: info)
        guard case .respond(let response) = api.respond(to: request, context: RequestContext(connection: connection)) else {
            XCTFail("no answer"); return (0, .null)
        }
        return (response.status, try JSONValue.parse(response.body))
    }

    func subscribe(_ device: String, _ channel: String, extra: String = "") throws -> (Int, JSONValue) {
        try admin("POST", "/apns/devices/\(device)/channels", body: #"{"channelId":"\#(channel)"\#(extra)}"#)
    }

    /// The content-state scores of what the device received, oldest first, with `*` for a stored message.
    func scores(_ device: String) -> [String] {
        h.fake.channels.updates(of: device).map {
            ($0.broadcast.payload?["aps"]?["content-state"]?["score"]?.stringValue ?? "?") + ($0.fromStorage ? "*" : "")
        }
    }

    func testSubscribedDevicesReceiveEachBroadcastUntilTheyUnsubscribe() throws {
        try register("d1")
        try register("d2", environment: nil, topic: Fixture.topic)
        try register("sandboxed", environment: "sandbox")
        try register("other-app", topic: "com.example.other")
        try register("fcm-device", provider: "fcm")
        let channel = try createChannel(policy: 0)
        XCTAssertEqual(try subscribe("d1", channel).0, 201)
        XCTAssertEqual(try subscribe("d1", channel).1["delivered"], .null)
        XCTAssertEqual(try subscribe("d2", channel).0, 201)
        XCTAssertEqual(try subscribe("sandboxed", channel).0, 409)
        XCTAssertEqual(try subscribe("other-app", channel).0, 409)
        XCTAssertEqual(try subscribe("fcm-device", channel).0, 409)
        XCTAssertEqual(try subscribe("nobody", channel).0, 404)
        XCTAssertEqual(try subscribe("d1", "bm8tc3VjaC1jaGFubmVs").0, 404)
        XCTAssertEqual(try admin("POST", "/apns/devices/d1/channels", body: "{}").0, 400)

        XCTAssertEqual(broadcast(channel, score: "1-0"), 200)
        XCTAssertEqual(scores("d1"), ["1-0"])
        XCTAssertEqual(scores("d2"), ["1-0"])
        XCTAssertEqual(scores("sandboxed"), [])
        let shown = try admin("GET", "/apns/devices/d1/channels").1
        XCTAssertEqual(shown["subscriptions"]?.arrayValue?.map { $0["channelId"]?.stringValue }, [channel])
        let update = try XCTUnwrap(shown["updates"]?.arrayValue?.first)
        XCTAssertEqual(update["payload"]?["aps"]?["content-state"]?["score"]?.stringValue, "1-0")
        XCTAssertEqual(update["fromStorage"], .bool(false))
        XCTAssertEqual(h.fake.channels.channel(channel, bundleID: Fixture.topic, environment: .production)?.subscribers, ["d1", "d2"])

        // An app that is gone runs no Live Activity; unsubscribing stops delivery.
        var d2 = try XCTUnwrap(h.double.devices.device(id: "d2"))
        d2.state = .unregistered(since: h.clock.now())
        _ = try h.double.devices.upsert(d2)
        XCTAssertEqual(try admin("DELETE", "/apns/devices/d1/channels?channelId=\(channel.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)").1["unsubscribed"]?.intValue, 1)
        XCTAssertEqual(broadcast(channel, score: "2-0"), 200)
        XCTAssertEqual(scores("d1"), ["1-0"])
        XCTAssertEqual(scores("d2"), ["1-0"])
        XCTAssertEqual(try admin("GET", "/apns/devices/d1/channels").1["subscriptions"]?.arrayValue?.count, 0)
    }

    func testLateSubscriberGetsTheStoredMessageForEightHoursAtMost() throws {
        try register("early"); try register("late"); try register("too-late")
        let channel = try createChannel(policy: 1)
        XCTAssertEqual(try subscribe("early", channel).0, 201)
        XCTAssertEqual(broadcast(channel, score: "1-0"), 200)
        h.clock.advance(APNsChannelStore.storageLimit - 1)
        let (status, late) = try subscribe("late", channel)
        XCTAssertEqual(status, 201)
        XCTAssertEqual(late["delivered"]?["fromStorage"], .bool(true))
        XCTAssertEqual(scores("late"), ["1-0*"])
        XCTAssertEqual(scores("early"), ["1-0"])
        h.clock.advance(1)  // exactly 8 h after the broadcast: no longer kept
        XCTAssertEqual(try subscribe("too-late", channel).1["delivered"], .null)
        XCTAssertEqual(scores("too-late"), [])
    }

    func testExpirationHeaderEndsStorageEarlierAndZeroStoresNothing() throws {
        try register("a"); try register("b"); try register("c"); try register("d")
        let channel = try createChannel(policy: 1)
        XCTAssertEqual(broadcast(channel, score: "1-0", expiration: h.now + 60), 200)
        h.clock.advance(59)
        XCTAssertEqual(try subscribe("a", channel).1["delivered"]?["requestId"]?.stringValue != nil, true)
        h.clock.advance(1)
        XCTAssertEqual(try subscribe("b", channel).1["delivered"], .null)
        // An expiration after the 8-hour limit is capped by it.
        XCTAssertEqual(broadcast(channel, score: "2-0", expiration: h.now + 86_400), 200)
        let kept = try XCTUnwrap(h.fake.channels.channel(channel, bundleID: Fixture.topic, environment: .production)?.storedUntil)
        XCTAssertEqual(kept, h.clock.now().addingTimeInterval(APNsChannelStore.storageLimit))
        // `apns-expiration: 0` is not stored, and the older message is no longer the most recent one.
        XCTAssertEqual(broadcast(channel, score: "3-0", expiration: 0), 200)
        XCTAssertEqual(try subscribe("c", channel).1["delivered"], .null)
        XCTAssertEqual(scores("a"), ["1-0*", "2-0", "3-0"])  // a subscriber hears every later broadcast
        XCTAssertEqual(scores("d"), [])
    }

    func testNewerMessageReplacesTheStoredOne() throws {
        try register("late")
        let channel = try createChannel(policy: 1)
        XCTAssertEqual(broadcast(channel, score: "1-0"), 200)
        h.clock.advance(3600)
        XCTAssertEqual(broadcast(channel, score: "2-0"), 200)
        h.clock.advance(APNsChannelStore.storageLimit - 1)  // 8 h after the first, just under after the second
        XCTAssertEqual(try subscribe("late", channel).0, 201)
        XCTAssertEqual(scores("late"), ["2-0*"])
    }

    func testNoStorageChannelDeliversNothingToLateSubscribers() throws {
        try register("late")
        let channel = try createChannel(policy: 0)
        XCTAssertEqual(broadcast(channel, score: "1-0"), 200)
        XCTAssertNil(h.fake.channels.channel(channel, bundleID: Fixture.topic, environment: .production)?.storedMessage)
        XCTAssertEqual(try subscribe("late", channel).1["delivered"], .null)
        XCTAssertEqual(scores("late"), [])
    }

    func testDeletingTheChannelDropsStorageAndSubscriptions() throws {
        try register("d1"); try register("late")
        let channel = try createChannel(policy: 1)
        XCTAssertEqual(try subscribe("d1", channel).0, 201)
        XCTAssertEqual(broadcast(channel, score: "1-0"), 200)
        let deleted = h.send(path: "/1/apps/\(Fixture.topic)/channels", method: "DELETE", headers: [("apns-channel-id", channel)], body: "",
                             connection: FakeConnection(id: 43, listener: "apns-manage-production"))
        XCTAssertEqual(deleted.status, 204)
        XCTAssertEqual(try subscribe("late", channel).0, 404)
        XCTAssertEqual(broadcast(channel, score: "2-0"), 400)  // ChannelNotRegistered
        // The same id declared again is a new channel: no subscribers, nothing stored.
        let seed = APNsChannelSeed(bundleID: Fixture.topic, environment: .production, policy: .mostRecentMessage, channelID: channel, subscribers: [])
        XCTAssertEqual(seed.create(in: h.fake.channels, now: h.clock.now()), .created(try XCTUnwrap(
            h.fake.channels.channel(channel, bundleID: Fixture.topic, environment: .production))))
        XCTAssertEqual(h.fake.channels.channel(channel, bundleID: Fixture.topic, environment: .production)?.subscribers, [])
        XCTAssertEqual(try subscribe("late", channel).1["delivered"], .null)
        XCTAssertEqual(scores("d1"), ["1-0"])  // what a device got stays in its log
    }

    func testEnvironmentsKeepTheirOwnChannelsAndStorage() throws {
        try register("prod"); try register("sand", environment: "sandbox")
        let id = "c2FtZS1pZC1ib3RoLWVudnM="
        for env in [APNsEnvironment.production, .sandbox] {
            _ = APNsChannelSeed(bundleID: Fixture.topic, environment: env, policy: .mostRecentMessage, channelID: id, subscribers: [])
                .create(in: h.fake.channels, now: h.clock.now())
        }
        XCTAssertEqual(broadcast(id, score: "1-0"), 200)  // production
        XCTAssertEqual(try subscribe("sand", id).0, 400)  // two channels share the id
        XCTAssertEqual(try subscribe("sand", id, extra: #","environment":"sandbox""#).1["delivered"], .null)
        XCTAssertEqual(try subscribe("prod", id, extra: #","environment":"production""#).1["delivered"]?["fromStorage"], .bool(true))
        XCTAssertEqual(scores("sand"), [])
        XCTAssertEqual(scores("prod"), ["1-0*"])
    }

    func testScenarioChannelsDeclareSubscribers() throws {
        let options = try JSONValue.parse(Array(#"{"channels":[{"channelId":"c2NlbmFyaW8tY2hhbm5lbA==","subscribers":["d1"]}]}"#.utf8))
        let context = ProviderBuildContext(clock: h.clock, file: "s.json", optionsPath: "fakeOptions.apns", double: h.double)
        let built = try XCTUnwrap(APNsModule().instantiate(options: options, context: context) as? APNsInstance)
        XCTAssertEqual(built.fake.channels.all().first?.subscribers, ["d1"])
        XCTAssertEqual(built.fake.channels.all().first?.json["subscribers"], .array(["d1"]))
        XCTAssertThrowsError(try APNsModule().instantiate(options: try JSONValue.parse(Array(#"{"channels":[{"subscribers":"d1"}]}"#.utf8)),
                                                          context: context))
        XCTAssertThrowsError(try APNsModule().instantiate(options: try JSONValue.parse(Array(#"{"channels":[{"subscribers":[1]}]}"#.utf8)),
                                                          context: context))
    }

    func testResetForgetsChannelsAndStartsTheConfiguredOnesAgain() throws {
        let options = try JSONValue.parse(Array(#"{"channels":[{"channelId":"c2NlbmFyaW8tY2hhbm5lbA==","messageStoragePolicy":1}]}"#.utf8))
        let context = ProviderBuildContext(clock: h.clock, file: "s.json", optionsPath: "fakeOptions.apns", double: h.double)
        let built = try XCTUnwrap(APNsModule().instantiate(options: options, context: context) as? APNsInstance)
        _ = APNsChannelSeed(bundleID: Fixture.topic, environment: .sandbox, policy: .noStorage, channelID: "b3RoZXItY2hhbm5lbA==",
                            subscribers: []).create(in: built.fake.channels, now: h.clock.now())
        XCTAssertEqual(built.fake.channels.all().count, 2)
        h.double.reset(provider: ProviderID(rawValue: "fcm"))
        XCTAssertEqual(built.fake.channels.all().count, 2, "another provider's reset kept the channels")
        h.double.reset()
        XCTAssertEqual(built.fake.channels.all().map(\.id), ["c2NlbmFyaW8tY2hhbm5lbA=="])
        XCTAssertEqual(built.fake.channels.all().first?.storagePolicy, .mostRecentMessage)
    }

    /// Every APNs admin route is documented in docs/admin-openapi.yaml under its path and method.
    func testEveryAPNsAdminRouteIsInTheOpenAPIFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let yaml = try String(contentsOf: root.appendingPathComponent("docs/admin-openapi.yaml"), encoding: .utf8)
        let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for route in instance.adminRoutes {
            let path = route.path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            let start = try XCTUnwrap(lines.firstIndex(of: "  /\(path):"), "\(route.path) is not in admin-openapi.yaml")
            let operations = lines[(start + 1)...].prefix { !$0.hasPrefix("  /") && !$0.hasPrefix("components:") }
            XCTAssertTrue(operations.contains("    \(route.method.lowercased()):"), "\(route.method) \(route.path) is not in admin-openapi.yaml")
        }
    }
}
