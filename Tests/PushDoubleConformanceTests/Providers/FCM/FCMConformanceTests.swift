import Foundation
import XCTest
@testable import PushDoubleConformance
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport
import PushDoubleFCM

/// The FCM judge and checks over histories the real FCM fake recorded (its pipeline, a manual
/// clock): a good sender's traffic holds every check, each bad habit violates its check.
final class FCMConformanceTests: XCTestCase {
    /// A double with the FCM fake; sends and mints as a sender would, recording steps.
    final class Run {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let double: DoubleState
        let fake: FCMFake
        let pipeline: DoublePipeline
        var steps: [StepRecord] = []
        let devices = [ScenarioDevice(id: "d1", provider: "fcm", token: "fcm-conf-token-1"),
                       ScenarioDevice(id: "d2", provider: "fcm", token: "pushdouble-fcm-404-conf")]

        init(lifetime: Int = 3599) throws {
            var c = FCMConfiguration()
            c.accessTokenLifetimeSeconds = lifetime
            double = DoubleState(clock: clock)
            fake = try FCMFake(configuration: c)
            pipeline = double.pipeline(for: fake)
        }

        func respond(_ path: String, listener: String, headers: [(String, String)], body: String) -> HTTPResponse {
            let ci = ConnectionInfo(id: 1, listener: listener, peer: "127.0.0.1:5000", localPort: 8723, tls: nil, acceptedAt: clock.now())
            let info = RequestInfo(connection: ci, streamID: 1, version: .http2, headReceivedAt: clock.now(), bodyReceivedAt: clock.now())
            let request = HTTPRequest(method: "POST", path: path, scheme: "https", authority: "127.0.0.1:8724", headers: HTTPHeaders(headers),
                                      body: Array(body.utf8), info: info)
            clock.advance(0.01)
            guard case .respond(let r) = pipeline.respond(to: request, context: RequestContext(connection: NoConnection(info: ci))) else {
                return HTTPResponse(status: 0)
            }
            return r
        }

