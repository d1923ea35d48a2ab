import Foundation
import XCTest
@testable import PushDoubleConformance
import PushDoubleAPNs
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport

/// The broadcast checks over channel management and broadcast requests the real APNs fake
/// answered: a sender that follows Apple's rules holds every check, each broken rule
/// violates its own check; the `broadcast` step and the feature that makes it apply.
final class BroadcastChecksTests: XCTestCase {
    typealias NoConnection = FCMConformanceTests.NoConnection
    static let topic = APNsTestCredentials.topic

    /// The shipped APNs fake behind the core pipeline, on a manual clock, and the steps run so far.
    final class Run {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let double: DoubleState
        let pipeline: DoublePipeline
        var steps: [StepRecord] = []
        let jwt: String

        init() throws {
            double = DoubleState(clock: clock)
            pipeline = double.pipeline(for: APNsFake(configuration: .shipped, clock: clock))
            let claims = JOSEObject([("iss", .string(APNsTestCredentials.teamID)), ("iat", .int(1_800_000_000))])
            jwt = try JWT.signES256(keyID: APNsTestCredentials.keyID, claims: claims, key: try P256PrivateKey(pem: APNsTestCredentials.keyPEM))
        }

        @discardableResult
        func request(_ path: String, method: String = "POST", listener: String, headers: [(String, String)] = [], body: String = "") -> HTTPResponse {
            let ci = ConnectionInfo(id: 1, listener: listener, peer: "127.0.0.1:5000", localPort: 8721, tls: nil, acceptedAt: clock.now())
            let info = RequestInfo(connection: ci, streamID: 1, version: .http2, headReceivedAt: clock.now(), bodyReceivedAt: clock.now())
            let request = HTTPRequest(method: method, path: path, scheme: "https", authority: "127.0.0.1:8721",
                                      headers: HTTPHeaders([("authorization", "bearer \(jwt)")] + headers), body: Array(body.utf8), info: info)
            clock.advance(0.01)
            guard case .respond(let r) = pipeline.respond(to: request, context: RequestContext(connection: NoConnection(info: ci))) else {
                return HTTPResponse(status: 0)
            }
            return r
        }

