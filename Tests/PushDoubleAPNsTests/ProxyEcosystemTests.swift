import Foundation
import XCTest
import PushDoubleAPNs
import PushDoubleTestSupport
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport
import PushDouble

/// Go and Node as unmodified senders through the CONNECT proxy (senders whose hosts are compiled in), each with the real
/// host names compiled in and only the proxy and CA variables of its ecosystem:
/// - Go 1.19+ `net/http` default client (Tests/Interop/go/proxy_client.go, stdlib only):
///   `HTTPS_PROXY` + `SSL_CERT_FILE`; APNs over HTTP/2 through the tunnel, Google's token
///   endpoint and FCM v1.
/// - Node (Tests/Interop/node/proxy_tunnel.mjs, built-ins only): a manual CONNECT tunnel as Node
///   push libraries make it, `NODE_EXTRA_CA_CERTS`; APNs with `http2.connect`, Expo with
///   `https.request` and with the built-in `fetch`.
/// Tools: go, node.
final class ProxyEcosystemTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "go", "node") }

    static let interop = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interop")

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

    /// The two APNs exchanges a client made (a success, then BadDeviceToken) in `environment`,
    /// by `host` (SNI), the first answered with `apnsID`.
    func assertAPNs(_ history: [Exchange], environment: String, host: String, apnsID: String?,
                    file: StaticString = #filePath, line: UInt = #line) {
        let apns = history.filter { $0.provider.rawValue == "apns" }
        XCTAssertEqual(apns.map(\.response.status), [200, 400], file: file, line: line)
        XCTAssertEqual(apns.map(\.environment), [environment, environment], file: file, line: line)
        XCTAssertEqual(apns.first.flatMap(ProxiedDouble.apnsID), apnsID?.lowercased(), file: file, line: line)
        XCTAssertEqual(Set(apns.map(\.transport.version)), [.http2], file: file, line: line)
        XCTAssertEqual(apns.first?.transport.connection.tls?.serverName, host, file: file, line: line)
    }

    func testGoNetHTTPWithOnlyHTTPSProxyAndSSLCertFile() throws {
        try requireTool("go")
        let r = try ProxiedDouble.start(self)
        // go run compiles into a cache: keep it (and GOPATH) inside the build directory, offline.
        let scratch = Self.interop.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(".build/interop-go").path
        let program = Self.interop.appendingPathComponent("go/proxy_client.go").path
        let v = try result(["env", "-u", "NO_PROXY", "-u", "no_proxy", "-u", "https_proxy",
                            "HTTPS_PROXY=" + r.proxy.url, "SSL_CERT_FILE=" + r.ca,
                            "GOPATH=\(scratch)/path", "GOCACHE=\(scratch)/cache", "GOPROXY=off", "GOFLAGS=", "GO111MODULE=off",
                            "go", "run", program, "-apns-key", try XCTUnwrap(r.env["APNS_KEY_FILE"]), "-key-id", APNsTestCredentials.keyID,
                            "-team-id", APNsTestCredentials.teamID, "-topic", APNsTestCredentials.topic,
                            "-service-account", try XCTUnwrap(r.env["FCM_SERVICE_ACCOUNT_FILE"])],
                           expect: ["apns_ok", "apns_bad_token", "oauth_token", "fcm_send"])
        XCTAssertEqual(v["results"]?["apns_ok"]?["proto"], "HTTP/2.0")
        r.server.double.quiesce()
        let history = r.server.history.all
        assertAPNs(history, environment: "sandbox", host: "api.sandbox.push.apple.com",
                   apnsID: v["results"]?["apns_ok"]?["apns_id"]?.stringValue)
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
        let r = try ProxiedDouble.start(self)
        let v = try result(["env", "NODE_EXTRA_CA_CERTS=" + r.ca,
                            "node", Self.interop.appendingPathComponent("node/proxy_tunnel.mjs").path,
                            "--proxy", r.proxy.url, "--apns-key", try XCTUnwrap(r.env["APNS_KEY_FILE"]),
                            "--key-id", APNsTestCredentials.keyID, "--team-id", APNsTestCredentials.teamID,
                            "--topic", APNsTestCredentials.topic, "--expo-token", try XCTUnwrap(r.env["EXPO_ACCESS_TOKEN"])],
                           expect: ["apns_http2", "expo_https", "expo_fetch"], timeout: 120)
        XCTAssertEqual(v["results"]?["apns_http2"]?["alpn"], "h2")
        r.server.double.quiesce()
        let history = r.server.history.all
        assertAPNs(history, environment: "production", host: "api.push.apple.com",
                   apnsID: v["results"]?["apns_http2"]?["apns_id"]?.stringValue)
        let expo = history.filter { $0.provider.rawValue == "expo" }
        XCTAssertEqual(expo.map(\.response.status), [200, 200])
        XCTAssertTrue(expo.allSatisfy { $0.transport.connection.tls?.serverName == "exp.host" && $0.transport.version == .http1_1 })
    }
}
