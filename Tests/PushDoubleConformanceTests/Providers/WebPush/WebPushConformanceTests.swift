import Foundation
import XCTest
@testable import PushDoubleConformance
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport
import PushDoubleWebPush

/// The Web Push judge and checks over histories the real Web Push fake recorded (its
/// pipeline, in memory): each check holds on a correct history and is violated by the
/// request that breaks its rule.
final class WebPushConformanceTests: XCTestCase {
    final class Connection: ConnectionControl {
        var info = ConnectionInfo(id: 7, listener: "webpush", peer: "127.0.0.1:50000", localPort: 8726,
                                  tls: TLSInfo(version: "TLSv1.3", alpn: "h2", serverName: nil, cipher: nil), acceptedAt: Date())
        var version: HTTPVersion = .http2
        var storage: AnyObject?
        func updateSettings(maxConcurrentStreams: UInt32?) {}
        func closeGracefully(errorCode: HTTP2ErrorCode, debugData: [UInt8]) {}
    }

    /// A double with the Web Push fake, and the requests a sender would make.
    final class Sender {
        let double = DoubleState()
        let pipeline: DoublePipeline
        let connection = Connection()
        let origin = "https://127.0.0.1:8726"
        let vapidKey: P256PrivateKey
        var subscriptions: [String: WebPushSubscription] = [:]
        let stepStart = Date()

        init() throws {
            pipeline = double.pipeline(for: WebPushFake())
            double.devices.setSchema({ try WebPushModule().validateDevice(&$0) }, for: .webpush)
            vapidKey = try P256PrivateKey(pem: WebPushTestCredentials.privateKeyPEM)
        }

        func subscribe(_ id: String, _ service: WebPushService, state: DeviceState = .active) throws {
            let s = try WebPushSubscription(service: service, origin: origin)
            var d = Device(id: id, provider: .webpush, token: "", attributes: try WebPushDeviceSchema.attributes(of: s))
            d.state = state
            try double.devices.register(d)
            subscriptions[id] = s
        }

        func vapid(aud: String? = nil) throws -> String {
            let jwt = try JWT.sign(header: ["typ": "JWT", "alg": "ES256"],
                                   claims: ["aud": .string(aud ?? origin), "exp": .int(Int64(Date().timeIntervalSince1970) + 3600),
                                            "sub": "mailto:ops@example.com"], key: .es256(vapidKey))
            return "vapid t=\(jwt), k=\(Base64URL.encode(try vapidKey.publicKey.rawRepresentation))"
        }

        /// POSTs `text` encrypted to `id`'s keys (or `encryptTo`'s); `omit` drops headers by name.
        @discardableResult
        func push(_ id: String, _ text: String = #"{"title":"Hi","body":"There"}"#, urgency: String? = "high", encryptTo: WebPushSubscription? = nil,
                  omit: Set<String> = [], aud: String? = nil, legacy: Bool = false, padTo: Int? = nil) throws -> Int {
            let s = try XCTUnwrap(subscriptions[id])
            let keys = encryptTo ?? s
            var h: [(String, String)] = [("ttl", "60"), ("authorization", try vapid(aud: aud))]
            if let urgency { h.append(("urgency", urgency)) }
            var body: [UInt8]
            if legacy {
                let m = try WebPushCipher.encryptLegacyAESGCM(plaintext: Array(text.utf8), uaPublicKey: keys.publicKey, authSecret: keys.authSecret)
                body = m.body
                h += [("content-encoding", "aesgcm"), ("encryption", m.encryptionHeader), ("crypto-key", m.cryptoKeyHeader)]
            } else {
                body = try WebPushCipher.encrypt(plaintext: Array(text.utf8), uaPublicKey: keys.publicKey, authSecret: keys.authSecret)
                h.append(("content-encoding", "aes128gcm"))
            }
            if let padTo { body += Array(repeating: 0, count: max(0, padTo - body.count)) }
            h.removeAll { omit.contains($0.0) }
            let info = RequestInfo(connection: connection.info, streamID: 1, version: .http2, headReceivedAt: Date(), bodyReceivedAt: Date())
            let r = HTTPRequest(method: "POST", path: s.endpointPath, scheme: "https", authority: "127.0.0.1:8726", headers: HTTPHeaders(h),
                                body: body, info: info)
            guard case .respond(let response) = pipeline.respond(to: r, context: RequestContext(connection: connection)) else { return 0 }
            return response.status
        }

