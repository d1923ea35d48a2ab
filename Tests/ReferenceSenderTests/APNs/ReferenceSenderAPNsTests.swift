import Foundation
import XCTest

/// The reference sender's APNs behaviour (rules G1–G5, A1–A14), driven through the
/// executable in `--scripted-apns` mode: an in-memory APNs answers from a script and
/// time is virtual, so retries and the JWT lifetime are checked without waiting.
final class ReferenceSenderAPNsTests: XCTestCase {
    typealias F = ReferenceSenderFixtures

    private func plan(_ s: ReferenceSenderProcess, _ n: [String: Any], device: [String: Any]? = nil) throws -> [String: Any] {
        try s.result("test/plan", ["notification": n, "device": device ?? F.device("d", token: F.token(9)), "defaultTopic": F.topic])
    }

    // MARK: payload and headers (A12, A13)

    func testAlertPayloadAndHeaders() throws {
        let s = try startScriptedSender()
        let p = try plan(s, ["title": "T", "subtitle": "S", "body": "B", "sound": "default", "badge": 3, "threadId": "th",
                             "category": "cat", "data": ["k": "v", "n": 12345678901234567, "aps": "ignored"],
                             "collapseKey": "c1", "ttlSeconds": 3600, "priority": "high"])
        let payload = p["payload"] as? [String: Any] ?? [:]
        let aps = payload["aps"] as? [String: Any] ?? [:]
        XCTAssertEqual(aps["alert"] as? [String: String], ["title": "T", "subtitle": "S", "body": "B"])
        XCTAssertEqual(aps["sound"] as? String, "default")
        XCTAssertEqual(aps["badge"] as? Int, 3)
        XCTAssertEqual(aps["thread-id"] as? String, "th")
        XCTAssertEqual(aps["category"] as? String, "cat")
        XCTAssertNil(aps["content-available"])
        XCTAssertNil(aps["mutable-content"])
        XCTAssertEqual(payload["k"] as? String, "v")
        XCTAssertEqual((payload["n"] as? NSNumber)?.int64Value, 12345678901234567, "numbers are forwarded verbatim")
        let h = p.headers()
        XCTAssertEqual(h["apns-push-type"], "alert")
        XCTAssertEqual(h["apns-topic"], F.topic)
        XCTAssertEqual(h["apns-priority"], "10")
        XCTAssertEqual(h["apns-collapse-id"], "c1")
        XCTAssertEqual(h["apns-expiration"], String(1_800_000_000 + 3600), "epoch seconds = now + ttl")
        XCTAssertEqual(h["content-type"], "application/json")
        let id = h["apns-id"] ?? ""
        XCTAssertNotNil(UUID(uuidString: id))
        XCTAssertEqual(id, id.lowercased())
        XCTAssertEqual(p["path"] as? String, "/3/device/" + F.token(9))
    }

    func testBackgroundPushHasPriorityFiveAndNoAlert() throws {
        let s = try startScriptedSender()
        let p = try plan(s, ["contentAvailable": true, "priority": "high", "data": ["sync": true]])
        let aps = (p["payload"] as? [String: Any])?["aps"] as? [String: Any] ?? [:]
        XCTAssertEqual(aps["content-available"] as? Int, 1)
        XCTAssertNil(aps["alert"]); XCTAssertNil(aps["sound"]); XCTAssertNil(aps["badge"])
        XCTAssertEqual(p.headers()["apns-push-type"], "background")
        XCTAssertEqual(p.headers()["apns-priority"], "5", "background is always 5, even when high was asked")
        XCTAssertEqual(p.headers()["apns-topic"], F.topic)

        // contentAvailable with an alert stays an alert push.
        let mixed = try plan(s, ["contentAvailable": true, "title": "x", "priority": "normal"])
        XCTAssertEqual(mixed.headers()["apns-push-type"], "alert")
        XCTAssertEqual(mixed.headers()["apns-priority"], "5", "normal → 5")
        XCTAssertEqual(((mixed["payload"] as? [String: Any])?["aps"] as? [String: Any])?["content-available"] as? Int, 1)
    }

