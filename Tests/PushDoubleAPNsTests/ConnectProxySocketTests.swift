import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
import PushDoubleExpo
import PushDoubleTestSupport
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport
import PushDoubleAPNs
import PushDouble

/// The CONNECT proxy over real sockets (docs/transport.md "CONNECT proxy listeners"): curl, httpx and an unmodified kalyke-apns
/// reach the APNs fake by Apple's host names through it; every other target is refused and
/// logged with no outbound connection; garbage, half-open and idle tunnels and 1,000 tunnels
/// at once leave it serving. Tools: curl, python3 (httpx, kalyke-apns; Tests/Interop/proxy_clients.py),
/// java + keytool (Tests/Interop/ProxyProbe.java).
/// The shipped modules with the CONNECT proxy on, every listener ephemeral, and what a sender is
/// told: the double the proxy tests (ConnectProxySocketTests, ProxyEcosystemTests) run against.
struct ProxiedDouble {
    let server: PushDoubleServer
    let kit: SenderKit
    let refusals: Locked<[ConnectProxyRefusal]>
    var proxy: DoubleEndpoint { server.endpoint(named: PushDoubleServer.proxyListener)! }
    var ca: String { kit.caFile! }
    var env: [String: String] { Dictionary(kit.environment, uniquingKeysWith: { a, _ in a }) }

    /// `tlsHandshakeTimeout` bounds the APNs listeners' handshake (an idle tunnel; only the APNs
    /// listeners are opened then), `headTimeout` the proxy's. Stopped at `test`'s teardown.
    static func start(_ test: XCTestCase, tlsHandshakeTimeout: Double? = nil, headTimeout: Double = 10) throws -> ProxiedDouble {
        var config = PushDoubleConfiguration.ephemeral()
        if let t = tlsHandshakeTimeout {
            config.fakes = APNsFake.listenerSpecs().map { var s = $0; s.limits.handshakeTimeout = t; return s }
        }
        config.proxy = true
        config.proxyLimits.handshakeTimeout = headTimeout
        config.eventLoopCount = 2
        let refusals = Locked<[ConnectProxyRefusal]>([])
        config.proxyRefusalLog = { r in refusals.withLock { $0.append(r) } }
        let server = PushDoubleServer(configuration: config)
        try server.start()
        test.addTeardownBlock { server.stop() }
        let kit = try server.senderKit()
        test.addTeardownBlock { kit.remove() }
        return ProxiedDouble(server: server, kit: kit, refusals: refusals)
    }

    /// The `apns-id` an exchange was answered with, lower-cased.
    static func apnsID(_ e: Exchange) -> String? {
        e.response.headers.first { $0.first?.lowercased() == "apns-id" }.flatMap { $0.count > 1 ? $0[1].lowercased() : nil }
    }
}

