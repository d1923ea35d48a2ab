import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
import PushDouble
import PushDoubleCore
import PushDoubleCoreTestSupport
import PushDoubleTestSupport
@testable import pushdouble

/// `serve` as a container runs it (docs/containers.md), over real sockets: listening on every
/// interface while advertising another host name, everything a sender outside needs downloaded
/// from the admin port, `/metrics` read by Prometheus's own Python parser, the exchange log as
/// JSON lines, and a clean stop on SIGTERM.
final class ContainerServeTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "curl", "openssl", "python3 (prometheus_client)", "sh") }

    private func tempDir() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("pd-container-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: d) }
        return d
    }

    /// Waits until the endpoints file exists and `console` shows `ready`.
    private func waitReady(_ run: BackgroundServe, console: Captured, file: URL) -> Bool {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if console.value.contains("ready"), FileManager.default.fileExists(atPath: file.path) { return true }
            usleep(5_000)
        }
        return false
    }

    /// The advertised host is in every URL, the environment, the inbox line and the service
    /// account's `token_uri`; the reissued server certificate verifies for it; the downloads
    /// rebuild a working sender directory with nothing but curl and sh.
    func testAdvertisedHostAndDownloadsSetUpASenderOutside() throws {
        let dir = try tempDir()
        let endpointsFile = dir.appendingPathComponent("endpoints.json")
        let run = BackgroundServe(["--ephemeral", "--quiet", "--host", "0.0.0.0", "--advertised-host", "pushdouble.test",
                                   "--endpoints-file", endpointsFile.path], mode: .serve)
        XCTAssertTrue(waitReady(run, console: run.out, file: endpointsFile), run.out.value + run.err.value)
        let (urls, env) = try endpointsDocument(endpointsFile)
        let admin = try XCTUnwrap(urls["admin"])
        XCTAssertTrue(admin.hasPrefix("http://pushdouble.test:"), admin)
        for (name, url) in urls { XCTAssertTrue(url.contains("://pushdouble.test:"), "\(name) \(url)") }
        XCTAssertTrue(run.out.value.contains("inbox (web UI): \(admin)/inbox"), run.out.value)
        XCTAssertEqual(env["NO_PROXY"], "127.0.0.1,localhost,::1,pushdouble.test")
        // The admin port is reached on loopback; the names it hands out say pushdouble.test.
        let port = try XCTUnwrap(URLComponents(string: admin)?.port)
        let local = "http://127.0.0.1:\(port)"
        let resolve = urls.values.compactMap { URLComponents(string: $0)?.port }.flatMap { ["--resolve", "pushdouble.test:\($0):127.0.0.1"] }

        let endpoints = try Curl.call("GET", local + "/endpoints")
        XCTAssertTrue(endpoints.body.contains("\"url\":\"http://pushdouble.test:\(port)\""), endpoints.body)

        let ca = try Curl.call("GET", local + "/ca.pem")
        XCTAssertEqual(ca.code, 200)
        XCTAssertEqual(ca.body, FakeRegistry.embeddedCredentials?.caPEM)
        let kit = dir.appendingPathComponent("kit").path
        let files = try Curl.call("GET", local + "/sender/files")
        let names = try XCTUnwrap(files.json as? [String])
        for name in ["AuthKey_PDTESTKEY1.p8", "ca.pem", "firebase-service-account.json", "vapid-test-private.pem",
                     "apns-cert-universal.pem", "apns-cert-universal.p12"] {
            XCTAssertTrue(names.contains(name), "\(name) not in \(names)")
        }
        XCTAssertEqual(names, names.sorted())
        // A binary file (PKCS#12) comes byte for byte.
        let p12 = try runCommand(["sh", "-c", "curl -fsS '\(local)/sender/files/apns-cert-universal.p12' | openssl pkcs12 -nokeys -passin pass:pushdouble -noout && echo ok"])
        XCTAssertEqual(p12.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "ok", p12.stderr)
        XCTAssertEqual(try Curl.call("GET", local + "/sender/files/nope.pem").code, 404)
        XCTAssertEqual(try Curl.call("GET", local + "/sender/environment?dir=relative").code, 400)
        XCTAssertEqual(try Curl.call("GET", local + "/sender/environment?format=yaml").code, 400)
        let json = try XCTUnwrap(try Curl.call("GET", local + "/sender/environment?dir=\(kit)").json as? [String: String])
        XCTAssertEqual(json["SSL_CERT_FILE"], kit + "/ca.pem")
        XCTAssertEqual(json["APNS_URL"], urls["apns-production"])
        let dotenv = try Curl.call("GET", local + "/sender/environment?format=dotenv&dir=\(kit)").body
        XCTAssertTrue(dotenv.contains("GOOGLE_APPLICATION_CREDENTIALS=\(kit)/firebase-service-account.json\n"), dotenv)

        // eval the setup script in sh: files written, variables exported, the CA verifies the
        // server certificate for the advertised name (curl with --resolve, no -k).
        let setup = try Curl.call("GET", local + "/sender/setup.sh?dir=\(kit)").body
        let script = setup + """
            grep -q '"token_uri": "https://pushdouble.test:' "$GOOGLE_APPLICATION_CREDENTIALS" || { echo token_uri; exit 3; }
            openssl pkcs12 -in '\(kit)/apns-cert-universal.p12' -nokeys -passin pass:pushdouble -noout || { echo p12; exit 5; }
            [ "$(stat -c %a '\(kit)')" = 700 ] || { echo mode; exit 4; }
            curl -sS -o /dev/null -w '%{http_code}' \(resolve.joined(separator: " ")) -X POST -d '{}' "$FCM_URL/v1/projects/p/messages:send"
            """
        let r = try runCommand(["sh", "-c", script], timeout: 20)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertEqual(r.stdout, "401", "TLS verified for pushdouble.test; FCM answers the unauthenticated send: " + r.stderr)
        let san = try runCommand(["sh", "-c", "openssl s_client -connect 127.0.0.1:\(try XCTUnwrap(URLComponents(string: urls["fcm"]!)?.port)) "
                                        + "-servername pushdouble.test </dev/null 2>/dev/null | openssl x509 -noout -ext subjectAltName"])
        XCTAssertTrue(san.stdout.contains("DNS:pushdouble.test") && san.stdout.contains("DNS:api.push.apple.com"), san.stdout)

        // The image's HEALTHCHECK: healthy while serving, not once stopped.
        let probeOut = Captured(), probeErr = Captured()
        XCTAssertEqual(ProbeCommand.run(["--port", String(port)], out: probeOut.console, err: probeErr.console), 0, probeErr.value)
        XCTAssertTrue(probeOut.value.contains("healthy: HTTP/1.1 200"), probeOut.value)
        XCTAssertEqual(run.stop(with: SIGTERM), 0)
        XCTAssertEqual(ProbeCommand.run(["--port", String(port), "--timeout", "1"], out: probeOut.console, err: probeErr.console), 1)
        XCTAssertTrue(probeErr.value.contains("cannot connect"), probeErr.value)
    }

    /// `/metrics` parsed by prometheus_client's text parser after traffic with a fault rule;
    /// `--log-format json` puts one JSON object per exchange on stdout (the banner on stderr).
    func testMetricsParseWithPrometheusParserAndLogIsJSONLines() throws {
        let dir = try tempDir()
        let endpointsFile = dir.appendingPathComponent("endpoints.json")
        let spec = FakeListenerSpec(name: "test", defaultPort: 0, fake: TestFake(), useTLS: false)
        let run = BackgroundServe(["--ephemeral", "--log-format", "json", "--endpoints-file", endpointsFile.path],
                                  mode: .serve, fakes: [spec], credentials: .some(nil))
        XCTAssertTrue(waitReady(run, console: run.err, file: endpointsFile), run.out.value + run.err.value)
        let urls = try endpointsDocument(endpointsFile).urls
        let admin = try XCTUnwrap(urls["admin"]), fake = try XCTUnwrap(urls["test"])
        let rule = #"{"id":"slow-down","match":{"provider":"test","nth":2},"action":{"type":"respond","status":429,"reason":"TooManyRequests"},"times":1}"#
        XCTAssertEqual(try Curl.call("POST", admin + "/faults", body: rule).code, 201)
        for token in ["a", "b", "c"] {
            _ = try Curl.call("POST", fake + "/push/\(token)", body: "{}", headers: ["authorization: ok"])
        }
        let scrape = try Curl.call("GET", admin + "/metrics")
        XCTAssertEqual(scrape.code, 200)
        XCTAssertEqual(scrape.header("content-type"), PrometheusText.contentType)
        let parser = """
            import json, sys
            from prometheus_client.parser import text_string_to_metric_families
            out = []
            for family in text_string_to_metric_families(sys.stdin.read()):
                for s in family.samples:
                    out.append([family.type, s.name, s.labels, s.value])
            print(json.dumps(out))
            """
        let parsed = try runCommand(["python3", "-c", parser], input: Data(scrape.body.utf8))
        XCTAssertEqual(parsed.status, 0, parsed.stderr)
        let samples = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(parsed.stdout.utf8)) as? [[Any]])
        func value(_ name: String, _ labels: [String: String]) -> Double? {
            samples.first { ($0[1] as? String) == name && ($0[2] as? [String: String]) == labels }?[3] as? Double
        }
        XCTAssertEqual(value("pushdouble_exchanges_total", ["provider": "test", "endpoint": "test.push", "status": "200", "reason": ""]), 2)
        XCTAssertEqual(value("pushdouble_exchanges_total", ["provider": "test", "endpoint": "test.push", "status": "429", "reason": "TooManyRequests"]), 1)
        XCTAssertEqual(value("pushdouble_fault_rules_fired_total", ["provider": "test", "rule": "slow-down"]), 1)
        XCTAssertEqual(value("pushdouble_request_duration_seconds_count", ["provider": "test"]), 3)
        XCTAssertEqual(value("pushdouble_request_duration_seconds_bucket", ["provider": "test", "le": "+Inf"]), 3)
        XCTAssertEqual(value("pushdouble_history_exchanges", [:]), 3)
        XCTAssertNotNil(value("pushdouble_connections_open", ["listener": "admin"]))
        XCTAssertTrue(samples.contains { ($0[0] as? String) == "histogram" }, "the parser read the histogram family")

        XCTAssertEqual(run.stop(with: SIGTERM), 0)
        let lines = run.out.value.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, run.out.value)
        for (i, line) in lines.enumerated() {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            XCTAssertEqual(object["seq"] as? Int, i + 1)
            XCTAssertEqual(object["provider"] as? String, "test")
        }
        XCTAssertTrue(run.err.value.contains("pushdouble serve: listening") && run.err.value.contains("stopping (3 exchanges, 0 dropped)"),
                      run.err.value)
    }

    /// `--no-metrics`: nothing counted, `/metrics` is a 404 in the admin API's error shape.
    func testNoMetricsAnswers404() throws {
        let endpointsFile = try tempDir().appendingPathComponent("endpoints.json")
        let run = BackgroundServe(["--ephemeral", "--quiet", "--no-metrics", "--endpoints-file", endpointsFile.path], mode: .serve)
        XCTAssertTrue(waitReady(run, console: run.out, file: endpointsFile), run.out.value + run.err.value)
        let admin = try XCTUnwrap(try endpointsDocument(endpointsFile).urls["admin"])
        let r = try Curl.call("GET", admin + "/metrics")
        XCTAssertEqual(r.code, 404)
        XCTAssertTrue(r.body.hasPrefix(#"{"error":"metrics are off"#), r.body)
        XCTAssertEqual(run.stop(with: SIGTERM), 0)
    }

    func testProbeAndLogFormatUsageErrors() {
        XCTAssertEqual(ProbeCommand.run(["--port", "70000"], out: Captured().console, err: Captured().console), 2)
        for bad in ["pushdouble:8720", "http://pushdouble", "a b", ""] {
            let err = Captured()
            XCTAssertEqual(ServeCommand.run(["--advertised-host", bad], mode: .serve, out: Captured().console, err: err.console), 2, bad)
            XCTAssertTrue(err.value.contains("is not a host name or IP address"), err.value)
        }
        let err = Captured()
        XCTAssertEqual(ServeCommand.run(["--log-format", "xml"], mode: .serve, out: Captured().console, err: err.console), 2)
        XCTAssertTrue(err.value.contains(#"option --log-format: "xml" is not line or json"#), err.value)
    }
}