    func testTopicSuffixPerPushType() throws {
        let s = try startScriptedSender()
        let expected = ["alert": F.topic, "voip": F.topic + ".voip", "location": F.topic + ".location-query",
                        "complication": F.topic + ".complication", "fileprovider": F.topic + ".pushkit.fileprovider",
                        "liveactivity": F.topic + ".push-type.liveactivity", "pushtotalk": F.topic + ".voip-ptt",
                        "widgets": F.topic + ".push-type.widgets", "controls": F.topic + ".push-type.controls"]
        for (type, topic) in expected {
            let p = try plan(s, ["title": "x", "pushType": type])
            XCTAssertEqual(p.headers()["apns-topic"], topic, type)
            XCTAssertEqual(p.headers()["apns-push-type"], type)
            // Widget and control reloads carry content-changed (Apple's WidgetKit pages).
            let aps = (p["payload"] as? [String: Any])?["aps"] as? [String: Any]
            XCTAssertEqual(aps?["content-changed"] as? Bool, type == "widgets" || type == "controls" ? true : nil, type)
        }
        // A device topic already carrying the suffix is not doubled.
        let p = try plan(s, ["title": "x", "pushType": "voip"], device: F.device("d", token: F.token(1), topic: "com.other.voip"))
        XCTAssertEqual(p.headers()["apns-topic"], "com.other.voip")
        XCTAssertEqual(try plan(s, ["title": "x", "pushType": "telepathy"])["rejected"] as? String, "InvalidPushType")
    }

    func testImageUrlSetsMutableContentAndTtlZero() throws {
        let s = try startScriptedSender()
        let p = try plan(s, ["title": "x", "imageUrl": "https://example.com/a.png", "link": "app://x", "ttlSeconds": 0])
        let payload = p["payload"] as? [String: Any] ?? [:]
        XCTAssertEqual((payload["aps"] as? [String: Any])?["mutable-content"] as? Int, 1)
        XCTAssertEqual(payload["image-url"] as? String, "https://example.com/a.png")
        XCTAssertEqual(payload["link"] as? String, "app://x")
        XCTAssertEqual(p.headers()["apns-expiration"], "0")
        XCTAssertNil(p.headers()["apns-collapse-id"])
    }

    func testPayloadLimitsAreEnforcedLocally() throws {
        let s = try startScriptedSender()
        // Exactly at the limit is fine, one byte over is not.
        let overhead = try plan(s, ["body": ""])["size"] as? Int ?? 0
        let atLimit = try plan(s, ["body": String(repeating: "a", count: 4096 - overhead)])
        XCTAssertEqual(atLimit["size"] as? Int, 4096)
        XCTAssertEqual(try plan(s, ["body": String(repeating: "a", count: 4097 - overhead)])["rejected"] as? String, "PayloadTooLarge")
        // VoIP allows 5120.
        let voip = try plan(s, ["body": String(repeating: "a", count: 5000), "pushType": "voip"])
        XCTAssertNil(voip["rejected"])
        XCTAssertEqual(try plan(s, ["body": String(repeating: "a", count: 5200), "pushType": "voip"])["rejected"] as? String, "PayloadTooLarge")
        // Through send: rejected, and nothing goes on the wire.
        let r = try s.send(["body": String(repeating: "a", count: 5000)], [F.device("big", token: F.token(2))])
        XCTAssertEqual(r["big"]?.outcome(), "rejected")
        XCTAssertEqual(r["big"]?.reason(), "PayloadTooLarge")
        XCTAssertEqual(try s.requests().count, 0)
    }

    func testCollapseIdLimitCountsBytes() throws {
        let s = try startScriptedSender()
        XCTAssertEqual(try plan(s, ["title": "x", "collapseKey": String(repeating: "a", count: 64)]).headers()["apns-collapse-id"]?.utf8.count, 64)
        XCTAssertEqual(try plan(s, ["title": "x", "collapseKey": String(repeating: "a", count: 65)])["rejected"] as? String, "BadCollapseId")
        XCTAssertEqual(try plan(s, ["title": "x", "collapseKey": String(repeating: "ü", count: 33)])["rejected"] as? String, "BadCollapseId")
    }

    // MARK: wire: JWT, connections, environments (A6, A9, A10, A14)

