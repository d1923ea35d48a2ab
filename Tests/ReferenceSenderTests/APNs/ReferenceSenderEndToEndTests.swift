import Foundation
import XCTest
import PushDoubleTestSupport
import PushDouble
import PushDoubleAPNs
import PushDoubleCore
import PushDoubleCrypto

/// The reference sender against the real APNs fake over TLS + HTTP/2, in-process
/// `PushDoubleServer` with the shipped credentials; outcomes are compared with the history
/// the fake recorded.
final class ReferenceSenderEndToEndTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "the reference sender's process") }

    struct Running {
        var server: PushDoubleServer
        var sender: ReferenceSenderProcess
        var production: String
        var sandbox: String
    }

    /// A well-formed token that the fake accepts (open world).
    static func token(_ n: Int) -> String { "ab" + String(format: "%062x", n) }
    /// A magic token (docs/apns.md): eight zeros, the status, a variant digit.
    static func magic(_ kind: String, _ n: Int = 0) -> String { "00000000" + kind + String(format: "%052x", n) }

    /// The in-process server (shipped credentials, the configuration's default), a temporary
    /// directory with the test CA and `files` written in it, and the reference sender
    /// initialized with `apns` (its `url`, `sandboxUrl` and `caFile` added).
    private func start(mutant: String? = nil, files: [String: String], apns: (URL) -> [String: Any]) throws -> Running {
        var config = PushDoubleConfiguration.ephemeral(fakes: APNsFake.listenerSpecs())
        config.admin = false
        config.eventLoopCount = 1
        let server = PushDoubleServer(configuration: config)
        try server.start()
        addTeardownBlock { server.stop() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("refsender-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let ca = dir.appendingPathComponent("ca.pem").path
        try EmbeddedTestCredentials.caPEM.write(toFile: ca, atomically: true, encoding: .utf8)
        for (name, text) in files { try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        let production = try XCTUnwrap(server.endpoint(named: "apns-production")).url
        let sandbox = try XCTUnwrap(server.endpoint(named: "apns-sandbox")).url
        let sender = try ReferenceSenderProcess(arguments: mutant.map { ["--mutant", $0] } ?? [])
        var params = apns(dir)
        params["url"] = production; params["sandboxUrl"] = sandbox; params["caFile"] = ca
        let r = try sender.result("initialize", ["protocolVersion": 1, "providers": ["apns": params]])
        XCTAssertEqual(r["providers"] as? [String], ["apns"])
        return Running(server: server, sender: sender, production: production, sandbox: sandbox)
    }

    /// Token auth with the shipped key.
    private func start(mutant: String? = nil) throws -> Running {
        try start(mutant: mutant, files: ["AuthKey.p8": APNsTestCredentials.keyPEM]) { dir in
            ["keyFile": dir.appendingPathComponent("AuthKey.p8").path, "keyId": APNsTestCredentials.keyID,
             "teamId": APNsTestCredentials.teamID, "topic": APNsTestCredentials.topic]
        }
    }

    /// The reference sender in certificate mode (`providers.apns.certFile`, no key): the
    /// shipped provider certificate `kind` presented on every connection, no `authorization`.
    private func startWithCertificate(_ kind: APNsTestCredentials.ProviderCertificate, mutant: String? = nil) throws -> Running {
        try start(mutant: mutant, files: [kind.pemFileName: kind.pem]) { dir in
            ["certFile": dir.appendingPathComponent(kind.pemFileName).path, "topic": APNsTestCredentials.topic]
        }
    }

    func testCertificateModeSendsWithoutAJWT() throws {
        let run = try startWithCertificate(.universal)
        let r = try run.sender.send(["title": "Hello"], [device("p", Self.token(1)), device("s", Self.token(2), "sandbox")])
        XCTAssertEqual(r["p"]?.outcome(), "sent", run.sender.stderrText)
        XCTAssertEqual(r["s"]?.outcome(), "sent", run.sender.stderrText)
        let history = run.server.history.all
        XCTAssertEqual(history.count, 2)
        XCTAssertTrue(history.allSatisfy { $0.auth?.scheme == "apns-certificate" && $0.auth?.valid == true }, "\(history.map(\.auth))")
        XCTAssertTrue(history.allSatisfy { e in !e.request.headers.contains { $0.first == "authorization" } })
    }

    /// The other environment's certificate: a credential failure, the token stays usable.
    func testWrongEnvironmentCertificateIsACredentialFailureNotADeadToken() throws {
        let run = try startWithCertificate(.sandbox)
        let r = try run.sender.send(["title": "Hello"], [device("p", Self.token(1))])
        XCTAssertEqual(r["p"]?.outcome(), "failed", run.sender.stderrText)
        XCTAssertEqual(r["p"]?.reason(), "BadCertificateEnvironment")
        let again = try run.sender.send(["title": "again"], [device("p", Self.token(1))])
        XCTAssertEqual(again["p"]?.outcome(), "failed", "not skipped as dead")
        XCTAssertEqual(run.server.history.all.filter { $0.response.action == "goaway" }.count, 2)
    }

    /// The planted bug: BadCertificateEnvironment taken for a dead token; the next send skips it.
    func testCertificateEnvironmentAsDeadTokenMutant() throws {
        let run = try startWithCertificate(.sandbox, mutant: "certificate-error-kills-token")
        let r = try run.sender.send(["title": "Hello"], [device("p", Self.token(1))])
        XCTAssertEqual(r["p"]?.outcome(), "dead", run.sender.stderrText)
        let again = try run.sender.send(["title": "again"], [device("p", Self.token(1))])
        XCTAssertEqual(again["p"]?.outcome(), "skipped")
    }

    private func addRule(_ server: PushDoubleServer, _ json: String) throws {
        try server.faults.add(JSONDecoder().decode(FaultRule.self, from: Data(json.utf8)))
    }

    private func device(_ id: String, _ token: String, _ env: String = "production") -> [String: Any] {
        ["id": id, "provider": "apns", "token": token, "environment": env]
    }

    func testOutcomesMatchTheFakesAnswers() throws {
        let run = try start()
        var devices = (0..<20).map { device("p\($0)", Self.token($0)) }
        devices.append(device("sb", Self.magic("4002"), "sandbox"))
        devices.append(device("gone", Self.magic("4100")))
        devices.append(device("bad", Self.magic("4000")))
        devices.append(device("topic", Self.magic("4001")))
        let r = try run.sender.send(["title": "Hello", "body": "World", "data": ["k": 1]], devices)
        for i in 0..<20 { XCTAssertEqual(r["p\(i)"]?.outcome(), "sent", "p\(i): \(r["p\(i)"] ?? [:])\n\(run.sender.stderrText)") }
        XCTAssertEqual(r["sb"]?.outcome(), "sent")
        XCTAssertEqual(r["gone"]?.outcome(), "dead"); XCTAssertEqual(r["gone"]?.reason(), "Unregistered")
        XCTAssertEqual(r["bad"]?.outcome(), "dead"); XCTAssertEqual(r["bad"]?.reason(), "BadDeviceToken")
        XCTAssertEqual(r["topic"]?.outcome(), "dead"); XCTAssertEqual(r["topic"]?.reason(), "DeviceTokenNotForTopic")

        let history = run.server.history.all
        XCTAssertEqual(history.count, 24, "one request per device, none retried")
        let prod = history.filter { $0.environment == "production" }
        let sb = history.filter { $0.environment == "sandbox" }
        XCTAssertEqual(sb.count, 1)
        XCTAssertEqual(Set(prod.map(\.transport.connection.id)).count, 1, "one connection for production")
        XCTAssertEqual(Set(history.compactMap(\.auth?.issuedAt)).count, 1, "one JWT")
        XCTAssertTrue(history.allSatisfy { $0.auth?.valid == true })
        // The message id the sender reports is the one the fake answered.
        let ids = Set(history.compactMap { e in e.response.headers.first { $0.first == "apns-id" }?.last })
        XCTAssertTrue(ids.contains(r["p0"]?["providerMessageId"] as? String ?? "-"))

        // Dead tokens are skipped later, with no request.
        let again = try run.sender.send(["title": "again"], [device("gone", Self.magic("4100")), device("p0", Self.token(0))])
        XCTAssertEqual(again["gone"]?.outcome(), "skipped")
        XCTAssertEqual(again["p0"]?.outcome(), "sent")
        XCTAssertEqual(run.server.history.all.count, 25)
        XCTAssertEqual(Set(run.server.history.all.filter { $0.environment == "production" }.map(\.transport.connection.id)).count, 1,
                       "the connection is reused across sends")
    }

    func testServerErrorsAreRetriedAndRetryAfterHonoured() throws {
        let run = try start()
        try addRule(run.server, #"{"id":"r1","match":{"token":"\#(Self.token(1))"},"action":{"type":"respond","reason":"ServiceUnavailable"},"times":2}"#)
        try addRule(run.server, #"{"id":"r2","match":{"token":"\#(Self.token(2))"},"action":{"type":"respond","reason":"TooManyRequests","retryAfter":1},"times":1}"#)
        let r = try run.sender.send(["title": "x"], [device("a", Self.token(1)), device("b", Self.token(2))])
        XCTAssertEqual(r["a"]?.outcome(), "sent", run.sender.stderrText)
        XCTAssertEqual(r["b"]?.outcome(), "sent", run.sender.stderrText)
        let a = run.server.history.all.filter { $0.token == Self.token(1) }
        XCTAssertEqual(a.count, 3)
        let b = run.server.history.all.filter { $0.token == Self.token(2) }
        XCTAssertEqual(b.count, 2)
        if b.count == 2 { XCTAssertGreaterThanOrEqual(b[1].receivedAt.timeIntervalSince(b[0].respondedAt), 1.0) }
    }

    func testGoAwayResendsOnlyWhatWasNotProcessed() throws {
        let run = try start()
        // Warm up so the stream limit is raised, then GOAWAY on the 3rd push of the batch.
        _ = try run.sender.send(["title": "warm"], [device("w", Self.token(100))])
        try addRule(run.server, #"{"id":"g","match":{"nth":3},"action":{"type":"goaway","lastStreamId":"before","errorCode":"NO_ERROR","debugJSON":{"reason":"Shutdown"}},"times":1}"#)
        let devices = (0..<6).map { device("d\($0)", Self.token($0)) }
        let r = try run.sender.send(["title": "x"], devices)
        for d in devices { XCTAssertEqual(r[d["id"] as! String]?.outcome(), "sent", "\(d)\n\(run.sender.stderrText)") }
        let hist = run.server.history.all.dropFirst()
        let goaways = hist.filter { $0.response.action == "goaway" }
        XCTAssertEqual(goaways.count, 1, "the GOAWAY fired: \(hist.map { "\($0.token ?? "-") \($0.response.action) \($0.response.status ?? 0) c\($0.transport.connection.id) s\($0.transport.streamID)" })")
        XCTAssertEqual(Set(hist.map(\.transport.connection.id)).count, 2, "the unprocessed pushes went on a new connection")
        for d in devices {
            let accepted = hist.filter { $0.token == d["token"] as? String && $0.response.status == 200 }
            XCTAssertEqual(accepted.count, 1, "\(d["id"]!) accepted exactly once")
        }
    }

    func testALargeBatchGoesOverOneConnectionWithinTheStreamLimit() throws {
        let run = try start()
        let devices = (0..<2000).map { device("d\($0)", Self.token($0)) }
        let started = Date()
        let r = try run.sender.send(["title": "bulk"], devices)
        let seconds = Date().timeIntervalSince(started)
        print(String(format: "reference sender: %d pushes in %.3f s (%.0f/s)", devices.count, seconds, Double(devices.count) / seconds))
        XCTAssertEqual(r.values.filter { $0.outcome() == "sent" }.count, devices.count)
        let history = run.server.history.all
        XCTAssertEqual(history.count, devices.count, "no retries, no duplicates")
        XCTAssertEqual(Set(history.map(\.transport.connection.id)).count, 1)
        XCTAssertEqual(Set(history.map(\.transport.streamID)).count, devices.count, "one stream per push")
    }

    func testOversizedPayloadNeverReachesTheFake() throws {
        let run = try start()
        let r = try run.sender.send(["body": String(repeating: "x", count: 5000)], [device("d", Self.token(1))])
        XCTAssertEqual(r["d"]?.outcome(), "rejected")
        XCTAssertEqual(run.server.history.all.count, 0)
    }
}
