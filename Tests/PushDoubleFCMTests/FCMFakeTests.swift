import Foundation
import XCTest
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport
@testable import PushDoubleFCM

/// The FCM fake through the core pipeline: token endpoint, Bearer checks, device states,
/// validation, validate_only, history, fault reasons (docs/fcm.md §1–§6).
final class FCMFakeTests: XCTestCase {
    static let okMessage = #""token":"dev-token-1","notification":{"title":"Hi","body":"There"},"data":{"k":"v"},"android":{"ttl":"60s"}"#

    func testMintThenSendRecordsBoth() throws {
        let h = try FCMHarness()
        let bearer = try h.mint()
        XCTAssertTrue(bearer.hasPrefix("ya29."))
        let r = h.answer(h.send(Self.okMessage, bearer: bearer))
        XCTAssertEqual(r.status, 200, String(decoding: r.body, as: UTF8.self))
        XCTAssertEqual(r.headers["content-type"], "application/json; charset=UTF-8")
        let name = try XCTUnwrap(JSONValue.parse(r.body)["name"]?.stringValue)
        XCTAssertTrue(name.hasPrefix("projects/pushdouble-test/messages/0:"), name)

        let history = h.double.history.all
        XCTAssertEqual(history.map(\.endpoint), ["oauth.token", "fcm.send"])
        let mint = history[0]
        XCTAssertEqual(mint.auth?.scheme, "oauth-assertion")
        XCTAssertEqual(mint.auth?.issuer, h.account.clientEmail)
        XCTAssertEqual(mint.annotations?["accessToken"]?["account"], .string(h.account.clientEmail))
        XCTAssertEqual(mint.annotations?["accessToken"]?["expiresAt"], .int(h.now + 3599))
        let send = history[1]
        XCTAssertEqual(send.token, "dev-token-1")
        XCTAssertEqual(send.topic, "pushdouble-test")
        XCTAssertEqual(send.auth?.scheme, "oauth-bearer")
        XCTAssertEqual(send.notification?["account"], .string(h.account.clientEmail))
        XCTAssertEqual(send.notification?["target"], .object([("token", "dev-token-1")]))
        XCTAssertEqual(send.notification?["notification"]?["title"], "Hi")
        XCTAssertEqual(send.notification?["data"], .object([("k", "v")]))
        XCTAssertEqual(send.notification?["android"]?["ttl"], "60s")
        XCTAssertEqual(send.notification?["validateOnly"], .bool(false))
    }

    func testBearerRefusals() throws {
        let h = try FCMHarness { $0.accessTokenLifetimeSeconds = 60 }
        let missing = h.answer(h.send(Self.okMessage, bearer: nil))
        XCTAssertEqual(missing.status, 401)
        XCTAssertEqual(missing.body, GoogleErrorEnvelope.missingCredential.body())
        let unknown = h.answer(h.send(Self.okMessage, bearer: "ya29.never-issued"))
        XCTAssertEqual(unknown.status, 401)
        XCTAssertEqual(unknown.body, GoogleErrorEnvelope.invalidCredentials.body())
        XCTAssertNil(googleError(unknown)?["details"], "fcm.md §4.3: no details on the OAuth 401")

        let bearer = try h.mint()
        XCTAssertEqual(h.answer(h.send(Self.okMessage, bearer: bearer)).status, 200)
        let other = h.answer(h.send(Self.okMessage, project: "someone-elses-project", bearer: bearer))
        XCTAssertEqual(other.status, 403)
        XCTAssertEqual(other.body, GoogleErrorEnvelope.permissionDenied(project: "someone-elses-project").body())
        // The project number stands for the project (docs/fcm.md §1).
        XCTAssertEqual(h.answer(h.send(Self.okMessage, project: FCMConfiguration.shippedProjectNumber, bearer: bearer)).status, 200)

        h.clock.advance(61)
        XCTAssertEqual(h.answer(h.send(Self.okMessage, bearer: bearer)).status, 401, "expired after accessTokenLifetimeSeconds")
        let fresh = try h.mint()
        XCTAssertEqual(h.answer(h.send(Self.okMessage, bearer: fresh)).status, 200)
        XCTAssertEqual(h.fake.accounts.store.revokeAll(clientEmail: h.account.clientEmail), 2, "the expired one and the fresh one")
        XCTAssertEqual(h.answer(h.send(Self.okMessage, bearer: fresh)).status, 401, "revoked")
        XCTAssertEqual(h.answer(h.send(Self.okMessage, bearer: "bearer-without-scheme")).status, 401)
        let basic = h.answer(h.request("/v1/projects/pushdouble-test/messages:send", listener: "fcm",
                                       headers: [("authorization", "Basic abc")], body: []))
        XCTAssertEqual(basic.body, GoogleErrorEnvelope.missingCredential.body())
    }

