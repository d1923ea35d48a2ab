import Foundation
import XCTest
import PushDoubleTestSupport

/// The reference sender's driver-protocol surface (docs/conformance.md "Driver protocol v1") and command line,
/// exercised through the built executable.
final class ReferenceSenderDriverTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "the reference sender's process") }

    typealias F = ReferenceSenderFixtures

    func testInvalidJSONLineGetsParseErrorAndTheServerKeepsGoing() throws {
        let s = try ReferenceSenderProcess()
        s.write(raw: "{not json\n")
        let reply = try s.readReply()
        XCTAssertEqual(reply["jsonrpc"] as? String, "2.0")
        XCTAssertTrue(reply["id"] is NSNull, "parse errors carry id null")
        XCTAssertEqual((reply["error"] as? [String: Any])?["code"] as? Int, -32700)
        // Still serving afterwards.
        let r = try s.result("settle")
        XCTAssertEqual((r["results"] as? [Any])?.count, 0)
    }

    func testInvalidRequestsGetJSONRPCErrors() throws {
        let s = try ReferenceSenderProcess()
        s.write(raw: "[1,2]\n")
        XCTAssertEqual((try s.readReply()["error"] as? [String: Any])?["code"] as? Int, -32600)
        s.write(raw: "{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"settle\"}\n")
        let r = try s.readReply()
        XCTAssertEqual(r["id"] as? Int, 7)
        XCTAssertEqual((r["error"] as? [String: Any])?["code"] as? Int, -32600)
        s.write(raw: "\"just a string\"\n")
        XCTAssertEqual((try s.readReply()["error"] as? [String: Any])?["code"] as? Int, -32600)
        let unknown = try s.call("no/such/method")
        XCTAssertEqual((unknown["error"] as? [String: Any])?["code"] as? Int, -32601)
        // test/ methods exist only in scripted mode.
        let hidden = try s.call("test/requests")
        XCTAssertEqual((hidden["error"] as? [String: Any])?["code"] as? Int, -32601)
        _ = try s.result("initialize", F.initializeParams)
        let badParams = try s.call("send", ["notification": "x", "devices": []])
        XCTAssertEqual((badParams["error"] as? [String: Any])?["code"] as? Int, -32602)
        let badDevices = try s.call("send", ["notification": [:], "devices": [["provider": "apns"]]])
        XCTAssertEqual((badDevices["error"] as? [String: Any])?["code"] as? Int, -32602)
    }

    func testInitializeReply() throws {
        let s = try ReferenceSenderProcess()
        let r = try s.result("initialize", F.initializeParams)
        XCTAssertEqual(r["name"] as? String, "pushdouble-reference-sender")
        XCTAssertEqual(r["version"] as? String, "1.0.0")
        XCTAssertEqual(r["providers"] as? [String], ["apns"])
    }

    func testInitializeWithoutAPNsListsNoProvider() throws {
        let s = try ReferenceSenderProcess()
        let r = try s.result("initialize", ["protocolVersion": 1, "providers": [String: Any]()])
        XCTAssertEqual(r["providers"] as? [String], [])
    }

    /// `providers.fcm` needs the service-account file (driver protocol); with it FCM is listed.
    func testInitializeWithFCM() throws {
        let s = try ReferenceSenderProcess()
        let incomplete = try s.call("initialize", ["protocolVersion": 1, "providers": ["fcm": ["url": "https://127.0.0.1:3"]]])
        XCTAssertEqual((incomplete["error"] as? [String: Any])?["code"] as? Int, -32602)
        let file = repositoryRoot.appendingPathComponent("Certificates/firebase-test-service-account.json").path
        let r = try s.result("initialize", ["protocolVersion": 1, "providers": ["fcm": ["url": "https://127.0.0.1:3", "serviceAccountFile": file]]])
        XCTAssertEqual(r["providers"] as? [String], ["fcm"])
        XCTAssertEqual(r["targets"] as? [String], ["fcm.topic", "fcm.condition"], "FCM topic and condition targets listed")
    }

    /// `send.params.targets`: each target needs an id, a provider and exactly one of topic and
    /// condition; without FCM configured a target is skipped, one of another provider rejected.
    func testSendTargetsAreValidatedAndAnswered() throws {
        let s = try ReferenceSenderProcess()
        _ = try s.result("initialize", ["protocolVersion": 1, "providers": [String: Any]()])
        for bad: Any in [["id": "t", "provider": "fcm"], ["id": "t", "provider": "fcm", "topic": "a", "condition": "'a' in topics"],
                         ["provider": "fcm", "topic": "a"], ["id": "t", "provider": "fcm", "topic": ""], "news"] {
            let r = try s.call("send", ["notification": ["title": "x"], "devices": [Any](), "targets": [bad]])
            XCTAssertEqual((r["error"] as? [String: Any])?["code"] as? Int, -32602, "\(bad)")
        }
        let notArray = try s.call("send", ["notification": ["title": "x"], "devices": [Any](), "targets": ["id": "t"]])
        XCTAssertEqual((notArray["error"] as? [String: Any])?["code"] as? Int, -32602)
        let r = try s.result("send", ["notification": ["title": "x"], "devices": [Any](),
                                      "targets": [["id": "news", "provider": "fcm", "topic": "news"], ["id": "w", "provider": "webpush", "topic": "x"]]])
        let results = try XCTUnwrap(r["results"] as? [[String: Any]])
        XCTAssertEqual(results.map { $0["device"] as? String }, ["news", "w"])
        XCTAssertEqual(results.map { $0["outcome"] as? String }, ["skipped", "rejected"])
        XCTAssertEqual(results.map { $0["reason"] as? String }, ["ProviderNotConfigured", "UnsupportedTarget"])
    }

    func testInitializeFallsBackToEnvironmentVariables() throws {
        let s = try ReferenceSenderProcess(environment: [
            "APNS_URL": F.productionURL, "APNS_KEY_FILE": F.keyFile, "APNS_KEY_ID": F.keyId,
            "APNS_TEAM_ID": F.teamId, "APNS_TOPIC": F.topic,
        ])
        let r = try s.result("initialize", ["protocolVersion": 1, "providers": [:]])
        XCTAssertEqual(r["providers"] as? [String], ["apns"])
    }

    func testInitializeRefusesBadConfiguration() throws {
        let s = try ReferenceSenderProcess()
        var p = F.apnsParams
        p["keyFile"] = "/nonexistent/AuthKey.p8"
        let e1 = try s.call("initialize", ["protocolVersion": 1, "providers": ["apns": p]])
        XCTAssertEqual((e1["error"] as? [String: Any])?["code"] as? Int, -32602)
        p = F.apnsParams
        p["url"] = "http://127.0.0.1:1"
        let e2 = try s.call("initialize", ["protocolVersion": 1, "providers": ["apns": p]])
        XCTAssertEqual((e2["error"] as? [String: Any])?["code"] as? Int, -32602)
        let e3 = try s.call("initialize", ["protocolVersion": 2, "providers": ["apns": F.apnsParams]])
        XCTAssertEqual((e3["error"] as? [String: Any])?["code"] as? Int, -32602)
    }

    func testLocalRejectionsNeedNoServer() throws {
        // The URLs point at closed ports: a request attempt would fail, not reject.
        let s = try ReferenceSenderProcess()
        _ = try s.result("initialize", F.initializeParams)
        let big = String(repeating: "x", count: 4100)
        let results = try s.send(["title": "t", "body": big], [F.device("big", token: F.token(1))])
        XCTAssertEqual(results["big"]?.outcome(), "rejected")
        XCTAssertEqual(results["big"]?.reason(), "PayloadTooLarge")

        let collapse = String(repeating: "é", count: 33)  // 66 UTF-8 bytes, 33 characters
        let r2 = try s.send(["title": "t", "collapseKey": collapse], [F.device("c", token: F.token(2))])
        XCTAssertEqual(r2["c"]?.outcome(), "rejected")
        XCTAssertEqual(r2["c"]?.reason(), "BadCollapseId")
    }

    func testShutdownRepliesThenExitsZero() throws {
        let s = try ReferenceSenderProcess()
        let r = try s.call("shutdown")
        XCTAssertNotNil(r["result"])
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    func testExitsOnEndOfInput() throws {
        let s = try ReferenceSenderProcess()
        s.closeStdin()
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    func testStdoutCarriesOnlyReplies() throws {
        let s = try startScriptedSender()
        s.write(raw: "\n   \n")  // blank lines are ignored, not answered
        _ = try s.send(["title": "hi"], [F.device("a", token: F.token(3))])
        s.closeStdin()
        XCTAssertEqual(try s.waitForExit(), 0)
        XCTAssertThrowsError(try s.readLine(timeout: 1), "nothing but the two replies on stdout")
        XCTAssertTrue(s.finalStderr().contains("initialize"), "logs go to stderr")
    }

    func testListMutantsPrintsEachMutantOnOneLine() throws {
        let s = try ReferenceSenderProcess(arguments: ["--list-mutants"])
        var lines: [String] = []
        // Until stdout closes (readLine throws at once then); the timeout only bounds a hang.
        while let l = try? s.readLine(timeout: 60) { lines.append(l) }
        XCTAssertEqual(try s.waitForExit(), 0)
        // One line per row of the mutant tables, in registry order, each with its summary and checks.
        XCTAssertEqual(lines, MutantRows.listing)
        XCTAssertGreaterThan(lines.count, 0)
        XCTAssertEqual(Set(lines.map { $0.split(separator: "\t").first ?? "" }).count, lines.count, "a mutant name twice")
        for l in lines { XCTAssertGreaterThan(l.split(separator: "\t").last?.count ?? 0, 10, "a description for \(l)") }
    }

    func testUnknownMutantExitsTwo() throws {
        let s = try ReferenceSenderProcess(arguments: ["--mutant", "no-such-bug"])
        XCTAssertEqual(try s.waitForExit(), 2)
        XCTAssertTrue(s.finalStderr().contains("unknown mutant \"no-such-bug\""), s.finalStderr())
        XCTAssertThrowsError(try s.readLine(timeout: 1), "nothing on stdout")
    }

    func testEveryMutantStartsAndAnswers() throws {
        for m in ["retry-dead-tokens", "report-sent-always", "no-backoff"] {
            let s = try ReferenceSenderProcess(arguments: ["--mutant=\(m)"])
            let r = try s.result("initialize", F.initializeParams)
            XCTAssertEqual(r["providers"] as? [String], ["apns"], m)
        }
    }
}