        func context(priority: String = "high") -> CheckContext {
            let devices = subscriptions.keys.sorted().map { ScenarioDevice(id: $0, provider: "webpush", token: "") }
            let notification: JSONValue = ["title": "Hi", "body": "There", "priority": .string(priority)]
            let step = StepRecord(index: 0, type: "send", devices: devices.map(\.id), notification: notification,
                                  startedAt: stepStart, endedAt: Date())
            return CheckContext(scenario: ConformanceScenario(id: "webpush.test", title: "t", references: [], devices: devices, steps: [], checks: []),
                                history: double.history.all, steps: [step], configuration: nil)
        }
    }

    func verdicts(_ ctx: CheckContext) -> [String: Verdict] {
        var out: [String: Verdict] = [:]
        for c in WebPushConformance().checks { out[c.id] = c.run(ctx).verdict }
        return out
    }

    func testACorrectSenderPassesEveryWebPushCheck() throws {
        let s = try Sender()
        try s.subscribe("d1", .mozilla)
        try s.subscribe("d2", .fcm)
        XCTAssertEqual(try s.push("d1"), 201)
        XCTAssertEqual(try s.push("d2"), 201)
        let v = verdicts(s.context())
        let notApplicable: Set = ["webpush.topic", "webpush.declarative", "webpush.browser-decrypted"]
        for (id, verdict) in v where !notApplicable.contains(id) { XCTAssertEqual(verdict, .pass, id) }
        XCTAssertEqual(v["webpush.topic"], .notApplicable)
        XCTAssertEqual(v["webpush.browser-decrypted"], .notApplicable, "no subscription of a real browser")
        XCTAssertEqual(v["webpush.declarative"], .notApplicable, "no declarative message, no subscription marked declarative")
        let attempts = WebPushConformance().attempts(s.context())
        XCTAssertEqual(attempts.map(\.device), ["d1", "d2"])
        XCTAssertEqual(attempts.map(\.classification), [.accepted, .accepted])
        XCTAssertEqual(attempts.map(\.step), [0, 0])
        XCTAssertEqual(attempts[0].pool, "127.0.0.1:8726")
    }

    /// A stream the transport refused never reached the fake, so no device was looked up: the
    /// attempt is still the device's, its token read from the endpoint path of every service's
    /// shape (WNS carries it in the query).
    func testRefusedStreamsAreAttemptsOfTheirDevice() throws {
        let s = try Sender()
        let services: [WebPushService] = [.mozilla, .fcm, .wns, .apple]
        for service in services {
            let sub = try WebPushSubscription(service: service, origin: s.origin)
            let info = RequestInfo(connection: s.connection.info, streamID: 3, version: .http2, headReceivedAt: Date(), bodyReceivedAt: Date())
            let head = HTTPRequest(method: "POST", path: sub.endpointPath, scheme: "https", authority: "127.0.0.1:8726", headers: HTTPHeaders(),
                                   body: [], info: info)
            s.pipeline.streamRefused(.refusedStream, head: head, context: RequestContext(connection: s.connection))
            s.subscriptions[service.rawValue] = sub
        }
        let devices = services.map { ScenarioDevice(id: $0.rawValue, provider: "webpush", token: s.subscriptions[$0.rawValue]!.token) }
        let ctx = CheckContext(scenario: ConformanceScenario(id: "webpush.test", title: "t", references: [], devices: devices, steps: [], checks: []),
                               history: s.double.history.all, steps: [], configuration: nil)
        let attempts = WebPushConformance().attempts(ctx)
        XCTAssertEqual(Set(attempts.map(\.device)), Set(services.map(\.rawValue)))
        XCTAssertEqual(Set(attempts.map(\.token)), Set(devices.map(\.token)))
    }