final class ConnectProxySocketTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "curl", "java", "keytool", "python3") }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interop/proxy_clients.py").path

    typealias Running = ProxiedDouble

    func start(tlsHandshakeTimeout: Double? = nil, headTimeout: Double = 10) throws -> Running {
        try ProxiedDouble.start(self, tlsHandshakeTimeout: tlsHandshakeTimeout, headTimeout: headTimeout)
    }

    /// A provider token signed with the shipped key (as a sender given APNS_KEY_FILE would).
    func jwt() throws -> String {
        let key = try P256PrivateKey(pem: APNsTestCredentials.keyPEM)
        let claims = JOSEObject([("iss", .string(APNsTestCredentials.teamID)), ("iat", .int(Int64(Date().timeIntervalSince1970)))])
        return try JWT.signES256(keyID: APNsTestCredentials.keyID, claims: claims, key: key)
    }

    /// curl through the proxy to `https://host:port/3/device/…`: (CONNECT status, final status, curl exit, body).
    func curl(_ r: Running, _ host: String, port: Int = 443, token: String = String(repeating: "ab", count: 32)) throws
        -> (connect: Int, status: Int, exit: Int32, body: String, stderr: String) {
        let bodyFile = FileManager.default.temporaryDirectory.appendingPathComponent("pd-proxy-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: bodyFile) }
        let res = try runCommand(["curl", "-sS", "--noproxy", "", "--proxy", r.proxy.url, "--cacert", r.ca, "--http2",
                                  "-o", bodyFile, "-w", "%{http_connect} %{http_code}",
                                  "-H", "authorization: bearer \(try jwt())", "-H", "apns-topic: \(APNsTestCredentials.topic)",
                                  "--data-binary", #"{"aps":{"alert":"via proxy"}}"#, "https://\(host):\(port)/3/device/\(token)"])
        let codes = res.stdout.split(separator: " ").map { Int($0) ?? -1 }
        return (codes.first ?? -1, codes.count > 1 ? codes[1] : -1, res.status,
                (try? String(contentsOfFile: bodyFile, encoding: .utf8)) ?? "", res.stderr)
    }

    func apnsID(_ e: Exchange) -> String? { ProxiedDouble.apnsID(e) }

    func python(_ args: [String], env: [String: String] = [:], timeout: Double = 120) throws -> JSONValue {
        try requireTool("python3")
        var command = ["python3", Self.script] + args
        if !env.isEmpty { command = ["env"] + env.map { "\($0)=\($1)" } + command }
        let r = try runCommand(command, timeout: timeout)
        XCTAssertEqual(r.status, 0, "stdout: \(r.stdout)\nstderr: \(r.stderr.suffix(3000))")
        let line = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
        guard let v = try? JSONValue.parse(line) else {
            XCTFail("no JSON line: \(r.stdout)\n\(r.stderr.suffix(3000))")
            return .null
        }
        return v
    }

    // MARK: reaching the fake by the real names

    func testCurlReachesAPNsByApplesHostNamesAndEnvironments() throws {
        let r = try start()
        let cases: [(String, Int, String)] = [("api.push.apple.com", 443, "production"), ("api.push.apple.com", 2197, "production"),
                                              ("api.sandbox.push.apple.com", 443, "sandbox"),
                                              ("api.development.push.apple.com", 2197, "sandbox")]
        for (host, port, _) in cases {
            let c = try curl(r, host, port: port)
            XCTAssertEqual(c.exit, 0, "\(host):\(port): \(c.stderr)")
            XCTAssertEqual(c.connect, 200, "\(host):\(port)")
            XCTAssertEqual(c.status, 200, "\(host):\(port): \(c.body)")
        }
        let history = r.server.history.all
        XCTAssertEqual(history.map(\.environment), cases.map { Optional($0.2) })
        XCTAssertEqual(history.map(\.response.status), [200, 200, 200, 200])
        XCTAssertEqual(r.refusals.withLock { $0 }, [])
        // An error answer is the fake's own, too (BadDeviceToken for a short token).
        let bad = try curl(r, "api.push.apple.com", token: "abc")
        XCTAssertEqual(bad.status, 400)
        XCTAssertTrue(bad.body.contains("BadDeviceToken"), bad.body)
    }

    /// Every provider's declared names are routed the same way: Expo's `exp.host:443` reaches
    /// the Expo fake (the proxy names no provider; the routes come from the registry).
    func testCurlReachesEveryDeclaredRealHost() throws {
        let r = try start()
        let declared = FakeRegistry.modules.flatMap(\.listenerDefaults).flatMap(\.realHosts)
        XCTAssertTrue(declared.contains("exp.host:443"), "\(declared)")
        let bodyFile = FileManager.default.temporaryDirectory.appendingPathComponent("pd-proxy-expo-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: bodyFile) }
        let res = try runCommand(["curl", "-sS", "--noproxy", "", "--proxy", r.proxy.url, "--cacert", r.ca, "--http2",
                                  "-o", bodyFile, "-w", "%{http_connect} %{http_code}",
                                  "-H", "authorization: Bearer \(ExpoTestCredentials.accessToken)",
                                  "-H", "content-type: application/json",
                                  "--data-binary", #"[{"to":"ExponentPushToken[proxyproxyproxy0001]","title":"via proxy"}]"#,
                                  "https://exp.host/--/api/v2/push/send"])
        XCTAssertEqual(res.stdout, "200 200", res.stderr)
        let body = (try? String(contentsOfFile: bodyFile, encoding: .utf8)) ?? ""
        XCTAssertTrue(body.contains(#""status":"ok""#), body)
        let entry = try XCTUnwrap(r.server.history.all.first)
        XCTAssertEqual(entry.provider.rawValue, "expo")
        XCTAssertEqual(entry.transport.connection.tls?.serverName, "exp.host")
        XCTAssertEqual(entry.transport.connection.listener, "expo")
    }

    /// curl with no proxy or CA option, only the environment lines the double printed
    /// (what `eval "$(pushdouble env --shell)"` sets): https_proxy and CURL_CA_BUNDLE.
    func testCurlWithOnlyThePrintedEnvironment() throws {
        let r = try start()
        XCTAssertEqual(r.env["CURL_CA_BUNDLE"], r.ca)
        try requireTool("curl")
        let res = try runCommand(["env"] + r.kit.environment.map { "\($0)=\($1)" }
                                 + ["curl", "-sS", "--http2", "-o", "/dev/null", "-w", "%{http_connect} %{http_code}",
                                    "-H", "authorization: bearer \(try jwt())", "-H", "apns-topic: \(APNsTestCredentials.topic)",
                                    "--data-binary", #"{"aps":{}}"#, "https://api.push.apple.com/3/device/" + String(repeating: "ab", count: 32)])
        XCTAssertEqual(res.stdout, "200 200", res.stderr)
        XCTAssertEqual(r.server.history.all.map(\.environment), ["production"])
    }

    func testOtherHostsArePlainHTTPAreRefusedLoggedAndNeverConnected() throws {
        let r = try start()
        // A loopback listener of our own: a proxy that connected out would reach it.
        let (listenFD, port) = try loopbackListener()
        defer { close(listenFD) }
        for target in ["example.com", "127.0.0.1", "localhost"] {
            let c = try curl(r, target, port: target == "example.com" ? 443 : port)
            XCTAssertEqual(c.connect, 403, target)
            XCTAssertNotEqual(c.exit, 0, target)
        }
        // Apple's host on a port APNs does not use is refused as well.
        XCTAssertEqual(try curl(r, "api.push.apple.com", port: 8443).connect, 403)
        let plain = try runCommand(["curl", "-sS", "--noproxy", "", "--proxy", r.proxy.url, "-o", "-", "-w", "\n%{http_code}",
                                    "http://example.com/"])
        XCTAssertTrue(plain.stdout.hasSuffix("\n403"), plain.stdout)
        XCTAssertTrue(plain.stdout.contains("only CONNECT is served"), plain.stdout)
        XCTAssertTrue(plain.stdout.contains("api.push.apple.com:443"), plain.stdout)
        var st = sockaddr_storage(), len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let accepted = withUnsafeMutablePointer(to: &st) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listenFD, $0, &len) } }
        XCTAssertEqual(accepted, -1, "the proxy connected to a loopback target")
        let logged = r.refusals.withLock { $0 }
        XCTAssertEqual(logged.map(\.request), ["CONNECT example.com:443", "CONNECT 127.0.0.1:\(port)", "CONNECT localhost:\(port)",
                                               "CONNECT api.push.apple.com:8443", "GET http://example.com/"])
        XCTAssertEqual(logged.map(\.status), [403, 403, 403, 403, 403])
        XCTAssertTrue(logged.allSatisfy { $0.peer.hasPrefix("127.0.0.1:") })
        XCTAssertEqual(r.server.history.all.count, 0)
    }

    /// A listening socket on 127.0.0.1 (non-blocking) and its port.
    func loopbackListener() throws -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        XCTAssertEqual(rc, 0)
        XCTAssertEqual(listen(fd, 16), 0)
        var bound = sockaddr_in(), len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return (fd, Int(UInt16(bigEndian: bound.sin_port)))
    }

    func testHttpxWithApplesHostThroughTheProxy() throws {
        let r = try start()
        let v = try python(["httpx", "--proxy", r.proxy.url, "--ca", r.ca, "--jwt", try jwt(), "--topic", APNsTestCredentials.topic,
                            "--token", String(repeating: "cd", count: 32), "--host", "api.sandbox.push.apple.com"])
        try assertDelivered(v, version: ("http_version", "HTTP/2"), environment: "sandbox", in: r)
    }

    /// A client's result line says 200 over HTTP/2 with the apns-id of the one exchange the
    /// fake recorded, in `environment`.
    func assertDelivered(_ v: JSONValue, version: (key: String, value: String), environment: String, in r: Running,
                         file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(v["status"], .int(200), "\(v)", file: file, line: line)
        XCTAssertEqual(v[version.key], .string(version.value), file: file, line: line)
        let recorded = try XCTUnwrap(r.server.history.all.first, file: file, line: line)
        XCTAssertEqual(recorded.environment, environment, file: file, line: line)
        XCTAssertEqual(v["apns_id"]?.stringValue?.lowercased(), apnsID(recorded), file: file, line: line)
    }

    /// kalyke-apns as shipped: Apple's URLs are compiled in; only HTTPS_PROXY (the double's
    /// printed environment line) and SSL_CERT_FILE point it at the fake.
    func testUnmodifiedKalykeThroughHTTPSProxy() throws {
        let r = try start()
        let env = r.env
        XCTAssertEqual(env["HTTPS_PROXY"], r.proxy.url)
        XCTAssertEqual(env["https_proxy"], r.proxy.url)
        let v = try python(["kalyke", "--key", try XCTUnwrap(env["APNS_KEY_FILE"]), "--key-id", APNsTestCredentials.keyID,
                            "--team-id", APNsTestCredentials.teamID, "--topic", APNsTestCredentials.topic],
                           env: ["HTTPS_PROXY": r.proxy.url, "SSL_CERT_FILE": r.ca])
        let history = r.server.history.all
        XCTAssertEqual(history.map(\.environment), ["production", "sandbox"], "\(v)")
        XCTAssertEqual(history.map(\.response.status), [200, 200])
        XCTAssertEqual(v["results"]?["production"]?.stringValue?.lowercased(), history.first.flatMap(apnsID))
        XCTAssertEqual(history.first?.auth?.keyID, APNsTestCredentials.keyID)
    }

    /// Java's default `HttpClient` with Apple's host in the code and nothing else: the proxy
    /// comes from `JAVA_TOOL_OPTIONS` (`-Dhttps.proxyHost/-Dhttps.proxyPort`), the CA from a
    /// PKCS#12 trust store made with keytool (the docs/crypto.md recipe).
    func testJavaHttpClientThroughJavaToolOptions() throws {
        let r = try start()
        let store = r.kit.directory.appendingPathComponent("truststore.p12").path
        let k = try runCommand(["keytool", "-importcert", "-noprompt", "-alias", "pushdouble-test-ca", "-file", r.ca,
                                "-keystore", store, "-storetype", "PKCS12", "-storepass", "changeit"])
        XCTAssertEqual(k.status, 0, k.stderr)
        try requireTool("java")
        let probe = URL(fileURLWithPath: Self.script).deletingLastPathComponent().appendingPathComponent("ProxyProbe.java").path
        let j = try runCommand(["env", "JAVA_TOOL_OPTIONS=-Dhttps.proxyHost=\(r.proxy.host) -Dhttps.proxyPort=\(r.proxy.port)",
                                "java", "-Djavax.net.ssl.trustStore=\(store)", "-Djavax.net.ssl.trustStorePassword=changeit", probe,
                                "api.push.apple.com", try jwt(), String(repeating: "ef", count: 32), APNsTestCredentials.topic],
                               timeout: 120)
        XCTAssertEqual(j.status, 0, j.stderr)
        try assertDelivered(try JSONValue.parse(j.stdout.trimmingCharacters(in: .whitespacesAndNewlines)),
                            version: ("version", "HTTP_2"), environment: "production", in: r)
    }

    // MARK: bounded

    func testThousandConcurrentTunnels() throws {
        let r = try start()
        let admin = try XCTUnwrap(r.server.endpoint(named: "admin")).url
        let v = try python(["tunnels", "--proxy", "\(r.proxy.host):\(r.proxy.port)", "--ca", r.ca, "--target", "api.push.apple.com:443",
                            "--admin", admin, "--count", "1000"], timeout: 240)
        XCTAssertEqual(v["opened"], .int(1000), "\(v)")
        XCTAssertEqual(v["alpn"], .array([.string("h2")]))
        let production = v["listeners"]?.arrayValue?.first { $0["name"] == .string("apns-production") }
        XCTAssertGreaterThanOrEqual(production?["open"]?.intValue ?? 0, 1000, "\(v)")
        // Still serving, and every tunnel is released.
        XCTAssertEqual(try curl(r, "api.push.apple.com").status, 200)
        let deadline = Date().addingTimeInterval(10)
        while r.server.history.all.isEmpty || openConnections(r, "apns-production") > 0 && Date() < deadline { usleep(50_000) }
        XCTAssertEqual(openConnections(r, "apns-production"), 0)
        XCTAssertEqual(openConnections(r, PushDoubleServer.proxyListener), 0)
    }

    func openConnections(_ r: Running, _ name: String) -> Int {
        guard let admin = r.server.endpoint(named: "admin"),
              let res = try? runCommand(["curl", "-sS", admin.url + "/health"]),
              let v = try? JSONValue.parse(res.stdout) else { return -1 }
        return v["listeners"]?.arrayValue?.first { $0["name"] == .string(name) }?["open"]?.intValue.map(Int.init) ?? -1
    }

    func testGarbageHalfOpenAndIdleTunnelsAreClosedAndTheProxyKeepsServing() throws {
        let r = try start(tlsHandshakeTimeout: 1, headTimeout: 1)
        let v = try python(["garbage", "--proxy", "\(r.proxy.host):\(r.proxy.port)", "--target", "api.push.apple.com:443",
                            "--timeout-bound", "6"])
        func c(_ name: String) -> (status: String, closed: Double?) {
            (v[name]?["status"]?.stringValue ?? "?", v[name]?["closed_after"]?.doubleValue)
        }
        for name in ["binary", "client_hello", "oversized_head"] {
            XCTAssertEqual(c(name).status, "HTTP/1.1 400 Bad Request", "\(name): \(v)")
            XCTAssertNotNil(c(name).closed, name)
        }
        // Heads never finished and silent sockets: closed by the proxy's head timeout (1 s).
        for name in ["unfinished_head", "silent"] {
            XCTAssertEqual(c(name).status, "", name)
            XCTAssertLessThan(c(name).closed ?? 99, 4, "\(name): \(v)")
        }
        // A tunnel nobody speaks TLS in: closed by the APNs listener's handshake timeout (1 s).
        XCTAssertEqual(c("idle_tunnel").status, "HTTP/1.1 200 Connection established")
        XCTAssertLessThan(c("idle_tunnel").closed ?? 99, 4, "\(v)")
        // Half-closed right after CONNECT: the tunnel's listener sees the end of input and closes.
        XCTAssertEqual(c("half_closed_tunnel").status, "HTTP/1.1 200 Connection established")
        XCTAssertLessThan(c("half_closed_tunnel").closed ?? 99, 4, "\(v)")
        XCTAssertEqual(r.refusals.withLock { $0.map(\.status) }, [400, 400, 400])
        XCTAssertEqual(try curl(r, "api.push.apple.com").status, 200)
        XCTAssertEqual(openConnections(r, PushDoubleServer.proxyListener), 0)
    }

    func testProxyIsAnEndpointAndItsEnvironmentLines() throws {
        let r = try start()
        XCTAssertNil(r.proxy.provider)
        XCTAssertTrue(r.proxy.url.hasPrefix("http://127.0.0.1:"), r.proxy.url)
        let admin = try XCTUnwrap(r.server.endpoint(named: "admin"))
        let listed = try runCommand(["curl", "-sS", admin.url + "/endpoints"])
        XCTAssertTrue(listed.stdout.contains(#""name":"proxy""#), listed.stdout)
        XCTAssertEqual(r.env["NO_PROXY"], "127.0.0.1,localhost,::1")
        // Off by default in the library: no listener, no proxy lines.
        let plain = PushDoubleServer(configuration: .ephemeral())
        try plain.start()
        defer { plain.stop() }
        XCTAssertNil(plain.endpoint(named: PushDoubleServer.proxyListener))
        let kit = try plain.senderKit()
        defer { kit.remove() }
        XCTAssertFalse(kit.environment.contains { $0.0 == "HTTPS_PROXY" })
    }
}
