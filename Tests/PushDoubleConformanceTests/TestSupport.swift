import Foundation
import XCTest
// The sender scripts, shipped scenario path and curl helper every file here uses.
@_exported import PushDoubleTestSupport
@testable import PushDoubleConformance
import PushDoubleCore
import PushDoubleAPNs
import PushDoubleTransport

/// Builds hand-made APNs histories for check tests.
struct HistoryBuilder {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let topic = "com.example.app"
    static let keyID = "ABC123DEFG"
    static let teamID = "TEAM123456"
    static func token(_ n: Int) -> String { String(repeating: String(format: "%02x", n), count: 32) }

    var history: [Exchange] = []
    var steps: [StepRecord] = []
    var devices: [ScenarioDevice] = (1...6).map {
        ScenarioDevice(id: "d\($0)", provider: "apns", token: HistoryBuilder.token($0), environment: "production", topic: HistoryBuilder.topic)
    }
    private var streams: [UInt64: UInt32] = [:]

    static func b64url(_ d: Data) -> String {
        d.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
    /// A JWT with the given header/claims JSON and a dummy signature.
    static func jwt(header: String = "{\"alg\":\"ES256\",\"kid\":\"\(keyID)\"}", claims: String? = nil, iat: Int = 1_800_000_000,
                    sigBytes: Int = 64, salt: UInt8 = 1) -> String {
        let c = claims ?? "{\"iss\":\"\(teamID)\",\"iat\":\(iat)}"
        return b64url(Data(header.utf8)) + "." + b64url(Data(c.utf8)) + "." + b64url(Data(repeating: salt, count: sigBytes))
    }

    static let defaultJWT = jwt()

    /// Adds a send step (time offsets in seconds from t0).
    mutating func send(_ devices: [String], at start: Double, end: Double, results: [String: DeliveryOutcome] = [:],
                       notification: JSONValue = .object([("title", .string("hi"))])) {
        steps.append(StepRecord(index: steps.count, type: "send", devices: devices, notification: notification,
                                startedAt: Self.t0 + start, endedAt: Self.t0 + end,
                                results: devices.compactMap { d in results[d].map { DeviceResult(device: d, outcome: $0) } }))
    }

    /// Adds a push exchange (time offsets in seconds from t0). Streams count up per connection.
    @discardableResult
    mutating func push(_ device: String, at: Double, conn: UInt64 = 1, stream: UInt32? = nil, status: Int? = 200, reason: String? = nil,
                       headers: [(String, String)]? = nil, extraHeaders: [(String, String)] = [], body: String = "{\"aps\":{\"alert\":\"hi\"}}",
                       jwt: String? = HistoryBuilder.defaultJWT, env: String = "production", action: String = "respond",
                       responseHeaders: [[String]] = [], duration: Double = 0.005, detail: String? = nil, delay: Double? = nil,
                       authValid: Bool = true, bodyDelay: Double = 0) -> Exchange {
        let dev = devices.first { $0.id == device }!
        let sid = stream ?? ((streams[conn] ?? 0) + 1)
        streams[conn] = max(streams[conn] ?? 0, sid + 1)
        var h = headers ?? [("apns-topic", Self.topic), ("apns-push-type", "alert"), ("apns-priority", "10")]
        if let j = jwt { h.insert(("authorization", "bearer " + j), at: 0) }
        h += extraHeaders
        let start = Self.t0 + at
        let ci = ConnectionInfo(id: conn, listener: "apns-\(env)", peer: "127.0.0.1:5000", localPort: 443, tls: nil, acceptedAt: Self.t0)
        let info = RequestInfo(connection: ci, streamID: sid, version: .http2, headReceivedAt: start, bodyReceivedAt: start)
        let req = HTTPRequest(method: "POST", path: "/3/device/" + dev.token, scheme: "https", authority: "localhost",
                              headers: HTTPHeaders(h), body: Array(body.utf8), info: info)
        var resp = RecordedResponse(action: action, status: status, headers: responseHeaders, body: reason.map { "{\"reason\":\"\($0)\"}" },
                                    reason: reason, detail: detail, delaySeconds: delay)
        if status == 200 { resp.headers.append(["apns-id", "6b0e6b0e-0000-4000-8000-000000000001"]) }
        let e = Exchange(seq: UInt64(history.count + 1), provider: .apns, endpoint: "apns.push", transport: info, request: RecordedRequest(req),
                         token: dev.token, topic: h.first { $0.0 == "apns-topic" }?.1, environment: env, deviceID: device,
                         auth: AuthIdentity(scheme: "apns-jwt", keyID: Self.keyID, issuer: Self.teamID, valid: authValid),
                         notification: nil, response: resp, decidedBy: Decision(.accepted), receivedAt: start + bodyDelay,
                         respondedAt: start + bodyDelay + duration)
        history.append(e)
        return e
    }

    func scenario(checks: [CheckInvocation] = []) -> ConformanceScenario {
        ConformanceScenario(id: "test.case", title: "test", references: [], devices: devices, steps: [], checks: checks)
    }

    /// What the APNs module renders for a double on ports 1 and 2 (see APNsInstance.senderMaterial).
    static let configuration = SenderConfiguration(
        caFile: "/tmp/ca.pem",
        providers: [(id: "apns", parameters: .object([
            ("url", .string("https://127.0.0.1:1")), ("sandboxUrl", .string("https://127.0.0.1:2")), ("caFile", .string("/tmp/ca.pem")),
            ("keyFile", .string("/tmp/k.p8")), ("keyId", .string(keyID)), ("teamId", .string(teamID)), ("topic", .string(topic)),
        ]))],
        environment: [("PUSHDOUBLE_PROTOCOL", "1"), ("SSL_CERT_FILE", "/tmp/ca.pem"), ("REQUESTS_CA_BUNDLE", "/tmp/ca.pem"),
                      ("PUSHDOUBLE_CA_FILE", "/tmp/ca.pem"), ("APNS_URL", "https://127.0.0.1:1"), ("APNS_SANDBOX_URL", "https://127.0.0.1:2"),
                      ("APNS_KEY_FILE", "/tmp/k.p8"), ("APNS_KEY_ID", keyID), ("APNS_TEAM_ID", teamID), ("APNS_TOPIC", topic)])

    func context(_ params: JSONValue = .object([])) -> CheckContext {
        CheckContext(scenario: scenario(), params: params, history: history, steps: steps, configuration: Self.configuration)
    }

    func run(_ check: CheckDefinition, _ params: JSONValue = .object([])) -> CheckResult { check.run(context(params)) }
}

func params(_ json: String) -> JSONValue { try! JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)) }

func XCTAssertVerdict(_ r: CheckResult, _ v: Verdict, _ context: String = "", file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(r.verdict, v, "\(context.isEmpty ? "" : context + ": ")\(r.id): \(r.message) \(r.evidence.map(\.rendered))", file: file, line: line)
}
