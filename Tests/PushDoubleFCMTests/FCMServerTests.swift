import Foundation
import XCTest
import PushDoubleTestSupport
import PushDoubleCore
import PushDoubleCrypto
import PushDouble
@testable import PushDoubleFCM

/// The FCM fake as `pushdouble serve --ephemeral` runs it, in process, over real sockets:
/// both listeners (TLS, ALPN h2 and http/1.1), the sender material, the admin routes,
/// driven by curl with the test CA.
final class FCMServerTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "curl") }

    struct Running {
        let server: PushDoubleServer
        let kit: SenderKit
        var fcm: DoubleEndpoint
        var oauth: DoubleEndpoint
        var admin: DoubleEndpoint
        var ca: String { kit.caFile ?? "" }
    }

    func start() throws -> Running {
        var config = PushDoubleConfiguration.ephemeral()
        config.modules = [FCMModule()]
        config.eventLoopCount = 1
        let server = PushDoubleServer(configuration: config)
        try server.start()
        let kit = try server.senderKit()
        addTeardownBlock { server.stop(); kit.remove() }
        return Running(server: server, kit: kit, fcm: try XCTUnwrap(server.endpoint(named: "fcm")),
                       oauth: try XCTUnwrap(server.endpoint(named: "google-oauth")), admin: try XCTUnwrap(server.endpoint(named: "admin")))
    }

    func env(_ kit: SenderKit, _ name: String) -> String? { kit.environment.first { $0.0 == name }?.1 }

    /// An assertion signed with the shipped key, `aud` = the token URL (docs/fcm.md §6.2).
    func assertion(audience: String) throws -> String {
        let sa = FCMConfiguration.shippedServiceAccount
        let now = Int64(Date().timeIntervalSince1970)
        let claims: JOSEObject = ["iss": .string(sa.clientEmail), "scope": .string(FCMHarness.scope), "aud": .string(audience),
                                  "iat": .int(now), "exp": .int(now + 3600)]
        return try JWT.signRS256(keyID: sa.privateKeyID, claims: claims, key: try sa.privateKey())
    }

    /// curl with the test CA; returns (status, body).
    func curl(_ s: Running, _ http: String, _ url: String, _ extra: [String]) throws -> (Int, String, String) {
        let r = try runCommand(["curl", "-sS", http, "--cacert", s.ca, "-o", "-", "-w", "\n%{http_code} %{http_version}", url] + extra)
        XCTAssertEqual(r.status, 0, r.stderr)
        var lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let last = lines.removeLast().split(separator: " ")
        return (Int(last.first ?? "") ?? 0, lines.joined(separator: "\n"), last.count > 1 ? String(last[1]) : "")
    }

    func testSenderMaterial() throws {
        let s = try start()
        let tokenURL = s.oauth.url + "/token"
        XCTAssertEqual(env(s.kit, "FCM_URL"), s.fcm.url)
        XCTAssertEqual(env(s.kit, "FCM_PROJECT_ID"), "pushdouble-test")
        XCTAssertEqual(env(s.kit, "GOOGLE_OAUTH_TOKEN_URL"), tokenURL)
        let file = try XCTUnwrap(env(s.kit, "FCM_SERVICE_ACCOUNT_FILE"))
        XCTAssertEqual(env(s.kit, "GOOGLE_APPLICATION_CREDENTIALS"), file)
        let sa = try GoogleServiceAccount(json: Array(try Data(contentsOf: URL(fileURLWithPath: file))))
        XCTAssertEqual(sa.tokenURI, tokenURL)
        XCTAssertEqual(sa.privateKeyPEM, FCMConfiguration.shippedServiceAccount.privateKeyPEM)
        XCTAssertEqual(sa.clientEmail, FCMConfiguration.shippedServiceAccount.clientEmail)
        let params = try XCTUnwrap(s.kit.providers.first { $0.id == "fcm" }?.parameters)
        XCTAssertEqual(params["url"], .string(s.fcm.url))
        XCTAssertEqual(params["serviceAccountFile"], .string(file))
        XCTAssertEqual(params["projectId"], "pushdouble-test")
        XCTAssertEqual(s.fcm.provider, .fcm)
        XCTAssertEqual(s.oauth.provider, .fcm)
    }

    func testMintAndSendOverHTTP1AndH2WithCurl() throws {
        let s = try start()
        let tokenURL = s.oauth.url + "/token"
        for http in ["--http1.1", "--http2"] {
            let (status, body, version) = try curl(s, http, tokenURL, [
                "--data-urlencode", "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer",
                "--data-urlencode", "assertion=" + (try assertion(audience: tokenURL))])
            XCTAssertEqual(status, 200, body)
            XCTAssertEqual(version, http == "--http2" ? "2" : "1.1")
            let token = try XCTUnwrap(JSONValue.parse(body)["access_token"]?.stringValue)
            let sendURL = s.fcm.url + "/v1/projects/pushdouble-test/messages:send"
            let (sent, answer, sentVersion) = try curl(s, http, sendURL, [
                "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json",
                "--data", #"{"message":{"token":"curl-token","notification":{"title":"t","body":"b"}}}"#])
            XCTAssertEqual(sent, 200, answer)
            XCTAssertEqual(sentVersion, version)
            XCTAssertTrue(answer.contains("\"name\": \"projects/pushdouble-test/messages/0:"), answer)
            let (gone, goneBody, _) = try curl(s, http, sendURL, [
                "-H", "Authorization: Bearer \(token)", "--data", #"{"message":{"token":"pushdouble-fcm-404-curl"}}"#])
            XCTAssertEqual(gone, 404)
            XCTAssertEqual(goneBody, String(decoding: GoogleErrorEnvelope.unregistered.body(), as: UTF8.self))
        }
        // The real host names by SNI and Host, as for APNs.
        let (status, _, _) = try curl(s, "--http2", "https://oauth2.googleapis.com:\(s.oauth.port)/token", [
            "--resolve", "oauth2.googleapis.com:\(s.oauth.port):127.0.0.1",
            "--data-urlencode", "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer",
            "--data-urlencode", "assertion=" + (try assertion(audience: GoogleTokenEndpoint.googleTokenURL))])
        XCTAssertEqual(status, 200)
        let history = s.server.history.all
        XCTAssertEqual(history.filter { $0.endpoint == "oauth.token" && $0.response.status == 200 }.count, 3)
        XCTAssertEqual(Set(history.map(\.transport.version)), [.http1_1, .http2])
    }

    func testAdminRoutesRevokeAndAddAccounts() throws {
        let s = try start()
        let tokenURL = s.oauth.url + "/token"
        let (_, body, _) = try curl(s, "--http2", tokenURL, [
            "--data-urlencode", "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer",
            "--data-urlencode", "assertion=" + (try assertion(audience: tokenURL))])
        let token = try XCTUnwrap(JSONValue.parse(body)["access_token"]?.stringValue)
        let sendURL = s.fcm.url + "/v1/projects/pushdouble-test/messages:send"
        let message = #"{"message":{"topic":"news","data":{"k":"v"}}}"#
        XCTAssertEqual(try curl(s, "--http2", sendURL, ["-H", "Authorization: Bearer \(token)", "--data", message]).0, 200)
        let revoke = try runCommand(["curl", "-sS", "-X", "POST", s.admin.url + "/fcm/tokens/revoke", "--data", #"{"token":"\#(token)"}"#])
        XCTAssertEqual(revoke.stdout, #"{"revoked":1}"# + "\n")
        let (status, refused, _) = try curl(s, "--http2", sendURL, ["-H", "Authorization: Bearer \(token)", "--data", message])
        XCTAssertEqual(status, 401)
        XCTAssertEqual(refused, String(decoding: GoogleErrorEnvelope.invalidCredentials.body(), as: UTF8.self))

        // A second account for another project, through the admin API.
        let key = try RSAPrivateKey.generate(bits: 2048)
        let other = JSONValue.object([("type", "service_account"), ("project_id", "second-project"),
                                      ("private_key_id", "k2"), ("private_key", .string(try key.pem)),
                                      ("client_email", "second@second-project.iam.gserviceaccount.com")])
        let added = try runCommand(["curl", "-sS", "-X", "POST", s.admin.url + "/fcm/accounts", "--data-binary", other.compactJSON])
        XCTAssertEqual(added.stdout, #"{"clientEmail":"second@second-project.iam.gserviceaccount.com","projects":["second-project"]}"# + "\n")
        let now = Int64(Date().timeIntervalSince1970)
        let claims: JOSEObject = ["iss": "second@second-project.iam.gserviceaccount.com", "scope": .string(FCMHarness.scope),
                                  "aud": .string(tokenURL), "iat": .int(now), "exp": .int(now + 3600)]
        let (minted, secondBody, _) = try curl(s, "--http2", tokenURL, [
            "--data-urlencode", "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer",
            "--data-urlencode", "assertion=" + (try JWT.signRS256(keyID: "k2", claims: claims, key: key))])
        XCTAssertEqual(minted, 200, secondBody)
        let second = try XCTUnwrap(JSONValue.parse(secondBody)["access_token"]?.stringValue)
        XCTAssertEqual(try curl(s, "--http2", s.fcm.url + "/v1/projects/second-project/messages:send",
                                ["-H", "Authorization: Bearer \(second)", "--data", message]).0, 200)
        XCTAssertEqual(try curl(s, "--http2", sendURL, ["-H", "Authorization: Bearer \(second)", "--data", message]).0, 403)
    }

    func testModuleOptions() throws {
        let m = FCMModule()
        let ctx = ProviderBuildContext(clock: SystemClock(), optionsPath: "fakeOptions.fcm")
        let c = try m.configuration(options: try JSONValue.parse(#"{"accessTokenLifetimeSeconds":5,"clockSkewSeconds":0,"invalidTokenBody":"legacy","projectNumbers":["42"]}"#), context: ctx)
        XCTAssertEqual(c.accessTokenLifetimeSeconds, 5)
        XCTAssertEqual(c.tokenEndpoint.clockSkew, 0)
        XCTAssertEqual(c.invalidTokenEnvelope, .invalidRegistrationTokenLegacy)
        XCTAssertEqual(c.projectNumbers, ["42"])
        XCTAssertThrowsError(try m.configuration(options: try JSONValue.parse(#"{"accessTokenLifetimeSeconds":0}"#), context: ctx))
        XCTAssertThrowsError(try m.configuration(options: try JSONValue.parse(#"{"bogus":1}"#), context: ctx)) {
            XCTAssertTrue("\($0)".contains("fakeOptions.fcm.bogus"), "\($0)")
        }
        var device = Device(id: "d", provider: .fcm, token: "t", environment: "sandbox")
        XCTAssertThrowsError(try m.validateDevice(&device))
    }
}
