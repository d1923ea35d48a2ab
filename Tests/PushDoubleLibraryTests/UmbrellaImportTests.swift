import Foundation
import XCTest
import PushDouble

/// What a dependent package's test names, reached through `import PushDouble` alone: this
/// file imports nothing else of the package, so it compiles only while the umbrella
/// re-exports the server, configuration, devices, faults, history, credentials and JSON.
final class UmbrellaImportTests: XCTestCase {
    func testOneImportReachesServerDevicesFaultsHistoryAndCredentials() throws {
        var configuration: PushDoubleConfiguration = .ephemeral(tls: false)
        configuration.eventLoopCount = 1
        let double = PushDoubleServer(configuration: configuration)
        try double.start()
        defer { double.stop() }
        XCTAssertEqual(configuration.security, FakeSecurity.plaintext)
        let sandbox = try XCTUnwrap(double.endpoint(named: "apns-sandbox"))
        XCTAssertTrue(sandbox.url.hasPrefix("http://127.0.0.1:"), sandbox.url)

        let token = String(repeating: "ab", count: 32)
        _ = try double.devices.register(Device(id: "phone", provider: .apns, token: token, environment: "sandbox"))
        try double.faults.add(FaultRule(id: "gone", match: FaultMatch(provider: .apns, device: "phone"),
                                        action: .respond(ResponseSpec(reason: "Unregistered"))))
        XCTAssertEqual(double.devices.list(provider: .apns).map(\.id), ["phone"])
        XCTAssertEqual(double.faults.list().map(\.rule.id), ["gone"])
        XCTAssertEqual(double.history.query(HistoryQuery(provider: .apns)).count, 0)
        XCTAssertEqual(double.history.apnsPushes.count + double.history.fcmMessages.count
                       + double.history.expoSends.count + double.history.webPushMessages.count, 0)

        // Credentials: an APNs provider token, the FCM key file following the bound token port,
        // the Expo access token, the VAPID key.
        let apnsKey = try P256PrivateKey(pem: APNsTestCredentials.keyPEM)
        let jwt = try JWT.signES256(keyID: APNsTestCredentials.keyID,
                                    claims: ["iss": .string(APNsTestCredentials.teamID), "iat": .int(Int64(Date().timeIntervalSince1970))], key: apnsKey)
        XCTAssertEqual(jwt.split(separator: ".").count, 3)
        let account: JSONValue = try JSONValue.parse(FCMTestCredentials.serviceAccountJSON(for: double.endpoints))
        let oauth = try XCTUnwrap(double.endpoint(named: "google-oauth"))
        XCTAssertEqual(account["token_uri"]?.stringValue, oauth.url + "/token")
        XCTAssertEqual(account["project_id"]?.stringValue, FCMTestCredentials.projectID)
        XCTAssertFalse(ExpoTestCredentials.accessToken.isEmpty)
        XCTAssertNoThrow(try P256PrivateKey(pem: WebPushTestCredentials.privateKeyPEM))
    }
}
