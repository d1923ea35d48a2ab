import Foundation
import XCTest
import PushDoubleTestSupport
import PushDoubleCore
import PushDouble
@testable import PushDoubleFCM

/// firebase-admin's topic management against the fake, unmodified, through the CONNECT proxy
/// (Tests/Interop/fcm_firebase_admin_topics.py; docs/fcm.md "Topic subscriptions"): subscribe
/// and unsubscribe over FCM's topicSubscriptions resource and over the Instance ID API (a
/// `NOT_FOUND` token in `errors`, a 401 without `access_token_auth`), then a topic and a
/// condition send that reach exactly the subscribed tokens.
final class FCMTopicInteropTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "python3 (firebase-admin)") }

    func testFirebaseAdminSubscribesThenATopicSendReachesExactlyTheSubscribers() throws {
        let (server, kit) = try startFCMServer(throughProxy: true)
        func env(_ name: String) throws -> String { try XCTUnwrap(kit.environment.first { $0.0 == name }?.1, name) }
        let account = try FCMClientMatrixTests.writeRealTokenURIAccount(kit, serviceAccountFile: try env("FCM_SERVICE_ACCOUNT_FILE"))
        let script = FCMClientMatrixTests.interop.appendingPathComponent("fcm_firebase_admin_topics.py").path
        let r = try runCommand(["env", "HTTPS_PROXY=" + (try env("HTTPS_PROXY")), "NO_PROXY=", "no_proxy=", "python3", script,
                                "--fcm-url", "https://fcm.googleapis.com", "--service-account", account, "--ca", try XCTUnwrap(kit.caFile)],
                               timeout: 120)
        let line = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertNotEqual(r.status, 2, "firebase-admin is not installed (bash Tests/run.sh installs it): \(line)")
        XCTAssertEqual(r.status, 0, "stdout: \(r.stdout)\nstderr: \(r.stderr.suffix(3000))")
        let result = try JSONValue.parse(line)
        XCTAssertEqual(result["failures"], JSONValue.array([]))

        let history = server.history.all
        let v1 = history.filter { $0.endpoint == FCMFake.topicSubscriptionEndpoint }
        XCTAssertEqual(v1.count, 4, "three subscribes and one unsubscribe, one request per token")
        XCTAssertTrue(v1.allSatisfy { ($0.request.authority ?? "").lowercased().hasPrefix("fcm.googleapis.com") })
        let batches = history.filter { $0.endpoint == FCMFake.iidBatchAddEndpoint || $0.endpoint == FCMFake.iidBatchRemoveEndpoint }
        XCTAssertTrue(batches.allSatisfy { ($0.request.authority ?? "").lowercased().hasPrefix(FCMFake.iidHost) })
        XCTAssertEqual(batches.map(\.response.status), [200, 200, 401, 401], "legacy add, legacy remove, the two raw refusals")
        let sends = history.filter { $0.endpoint == FCMFake.sendEndpoint }
        XCTAssertEqual(sends.count, 2)
        XCTAssertEqual(sends.first?.recipients?.map(\.token), ["fcm-topics-one:APA91bTopicsOne"], "news: T1 only (T2 unsubscribed)")
        XCTAssertEqual(sends.last?.recipients?.map(\.token), ["fcm-topics-one:APA91bTopicsOne", "fcm-topics-three:APA91bTopicsThree"])
    }
}
