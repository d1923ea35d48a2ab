import Foundation
import XCTest
import PushDoubleTestSupport
import PushDoubleCore
import PushDoubleCrypto
@testable import PushDoubleAPNs
import PushDouble

/// Channel management over real sockets: curl (HTTP/2, ALPN h2) and httpx (HTTP/2) against the
/// in-process server with the shipped credentials, addressed by Apple's real host names (the
/// shipped server certificate must cover them), authenticated by JWT and by provider certificate.
final class APNsChannelSocketTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "curl", "python3 (httpx, h2)") }

    struct Running {
        let server: PushDoubleServer
        let fake: APNsFake
        let dir: URL
        let ports: [APNsEnvironment: Int]
        var ca: String { dir.appendingPathComponent("ca.pem").path }
        var universalCert: String { dir.appendingPathComponent("universal.pem").path }
        func url(_ env: APNsEnvironment, _ path: String) -> String { "https://\(env.managementHost):\(ports[env] ?? 0)\(path)" }
        func resolve(_ env: APNsEnvironment) -> [String] { ["--resolve", "\(env.managementHost):\(ports[env] ?? 0):127.0.0.1"] }
    }

    func start() throws -> Running {
        let fake = APNsFake()
        var config = PushDoubleConfiguration.ephemeral(fakes: fake.listenerSpecs() + fake.managementListenerSpecs())
        config.admin = false
        config.eventLoopCount = 1
        let server = PushDoubleServer(configuration: config)
        try server.start()
        addTeardownBlock { server.stop() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pd-apns-channels-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        try EmbeddedTestCredentials.caPEM.write(to: dir.appendingPathComponent("ca.pem"), atomically: true, encoding: .utf8)
        try APNsTestCredentials.ProviderCertificate.universal.pem.write(to: dir.appendingPathComponent("universal.pem"), atomically: true, encoding: .utf8)
        var ports: [APNsEnvironment: Int] = [:]
        for env in APNsEnvironment.allCases {
            ports[env] = try XCTUnwrap(URL(string: try XCTUnwrap(server.endpoint(named: env.managementListenerName)).url)?.port)
        }
        return Running(server: server, fake: fake, dir: dir, ports: ports)
    }

    func jwt() throws -> String {
        let key = try P256PrivateKey(pem: APNsTestCredentials.keyPEM)
        let claims = JOSEObject([("iss", .string(APNsTestCredentials.teamID)), ("iat", .int(Int64(Date().timeIntervalSince1970)))])
        return try JWT.signES256(keyID: APNsTestCredentials.keyID, claims: claims, key: key)
    }

    /// One curl request; returns the status line's code, the lowercased headers and the body.
    func curl(_ s: Running, _ env: APNsEnvironment, _ method: String, _ path: String, auth: [String],
              headers: [String] = [], body: String? = nil) throws -> (status: Int, headers: String, body: String) {
        let bodyFile = s.dir.appendingPathComponent("body-\(UUID().uuidString)").path
        var args = ["curl", "-sS", "--http2", "--cacert", s.ca] + s.resolve(env) + auth
            + ["-X", method, "-D", "-", "-o", bodyFile, "-w", "\n%{http_code}"]
        for h in headers { args += ["-H", h] }
        if let body { args += ["-H", "content-type: application/json", "--data-binary", body] }
        let r = try runCommand(args + [s.url(env, path)])
        XCTAssertEqual(r.status, 0, r.stderr)
        let status = Int(r.stdout.split(separator: "\n").last ?? "") ?? -1
        return (status, r.stdout.lowercased(), (try? String(contentsOfFile: bodyFile, encoding: .utf8)) ?? "")
    }

    func channelID(_ headers: String) -> String? {
        headers.split(separator: "\r\n").first { $0.hasPrefix("apns-channel-id:") }.map { String($0.dropFirst(16)).trimmingCharacters(in: .whitespaces) }
    }

    func testCurlWalkThroughWithJWTAndCertificate() throws {
        let s = try start()
        let path = "/1/apps/\(APNsTestCredentials.topic)/channels"
        let bearer = ["-H", "authorization: bearer \(try jwt())"]
        let created = try curl(s, .production, "POST", path, auth: bearer, body: #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)
        XCTAssertEqual(created.status, 201, created.headers)
        XCTAssertTrue(created.headers.hasPrefix("http/2 201"))
        XCTAssertTrue(created.headers.contains("apns-request-id:"))
        // curl lowercases nothing in the value: take it from the store to compare exactly.
        let id = try XCTUnwrap(s.fake.channels.all(environment: .production).first?.id)
        XCTAssertEqual(channelID(created.headers), id.lowercased())

        // Read with a provider certificate instead of a JWT (no authorization header).
        let cert = ["--cert", s.universalCert]
        let read = try curl(s, .production, "GET", path, auth: cert, headers: ["apns-channel-id: \(id)"])
        XCTAssertEqual(read.status, 200)
        XCTAssertEqual(read.body, #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)
        let list = try curl(s, .production, "GET", "/1/apps/\(APNsTestCredentials.topic)/all-channels", auth: bearer)
        XCTAssertEqual(list.body, #"{"channels":["\#(id)"]}"#)
        // The sandbox has its own channels.
        let other = try curl(s, .sandbox, "GET", path, auth: cert, headers: ["apns-channel-id: \(id)"])
        XCTAssertEqual(other.status, 400)
        XCTAssertEqual(other.body, #"{"reason":"ChannelNotRegistered"}"#)
        // Broadcast on the push host (api.push.apple.com), then the channel is deleted and the
        // same broadcast is refused.
        let pushPort = try XCTUnwrap(URL(string: try XCTUnwrap(s.server.endpoint(named: "apns-production")).url)?.port)
        func broadcast() throws -> ProcessResult {
            try runCommand(["curl", "-sS", "--http2", "--cacert", s.ca, "--resolve", "api.push.apple.com:\(pushPort):127.0.0.1", "-i",
                            "-H", "authorization: bearer \(try jwt())", "-H", "apns-channel-id: \(id)", "-H", "apns-push-type: liveactivity",
                            "--data-binary", #"{"aps":{"event":"update","timestamp":1700000000,"content-state":{"score":"2-1"}}}"#,
                            "https://api.push.apple.com:\(pushPort)/4/broadcasts/apps/\(APNsTestCredentials.topic)"])
        }
        let sent = try broadcast()
        XCTAssertTrue(sent.stdout.hasPrefix("HTTP/2 200"), sent.stdout + sent.stderr)
        XCTAssertTrue(sent.stdout.contains("apns-request-id:"), sent.stdout)
        let deleted = try curl(s, .production, "DELETE", path, auth: bearer, headers: ["apns-channel-id: \(id)"])
        XCTAssertEqual(deleted.status, 204)
        let again = try curl(s, .production, "GET", path, auth: bearer, headers: ["apns-channel-id: \(id)"])
        XCTAssertEqual(again.body, #"{"reason":"ChannelNotRegistered"}"#)
        let refused = try broadcast()
        XCTAssertTrue(refused.stdout.hasPrefix("HTTP/2 400"), refused.stdout)
        XCTAssertTrue(refused.stdout.hasSuffix(#"{"reason":"ChannelNotRegistered"}"#), refused.stdout)
        // No authentication at all.
        let anonymous = try curl(s, .production, "GET", "/1/apps/\(APNsTestCredentials.topic)/all-channels", auth: [])
        XCTAssertEqual(anonymous.status, 403)
        XCTAssertEqual(anonymous.body, #"{"reason":"MissingProviderToken"}"#)
    }

    /// httpx over HTTP/2 (the h2 stack Python senders use): create, list, delete, and a bad body.
    func testHttpxOverHTTP2() throws {
        let s = try start()
        let script = s.dir.appendingPathComponent("channels.py")
        try #"""
        import json, sys, httpx
        base, ca, jwt, bundle = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
        with httpx.Client(http2=True, verify=ca, headers={"authorization": "bearer " + jwt}) as c:
            r = c.post(f"{base}/1/apps/{bundle}/channels", json={"message-storage-policy": 0, "push-type": "LiveActivity"})
            assert r.http_version == "HTTP/2" and r.status_code == 201, (r.http_version, r.status_code, r.text)
            cid = r.headers["apns-channel-id"]
            r = c.get(f"{base}/1/apps/{bundle}/all-channels")
            assert r.json() == {"channels": [cid]}, r.text
            r = c.post(f"{base}/1/apps/{bundle}/channels", json={"message-storage-policy": 1})
            assert r.status_code == 400 and r.json() == {"reason": "MissingPushType"}, r.text
            r = c.delete(f"{base}/1/apps/{bundle}/channels", headers={"apns-channel-id": cid})
            assert r.status_code == 204, r.text
            print(cid)
        """#.write(to: script, atomically: true, encoding: .utf8)
        // httpx has no --resolve: the sandbox listener is reached as localhost (the server certificate names it).
        let base = "https://localhost:\(s.ports[.sandbox] ?? 0)"
        let r = try runCommand(["python3", script.path, base, s.ca, try jwt(), APNsTestCredentials.topic], timeout: 30)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines).count, 24)
        XCTAssertTrue(s.fake.channels.all().isEmpty)
    }
}