    func testJWTContentsAndReuseFor50Minutes() throws {
        let s = try startScriptedSender()
        let devices = (0..<10).map { F.device("d\($0)", token: F.token($0)) }
        _ = try s.send(["title": "a"], devices)
        try s.advanceClock(30 * 60)
        _ = try s.send(["title": "b"], devices)
        try s.advanceClock(21 * 60)  // 51 min after the first mint: refresh
        _ = try s.send(["title": "c"], devices)
        let reqs = try s.requests()
        XCTAssertEqual(reqs.count, 30)
        var iats: [Int] = []
        for r in reqs {
            let jwt = r["jwt"] as? [String: Any] ?? [:]
            XCTAssertEqual(jwt["header"] as? [String: String], ["alg": "ES256", "kid": F.keyId])
            let claims = jwt["claims"] as? [String: Any] ?? [:]
            XCTAssertEqual(Set(claims.keys), ["iss", "iat"])
            XCTAssertEqual(claims["iss"] as? String, F.teamId)
            XCTAssertEqual(jwt["signatureBytes"] as? Int, 64)
            iats.append(claims["iat"] as? Int ?? -1)
            XCTAssertTrue(r.headers()["authorization"]?.hasPrefix("bearer ") ?? false)
        }
        XCTAssertEqual(Set(iats.prefix(20)), [1_800_000_000], "one token for the first 50 minutes")
        XCTAssertEqual(Set(iats.suffix(10)), [1_800_000_000 + 51 * 60], "refreshed once after 50 minutes")
        XCTAssertEqual(try s.stats()["jwtMints"], 2)
    }

    func testOneConnectionPerEnvironmentReusedAcrossPushes() throws {
        let s = try startScriptedSender()
        var devices = (0..<20).map { F.device("p\($0)", token: F.token($0)) }
        devices += (20..<25).map { F.device("s\($0)", token: F.token($0), environment: "sandbox") }
        let r = try s.send(["title": "x"], devices)
        XCTAssertTrue(r.values.allSatisfy { $0.outcome() == "sent" })
        let reqs = try s.requests()
        XCTAssertEqual(reqs.count, 25)
        let prod = reqs.filter { ($0["path"] as? String ?? "").hasSuffix(F.token(0)) || $0["authority"] as? String == "127.0.0.1:1" }
        let sandbox = reqs.filter { $0["authority"] as? String == "127.0.0.1:2" }
        XCTAssertEqual(prod.count, 20, "production devices go to the production URL")
        XCTAssertEqual(sandbox.count, 5, "sandbox devices go to the sandbox URL")
        XCTAssertEqual(Set(prod.compactMap { $0["connection"] as? Int }).count, 1)
        XCTAssertEqual(Set(sandbox.compactMap { $0["connection"] as? Int }).count, 1)
        _ = try s.send(["title": "y"], devices)
        XCTAssertEqual(try s.stats()["connectionsOpened"], 2, "later sends reuse the same connections")
        for r in try s.requests() { XCTAssertEqual((r["duplicateHeaders"] as? [Any])?.count, 0) }
    }

    func testAConnectionIdleFor50MinutesIsReplaced() throws {
        let s = try startScriptedSender()
        _ = try s.send(["title": "x"], [F.device("d", token: F.token(1))])
        try s.advanceClock(49 * 60)
        _ = try s.send(["title": "x"], [F.device("d", token: F.token(1))])
        XCTAssertEqual(try s.stats()["connectionsOpened"], 1, "49 min idle: reused")
        try s.advanceClock(51 * 60)
        _ = try s.send(["title": "x"], [F.device("d", token: F.token(1))])
        XCTAssertEqual(try s.stats()["connectionsOpened"], 2, "51 min idle: replaced")
    }

    // MARK: failures (G1–G5, A1–A8)

    func testUnregisteredIsDeadAndTheTokenIsNeverUsedAgain() throws {
        let s = try startScriptedSender()
        try s.script([["token": F.token(1), "status": 410, "reason": "Unregistered"],
                      ["token": F.token(2), "status": 400, "reason": "BadDeviceToken"],
                      ["token": F.token(3), "status": 400, "reason": "DeviceTokenNotForTopic"],
                      ["token": F.token(4), "status": 410, "reason": "ExpiredToken"]])
        let devices = (1...4).map { F.device("d\($0)", token: F.token($0)) }
        let r = try s.send(["title": "x"], devices)
        XCTAssertEqual(r["d1"]?.outcome(), "dead"); XCTAssertEqual(r["d1"]?.reason(), "Unregistered")
        XCTAssertEqual(r["d2"]?.outcome(), "dead"); XCTAssertEqual(r["d2"]?.reason(), "BadDeviceToken")
        XCTAssertEqual(r["d3"]?.outcome(), "dead"); XCTAssertEqual(r["d3"]?.reason(), "DeviceTokenNotForTopic")
        XCTAssertEqual(r["d4"]?.outcome(), "dead"); XCTAssertEqual(r["d4"]?.reason(), "ExpiredToken")
        XCTAssertEqual(try s.requests().count, 4, "never retried")
        let again = try s.send(["title": "y"], devices)
        for id in ["d1", "d2", "d3", "d4"] { XCTAssertEqual(again[id]?.outcome(), "skipped", id) }
        XCTAssertEqual(again["d1"]?.reason(), "Unregistered")
        XCTAssertEqual(try s.requests().count, 4, "no request for a dead token")
    }

