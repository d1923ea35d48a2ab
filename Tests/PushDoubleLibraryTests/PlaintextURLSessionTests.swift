import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest
import PushDoubleTesting
import PushDoubleTestSupport

/// Plaintext mode with URLSession (FoundationNetworking on Linux, which cannot trust a custom
/// CA): a sender's unchanged HTTP code delivers to APNs and FCM at the double's `http://` URLs.
final class PlaintextURLSessionTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "URLSession (FoundationNetworking, libcurl)") }

    func post(_ url: String, headers: [String: String], body: String) async throws -> (status: Int, headers: [AnyHashable: Any], body: String) {
        var request = URLRequest(url: try XCTUnwrap(URL(string: url)))
        request.httpMethod = "POST"
        for (k, v) in headers { request.setValue(v, forHTTPHeaderField: k) }
        request.httpBody = Data(body.utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        return (http.statusCode, http.allHeaderFields, String(decoding: data, as: UTF8.self))
    }

    func testURLSessionDeliversToAPNsAndFCM() async throws {
        try await withPushDouble(.ephemeral(tls: false)) { double in
            // APNs: a provider token and an alert to the sandbox listener.
            let apns = try XCTUnwrap(double.endpoint(named: "apns-sandbox")).url
            let a = try await post(apns + "/3/device/" + SenderSide.apnsToken,
                                   headers: ["authorization": "bearer " + (try SenderSide.apnsJWT()), "apns-topic": APNsTestCredentials.topic,
                                             "apns-push-type": "alert", "content-type": "application/json"],
                                   body: #"{"aps":{"alert":{"title":"Hello","body":"from URLSession"},"badge":3},"orderID":"42"}"#)
            XCTAssertEqual(a.status, 200, a.body)
            // FCM: the access token from the key file's token_uri, then the send.
            let account = try SenderSide.serviceAccount(double)
            let t = try await post(try XCTUnwrap(account["token_uri"]?.stringValue),
                                   headers: ["content-type": "application/x-www-form-urlencoded"], body: try SenderSide.oauthForm(account))
            XCTAssertEqual(t.status, 200, t.body)
            let accessToken = try XCTUnwrap(try JSONValue.parse(t.body)["access_token"]?.stringValue)
            let f = try await post(try SenderSide.fcmSendURL(double),
                                   headers: ["authorization": "Bearer " + accessToken, "content-type": "application/json"],
                                   body: #"{"message":{"token":"url-session-token","notification":{"title":"Hi","body":"there"},"data":{"orderID":"42"}}}"#)
            XCTAssertEqual(f.status, 200, f.body)

            let push = try XCTUnwrap(double.history.apnsPushes.first)
            XCTAssertEqual(push.alert, APNsPushRecord.Alert(title: "Hello", subtitle: nil, body: "from URLSession"))
            XCTAssertEqual(push.badge, 3)
            XCTAssertEqual(push.payload?["orderID"], "42")
            XCTAssertEqual(push.deviceToken, SenderSide.apnsToken)
            XCTAssertEqual(push.status, 200)
            let message = try XCTUnwrap(double.history.fcmMessages.first)
            XCTAssertEqual(message.token, "url-session-token")
            XCTAssertEqual(message.notification, FCMMessageRecord.Notification(title: "Hi", body: "there", image: nil))
            XCTAssertEqual(message.data, ["orderID": "42"])
            XCTAssertEqual(message.account, FCMTestCredentials.clientEmail)
            XCTAssertEqual(message.messageName?.hasPrefix("projects/\(FCMTestCredentials.projectID)/messages/"), true)
            XCTAssertTrue(double.history.all.allSatisfy { $0.plaintext == true && $0.transport.version == .http1_1 })
        }
    }
}
