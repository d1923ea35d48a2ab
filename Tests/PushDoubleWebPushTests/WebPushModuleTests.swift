import Foundation
import XCTest
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport
@testable import PushDoubleWebPush

/// The module's device schema, options, sender material and admin routes, in memory.
final class WebPushModuleTests: XCTestCase {
    let module = WebPushModule()

    func device(_ json: String) throws -> Device { try JSONDecoder().decode(Device.self, from: Data(json.utf8)) }

    func browserDevice(id: String = "d", endpoint: String? = nil, privateKey: Bool = true, extra: String = "") throws -> (Device, WebPushSubscription) {
        let s = try WebPushSubscription(service: .fcm, origin: "https://127.0.0.1:8726")
        let scalar = Base64URL.encode(try s.privateKey.rawPrivateScalar)
        let json = """
        {"id":"\(id)","provider":"webpush","subscription":{"endpoint":"\(endpoint ?? s.endpoint)","expirationTime":null,\
        "keys":{"p256dh":"\(s.p256dh)","auth":"\(s.auth)"}}\(privateKey ? ",\"privateKey\":\"\(scalar)\"" : "")\(extra)}
        """
        return (try device(json), s)
    }

    func assertSchemaError(_ d: Device, _ field: String, file: StaticString = #filePath, line: UInt = #line) {
        var d = d
        XCTAssertThrowsError(try module.validateDevice(&d), file: file, line: line) { e in
            XCTAssertEqual((e as? DeviceSchemaError)?.field, field, "\(e)", file: file, line: line)
        }
    }

    func testDeviceSchemaDerivesTheTokenAndDecodesTheKeys() throws {
        var (d, s) = try browserDevice()
        try module.validateDevice(&d)
        XCTAssertEqual(d.token, s.token)
        let parsed = try WebPushDeviceSchema.parse(d)
        XCTAssertEqual(parsed.endpoint.path.service, .fcm)
        // Re-homed: the double's own origin is dropped, the bare path is kept (no stale port).
        XCTAssertNil(parsed.endpoint.origin)
        XCTAssertEqual(d.attributes["subscription"]?["endpoint"]?.stringValue, "/fcm/send/" + s.token)
        XCTAssertEqual(WebPushDeviceSchema.resolvedEndpoint("/fcm/send/" + s.token, origin: "https://127.0.0.1:9999"),
                       "https://127.0.0.1:9999/fcm/send/" + s.token)
        // A real service's origin is kept as it is.
        var real = try browserDevice(endpoint: "https://fcm.googleapis.com/fcm/send/" + s.token).0
        try module.validateDevice(&real)
        XCTAssertEqual(real.attributes["subscription"]?["endpoint"]?.stringValue, "https://fcm.googleapis.com/fcm/send/" + s.token)
        XCTAssertEqual(parsed.subscription?.authSecret, s.authSecret)
        XCTAssertNil(parsed.applicationServerKey)
        // A bare path is an endpoint too (scenario files do not know the bound port).
        var bare = try browserDevice(endpoint: "/wpush/v1/abc").0
        try module.validateDevice(&bare)
        XCTAssertEqual(bare.token, "abc")
        // Without the private key: accepted, nothing to decrypt with.
        var pub = try browserDevice(privateKey: false).0
        try module.validateDevice(&pub)
        XCTAssertNil(try WebPushDeviceSchema.parse(pub).subscription)
    }

