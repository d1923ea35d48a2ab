import Foundation
import XCTest
import PushDoubleCore
import PushDoubleTransport
@testable import PushDoubleAPNs

/// Channel management for broadcast push (docs/apns.md "Broadcast channels") through the real
/// core pipeline: create / read / delete / list, the per-environment channel sets, the
/// 10,000-channel limit, Apple's refusals, auth by JWT and by provider certificate.
final class APNsChannelManagementTests: XCTestCase {
    let h = APNsHarness()
    lazy var production = FakeConnection(id: 11, listener: "apns-manage-production")
    lazy var sandbox = FakeConnection(id: 12, listener: "apns-manage-sandbox")

    func manage(_ method: String, _ path: String = "/1/apps/\(Fixture.topic)/channels", channel: String? = nil,
                body: String = "", headers extra: [(String, String)] = [], authorization: String? = nil, omitAuthorization: Bool = false,
                on connection: FakeConnection? = nil) -> HTTPResponse {
        var headers = extra
        if let channel { headers.append(("apns-channel-id", channel)) }
        return h.send(path: path, method: method, headers: headers, authorization: authorization, omitAuthorization: omitAuthorization,
                      body: body, connection: connection ?? production)
    }

    func create(policy: Int = 1, on connection: FakeConnection? = nil) throws -> String {
        let r = manage("POST", body: #"{"message-storage-policy":\#(policy),"push-type":"LiveActivity"}"#, on: connection)
        XCTAssertEqual(r.status, 201)
        XCTAssertNotNil(r.headers.first(name: "apns-request-id"))
        XCTAssertTrue(r.body.isEmpty)
        return try XCTUnwrap(r.headers.first(name: "apns-channel-id"))
    }

    func testCreateReadListDelete() throws {
        let id = try create(policy: 1)
        XCTAssertNotNil(Data(base64Encoded: id))
        let read = manage("GET", channel: id)
        XCTAssertEqual(read.status, 200)
        XCTAssertEqual(String(decoding: read.body, as: UTF8.self), #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)
        let second = try create(policy: 0)
        let list = manage("GET", "/1/apps/\(Fixture.topic)/all-channels")
        XCTAssertEqual(list.status, 200)
        XCTAssertEqual(String(decoding: list.body, as: UTF8.self), #"{"channels":["\#(id)","\#(second)"]}"#)
        let deleted = manage("DELETE", channel: id)
        XCTAssertEqual(deleted.status, 204)
        XCTAssertTrue(deleted.body.isEmpty)
        XCTAssertEqual(h.fake.channels.channels(bundleID: Fixture.topic, environment: .production).map(\.id), [second])
        // Deleted: read and delete again are refused.
        XCTAssertEqual(reason(manage("GET", channel: id)), "ChannelNotRegistered")
        XCTAssertEqual(reason(manage("DELETE", channel: id)), "ChannelNotRegistered")
    }

    func testRequestIDIsEchoed() throws {
        let rid = "0a9f5c9e-1b1d-4c2b-9c7e-2f7f0b6b4a11"
        let r = manage("GET", "/1/apps/\(Fixture.topic)/all-channels", headers: [("apns-request-id", rid)])
        XCTAssertEqual(r.headers.first(name: "apns-request-id"), rid)
        let refused = manage("GET", channel: "AAAAAAAAAAAAAAAAAAAAAA==", headers: [("apns-request-id", rid)])
        XCTAssertEqual(refused.headers.first(name: "apns-request-id"), rid)
        XCTAssertNil(refused.headers.first(name: "apns-id"))
    }

    func testChannelsAreNotSharedAcrossEnvironments() throws {
        let id = try create()
        XCTAssertEqual(reason(manage("GET", channel: id, on: sandbox)), "ChannelNotRegistered")
        let list = manage("GET", "/1/apps/\(Fixture.topic)/all-channels", on: sandbox)
        XCTAssertEqual(String(decoding: list.body, as: UTF8.self), #"{"channels":[]}"#)
        let sandboxID = try create(on: sandbox)
        XCTAssertEqual(h.fake.channels.all().map(\.environment), [.production, .sandbox])
        XCTAssertEqual(manage("GET", channel: sandboxID, on: sandbox).status, 200)
    }

    func testRealHostNamesTheEnvironment() throws {
        // A request on a management listener whose :authority names the other real host.
        let r = h.send(path: "/1/apps/\(Fixture.topic)/channels", method: "POST", headers: [],
                       body: #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#,
                       authority: "api-manage-broadcast.sandbox.push.apple.com:2195", connection: production)
        XCTAssertEqual(r.status, 201)
        XCTAssertEqual(h.fake.channels.all().map(\.environment), [.sandbox])
    }

    func testLimitPerAppAndEnvironment() throws {
        let store = APNsChannelStore(limit: 3)
        let now = Date()
        for _ in 0..<3 {
            guard case .created = store.create(bundleID: "a", environment: .production, policy: .noStorage, now: now) else { return XCTFail() }
        }
        XCTAssertEqual(store.create(bundleID: "a", environment: .production, policy: .noStorage, now: now), .limitReached)
        // Another environment and another app have their own allowance.
        guard case .created = store.create(bundleID: "a", environment: .sandbox, policy: .noStorage, now: now) else { return XCTFail() }
        guard case .created(let c) = store.create(bundleID: "b", environment: .production, policy: .noStorage, now: now) else { return XCTFail() }
        XCTAssertTrue(store.delete(c.id, bundleID: "b", environment: .production))
        let first = store.channels(bundleID: "a", environment: .production)[0]
        XCTAssertTrue(store.delete(first.id, bundleID: "a", environment: .production))
        guard case .created = store.create(bundleID: "a", environment: .production, policy: .noStorage, now: now) else { return XCTFail() }
        XCTAssertEqual(APNsChannelStore.appleLimit, 10_000)
        XCTAssertEqual(h.fake.channels.limit, 10_000)
    }

    func testTheTenThousandFirstChannelIsRefused() throws {
        let now = Date()
        for _ in 0..<10_000 { _ = h.fake.channels.create(bundleID: Fixture.topic, environment: .production, policy: .noStorage, now: now) }
        let r = manage("POST", body: #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#)
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(reason(r), "CannotCreateChannelConfig")
        XCTAssertEqual(try create(on: sandbox).isEmpty, false)
    }

    func testBadBodies() {
        let cases: [(String, String)] = [
            ("", "BadRequestPayload"), ("not json", "BadRequestPayload"), ("[]", "BadRequestPayload"),
            (#"{"message-storage-policy":1}"#, "MissingPushType"),
            (#"{"message-storage-policy":2,"push-type":"LiveActivity"}"#, "BadRequestPayload"),
            (#"{"message-storage-policy":"1","push-type":"LiveActivity"}"#, "BadRequestPayload"),
            (#"{"push-type":"LiveActivity"}"#, "BadRequestPayload"),
            (#"{"message-storage-policy":1,"push-type":"alert"}"#, "BadRequestPayload"),
        ]
        for (body, expected) in cases {
            let r = manage("POST", body: body)
            XCTAssertEqual(r.status, 400, body)
            XCTAssertEqual(reason(r), expected, body)
        }
        XCTAssertTrue(h.fake.channels.all().isEmpty)
    }

    func testChannelIDRefusals() {
        XCTAssertEqual(reason(manage("GET")), "MissingChannelId")
        XCTAssertEqual(reason(manage("DELETE")), "MissingChannelId")
        XCTAssertEqual(reason(manage("GET", channel: "not base64!")), "BadChannelId")
        XCTAssertEqual(reason(manage("GET", channel: "AAAAAAAAAAAAAAAAAAAAAA==")), "ChannelNotRegistered")
    }

    func testPathAndMethod() {
        let put = manage("PUT")
        XCTAssertEqual(put.status, 405)
        XCTAssertEqual(reason(put), "MethodNotAllowed")
        XCTAssertEqual(manage("POST", "/1/apps/\(Fixture.topic)/all-channels").status, 405)
        for path in ["/1/apps//channels", "/2/apps/\(Fixture.topic)/channels", "/1/apps/\(Fixture.topic)/channel", "/3/device/\(Fixture.token)"] {
            let r = manage("GET", path)
            XCTAssertEqual(r.status, 404, path)
            XCTAssertEqual(reason(r), "BadPath", path)
        }
    }

    func testAuthRefusals() {
        let missing = manage("GET", "/1/apps/\(Fixture.topic)/all-channels", omitAuthorization: true)
        XCTAssertEqual(missing.status, 403)
        XCTAssertEqual(reason(missing), "MissingProviderToken")
        let bad = manage("GET", "/1/apps/\(Fixture.topic)/all-channels", authorization: "bearer abc.def.ghi",
                         on: FakeConnection(id: 13, listener: "apns-manage-production"))
        XCTAssertEqual(bad.status, 403)
        XCTAssertEqual(reason(bad), "InvalidProviderToken")
        // A bundle id the key may not push to.
        let other = manage("GET", "/1/apps/com.example.other/all-channels")
        XCTAssertEqual(other.status, 400)
        XCTAssertEqual(reason(other), "TopicDisallowed")
    }

    func testHistoryAndEndpointIDs() throws {
        let id = try create(policy: 0)
        _ = manage("GET", channel: id)
        _ = manage("GET", "/1/apps/\(Fixture.topic)/all-channels")
        _ = manage("DELETE", channel: id)
        let records = h.double.history.all
        XCTAssertEqual(records.map(\.endpoint), ["apns.channels.create", "apns.channels.read", "apns.channels.list", "apns.channels.delete"])
        XCTAssertEqual(records.map(\.environment), ["production", "production", "production", "production"])
        XCTAssertEqual(records[1].notification?["channelId"]?.stringValue, id)
        XCTAssertEqual(records[0].notification?["body"]?["message-storage-policy"]?.intValue, 0)
    }

    func testModuleDeclaresListenersAndEndpoints() {
        let module = APNsModule()
        let names = module.listenerDefaults.map(\.name)
        XCTAssertEqual(names, ["apns-production", "apns-sandbox", "apns-manage-production", "apns-manage-sandbox"])
        XCTAssertEqual(module.listenerDefaults[2].realHosts, ["api-manage-broadcast.push.apple.com:2196"])
        XCTAssertEqual(module.listenerDefaults[3].realHosts, ["api-manage-broadcast.sandbox.push.apple.com:2195"])
        XCTAssertEqual(Set(module.listenerDefaults.map(\.defaultPort)).count, 4)
        let endpoints = module.endpoints.map(\.id)
        for e in APNsFake.channelEndpoints { XCTAssertTrue(endpoints.contains(e), e) }
        let specs = h.fake.managementListenerSpecs()
        XCTAssertEqual(specs.map(\.name), ["apns-manage-production", "apns-manage-sandbox"])
        XCTAssertTrue(specs.allSatisfy { $0.requestClientCertificate && $0.alpn == ["h2"] && !$0.allowHTTP1 })
    }
}