    func testRequestErrorsAreRejectedWithoutRetry() throws {
        let s = try startScriptedSender()
        try s.script([["token": F.token(1), "status": 413, "reason": "PayloadTooLarge"],
                      ["token": F.token(2), "status": 400, "reason": "BadTopic"],
                      ["token": F.token(3), "status": 403, "reason": "Forbidden"]])
        let r = try s.send(["title": "x"], (1...3).map { F.device("d\($0)", token: F.token($0)) })
        XCTAssertEqual(r["d1"]?.outcome(), "rejected"); XCTAssertEqual(r["d1"]?.reason(), "PayloadTooLarge")
        XCTAssertEqual(r["d2"]?.outcome(), "rejected"); XCTAssertEqual(r["d2"]?.reason(), "BadTopic")
        XCTAssertEqual(r["d3"]?.outcome(), "rejected"); XCTAssertEqual(r["d3"]?.reason(), "Forbidden")
        XCTAssertEqual(try s.requests().count, 3)
    }

    func testCredentialErrorsFailWithoutBlindRetry() throws {
        for reason in ["InvalidProviderToken", "MissingProviderToken", "BadEnvironmentKeyInToken", "BadEnvironmentKeyIdInToken"] {
            let s = try startScriptedSender()
            try s.script([["status": 403, "reason": reason]])
            let r = try s.send(["title": "x"], [F.device("d", token: F.token(1))])
            XCTAssertEqual(r["d"]?.outcome(), "failed", reason)
            XCTAssertEqual(r["d"]?.reason(), reason)
            XCTAssertEqual(try s.requests().count, 1, reason)
        }
    }

    func testServerErrorsAreRetriedWithGrowingJitteredBackoffAndTheSameApnsId() throws {
        let s = try startScriptedSender()
        try s.script([["token": F.token(1), "status": 500, "reason": "InternalServerError", "times": 2],
                      ["token": F.token(1), "status": 503, "reason": "ServiceUnavailable"]])
        let r = try s.send(["title": "x"], [F.device("d", token: F.token(1))])
        XCTAssertEqual(r["d"]?.outcome(), "sent")
        let reqs = try s.requests()
        XCTAssertEqual(reqs.count, 4)
        XCTAssertEqual(Set(reqs.compactMap { $0.headers()["apns-id"] }).count, 1, "retries reuse the apns-id")
        XCTAssertEqual(r["d"]?["providerMessageId"] as? String, reqs[0].headers()["apns-id"])
        let sleeps = try s.sleeps()
        XCTAssertEqual(sleeps.count, 3)
        XCTAssertTrue((0.18...0.2).contains(sleeps[0]), "\(sleeps)")
        XCTAssertTrue((0.54...0.6).contains(sleeps[1]), "\(sleeps)")
        XCTAssertTrue((1.62...1.8).contains(sleeps[2]), "\(sleeps)")
    }

    func testRetriesAreCappedAndEndFailedWithTheLastReason() throws {
        let s = try startScriptedSender()
        try s.script([["status": 503, "reason": "ServiceUnavailable", "times": -1]])
        let r = try s.send(["title": "x"], [F.device("d", token: F.token(1))])
        XCTAssertEqual(r["d"]?.outcome(), "failed")
        XCTAssertEqual(r["d"]?.reason(), "ServiceUnavailable")
        XCTAssertEqual(try s.requests().count, 4, "max 4 attempts")
    }

    func testJitterSpreadsConcurrentRetries() throws {
        let s = try startScriptedSender()
        try s.script((1...6).map { ["token": F.token($0), "status": 500, "reason": "InternalServerError"] })
        _ = try s.send(["title": "x"], (1...6).map { F.device("d\($0)", token: F.token($0)) })
        let sleeps = try s.sleeps()
        XCTAssertEqual(sleeps.count, 6)
        XCTAssertGreaterThan(Set(sleeps).count, 1, "jitter: not all first delays equal: \(sleeps)")
    }

