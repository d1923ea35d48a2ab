import Foundation
import XCTest
import PushDoubleTestSupport
import PushDoubleCore
import PushDoubleCrypto
import PushDouble
@testable import PushDoubleFCM

/// The FCM real-client matrix (docs/fcm.md "Real-client matrix"): independent FCM and Google
/// auth libraries from PyPI, each driven by its own script Tests/Interop/fcm_<library>.py
/// against the in-process fake, given only the FCM URL, the service-account file the double
/// writes (token_uri = its token endpoint) and the test CA. Each script checks success and
/// the library's own error types for UNREGISTERED and INVALID_ARGUMENT; this side checks the
/// history saw those answers, with access tokens minted by the fake's token endpoint.
final class FCMClientMatrixTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "python3 (FCM client libraries)") }

    static let interop = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interop")

    func testFirebaseAdmin() throws {
        let history = try runMatrix(script: "fcm_firebase_admin.py", distribution: "firebase-admin",
                                    expect: ["send", "dry_run", "topic", "unregistered", "invalidArgument", "senderIdMismatch",
                                             "reservedDataKey", "send_each", "send_each_async"])
        // send / send_each over HTTP/1.1 (requests), send_each_async over h2 (httpx), docs/fcm.md §1.1.
        XCTAssertEqual(Set(history.filter { $0.endpoint == "fcm.send" }.map(\.transport.version)), [.http1_1, .http2])
        // One access token for every send of the run (no mint per message).
        XCTAssertEqual(history.filter { $0.endpoint == "oauth.token" }.count, 1)
    }

    func testGoogleAuth() throws {
        let history = try runMatrix(script: "fcm_google_auth.py", distribution: "google-auth",
                                    expect: ["refresh", "success", "unregistered", "invalidArgument", "insufficientScope",
                                             "wrongKey", "wrongKeyBody"],
                                    wrongKey: true)
        let mints = history.filter { $0.endpoint == "oauth.token" }
        XCTAssertEqual(mints.map(\.response.status), [200, 200, 400], "the userinfo.email token is minted (docs/fcm.md §6.3a)")
        XCTAssertEqual(mints.last?.decidedBy.detail, "badSignature")
    }

    func testPyFCM() throws {
        _ = try runMatrix(script: "fcm_pyfcm.py", distribution: "pyfcm",
                          expect: ["success", "dry_run", "topic", "unregistered", "invalidArgument", "senderIdMismatch"])
    }

    func testAsyncFirebase() throws {
        let history = try runMatrix(script: "fcm_async_firebase.py", distribution: "async-firebase",
                                    expect: ["success", "dry_run", "unregistered", "invalidArgument", "senderIdMismatch", "send_each"])
        XCTAssertEqual(Set(history.filter { $0.endpoint == "fcm.send" }.map(\.transport.version)), [.http2], "use_http2=True")
    }

    /// firebase-admin with nothing patched reaches the fake through the CONNECT proxy
    /// by the real host names (fcm.googleapis.com for sends, oauth2.googleapis.com for tokens):
    /// `send` (requests) does; `send_each_async` (httpx on an explicit transport) ignores
    /// HTTPS_PROXY, fails to resolve the real name offline, and is recorded as such.
    func testUnmodifiedFirebaseAdminThroughTheProxy() throws {
        let history = try runMatrix(script: "fcm_firebase_admin_proxy.py", distribution: "firebase-admin",
                                    expect: ["unpatched", "proxy", "send", "unregistered", "invalidArgument", "send_each_async_ignores_proxy"], throughProxy: true)
        let sends = history.filter { $0.endpoint == "fcm.send" }
        XCTAssertFalse(sends.isEmpty)
        for s in sends { XCTAssertEqual(s.request.authority.map { $0.lowercased().hasPrefix("fcm.googleapis.com") }, true, "\(s.request.authority ?? "-")") }
        let mints = history.filter { $0.endpoint == "oauth.token" }
        XCTAssertEqual(mints.count, 1)
        XCTAssertTrue(mints.allSatisfy { ($0.request.authority ?? "").lowercased().hasPrefix("oauth2.googleapis.com") })
    }

    /// Starts the fake, runs one library's script, checks its result line and the history;
    /// returns the history.
    func runMatrix(script: String, distribution: String, expect: [String], wrongKey: Bool = false,
                   throughProxy: Bool = false) throws -> [Exchange] {
        let (server, kit) = try startFCMServer(throughProxy: throughProxy)
        func env(_ name: String) throws -> String { try XCTUnwrap(kit.environment.first { $0.0 == name }?.1, name) }
        var args = ["python3", Self.interop.appendingPathComponent(script).path, "--fcm-url", try env("FCM_URL"),
                    "--service-account", try env("FCM_SERVICE_ACCOUNT_FILE"), "--ca", try XCTUnwrap(kit.caFile)]
        if wrongKey { args += ["--wrong-key-account", try writeWrongKeyAccount(kit, serviceAccountFile: try env("FCM_SERVICE_ACCOUNT_FILE"))] }
        if throughProxy {
            // The shipped account as a user has it: token_uri is Google's real URL.
            let i = try XCTUnwrap(args.firstIndex(of: "--service-account"))
            args[i + 1] = try Self.writeRealTokenURIAccount(kit, serviceAccountFile: try env("FCM_SERVICE_ACCOUNT_FILE"))
            args = ["env", "HTTPS_PROXY=" + (try env("HTTPS_PROXY")), "NO_PROXY=", "no_proxy="] + args
        }
        let r = try runCommand(args, timeout: 120)
        let line = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
        if r.status == 2 {
            XCTFail(line.isEmpty ? "\(distribution) is not installed (run bash .ci/run or pip install \(distribution))" : line)
            return []
        }
        XCTAssertEqual(r.status, 0, "\(distribution) stdout: \(r.stdout)\nstderr: \(r.stderr.suffix(3000))")
        guard let result = try? JSONValue.parse(line) else {
            XCTFail("\(distribution): no JSON result line\nstdout: \(r.stdout)\nstderr: \(r.stderr.suffix(3000))")
            return []
        }
        XCTAssertEqual(result["library"], .string(distribution))
        XCTAssertEqual(result["failures"], JSONValue.array([]), distribution)
        for name in expect { XCTAssertNotNil(result["results"]?[name], "\(distribution): no result for \(name)") }
        let history = server.history.all
        checkHistory(history, distribution: distribution)
        return history
    }

    /// The answers the library reported are the ones the fake recorded, for sends authorised
    /// by access tokens the fake minted for the shipped account.
    func checkHistory(_ history: [Exchange], distribution: String) {
        let sends = history.filter { $0.endpoint == "fcm.send" }
        XCTAssertTrue(sends.contains { $0.response.status == 200 }, "\(distribution): a success")
        XCTAssertEqual(sends.first { $0.response.reason == "UNREGISTERED" }?.response.status, 404, distribution)
        XCTAssertEqual(sends.first { $0.response.reason == "INVALID_ARGUMENT" }?.response.status, 400, distribution)
        // The insufficient-scope case (docs/fcm.md §6.3a) is refused on purpose; its detail names the scope.
        XCTAssertEqual(sends.filter { $0.response.status == 401 || $0.response.status == 403 && $0.response.reason != "SENDER_ID_MISMATCH"
                                      && !($0.decidedBy.detail ?? "").hasPrefix("access token has no FCM scope") }
                           .map { $0.response.reason ?? "?" }, [], "\(distribution): unexpected auth refusals")
        for s in sends {
            XCTAssertEqual(s.auth?.scheme, "oauth-bearer", distribution)
            XCTAssertEqual(s.auth?.issuer, FCMConfiguration.shippedServiceAccount.clientEmail, distribution)
        }
        XCTAssertTrue(history.contains { $0.endpoint == "oauth.token" && $0.response.status == 200 }, "\(distribution): a mint")
    }

    /// The shipped account's key file with `token_uri` = https://oauth2.googleapis.com/token.
    static func writeRealTokenURIAccount(_ kit: SenderKit, serviceAccountFile: String) throws -> String {
        let text = try String(contentsOfFile: serviceAccountFile, encoding: .utf8)
        guard case .object(var members) = try JSONValue.parse(text) else { XCTFail("key file is not an object"); return serviceAccountFile }
        let i = try XCTUnwrap(members.firstIndex { $0.0 == "token_uri" })
        members[i].1 = .string("https://" + FCMFake.tokenHost + "/token")
        let path = kit.directory.appendingPathComponent("real-token-uri-service-account.json").path
        try Data(JSONValue.object(members).serialized(.pretty)).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The shipped account's key file with another RSA key: its assertions must be refused
    /// with `Invalid JWT Signature.` (docs/fcm.md §6.3).
    func writeWrongKeyAccount(_ kit: SenderKit, serviceAccountFile: String) throws -> String {
        let text = try String(contentsOfFile: serviceAccountFile, encoding: .utf8)
        guard case .object(var members) = try JSONValue.parse(text) else { XCTFail("key file is not an object"); return serviceAccountFile }
        let i = try XCTUnwrap(members.firstIndex { $0.0 == "private_key" })
        members[i].1 = .string(try RSAPrivateKey.generate(bits: 2048).pem)
        let path = kit.directory.appendingPathComponent("wrong-key-service-account.json").path
        try Data(JSONValue.object(members).serialized(.pretty)).write(to: URL(fileURLWithPath: path))
        return path
    }
}

extension XCTestCase {
    /// A double serving only the FCM fake (no admin API, one loop; with the CONNECT proxy when
    /// asked) and the sender kit it wrote, both removed at the test's teardown.
    func startFCMServer(throughProxy: Bool) throws -> (PushDoubleServer, SenderKit) {
        var config = PushDoubleConfiguration.ephemeral()
        config.modules = [FCMModule()]
        config.admin = false
        config.proxy = throughProxy
        config.eventLoopCount = 1
        let server = PushDoubleServer(configuration: config)
        try server.start()
        let kit = try server.senderKit()
        addTeardownBlock { server.stop(); kit.remove() }
        return (server, kit)
    }
}
