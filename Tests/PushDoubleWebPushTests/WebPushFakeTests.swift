import Foundation
import XCTest
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport
@testable import PushDoubleWebPush

/// A ConnectionControl with no transport behind it.
final class WebPushTestConnection: ConnectionControl {
    var info = ConnectionInfo(id: 1, listener: "webpush", peer: "127.0.0.1:50000", localPort: 8726,
                              tls: TLSInfo(version: "TLSv1.3", alpn: "h2", serverName: nil, cipher: nil),
                              acceptedAt: Date(timeIntervalSince1970: 0))
    var version: HTTPVersion = .http2
    var storage: AnyObject?
    func updateSettings(maxConcurrentStreams: UInt32?) {}
    func closeGracefully(errorCode: HTTP2ErrorCode, debugData: [UInt8]) {}
}

/// The Web Push fake in the core pipeline over a manual clock at ``testNow``, with the module's
/// device schema installed, reached at `https://127.0.0.1:8726`.
final class WebPushHarness {
    let clock = ManualClock(Date(timeIntervalSince1970: Double(testNow)))
    let double: DoubleState
    let fake: WebPushFake
    let pipeline: DoublePipeline
    /// `:authority` of the requests sent (a real host name: as reached through the CONNECT proxy).
    var authority = "127.0.0.1:8726"
    var origin: String { "https://" + authority }
    let connection = WebPushTestConnection()

    init(_ configure: (inout WebPushFakeConfiguration) -> Void = { _ in }) {
        var c = WebPushFakeConfiguration()
        configure(&c)
        double = DoubleState(clock: clock)
        fake = WebPushFake(configuration: c)
        pipeline = double.pipeline(for: fake)
        double.devices.setSchema({ try WebPushDeviceSchema.validate(&$0) }, for: .webpush)
    }

    /// A fresh subscription registered as device `id`.
    @discardableResult
    func subscribe(_ service: WebPushService = .mozilla, id: String = "s1", applicationServerKey: P256PublicKey? = nil,
                   token: String? = nil) throws -> WebPushSubscription {
        let s = try WebPushSubscription(service: service, origin: origin, token: token, applicationServerKey: applicationServerKey)
        try double.devices.register(Device(id: id, provider: .webpush, token: "", attributes: try WebPushDeviceSchema.attributes(of: s)))
        return s
    }

    func send(_ path: String, method: String = "POST", headers: [(String, String)], body: [UInt8] = []) -> HTTPResponse {
        let info = RequestInfo(connection: connection.info, streamID: 1, version: .http2, headReceivedAt: Date(), bodyReceivedAt: Date())
        let request = HTTPRequest(method: method, path: path, scheme: "https", authority: authority, headers: HTTPHeaders(headers),
                                  body: body, info: info)
        guard case .respond(let r) = pipeline.respond(to: request, context: RequestContext(connection: connection)) else {
            XCTFail("expected a response")
            return HTTPResponse(status: 0)
        }
        return r
    }

    /// `vapid t=…, k=…` signed with the shipped test key for this origin (or `claims`).
    func vapid(_ claims: JOSEObject? = nil, key: P256PrivateKey? = nil) throws -> String {
        let key = try key ?? vapidTestKey()
        let k = Base64URL.encode(try key.publicKey.rawRepresentation)
        return "vapid t=\(try vapidJWT(claims ?? goodClaims(origin: origin), key: key)), k=\(k)"
    }

    /// An aes128gcm push of `plaintext` to `sub`'s endpoint path with TTL 60 and VAPID.
    func push(_ sub: WebPushSubscription, _ plaintext: String = "hello", path: String? = nil, headers extra: [(String, String)] = [],
              claims: JOSEObject? = nil, vapid useVAPID: Bool = true) throws -> HTTPResponse {
        let body = try WebPushCipher.encrypt(plaintext: Array(plaintext.utf8), uaPublicKey: sub.publicKey, authSecret: sub.authSecret)
        var h: [(String, String)] = [("ttl", "60"), ("content-encoding", "aes128gcm")]
        if useVAPID { h.append(("authorization", try vapid(claims))) }
        return send(path ?? sub.endpointPath, headers: h + extra, body: body)
    }

    var last: Exchange? { double.history.all.last }

