import Foundation
import XCTest
import PushDoubleTestSupport
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleAPNs
import PushDouble

/// The real-client matrix (docs/apns.md "Real-client matrix"): independent APNs client
/// libraries from PyPI, each driven by its own script Tests/Interop/apns_<library>.py
/// against the fake in `PushDoubleServer` with the shipped test credentials
/// (Certificates/). Each script is given only host, ports, CA and .p8 key (with its key
/// and team id) and checks success, 410 Unregistered with its timestamp, BadDeviceToken
/// and ExpiredProviderToken through the library's own result and exception types; this
/// side checks that the fake's history saw those answers.
final class APNsClientMatrixTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "python3 (APNs client libraries)") }

    /// Tests/Interop, next to this file's folder.
    static let interop = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interop")
    static let certificates = interop.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Certificates")

    /// kalyke signs `"iat": str(int(datetime.now().timestamp()))`: a digit string.
    func testKalykeAPNs() throws { try runMatrix(script: "apns_kalyke.py", distribution: "kalyke-apns", iatForm: .string) }

    /// pyapns-client3 signs `"iat": time.time()`: a number with a fraction.
    func testPyAPNsClient3() throws { try runMatrix(script: "apns_pyapns_client.py", distribution: "pyapns-client3", iatForm: .fraction) }

    /// mopyapns signs `"iat": time.time()`: a number with a fraction.
    func testMopyapns() throws { try runMatrix(script: "apns_mopyapns.py", distribution: "mopyapns", iatForm: .fraction) }

    /// Starts the fake, runs one library's script, and checks its result line and the history.
    /// `iatForm`: how the library writes `iat`, as the fake records it.
    func runMatrix(script: String, distribution: String, iatForm: NumericDateClaim.Form) throws {
        let server = try startShippedAPNsServer()
        let production = try XCTUnwrap(server.endpoint(named: "apns-production"))
        let sandbox = try XCTUnwrap(server.endpoint(named: "apns-sandbox"))
        let r = try runCommand(["python3", Self.interop.appendingPathComponent(script).path,
                                "--host", production.host,
                                "--production-port", String(production.port), "--sandbox-port", String(sandbox.port),
                                "--ca", Self.certificates.appendingPathComponent("pushdouble-test-ca.pem").path,
                                "--key", Self.certificates.appendingPathComponent("AuthKey_PDTESTKEY1.p8").path,
                                "--key-id", APNsTestCredentials.keyID, "--team-id", APNsTestCredentials.teamID,
                                "--topic", APNsTestCredentials.topic], timeout: 120)
        let line = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
        if r.status == 2 {
            // The script's own message: "<distribution> is not installed (run bash .ci/run or pip install …)".
            return XCTFail(line.isEmpty ? "\(distribution) is not installed (run bash .ci/run or pip install \(distribution))" : line)
        }
        XCTAssertEqual(r.status, 0, "\(distribution) stdout: \(r.stdout)\nstderr: \(r.stderr.suffix(3000))")
        guard let result = try? APNsPayloadDecoder.decode(Array(line.utf8)).get() else {
            return XCTFail("\(distribution): no JSON result line\nstdout: \(r.stdout)\nstderr: \(r.stderr.suffix(3000))")
        }
        XCTAssertEqual(result["library"], .string(distribution))
        XCTAssertEqual(result["failures"], JSONValue.array([]), distribution)
        for name in ["success_production", "success_sandbox", "unregistered", "badDeviceToken", "expired"] {
            XCTAssertNotNil(result["results"]?[name], "\(distribution): no result for \(name)")
        }
        checkHistory(server.history.all, distribution: distribution, iatForm: iatForm)
    }

    /// The answers the library reported are the ones the fake recorded, each for a JWT
    /// signed with the shipped key.
    func checkHistory(_ history: [Exchange], distribution: String, iatForm: NumericDateClaim.Form) {
        let byReason = Dictionary(grouping: history, by: { $0.response.reason ?? "" })
        XCTAssertEqual(Set(history.filter { $0.response.status == 200 }.compactMap(\.environment)), ["production", "sandbox"],
                       "\(distribution): a success on each listener")
        XCTAssertEqual(byReason["Unregistered"]?.first?.response.status, 410, distribution)
        XCTAssertEqual(byReason["Unregistered"]?.first?.response.body, #"{"reason":"Unregistered","timestamp":1704067200000}"#)
        XCTAssertEqual(byReason["BadDeviceToken"]?.first?.response.status, 400, distribution)
        XCTAssertEqual(byReason["ExpiredProviderToken"]?.first?.response.status, 403, distribution)
        // Only the stale-clock case may be refused for its token.
        let otherAuthFailures = history.filter { $0.response.status == 403 && $0.response.reason != "ExpiredProviderToken" }
        XCTAssertEqual(otherAuthFailures.map { $0.response.reason ?? "?" }, [], "\(distribution): unexpected 403s")
        // The successes carry a current iat; the refused token is stale only because the
        // script ran the library's token clock behind (not for any other claim).
        let now = Date().timeIntervalSince1970
        for ok in history where ok.response.status == 200 {
            XCTAssertEqual(ok.auth?.keyID, APNsTestCredentials.keyID, distribution)
            XCTAssertEqual(ok.auth?.extra[APNsVerifiedToken.iatFormKey], iatForm.rawValue, "\(distribution): form of iat")
            XCTAssertLessThan(abs(Double(ok.auth?.issuedAt ?? 0) - now), 300, "\(distribution): iat of a success")
        }
        let staleIAT = Double(byReason["ExpiredProviderToken"]?.first?.auth?.issuedAt ?? Int64(now))
        XCTAssertGreaterThan(now - staleIAT, APNsTokenTiming().maxAge, "\(distribution): iat of the expired token")
    }

}