    /// A bearer accepted once is answered from the last-accepted entry next time: the same
    /// history identity, and still refused at once after a revocation, a new mint (which may
    /// evict), expiry, or for another project.
    func testRepeatedBearerKeepsItsIdentityAndIsRecheckedAfterChanges() throws {
        let h = try FCMHarness { $0.accessTokenLifetimeSeconds = 60 }
        let bearer = try h.mint()
        for _ in 0..<3 { XCTAssertEqual(h.answer(h.send(Self.okMessage, bearer: bearer)).status, 200) }
        let sends = h.double.history.all.filter { $0.endpoint == FCMFake.sendEndpoint }
        XCTAssertEqual(sends.count, 3)
        XCTAssertTrue(sends.allSatisfy { $0.auth != nil && $0.auth == sends[0].auth }, "one identity for the three sends")
        XCTAssertEqual(sends[0].auth?.extra["token"], String(bearer.prefix(12)) + "…")
        XCTAssertEqual(sends[0].auth?.valid, true)
        XCTAssertEqual(h.answer(h.send(Self.okMessage, project: "someone-elses-project", bearer: bearer)).status, 403)
        XCTAssertEqual(h.answer(h.send(Self.okMessage, bearer: bearer)).status, 200)
        XCTAssertTrue(h.fake.accounts.store.revoke(bearer))
        XCTAssertEqual(h.answer(h.send(Self.okMessage, bearer: bearer)).status, 401, "revoked after being accepted")
        let second = try h.mint()
        XCTAssertEqual(h.answer(h.send(Self.okMessage, bearer: second)).status, 200)
        h.clock.advance(59)
        XCTAssertEqual(h.answer(h.send(Self.okMessage, bearer: second)).status, 200)
        h.clock.advance(1)
        XCTAssertEqual(h.answer(h.send(Self.okMessage, bearer: second)).status, 401, "expired at issuedAt + 60 s")
    }