    /// Puts registered device `id` in `state`.
    func setState(_ id: String, _ state: DeviceState) throws {
        var d = try XCTUnwrap(double.devices.device(id: id))
        d.state = state
        try double.devices.upsert(d)
    }
}

func text(_ r: HTTPResponse) -> String { String(decoding: r.body, as: UTF8.self) }

final class WebPushFakeTests: XCTestCase {
    func testAcceptedMessageIsDecryptedAndRecorded() throws {
        let h = WebPushHarness()
        let sub = try h.subscribe()
        let r = try h.push(sub, "Grüße, watermelon", headers: [("urgency", "high"), ("topic", "news-1")])
        XCTAssertEqual(r.status, 201)
        XCTAssertTrue(r.headers["location"]?.hasPrefix(h.origin + sub.endpointPath + "/m/") ?? false, "\(r.headers)")
        XCTAssertEqual(r.headers["ttl"], "60")
        XCTAssertEqual(r.body, [])
        let e = try XCTUnwrap(h.last)
        XCTAssertEqual(e.deviceID, "s1")
        XCTAssertEqual(e.endpoint, "webpush.push")
        XCTAssertEqual(e.notification?["payload"], ["data": "Grüße, watermelon", "base64": false])
        XCTAssertEqual(e.notification?["urgency"], "high")
        XCTAssertEqual(e.notification?["topic"], "news-1")
        XCTAssertEqual(e.notification?["service"], "mozilla")
        XCTAssertEqual(e.environment, "mozilla")
        XCTAssertEqual(e.auth?.scheme, "vapid")
        XCTAssertEqual(e.auth?.audience, h.origin)
        XCTAssertEqual(e.auth?.subject, "mailto:ops@example.com")
        XCTAssertEqual(e.auth?.keyID, try vapidTestPublicText())
        XCTAssertEqual(e.topic, h.origin)
        XCTAssertEqual(h.double.devices.device(id: "s1")?.deliveries, 1)
    }

    func testRFC8291VectorThroughTheFake() throws {
        let h = WebPushHarness()
        let s = try RFC8291.subscription()
        let device = Device(id: "rfc", provider: .webpush, token: "", attributes: try WebPushDeviceSchema.attributes(of: s))
        try h.double.devices.register(device)
        let r = h.send(s.endpointPath, headers: [("TTL", "10"), ("Content-Encoding", "aes128gcm")], body: try Base64URL.decode(RFC8291.body))
        XCTAssertEqual(r.status, 201)
        XCTAssertEqual(h.last?.notification?["payload"]?["data"], .string(RFC8291.plaintext))
        XCTAssertEqual(h.last?.notification?["bodySize"], 144)
    }

    func testUndecryptableMessageIsAcceptedAndRecordedWithItsReason() throws {
        let h = WebPushHarness()
        let sub = try h.subscribe()
        let other = try WebPushSubscription(service: .mozilla)
        let r = try h.push(other, "for someone else", path: sub.endpointPath)
        XCTAssertEqual(r.status, 201, "a push service cannot tell")
        XCTAssertEqual(h.last?.notification?["payload"]?["error"], "authenticationFailed")
    }

    func testLegacyAESGCMIsDecrypted() throws {
        let h = WebPushHarness()
        let sub = try h.subscribe()
        let m = try WebPushCipher.encryptLegacyAESGCM(plaintext: Array("legacy".utf8), uaPublicKey: sub.publicKey, authSecret: sub.authSecret)
        let r = h.send(sub.endpointPath, headers: [("TTL", "5"), ("Content-Encoding", "aesgcm"), ("Encryption", m.encryptionHeader),
                                                   ("Crypto-Key", m.cryptoKeyHeader), ("authorization", try h.vapid())], body: m.body)
        XCTAssertEqual(r.status, 201, text(r))
        XCTAssertEqual(h.last?.notification?["payload"]?["data"], "legacy")
        XCTAssertEqual(h.last?.notification?["encoding"], "aesgcm")
    }

