import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
import PushDouble
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleAPNs
import PushDoubleFCM
import PushDoubleWebPush
import PushDoubleTestSupport
@testable import pushdouble

/// Export → replay on fresh ports: five QA stories (a dead APNs token, two FCM 503s with
/// `Retry-After`, a sandbox token sent to production, an Expo receipt `DeviceNotRegistered`,
/// an expired Web Push subscription) set up on one double through the admin API, exported,
/// and replayed by `pushdouble replay` on other ports; the first double is stopped before any
/// push, and each story answers as armed, over the wire, on the replaying double's own listeners.
final class ScenarioRoundTripTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "curl") }

    static let deadToken = String(repeating: "ab", count: 32), sandboxToken = String(repeating: "cd", count: 32)
    static let fcmToken = "fcm-token-round-trip", expoToken = "ExponentPushToken[roundtrip000000000000]"

    /// The stories, armed only through the admin API of `admin`.
    private func arm(_ admin: String) throws {
        let devices = """
        [{"id":"ios-dead","provider":"apns","token":"\(Self.deadToken)","state":"unregistered","unregisteredAt":"2026-11-30T07:00:00Z"},
         {"id":"ios-sandbox","provider":"apns","token":"\(Self.sandboxToken)","environment":"sandbox"},
         {"id":"android","provider":"fcm","token":"\(Self.fcmToken)"},
         {"id":"expo-gone","provider":"expo","token":"\(Self.expoToken)","receipt":"DeviceNotRegistered"}]
        """
        XCTAssertEqual(try Curl.call("POST", admin + "/devices", body: devices).code, 201)
        XCTAssertEqual(try Curl.call("POST", admin + "/faults", body: """
            {"id":"fcm-503","match":{"provider":"fcm","token":"\(Self.fcmToken)"},"action":{"type":"respond","reason":"UNAVAILABLE","retryAfter":30},"times":2}
            """).code, 201)
        let made = try Curl.call("POST", admin + "/webpush/subscriptions", body: #"{"id":"wp-expired"}"#)
        XCTAssertEqual(made.code, 201, made.body)
        let device = try Curl.call("GET", admin + "/devices/wp-expired").json as? [String: Any]
        var expired = try XCTUnwrap(device)
        expired["state"] = "expired"
        let put = try Curl.call("PUT", admin + "/devices/wp-expired", body: String(decoding: try JSONSerialization.data(withJSONObject: expired), as: UTF8.self))
        XCTAssertEqual(put.code, 200, put.body)
    }

    func testEveryProvidersStoryReplaysOnFreshPorts() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pd-roundtrip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }

        let first = PushDoubleServer(configuration: .ephemeral())
        try first.start()
        addTeardownBlock { first.stop() }  // stopped below; this covers an early failure
        let firstAdmin = try XCTUnwrap(first.endpoint(named: "admin")?.url)
        let firstWebPush = try XCTUnwrap(first.endpoint(named: WebPushModule.listenerName)?.url)
        try arm(firstAdmin)
        let export = try Curl.call("GET", firstAdmin + "/scenario/export")
        XCTAssertEqual(export.code, 200)
        let firstPorts = Set(first.endpoints.map(\.port))
        // The port-free form: no address of the exporting double is in the file.
        XCTAssertFalse(export.body.contains(firstWebPush), export.body)
        XCTAssertTrue(export.body.contains(#""endpoint" : "\/wpush\/v1\/"#) || export.body.contains(#""endpoint" : "/wpush/v1/"#), export.body)
        let file = dir.appendingPathComponent("pushdouble-scenario.json")
        try Data(export.body.utf8).write(to: file)

        let endpointsFile = dir.appendingPathComponent("endpoints.json")
        let replay = BackgroundServe(["--ephemeral", "--endpoints-file", endpointsFile.path, file.path], mode: .replay)
        XCTAssertTrue(replay.waitFor("ready"), replay.out.value + replay.err.value)
        defer { XCTAssertEqual(replay.stop(with: SIGINT), 0) }
        // Stopped only now: while both ran, their ports could not be the same ones.
        first.stop()
        let (urls, env) = try endpointsDocument(endpointsFile)
        // What is armed, printed before `ready`.
        for line in ["armed:\n  scenario exported: Exported from a running pushdouble\n",
                     "  device ios-dead apns ababab…abab unregistered since 2026-11-30T07:00:00.000Z\n",
                     "  device ios-sandbox apns cdcdcd…cdcd active environment=sandbox\n",
                     "  device expo-gone expo Expone…000] active receipt=DeviceNotRegistered\n",
                     "  device wp-expired webpush ", " expired\n",
                     "  rule fcm-503 {\"action\":{\"reason\":\"UNAVAILABLE\",\"retryAfter\":30,\"type\":\"respond\"}"] {
            XCTAssertTrue(replay.out.value.contains(line), line + "\n" + replay.out.value)
        }
        let ports = Set(urls.values.compactMap { URLComponents(string: $0)?.port })
        XCTAssertTrue(ports.isDisjoint(with: firstPorts), "fresh ports: \(ports) \(firstPorts)")
        let ca = try XCTUnwrap(env["PUSHDOUBLE_CA_FILE"]), admin = try XCTUnwrap(env["PUSHDOUBLE_ADMIN_URL"])
        let tls = ["--cacert", ca]

        // Web Push: the subscription is on the replaying double's listener, and it is expired there.
        let sub = try XCTUnwrap(try Curl.call("GET", admin + "/webpush/subscriptions/wp-expired").json as? [String: Any])
        let endpoint = try XCTUnwrap(sub["endpoint"] as? String)
        XCTAssertTrue(endpoint.hasPrefix(try XCTUnwrap(env["WEBPUSH_URL"]) + "/wpush/v1/"), endpoint)
        let push = try Curl.call("POST", endpoint, headers: ["TTL: 60"], extra: tls)
        XCTAssertEqual(push.code, 410, push.body + push.stderr)
        XCTAssertEqual((push.json as? [String: Any])?["errno"] as? Int, 103, push.body)  // autopush: expired subscription

        // APNs: the dead token (410 Unregistered with its timestamp), the sandbox token at production.
        let key = try P256PrivateKey(pem: try String(contentsOfFile: try XCTUnwrap(env["APNS_KEY_FILE"]), encoding: .utf8))
        let jwt = try JWT.signES256(keyID: try XCTUnwrap(env["APNS_KEY_ID"]),
                                    claims: ["iss": .string(try XCTUnwrap(env["APNS_TEAM_ID"])), "iat": .int(Int64(Date().timeIntervalSince1970))], key: key)
        let apnsHeaders = ["authorization: bearer " + jwt, "apns-topic: " + (try XCTUnwrap(env["APNS_TOPIC"])), "apns-push-type: alert"]
        let apns = try XCTUnwrap(env["APNS_URL"])
        let dead = try Curl.call("POST", apns + "/3/device/" + Self.deadToken, body: #"{"aps":{"alert":"hi"}}"#, headers: apnsHeaders, extra: tls + ["--http2"])
        XCTAssertEqual(dead.code, 410, dead.body)
        XCTAssertEqual((dead.json as? [String: Any])?["reason"] as? String, "Unregistered")
        XCTAssertEqual((dead.json as? [String: Any])?["timestamp"] as? Int, 1_796_022_000_000, dead.body)
        let wrongEnvironment = try Curl.call("POST", apns + "/3/device/" + Self.sandboxToken, body: #"{"aps":{"alert":"hi"}}"#,
                                             headers: apnsHeaders, extra: tls + ["--http2"])
        XCTAssertEqual(wrongEnvironment.code, 400, wrongEnvironment.body)
        XCTAssertEqual((wrongEnvironment.json as? [String: Any])?["reason"] as? String, "BadDeviceToken")

        // FCM: a token minted with the sender's service account, then 503 + Retry-After twice, then accepted.
        let accessToken = try mintFCMToken(serviceAccountFile: try XCTUnwrap(env["FCM_SERVICE_ACCOUNT_FILE"]), tls: tls)
        let send = try XCTUnwrap(env["FCM_URL"]) + "/v1/projects/" + (try XCTUnwrap(env["FCM_PROJECT_ID"])) + "/messages:send"
        let message = #"{"message":{"token":"\#(Self.fcmToken)","notification":{"title":"hi"}}}"#
        for attempt in 1...3 {
            let r = try Curl.call("POST", send, body: message, headers: ["authorization: Bearer " + accessToken], extra: tls)
            if attempt < 3 {
                XCTAssertEqual(r.code, 503, r.body)
                XCTAssertEqual(r.header("retry-after"), "30")
            } else {
                XCTAssertEqual(r.code, 200, r.body)
            }
        }

        // Expo: the ticket is ok, the receipt says DeviceNotRegistered.
        let expo = try XCTUnwrap(env["EXPO_URL"]), expoAuth = ["authorization: Bearer " + (try XCTUnwrap(env["EXPO_ACCESS_TOKEN"]))]
        let ticket = try Curl.call("POST", expo + "/--/api/v2/push/send", body: #"{"to":"\#(Self.expoToken)","body":"hi"}"#,
                                   headers: expoAuth, extra: tls)
        XCTAssertEqual(ticket.code, 200, ticket.body)
        let data = try XCTUnwrap((ticket.json as? [String: Any])?["data"] as? [String: Any], ticket.body)
        XCTAssertEqual(data["status"] as? String, "ok")
        let id = try XCTUnwrap(data["id"] as? String)
        let receipts = try Curl.call("POST", expo + "/--/api/v2/push/getReceipts", body: #"{"ids":["\#(id)"]}"#, headers: expoAuth, extra: tls)
        let receipt = ((receipts.json as? [String: Any])?["data"] as? [String: Any])?[id] as? [String: Any]
        XCTAssertEqual(receipt?["status"] as? String, "error", receipts.body)
        XCTAssertEqual((receipt?["details"] as? [String: Any])?["error"] as? String, "DeviceNotRegistered", receipts.body)
    }

    /// Google's token endpoint with an RS256 assertion of the service account file (RFC 7523).
    private func mintFCMToken(serviceAccountFile: String, tls: [String]) throws -> String {
        let account = try GoogleServiceAccount(jsonText: try String(contentsOfFile: serviceAccountFile, encoding: .utf8))
        let tokenURI = try XCTUnwrap(account.tokenURI)
        let now = Int64(Date().timeIntervalSince1970)
        let assertion = try JWT.signRS256(keyID: account.privateKeyID, claims: [
            "iss": .string(account.clientEmail), "scope": "https://www.googleapis.com/auth/firebase.messaging",
            "aud": .string(tokenURI), "iat": .int(now), "exp": .int(now + 3600)], key: try account.privateKey())
        let r = try Curl.call("POST", tokenURI, headers: ["content-type: application/x-www-form-urlencoded"],
                              extra: tls + ["--data", "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion])
        XCTAssertEqual(r.code, 200, r.body)
        return try XCTUnwrap((r.json as? [String: Any])?["access_token"] as? String, r.body)
    }
}

/// `replay`'s armed block, in memory.
final class ArmedSummaryTests: XCTestCase {
    func testNothingArmedPrintsNothingAndEachDeviceAndRuleIsOneLine() throws {
        XCTAssertEqual(ArmedSummary.text(scenarios: [], devices: [], rules: []), "")
        let device = Device(id: "d1", provider: "apns", token: "short", state: .expired, environment: "production",
                            transitions: [DeviceTransition(.afterDeliveries(2), to: .unregistered)])
        let rule = FaultRule(id: "busy", match: FaultMatch(provider: "apns"), action: .respond(ResponseSpec(reason: "ServiceUnavailable")), times: 1)
        XCTAssertEqual(ArmedSummary.text(scenarios: [Scenario(id: "s", title: "A story")], devices: [device], rules: [rule]), """
            armed:
              scenario s: A story
              device d1 apns short expired environment=production 1 transition
              rule busy {"action":{"reason":"ServiceUnavailable","type":"respond"},"id":"busy","match":{"provider":"apns"},"times":1}

            """)
        XCTAssertEqual(ArmedSummary.text(scenarios: [Scenario(id: "empty")], devices: [], rules: []),
                       "armed:\n  scenario empty\n  (no device registered)\n  (no fault rule)\n")
    }
}
