import Foundation
import XCTest
import PushDouble
import PushDoubleCore
import PushDoubleCrypto
@testable import pushdouble

/// `pushdouble env` (the running instance's environment from its endpoints file) and
/// `pushdouble certs --trust` (trust-store commands, printed only).
final class EnvAndTrustCommandTests: XCTestCase {
    private func tempDir() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("pd-env-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: d) }
        return d
    }

    func testEnvPrintsTheEndpointsFileEnvironment() throws {
        let file = try tempDir().appendingPathComponent("endpoints.json")
        let doc = EndpointsDocument(endpoints: [DoubleEndpoint(name: "proxy", provider: nil, environment: nil, url: "http://127.0.0.1:9",
                                                               host: "127.0.0.1", port: 9)],
                                    environment: ["HTTPS_PROXY": "http://127.0.0.1:9", "SSL_CERT_FILE": "/tmp/a b/ca.pem"])
        try doc.encoded.write(to: file)
        XCTAssertEqual(try EndpointsDocument.read(path: file.path), doc)
        let out = Captured(), err = Captured()
        XCTAssertEqual(EnvCommand.run(["--endpoints-file", file.path], out: out.console, err: err.console), 0, err.value)
        XCTAssertEqual(out.value, "HTTPS_PROXY=http://127.0.0.1:9\nSSL_CERT_FILE=/tmp/a b/ca.pem\n")
        let shell = Captured()
        XCTAssertEqual(EnvCommand.run(["--endpoints-file", file.path, "--shell"], out: shell.console, err: err.console), 0)
        XCTAssertEqual(shell.value, "export HTTPS_PROXY=http://127.0.0.1:9\nexport SSL_CERT_FILE='/tmp/a b/ca.pem'\n")
    }

    func testEnvWithoutARunningInstanceOrWithBadOptions() throws {
        let dir = try tempDir()
        let out = Captured(), err = Captured()
        let missing = dir.appendingPathComponent("none.json").path
        XCTAssertEqual(EnvCommand.run(["--endpoints-file", missing], out: out.console, err: err.console), 1)
        XCTAssertTrue(err.value.contains("cannot read endpoints file \(missing): no such file (start pushdouble serve"), err.value)
        let garbage = dir.appendingPathComponent("bad.json")
        try Data("{".utf8).write(to: garbage)
        XCTAssertEqual(EnvCommand.run(["--endpoints-file", garbage.path], out: out.console, err: err.console), 1)
        XCTAssertEqual(EnvCommand.run(["--bogus"], out: out.console, err: err.console), 2)
        XCTAssertEqual(EnvCommand.run(["--shell", "--shell"], out: out.console, err: err.console), 2)
        XCTAssertEqual(out.value, "")
    }

    /// An endpoints file left by a serve that was killed (its credential directory is gone) is refused.
    func testEnvRefusesAStaleEndpointsFile() throws {
        let dir = try tempDir()
        let file = dir.appendingPathComponent("endpoints.json")
        let gone = dir.appendingPathComponent("pushdouble-1-x/ca.pem").path
        try EndpointsDocument(endpoints: [], environment: ["PUSHDOUBLE_CA_FILE": gone, "SSL_CERT_FILE": gone]).encoded.write(to: file)
        let out = Captured(), err = Captured()
        XCTAssertEqual(EnvCommand.run(["--endpoints-file", file.path], out: out.console, err: err.console), 1)
        XCTAssertTrue(err.value.contains("stale endpoints file \(file.path): its CA file \(gone) is gone"), err.value)
        XCTAssertEqual(out.value, "")
    }

