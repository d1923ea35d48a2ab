import Foundation
import XCTest
import PushDoubleTestSupport
import PushDoubleCore
import PushDoubleTransport
@testable import PushDouble

/// The admin API over a real socket, with curl.
final class AdminAPITests: XCTestCase {
    var server: PushDoubleServer!
    override func setUpWithError() throws { try requireInteropTier(needs: "curl"); server = try startTestServer() }
    override func tearDown() { server?.stop() }

    private func admin(_ method: String, _ path: String, _ body: String? = nil, extra: [String] = []) throws -> Curl {
        try Curl.call(method, server.adminURL + path, body: body, extra: extra)
    }

    private func push(_ token: String) throws -> Curl {
        try Curl.call("POST", server.fakeURL + "/push/" + token, body: "{}", headers: ["authorization: ok"], extra: ["--http2-prior-knowledge"])
    }

    func testHealthAndEndpoints() throws {
        let h = try admin("GET", "/health")
        XCTAssertEqual(h.code, 200)
        let doc = try XCTUnwrap(h.json as? [String: Any])
        XCTAssertEqual(doc["status"] as? String, "ok")
        XCTAssertEqual(doc["providers"] as? [String], ["test"])
        // Connections per listener: curl's own connection to the admin listener is open now.
        let listeners = try XCTUnwrap(doc["listeners"] as? [[String: Any]])
        XCTAssertEqual(Set(listeners.compactMap { $0["name"] as? String }), ["admin", "test"])
        let adminStats = try XCTUnwrap(listeners.first { $0["name"] as? String == "admin" })
        XCTAssertGreaterThanOrEqual(adminStats["open"] as? Int ?? 0, 1, "\(adminStats)")
        XCTAssertEqual(adminStats["refused"] as? Int, 0)
        XCTAssertEqual(adminStats["shed"] as? Int, 0)
        let e = try admin("GET", "/endpoints")
        let list = try XCTUnwrap(e.json as? [[String: Any]])
        XCTAssertEqual(Set(list.compactMap { $0["name"] as? String }), ["admin", "test"])
        let testEP = try XCTUnwrap(list.first { $0["name"] as? String == "test" })
        XCTAssertEqual(testEP["provider"] as? String, "test")
        XCTAssertEqual(testEP["url"] as? String, server.fakeURL)
        XCTAssertEqual(try admin("GET", "/").code, 200)
    }

