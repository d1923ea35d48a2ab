import Foundation
import XCTest
import PushDoubleTesting
import PushDoubleClient

/// The typed history views beside the raw JSON, fed by PushDoubleClient: over h2c to a
/// plaintext-mode double, and over TLS (trusting the test CA) to a double in TLS mode.
final class HistoryViewsTests: XCTestCase {
    func send(_ url: String, _ path: String, headers: [(String, String)], body: [UInt8], tls: Bool,
              caPEM: String? = nil) async throws -> HTTPClientResponse {
        let u = try XCTUnwrap(URLComponents(string: url))
        let host = try XCTUnwrap(u.host), port = try XCTUnwrap(u.port)
        let connection = try await HTTPClientConnection.connect(host: host, port: port, tls: tls,
                                                                configuration: HTTPClientConfiguration(caPEM: caPEM))
        defer { connection.close() }
        var request = HTTPClientRequest(method: "POST", path: path, authority: "\(host):\(port)", scheme: tls ? "https" : "http", body: body)
        for (k, v) in headers { request.headers.add(name: k, value: v) }
        return try await connection.send(request)
    }

    func testEachProvidersViewOverH2C() async throws {
        try await withPushDouble(.ephemeral(tls: false)) { double in
            // APNs: a string alert, then a body that is not a payload.
            let apns = try XCTUnwrap(double.endpoint(named: "apns-production")).url
            let auth = [("authorization", "bearer " + (try SenderSide.apnsJWT())), ("apns-topic", APNsTestCredentials.topic)]
            _ = try await send(apns, "/3/device/" + SenderSide.apnsToken, headers: auth + [("apns-collapse-id", "c1"), ("apns-priority", "5")],
                               body: Array(#"{"aps":{"alert":"plain text","sound":"default","content-available":1}}"#.utf8), tls: false)
            _ = try await send(apns, "/3/device/" + SenderSide.apnsToken, headers: auth, body: Array("[1]".utf8), tls: false)
            let pushes = double.history.apnsPushes
            XCTAssertEqual(pushes.count, 2)
            XCTAssertEqual(pushes[0].alert, APNsPushRecord.Alert(body: "plain text"))
            XCTAssertEqual(pushes[0].sound, "default")
            XCTAssertTrue(pushes[0].isContentAvailable)
            XCTAssertEqual(pushes[0].collapseID, "c1")
            XCTAssertEqual(pushes[0].priority, 5)
            XCTAssertEqual(pushes[0].headers["apns-topic"], APNsTestCredentials.topic)
            XCTAssertEqual(pushes[0].exchange.transport.version, .http2)
            XCTAssertNil(pushes[1].alert)
            XCTAssertNotNil(pushes[1].payloadError)
            XCTAssertEqual(pushes[0].raw, pushes[0].exchange.notification)

            // FCM: an unauthenticated send is still a message in the history, refused.
            let r = try await send(try XCTUnwrap(double.endpoint(named: "fcm")).url,
                                   "/v1/projects/\(FCMTestCredentials.projectID)/messages:send", headers: [("content-type", "application/json")],
                                   body: Array(#"{"message":{"topic":"news","data":{"k":"v","n":"1"}}}"#.utf8), tls: false)
            XCTAssertEqual(r.status, 401)
            let message = try XCTUnwrap(double.history.fcmMessages.first)
            XCTAssertEqual(message.topic, "news")
            XCTAssertNil(message.token)
            XCTAssertEqual(message.data, ["k": "v", "n": "1"])
            XCTAssertEqual(message.status, 401)
            XCTAssertNil(message.messageName)
            XCTAssertEqual(message.project, FCMTestCredentials.projectID)

            // Expo: a batch of two, the second to a device that is gone.
            let gone = "ExponentPushToken[libraryTestGone000000]"
            _ = try double.devices.register(Device(id: "gone", provider: .expo, token: gone, state: .unregistered(since: Date())))
            let e = try await send(try XCTUnwrap(double.endpoint(named: "expo")).url, "/--/api/v2/push/send",
                                   headers: [("content-type", "application/json"), ("authorization", "Bearer " + ExpoTestCredentials.accessToken)],
                                   body: Array(#"[{"to":"\#(SenderSide.expoToken)","title":"A","data":{"x":1}},{"to":["\#(gone)"],"body":"B"}]"#.utf8), tls: false)
            XCTAssertEqual(e.status, 200, String(decoding: e.body, as: UTF8.self))
            let expo = try XCTUnwrap(double.history.expoSends.first)
            XCTAssertEqual(expo.messages.map(\.to), [[SenderSide.expoToken], [gone]])
            XCTAssertEqual(expo.messages.map(\.title), ["A", nil])
            XCTAssertEqual(expo.messages.first?.data?["x"], 1)
            XCTAssertEqual(expo.tickets.map(\.status), ["ok", "error"])
            XCTAssertNotNil(expo.tickets.first?.id)
            XCTAssertEqual(expo.tickets.last?.error, "DeviceNotRegistered")

            // Web Push: decrypted for a registered subscription, not for an unknown one.
            let (endpoint, subscription) = try SenderSide.webPushSubscription(double, id: "b1")
            let path = try XCTUnwrap(URLComponents(string: endpoint)).path
            let vapid = try SenderSide.vapidAuthorization(endpoint: endpoint)
            let headers = [("ttl", "30"), ("content-encoding", "aes128gcm"), ("urgency", "high"), ("authorization", vapid)]
            _ = try await send(endpoint, path, headers: headers, body: try SenderSide.webPushBody(#"{"title":"W"}"#, for: subscription), tls: false)
            let stranger = try WebPushSubscription(service: .mozilla)
            _ = try await send(endpoint, stranger.endpointPath, headers: headers, body: try SenderSide.webPushBody("x", for: stranger), tls: false)
            let webpush = double.history.webPushMessages
            XCTAssertEqual(webpush.count, 2)
            XCTAssertEqual(webpush[0].payload.json?["title"], "W")
            XCTAssertEqual(webpush[0].ttl, 30)
            XCTAssertEqual(webpush[0].urgency, "high")
            XCTAssertEqual(webpush[0].encoding, "aes128gcm")
            XCTAssertEqual(webpush[0].service, "mozilla")
            XCTAssertEqual(webpush[0].status, 201)
            guard case .undecrypted(let code, _) = webpush[1].payload else { return XCTFail("\(webpush[1].payload)") }
            XCTAssertEqual(code, "unknownSubscription")

            // Each view is only its own provider's.
            XCTAssertTrue(double.history.all.allSatisfy { [$0.apnsPush != nil, $0.fcmMessage != nil, $0.expoSend != nil,
                                                            $0.webPushMessage != nil].filter { $0 }.count == 1 })
        }
    }

    func testClientInTLSModeTrustsTheTestCAAndTheHistoryIsNotPlaintext() async throws {
        try await withPushDouble { double in
            let ca = try XCTUnwrap(double.configuration.credentials?.caPEM)
            let apns = try XCTUnwrap(double.endpoint(named: "apns-sandbox")).url
            XCTAssertTrue(apns.hasPrefix("https://"))
            let r = try await send(apns, "/3/device/" + SenderSide.apnsToken,
                                   headers: [("authorization", "bearer " + (try SenderSide.apnsJWT())), ("apns-topic", APNsTestCredentials.topic)],
                                   body: Array(#"{"aps":{"alert":{"title":"TLS","subtitle":"s"}}}"#.utf8), tls: true, caPEM: ca)
            XCTAssertEqual(r.status, 200)
            XCTAssertEqual(r.version, .http2)
            let push = try XCTUnwrap(double.history.apnsPushes.first)
            XCTAssertEqual(push.alert, APNsPushRecord.Alert(title: "TLS", subtitle: "s"))
            XCTAssertNil(push.exchange.plaintext)
            XCTAssertEqual(push.exchange.transport.connection.tls?.alpn, "h2")
            XCTAssertFalse(String(decoding: ExchangeEncoding.json(push.exchange), as: UTF8.self).contains("plaintext"))
            // APNs stays HTTP/2 only in TLS mode: an http/1.1-only client is refused at ALPN.
            do {
                let c = try await HTTPClientConnection.connect(host: "127.0.0.1", port: try XCTUnwrap(double.endpoint(named: "apns-sandbox")).port,
                                                               tls: true, configuration: HTTPClientConfiguration(caPEM: ca, alpn: ["http/1.1"]))
                c.close()
                XCTFail("an HTTP/1.1-only TLS client reached APNs")
            } catch {}
        }
    }
}