    /// A real `serve` (ephemeral, in process): its endpoints file gives `env` the proxy lines.
    func testEnvOfARunningServeHasTheProxyLines() throws {
        let file = try tempDir().appendingPathComponent("endpoints.json")
        let run = BackgroundServe(["--ephemeral", "--quiet", "--endpoints-file", file.path], mode: .serve)
        XCTAssertTrue(run.waitFor("ready"), run.out.value + run.err.value)
        let (urls, _) = try endpointsDocument(file)
        let proxy = try XCTUnwrap(urls[PushDoubleServer.proxyListener])
        let out = Captured(), err = Captured()
        XCTAssertEqual(EnvCommand.run(["--endpoints-file", file.path, "--shell"], out: out.console, err: err.console), 0, err.value)
        XCTAssertTrue(out.value.contains("export HTTPS_PROXY=\(proxy)\n"), out.value)
        XCTAssertTrue(out.value.contains("export https_proxy=\(proxy)\n"), out.value)
        XCTAssertTrue(out.value.contains("export NO_PROXY=127.0.0.1,localhost,::1\n"), out.value)
        XCTAssertTrue(out.value.contains("export APNS_URL="), out.value)
        // The banner printed the same lines.
        XCTAssertTrue(run.out.value.contains("export HTTPS_PROXY=\(proxy)\n"), run.out.value)
        XCTAssertEqual(run.stop(with: SIGTERM), 0)
    }

    func testServeWithoutTheProxy() throws {
        let file = try tempDir().appendingPathComponent("endpoints.json")
        let run = BackgroundServe(["--ephemeral", "--quiet", "--no-proxy", "--endpoints-file", file.path], mode: .serve)
        XCTAssertTrue(run.waitFor("ready"), run.out.value + run.err.value)
        let (urls, env) = try endpointsDocument(file)
        XCTAssertNil(urls[PushDoubleServer.proxyListener])
        XCTAssertNil(env["HTTPS_PROXY"])
        XCTAssertEqual(run.stop(with: SIGTERM), 0)
    }

    func testTrustPrintsCommandsForTheGivenCA() throws {
        let dir = try tempDir().appendingPathComponent("with space")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let ca = dir.appendingPathComponent("ca.pem")
        try Data(EmbeddedTestCredentials.caPEM.utf8).write(to: ca)
        let out = Captured(), err = Captured()
        XCTAssertEqual(CertsCommand.run(["--trust", "--ca", ca.path], out: out.console, err: err.console), 0, err.value)
        let q = "'\(ca.path)'"
        for line in ["sudo cp \(q) /usr/local/share/ca-certificates/pushdouble-test-ca.crt", "sudo update-ca-certificates",
                     "keytool -importcert -noprompt -trustcacerts -alias pushdouble-test-ca -file \(q) -cacerts -storepass changeit",
                     "export NODE_EXTRA_CA_CERTS=\(q)", "export SSL_CERT_FILE=\(q)", "export REQUESTS_CA_BUNDLE=\(q)"] {
            XCTAssertTrue(out.value.contains("\n" + line + "\n"), line + "\n" + out.value)
        }
        // Every line is a comment, blank, or a command; nothing was run (the file is unchanged).
        XCTAssertEqual(try String(contentsOf: ca, encoding: .utf8), EmbeddedTestCredentials.caPEM)
    }

    func testTrustDefaultsToTheCAServeUses() throws {
        let out = Captured(), err = Captured()
        XCTAssertEqual(CertsCommand.run(["--trust"], out: out.console, err: err.console), 0, err.value)
        XCTAssertTrue(out.value.hasPrefix("# pushdouble test CA: \(CertsCommand.defaultCAFile)\n"), out.value)
        XCTAssertEqual(try String(contentsOfFile: CertsCommand.defaultCAFile, encoding: .utf8), EmbeddedTestCredentials.caPEM)
        XCTAssertEqual(CertsCommand.run([], out: out.console, err: err.console), 2)
        XCTAssertTrue(err.value.contains("missing --out DIR or --trust"), err.value)
        XCTAssertEqual(CertsCommand.run(["--ca", "/x"], out: out.console, err: err.console), 2)
        XCTAssertEqual(CertsCommand.run(["--trust", "--ca", "/nonexistent/ca.pem"], out: out.console, err: err.console), 1)
        XCTAssertTrue(err.value.contains("cannot read CA file /nonexistent/ca.pem"), err.value)
    }
}
