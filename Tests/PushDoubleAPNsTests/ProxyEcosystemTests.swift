import Foundation
import XCTest
import PushDoubleTestSupport
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport
import PushDouble

/// Go and Node as unmodified senders through the CONNECT proxy (issue 15), each with the real
/// host names compiled in and only the proxy and CA variables of its ecosystem:
/// - Go 1.19+ `net/http` default client (Tests/Interop/go/proxy_client.go, stdlib only):
///   `HTTPS_PROXY` + `SSL_CERT_FILE`; APNs over HTTP/2 through the tunnel, Google's token
///   endpoint and FCM v1.
/// - Node (Tests/Interop/node/proxy_tunnel.mjs, built-ins only): a manual CONNECT tunnel as Node
///   push libraries make it, `NODE_EXTRA_CA_CERTS`; APNs with `http2.connect`, Expo with
///   `https.request` and with the built-in `fetch`.
/// Tools: go, node.
final class ProxyEcosystemTests: XCTestCase {
    static let interop = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interop")

    struct Running {
        let server: PushDoubleServer
        let kit: SenderKit
        func env(_ name: String) throws -> String { try XCTUnwrap(kit.environment.first { $0.0 == name }?.1, name) }
    }

    func start() throws -> Running {
        var config = PushDoubleConfiguration.ephemeral()
        config.proxy = true
        config.eventLoopCount = 1
        let server = PushDoubleServer(configuration: config)
        try server.start()
        let kit = try server.senderKit()
        addTeardownBlock { server.stop(); kit.remove() }
        return Running(server: server, kit: kit)
    }

    /// Runs a client that prints one result line; checks exit 0 and no failures, returns the line.
    func result(_ command: [String], expect: [String], timeout: Double = 240) throws -> JSONValue {
        let r = try runCommand(command, timeout: timeout)
        let line = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertEqual(r.status, 0, "stdout: \(r.stdout)\nstderr: \(r.stderr.suffix(3000))")
        let v = try XCTUnwrap(try? JSONValue.parse(line), "no result line: \(r.stdout)\n\(r.stderr.suffix(3000))")
        XCTAssertEqual(v["failures"], JSONValue.array([]))
        for name in expect { XCTAssertNotNil(v["results"]?[name], "no result for \(name): \(v)") }
        return v
    }

    /// The `apns-id` of an exchange's response, lower-cased.
    func apnsID(_ e: Exchange) -> String? {
        e.response.headers.first { $0.first?.lowercased() == "apns-id" }.flatMap { $0.count > 1 ? $0[1].lowercased() : nil }
    }

    func testGoNetHTTPWithOnlyHTTPSProxyAndSSLCertFile() throws {
        try requireTool("go")
        let r = try start()
        // go run compiles into a cache: keep it (and GOPATH) inside the build directory, offline.
        let scratch = Self.interop.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(".build/interop-go").path
        let program = Self.interop.appendingPathComponent("go/proxy_client.go").path
        let v = try result(["env", "-u", "NO_PROXY", "-u", "no_proxy", "-u", "https_proxy",
                            "HTTPS_PROXY=" + (try r.env("HTTPS_PROXY")), "SSL_CERT_FILE=" + (try XCTUnwrap(r.kit.caFile)),
                            "GOPATH=\(scratch)/path", "GOCACHE=\(scratch)/cache", "GOPROXY=off", "GOFLAGS=", "GO111MODULE=off",
                            "go", "run", program, "-apns-key", try r.env("APNS_KEY_FILE"), "-key-id", EmbeddedTestCredentials.apnsKeyID,
                            "-team-id", EmbeddedTestCredentials.apnsTeamID, "-topic", EmbeddedTestCredentials.apnsTopic,
                            "-service-account", try r.env("FCM_SERVICE_ACCOUNT_FILE")],
                           expect: ["apns_ok", "apns_bad_token", "oauth_token", "fcm_send"])
        XCTAssertEqual(v["results"]?["apns_ok"]?["proto"], "HTTP/2.0")
        r.server.double.quiesce()
        let history = r.server.history.all
        let apns = history.filter { $0.provider.rawValue == "apns" }
        XCTAssertEqual(apns.map(\.response.status), [200, 400])
        XCTAssertEqual(apns.map(\.environment), ["sandbox", "sandbox"])
        XCTAssertEqual(apns.first.flatMap(apnsID), v["results"]?["apns_ok"]?["apns_id"]?.stringValue?.lowercased())
        XCTAssertEqual(Set(apns.map(\.transport.version)), [.http2])
        XCTAssertEqual(apns.first?.transport.connection.tls?.serverName, "api.sandbox.push.apple.com")
        let mint = try XCTUnwrap(history.first { $0.endpoint == "oauth.token" })
        XCTAssertEqual(mint.response.status, 200)
        XCTAssertEqual(mint.transport.connection.tls?.serverName, "oauth2.googleapis.com")
        let send = try XCTUnwrap(history.first { $0.endpoint == "fcm.send" })
        XCTAssertEqual(send.response.status, 200)
        XCTAssertEqual(send.request.authority?.lowercased(), "fcm.googleapis.com")
        XCTAssertEqual(send.transport.version, .http2)
    }

    func testNodeTunnelsAPNsOverHTTP2AndExpoOverHTTPSAndFetch() throws {
        try requireTool("node")
        let r = try start()
        let v = try result(["env", "NODE_EXTRA_CA_CERTS=" + (try XCTUnwrap(r.kit.caFile)),
                            "node", Self.interop.appendingPathComponent("node/proxy_tunnel.mjs").path,
                            "--proxy", try r.env("HTTPS_PROXY"), "--apns-key", try r.env("APNS_KEY_FILE"),
                            "--key-id", EmbeddedTestCredentials.apnsKeyID, "--team-id", EmbeddedTestCredentials.apnsTeamID,
                            "--topic", EmbeddedTestCredentials.apnsTopic, "--expo-token", try r.env("EXPO_ACCESS_TOKEN")],
                           expect: ["apns_http2", "expo_https", "expo_fetch"], timeout: 120)
        XCTAssertEqual(v["results"]?["apns_http2"]?["alpn"], "h2")
        r.server.double.quiesce()
        let history = r.server.history.all
        let apns = history.filter { $0.provider.rawValue == "apns" }
        XCTAssertEqual(apns.map(\.response.status), [200, 400])
        XCTAssertEqual(apns.map(\.environment), ["production", "production"])
        XCTAssertEqual(apns.first.flatMap(apnsID), v["results"]?["apns_http2"]?["apns_id"]?.stringValue?.lowercased())
        XCTAssertEqual(apns.first?.transport.connection.tls?.serverName, "api.push.apple.com")
        let expo = history.filter { $0.provider.rawValue == "expo" }
        XCTAssertEqual(expo.map(\.response.status), [200, 200])
        XCTAssertTrue(expo.allSatisfy { $0.transport.connection.tls?.serverName == "exp.host" && $0.transport.version == .http1_1 })
    }
}