    func testDevicesRoundTrip() throws {
        var r = try admin("POST", "/devices", #"{"id":"d1","provider":"test","token":"abc","transitions":[{"afterDeliveries":1,"state":"unregistered"}]}"#)
        XCTAssertEqual(r.code, 201, r.body)
        XCTAssertEqual((r.json as? [String: Any])?["id"] as? String, "d1")
        r = try admin("POST", "/devices", #"[{"id":"d2","provider":"test","token":"def","state":"expired"},{"id":"d3","provider":"fcm","token":"x"}]"#)
        XCTAssertEqual(r.code, 201)
        XCTAssertEqual((r.json as? [Any])?.count, 2)
        XCTAssertEqual(try admin("POST", "/devices", #"{"id":"d1","provider":"test","token":"zzz"}"#).code, 409)
        XCTAssertEqual(((try admin("GET", "/devices").json) as? [[String: Any]])?.compactMap { $0["id"] as? String }, ["d1", "d2", "d3"])
        XCTAssertEqual(((try admin("GET", "/devices?provider=fcm").json) as? [[String: Any]])?.count, 1)

        XCTAssertEqual(try push("abc").code, 200)
        XCTAssertEqual(try push("abc").code, 410, "dies after its first push")
        let d1 = try XCTUnwrap(try admin("GET", "/devices/d1").json as? [String: Any])
        XCTAssertEqual(d1["state"] as? String, "unregistered")
        XCTAssertEqual(d1["deliveries"] as? Int, 1)

        r = try admin("PUT", "/devices/d1", #"{"provider":"test","token":"abc","state":"active"}"#)
        XCTAssertEqual(r.code, 200, r.body)
        XCTAssertEqual(try push("abc").code, 200)
        XCTAssertEqual(try admin("PUT", "/devices/d1", #"{"id":"other","provider":"test","token":"abc"}"#).code, 400)
        XCTAssertEqual(try admin("DELETE", "/devices/d1").code, 200)
        XCTAssertEqual(try admin("GET", "/devices/d1").code, 404)
        XCTAssertEqual(try admin("DELETE", "/devices/d1").code, 404)
        XCTAssertEqual(try admin("DELETE", "/devices?provider=test").code, 200)
        XCTAssertEqual(((try admin("GET", "/devices").json) as? [Any])?.count, 1)
    }

    func testValidationErrorsNameTheField() throws {
        let r = try admin("POST", "/devices", #"{"id":"d","provider":"test"}"#)
        XCTAssertEqual(r.code, 400)
        XCTAssertEqual((r.json as? [String: String])?["error"], "token: missing required field")
        let f = try admin("POST", "/faults", #"{"id":"f","action":{"type":"respond","status":"x"}}"#)
        XCTAssertEqual(f.code, 400)
        XCTAssertEqual((f.json as? [String: String])?["error"], "action.status: expected integer, found string")
        let s = try admin("POST", "/scenarios?name=mine.json", #"{"id":"s","faults":[{"id":"a"}]}"#)
        XCTAssertEqual(s.code, 400)
        XCTAssertEqual((s.json as? [String: String])?["error"], "mine.json: faults[0].action: missing required field")
        XCTAssertEqual(try admin("POST", "/devices", "{not json").code, 400)
        XCTAssertEqual(try admin("GET", "/nope").code, 404)
        XCTAssertEqual(try admin("PATCH", "/devices").code, 405)
        XCTAssertEqual(try admin("GET", "/history?bogus=1").code, 400)
    }

    func testFaultsRoundTripAndEffect() throws {
        var r = try admin("POST", "/faults", #"{"id":"f1","match":{"provider":"test"},"action":{"type":"respond","reason":"ServiceUnavailable","retryAfter":7},"times":1}"#)
        XCTAssertEqual(r.code, 201, r.body)
        XCTAssertEqual(try admin("POST", "/faults", #"{"id":"f1","action":{"type":"drop"}}"#).code, 409)
        let p = try push("abc")
        XCTAssertEqual(p.code, 503)
        XCTAssertEqual(p.header("retry-after"), "7")
        XCTAssertEqual(p.body, #"{"reason":"ServiceUnavailable"}"#)
        XCTAssertEqual(try push("abc").code, 200, "times: 1")
        r = try admin("GET", "/faults/f1")
        let status = try XCTUnwrap(r.json as? [String: Any])
        XCTAssertEqual(status["fired"] as? Int, 1)
        XCTAssertEqual(status["matched"] as? Int, 2)
        XCTAssertEqual(((try admin("GET", "/faults").json) as? [Any])?.count, 1)
        XCTAssertEqual(try admin("DELETE", "/faults/f1").code, 200)
        XCTAssertEqual(try admin("DELETE", "/faults/f1").code, 404)
        XCTAssertEqual(((try admin("GET", "/faults").json) as? [Any])?.count, 0)
    }

    func testScenarioLoadResetAndProviders() throws {
        let scenario = #"{"id":"t.closed","providers":{"test":{"world":"closed"}},"devices":[{"id":"d","provider":"test","token":"known"}],"faults":[{"id":"f","match":{"nth":2},"action":{"type":"respond","reason":"InternalServerError"}}],"steps":[{"type":"send","id":"s"}]}"#
        let r = try admin("POST", "/scenarios", scenario)
        XCTAssertEqual(r.code, 201, r.body)
        XCTAssertEqual(try push("unknown").code, 400, "closed world")
        XCTAssertEqual(try push("known").code, 500, "second request hits f")
        XCTAssertEqual(try push("known").code, 200)
        let providers = try XCTUnwrap(try admin("GET", "/providers").json as? [[String: Any]])
        XCTAssertEqual(providers.first?["world"] as? String, "closed")
        XCTAssertEqual(try admin("PUT", "/providers/test", #"{"world":"open"}"#).code, 200)
        XCTAssertEqual(try push("unknown").code, 200)
        XCTAssertEqual(try admin("POST", "/reset?provider=test").code, 200)
        let after = try admin("GET", "/devices")
        XCTAssertEqual((after.json as? [Any])?.count, 0, after.body)
        XCTAssertEqual(((try admin("GET", "/faults").json) as? [Any])?.count, 1, "a rule without a provider is not the provider's")
        XCTAssertEqual(try admin("POST", "/reset").code, 200)
        XCTAssertEqual(((try admin("GET", "/faults").json) as? [Any])?.count, 0)
        let health = try XCTUnwrap(try admin("GET", "/health").json as? [String: Any])
        XCTAssertEqual((health["history"] as? [String: Any])?["count"] as? Int, 0, "\(health)")
    }

    func testHistoryQueriesJSONLinesAndDelete() throws {
        _ = try push("aaa"); _ = try push("bbb"); _ = try push("aaa")
        var r = try admin("GET", "/history")
        let doc = try XCTUnwrap(r.json as? [String: Any])
        XCTAssertEqual(doc["count"] as? Int, 3)
        XCTAssertEqual(doc["dropped"] as? Int, 0)
        let ex = try XCTUnwrap(doc["exchanges"] as? [[String: Any]])
        XCTAssertEqual(ex.compactMap { $0["seq"] as? Int }, [1, 2, 3])
        XCTAssertEqual((ex[0]["transport"] as? [String: Any])?["version"] as? String, "HTTP/2")
        XCTAssertEqual((ex[0]["request"] as? [String: Any])?["path"] as? String, "/push/aaa")
        r = try admin("GET", "/history?token=aaa&after=1")
        XCTAssertEqual(((r.json as? [String: Any])?["exchanges"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int }, [3])
        r = try admin("GET", "/history?format=jsonl&provider=test&limit=2")
        XCTAssertEqual(r.header("content-type"), "application/x-ndjson")
        let lines = r.body.split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        for l in lines { XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(l.utf8))) }
        XCTAssertEqual(try admin("DELETE", "/history").code, 200)
        XCTAssertEqual(((try admin("GET", "/history").json) as? [String: Any])?["count"] as? Int, 0)
    }

    func testHistoryPagesFollowTheCursor() throws {
        for t in ["p1", "p2", "p3", "p4", "p5"] { _ = try push(t) }
        func page(_ q: String) throws -> (seqs: [Int], next: Any?) {
            let doc = try XCTUnwrap(try admin("GET", "/history" + q).json as? [String: Any])
            XCTAssertEqual(doc["count"] as? Int, (doc["exchanges"] as? [Any])?.count)
            XCTAssertEqual(doc["nextSeq"] as? Int, Int(server.history.nextSeq))
            return ((doc["exchanges"] as? [[String: Any]] ?? []).compactMap { $0["seq"] as? Int }, doc["nextCursor"])
        }
        var p = try page("?limit=2")
        XCTAssertEqual(p.seqs, [1, 2]); XCTAssertEqual(p.next as? Int, 2)
        p = try page("?limit=2&cursor=2")
        XCTAssertEqual(p.seqs, [3, 4]); XCTAssertEqual(p.next as? Int, 4)
        p = try page("?limit=2&after=4")
        XCTAssertEqual(p.seqs, [5]); XCTAssertTrue(p.next is NSNull, "the last page has nextCursor null")
        p = try page("")
        XCTAssertEqual(p.seqs, [1, 2, 3, 4, 5]); XCTAssertTrue(p.next is NSNull)
        p = try page("?token=p4&limit=1")
        XCTAssertEqual(p.seqs, [4]); XCTAssertTrue(p.next is NSNull, "null: nothing else matches")
        p = try page("?provider=test&limit=4")
        XCTAssertEqual(p.seqs, [1, 2, 3, 4]); XCTAssertEqual(p.next as? Int, 4, "a cursor when more match")
        XCTAssertEqual(try page("?token=p4&cursor=4").seqs, [])
        XCTAssertEqual(try admin("GET", "/history?cursor=x").code, 400)
        // More than the largest page: lowered to it.
        for i in 0..<(HistoryPaging.maxLimit + 1 - 5) { server.history.append(makeExchange(token: "bulk\(i)")) }
        let big = try page("?limit=999999")
        XCTAssertEqual(big.seqs.count, HistoryPaging.maxLimit); XCTAssertEqual(big.next as? Int, HistoryPaging.maxLimit)
        let lines = try admin("GET", "/history?format=jsonl&after=\(HistoryPaging.maxLimit - 1)").body.split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
    }

    func testHistoryStreamServerSentEvents() throws {
        _ = try push("first")
        let filtered = try StreamingCurl(server.adminURL + "/history/stream?token=second")
        let all = try StreamingCurl(server.adminURL + "/history/stream?after=0")
        defer { filtered.stop(); all.stop() }
        let deadline = Date().addingTimeInterval(10)
        while server.history.eventHub.clientCount < 2 && Date() < deadline { usleep(10_000) }
        XCTAssertEqual(server.history.eventHub.clientCount, 2)
        XCTAssertEqual(server.history.feedCount, 1, "one feed for all clients")
        _ = try push("second"); _ = try push("third"); _ = try push("second")
        func events(_ t: String) -> [String] { t.components(separatedBy: "\n\n").filter { $0.contains("event: exchange") } }
        XCTAssertTrue(filtered.wait { events($0).count >= 2 }, filtered.text)
        XCTAssertTrue(all.wait { events($0).count >= 4 }, "backlog (1) + live (3): " + all.text)
        let got = events(filtered.text)
        XCTAssertEqual(got.count, 2)
        XCTAssertTrue(got.first?.hasPrefix("id: 2\nevent: exchange\ndata: {") ?? false, got.first ?? "")
        XCTAssertTrue(got.last?.hasPrefix("id: 4\n") ?? false, got.last ?? "")
        XCTAssertEqual(events(all.text).compactMap { $0.split(separator: "\n").first.map(String.init) }, ["id: 1", "id: 2", "id: 3", "id: 4"])
        // Keep-alive comments flow (heartbeat 0.2 s in tests).
        XCTAssertTrue(filtered.wait(timeout: 3) { $0.contains(": keepalive") })
        // Clients that go away are unsubscribed (the heartbeat notices).
        filtered.stop(); all.stop()
        let d2 = Date().addingTimeInterval(5)
        while (server.history.eventHub.clientCount > 0 || server.history.feedCount > 0) && Date() < d2 { usleep(20_000) }
        XCTAssertEqual(server.history.eventHub.clientCount, 0)
        XCTAssertEqual(server.history.feedCount, 0, "the fan-out stops with its last client")
    }
}
