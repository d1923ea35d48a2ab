import Foundation
import XCTest
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport
@testable import PushDoubleFCM

/// A ConnectionControl with no transport behind it.
final class FCMTestConnection: ConnectionControl {
    var info: ConnectionInfo
    var version: HTTPVersion = .http2
    var storage: AnyObject?
    init(listener: String, sni: String? = nil) {
        info = ConnectionInfo(id: 1, listener: listener, peer: "127.0.0.1:50000", localPort: 8724,
                              tls: TLSInfo(version: "TLSv1.3", alpn: "h2", serverName: sni, cipher: nil),
                              acceptedAt: Date(timeIntervalSince1970: 0))
    }
    func updateSettings(maxConcurrentStreams: UInt32?) {}
    func closeGracefully(errorCode: HTTP2ErrorCode, debugData: [UInt8]) {}
}

/// The FCM fake behind the real core pipeline, with a manual clock: mints access tokens with
/// the shipped service account and sends messages, as a sender would.
final class FCMHarness {
    static let project = "pushdouble-test"
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    let clock = ManualClock()
    let double: DoubleState
    let fake: FCMFake
    let pipeline: DoublePipeline
    let account: GoogleServiceAccount
    let key: RSAPrivateKey

    init(_ configure: (inout FCMConfiguration) -> Void = { _ in }) throws {
        var c = FCMConfiguration()
        configure(&c)
        double = DoubleState(clock: clock)
        fake = try FCMFake(configuration: c)
        pipeline = double.pipeline(for: fake)
        account = FCMConfiguration.shippedServiceAccount
        key = try account.privateKey()
    }

    var now: Int64 { Int64(clock.now().timeIntervalSince1970) }

    func request(_ path: String, method: String = "POST", listener: String, authority: String? = nil,
                 headers: [(String, String)] = [], body: [UInt8]) -> HTTPRequest {
        let info = RequestInfo(connection: FCMTestConnection(listener: listener).info, streamID: 1, version: .http2,
                               headReceivedAt: Date(), bodyReceivedAt: Date())
        return HTTPRequest(method: method, path: path, scheme: "https", authority: authority ?? "127.0.0.1:8723",
                           headers: HTTPHeaders(headers), body: body, info: info)
    }

    /// The pipeline's answer to `request` (unwrapping `.respond`).
    func answer(_ request: HTTPRequest, file: StaticString = #filePath, line: UInt = #line) -> HTTPResponse {
        let action = pipeline.respond(to: request, context: RequestContext(connection: FCMTestConnection(listener: request.info.connection.listener)))
        guard case .respond(let r) = action else {
            XCTFail("expected a response, got \(action)", file: file, line: line)
            return HTTPResponse(status: 0)
        }
        return r
    }

    /// An RS256 assertion of the shipped account (docs/fcm.md §6.2), with claim overrides.
    func assertion(_ overrides: [(String, JSONValue?)] = [], key: RSAPrivateKey? = nil) throws -> String {
        var c: JOSEObject = ["iss": .string(account.clientEmail), "scope": .string(Self.scope),
                             "aud": .string(GoogleTokenEndpoint.googleTokenURL), "iat": .int(now), "exp": .int(now + 3600)]
        for (k, v) in overrides { c[k] = v }
        return try JWT.signRS256(keyID: account.privateKeyID, claims: c, key: key ?? self.key)
    }

    /// `POST /token` on the google-oauth listener.
    func tokenRequest(_ assertion: String, authority: String = "127.0.0.1:8724") -> HTTPRequest {
        request("/token", listener: FCMFake.tokenListener, authority: authority,
                headers: [("content-type", "application/x-www-form-urlencoded")],
                body: Array("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)".utf8))
    }

    /// Mints an access token through the token endpoint.
    func mint(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let r = answer(tokenRequest(try assertion()), file: file, line: line)
        XCTAssertEqual(r.status, 200, String(decoding: r.body, as: UTF8.self), file: file, line: line)
        return try XCTUnwrap(JSONValue.parse(r.body)["access_token"]?.stringValue, file: file, line: line)
    }

    /// `POST /v1/projects/{project}/messages:send` with `message` members.
    func send(_ message: String, project: String = FCMHarness.project, bearer: String?, extra: String = "") -> HTTPRequest {
        var headers = [("content-type", "application/json")]
        if let bearer { headers.insert(("authorization", "Bearer \(bearer)"), at: 0) }
        return request("/v1/projects/\(project)/messages:send", listener: FCMFake.sendListener, headers: headers,
                       body: Array("{\"message\":{\(message)}\(extra)}".utf8))
    }
}

/// The `error` object of a Google envelope.
func googleError(_ r: HTTPResponse) -> JSONValue? { (try? JSONValue.parse(r.body))?["error"] }

/// The FcmError `errorCode` of a Google envelope.
func fcmErrorCode(_ r: HTTPResponse) -> String? {
    googleError(r)?["details"]?.arrayValue?.first { $0["@type"]?.stringValue == GoogleErrorDetail.fcmErrorType }?["errorCode"]?.stringValue
}