        /// Creates a channel; its id.
        func create(policy: Int, environment: String = "production") -> String {
            request("/1/apps/\(topic)/channels", listener: "apns-manage-\(environment)",
                    body: #"{"message-storage-policy":\#(policy),"push-type":"LiveActivity"}"#).headers.first(name: "apns-channel-id") ?? ""
        }

        func delete(_ id: String, environment: String = "production") {
            request("/1/apps/\(topic)/channels", method: "DELETE", listener: "apns-manage-\(environment)", headers: [("apns-channel-id", id)])
        }

        /// A broadcast as Apple's table has it, with `change` applied to the headers.
        @discardableResult
        func broadcast(_ id: String, event: String = "update", expiration: String = "0", environment: String = "production",
                       path: String = "/4/broadcasts/apps/\(topic)", change: ([(String, String)]) -> [(String, String)] = { $0 },
                       body: String? = nil) -> HTTPResponse {
            let headers = change([("apns-channel-id", id), ("apns-push-type", "liveactivity"), ("apns-priority", "10"), ("apns-expiration", expiration)])
            return request(path, listener: "apns-\(environment)", headers: headers,
                           body: body ?? #"{"aps":{"timestamp":1800000000,"event":"\#(event)","content-state":{"score":"1-0"}}}"#)
        }

        /// One `broadcast` step around `body`.
        func step(_ channel: String, policy: Int = 0, event: String = "update", environment: String = "production", _ body: () -> Void) {
            let start = clock.now()
            body()
            let params: JSONValue = .object([("provider", "apns"), ("channel", .string(channel)), ("environment", .string(environment)),
                                             ("messageStoragePolicy", .int(Int64(policy))), ("event", .string(event)),
                                             ("contentState", .object([("score", "1-0")]))])
            steps.append(StepRecord(index: steps.count, type: "broadcast", targets: [channel], notification: params, startedAt: start, endedAt: clock.now()))
            clock.advance(0.01)
        }

        func context() -> CheckContext {
            let scenario = ConformanceScenario(id: "apns.test", title: "t", references: [], devices: [], targets: [], steps: [], checks: [])
            let configuration = SenderConfiguration(caFile: "", providers: [(id: "apns", parameters: .object([("topic", .string(topic))]))],
                                                    environment: [])
            return CheckContext(scenario: scenario, history: double.history.all, steps: steps, configuration: configuration)
        }

        func verdicts() -> [String: Verdict] {
            Dictionary(uniqueKeysWithValues: BroadcastChecks.all.map { ($0.id, $0.run(context()).verdict) })
        }
    }

    /// A good broadcaster: channel created once per event, reused, deleted after `end`.
    func good(_ run: Run) {
        var match = ""
        run.step("match-1") { match = run.create(policy: 0); XCTAssertEqual(run.broadcast(match).status, 200) }
        run.step("flight-7", policy: 1, environment: "sandbox") {
            let flight = run.create(policy: 1, environment: "sandbox")
            XCTAssertEqual(run.broadcast(flight, expiration: "1800003600", environment: "sandbox").status, 200)
        }
        run.step("match-1") { XCTAssertEqual(run.broadcast(match).status, 200) }
        run.step("match-1", event: "end") { run.broadcast(match, event: "end"); run.delete(match) }
    }

    func testAGoodBroadcasterHoldsEveryCheck() throws {
        let run = try Run()
        XCTAssertEqual(Set(run.verdicts().values), [.notApplicable], "no broadcast step: n/a")
        good(run)
        XCTAssertEqual(run.verdicts(), ["apns.broadcast.path": .pass, "apns.broadcast.headers": .pass,
                                        "apns.broadcast.payload": .pass, "apns.broadcast.channel": .pass, "apns.broadcast.retried": .pass])
    }

    func testEachBrokenRuleViolatesItsCheck() throws {
        func verdicts(_ steps: (Run) -> Void) throws -> [String: Verdict] {
            let run = try Run()
            steps(run)
            return run.verdicts()
        }
        func only(_ check: String, _ steps: @escaping (Run) -> Void, file: StaticString = #filePath, line: UInt = #line) throws {
            let v = try verdicts(steps)
            XCTAssertEqual(v.filter { $0.value == .fail }.map(\.key), [check], "\(v)", file: file, line: line)
        }
        // A device path instead of the broadcast path.
        try only("apns.broadcast.path") { r in r.step("m") { let id = r.create(policy: 0); r.broadcast(id, path: "/3/device/\(id)") } }
        // The sandbox host for a production broadcast (its channel too: the other checks see that as well).
        let otherHost = try verdicts { r in
            r.step("m") { let id = r.create(policy: 0, environment: "sandbox"); r.broadcast(id, environment: "sandbox") }
        }
        XCTAssertEqual(otherHost["apns.broadcast.path"], .fail)
        // Headers: no channel id, alert, no priority, no expiration, a nonzero expiration on a no-storage channel.
        for change in [{ (h: [(String, String)]) in h.filter { $0.0 != "apns-channel-id" } },
                       { h in h.map { $0.0 == "apns-push-type" ? ($0.0, "alert") : $0 } },
                       { h in h.filter { $0.0 != "apns-priority" } },
                       { h in h.filter { $0.0 != "apns-expiration" } },
                       { h in h.map { $0.0 == "apns-expiration" ? ($0.0, "1800003600") : $0 } }] as [([(String, String)]) -> [(String, String)]] {
            try only("apns.broadcast.headers") { r in r.step("m") { let id = r.create(policy: 0); r.broadcast(id, change: change) } }
        }
        // Payload: another event, no content-state.
        try only("apns.broadcast.payload") { r in r.step("m") { r.broadcast(r.create(policy: 0), event: "end") } }
        try only("apns.broadcast.payload") { r in
            r.step("m") { r.broadcast(r.create(policy: 0), body: #"{"aps":{"timestamp":1800000000,"event":"update"}}"#) }
        }
        // Channel: the wrong policy, a channel per broadcast, no deletion after end.
        let wrongPolicy = try verdicts { r in r.step("m") { let id = r.create(policy: 1); r.broadcast(id, expiration: "1800003600") } }
        XCTAssertEqual(wrongPolicy["apns.broadcast.channel"], .fail)
        try only("apns.broadcast.channel") { r in
            r.step("m") { r.broadcast(r.create(policy: 0)) }
            r.step("m") { r.broadcast(r.create(policy: 0)) }
        }
        try only("apns.broadcast.channel") { r in r.step("m", event: "end") { r.broadcast(r.create(policy: 0), event: "end") } }
    }

    /// A 503 on a broadcast followed by its retry holds `apns.broadcast.retried`; left alone, it fails it.
    func testATransientBroadcastErrorMustBeRetried() throws {
        for retry in [true, false] {
            let run = try Run()
            try run.double.faults.add(FaultRule(id: "u", match: FaultMatch(endpoint: APNsFake.broadcastEndpoint),
                                                action: .respond(ResponseSpec(reason: "ServiceUnavailable")), times: 1))
            run.step("m") {
                let id = run.create(policy: 0)
                XCTAssertEqual(run.broadcast(id).status, 503)
                if retry { XCTAssertEqual(run.broadcast(id).status, 200) }
            }
            XCTAssertEqual(BroadcastChecks.retried.run(run.context()).verdict, retry ? .pass : .fail)
        }
    }

    /// A `broadcast` step is read from a scenario (its params as the sender gets them), bad
    /// ones are refused, and a sender that did not declare the feature is missing it.
    func testTheBroadcastStepNeedsTheFeature() throws {
        let json = #"{"id":"x","steps":[{"type":"broadcast","channel":"m","messageStoragePolicy":1,"event":"update","contentState":{"s":1}}]}"#
        let s = try ConformanceScenario.decode(Data(json.utf8), file: "x.json")
        guard case .broadcast(let channel, let params)? = s.steps.first else { return XCTFail("\(s.steps)") }
        XCTAssertEqual(channel, "m")
        XCTAssertEqual(params["provider"]?.stringValue, "apns")
        XCTAssertEqual(params["environment"]?.stringValue, "production")
        XCTAssertNil(params["type"])
        for bad in [#""messageStoragePolicy":1,"#, #""event":"update","#, #","contentState":{"s":1}"#] {
            XCTAssertThrowsError(try ConformanceScenario.decode(Data(json.replacingOccurrences(of: bad, with: bad.hasPrefix(",") ? "" : "").utf8), file: "x.json"), bad)
        }
        XCTAssertThrowsError(try ConformanceScenario.decode(Data(json.replacingOccurrences(of: #""channel":"m","#, with: #""channel":"m","environment":"dev","#).utf8), file: "x.json"))
        let config = SenderConfiguration(caFile: "", providers: [], environment: [])
        let registrations = try Registrations(s)
        XCTAssertEqual(ConformanceRunner.missingFeatures(registrations, SenderIdentity(name: "a", version: "1", providers: ["apns"]), config, steps: s.steps),
                       [SenderFeature.broadcast])
        XCTAssertEqual(ConformanceRunner.missingFeatures(registrations, SenderIdentity(name: "a", version: "1", providers: ["apns"], features: ["broadcast"]),
                                                         config, steps: s.steps), [])
    }
}