        func mint(key: RSAPrivateKey? = nil) throws -> String? {
            let sa = FCMConfiguration.shippedServiceAccount
            let now = Int64(clock.now().timeIntervalSince1970)
            let claims: JOSEObject = ["iss": .string(sa.clientEmail), "scope": "https://www.googleapis.com/auth/firebase.messaging",
                                      "aud": .string(GoogleTokenEndpoint.googleTokenURL), "iat": .int(now), "exp": .int(now + 3600)]
            let jwt = try JWT.signRS256(keyID: sa.privateKeyID, claims: claims, key: key ?? (try sa.privateKey()))
            let r = respond("/token", listener: "google-oauth", headers: [],
                            body: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(jwt)")
            return (try? JSONValue.parse(r.body))?["access_token"]?.stringValue
        }

        @discardableResult
        func send(_ token: String, bearer: String?, data: String = #"{"k":"v"}"#) -> HTTPResponse {
            respond("/v1/projects/pushdouble-test/messages:send", listener: "fcm",
                    headers: bearer.map { [("authorization", "Bearer \($0)")] } ?? [],
                    body: #"{"message":{"token":"\#(token)","notification":{"title":"t","body":"b"},"data":\#(data)}}"#)
        }

        /// A send of a whole `message` object (topic and condition targets).
        @discardableResult
        func send(message: String, bearer: String) -> HTTPResponse {
            respond("/v1/projects/pushdouble-test/messages:send", listener: "fcm", headers: [("authorization", "Bearer \(bearer)")],
                    body: #"{"message":\#(message)}"#)
        }

        var targets: [ScenarioTarget] = []

        func step(_ devices: [String], targets: [String]? = nil, notification: JSONValue? = nil, results: [DeviceResult] = [],
                  _ body: () throws -> Void) rethrows {
            let start = clock.now()
            try body()
            steps.append(StepRecord(index: steps.count, type: "send", devices: devices, targets: targets, notification: notification,
                                    startedAt: start, endedAt: clock.now(), results: results))
        }

        func context() -> CheckContext {
            let scenario = ConformanceScenario(id: "fcm.test", title: "t", references: [], devices: devices, targets: targets, steps: [], checks: [])
            return CheckContext(scenario: scenario, history: double.history.all, steps: steps, configuration: nil)
        }
    }

    /// A ConnectionControl with nothing behind it.
    final class NoConnection: ConnectionControl {
        var info: ConnectionInfo
        var version: HTTPVersion = .http2
        var storage: AnyObject?
        init(info: ConnectionInfo) { self.info = info }
        func updateSettings(maxConcurrentStreams: UInt32?) {}
        func closeGracefully(errorCode: HTTP2ErrorCode, debugData: [UInt8]) {}
    }

    func testJudgeClassifiesFCMAnswers() throws {
        let run = try Run()
        let bearer = try XCTUnwrap(run.mint())
        try run.double.faults.add(FaultRule(id: "u", match: FaultMatch(endpoint: "fcm.send", token: "transient"),
                                            action: .respond(ResponseSpec(reason: "UNAVAILABLE", retryAfter: .seconds(3)))))
        run.step(["d1", "d2"]) {
            run.send("fcm-conf-token-1", bearer: bearer)
            run.send("pushdouble-fcm-404-conf", bearer: bearer)
            run.send("pushdouble-fcm-403-x", bearer: bearer)
            run.send("fcm-conf-token-1", bearer: bearer, data: #"{"from":"x"}"#)
            run.send("transient", bearer: bearer)
            run.send("fcm-conf-token-1", bearer: "ya29.unknown")
        }
        let attempts = FCMConformance().attempts(run.context())
        XCTAssertEqual(attempts.map(\.classification), [.accepted, .dead, .dead, .permanent, .transient, .retryable])
        XCTAssertEqual(attempts.map(\.device).prefix(2), ["d1", "d2"])
        XCTAssertEqual(attempts[4].retryAfter, "3")
        XCTAssertEqual(attempts.map(\.step), Array(repeating: 0, count: 6))
        // Attempts of every registered judge reach the generic checks.
        XCTAssertEqual(AttemptLog(run.context()).attempts.filter { $0.provider == .fcm }.count, 6)
    }

    func testAGoodSenderHoldsTheFCMChecks() throws {
        let run = try Run(lifetime: 60)
        var bearer = try XCTUnwrap(run.mint())
        run.step(["d1"]) { for _ in 0..<3 { run.send("fcm-conf-token-1", bearer: bearer) } }
        run.clock.advance(61)  // expired: the 401 makes a good sender re-mint once and retry
        try run.step(["d1"]) {
            XCTAssertEqual(run.send("fcm-conf-token-1", bearer: bearer).status, 401)
            bearer = try XCTUnwrap(run.mint())
            XCTAssertEqual(run.send("fcm-conf-token-1", bearer: bearer).status, 200)
        }
        let ctx = run.context()
        // No topic targets here (testTopicTargetCheck) and no notification in these steps (FCMMappingTests).
        let notJudgedHere = [FCMChecks.topicTarget.id, FCMChecks.topicBareName.id, FCMMappingCheck.check.id, FCMMappingCheck.background.id,
                             FCMChecks.legacyAPI.id] + FCMSubscriptionChecks.all.map(\.id)  // FCMSubscriptionChecksTests
        XCTAssertEqual(FCMChecks.legacyAPI.run(ctx).verdict, .notApplicable, "no legacy request")
        for check in FCMChecks.all where !notJudgedHere.contains(check.id) {
            XCTAssertVerdict(check.run(ctx), .pass)
        }
    }

    /// A sender still on the shut-down legacy API (`POST /fcm/send`, `key=`): the fake answers as
    /// Google does now (200, `DeprecatedApi` per token) and `fcm.legacy-api` fails naming the cause.
    func testLegacyAPIIsNamed() throws {
        let run = try Run()
        run.step(["d1"]) {
            let r = run.respond("/fcm/send", listener: "fcm", headers: [("authorization", "key=AAAA-server-key"), ("content-type", "application/json")],
                                body: #"{"registration_ids":["fcm-conf-token-1","fcm-conf-token-2"],"notification":{"title":"old"}}"#)
            XCTAssertEqual(r.status, 200)
            let body = (try? JSONValue.parse(r.body)) ?? .null
            XCTAssertEqual(body["results"], [["error": "DeprecatedApi"], ["error": "DeprecatedApi"]])
            XCTAssertEqual(body["success"], 0)
            XCTAssertEqual(body["failure"], 2)
        }
        let result = FCMChecks.legacyAPI.run(run.context())
        XCTAssertEqual(result.verdict, .fail)
        XCTAssertEqual(result.message, "legacy FCM API, shut down in 2024: migrate to HTTP v1")
        XCTAssertEqual(run.double.history.all.last?.endpoint, FCMFake.legacyEndpoint)
        XCTAssertEqual(run.double.history.all.last?.auth?.scheme, "server-key")
    }

    func testEachBadHabitViolatesItsCheck() throws {
        // A token per message. Mints within the first send step are the cold start (a stampede,
        // the SHOULD check's); minting goes on in the next step, which is the MUST failure.
        let perMessage = try Run()
        try perMessage.step(["d1"]) { for _ in 0..<3 { perMessage.send("fcm-conf-token-1", bearer: try perMessage.mint()) } }
        XCTAssertVerdict(FCMChecks.accessTokenReuse.run(perMessage.context()), .pass)
        XCTAssertVerdict(FCMChecks.tokenRefreshSingleFlight.run(perMessage.context()), .warn)
        try perMessage.step(["d1"]) { for _ in 0..<3 { perMessage.send("fcm-conf-token-1", bearer: try perMessage.mint()) } }
        XCTAssertVerdict(FCMChecks.accessTokenReuse.run(perMessage.context()), .fail)

        // A 401 answered by resending with the refused token.
        let stubborn = try Run()
        stubborn.step(["d1"]) { for _ in 0..<2 { stubborn.send("fcm-conf-token-1", bearer: "ya29.never-issued") } }
        XCTAssertVerdict(FCMChecks.remintOn401.run(stubborn.context()), .fail)

        // Non-string data values and reserved keys reach FCM.
        let sloppy = try Run()
        let bearer = try XCTUnwrap(sloppy.mint())
        sloppy.step(["d1"]) { sloppy.send("fcm-conf-token-1", bearer: bearer, data: #"{"n":12}"#) }
        XCTAssertVerdict(FCMChecks.validMessages.run(sloppy.context()), .fail)

        // An assertion signed with another key.
        let wrongKey = try Run()
        _ = try wrongKey.mint(key: try RSAPrivateKey.generate(bits: 2048))
        XCTAssertVerdict(FCMChecks.mintsSucceed.run(wrongKey.context()), .fail)
    }

    /// An early refresh (a new token once the old one lived half its hour, long before its
    /// expiry) is a refresh; a new token ten minutes after the last one is not.
    func testAnEarlyRefreshHoldsAccessTokenReuseAnUnneededMintDoesNot() throws {
        let run = try Run()
        let first = try XCTUnwrap(run.mint())
        run.step(["d1"]) { for _ in 0..<2 { run.send("fcm-conf-token-1", bearer: first) } }
        run.clock.advance(1900)  // past half of 3599 s, 28 minutes before expiry
        let second = try XCTUnwrap(run.mint())
        run.step(["d1"]) { run.send("fcm-conf-token-1", bearer: second) }
        XCTAssertVerdict(FCMChecks.accessTokenReuse.run(run.context()), .pass)
        run.clock.advance(600)
        let third = try XCTUnwrap(run.mint())
        run.step(["d1"]) { run.send("fcm-conf-token-1", bearer: third) }
        XCTAssertVerdict(FCMChecks.accessTokenReuse.run(run.context()), .fail)
    }

    /// `fcm.topic-target`: the topic as the bare `message.topic` (or the condition naming only
    /// it, or with the legacy `/topics/` prefix), the condition as given up to whitespace, the
    /// fields mapped; a token, a lost data member or a claimed send with no message fail.
    /// `fcm.topic-bare-name` warns of the prefix.
    func testTopicTargetCheck() throws {
        let notification = try JSONValue.parse(Array(#"{"title":"t","body":"b","data":{"k":"v","n":1}}"#.utf8))
        let fields = #""notification":{"title":"t","body":"b"},"data":{"k":"v","n":"1"}"#
        func verdict(_ messages: [String], reported: DeliveryOutcome = .sent, named: [String]? = nil,
                     check: CheckDefinition = FCMChecks.topicTarget) throws -> Verdict {
            let run = try Run()
            run.targets = [ScenarioTarget(id: "news", provider: "fcm", address: .topic("news")),
                           ScenarioTarget(id: "ab", provider: "fcm", address: .condition("'a' in topics && 'b' in topics"))]
            let bearer = try XCTUnwrap(run.mint())
            run.step([], targets: ["news", "ab"], notification: notification,
                     results: [DeviceResult(device: "news", outcome: reported), DeviceResult(device: "ab", outcome: reported)]) {
                for m in messages { XCTAssertEqual(run.send(message: m, bearer: bearer).status, 200, m) }
            }
            let ctx = run.context()
            if let named { XCTAssertEqual(FCMHistory(ctx).sends.map(\.device), named, "topic sends named by their target id") }
            return check.run(ctx).verdict
        }
        let condition = #""condition":"'a' in topics && 'b' in topics""#
        XCTAssertEqual(try verdict([#"{"topic":"news",\#(fields)}"#, #"{\#(condition),\#(fields)}"#], named: ["news", "ab"]), .pass)
        XCTAssertEqual(try verdict([#"{"condition":"'news' in topics",\#(fields)}"#, #"{"condition":"'a' in topics&&'b' in topics",\#(fields)}"#]),
                       .pass, "a topic as its one-topic condition; whitespace does not matter")
        XCTAssertEqual(try verdict([#"{"topic":"/topics/news",\#(fields)}"#, #"{\#(condition),\#(fields)}"#], named: ["news", "ab"]), .pass,
                       "the legacy prefix still addresses the topic (FCM's rule is not recorded: fcm.topic-bare-name warns)")
        XCTAssertEqual(try verdict([#"{"token":"news",\#(fields)}"#, #"{\#(condition),\#(fields)}"#]), .fail, "topic sent as a token")
        XCTAssertEqual(try verdict([#"{"topic":"news","notification":{"title":"t","body":"b"},"data":{"k":"v"}}"#, #"{\#(condition),\#(fields)}"#]),
                       .fail, "data member lost")
        XCTAssertEqual(try verdict([#"{"topic":"news",\#(fields)}"#]), .fail, "the condition reported sent, never sent")
        XCTAssertEqual(try verdict([], reported: .rejected), .notApplicable, "nothing sent, nothing claimed")
        // fcm.topic-bare-name (SHOULD): the prefix warns, the bare name holds, no topic message is n/a.
        let bare = FCMChecks.topicBareName
        XCTAssertEqual(try verdict([#"{"topic":"/topics/news",\#(fields)}"#, #"{\#(condition),\#(fields)}"#], check: bare), .warn)
        XCTAssertEqual(try verdict([#"{"topic":"news",\#(fields)}"#, #"{\#(condition),\#(fields)}"#], check: bare), .pass)
        XCTAssertEqual(try verdict([#"{\#(condition),\#(fields)}"#], check: bare), .notApplicable)
    }
}