    /// `webpush.declarative`: judged for messages that claim to be declarative and for
    /// subscriptions marked declarative; each way a browser would not show it fails.
    func testDeclarativeMessagesAreWellFormedWhenUsed() throws {
        let link = "https://example.com/trips/42"
        func verdict(_ text: String, marked: Bool = false) throws -> (Verdict, String) {
            let s = try Sender()
            try s.subscribe("safari", .apple)
            XCTAssertEqual(try s.push("safari", text), 201)
            let device = ScenarioDevice(id: "safari", provider: "webpush", token: "", attributes: marked ? [("declarative", .bool(true))] : [])
            let step = StepRecord(index: 0, type: "send", devices: ["safari"], notification: ["title": "Gate", "link": .string(link)],
                                  startedAt: s.stepStart, endedAt: Date())
            let ctx = CheckContext(scenario: ConformanceScenario(id: "webpush.test", title: "t", references: [], devices: [device], steps: [], checks: []),
                                   history: s.double.history.all, steps: [step], configuration: nil)
            let f = WebPushChecks.declarative.run(ctx)
            return (f.verdict, f.evidence.map(\.note).joined(separator: "; "))
        }
        let good = #"{"web_push":8030,"notification":{"title":"Gate","navigate":"https://example.com/trips/42","mutable":true},"app_badge":2}"#
        XCTAssertEqual(try verdict(good).0, .pass)
        XCTAssertEqual(try verdict(good, marked: true).0, .pass)
        XCTAssertEqual(try verdict(#"{"title":"Gate"}"#).0, .notApplicable, "an ordinary message to an unmarked subscription")
        let bad: [(String, Bool, String)] = [
            (#"{"title":"Gate"}"#, true, "not a declarative message"),
            (#"{"web_push":8030,"notification":{"title":"Gate","navigate":"/trips/42"}}"#, false, "not an absolute http(s) URL: /trips/42"),
            (#"{"web_push":9001,"notification":{"title":"Gate","navigate":"https://example.com/trips/42"}}"#, false, "web_push is 9001"),
            (#"{"web_push":8030,"notification":{"navigate":"https://example.com/trips/42"}}"#, false, "title is missing"),
            (#"{"web_push":8030,"notification":{"title":"Gate","navigate":"https://example.com/trips/42","mutable":"yes"}}"#, false, "mutable is \"yes\", not a boolean"),
            (#"{"web_push":8030,"notification":{"title":"Gate","navigate":"https://example.com/trips/42"},"app_badge":-1}"#, false, "app_badge is -1"),
            (#"{"web_push":8030,"notification":{"title":"Gate","navigate":"https://example.com/other"}}"#, false, "is not the notification's link"),
        ]
        for (text, marked, why) in bad {
            let (v, finding) = try verdict(text, marked: marked)
            XCTAssertEqual(v, .fail, text)
            XCTAssertTrue(finding.contains(why), "\(text): \(finding)")
        }
    }

    /// A subscription marked `"declarative": true` makes the case need the `declarative`
    /// feature (n/a for a sender without it); `false` or no mark does not.
    func testAMarkedSubscriptionNeedsTheDeclarativeFeature() throws {
        let sub = #"{"endpoint":"/wpY5o6FlJGlBnyoKeTLj55EKg1ItYZ4d","keys":{"p256dh":"BFFnAg3wmYsF4f9yUrRHWuqMLvhBy7SQAgXO_Oy1utjVV792Ld4YDM1yJpo_wkH9kAtmqwECOFg_TA50hnG2Pv4","auth":"9v5nW2z8p5Gk8USIpQlIPw"}}"#
        func missing(_ mark: String, features: [String]? = nil) throws -> [String] {
            let json = #"{"id":"x","devices":[{"id":"s","provider":"webpush","subscription":\#(sub)\#(mark)}],"steps":[]}"#
            let s = try ConformanceScenario.decode(Data(json.utf8), file: "x.json")
            return ConformanceRunner.missingFeatures(try Registrations(s), SenderIdentity(name: "a", version: "1", providers: ["webpush"], features: features),
                                                     SenderConfiguration(caFile: "", providers: [], environment: []), devices: s.devices)
        }
        XCTAssertEqual(try missing(#","declarative":true"#), [SenderFeature.declarative])
        XCTAssertEqual(try missing(#","declarative":true"#, features: ["declarative"]), [])
        XCTAssertEqual(try missing(#","declarative":false"#), [])
        XCTAssertEqual(try missing(""), [])
    }

    func testJudgeClassifiesTheServicesAnswers() throws {
        let s = try Sender()
        try s.subscribe("ok", .mozilla)
        try s.subscribe("gone", .fcm, state: .unregistered(since: Date()))
        try s.subscribe("invalid", .wns, state: .invalid)
        try s.subscribe("busy", .apple, state: .rateLimited)
        try s.subscribe("wnsbusy", .wns, state: .rateLimited)
        XCTAssertEqual(try s.push("gone"), 410)
        XCTAssertEqual(try s.push("invalid"), 404)
        XCTAssertEqual(try s.push("busy"), 429)
        XCTAssertEqual(try s.push("wnsbusy"), 406)
        XCTAssertEqual(try s.push("ok", padTo: 5700), 413, "autopush takes up to 5630 bytes")
        XCTAssertEqual(try s.push("ok", aud: "https://elsewhere.example"), 401)
        let a = WebPushConformance().attempts(s.context())
        XCTAssertEqual(a.map(\.classification), [.dead, .dead, .transient, .retryable, .permanent, .requestError])
        XCTAssertEqual(a[2].retryAfter, "120")
        XCTAssertEqual(a.map(\.reason), ["unsubscribed", "invalidEndpoint", "throttled", "throttled", "payloadTooLarge", "vapidAudience"])
    }

    func testEachCheckIsViolatedByTheRequestThatBreaksItsRule() throws {
        let s = try Sender()
        try s.subscribe("d1", .mozilla)
        try s.subscribe("d2", .fcm)
        let stranger = try WebPushSubscription(service: .fcm)
        XCTAssertEqual(try s.push("d1", encryptTo: stranger), 201, "a service cannot tell")
        XCTAssertEqual(try s.push("d1", "no title here"), 201)
        XCTAssertEqual(try s.push("d1", aud: s.origin + "/wpush"), 401)
        XCTAssertEqual(try s.push("d1", omit: ["ttl"]), 400)
        XCTAssertEqual(try s.push("d2", urgency: nil), 201)
        XCTAssertEqual(try s.push("d2", legacy: true), 201)
        XCTAssertEqual(try s.push("d2", padTo: 4500), 413)
        let ctx = s.context()
        let v = verdicts(ctx)
        XCTAssertEqual(v["webpush.decryptable"], .fail)
        XCTAssertEqual(v["webpush.payload-content"], .fail)
        XCTAssertEqual(v["webpush.vapid"], .fail)
        XCTAssertEqual(v["webpush.ttl"], .fail)
        XCTAssertEqual(v["webpush.urgency"], .warn)
        XCTAssertEqual(v["webpush.aes128gcm"], .warn)
        XCTAssertEqual(v["webpush.payload-limits"], .warn, "SHOULD: the 413 reported rejected loses nothing")
        let decrypt = WebPushChecks.decryptable.run(ctx)
        XCTAssertEqual(decrypt.evidence.count, 1)
        XCTAssertTrue(decrypt.evidence[0].note.contains("authenticationFailed"), decrypt.evidence[0].note)
        XCTAssertTrue(WebPushChecks.vapid.run(ctx).evidence[0].note.contains("vapidAudience"))
        // Urgency: priority normal sent as high is the other way to break it.
        let n = try Sender()
        try n.subscribe("d1", .apple)
        XCTAssertEqual(try n.push("d1", urgency: "high"), 201)
        XCTAssertEqual(verdicts(n.context(priority: "normal"))["webpush.urgency"], .warn)
    }

    func testRegisteredInTheCatalogue() {
        for c in WebPushConformance().checks { XCTAssertNotNil(CheckCatalogue.byID[c.id], c.id) }
        XCTAssertNotNil(ConformanceProviders.provider(.webpush))
    }
}