    /// Draft-01 VAPID: `WebPush <jwt>` + `Crypto-Key: dh=…;p256ecdsa=…` with aesgcm (docs/webpush.md §4, §5).
    func testLegacyVAPIDFormWithAESGCM() throws {
        let h = WebPushHarness()
        let sub = try h.subscribe(applicationServerKey: try vapidTestKey().publicKey)
        let m = try WebPushCipher.encryptLegacyAESGCM(plaintext: Array("draft".utf8), uaPublicKey: sub.publicKey, authSecret: sub.authSecret)
        let jwt = try vapidJWT(goodClaims(origin: h.origin), key: try vapidTestKey())
        let r = h.send(sub.endpointPath, headers: [("TTL", "5"), ("Content-Encoding", "aesgcm"), ("Encryption", m.encryptionHeader),
                                                   ("Crypto-Key", m.cryptoKeyHeader + ";p256ecdsa=" + (try vapidTestPublicText())),
                                                   ("Authorization", "WebPush " + jwt)], body: m.body)
        XCTAssertEqual(r.status, 201, text(r))
        XCTAssertEqual(h.last?.notification?["payload"]?["data"], "draft")
        XCTAssertEqual(h.last?.auth?.extra["form"], "webpush")
    }

    /// A bad `aud` in each service's style (docs/webpush.md §6.1–§6.4).
    func testVAPIDFailureInEachServiceStyle() throws {
        let h = WebPushHarness()
        let wrongAud = goodClaims(origin: "https://fcm.googleapis.com")
        var subs: [WebPushService: WebPushSubscription] = [:]
        for (i, s) in WebPushService.allCases.enumerated() { subs[s] = try h.subscribe(s, id: "s\(i)") }

        let fcm = try h.push(subs[.fcm]!, claims: wrongAud)
        XCTAssertEqual(fcm.status, 400)
        XCTAssertTrue(text(fcm).contains("<TITLE>UnauthorizedRegistration</TITLE>"))
        XCTAssertEqual(fcm.headers["content-type"], "text/html; charset=UTF-8")

        let moz = try h.push(subs[.mozilla]!, claims: wrongAud)
        XCTAssertEqual(moz.status, 401)
        XCTAssertEqual(text(moz), #"{"code":401,"errno":109,"error":"Unauthorized","message":"Invalid VAPID audience","more_info":"http://autopush.readthedocs.io/en/latest/http.html#error-codes"}"#)

        let apple = try h.push(subs[.apple]!, claims: wrongAud)
        XCTAssertEqual(apple.status, 403)
        XCTAssertEqual(text(apple), #"{"reason":"BadJwtToken"}"#)

        let wns = try h.push(subs[.wns]!, claims: wrongAud)
        XCTAssertEqual(wns.status, 401)
        XCTAssertEqual(wns.body, [])

        let e = try XCTUnwrap(h.last)
        XCTAssertEqual(e.decidedBy.stage, .auth)
        XCTAssertEqual(e.response.reason, "vapidAudience")
        XCTAssertEqual(e.auth?.valid, false)
        XCTAssertEqual(h.double.devices.device(id: "s0")?.deliveries, 0)
    }

    func testVAPIDClaimsExpiryAndSubject() throws {
        let h = WebPushHarness()
        let sub = try h.subscribe()
        func message(_ claims: JOSEObject) throws -> String? { try JSONValue.parse(h.push(sub, claims: claims).body)["message"]?.stringValue }
        XCTAssertEqual(try message(goodClaims(origin: h.origin, exp: testNow + 86_401)), "The VAPID token expiration is too long")
        XCTAssertEqual(try message(goodClaims(origin: h.origin, exp: testNow - 1)), "Invalid VAPID expiry")
        XCTAssertEqual(try message(goodClaims(origin: h.origin, sub: nil)), "Missing sub")
        XCTAssertEqual(try message(goodClaims(origin: h.origin + "/")), "Invalid VAPID audience")
        XCTAssertEqual(try h.push(sub, claims: goodClaims(origin: h.origin, exp: testNow + 86_400)).status, 201)
    }

    func testRestrictedSubscriptionNeedsItsOwnKey() throws {
        let h = WebPushHarness()
        let sub = try h.subscribe(applicationServerKey: try vapidTestKey().publicKey)
        XCTAssertTrue(sub.endpointPath.hasPrefix("/wpush/v2/"))
        let none = try h.push(sub, vapid: false)
        XCTAssertEqual(none.status, 401)
        XCTAssertEqual(try JSONValue.parse(none.body)["message"], "Missing VAPID authorization")
        let other = try P256PrivateKey.generate()
        let body = try WebPushCipher.encrypt(plaintext: Array("x".utf8), uaPublicKey: sub.publicKey, authSecret: sub.authSecret)
        let mismatch = h.send(sub.endpointPath, headers: [("ttl", "1"), ("content-encoding", "aes128gcm"),
                                                          ("authorization", try h.vapid(key: other))], body: body)
        XCTAssertEqual(try JSONValue.parse(mismatch.body)["message"], "VAPID public key mismatch")
        XCTAssertEqual(try h.push(sub).status, 201)
        // An unrestricted subscription takes a push without VAPID.
        let open = try h.subscribe(id: "open")
        XCTAssertEqual(try h.push(open, vapid: false).status, 201)
        XCTAssertEqual(h.last?.auth?.scheme, "none")
    }

    func testHeaderRulesAndSize() throws {
        let h = WebPushHarness()
        let sub = try h.subscribe(.fcm)
        let body = try WebPushCipher.encrypt(plaintext: Array("x".utf8), uaPublicKey: sub.publicKey, authSecret: sub.authSecret)
        let noTTL = h.send(sub.endpointPath, headers: [("content-encoding", "aes128gcm")], body: body)
        XCTAssertEqual(noTTL.status, 400)
        XCTAssertEqual(h.last?.response.reason, "missingTTL")
        XCTAssertEqual(try h.push(sub, headers: [("urgency", "urgent")]).status, 400)
        XCTAssertEqual(try h.push(sub, headers: [("topic", String(repeating: "a", count: 33))]).status, 400)
        let big = h.send(sub.endpointPath, headers: [("ttl", "1"), ("content-encoding", "aes128gcm")], body: Array(repeating: 0, count: 4097))
        XCTAssertEqual(big.status, 413)
        XCTAssertEqual(h.last?.response.reason, "payloadTooLarge")
        // autopush takes up to 5630 bytes and answers 413 with errno 104 above (docs/webpush.md §6.2).
        let moz = try h.subscribe(.mozilla, id: "m")
        let bigMoz = h.send(moz.endpointPath, headers: [("ttl", "1"), ("content-encoding", "aes128gcm")], body: Array(repeating: 0, count: 5631))
        XCTAssertEqual(bigMoz.status, 413)
        XCTAssertEqual(try JSONValue.parse(bigMoz.body)["errno"], 104)
    }

    func testDeviceStatesPerService() throws {
        let h = WebPushHarness()
        let f = try h.subscribe(.fcm, id: "f")
        try h.setState("f", .unregistered(since: h.clock.now()))
        let gone = try h.push(f)
        XCTAssertEqual(gone.status, 410)
        XCTAssertEqual(text(gone), "push subscription has unsubscribed or expired.\n")
        XCTAssertEqual(gone.body.count, 47)
        XCTAssertEqual(h.last?.decidedBy.stage, .device)

        let m = try h.subscribe(.mozilla, id: "m")
        try h.setState("m", .expired)
        let expired = try h.push(m)
        XCTAssertEqual(expired.status, 410)
        XCTAssertEqual(try JSONValue.parse(expired.body)["errno"], 103)
        XCTAssertEqual(expired.headers["cache-control"], "max-age=86400")
        try h.setState("m", .rateLimited)
        let throttled = try h.push(m)
        XCTAssertEqual(throttled.status, 503)
        XCTAssertEqual(throttled.headers["retry-after"], "120")

        let w = try h.subscribe(.wns, id: "w")
        try h.setState("w", .rateLimited)
        XCTAssertEqual(try h.push(w).status, 406)
        try h.setState("w", .invalid)
        XCTAssertEqual(try h.push(w).status, 404)

        let a = try h.subscribe(.apple, id: "a")
        try h.setState("a", .otherApp)
        let other = try h.push(a)
        XCTAssertEqual(other.status, 403)
        XCTAssertEqual(text(other), #"{"reason":"BadJwtToken"}"#)

        // FCM: another application server's subscription (docs/webpush.md §6.1a).
        let fOther = try h.subscribe(.fcm, id: "f-other")
        try h.setState("f-other", .otherApp)
        let mismatch = try h.push(fOther)
        XCTAssertEqual(mismatch.status, 403)
        XCTAssertEqual(mismatch.headers["content-type"], "text/plain; charset=utf-8")
        XCTAssertEqual(text(mismatch), "the VAPID credentials in the authorization header do not correspond to the credentials used to create the subscriptions.\n")
    }

    func testMagicTokens() throws {
        let h = WebPushHarness()
        h.double.devices.setWorld(.closed, for: .webpush)
        let anyKeys = try WebPushSubscription(service: .fcm)
        func push(_ path: String) throws -> HTTPResponse { try h.push(anyKeys, path: path) }
        let e = { (code: String) in WebPushMagicTokens.table.first { $0.code == code }!.example }
        XCTAssertEqual(text(try push("/fcm/send/" + e("4100"))), "push subscription has unsubscribed or expired.\n")
        XCTAssertEqual(try JSONValue.parse(try push("/wpush/v1/" + e("4100")).body)["errno"], 106)
        XCTAssertEqual(try JSONValue.parse(try push("/wpush/v1/" + e("4101")).body)["errno"], 103)
        let stale = try push("/fcm/send/" + e("4041"))
        XCTAssertEqual(stale.status, 404)
        XCTAssertTrue(text(stale).hasPrefix("A valid push subscription endpoint should be specified"))
        XCTAssertEqual(try push("/wpush/v1/" + e("4041")).status, 410)
        XCTAssertEqual(try push("/" + e("4040")).status, 410, "Apple answers every dead subscription 410 (appleGoneStatus)")
        XCTAssertEqual(try push("/w/?token=" + e("4040")).status, 404)
        XCTAssertEqual(try push("/" + e("4290")).status, 429)
        XCTAssertEqual(try push("/w/?token=" + e("2010")).status, 201)
        XCTAssertEqual(h.last?.notification?["payload"]?["error"], "unknownSubscription")
        // Closed world: an unknown well-formed token is an invalid endpoint.
        XCTAssertEqual(try push("/fcm/send/unknownToken").status, 404)
    }

    /// Reached by a real service's name (through the CONNECT proxy): `aud` is that origin
    /// without the default port, and the host serves only its own service's path shape.
    func testRealHostNamesTheAudienceAndOnlyItsOwnShape() throws {
        let h = WebPushHarness()
        h.authority = "updates.push.services.mozilla.com:443"
        let sub = try h.subscribe()
        let real = "https://updates.push.services.mozilla.com"
        XCTAssertEqual(try h.push(sub, claims: goodClaims(origin: real)).status, 201)
        XCTAssertEqual(h.last?.auth?.audience, real)
        // The local origin (today's rule at the local URL) is not the origin reached.
        let wrong = try h.push(sub, claims: goodClaims(origin: "https://127.0.0.1:8726"))
        XCTAssertEqual(wrong.status, 401)
        XCTAssertEqual(h.last?.response.reason, "vapidAudience")
        // An Apple-shaped path at autopush's host: invalidEndpoint in autopush's style.
        let apple = try h.subscribe(.apple, id: "a1")
        let misplaced = try h.push(apple, claims: goodClaims(origin: real))
        XCTAssertEqual(misplaced.status, 404)
        XCTAssertEqual(try JSONValue.parse(misplaced.body)["errno"], 102)
        XCTAssertEqual(h.last?.environment, "mozilla")
        // WNS's wildcard host, one label; at the local address the path alone decides, as before.
        h.authority = "db5p.notify.windows.com"
        let wns = try h.subscribe(.wns, id: "w1")
        XCTAssertEqual(try h.push(wns, claims: goodClaims(origin: "https://db5p.notify.windows.com")).status, 201)
        h.authority = "127.0.0.1:8726"
        XCTAssertEqual(try h.push(apple).status, 201)
    }

    func testServiceRealHostsAndOrigins() {
        XCTAssertEqual(WebPushService.fromHost("updates.push.services.mozilla.com"), .mozilla)
        XCTAssertEqual(WebPushService.fromHost("Web.Push.Apple.com.:443"), .apple)
        XCTAssertEqual(WebPushService.fromHost("fcm.googleapis.com:443"), .fcm)
        XCTAssertEqual(WebPushService.fromHost("wns2-by3p.notify.windows.com"), .wns)
        for other in ["a.b.notify.windows.com", "notify.windows.com", ".notify.windows.com", "127.0.0.1:8726", "[::1]:443",
                      "push.services.mozilla.com"] {
            XCTAssertNil(WebPushService.fromHost(other), other)
        }
        XCTAssertTrue(WebPushService.mozilla.isRealOrigin("https://updates.push.services.mozilla.com:443"))
        XCTAssertTrue(WebPushService.wns.isRealOrigin("https://DB5P.notify.windows.com"))
        XCTAssertFalse(WebPushService.wns.isRealOrigin("https://db5p.notify.windows.com:8443"))
        XCTAssertFalse(WebPushService.apple.isRealOrigin("http://web.push.apple.com"))
        XCTAssertFalse(WebPushService.apple.isRealOrigin("https://web.push.apple.com/x"))
        XCTAssertFalse(WebPushService.fcm.isRealOrigin("https://web.push.apple.com"))
        for service in WebPushService.allCases { XCTAssertTrue(service.isRealOrigin(service.defaultOrigin), "\(service)") }
        XCTAssertEqual(WebPushAdminRoutes.EndpointOrigin("production", service: .apple), .production)
        XCTAssertEqual(WebPushAdminRoutes.EndpointOrigin("https://DB5P.notify.windows.com:443", service: .wns),
                       .origin("https://db5p.notify.windows.com"))
        XCTAssertNil(WebPushAdminRoutes.EndpointOrigin("https://db5p.notify.windows.com", service: .mozilla))
        XCTAssertEqual(WebPushModule().listenerDefaults.flatMap(\.realHosts),
                       ["updates.push.services.mozilla.com:443", "web.push.apple.com:443", "*.notify.windows.com:443"])
    }

    func testPathMethodAndShape() throws {
        let h = WebPushHarness()
        let sub = try h.subscribe()
        let get = h.send(sub.endpointPath, method: "GET", headers: [])
        XCTAssertEqual(get.status, 405)
        XCTAssertEqual(get.headers["allow"], "POST")
        let nowhere = h.send("/no/such/path", headers: [("ttl", "1")])
        XCTAssertEqual(nowhere.status, 404)
        XCTAssertEqual(try JSONValue.parse(nowhere.body)["errno"], 102)
        // The registered token under another service's path shape.
        XCTAssertEqual(try h.push(sub, path: "/fcm/send/" + sub.token).status, 404)
        XCTAssertEqual(h.last?.decidedBy.stage, .validation)
    }

    func testFaultRuleReasonsInTheRequestsServiceStyle() throws {
        let h = WebPushHarness()
        let f = try h.subscribe(.fcm, id: "f")
        let a = try h.subscribe(.apple, id: "a")
        let m = try h.subscribe(.mozilla, id: "m")
        try h.double.faults.add(FaultRule(id: "gone", match: FaultMatch(device: "f"), action: .respond(ResponseSpec(reason: "unsubscribed")), times: 1))
        XCTAssertEqual(text(try h.push(f)), "push subscription has unsubscribed or expired.\n")
        XCTAssertEqual(try h.push(f).status, 201, "times: 1")
        try h.double.faults.add(FaultRule(id: "odd", match: FaultMatch(device: "a"), action: .respond(ResponseSpec(reason: "BadWebPushTopic", status: 400)), times: 1))
        let odd = try h.push(a)
        XCTAssertEqual(odd.status, 400)
        XCTAssertEqual(text(odd), #"{"reason":"BadWebPushTopic"}"#)
        try h.double.faults.add(FaultRule(id: "vapid", match: FaultMatch(device: "m"), action: .respond(ResponseSpec(reason: "vapidExpired")), times: 1))
        let v = try h.push(m)
        XCTAssertEqual(v.status, 401)
        XCTAssertEqual(try JSONValue.parse(v.body)["message"], "Invalid VAPID expiry")
        try h.double.faults.add(FaultRule(id: "slow", match: FaultMatch(device: "m"),
                                          action: .respond(ResponseSpec(reason: "throttled", headers: [.init("Retry-After", "7")])), times: 1))
        let t = try h.push(m)
        XCTAssertEqual(t.status, 503)
        XCTAssertEqual(t.headers.values(name: "retry-after"), ["7"])
        XCTAssertEqual(try JSONValue.parse(t.body)["errno"], 201)
        // The service is the request's environment: a rule can aim at one service.
        try h.double.faults.add(FaultRule(id: "apple-only", match: FaultMatch(environment: "apple"), action: .respond(ResponseSpec(reason: "expired"))))
        XCTAssertEqual(try h.push(m).status, 201)
        XCTAssertEqual(try h.push(a).status, 410)
    }

    func testUnknownReasonResponseUsesTheDefaultServiceShape() {
        let moz = WebPushFake()
        XCTAssertEqual(text(moz.unknownReasonResponse(reason: "Boom", status: 502, headers: [:])),
                       #"{"code":502,"errno":null,"error":"Error","message":"Boom","more_info":"http://autopush.readthedocs.io/en/latest/http.html#error-codes"}"#)
        var c = WebPushFakeConfiguration()
        c.defaultService = .apple
        XCTAssertEqual(text(WebPushFake(configuration: c).unknownReasonResponse(reason: "Boom", status: 500, headers: [:])), #"{"reason":"Boom"}"#)
    }

    func testEndpointPathShapes() {
        XCTAssertEqual(WebPushEndpointPath.parse("/wpush/v2/abc"), WebPushEndpointPath(service: .mozilla, token: "abc", restricted: true))
        XCTAssertEqual(WebPushEndpointPath.parse("/fcm/send/a-b_c"), WebPushEndpointPath(service: .fcm, token: "a-b_c", restricted: false))
        XCTAssertEqual(WebPushEndpointPath.parse("/abc")?.service, .apple)
        XCTAssertEqual(WebPushEndpointPath.parse("/w/?token=abc")?.service, .wns)
        for bad in ["/", "/wpush/v3/abc", "/fcm/send/", "/a/b", "/abc?x=1", "/w/?token=", "/a+b", "wpush/v1/abc"] {
            XCTAssertNil(WebPushEndpointPath.parse(bad), bad)
        }
        for s in WebPushService.allCases {
            XCTAssertEqual(WebPushEndpointPath.parse(s.endpointPath(token: "tok", restricted: false))?.service, s)
        }
        XCTAssertEqual(WebPushEndpointPath.parseEndpoint("https://127.0.0.1:8726/fcm/send/t")?.origin, "https://127.0.0.1:8726")
        XCTAssertNil(WebPushEndpointPath.parseEndpoint("http://127.0.0.1/fcm/send/t"))
    }
}

final class VAPIDSignatureCacheTests: XCTestCase {
    func testRemembersOnlyVerifiedSignaturesAndStillChecksClaims() throws {
        let cache = VAPIDSignatureCache()
        let v = WebPushRequestValidator(signatureCache: cache)
        let sub = try WebPushSubscription(service: .mozilla)
        let key = try vapidTestKey()
        let k = Base64URL.encode(try key.publicKey.rawRepresentation)
        let jwt = try vapidJWT(goodClaims(), key: key)
        let r = try aes128gcmRequest(sub).adding("Authorization", "vapid t=\(jwt), k=\(k)")
        XCTAssertNotNil(try v.validate(r, for: sub, now: testNow).vapid)
        XCTAssertNotNil(try v.validate(r, for: sub, now: testNow).vapid)
        XCTAssertEqual(cache.count, 1)
        // The claims are checked on every request: 13 h later the remembered token has expired.
        XCTAssertThrowsError(try v.validate(r, for: sub, now: testNow + 13 * 3600)) { XCTAssertEqual(($0 as? WebPushRejection)?.rule, .vapidExpired) }
        // A tampered signature is another cache key: verified, refused, not remembered.
        var chars = Array(jwt)
        let i = chars.count - 10
        chars[i] = chars[i] == "A" ? "B" : "A"
        let forged = try aes128gcmRequest(sub).adding("Authorization", "vapid t=\(String(chars)), k=\(k)")
        XCTAssertThrowsError(try v.validate(forged, for: sub, now: testNow)) { XCTAssertEqual(($0 as? WebPushRejection)?.rule, .vapidSignatureInvalid) }
        XCTAssertEqual(cache.count, 1)
    }
}
