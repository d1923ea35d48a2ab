import Foundation
import Synchronization
import XCTest
import PushDoubleTestSupport
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport
@testable import PushDoubleAPNs
import PushDouble

/// The APNs fake over real sockets: TLS + HTTP/2 from this repo's runtime, driven by curl
/// and by Python clients (hyper-h2 frames, httpx, aioapns) from Tests/Interop/apns_interop.py.
final class APNsSocketTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "curl", "h2load", "openssl", "python3") }

    struct Running {
        let server: HTTPServer
        let double: DoubleState
        let fake: APNsFake
        let key: TestKey
        let productionPort: Int
        let sandboxPort: Int
        let dir: URL
        var caPath: String { dir.appendingPathComponent("cert.pem").path }
        var keyPath: String { dir.appendingPathComponent("key.p8").path }
    }

    func start(configure: (inout APNsConfiguration) -> Void = { _ in }) throws -> Running {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pd-apns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let cert = try runCommand(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                            "-keyout", dir.appendingPathComponent("tls-key.pem").path, "-out", dir.appendingPathComponent("cert.pem").path,
                            "-days", "2", "-subj", "/CN=localhost",
                            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1,DNS:api.push.apple.com,DNS:api.sandbox.push.apple.com,DNS:api.development.push.apple.com"])
        XCTAssertEqual(cert.status, 0, cert.stderr)
        let certPEM = try String(contentsOf: dir.appendingPathComponent("cert.pem"), encoding: .utf8)
        let tlsKeyPEM = try String(contentsOf: dir.appendingPathComponent("tls-key.pem"), encoding: .utf8)

        let key = TestKey()
        try key.privateKey.pemPKCS8.write(to: dir.appendingPathComponent("key.p8"), atomically: true, encoding: .utf8)
        var config = APNsConfiguration(keys: [key.signingKey()], allowedBundleIDs: [Fixture.topic])
        configure(&config)
        let double = DoubleState()
        let fake = APNsFake(configuration: config)
        let server = HTTPServer(eventLoopCount: 2)
        let listeners = APNsEnvironment.allCases.map { env in
            APNsListeners.listener(env, configuration: config, certificateChainPEM: certPEM, privateKeyPEM: tlsKeyPEM,
                                   responder: double.pipeline(for: fake, environment: env.rawValue))
        }
        let bound = try server.start(listeners)
        addTeardownBlock { server.stop(timeout: 0.5) }
        XCTAssertEqual(bound.map(\.name), ["apns-production", "apns-sandbox"])
        return Running(server: server, double: double, fake: fake, key: key, productionPort: bound[0].port,
                       sandboxPort: bound[1].port, dir: dir)
    }

    func curl(_ s: Running, host: String = "localhost", port: Int, token: String, headers: [String] = [], body: String,
              jwt: String? = nil, topic: String = Fixture.topic) throws -> (status: Int, headers: String, body: String) {
        let bodyFile = s.dir.appendingPathComponent("body-\(UUID().uuidString)").path
        var args = ["curl", "-sS", "--http2", "--cacert", s.caPath, "--resolve", "\(host):\(port):127.0.0.1",
                    "-D", "-", "-o", bodyFile, "-w", "\n%{http_code}",
                    "-H", "authorization: bearer \(jwt ?? s.key.jwt(iat: Int64(Date().timeIntervalSince1970)))",
                    "-H", "apns-topic: \(topic)", "--data-binary", body]
        for h in headers { args += ["-H", h] }
        args.append("https://\(host):\(port)/3/device/\(token)")
        let r = try runCommand(args)
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.last ?? "") ?? -1
        let responseBody = (try? String(contentsOfFile: bodyFile, encoding: .utf8)) ?? ""
        return (status, r.stdout.lowercased(), responseBody)
    }

    func testCurlSuccessAndErrors() throws {
        let s = try start()
        let ok = try curl(s, port: s.productionPort, token: Fixture.token, headers: ["apns-id: 0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d"],
                          body: #"{"aps":{"alert":"hi"}}"#)
        XCTAssertEqual(ok.status, 200)
        XCTAssertTrue(ok.headers.contains("http/2 200"), ok.headers)
        XCTAssertTrue(ok.headers.contains("apns-id: 0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d"), ok.headers)
        XCTAssertFalse(ok.headers.contains("apns-unique-id"), ok.headers)
        XCTAssertEqual(ok.body, "")

        let bad = try curl(s, port: s.productionPort, token: "abc", body: #"{"aps":{}}"#)
        XCTAssertEqual(bad.status, 400)
        XCTAssertEqual(bad.body, #"{"reason":"BadDeviceToken"}"#)
        XCTAssertTrue(bad.headers.contains("content-type: application/json"), bad.headers)

        let gone = try curl(s, port: s.sandboxPort, token: APNsMagicTokens.table[0].example, body: #"{"aps":{}}"#)
        XCTAssertEqual(gone.status, 410)
        XCTAssertEqual(gone.body, #"{"reason":"Unregistered","timestamp":1704067200000}"#)

        // Real host name on the production listener selects the sandbox by :authority / SNI.
        let sandbox = try curl(s, host: "api.sandbox.push.apple.com", port: s.productionPort, token: Fixture.token, body: #"{"aps":{}}"#)
        XCTAssertEqual(sandbox.status, 200)
        XCTAssertTrue(sandbox.headers.contains("apns-unique-id: "), sandbox.headers)

        let expired = try curl(s, port: s.productionPort, token: Fixture.token, body: #"{"aps":{}}"#,
                               jwt: s.key.jwt(iat: Int64(Date().timeIntervalSince1970) - 3700))
        XCTAssertEqual(expired.status, 403)
        XCTAssertEqual(expired.body, #"{"reason":"ExpiredProviderToken"}"#)

        let history = s.double.history.all
        XCTAssertEqual(history.count, 5)
        XCTAssertEqual(history.map { $0.transport.connection.listener },
                       ["apns-production", "apns-production", "apns-sandbox", "apns-production", "apns-production"])
        XCTAssertEqual(history[3].environment, "sandbox")
        XCTAssertEqual(history[0].transport.version, .http2)
    }

    /// WidgetKit widget and control reloads as Apple's pages write them: push type, topic
    /// suffix and `{"aps":{"content-changed":true}}`; the wrong suffix is BadTopic.
    func testCurlWidgetAndControlPushes() throws {
        let s = try start()
        let reload = #"{"aps":{"content-changed":true}}"#
        for (type, suffix) in [("widgets", ".push-type.widgets"), ("controls", ".push-type.controls")] {
            let ok = try curl(s, port: s.sandboxPort, token: Fixture.token, headers: ["apns-push-type: \(type)", "apns-priority: 10", "apns-expiration: 0"],
                              body: reload, topic: Fixture.topic + suffix)
            XCTAssertEqual(ok.status, 200, "\(type): \(ok.body)")
            let bare = try curl(s, port: s.sandboxPort, token: Fixture.token, headers: ["apns-push-type: \(type)"], body: reload)
            XCTAssertEqual(bare.status, 400, type)
            XCTAssertEqual(bare.body, #"{"reason":"BadTopic"}"#, type)
        }
        let history = s.double.history.all
        XCTAssertEqual(history.count, 4)
        XCTAssertEqual(history.compactMap { e in e.request.headers.first { $0.first == "apns-push-type" }?.last },
                       ["widgets", "widgets", "controls", "controls"])
        XCTAssertEqual(history.map(\.response.status), [200, 400, 200, 400])
    }

    /// h2load with many connections and streams: every answer is a 200 and is in the history.
    /// A connection starts at MAX_CONCURRENT_STREAMS=1 like Apple's, and h2load may open up to
    /// `-m` streams before it sees the raised limit: those are refused (RST_STREAM
    /// REFUSED_STREAM), which h2load counts as "errored". So: at most 99 refused per connection.
    /// Prints the rate (the quality target is measured by the benchmark, not asserted here).
    func testH2LoadAllSucceed() throws {
        let s = try start()
        let body = s.dir.appendingPathComponent("payload.json")
        try Data(#"{"aps":{"alert":{"title":"Hello","body":"World"},"badge":1},"custom":"x"}"#.utf8).write(to: body)
        let jwt = s.key.jwt(iat: Int64(Date().timeIntervalSince1970))
        let r = try runCommand(["h2load", "-n", "20000", "-c", "10", "-m", "100", "-t", "1",
                                "-H", "authorization: bearer \(jwt)", "-H", "apns-topic: \(Fixture.topic)",
                                "-H", "apns-push-type: alert", "-d", body.path,
                                "https://127.0.0.1:\(s.productionPort)/3/device/\(Fixture.token)"], timeout: 120)
        XCTAssertEqual(r.status, 0, r.stderr)
        func number(_ label: String) -> Int? {
            guard let range = r.stdout.range(of: #"(\d+) "# + label, options: .regularExpression) else { return nil }
            return Int(r.stdout[range].split(separator: " ")[0])
        }
        let succeeded = try XCTUnwrap(number("succeeded"), r.stdout)
        let errored = try XCTUnwrap(number("errored"), r.stdout)
        XCTAssertEqual(number("done"), 20000, r.stdout)
        XCTAssertEqual(number("timeout"), 0, r.stdout)
        XCTAssertEqual(succeeded + errored, 20000, r.stdout)
        XCTAssertLessThanOrEqual(errored, 10 * 99, r.stdout)
        XCTAssertTrue(r.stdout.contains("status codes: \(succeeded) 2xx, 0 3xx, 0 4xx, 0 5xx"), r.stdout)
        if let line = r.stdout.split(separator: "\n").first(where: { $0.hasPrefix("finished in") }) { print("APNs h2load: \(line)") }
        // Every answered push is in the history, and so is every stream refused before the raised
        // limit applied (endpoint transport.refused): a refused notification stays visible.
        let recorded = s.double.history.all
        XCTAssertEqual(recorded.filter { $0.endpoint == "apns.push" }.count, succeeded)
        XCTAssertEqual(recorded.filter { $0.endpoint == DoublePipeline.refusedEndpoint }.count, errored)
    }

    /// PRIORITY signals a client sends reach the history as `transport.priorityFramesReceived`
    /// (hyper-h2 on TLS: one PRIORITY frame, then HEADERS with priority fields), and the
    /// conformance check reads them from there.
    func testPriorityFramesAreCountedInTheHistory() throws {
        let s = try start()
        let script = s.dir.appendingPathComponent("priority.py")
        try #"""
        import socket, ssl, sys, h2.connection, h2.config, h2.events
        port, ca, jwt, token, topic = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
        ctx = ssl.create_default_context(cafile=ca); ctx.set_alpn_protocols(["h2"])
        sock = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="localhost")
        c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True)); c.initiate_connection()
        def req(sid, **prio):
            c.send_headers(sid, [(":method", "POST"), (":scheme", "https"), (":path", "/3/device/" + token), (":authority", "localhost"),
                                 ("authorization", "bearer " + jwt), ("apns-topic", topic)], **prio)
            c.send_data(sid, b'{"aps":{}}', end_stream=True); sock.sendall(c.data_to_send())
            while True:
                for e in c.receive_data(sock.recv(65536)):
                    if isinstance(e, h2.events.StreamEnded) and e.stream_id == sid: sock.sendall(c.data_to_send()); return
                sock.sendall(c.data_to_send())
        req(1)
        c.prioritize(3, weight=32); sock.sendall(c.data_to_send())
        req(3, priority_weight=200, priority_exclusive=False, priority_depends_on=0)
        print("ok")
        """#.write(to: script, atomically: true, encoding: .utf8)
        let r = try runCommand(["python3", script.path, String(s.productionPort), s.caPath, s.key.jwt(iat: Int64(Date().timeIntervalSince1970)),
                                Fixture.token, Fixture.topic], timeout: 30)
        XCTAssertEqual(r.status, 0, r.stderr)
        let history = s.double.history.all
        XCTAssertEqual(history.map(\.response.status), [200, 200])
        XCTAssertEqual(history.map(\.transport.priorityFramesReceived), [0, 2])
    }

    func testIdleConnectionGetsGoAway() throws {
        let s = try start(configure: { $0.idleTimeout = 0.5 })
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Interop/apns_interop.py").path
        let r = try runCommand(["python3", script, "--production-port", String(s.productionPort), "--sandbox-port", String(s.sandboxPort),
                                "--ca", s.caPath, "--key", s.keyPath, "--key-id", s.key.keyID, "--team-id", s.key.teamID,
                                "--topic", Fixture.topic, "--only", "idle"], timeout: 60)
        XCTAssertEqual(r.status, 0, "stdout: \(r.stdout)\nstderr: \(r.stderr.suffix(2000))")
        let line = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let result = try APNsPayloadDecoder.decode(Array(line.utf8)).get()
        XCTAssertEqual(result["results"]?["idle"]?["code"], .int(0))
        let seconds = try XCTUnwrap(result["results"]?["idle"]?["seconds"]?.doubleValue)
        XCTAssertGreaterThanOrEqual(seconds, 0.3)
    }

    func testHTTP1IsRefused() throws {
        let s = try start()
        let r = try runCommand(["curl", "-sS", "--http1.1", "--cacert", s.caPath, "-o", "/dev/null", "-w", "%{http_code}",
                         "https://localhost:\(s.productionPort)/3/device/\(Fixture.token)"])
        // ALPN offers only h2: the handshake fails (alert no_application_protocol) or no HTTP/1.1 answer comes.
        XCTAssertTrue(r.status != 0 || r.stdout != "200", "HTTP/1.1 must not be served: \(r.stdout) \(r.stderr)")
        XCTAssertEqual(s.double.history.count, 0)
    }

    func testPythonClients() throws {
        let s = try start()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Interop/apns_interop.py").path
        // One run per client, so a hang or failure names its client.
        for client in ["h2", "httpx", "aioapns"] {
            let r = try runCommand(["python3", script, "--production-port", String(s.productionPort), "--sandbox-port", String(s.sandboxPort),
                                    "--ca", s.caPath, "--key", s.keyPath, "--key-id", s.key.keyID, "--team-id", s.key.teamID,
                                    "--topic", Fixture.topic, "--only", client], timeout: 60)
            XCTAssertEqual(r.status, 0, "\(client) stdout: \(r.stdout)\nstderr: \(r.stderr.suffix(3000))")
            let line = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
            guard let result = try? APNsPayloadDecoder.decode(Array(line.utf8)).get() else { XCTFail("\(client): no JSON result"); continue }
            XCTAssertEqual(result["failures"], JSONValue.array([]), client)
            XCTAssertNotNil(result["results"]?[client], client)
        }
        // Every Python request shows up in the history, with the JWT pyjwt minted.
        let jwtExchanges = s.double.history.all.filter { $0.auth?.scheme == "apns-jwt" }
        XCTAssertGreaterThan(jwtExchanges.count, 30)
    }
}

/// The fake inside the library's in-process server (`PushDoubleServer`), with the shipped
/// credentials exactly as `pushdouble serve` uses them.
final class APNsInProcessServerTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "curl", "h2load", "openssl", "python3") }

    func testShippedKeyAndCertificate() throws {
        let server = try startShippedAPNsServer()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pd-apns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let ca = dir.appendingPathComponent("ca.pem")
        try EmbeddedTestCredentials.caPEM.write(to: ca, atomically: true, encoding: .utf8)

        let key = try P256PrivateKey(pem: APNsTestCredentials.keyPEM)
        let jwt = try JWT.signES256(keyID: APNsTestCredentials.keyID,
                                    claims: JOSEObject([("iss", .string(APNsTestCredentials.teamID)),
                                                        ("iat", .int(Int64(Date().timeIntervalSince1970)))]), key: key)
        let production = try XCTUnwrap(server.endpoint(named: "apns-production"))
        let sandbox = try XCTUnwrap(server.endpoint(named: "apns-sandbox"))
        XCTAssertEqual(production.environment, "production")
        func post(_ base: String, _ token: String, host: String? = nil) throws -> ProcessResult {
            var args = ["curl", "-sS", "--http2", "--cacert", ca.path, "-D", "-", "-H", "authorization: bearer \(jwt)",
                        "-H", "apns-topic: \(APNsTestCredentials.topic)", "--data-binary", #"{"aps":{"alert":"hi"}}"#]
            var url = base
            if let host, let port = URL(string: base)?.port {
                args += ["--resolve", "\(host):\(port):127.0.0.1"]
                url = "https://\(host):\(port)"
            }
            return try runCommand(args + [url + "/3/device/\(token)"])
        }
        let ok = try post(production.url, Fixture.token)
        XCTAssertTrue(ok.stdout.hasPrefix("HTTP/2 200"), ok.stdout + ok.stderr)
        let sb = try post(sandbox.url, Fixture.token)
        XCTAssertTrue(sb.stdout.contains("apns-unique-id"), sb.stdout + sb.stderr)
        let gone = try post(production.url, APNsMagicTokens.table[0].example, host: "api.push.apple.com")
        XCTAssertTrue(gone.stdout.hasPrefix("HTTP/2 410"), gone.stdout + gone.stderr)
        XCTAssertTrue(gone.stdout.hasSuffix(#"{"reason":"Unregistered","timestamp":1704067200000}"#), gone.stdout)
        XCTAssertEqual(server.history.all.map(\.environment), ["production", "sandbox", "production"])
        XCTAssertEqual(server.history.all.first?.auth?.keyID, APNsTestCredentials.keyID)
    }
}
