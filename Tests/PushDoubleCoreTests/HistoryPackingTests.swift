import Foundation
import XCTest
@testable import PushDoubleCore
import PushDoubleTransport

/// The history stores records packed (one buffer, repeated strings pooled): every field must
/// come back exactly as the request path handed it over.
final class HistoryPackingTests: XCTestCase {
    static let at = Date(timeIntervalSince1970: 1_800_000_000.25)
    static let tls = TLSInfo(version: "TLSv1.3", alpn: "h2", serverName: "api.push.apple.com", cipher: "TLS_AES_128_GCM_SHA256")

    func record(path: String = "/3/device/" + String(repeating: "ab", count: 32), token: String? = String(repeating: "ab", count: 32),
                authority: String? = "api.push.apple.com", headers: [(String, String)] = [("authorization", "bearer " + String(repeating: "J", count: 200)), ("apns-topic", "com.example.app")],
                body: [UInt8] = Array(#"{"aps":{"alert":"hi"}}"#.utf8), action: ResponseAction = .respond(HTTPResponse(status: 200, headers: ["apns-id": UUID().uuidString.lowercased()], framing: .headersOnly)),
                connection: UInt64 = 7, stream: UInt32 = 9, auth: AuthIdentity? = AuthIdentity(scheme: "apns-jwt", keyID: "K", issuer: "T", issuedAt: 1, valid: true, extra: ["alg": "ES256"]),
                reason: String? = nil, detail: String? = nil, decision: Decision = Decision(.accepted, "openWorld"),
                deviceID: String? = nil, topic: String? = "com.example.app") -> ExchangeRecord {
        let conn = ConnectionInfo(id: connection, listener: "apns-production", peer: "127.0.0.1:5000", localPort: 8721, tls: Self.tls, acceptedAt: Self.at)
        let info = RequestInfo(connection: conn, streamID: stream, version: .http2, headReceivedAt: Self.at, bodyReceivedAt: Self.at + 0.001,
                               priorityFramesReceived: 2)
        let req = HTTPRequest(method: "POST", path: path, scheme: "https", authority: authority, headers: HTTPHeaders(headers), body: body, info: info)
        return ExchangeRecord(provider: "apns", endpoint: "apns.push", request: req, token: token, topic: topic, environment: "production",
                              deviceID: deviceID, auth: auth, notification: nil, action: action, reason: reason, detail: detail,
                              decidedBy: decision, receivedAt: Self.at, respondedAt: Self.at + 0.002,
                              notificationMaker: { r in JSONValue.string(String(decoding: r.body, as: UTF8.self)) })
    }

    /// The stored exchange encodes exactly like the one made from the record unpacked.
    func assertRoundTrips(_ r: ExchangeRecord, in h: HistoryStore, file: StaticString = #filePath, line: UInt = #line) {
        let seq = h.append(r)
        guard let stored = h.query(HistoryQuery(afterSeq: seq - 1, limit: 1)).first else { return XCTFail("not stored", file: file, line: line) }
        let expected = r.exchange(seq: seq)
        XCTAssertEqual(String(decoding: ExchangeEncoding.json(stored), as: UTF8.self),
                       String(decoding: ExchangeEncoding.json(expected), as: UTF8.self), file: file, line: line)
        let item = h.items(after: seq - 1, count: 1)[0]
        XCTAssertEqual(item.summary, ExchangeSummary(expected), file: file, line: line)
        // The log line read in place from the packed record is the line of the summary.
        var packedLine: [UInt8] = []
        item.appendLine(into: &packedLine)
        XCTAssertEqual(String(decoding: packedLine, as: UTF8.self), ExchangeLine.text(ExchangeSummary(expected)) + "\n", file: file, line: line)
    }

    func testEveryFieldRoundTrips() {
        let h = HistoryStore()
        let token = String(repeating: "ab", count: 32)
        assertRoundTrips(record(), in: h)
        assertRoundTrips(record(), in: h)   // second sighting: now pooled
        assertRoundTrips(record(), in: h)
        assertRoundTrips(record(path: "/3/device/" + token.uppercased(), token: token), in: h)    // token not a suffix of the path
        assertRoundTrips(record(token: nil, authority: nil, headers: [], body: [], auth: nil, topic: nil), in: h)
        assertRoundTrips(record(authority: "", headers: [("x-ü", "välue"), ("empty", ""), ("apns-topic", "t"), ("apns-topic", "u")],
                                body: [0xff, 0x00, 0x7b, 0xc3]), in: h)   // not UTF-8, with a NUL; repeats kept
        // Paths around the line's 60-character cut, ASCII and not (the packed line counts
        // bytes only when that equals counting characters).
        for p in ["/" + String(repeating: "p", count: 59), "/" + String(repeating: "p", count: 60), "/" + String(repeating: "é", count: 59),
                  "/" + String(repeating: "é", count: 70), "/a\r\n" + String(repeating: "b", count: 58), "/" + String(repeating: "🇫🇷", count: 40)] {
            assertRoundTrips(record(path: p), in: h)
        }
        assertRoundTrips(record(headers: (0..<40).map { ("x-h\($0)", "v\($0)") }), in: h)   // more fields than fast-path slots
        assertRoundTrips(record(action: .respond(HTTPResponse(status: 410, headers: ["apns-id": "x", "content-type": "application/json"],
                                                              body: Array(#"{"reason":"Unregistered"}"#.utf8), framing: .singleDataFrame)),
                                reason: "Unregistered", decision: Decision(.device, "d1: unregistered"), deviceID: "d1"), in: h)
        assertRoundTrips(record(action: .respond(HTTPResponse(status: 200, body: Array("abc".utf8), framing: .chunked(maxChunk: 2)))), in: h)
        assertRoundTrips(record(action: .delayed(seconds: 1.5, then: .resetStream(.cancel)), detail: "fault f1: delay",
                                decision: Decision(.fault, "f1")), in: h)
        assertRoundTrips(record(action: .goAway(lastStreamID: .thisStream, errorCode: .noError, debugData: Array("bye".utf8),
                                                then: .respond(HTTPResponse(status: 503)))), in: h)
        assertRoundTrips(record(action: .stall, auth: AuthIdentity(scheme: "none", valid: false, extra: ["authorization": "not a bearer token"])), in: h)
    }

    func testRepeatedStringsAreStoredOnce() {
        let h = HistoryStore()
        let jwt = "bearer " + String(repeating: "J", count: 200)
        for i in 0..<100 {
            h.append(record(path: "/3/device/\(String(format: "%064x", i))", token: String(format: "%064x", i),
                            headers: [("authorization", jwt), ("apns-topic", "com.example.app")], connection: UInt64(i % 3)))
        }
        let items = h.items(after: nil, count: 100)
        guard case .record(_, let first) = items[10].entry, case .record(_, let second) = items[11].entry else { return XCTFail("packed records expected") }
        XCTAssertLessThan(first.bytes.count, 200, "the JWT is not in the record: \(first.bytes.count) bytes")
        XCTAssertTrue(first.strings === second.strings)
        XCTAssertTrue(items[10].entry.exchange.request.headers.contains(["authorization", jwt]))
        guard case .record(_, let a) = items[0].entry, case .record(_, let b) = items[3].entry else { return XCTFail() }
        XCTAssertTrue(a.connection === b.connection, "one connection's facts are shared")
        XCTAssertTrue(a.auth === b.auth, "an identity repeated is shared")
    }

    func testPoolGenerationsRollOver() {
        let h = HistoryStore(cap: 10)
        // Every value repeats once (admitted on its second sighting) and is new otherwise:
        // the pool fills and a new generation starts; old records stay readable.
        for i in 0..<(StringPool.maxValues + 50) {
            let v = "value-number-\(i)"
            h.append(record(headers: [("x-a", v)]))
            h.append(record(headers: [("x-a", v)]))
        }
        for e in h.all { XCTAssertTrue(e.request.headers.first?[1].hasPrefix("value-number-") ?? false) }
        let items = h.items(after: nil, count: 10)
        guard case .record(_, let last) = items[9].entry else { return XCTFail() }
        XCTAssertLessThan(last.strings.count, StringPool.maxValues, "a new generation was started")
    }

    func testFeedKeepsOrderAndCountsDrops() {
        let h = HistoryStore(cap: 100)
        h.append(record())
        let (feed, next) = h.feed(capacity: 3)
        XCTAssertEqual(next, 2)
        for _ in 0..<5 { h.append(record()) }         // seq 2…6: 2,3,4 queued, 5,6 dropped
        var events = feed.take()
        h.append(record())                              // seq 7
        events += feed.take()
        XCTAssertTrue(feed.take().isEmpty)
        let shape = events.map { e -> String in
            switch e { case .exchange(let i): return "#\(i.seq)"; case .dropped(let n): return "-\(n)" }
        }
        XCTAssertEqual(shape, ["#2", "#3", "#4", "-2", "#7"])
        for _ in 0..<3 { h.append(record()) }          // seq 8, 9, 10
        let first = feed.take(max: 2), rest = feed.take(max: 2)
        XCTAssertEqual(first.count, 2); XCTAssertEqual(rest.count, 1, "a partial take leaves the rest queued")
        if case .exchange(let i) = rest[0] { XCTAssertEqual(i.seq, 10) } else { XCTFail() }
        feed.cancel()
        XCTAssertEqual(h.feedCount, 0)
        h.append(record())
        XCTAssertTrue(feed.take().isEmpty)
    }

    func testFeedPumpDeliversEverythingInOrderAndFlushesOnStop() {
        let h = HistoryStore(cap: 100)
        let (feed, _) = h.feed()
        let seen = Locked<[UInt64]>([])
        let pump = HistoryFeedPump(feed: feed, interval: 60, name: "test.pump") { events in
            for case .exchange(let i) in events { seen.withLock { $0.append(i.seq) } }
        }
        let r = record()
        DispatchQueue.concurrentPerform(iterations: 2) { _ in for _ in 0..<50 { h.append(r) } }
        pump.stop()   // long interval: only stop() can have delivered them
        XCTAssertEqual(seen.withLock { $0 }, Array(1...100))
        XCTAssertEqual(h.feedCount, 0)
    }

    func testPagesWalkTheHistoryInWindows() {
        let h = HistoryStore(cap: 10)
        for _ in 0..<25 { h.append(record()) }          // keeps 16…25
        XCTAssertEqual(h.items(after: nil, count: 4).map(\.seq), [16, 17, 18, 19])
        XCTAssertEqual(h.items(after: 19, count: 4).map(\.seq), [20, 21, 22, 23])
        XCTAssertEqual(h.items(after: 3, count: 2).map(\.seq), [16, 17], "a cursor older than the history starts at the oldest")
        XCTAssertEqual(h.items(after: 25, count: 4).map(\.seq), [])
        XCTAssertEqual(h.query(HistoryQuery(afterSeq: 23)).map(\.seq), [24, 25])
    }
}

#if canImport(Glibc)
import Glibc

/// Memory held by the history per stored exchange of a 300-byte APNs alert with distinct
/// tokens (the figure bench/history-memory.sh measures for a whole server).
final class HistoryMemoryTests: XCTestCase {
    /// Resident bytes of this process (/proc/self/statm).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    func testAStoredAlertTakesAtMostOneKilobyte() {
        let cap = 30_000
        let h = HistoryStore(cap: cap)
        let jwt = "bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IlBEVEVTVEtFWTEiLCJ0eXAiOiJKV1QifQ.eyJpc3MiOiJQRFRFU1RURUFNIiwiaWF0IjoxNzk2MTIxNDg0fQ."
            + String(repeating: "k", count: 86)
        let body = Array(("{\"aps\":{\"alert\":{\"title\":\"Benchmark\",\"body\":\"" + String(repeating: "x", count: 229) + "\"},\"badge\":1,\"sound\":\"default\"}}").utf8)
        
        let tls = TLSInfo(version: "TLSv1.3", alpn: "h2", serverName: nil, cipher: "TLS_AES_256_GCM_SHA384")
        let auth = AuthIdentity(scheme: "apns-jwt", keyID: "PDTESTKEY1", issuer: "PDTESTTEAM", issuedAt: 1_796_121_484, valid: true, extra: ["alg": "ES256"])
        let conns = (0..<10).map { ConnectionInfo(id: UInt64($0), listener: "apns-production", peer: "127.0.0.1:\(40000 + $0)", localPort: 8721, tls: tls, acceptedAt: Date()) }
        func append(_ i: Int) {
            let token = String(format: "%064x", 0x5d00_0000 + i)
            let now = Date()
            let info = RequestInfo(connection: conns[i % 10], streamID: UInt32(2 * i + 1), version: .http2, headReceivedAt: now, bodyReceivedAt: now)
            // Fresh strings per request, as the HPACK decoder makes them.
            let headers = HTTPHeaders([("user-agent", "h2load nghttp2/" + "1.52.0"), ("authorization", String(jwt.utf8.map { Character(UnicodeScalar($0)) })),
                                       ("apns-topic", "com.example." + "pushdouble"), ("apns-push-type", "alert"),
                                       ("content-type", "application/" + "json"), ("content-length", "300")])
            let req = HTTPRequest(method: "POST", path: "/3/device/" + token, scheme: "https", authority: "127.0.0.1:8721", headers: headers, body: body, info: info)
            let response = HTTPResponse(status: 200, headers: ["apns-id": UUID().uuidString.lowercased()], framing: .headersOnly)
            h.append(ExchangeRecord(provider: "apns", endpoint: "apns.push", request: req, token: String(token.utf8.map { Character(UnicodeScalar($0)) }),
                                    topic: "com.example." + "pushdouble", environment: "production", deviceID: nil, auth: auth, notification: nil,
                                    action: .respond(response), reason: nil, detail: nil, decidedBy: Decision(.accepted, "openWorld"),
                                    receivedAt: now, respondedAt: now, notificationMaker: { _ in nil }))
        }
        for i in 0..<100 { append(i) }
        let before = Self.residentBytes()
        for i in 100..<(cap + 100) { append(i) }   // 100 evicted, cap stored
        let perEntry = Double(Self.residentBytes() - before) / Double(cap - 100)
        print("history RSS per stored exchange: \(Int(perEntry)) bytes")
        XCTAssertLessThanOrEqual(perEntry, 1024)
        XCTAssertEqual(h.count, cap)
    }
}
#endif

/// The server-sent-event fan-out with a sink that records what it is given.
final class HistoryEventHubTests: XCTestCase {
    final class RecordingSink: ResponseBodySink, @unchecked Sendable {
        private let state = Locked<(text: String, finished: Bool, closed: Bool, callbacks: [@Sendable () -> Void])>(("", false, false, []))
        let unsent: Int
        init(unsent: Int = 0) { self.unsent = unsent }
        var unsentBytes: Int { unsent }
        func write(_ bytes: [UInt8]) { state.withLock { $0.text += String(decoding: bytes, as: UTF8.self) } }
        func finish() { state.withLock { $0.finished = true } }
        var isClosed: Bool { state.withLock { $0.closed } }
        func onClose(_ callback: @escaping @Sendable () -> Void) { state.withLock { $0.callbacks.append(callback) } }
        func close() { for c in state.withLock({ s -> [@Sendable () -> Void] in s.closed = true; return s.callbacks }) { c() } }
        var text: String { state.withLock { $0.text } }
        var finished: Bool { state.withLock { $0.finished } }
        func wait(_ timeout: Double = 5, _ until: (RecordingSink) -> Bool) -> Bool {
            let end = Date().addingTimeInterval(timeout)
            while !until(self) && Date() < end { usleep(5_000) }
            return until(self)
        }
    }

    func ids(_ text: String) -> [String] {
        text.components(separatedBy: "\n\n").filter { $0.contains("event: exchange") }.compactMap { $0.split(separator: "\n").first.map(String.init) }
    }

    func testBacklogThenLiveInOrderAndStopsWithTheLastClient() {
        let h = HistoryStore()
        h.append(makeExchange(token: "a")); h.append(makeExchange(token: "b"))
        let sink = RecordingSink()
        HistoryEventStream(history: h, query: HistoryQuery(token: "a"), heartbeat: nil).start(sink)
        XCTAssertTrue(sink.wait { self.ids($0.text) == ["id: 1"] }, sink.text)
        h.append(makeExchange(token: "a")); h.append(makeExchange(token: "b")); h.append(makeExchange(token: "a"))
        XCTAssertTrue(sink.wait { self.ids($0.text) == ["id: 1", "id: 3", "id: 5"] }, sink.text)
        XCTAssertEqual(h.feedCount, 1)
        sink.close()
        let end = Date().addingTimeInterval(5)
        while h.feedCount > 0 && Date() < end { usleep(5_000) }
        XCTAssertEqual(h.feedCount, 0)
        XCTAssertEqual(h.eventHub.clientCount, 0)
    }

    func testALongBacklogIsCutWithResumePoint() {
        let h = HistoryStore()
        for _ in 0..<(HistoryEventHub.maxBacklog + 10) { h.append(makeExchange()) }
        let sink = RecordingSink()
        HistoryEventStream(history: h, query: HistoryQuery(afterSeq: 5), heartbeat: nil).start(sink)
        XCTAssertTrue(sink.wait { $0.finished }, "disconnected")
        XCTAssertEqual(ids(sink.text).count, HistoryEventHub.maxBacklog)
        XCTAssertTrue(sink.text.hasSuffix("event: lagged\ndata: {\"reason\":\"lagged\",\"resumeFrom\":\(5 + HistoryEventHub.maxBacklog)}\n\n"), String(sink.text.suffix(120)))
    }

    func testAClientThatDoesNotReadIsDisconnected() {
        let h = HistoryStore()
        let slow = RecordingSink(unsent: HistoryEventHub.maxUnsent + 1)
        let fine = RecordingSink()
        HistoryEventStream(history: h, query: HistoryQuery(), heartbeat: nil).start(slow)
        HistoryEventStream(history: h, query: HistoryQuery(), heartbeat: nil).start(fine)
        XCTAssertTrue(fine.wait { $0.text.contains("history stream") })
        h.append(makeExchange())
        XCTAssertTrue(slow.wait { $0.finished })
        XCTAssertTrue(slow.text.contains("event: lagged\ndata: {\"reason\":\"lagged\",\"resumeFrom\":0}"), slow.text)
        XCTAssertTrue(fine.wait { self.ids($0.text) == ["id: 1"] })
        XCTAssertFalse(fine.finished)
        fine.close()
    }

    func testHeartbeats() {
        let h = HistoryStore()
        let sink = RecordingSink()
        HistoryEventStream(history: h, query: HistoryQuery(), heartbeat: 0.05).start(sink)
        XCTAssertTrue(sink.wait { $0.text.components(separatedBy: ": keepalive").count >= 3 })
        sink.close()
    }
}
