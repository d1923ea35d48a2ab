import Foundation
import XCTest
import PushDoubleCore
import PushDoubleTransport
@testable import PushDoubleAPNs

/// Channels declared by scenario options and the admin API's `/apns/channels` (each channel
/// with the broadcasts it received).
final class APNsChannelAdminTests: XCTestCase {
    func context() -> ProviderBuildContext { ProviderBuildContext(clock: ManualClock(), file: "s.json", optionsPath: "fakeOptions.apns") }

    func route(_ instance: APNsInstance, _ method: String, _ path: String, body: String = "") throws -> (Int, JSONValue) {
        let pattern = path.split(separator: "?").first.map(String.init) ?? path
        let r = try XCTUnwrap(instance.adminRoutes.first { $0.method == method && $0.path == pattern })
        let info = RequestInfo(connection: FakeConnection(listener: "admin").info, streamID: 1, version: .http1_1,
                               headReceivedAt: Date(), bodyReceivedAt: Date())
        let response = r.handler(HTTPRequest(method: method, path: path, scheme: "http", authority: "localhost", headers: HTTPHeaders(),
                                             body: Array(body.utf8), info: info), RouteParameters())
        return (response.status, try JSONValue.parse(response.body))
    }

    func testScenarioDeclaresChannels() throws {
        let options: JSONValue = try JSONValue.parse(Array(#"""
        {"channels":[{"bundleId":"com.example.pushdouble","environment":"sandbox","messageStoragePolicy":1,"channelId":"c2NvcmVzLWNoYW5uZWwtMQ=="},
                     {}]}
        """#.utf8))
        let instance = try XCTUnwrap(APNsModule().instantiate(options: options, context: context()) as? APNsInstance)
        let all = instance.fake.channels.all()
        XCTAssertEqual(all.map(\.environment), [.production, .sandbox])
        XCTAssertEqual(all[1].id, "c2NvcmVzLWNoYW5uZWwtMQ==")
        XCTAssertEqual(all[1].storagePolicy, .mostRecentMessage)
        XCTAssertEqual(all[0].storagePolicy, .noStorage)
        XCTAssertEqual(all[0].bundleID, APNsTestCredentials.topic)
        for bad in [#"{"channels":{}}"#, #"{"channels":[{"environment":"dev"}]}"#, #"{"channels":[{"messageStoragePolicy":3}]}"#,
                    #"{"channels":[{"channelId":"not base64!"}]}"#] {
            XCTAssertThrowsError(try APNsModule().instantiate(options: try JSONValue.parse(Array(bad.utf8)), context: context()), bad) { e in
                XCTAssertTrue("\(e)".contains("fakeOptions.apns.channels"), "\(e)")
            }
        }
    }

    func testAdminListsChannelsWithTheirBroadcasts() throws {
        let instance = APNsInstance(fake: APNsFake())
        let (status, created) = try route(instance, "POST", "/apns/channels", body: #"{"environment":"sandbox","messageStoragePolicy":1}"#)
        XCTAssertEqual(status, 201)
        let id = try XCTUnwrap(created["channelId"]?.stringValue)
        let record = APNsBroadcastRecord(requestID: "r1", receivedAt: Date(timeIntervalSince1970: 0), priority: 10, expiration: nil,
                                         payload: .object([("aps", .object([("event", .string("end"))]))]))
        XCTAssertNotNil(instance.fake.channels.recordBroadcast(record, channel: id, bundleID: APNsTestCredentials.topic, environment: .sandbox))
        XCTAssertNil(instance.fake.channels.recordBroadcast(record, channel: id, bundleID: APNsTestCredentials.topic, environment: .production))
        let (_, listed) = try route(instance, "GET", "/apns/channels?environment=sandbox")
        let channel = try XCTUnwrap(listed["channels"]?.arrayValue?.first)
        XCTAssertEqual(channel["channelId"]?.stringValue, id)
        XCTAssertEqual(channel["messageStoragePolicy"]?.intValue, 1)
        XCTAssertEqual(channel["broadcasts"]?.arrayValue?.first?["requestId"]?.stringValue, "r1")
        XCTAssertEqual(try route(instance, "GET", "/apns/channels?environment=production").1["channels"]?.arrayValue?.count, 0)
        XCTAssertEqual(try route(instance, "GET", "/apns/channels?environment=dev").0, 400)
        XCTAssertEqual(try route(instance, "POST", "/apns/channels", body: #"{"messageStoragePolicy":5}"#).0, 400)
        XCTAssertEqual(try route(instance, "DELETE", "/apns/channels").0, 200)
        XCTAssertTrue(instance.fake.channels.all().isEmpty)
    }

    func testBroadcastLogThroughThePipeline() throws {
        let h = APNsHarness()
        let manage = FakeConnection(id: 31, listener: "apns-manage-production")
        let r = h.send(path: "/1/apps/\(Fixture.topic)/channels", method: "POST", headers: [],
                       body: #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#, connection: manage)
        let id = try XCTUnwrap(r.headers.first(name: "apns-channel-id"))
        for score in ["1-0", "2-0"] {
            let b = h.send(path: "/4/broadcasts/apps/\(Fixture.topic)", headers: [("apns-channel-id", id), ("apns-push-type", "liveactivity")],
                           body: #"{"aps":{"event":"update","timestamp":1,"content-state":{"s":"\#(score)"}}}"#, connection: FakeConnection(id: 32))
            XCTAssertEqual(b.status, 200)
        }
        let log = try XCTUnwrap(h.fake.channels.channel(id, bundleID: Fixture.topic, environment: .production)).broadcasts
        XCTAssertEqual(log.map { $0.payload?["aps"]?["content-state"]?["s"]?.stringValue }, ["1-0", "2-0"])
    }
}