    func testRetryAfterDeltaSecondsIsAMinimumWait() throws {
        let s = try startScriptedSender()
        try s.script([["token": F.token(1), "status": 429, "reason": "TooManyRequests", "headers": ["Retry-After": "7"]]])
        let r = try s.send(["title": "x"], [F.device("d", token: F.token(1))])
        XCTAssertEqual(r["d"]?.outcome(), "sent")
        let reqs = try s.requests()
        XCTAssertEqual(reqs.count, 2)
        let gap = (reqs[1]["time"] as? Double ?? 0) - (reqs[0]["time"] as? Double ?? 0)
        XCTAssertGreaterThanOrEqual(gap, 7)
        XCTAssertEqual(try s.sleeps().first ?? 0, 7, accuracy: 0.001)
    }

    func testRetryAfterHTTPDateIsHonoured() throws {
        let s = try startScriptedSender()
        // Virtual now is 1_800_000_000 = Fri, 15 Jan 2027 08:00:00 GMT; ask for 12 s later.
        try s.script([["token": F.token(1), "status": 503, "reason": "ServiceUnavailable",
                       "headers": ["Retry-After": "Fri, 15 Jan 2027 08:00:12 GMT"]]])
        let r = try s.send(["title": "x"], [F.device("d", token: F.token(1))])
        XCTAssertEqual(r["d"]?.outcome(), "sent")
        XCTAssertEqual(try s.sleeps().first ?? 0, 12, accuracy: 0.001)
    }

    func testRetryAfterBeyondTheCapGivesUp() throws {
        let s = try startScriptedSender()
        try s.script([["status": 429, "reason": "TooManyRequests", "headers": ["Retry-After": "3600"]]])
        let r = try s.send(["title": "x"], [F.device("d", token: F.token(1))])
        XCTAssertEqual(r["d"]?.outcome(), "failed")
        XCTAssertEqual(r["d"]?.reason(), "TooManyRequests")
        XCTAssertEqual(try s.requests().count, 1, "no retry earlier than Retry-After")
    }

    func testRetriesStopBeforeTheReplyDeadline() throws {
        let s = try startScriptedSender()
        try s.script([["status": 503, "reason": "ServiceUnavailable", "headers": ["Retry-After": "20"], "times": -1]])
        let r = try s.send(["title": "x"], [F.device("d", token: F.token(1))])
        XCTAssertEqual(r["d"]?.outcome(), "failed")
        XCTAssertEqual(try s.sleeps(), [20, 20], "a third 20 s wait would end 60 s after the first attempt (limit 45 s)")
        XCTAssertEqual(try s.requests().count, 3)
    }

    func testExpiredProviderTokenMintsANewJWTAndRetriesOnce() throws {
        let s = try startScriptedSender()
        try s.script([["token": F.token(1), "status": 403, "reason": "ExpiredProviderToken"]])
        try s.advanceClock(1)  // a new token gets a different iat
        let r = try s.send(["title": "x"], [F.device("d", token: F.token(1))])
        XCTAssertEqual(r["d"]?.outcome(), "sent")
        let reqs = try s.requests()
        XCTAssertEqual(reqs.count, 2)
        XCTAssertNotEqual(reqs[0].headers()["authorization"], reqs[1].headers()["authorization"])
        XCTAssertEqual(reqs[0]["connection"] as? Int, reqs[1]["connection"] as? Int, "the new token goes on the same connection")

        try s.script([["token": F.token(2), "status": 403, "reason": "ExpiredProviderToken", "times": -1]])
        let r2 = try s.send(["title": "x"], [F.device("e", token: F.token(2))])
        XCTAssertEqual(r2["e"]?.outcome(), "failed")
        XCTAssertEqual(try s.requests().count, 4, "exactly one retry")
    }

    func testTooManyProviderTokenUpdatesKeepsTheTokenAndWaits() throws {
        let s = try startScriptedSender()
        try s.script([["token": F.token(1), "status": 429, "reason": "TooManyProviderTokenUpdates"]])
        let r = try s.send(["title": "x"], [F.device("d", token: F.token(1))])
        XCTAssertEqual(r["d"]?.outcome(), "sent")
        let reqs = try s.requests()
        XCTAssertEqual(reqs.count, 2)
        XCTAssertEqual(reqs[0].headers()["authorization"], reqs[1].headers()["authorization"], "same token")
        XCTAssertGreaterThan(try s.sleeps().first ?? 0, 0)
        XCTAssertEqual(try s.stats()["jwtMints"], 1)
    }