    func testDeviceSchemaRefusals() throws {
        assertSchemaError(try browserDevice(endpoint: "https://127.0.0.1:8726/nope/x/y").0, "subscription.endpoint")
        assertSchemaError(try browserDevice(endpoint: "http://127.0.0.1:8726/fcm/send/x").0, "subscription.endpoint")
        assertSchemaError(try browserDevice(extra: #","colour":"red""#).0, "colour")
        assertSchemaError(try browserDevice(extra: #","applicationServerKey":"AAAA""#).0, "applicationServerKey")
        var (d, _) = try browserDevice()
        d.attributes["privateKey"] = .string(Base64URL.encode(try P256PrivateKey.generate().rawPrivateScalar))
        assertSchemaError(d, "privateKey")
        (d, _) = try browserDevice()
        d.token = "another"
        assertSchemaError(d, "token")
        assertSchemaError(try device(#"{"id":"x","provider":"webpush","subscription":{"endpoint":"/abc","keys":{"p256dh":"AAAA","auth":"AAAA"}}}"#),
                          "subscription.keys.p256dh")
        assertSchemaError(try device(#"{"id":"x","provider":"webpush","subscription":{"endpoint":"/abc","keys":{}},"x":1}"#), "x")
        assertSchemaError(try device(#"{"id":"x","provider":"webpush","token":"abc"}"#), "subscription")
    }

    func testOptions() throws {
        let context = ProviderBuildContext(clock: ManualClock(), file: "s.json", optionsPath: "fakeOptions.webpush")
        let c = try module.configuration(options: ["defaultService": "apple", "requireVAPID": true, "maxBodyBytes": 5000,
                                                   "fcmLocation": "omitted", "wnsSuccessStatus": 200], context: context)
        XCTAssertEqual(c.defaultService, .apple)
        XCTAssertTrue(c.validator(for: .fcm).requireVAPID)
        XCTAssertEqual(c.validator(for: .mozilla).maxBodyBytes, 5000)
        XCTAssertEqual(c.style.fcmLocation, .omitted)
        XCTAssertEqual(c.style.wnsSuccessStatus, 200)
        XCTAssertEqual(try module.configuration(options: nil, context: context).validator(for: .mozilla).maxBodyBytes, 5630)
        XCTAssertThrowsError(try module.configuration(options: ["colour": 1], context: context)) {
            XCTAssertTrue("\($0)".contains("fakeOptions.webpush.colour"), "\($0)")
        }
        XCTAssertThrowsError(try module.configuration(options: ["defaultService": "gcm"], context: context))
    }

    func testSenderMaterialIsTheShippedVAPIDKey() throws {
        let instance = try module.instantiate(options: nil, context: ProviderBuildContext(clock: ManualClock(), optionsPath: "webpush"))
        XCTAssertEqual(instance.listeners.map(\.name), ["webpush", "webpush-autopush"])
        XCTAssertEqual(instance.listeners.first?.alpn, ["h2", "http/1.1"])
        XCTAssertEqual(instance.listeners.first?.useTLS, true)
        XCTAssertNil(instance.listeners.first?.webSocket)
        XCTAssertEqual(instance.listeners.last?.useTLS, false, "plain ws for dom.push.testing.allowInsecureServerURL")
        XCTAssertNotNil(instance.listeners.last?.webSocket)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wp-material-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let endpoint = DoubleEndpoint(name: "webpush", provider: .webpush, environment: nil, url: "https://127.0.0.1:9999", host: "127.0.0.1", port: 9999)
        XCTAssertNil(try instance.senderMaterial(SenderMaterialContext(endpoints: [], caFile: nil, directory: dir)))
        let m = try XCTUnwrap(try instance.senderMaterial(SenderMaterialContext(endpoints: [endpoint], caFile: "/ca.pem", directory: dir)))
        XCTAssertEqual(m.environment.map(\.0), ["WEBPUSH_URL", "VAPID_PRIVATE_KEY_FILE", "VAPID_PUBLIC_KEY", "VAPID_SUBJECT"])
        XCTAssertEqual(m.environment[0].1, "https://127.0.0.1:9999")
        let pem = try String(contentsOfFile: m.environment[1].1, encoding: .utf8)
        XCTAssertEqual(Base64URL.encode(try P256PrivateKey(pem: pem).publicKey.rawRepresentation), m.environment[2].1)
        XCTAssertEqual(m.environment[2].1, try vapidTestPublicText(), "the shipped Certificates/ key")
        XCTAssertEqual(m.driverParameters["vapidPrivateKeyFile"]?.stringValue, m.environment[1].1)
        XCTAssertEqual(m.driverParameters["subject"], "mailto:pushdouble@example.com")
        XCTAssertEqual(m.driverParameters["caFile"], "/ca.pem")
        XCTAssertEqual(module.listenerDefaults.map(\.defaultPort), [8726, 8727])
    }

    // MARK: admin routes

    struct Admin {
        let double = DoubleState(clock: ManualClock())
        let api: AdminAPI
        let connection = WebPushTestConnection()
        init(bound: Bool = true) {
            double.devices.setSchema({ try WebPushDeviceSchema.validate(&$0) }, for: .webpush)
            let routes = WebPushAdminRoutes(double: double, defaultService: .mozilla, origin: { bound ? "https://127.0.0.1:8726" : nil })
            api = AdminAPI(double: double, providerRoutes: routes.routes)
        }
        func call(_ method: String, _ path: String, _ body: String = "") -> (Int, JSONValue) {
            let info = RequestInfo(connection: connection.info, streamID: 1, version: .http1_1, headReceivedAt: Date(), bodyReceivedAt: Date())
            let r = HTTPRequest(method: method, path: path, scheme: "http", authority: "127.0.0.1", headers: [:], body: Array(body.utf8), info: info)
            guard case .respond(let response) = api.respond(to: r, context: RequestContext(connection: connection)) else { return (0, .null) }
            return (response.status, (try? JSONValue.parse(response.body)) ?? .null)
        }
    }

    func testCreateSubscriptionLikeABrowser() throws {
        let a = Admin()
        let (status, sub) = a.call("POST", "/webpush/subscriptions", "{}")
        XCTAssertEqual(status, 201)
        XCTAssertEqual(sub.objectValue?.map(\.0), ["id", "endpoint", "expirationTime", "keys"])
        XCTAssertEqual(sub["expirationTime"], .null)
        let endpoint = try XCTUnwrap(sub["endpoint"]?.stringValue)
        XCTAssertTrue(endpoint.hasPrefix("https://127.0.0.1:8726/wpush/v1/"), endpoint)
        XCTAssertEqual(try Base64URL.decode(try XCTUnwrap(sub["keys"]?["p256dh"]?.stringValue)).count, 65)
        XCTAssertEqual(try Base64URL.decode(try XCTUnwrap(sub["keys"]?["auth"]?.stringValue)).count, 16)
        // It is a device of provider webpush, with the keys to decrypt.
        let id = try XCTUnwrap(sub["id"]?.stringValue)
        let d = try XCTUnwrap(a.double.devices.device(id: id))
        XCTAssertEqual(d.provider, .webpush)
        XCTAssertNotNil(try WebPushDeviceSchema.parse(d).subscription)
        XCTAssertEqual(a.call("GET", "/webpush/subscriptions/\(id)").1, sub)
        XCTAssertEqual(a.call("GET", "/webpush/subscriptions").1, [sub])

        let vapid = try vapidTestPublicText()
        let (s2, restricted) = a.call("POST", "/webpush/subscriptions", #"{"id":"r","service":"mozilla","applicationServerKey":"\#(vapid)"}"#)
        XCTAssertEqual(s2, 201)
        XCTAssertTrue(restricted["endpoint"]?.stringValue?.contains("/wpush/v2/") ?? false)
        for (service, shape) in [("fcm", "/fcm/send/"), ("apple", ":8726/"), ("wns", "/w/?token=")] {
            let (s, j) = a.call("POST", "/webpush/subscriptions", #"{"service":"\#(service)"}"#)
            XCTAssertEqual(s, 201)
            XCTAssertTrue(j["endpoint"]?.stringValue?.contains(shape) ?? false, "\(j)")
        }
    }

    func testCreateSubscriptionRefusals() {
        let a = Admin()
        XCTAssertEqual(a.call("POST", "/webpush/subscriptions", #"{"service":"gcm"}"#).0, 400)
        XCTAssertEqual(a.call("POST", "/webpush/subscriptions", #"{"applicationServerKey":"AAAA"}"#).0, 400)
        XCTAssertEqual(a.call("POST", "/webpush/subscriptions", #"{"colour":"red"}"#).0, 400)
        XCTAssertEqual(a.call("POST", "/webpush/subscriptions", "[1]").0, 400)
        XCTAssertEqual(a.call("POST", "/webpush/subscriptions", #"{"id":"x"}"#).0, 201)
        let (dup, e) = a.call("POST", "/webpush/subscriptions", #"{"id":"x"}"#)
        XCTAssertEqual(dup, 409)
        XCTAssertTrue(e["error"]?.stringValue?.contains("\"x\"") ?? false)
        XCTAssertEqual(a.call("GET", "/webpush/subscriptions/nope").0, 404)
        XCTAssertEqual(a.call("GET", "/webpush/subscriptions/nope/messages").0, 404)
        XCTAssertEqual(Admin(bound: false).call("POST", "/webpush/subscriptions").0, 503)
    }

    func testMessagesAreTheAcceptedDecryptedOnes() throws {
        let a = Admin()
        let fake = WebPushFake()
        let pipeline = a.double.pipeline(for: fake)
        let (_, sub) = a.call("POST", "/webpush/subscriptions", #"{"id":"m","service":"fcm"}"#)
        let endpoint = try XCTUnwrap(sub["endpoint"]?.stringValue)
        let path = String(endpoint.dropFirst("https://127.0.0.1:8726".count))
        let key = try P256PublicKey(rawRepresentation: Base64URL.decode(try XCTUnwrap(sub["keys"]?["p256dh"]?.stringValue)))
        let auth = try Base64URL.decode(try XCTUnwrap(sub["keys"]?["auth"]?.stringValue))
        func push(_ text: String, ttl: String) {
            let body = try! WebPushCipher.encrypt(plaintext: Array(text.utf8), uaPublicKey: key, authSecret: auth)
            let info = RequestInfo(connection: a.connection.info, streamID: 1, version: .http2, headReceivedAt: Date(), bodyReceivedAt: Date())
            let r = HTTPRequest(method: "POST", path: path, scheme: "https", authority: "127.0.0.1:8726",
                                headers: HTTPHeaders([("ttl", ttl), ("content-encoding", "aes128gcm"), ("urgency", "low")]), body: body, info: info)
            _ = pipeline.respond(to: r, context: RequestContext(connection: a.connection))
        }
        push("first", ttl: "10")
        push("refused", ttl: "-1")
        push("second", ttl: "20")
        let (status, list) = a.call("GET", "/webpush/subscriptions/m/messages")
        XCTAssertEqual(status, 200)
        let messages = try XCTUnwrap(list.arrayValue)
        XCTAssertEqual(messages.count, 2)
        XCTAssertEqual(messages.first?.objectValue?.map(\.0), ["receivedAt", "ttl", "urgency", "topic", "encoding", "payload"])
        XCTAssertEqual(messages.map { $0["payload"]?["data"] }, ["first", "second"])
        XCTAssertEqual(messages.map { $0["ttl"] }, [10, 20])
        XCTAssertEqual(messages.first?["urgency"], "low")
        XCTAssertEqual(messages.first?["receivedAt"], "2027-01-15T08:00:00.000Z")
    }
}
