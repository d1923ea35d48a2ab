import Foundation
import XCTest
import Synchronization
import PushDoubleCrypto
import PushDoubleJSON
@testable import PushDoubleFCM

/// The service-account file, form decoding, the access-token store and the send path.
final class FCMOAuthSupportTests: XCTestCase {
    // MARK: Service account (docs/fcm.md §6.1)

    func testShippedServiceAccountParses() throws {
        let sa = try GoogleServiceAccount(json: Array(try shippedServiceAccountJSON()))
        XCTAssertEqual(sa.type, "service_account")
        XCTAssertEqual(sa.projectID, FCMTestCredentials.projectID)
        XCTAssertEqual(sa.clientEmail, FCMTestCredentials.clientEmail)
        XCTAssertEqual(sa.tokenURI, FCMTestCredentials.tokenURI)
        XCTAssertEqual(sa.authURI, "https://accounts.google.com/o/oauth2/auth")
        XCTAssertEqual(sa.universeDomain, "googleapis.com")
        XCTAssertEqual(sa.privateKeyID?.count, 40)
        XCTAssertEqual(sa.clientID.map { !$0.isEmpty && $0.allSatisfy(\.isNumber) }, true)
        XCTAssertNotNil(sa.authProviderX509CertURL)
        XCTAssertNotNil(sa.clientX509CertURL)
        XCTAssertTrue(sa.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let key = try sa.privateKey()
        XCTAssertEqual(key.bits, 2048)
        let sig = try key.signature(for: Array("x".utf8))
        XCTAssertNoThrow(try sa.publicKey().verify(signature: sig, for: Array("x".utf8)))
        XCTAssertEqual(try GoogleServiceAccount(jsonText: FCMTestCredentials.serviceAccountJSON), sa)
    }

    func testServiceAccountRefusals() {
        func refused(_ text: String) -> GoogleServiceAccount.ParseError? {
            do { _ = try GoogleServiceAccount(jsonText: text); return nil } catch { return error }
        }
        XCTAssertEqual(refused(#"{"type":"authorized_user","client_email":"a","private_key":"k"}"#), .notServiceAccount("authorized_user"))
        XCTAssertEqual(refused(#"{"client_email":"a","private_key":"k"}"#), .missingField("type"))
        XCTAssertEqual(refused(#"{"type":"service_account","private_key":"k"}"#), .missingField("client_email"))
        XCTAssertEqual(refused(#"{"type":"service_account","client_email":"a"}"#), .missingField("private_key"))
        XCTAssertEqual(refused(#"{"type":"service_account","client_email":"a","private_key":1}"#), .wrongType("private_key"))
        XCTAssertEqual(refused("[]"), .notAnObject)
        if case .notJSON? = refused("{") {} else { XCTFail("expected notJSON") }
        let minimal = try? GoogleServiceAccount(jsonText: #"{"type":"service_account","client_email":"a","private_key":"k","extra":1}"#)
        XCTAssertEqual(minimal?.clientEmail, "a")
        XCTAssertNil(minimal?.projectID)
    }

    // MARK: Form decoding (docs/fcm.md §6.2)

    func testFormDecoding() throws {
        let pairs = try FormURLEncoding.decode(Array("a=b+c&d=%41%2b%2B&&e&f=&%C3%A9=%e2%82%AC&".utf8))
        XCTAssertEqual(pairs.map(\.name), ["a", "d", "e", "f", "é"])
        XCTAssertEqual(pairs.map(\.value), ["b c", "A++", "", "", "€"])
        XCTAssertEqual(try FormURLEncoding.decode(Array("".utf8)).count, 0)
        XCTAssertEqual(try FormURLEncoding.decode(Array("x=1=2".utf8)).first?.value, "1=2")
        XCTAssertThrowsError(try FormURLEncoding.decode(Array("a=%4".utf8))) { XCTAssertEqual($0 as? FormURLEncoding.DecodeError, .badPercentEscape(offset: 2)) }
        XCTAssertThrowsError(try FormURLEncoding.decode(Array("ab=1&c=%zz".utf8))) { XCTAssertEqual($0 as? FormURLEncoding.DecodeError, .badPercentEscape(offset: 7)) }
        XCTAssertThrowsError(try FormURLEncoding.decode(Array("a=%FF".utf8))) { XCTAssertEqual($0 as? FormURLEncoding.DecodeError, .invalidUTF8) }
        XCTAssertEqual(FormURLEncoding.encodeComponent("urn:ietf:params:oauth:grant-type:jwt-bearer"), "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer")
        XCTAssertEqual(FormURLEncoding.encodeComponent("a b/é"), "a+b%2F%C3%A9")
        let round = "x y+z&=%é"
        XCTAssertEqual(try FormURLEncoding.decode(Array(("k=" + FormURLEncoding.encodeComponent(round)).utf8)).first?.value, round)
    }

    // MARK: Access-token store

    func testLookupValidExpiredRevokedUnknown() {
        let store = FCMAccessTokenStore(lifetime: 100, tokenGenerator: { "ya29.fixed" })
        let g = store.issue(clientEmail: "a@x", projects: ["p"], scopes: ["s"], now: 1000)
        XCTAssertEqual(g.token, "ya29.fixed")
        XCTAssertEqual(g.expiresAt, 1100)
        XCTAssertEqual(store.lookup("ya29.fixed", now: 1099.9), .valid(g))
        XCTAssertEqual(store.lookup("ya29.fixed", now: 1100), .expired(g))
        XCTAssertEqual(store.lookup("ya29.other", now: 1000), .unknown)
        XCTAssertTrue(store.revoke("ya29.fixed"))
        XCTAssertFalse(store.revoke("ya29.other"))
        XCTAssertEqual(store.lookup("ya29.fixed", now: 1000), .revoked(g))
    }

    func testRevokeAllOfAnAccount() {
        let n = Mutex(0)
        let store = FCMAccessTokenStore(tokenGenerator: { "t\(n.withLock { $0 += 1; return $0 })" })
        _ = store.issue(clientEmail: "a", projects: [], scopes: [], now: 0)
        _ = store.issue(clientEmail: "b", projects: [], scopes: [], now: 0)
        _ = store.issue(clientEmail: "a", projects: [], scopes: [], now: 0)
        XCTAssertEqual(store.revokeAll(clientEmail: "a"), 2)
        XCTAssertEqual(store.revokeAll(clientEmail: "a"), 0)
        if case .revoked = store.lookup("t1", now: 1) {} else { XCTFail("t1 not revoked") }
        if case .valid = store.lookup("t2", now: 1) {} else { XCTFail("t2 not valid") }
    }

    func testStoreIsBoundedOldestFirst() {
        let n = Mutex(0)
        let store = FCMAccessTokenStore(capacity: 3, tokenGenerator: { "t\(n.withLock { $0 += 1; return $0 })" })
        for i in 0..<5 { _ = store.issue(clientEmail: "a", projects: [], scopes: [], now: Double(i)) }
        XCTAssertEqual(store.count, 3)
        XCTAssertEqual(store.lookup("t1", now: 5), .unknown)
        XCTAssertEqual(store.lookup("t2", now: 5), .unknown)
        for t in ["t3", "t4", "t5"] { if case .valid = store.lookup(t, now: 5) {} else { XCTFail(t) } }
        // Many more than the compaction threshold: still bounded, newest kept.
        for i in 0..<5000 { _ = store.issue(clientEmail: "a", projects: [], scopes: [], now: Double(i)) }
        XCTAssertEqual(store.count, 3)
        if case .valid = store.lookup("t5005", now: 5000) {} else { XCTFail("newest evicted") }
    }

    func testConcurrentIssueAndLookup() {
        let store = FCMAccessTokenStore(capacity: 100)
        let tokens = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 1000) { i in
            let g = store.issue(clientEmail: "a", projects: ["p"], scopes: [], now: 0)
            _ = store.lookup(g.token, now: 0)
            if i % 7 == 0 { store.revoke(g.token) }
            tokens.withLock { $0.append(g.token) }
        }
        let all = tokens.withLock { $0 }
        XCTAssertEqual(Set(all).count, 1000, "random tokens are distinct")
        XCTAssertEqual(store.count, 100)
        XCTAssertTrue(all.allSatisfy { $0.hasPrefix("ya29.") && $0.count == 5 + 64 })
    }

    // MARK: Send endpoint path and success body (docs/fcm.md §1, §3)

    func testSendPath() {
        XCTAssertEqual(FCMSendEndpoint.project(fromPath: "/v1/projects/pushdouble-test/messages:send"), "pushdouble-test")
        XCTAssertEqual(FCMSendEndpoint.project(fromPath: "/v1/projects/123456789/messages:send"), "123456789")
        for bad in ["/v1/projects//messages:send", "/v1/projects/a/b/messages:send", "/v1/projects/a/messages:sendx",
                    "/v2/projects/a/messages:send", "/v1/projects/messages:send", "/v1/projects/a/messages:send/"] {
            XCTAssertNil(FCMSendEndpoint.project(fromPath: bad), bad)
        }
        XCTAssertTrue(FCMSendEndpoint.isProjectNumber("123456789"))
        XCTAssertFalse(FCMSendEndpoint.isProjectNumber("0123"))
        XCTAssertFalse(FCMSendEndpoint.isProjectNumber("pushdouble-test"))
        XCTAssertFalse(FCMSendEndpoint.isProjectNumber(""))
    }

    func testSuccessBodies() {
        // docs/fcm.md §3: the pushiko capture for validate_only, project foo.
        let name = FCMSendEndpoint.messageName(project: "foo", messageID: FCMSendEndpoint.validateOnlyMessageID)
        XCTAssertEqual(String(decoding: FCMSendEndpoint.successBody(name: name), as: UTF8.self),
                       "{\n  \"name\": \"projects/foo/messages/fake_message_id\"\n}")
        XCTAssertEqual(FCMSendEndpoint.successBody(name: name, trailingNewline: true).last, 0x0A)
        // docs/fcm.md §3 example id.
        XCTAssertEqual(FCMSendEndpoint.messageID(timestampMicros: 1_500_415_314_455_276, tag: 0x31bd1c9631bd1c96), "0:1500415314455276%31bd1c9631bd1c96")
        XCTAssertEqual(FCMSendEndpoint.messageID(timestampMicros: 42, tag: 1), "0:0000000000000042%0000000000000001")
    }
}