    func testDeviceStatesAndMagicTokens() throws {
        let h = try FCMHarness()
        let bearer = try h.mint()
        func send(_ token: String) -> HTTPResponse { h.answer(h.send(#""token":"\#(token)","data":{"k":"v"}"#, bearer: bearer)) }
        XCTAssertEqual(send("pushdouble-fcm-404-x").body, GoogleErrorEnvelope.unregistered.body())
        XCTAssertEqual(send("pushdouble-fcm-400-x").body, GoogleErrorEnvelope.invalidRegistrationToken.body())
        XCTAssertEqual(send("pushdouble-fcm-403").body, GoogleErrorEnvelope.senderIDMismatch.body())
        let quota = send("pushdouble-fcm-429-x")
        XCTAssertEqual(quota.status, 429)
        XCTAssertEqual(fcmErrorCode(quota), "QUOTA_EXCEEDED")
        XCTAssertEqual(quota.headers["retry-after"], "60")
        XCTAssertEqual(send("pushdouble-fcm-200-x").status, 200)
        XCTAssertEqual(send("pushdouble-fcm-4040").status, 200, "not magic: the code must be followed by - or end")

        _ = try h.double.devices.register(Device(id: "gone", provider: .fcm, token: "reg-gone", state: .unregistered(since: h.clock.now())))
        _ = try h.double.devices.register(Device(id: "other", provider: .fcm, token: "reg-other", topic: "another-project"))
        _ = try h.double.devices.register(Device(id: "mine", provider: .fcm, token: "reg-mine", topic: FCMHarness.project))
        XCTAssertEqual(fcmErrorCode(send("reg-gone")), "UNREGISTERED")
        XCTAssertEqual(fcmErrorCode(send("reg-other")), "SENDER_ID_MISMATCH")
        XCTAssertEqual(send("reg-mine").status, 200)
        XCTAssertEqual(h.double.history.all.last?.deviceID, "mine")
        h.double.devices.setWorld(.closed, for: .fcm)
        XCTAssertEqual(fcmErrorCode(send("never-registered")), "UNREGISTERED", "fcm.md §4.4: also for missing tokens")
        XCTAssertEqual(send("pushdouble-fcm-200-x").status, 200)
        XCTAssertEqual(send("tab\tin-token").status, 400, "malformed token")
    }

    func testValidationTopicsAndValidateOnly() throws {
        let h = try FCMHarness()
        let bearer = try h.mint()
        let reserved = h.answer(h.send(#""token":"t","data":{"from":"x"}"#, bearer: bearer))
        XCTAssertEqual(reserved.status, 400)
        XCTAssertEqual(h.double.history.all.last?.decidedBy.stage, .validation)
        let number = h.answer(h.send(#""token":"t","data":{"n":12}"#, bearer: bearer))
        XCTAssertEqual(googleError(number)?["message"], "Invalid value at 'message.data[0].value' (TYPE_STRING), 12")
        XCTAssertEqual(h.answer(h.send(#""data":{"k":"v"}"#, bearer: bearer)).body, GoogleErrorEnvelope.missingRecipient.body())

        let dry = h.answer(h.send(Self.okMessage, bearer: bearer, extra: #","validate_only":true"#))
        XCTAssertEqual(try JSONValue.parse(dry.body)["name"], "projects/pushdouble-test/messages/fake_message_id")
        XCTAssertEqual(h.double.history.all.last?.notification?["validateOnly"], .bool(true))
        let camel = h.answer(h.send(Self.okMessage, bearer: bearer, extra: #","validateOnly":true"#))
        XCTAssertEqual(try JSONValue.parse(camel.body)["name"], "projects/pushdouble-test/messages/fake_message_id")
        let notDry = h.answer(h.send(#""token":"t","data":{"validate_only":"true"}"#, bearer: bearer))
        XCTAssertNotEqual(try JSONValue.parse(notDry.body)["name"], "projects/pushdouble-test/messages/fake_message_id")

        let topic = h.answer(h.send(#""topic":"news","notification":{"title":"t"}"#, bearer: bearer))
        XCTAssertEqual(topic.status, 200)
        XCTAssertNil(h.double.history.all.last?.token)
        XCTAssertEqual(h.double.history.all.last?.notification?["target"], .object([("topic", "news")]))
        let condition = h.answer(h.send(#""condition":"'a' in topics && 'b' in topics","data":{"k":"v"}"#, bearer: bearer))
        XCTAssertEqual(condition.status, 200)

        let wrongPath = h.answer(h.request("/v1/projects/p/messages:sendAll", listener: "fcm", body: []))
        XCTAssertEqual(wrongPath.status, 404)
        XCTAssertEqual(googleError(wrongPath)?["status"], "NOT_FOUND")
    }

    func testTokenEndpointRefusalsAndAudiences() throws {
        let h = try FCMHarness()
        let wrongKey = try RSAPrivateKey.generate(bits: 2048)
        let bad = h.answer(h.tokenRequest(try h.assertion(key: wrongKey)))
        XCTAssertEqual(bad.status, 400)
        XCTAssertEqual(String(decoding: bad.body, as: UTF8.self), #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#)
        XCTAssertEqual(h.double.history.all.last?.response.reason, "invalid_grant")
        XCTAssertEqual(h.double.history.all.last?.decidedBy.detail, "badSignature")
        XCTAssertEqual(h.double.history.all.last?.auth?.valid, false)
        XCTAssertEqual(h.fake.accounts.store.count, 0)

        // aud: Google's URL, the shipped token_uri, or the URL the request reached.
        for aud in [GoogleTokenEndpoint.googleTokenURL, FCMTestCredentials.tokenURI, "https://127.0.0.1:41234/token"] {
            let r = h.answer(h.tokenRequest(try h.assertion([("aud", .string(aud))]), authority: "127.0.0.1:41234"))
            XCTAssertEqual(r.status, 200, aud)
        }
        let elsewhere = h.answer(h.tokenRequest(try h.assertion([("aud", "https://example.com/token")])))
        XCTAssertEqual(String(decoding: elsewhere.body, as: UTF8.self), #"{"error":"invalid_grant"}"#)
        // docs/fcm.md §6.3a: a valid non-FCM scope is minted; the send is refused for its scopes.
        let scope = h.answer(h.tokenRequest(try h.assertion([("scope", "https://www.googleapis.com/auth/userinfo.email")])))
        XCTAssertEqual(scope.status, 200)
        let narrow = try XCTUnwrap(try JSONValue.parse(scope.body)["access_token"]?.stringValue)
        let refused = h.answer(h.send(#""token":"t1""#, bearer: narrow))
        XCTAssertEqual(refused.status, 403)
        XCTAssertEqual(refused.body, GoogleErrorEnvelope.insufficientScopes.body())
        XCTAssertEqual(googleError(refused)?["message"], "Request had insufficient authentication scopes.")
        XCTAssertEqual(googleError(refused)?["status"], "PERMISSION_DENIED")
        let noScope = h.answer(h.tokenRequest(try h.assertion([("scope", "firebase.messaging")])))
        XCTAssertEqual(String(decoding: noScope.body, as: UTF8.self),
                       #"{"error":"invalid_scope","error_description":"Invalid OAuth scope or ID token audience provided."}"#)
        let stale = h.answer(h.tokenRequest(try h.assertion([("iat", .int(h.now - 7200)), ("exp", .int(h.now - 3600))])))
        XCTAssertEqual(try JSONValue.parse(stale.body)["error_description"]?.stringValue?.hasPrefix("Invalid JWT: Token must be a short-lived token"), true)
        let notFound = h.answer(h.request("/token", method: "GET", listener: "google-oauth", body: []))
        XCTAssertEqual(notFound.status, 404)
        XCTAssertEqual(h.fake.accounts.store.count, 4)
    }

    func testServiceChosenByAuthorityThenSNIThenListener() throws {
        let h = try FCMHarness()
        func service(_ authority: String?, _ listener: String, sni: String? = nil) -> FCMFake.FCMService {
            let info = RequestInfo(connection: FCMTestConnection(listener: listener, sni: sni).info, streamID: 1, version: .http2,
                                   headReceivedAt: Date(), bodyReceivedAt: Date())
            return h.fake.service(of: HTTPRequest(method: "POST", path: "/token", scheme: "https", authority: authority,
                                                  headers: HTTPHeaders(), body: [], info: info))
        }
        XCTAssertEqual(service("127.0.0.1:8723", "fcm"), .send)
        XCTAssertEqual(service("127.0.0.1:8724", "google-oauth"), .token)
        XCTAssertEqual(service("OAUTH2.googleapis.com", "fcm"), .token)
        XCTAssertEqual(service("fcm.googleapis.com:443", "google-oauth"), .send)
        XCTAssertEqual(service("localhost", "fcm", sni: "oauth2.googleapis.com"), .token)
        XCTAssertEqual(service(nil, "google-oauth"), .token)
    }

    func testFaultReasonsInGooglesShapes() throws {
        let h = try FCMHarness()
        let bearer = try h.mint()
        try h.double.faults.add(FaultRule(id: "q", match: FaultMatch(endpoint: "fcm.send", token: "q"),
                                          action: .respond(ResponseSpec(reason: "QUOTA_EXCEEDED", retryAfter: .seconds(7)))))
        try h.double.faults.add(FaultRule(id: "gfe", match: FaultMatch(endpoint: "fcm.send", token: "gfe"),
                                          action: .respond(ResponseSpec(reason: "BAD_GATEWAY"))))
        try h.double.faults.add(FaultRule(id: "odd", match: FaultMatch(endpoint: "fcm.send", token: "odd"),
                                          action: .respond(ResponseSpec(reason: "SOMETHING_ODD", status: 409))))
        try h.double.faults.add(FaultRule(id: "u", match: FaultMatch(endpoint: "fcm.send", token: "u"),
                                          action: .respond(ResponseSpec(reason: "UNAVAILABLE"))))
        func send(_ t: String) -> HTTPResponse { h.answer(h.send(#""token":"\#(t)","data":{"k":"v"}"#, bearer: bearer)) }
        let q = send("q")
        XCTAssertEqual(q.status, 429)
        XCTAssertEqual(q.headers["retry-after"], "7")
        XCTAssertEqual(googleError(q)?["status"], "RESOURCE_EXHAUSTED")
        let gfe = send("gfe")
        XCTAssertEqual(gfe.status, 502)
        XCTAssertEqual(gfe.body, Array(GoogleFrontEndErrorPage.badGatewayHTML.utf8))
        XCTAssertEqual(gfe.headers["content-type"], "text/html; charset=UTF-8")
        let odd = send("odd")
        XCTAssertEqual(odd.status, 409)
        XCTAssertEqual(googleError(odd)?["status"], "CONFLICT")
        XCTAssertEqual(googleError(odd)?["message"], "SOMETHING_ODD")
        XCTAssertEqual(send("u").body, GoogleErrorEnvelope.unavailable.body())

        // A fault on the token endpoint answers in its shape and mints nothing.
        try h.double.faults.add(FaultRule(id: "t", match: FaultMatch(endpoint: "oauth.token"),
                                          action: .respond(ResponseSpec(reason: "invalid_grant")), times: 1))
        let before = h.fake.accounts.store.count
        let refused = h.answer(h.tokenRequest(try h.assertion()))
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(String(decoding: refused.body, as: UTF8.self), #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#)
        XCTAssertEqual(h.fake.accounts.store.count, before)
        XCTAssertEqual(h.answer(h.tokenRequest(try h.assertion())).status, 200)
        XCTAssertEqual(h.fake.accounts.store.count, before + 1)
    }
}

/// A quota rule answers FCM's rate-limit reason with a truthful Retry-After.
final class FCMQuotaTests: XCTestCase {
    func testQuotaRuleAnswersQuotaExceededWithRetryAfter() throws {
        let h = try FCMHarness()
        let bearer = try h.mint()
        try h.double.faults.add(FaultRule(id: "quota", match: FaultMatch(endpoint: "fcm.send"),
                                          action: .quota(QuotaSpec(.fixedWindow(limit: 2, seconds: 60)))))
        let answers = (0..<3).map { _ in h.answer(h.send(#""token":"t","data":{"k":"v"}"#, bearer: bearer)) }
        XCTAssertEqual(answers.map(\.status), [200, 200, 429])
        XCTAssertEqual(fcmErrorCode(answers[2]), "QUOTA_EXCEEDED")
        XCTAssertEqual(googleError(answers[2])?["status"], "RESOURCE_EXHAUSTED")
        let retry = Int(answers[2].headers["retry-after"] ?? "") ?? -1
        XCTAssertTrue((1...60).contains(retry), "Retry-After \(retry)")
        XCTAssertEqual(h.double.history.all.last?.decidedBy.stage, .quota)
        // The token endpoint is not counted by a rule matching fcm.send.
        XCTAssertEqual(h.answer(h.tokenRequest(try h.assertion())).status, 200)
    }
}

/// The hand-written success body and message id are the writer's bytes.
final class FCMSendEndpointFastPathTests: XCTestCase {
    func testSuccessBodyFastPathMatchesTheWriter() {
        for name in ["projects/p/messages/0:1500415314455276%31bd1c9631bd1c96", "projects/a\"b/messages/x", "projects/é/messages/1", "projects/t\\ab/m"] {
            XCTAssertEqual(FCMSendEndpoint.successBody(name: name), JSONValue.object([("name", .string(name))]).serialized(.pretty), name)
        }
    }

    func testSuccessBodyFromProjectAndIDMatchesTheWriter() {
        for (project, id) in [("pushdouble-test", "0:1500415314455276%31bd1c9631bd1c96"), ("a\"b", "x"), ("é", "1"), ("t\\ab", "m"),
                              ("p", FCMSendEndpoint.validateOnlyMessageID), ("p", "ctl\u{1}")] {
            let name = FCMSendEndpoint.messageName(project: project, messageID: id)
            XCTAssertEqual(FCMSendEndpoint.successBody(project: project, messageID: id),
                           JSONValue.object([("name", .string(name))]).serialized(.pretty), name)
        }
    }

    func testSuccessBodyWithTheIDWrittenInPlaceMatches() {
        for project in ["pushdouble-test", "123456789", "a\"b", "é", ""] {
            for (t, tag) in [(UInt64(1_500_415_314_455_276), UInt64(0x31bd1c9631bd1c96)), (0, 0), (UInt64.max, UInt64.max)] {
                XCTAssertEqual(FCMSendEndpoint.successBody(project: project, timestampMicros: t, tag: tag),
                               FCMSendEndpoint.successBody(project: project, messageID: FCMSendEndpoint.messageID(timestampMicros: t, tag: tag)), project)
            }
        }
    }

    func testProjectFromRequestPathLeavesTheQueryOut() {
        XCTAssertEqual(FCMSendEndpoint.project(fromRequestPath: "/v1/projects/p-1/messages:send"), "p-1")
        XCTAssertEqual(FCMSendEndpoint.project(fromRequestPath: "/v1/projects/p-1/messages:send?n=1&a=/b"), "p-1")
        XCTAssertEqual(FCMSendEndpoint.project(fromRequestPath: "/v1/projects/é/messages:send?"), "é")
        XCTAssertNil(FCMSendEndpoint.project(fromRequestPath: "/v1/projects/p?x/messages:send"))
        XCTAssertNil(FCMSendEndpoint.project(fromRequestPath: "/v1/projects/a/b/messages:send"))
        XCTAssertNil(FCMSendEndpoint.project(fromRequestPath: "/v1/projects//messages:send"))
        XCTAssertNil(FCMSendEndpoint.project(fromRequestPath: "?/v1/projects/p/messages:send"))
        XCTAssertNil(FCMSendEndpoint.project(fromRequestPath: ""))
        XCTAssertNil(FCMSendEndpoint.project(fromRequestPath: "/v1/projects/messages:send?/v1/projects/p/messages:send"))
        XCTAssertEqual(FCMSendEndpoint.project(fromRequestPath: "/v1/projects/p/messages:send"), "p")
    }

    /// The byte rule (1–4096 bytes, each 0x21…0x7E), checked eight bytes at a time, at every
    /// position and length.
    func testWellFormedTokenEveryByteAtEveryPosition() {
        XCTAssertFalse(FCMFake.isWellFormedToken(""))
        XCTAssertTrue(FCMFake.isWellFormedToken(String(repeating: "a", count: 4096)))
        XCTAssertFalse(FCMFake.isWellFormedToken(String(repeating: "a", count: 4097)))
        for length in 1..<20 {
            for at in 0..<length {
                for (byte, ok) in [(0x00, false), (0x20, false), (0x21, true), (0x7E, true), (0x7F, false), (0x80, false), (0xFF, false)] as [(UInt8, Bool)] {
                    var bytes = [UInt8](repeating: 0x41, count: length)
                    bytes[at] = byte
                    let token = String(decoding: bytes, as: UTF8.self)  // 0x80/0xFF become U+FFFD: still not visible ASCII
                    XCTAssertEqual(FCMFake.isWellFormedToken(token), ok, "byte \(byte) at \(at) of \(length)")
                }
            }
        }
        XCTAssertFalse(FCMFake.isWellFormedToken("abcdefgh\u{e9}"))
    }

    func testHostNamesAnyCaseWithOrWithoutPort() {
        XCTAssertEqual(FCMFake.service(host: "fcm.googleapis.com"), .send)
        XCTAssertEqual(FCMFake.service(host: "FCM.GoogleAPIs.com:443"), .send)
        XCTAssertEqual(FCMFake.service(host: "oauth2.googleapis.com:8724"), .token)
        XCTAssertNil(FCMFake.service(host: "fcm.googleapis.co"))
        XCTAssertNil(FCMFake.service(host: "fcm.googleapis.com.evil"))
        XCTAssertNil(FCMFake.service(host: "127.0.0.1:8723"))
        XCTAssertNil(FCMFake.service(host: "[::1]:8723"))
        XCTAssertNil(FCMFake.service(host: ""))
    }

    func testMessageIDDigits() {
        XCTAssertEqual(FCMSendEndpoint.messageID(timestampMicros: 12_345_678_901_234_567_890, tag: 0xfedcba9876543210),
                       "0:5678901234567890%fedcba9876543210")
        XCTAssertEqual(FCMSendEndpoint.messageID(timestampMicros: 0, tag: 0), "0:0000000000000000%0000000000000000")
    }
}
