import Foundation
import XCTest
import PushDoubleCore
import PushDoubleTransport
import PushDoubleCrypto
@testable import PushDoubleAPNs
import PushDouble

/// A ConnectionControl with no transport behind it: records what the fake asked for.
final class FakeConnection: ConnectionControl {
    var info: ConnectionInfo
    var version: HTTPVersion = .http2
    var storage: AnyObject?
    var settingsUpdates: [UInt32?] = []
    var closes: [(HTTP2ErrorCode, [UInt8])] = []
    init(id: UInt64 = 1, listener: String = "apns-production", sni: String? = nil) {
        info = ConnectionInfo(id: id, listener: listener, peer: "127.0.0.1:50000", localPort: 2197,
                              tls: TLSInfo(version: "TLSv1.3", alpn: "h2", serverName: sni, cipher: nil),
                              acceptedAt: Date(timeIntervalSince1970: 0))
    }
    func updateSettings(maxConcurrentStreams: UInt32?) { settingsUpdates.append(maxConcurrentStreams) }
    func closeGracefully(errorCode: HTTP2ErrorCode, debugData: [UInt8]) { closes.append((errorCode, debugData)) }
}

enum Fixture {
    static let token = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
    static let topic = "com.example.pushdouble"

    static func request(method: String = "POST", path: String? = nil, token: String = Fixture.token,
                        headers: [(String, String)] = [("apns-topic", Fixture.topic)],
                        body: String = #"{"aps":{"alert":"hi"}}"#, authority: String? = "localhost",
                        connection: ConnectionControl? = nil) -> HTTPRequest {
        let conn = connection?.info ?? FakeConnection().info
        let info = RequestInfo(connection: conn, streamID: 1, version: .http2, headReceivedAt: Date(), bodyReceivedAt: Date())
        return HTTPRequest(method: method, path: path ?? "/3/device/\(token)", scheme: "https", authority: authority,
                           headers: HTTPHeaders(headers), body: Array(body.utf8), info: info)
    }
}

extension XCTestCase {
    func assertReason(_ request: HTTPRequest, _ expected: APNsReason?, file: StaticString = #filePath, line: UInt = #line) {
        let (_, reason) = APNsRequestValidator.checkHeaders(request)
        XCTAssertEqual(reason, expected, file: file, line: line)
    }
}

/// A signing key the tests mint JWTs with.
struct TestKey {
    let keyID: String
    let teamID: String
    let privateKey: P256PrivateKey

    init(keyID: String = "KEY1234567", teamID: String = "TEAM123456") {
        self.keyID = keyID; self.teamID = teamID
        privateKey = try! P256PrivateKey.generate()
    }

    func signingKey(environments: APNsKeyEnvironments = .both, topics: Set<String>? = nil, family: String? = nil) -> APNsSigningKey {
        APNsSigningKey(keyID: keyID, teamID: teamID, publicKey: try! privateKey.publicKey, environments: environments,
                       topics: topics, family: family)
    }

    func jwt(iat: Int64, claims extra: [(String, JOSEValue)] = [], kid: String? = nil, iss: String? = nil) -> String {
        let claims = JOSEObject([("iss", .string(iss ?? teamID)), ("iat", .int(iat))] + extra)
        return try! JWT.signES256(keyID: kid ?? keyID, claims: claims, key: privateKey)
    }
}

/// The APNs fake behind the real core pipeline, with a manual clock and fake connections.
final class APNsHarness {
    let clock = ManualClock()
    let key = TestKey()
    let double: DoubleState
    let fake: APNsFake
    let production: DoublePipeline
    let sandbox: DoublePipeline

    init(configure: (inout APNsConfiguration) -> Void = { _ in }, extraKeys: [APNsSigningKey] = []) {
        var config = APNsConfiguration(keys: [key.signingKey()] + extraKeys, allowedBundleIDs: [Fixture.topic])
        configure(&config)
        double = DoubleState(clock: clock)
        fake = APNsFake(configuration: config, clock: clock)
        production = double.pipeline(for: fake, environment: "production")
        sandbox = double.pipeline(for: fake, environment: "sandbox")
    }

    var now: Int64 { Int64(clock.now().timeIntervalSince1970) }
    private var cachedJWT: String?
    /// The harness's current token (minted once, reused like a good sender does).
    func jwt() -> String {
        if let j = cachedJWT { return j }
        let j = key.jwt(iat: now)
        cachedJWT = j
        return j
    }
    /// A fresh token with `iat = now + offset`.
    func mint(_ offset: Int64 = 0) -> String { key.jwt(iat: now + offset) }

    /// Sends one request and returns the response the pipeline decided (unwrapping `.respond`).
    @discardableResult
    func send(token: String = Fixture.token, path: String? = nil, method: String = "POST",
              headers: [(String, String)]? = nil, authorization: String? = nil, omitAuthorization: Bool = false, body: String = #"{"aps":{"alert":"hi"}}"#,
              authority: String? = "localhost", connection: FakeConnection, file: StaticString = #filePath, line: UInt = #line) -> HTTPResponse {
        var h = headers ?? [("apns-topic", Fixture.topic)]
        if !omitAuthorization { h.insert(("authorization", authorization ?? "bearer \(jwt())"), at: 0) }
        let request = Fixture.request(method: method, path: path, token: token, headers: h, body: body, authority: authority, connection: connection)
        let pipeline = connection.info.listener == "apns-sandbox" ? sandbox : production
        let action = pipeline.respond(to: request, context: RequestContext(connection: connection))
        guard case .respond(let r) = action else {
            XCTFail("expected a response, got \(action)", file: file, line: line)
            return HTTPResponse(status: 0)
        }
        return r
    }
}

/// The `reason` of an APNs error body.
func reason(_ r: HTTPResponse) -> String? {
    guard let v = try? APNsPayloadDecoder.decode(r.body).get() else { return nil }
    return v["reason"]?.stringValue
}

extension XCTestCase {
    /// The fake as `pushdouble serve --ephemeral` runs it, in process: both APNs listeners on
    /// ephemeral ports, the shipped certificate and key, no admin listener; stopped at teardown.
    func startShippedAPNsServer() throws -> PushDoubleServer {
        // The shipped (embedded) credentials are the configuration's default.
        var config = PushDoubleConfiguration.ephemeral(fakes: APNsFake.listenerSpecs())
        config.admin = false
        config.eventLoopCount = 1
        let server = PushDoubleServer(configuration: config)
        try server.start()
        addTeardownBlock { server.stop() }
        return server
    }
}
