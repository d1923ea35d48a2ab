import Foundation
import XCTest
import PushDoubleTesting   // re-exports PushDouble: server, devices, faults, history, credentials
import PushSender

/// The senders' real URLSession code against a fresh plaintext double per test (XCTest).
final class SenderXCTests: XCTestCase {
    var double: PushDoubleServer!

    override func setUpWithError() throws {
        double = try startPushDouble(.ephemeral(tls: false))   // stopped after each test
    }

    func apns() throws -> APNsSender {
        APNsSender(baseURL: URL(string: try XCTUnwrap(double.endpoint(named: "apns-sandbox")).url)!,
                   topic: APNsTestCredentials.topic, providerToken: TestCredentials.apnsProviderToken)
    }

    func testAPNsAlertIsDelivered() async throws {
        let token = String(repeating: "ab", count: 32)
        let outcome = try await apns().sendAlert(to: token, title: "Order shipped", body: "It is on its way", badge: 1)
        guard case .delivered(let id) = outcome else { return XCTFail("\(outcome)") }
        let push = try XCTUnwrap(double.history.apnsPushes.first)
        XCTAssertEqual(push.headers["apns-id"] ?? id, id)
        XCTAssertEqual(push.deviceToken, token)
        XCTAssertEqual(push.alert?.title, "Order shipped")
        XCTAssertEqual(push.badge, 1)
        XCTAssertEqual(push.exchange.plaintext, true)
    }

    func testAPNsUnregisteredDeviceIsReported() async throws {
        let token = String(repeating: "cd", count: 32)
        _ = try double.devices.register(Device(id: "old-phone", provider: .apns, token: token, state: .unregistered(since: Date())))
        let outcome = try await apns().sendAlert(to: token, title: "t", body: "b")
        XCTAssertEqual(outcome, .rejected(status: 410, reason: "Unregistered"))
    }

    func testAPNsFaultRuleShapesTheAnswer() async throws {
        try double.faults.add(FaultRule(id: "busy", match: FaultMatch(provider: .apns), action: .respond(ResponseSpec(reason: "TooManyRequests"))))
        let outcome = try await apns().sendAlert(to: String(repeating: "ef", count: 32), title: "t", body: "b")
        XCTAssertEqual(outcome, .rejected(status: 429, reason: "TooManyRequests"))
    }

    func testFCMMessageIsSentWithAnAccessTokenFromTheDouble() async throws {
        let double = self.double!
        let fcm = FCMSender(baseURL: URL(string: try XCTUnwrap(double.endpoint(named: "fcm")).url)!,
                            projectID: FCMTestCredentials.projectID, accessToken: { try await TestCredentials.fcmAccessToken(double) })
        let outcome = try await fcm.send(to: "registration-token-1", title: "Hi", body: "there", data: ["orderID": "42"])
        guard case .sent(let name) = outcome else { return XCTFail("\(outcome)") }
        XCTAssertTrue(name.hasPrefix("projects/\(FCMTestCredentials.projectID)/messages/"), name)
        let message = try XCTUnwrap(double.history.fcmMessages.first)
        XCTAssertEqual(message.token, "registration-token-1")
        XCTAssertEqual(message.notification?.title, "Hi")
        XCTAssertEqual(message.data, ["orderID": "42"])
    }

    func testFCMUnregisteredTokenIsReported() async throws {
        let double = self.double!
        _ = try double.devices.register(Device(id: "gone", provider: .fcm, token: "gone-token", state: .unregistered(since: Date())))
        let fcm = FCMSender(baseURL: URL(string: try XCTUnwrap(double.endpoint(named: "fcm")).url)!,
                            projectID: FCMTestCredentials.projectID, accessToken: { try await TestCredentials.fcmAccessToken(double) })
        let outcome = try await fcm.send(to: "gone-token", title: "t", body: "b")
        XCTAssertEqual(outcome, .failed(status: 404, code: "UNREGISTERED"))
    }
}