    func testUnrelatedKeyIdOpensANewConnectionOnce() throws {
        let s = try startScriptedSender()
        try s.script([["token": F.token(1), "status": 403, "reason": "UnrelatedKeyIdInToken"]])
        let r = try s.send(["title": "x"], [F.device("d", token: F.token(1))])
        XCTAssertEqual(r["d"]?.outcome(), "sent")
        let reqs = try s.requests()
        XCTAssertEqual(reqs.count, 2)
        XCTAssertNotEqual(reqs[0]["connection"] as? Int, reqs[1]["connection"] as? Int)
    }

    func testGoAwayResendsOnlyUnprocessedOnANewConnectionWithoutCountingAnAttempt() throws {
        let s = try startScriptedSender()
        try s.script([["token": F.token(1), "status": 500, "reason": "InternalServerError", "times": 3],
                      ["token": F.token(2), "error": "goAway", "delayMs": 100]])
        let r = try s.send(["title": "x"], [F.device("a", token: F.token(1)), F.device("b", token: F.token(2)),
                                            F.device("c", token: F.token(3))])
        XCTAssertEqual(r["b"]?.outcome(), "sent")
        XCTAssertEqual(r["c"]?.outcome(), "sent")
        let reqs = try s.requests()
        let b = reqs.filter { ($0["path"] as? String)?.hasSuffix(F.token(2)) ?? false }
        XCTAssertEqual(b.count, 2)
        XCTAssertNotEqual(b[0]["connection"] as? Int, b[1]["connection"] as? Int, "resent on a new connection")
        let c = reqs.filter { ($0["path"] as? String)?.hasSuffix(F.token(3)) ?? false }
        XCTAssertEqual(c.count, 1, "the processed push is not resent")
        // a: 3 failures + 1 success = 4 attempts, i.e. the GOAWAY did not eat one of them.
        XCTAssertEqual(r["a"]?.outcome(), "sent")
    }

    func testRefusedStreamAndShutdownAreResentWithoutBackoff() throws {
        let s = try startScriptedSender()
        try s.script([["token": F.token(1), "error": "refusedStream"],
                      ["token": F.token(2), "status": 503, "reason": "Shutdown"]])
        let r = try s.send(["title": "x"], [F.device("a", token: F.token(1)), F.device("b", token: F.token(2))])
        XCTAssertEqual(r["a"]?.outcome(), "sent")
        XCTAssertEqual(r["b"]?.outcome(), "sent")
        XCTAssertEqual(try s.requests().count, 4)
        XCTAssertTrue(try s.sleeps().allSatisfy { $0 == 0 })
        let b = try s.requests().filter { ($0["path"] as? String)?.hasSuffix(F.token(2)) ?? false }
        XCTAssertNotEqual(b[0]["connection"] as? Int, b[1]["connection"] as? Int, "Shutdown → new connection")
    }

    func testLostConnectionRetriesWithTheSameApnsId() throws {
        let s = try startScriptedSender()
        try s.script([["token": F.token(1), "error": "connectionClosed"]])
        let r = try s.send(["title": "x"], [F.device("d", token: F.token(1))])
        XCTAssertEqual(r["d"]?.outcome(), "sent")
        let reqs = try s.requests()
        XCTAssertEqual(reqs.count, 2)
        XCTAssertEqual(reqs[0].headers()["apns-id"], reqs[1].headers()["apns-id"])
        XCTAssertNotEqual(reqs[0]["connection"] as? Int, reqs[1]["connection"] as? Int)
        XCTAssertGreaterThan(try s.sleeps().first ?? 0, 0, "counted as a failed attempt, with backoff")
    }

    func testConnectFailuresAreRetriedThenFail() throws {
        let s = try startScriptedSender()
        try s.script([["error": "connectFailed", "times": 2]])
        let ok = try s.send(["title": "x"], [F.device("d", token: F.token(1))])
        XCTAssertEqual(ok["d"]?.outcome(), "sent")
        let s2 = try startScriptedSender()
        try s2.script([["error": "connectFailed", "times": 10]])
        let bad = try s2.send(["title": "x"], [F.device("d", token: F.token(1))])
        XCTAssertEqual(bad["d"]?.outcome(), "failed")
        XCTAssertEqual(try s2.requests().count, 0)
    }

    func testNonAPNsDevicesAreSkipped() throws {
        let s = try startScriptedSender()
        let r = try s.send(["title": "x"], [["id": "f", "provider": "fcm", "token": "abc"]])
        XCTAssertEqual(r["f"]?.outcome(), "skipped")
        XCTAssertEqual(try s.requests().count, 0)
    }
}
