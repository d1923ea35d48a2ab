import Foundation
import XCTest

/// Each `--variant` behaves as documented (docs/reference-sender.md), in scripted mode with
/// virtual time: the backoff each scheme draws, the connection pool, the 50-min refresh.
/// (Whether the conformance suite passes them is CorrectVariantsTests.)
final class ReferenceSenderVariantTests: XCTestCase {
    typealias F = ReferenceSenderFixtures

    /// Three 500s then 200 for each of `devices` devices; returns every backoff sleep in order.
    private func sleeps(variant: String?, seed: UInt64?, devices: Int = 4) throws -> [Double] {
        let s = try startScriptedSender(variant: variant, seed: seed)
        try s.script((0..<devices).map { ["token": F.token($0), "status": 500, "reason": "InternalServerError", "times": 3] })
        let r = try s.send(["title": "x"], (0..<devices).map { F.device("d\($0)", token: F.token($0)) })
        XCTAssertTrue(r.values.allSatisfy { $0.outcome() == "sent" }, "\(r)")
        return try s.sleeps()
    }

    /// Sleeps of one device: 3 retries each, in order (one device at a time keeps the order).
    private func perRetry(variant: String, seed: UInt64) throws -> [[Double]] {
        var rows: [[Double]] = []
        for k in 0..<6 {
            let all = try sleeps(variant: variant, seed: seed &+ UInt64(k), devices: 1)
            XCTAssertEqual(all.count, 3, "\(variant): three retries")
            rows.append(all)
        }
        return rows
    }

    func testFullJitter() throws {
        let rows = try perRetry(variant: "full-jitter", seed: 11)
        for row in rows {
            for (n, d) in row.enumerated() { XCTAssertTrue((0...0.2 * pow(2, Double(n))).contains(d), "retry \(n + 1): \(d)") }
        }
        // Some delay in the lower half of its step (the default never goes below 90 %).
        let shares = rows.flatMap { $0.enumerated().map { $0.element / (0.2 * pow(2, Double($0.offset))) } }
        XCTAssertTrue(shares.contains { $0 < 0.5 }, "\(shares)")
    }

    func testEqualJitter() throws {
        for row in try perRetry(variant: "equal-jitter", seed: 12) {
            for (n, d) in row.enumerated() {
                let step = 0.2 * pow(2, Double(n))
                XCTAssertTrue((step / 2...step).contains(d), "retry \(n + 1): \(d) not in [\(step / 2), \(step)]")
            }
        }
    }

    func testDecorrelatedJitter() throws {
        for row in try perRetry(variant: "decorrelated-jitter", seed: 13) {
            var previous = 0.2
            for d in row {
                XCTAssertTrue((0.2...min(5, 3 * previous)).contains(d), "\(d) not in [0.2, \(3 * previous)] (\(row))")
                previous = d
            }
        }
    }

    func testSeedRepeatsTheDelays() throws {
        let a = try sleeps(variant: "full-jitter", seed: 42, devices: 1)
        let b = try sleeps(variant: "full-jitter", seed: 42, devices: 1)
        let c = try sleeps(variant: "full-jitter", seed: 43, devices: 1)
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, c)
    }

    func testMultiConnectionIsARoundRobinPoolOfThree() throws {
        let s = try startScriptedSender(variant: "multi-connection")
        _ = try s.send(["title": "x"], (0..<6).map { F.device("d\($0)", token: F.token($0)) })
        _ = try s.send(["title": "y"], (0..<6).map { F.device("d\($0)", token: F.token($0)) })
        var perConn: [Int: Int] = [:]
        for r in try s.requests() { perConn[r["connection"] as? Int ?? -1, default: 0] += 1 }
        XCTAssertEqual(perConn.count, 3, "\(perConn)")
        XCTAssertEqual(Set(perConn.values), [4], "each connection reused: \(perConn)")
        XCTAssertEqual(try s.stats()["connectionsOpened"], 3)
        XCTAssertEqual(try s.stats()["jwtMints"], 1, "one JWT for the whole pool")
    }

    func testJWTRefresh50MinMovesToANewConnection() throws {
        let s = try startScriptedSender(variant: "jwt-refresh-50min")
        _ = try s.send(["title": "x"], [F.device("a", token: F.token(1)), F.device("b", token: F.token(2))])
        try s.advanceClock(0.5)
        _ = try s.send(["title": "y"], [F.device("a", token: F.token(1))])  // still the same second: same token
        try s.advanceClock(1)
        _ = try s.send(["title": "z"], [F.device("a", token: F.token(1)), F.device("b", token: F.token(2))])
        let reqs = try s.requests()
        func iat(_ r: [String: Any]) -> Int? { ((r["jwt"] as? [String: Any])?["claims"] as? [String: Any])?["iat"] as? Int }
        XCTAssertEqual(reqs.count, 5)
        XCTAssertEqual(iat(reqs[0]), 1_800_000_000 - 2999, "the inherited token is 49 min 59 s old")
        XCTAssertEqual(Set(reqs.prefix(3).compactMap(iat)), [1_800_000_000 - 2999])
        XCTAssertEqual(Set(reqs.suffix(2).compactMap(iat)), [1_800_000_001], "refreshed when 50 min old")
        // Each connection carries one token only: the new token went on a new connection.
        var tokensPerConn: [Int: Set<String>] = [:]
        for r in reqs { tokensPerConn[r["connection"] as? Int ?? -1, default: []].insert(r.headers()["authorization"] ?? "") }
        XCTAssertEqual(tokensPerConn.count, 2, "\(tokensPerConn)")
        XCTAssertTrue(tokensPerConn.values.allSatisfy { $0.count == 1 }, "\(tokensPerConn)")
        XCTAssertEqual(try s.stats()["jwtMints"], 2)
    }

    func testListVariantsAndBadArguments() throws {
        let s = try ReferenceSenderProcess(arguments: ["--list-variants"])
        var lines: [String] = []
        while let l = try? s.readLine(timeout: 5) { lines.append(l) }
        XCTAssertEqual(try s.waitForExit(), 0)
        XCTAssertEqual(Set(lines.map { String($0.split(separator: "\t").first ?? "") }),
                       ["full-jitter", "equal-jitter", "decorrelated-jitter", "multi-connection", "v1-no-features", "register-call",
                        "jwt-refresh-50min", "jwt-per-connection", "fcm-early-refresh", "fcm-refresh-on-401", "fcm-cold-start-stampede",
                        "fcm-http1-pool", "expo-too-big-from-receipt", "fcm-refresh-margin", "apns-no-push-type"])
        for l in lines { XCTAssertGreaterThan(l.split(separator: "\t").last?.count ?? 0, 10, "a description for \(l)") }

        let unknown = try ReferenceSenderProcess(arguments: ["--variant", "no-such-variant"])
        XCTAssertEqual(try unknown.waitForExit(), 2)
        XCTAssertTrue(unknown.finalStderr().contains("unknown variant \"no-such-variant\""), unknown.finalStderr())
        let badSeed = try ReferenceSenderProcess(arguments: ["--seed=-1"])
        XCTAssertEqual(try badSeed.waitForExit(), 2)
        XCTAssertTrue(badSeed.finalStderr().contains("--seed"), badSeed.finalStderr())
        let missing = try ReferenceSenderProcess(arguments: ["--seed"])
        XCTAssertEqual(try missing.waitForExit(), 2)
        let ok = try ReferenceSenderProcess(arguments: ["--variant=full-jitter", "--seed=3"])
        XCTAssertEqual(try ok.result("initialize", F.initializeParams)["providers"] as? [String], ["apns"])
    }
}
