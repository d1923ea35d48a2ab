import Foundation
import XCTest
import PushDoubleHPACK
@testable import PushDoubleTransport
@testable import PushDoubleClient

/// The client against a scripted HTTP/2 server that plays exact frames: GOAWAY,
/// MAX_CONCURRENT_STREAMS raised APNs-style, REFUSED_STREAM, CONTINUATION and trailers,
/// flow control of request bodies, PING, timeouts, HPACK errors, request encoding.
final class ClientScriptedHTTP2Tests: XCTestCase {
    private let h2c = HTTPClientConfiguration(alpn: ["h2"], connectTimeout: 5, requestTimeout: 10)

    private func connect(_ server: ScriptedServer, config: HTTPClientConfiguration? = nil) async throws -> HTTPClientConnection {
        try await HTTPClientConnection.connect(host: "127.0.0.1", port: server.port, tls: false, configuration: config ?? h2c)
    }

    private static func get(_ path: String = "/") -> HTTPClientRequest {
        HTTPClientRequest(path: path, authority: "example.test", scheme: "http")
    }

    private static func noPriority(_ s: ScriptedSocket) throws {
        // RFC 9113 §5.3.2 deprecates priority signals; the client never sends PRIORITY.
        if s.sawPriority { throw ScriptError("client sent priority information") }
    }

    func testGoAwayFailsStreamsAboveLastStreamIDAndLetsLowerOnesFinish() async throws {
        let server = ScriptedServer { s in
            try s.handshake(settings: [HTTP2Setting(.maxConcurrentStreams, 10)])
            var ids: [UInt32] = []
            for _ in 0..<3 { ids.append(try s.readRequestHeaders().streamID) }
            guard ids.sorted() == [1, 3, 5] else { throw ScriptError("stream ids \(ids)") }
            s.write(.goAway(lastStreamID: 3, errorCode: .noError, debugData: Array("maintenance".utf8)))
            s.respond(streamID: 1, body: Array("one".utf8))
            s.respond(streamID: 3, body: Array("three".utf8))
            _ = s.readUntilEOF()  // the client closes once streams 1 and 3 are done
            try Self.noPriority(s)
        }
        let c = try await connect(server)
        let results = await withTaskGroup(of: Result<HTTPClientResponse, HTTPClientError>.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    do throws(HTTPClientError) { return .success(try await c.send(Self.get())) } catch { return .failure(error) }
                }
            }
            var all: [Result<HTTPClientResponse, HTTPClientError>] = []
            for await r in group { all.append(r) }
            return all
        }
        let ok = results.compactMap { try? $0.get() }
        XCTAssertEqual(Set(ok.map(\.streamID)), [1, 3])
        let failures = results.compactMap { r -> HTTPClientError? in if case .failure(let e) = r { return e } else { return nil } }
        XCTAssertEqual(failures, [.goAway(lastStreamID: 3, errorCode: .noError, debugData: Array("maintenance".utf8))])
        XCTAssertFalse(c.isUsable)
        let late = await expectClientError { () async throws(HTTPClientError) in try await c.send(Self.get()) }
        XCTAssertNotNil(late)
        server.finish()
    }

    func testWaitingRequestsProceedWhenPeerRaisesConcurrencyLimit() async throws {
        // APNs starts with SETTINGS_MAX_CONCURRENT_STREAMS = 1 and raises it after the first
        // request: queued requests must wait, then all go at once.
        let server = ScriptedServer { s in
            try s.handshake(settings: [HTTP2Setting(.maxConcurrentStreams, 1)])
            let first = try s.readRequestHeaders()
            guard first.streamID == 1 else { throw ScriptError("first stream \(first.streamID)") }
            let early = s.frames(for: 0.3).filter { $0.type == .headers }
            if !early.isEmpty { throw ScriptError("client opened \(early.count) streams past the limit of 1") }
            s.respond(streamID: 1)
            _ = try s.readRequestHeaders()  // stream 3 takes the freed slot
            if !s.frames(for: 0.3).filter({ $0.type == .headers }).isEmpty { throw ScriptError("limit of 1 exceeded") }
            s.write(.settings([HTTP2Setting(.maxConcurrentStreams, 1000)]))
            var open: [UInt32] = [3]
            while open.count < 5 { open.append(try s.readRequestHeaders().streamID) }
            guard open.sorted() == [3, 5, 7, 9, 11] else { throw ScriptError("streams \(open)") }
            for id in open { s.respond(streamID: id) }
            _ = s.frames(for: 0.2)
            try Self.noPriority(s)
        }
        let c = try await connect(server)
        XCTAssertEqual(c.peerMaxConcurrentStreams, 1)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<6 { group.addTask { try await c.send(Self.get()).status } }
            var all: [Int] = []
            for try await st in group { all.append(st) }
            return all
        }
        XCTAssertEqual(statuses, Array(repeating: 200, count: 6))
        XCTAssertEqual(c.peerMaxConcurrentStreams, 1000)
        c.close()
        server.finish()
    }

    func testRefusedStreamIsReportedAndConnectionStaysUsable() async throws {
        let server = ScriptedServer { s in
            try s.handshake()
            let a = try s.readRequestHeaders()
            s.write(.rstStream(streamID: a.streamID, .refusedStream))
            let b = try s.readRequestHeaders()
            s.respond(streamID: b.streamID, status: 204)
            _ = s.frames(for: 0.2)
        }
        let c = try await connect(server)
        let error = await expectClientError { () async throws(HTTPClientError) in try await c.send(Self.get()) }
        XCTAssertEqual(error, .streamReset(.refusedStream))
        XCTAssertTrue(c.isUsable)
        let r = try await c.send(Self.get())
        XCTAssertEqual(r.status, 204)
        XCTAssertEqual(r.streamID, 3)
        c.close()
        server.finish()
    }

    func testExactFramingWithContinuationDataAndTrailers() async throws {
        let server = ScriptedServer { s in
            try s.handshake()
            let a = try s.readRequestHeaders()
            var block: [UInt8] = []
            s.hpackEncoder.encode([(":status", "200"), ("content-type", "text/plain"), ("x-long", String(repeating: "v", count: 40))],
                                  into: &block)
            let cut = block.count / 2
            s.write(.headers(streamID: a.streamID, fragment: Array(block[..<cut]), endStream: false, endHeaders: false))
            s.write(HTTP2Frame(streamID: a.streamID, flags: .endHeaders, payload: .continuation(Array(block[cut...]))))
            s.write(.data(streamID: a.streamID, Array("0123456789".utf8)))
            s.write(.data(streamID: a.streamID, [], endStream: true))

            let b = try s.readRequestHeaders()
            s.respond(streamID: b.streamID)  // a single HEADERS frame with END_STREAM
            _ = s.frames(for: 0.1)
        }
        let c = try await connect(server)
        let r = try await c.send(Self.get("/a"))
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.headers["content-type"], "text/plain")
        XCTAssertEqual(r.headers["x-long"]?.count, 40)
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), "0123456789")
        XCTAssertEqual(r.frames, [.headers(endStream: false), .continuation(endHeaders: true),
                                  .data(length: 10, endStream: false), .data(length: 0, endStream: true)])
        let second = try await c.send(Self.get("/b"))
        XCTAssertEqual(second.frames, [.headers(endStream: true)])
        c.close()
        server.finish()
    }

    func testTrailersAreAppendedToHeaders() async throws {
        let server = ScriptedServer { s in
            try s.handshake()
            let a = try s.readRequestHeaders()
            var block: [UInt8] = []
            s.hpackEncoder.encode([(":status", "200")], into: &block)
            s.write(.headers(streamID: a.streamID, fragment: block))
            s.write(.data(streamID: a.streamID, Array("body".utf8)))
            block = []
            s.hpackEncoder.encode([("x-trailer", "yes")], into: &block)
            s.write(.headers(streamID: a.streamID, fragment: block, endStream: true))
            _ = s.frames(for: 0.1)
        }
        let c = try await connect(server)
        let r = try await c.send(Self.get())
        XCTAssertEqual(r.headers["x-trailer"], "yes")
        XCTAssertEqual(r.frames, [.headers(endStream: false), .data(length: 4, endStream: false), .headers(endStream: true)])
        c.close()
        server.finish()
    }

    func testRequestBodyHonoursPeerWindowAndWindowUpdate() async throws {
        let body = clientTestBytes(1000, seed: 5)
        let server = ScriptedServer { s in
            try s.handshake(settings: [HTTP2Setting(.initialWindowSize, 100)])
            let h = try s.readRequestHeaders()
            guard !h.endStream, h.fields.first(where: { $0.name == "content-length" })?.value == "1000" else {
                throw ScriptError("bad request head \(h.fields)")
            }
            var got: [UInt8] = []
            while got.count < 100 {
                let f = try s.readFrame()
                if case .data(let d, _) = f.payload { got += d }
            }
            let extra = s.frames(for: 0.3).filter { $0.type == .data }
            if !extra.isEmpty || got.count != 100 { throw ScriptError("client overran the 100-byte window: \(got.count)+") }
            s.write(.windowUpdate(streamID: h.streamID, increment: 900))
            var end = false
            while !end {
                let f = try s.readFrame()
                if case .data(let d, _) = f.payload {
                    got += d
                    end = f.endStream
                }
            }
            if got != body { throw ScriptError("body mismatch (\(got.count) bytes)") }
            s.respond(streamID: h.streamID, body: Array("ok".utf8))
            _ = s.frames(for: 0.1)
        }
        let c = try await connect(server)
        let r = try await c.send(HTTPClientRequest(method: "POST", path: "/upload", authority: "x", scheme: "http", body: body))
        XCTAssertEqual(r.body, Array("ok".utf8))
        c.close()
        server.finish()
    }

    func testServerPingAndSettingsAreAcknowledged() async throws {
        let server = ScriptedServer { s in
            s.write(.settings([HTTP2Setting(.maxConcurrentStreams, 7)]))
            s.write(.ping(0x1122_3344_5566_7788))
            var sawSettingsAck = false
            var sawPingAck = false
            var clientSettings: [HTTP2Setting] = []
            for f in s.frames(for: 0.5) {
                switch f.payload {
                case .settings(let list) where f.isAck: sawSettingsAck = true; _ = list
                case .settings(let list): clientSettings = list
                case .ping(let v) where f.isAck: sawPingAck = v == 0x1122_3344_5566_7788
                default: break
                }
            }
            if !sawSettingsAck { throw ScriptError("no SETTINGS ACK") }
            if !sawPingAck { throw ScriptError("no PING ACK echoing the data") }
            if !clientSettings.contains(HTTP2Setting(.enablePush, 0)) { throw ScriptError("push not disabled: \(clientSettings)") }
        }
        let c = try await connect(server)
        XCTAssertEqual(c.peerMaxConcurrentStreams, 7)
        server.finish()
        c.close()
    }

    func testClientPingRoundTrip() async throws {
        let server = ScriptedServer { s in
            try s.handshake()
            let p = try s.readFrame { if case .ping = $0.payload { return true } else { return false } }
            guard case .ping(let v) = p.payload, !p.isAck else { throw ScriptError("not a PING") }
            usleep(50_000)
            s.write(.ping(v, ack: true))
            _ = s.frames(for: 0.1)
        }
        let c = try await connect(server)
        let rtt = try await c.ping()
        XCTAssertGreaterThanOrEqual(rtt, 0.04)
        XCTAssertLessThan(rtt, 2)
        c.close()
        server.finish()
    }

    func testConnectionDropWithRequestInFlight() async throws {
        let server = ScriptedServer { s in
            try s.handshake()
            _ = try s.readRequestHeaders()
            s.close()
        }
        let c = try await connect(server)
        let error = await expectClientError { () async throws(HTTPClientError) in try await c.send(Self.get()) }
        guard case .connectionClosed = error else { return XCTFail("got \(String(describing: error))") }
        XCTAssertFalse(c.isUsable)
        server.finish()
    }

    func testRequestTimeoutResetsTheStream() async throws {
        let server = ScriptedServer { s in
            try s.handshake()
            let h = try s.readRequestHeaders()
            let rst = try s.readFrame { if case .rstStream = $0.payload { return true } else { return false } }
            guard rst.streamID == h.streamID, case .rstStream(let code) = rst.payload, code == .cancel else {
                throw ScriptError("expected RST_STREAM CANCEL, got \(rst)")
            }
            // A late response for the reset stream must not disturb the connection.
            s.respond(streamID: h.streamID, body: Array("late".utf8))
            let next = try s.readRequestHeaders()
            s.respond(streamID: next.streamID)
            _ = s.frames(for: 0.1)
        }
        var config = h2c
        config.requestTimeout = 0.3
        let c = try await connect(server, config: config)
        let error = await expectClientError { () async throws(HTTPClientError) in try await c.send(Self.get()) }
        XCTAssertEqual(error, .timeout)
        try await Task.sleep(nanoseconds: 100_000_000)
        let r = try await c.send(Self.get())
        XCTAssertEqual(r.status, 200)
        c.close()
        server.finish()
    }

    func testQueuedRequestsTimeOutToo() async throws {
        let server = ScriptedServer { s in
            try s.handshake(settings: [HTTP2Setting(.maxConcurrentStreams, 1)])
            _ = s.frames(for: 1.0)  // never answers
        }
        var config = h2c
        config.requestTimeout = 0.3
        let c = try await connect(server, config: config)
        let start = Date()
        let errors = await withTaskGroup(of: HTTPClientError?.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    do throws(HTTPClientError) { _ = try await c.send(Self.get()); return nil } catch { return error }
                }
            }
            var all: [HTTPClientError?] = []
            for await e in group { all.append(e) }
            return all
        }
        XCTAssertEqual(errors, [.timeout, .timeout, .timeout])
        XCTAssertLessThan(Date().timeIntervalSince(start), 2)
        c.close()
        server.finish()
    }

    func testRandomServerBytesGiveTypedErrorsNotCrashes() async throws {
        // Seeded garbage after a valid preface, then close: every request must end with
        // a typed error or a response, never a crash or a hang.
        for round in 0..<40 {
            let garbage = clientTestBytes(Int(7 + (round * 37) % 300), seed: UInt64(round + 100))
            let server = ScriptedServer { s in
                try s.handshake()
                _ = try s.readRequestHeaders()
                // Half the rounds: a plausible frame header first, so the decoder reaches payloads.
                if round % 2 == 0 { s.write([0, 0, UInt8(garbage.count % 64), UInt8(round % 10), 0, 0, 0, 0, 1]) }
                s.write(garbage)
                _ = s.frames(for: 0.05)
            }
            var config = h2c
            config.requestTimeout = 2
            let c = try await connect(server, config: config)
            do throws(HTTPClientError) {
                _ = try await c.send(Self.get())
            } catch {
                switch error {
                case .protocolError, .connectionClosed, .streamReset, .goAway: break
                default: XCTFail("round \(round): unexpected \(error)")
                }
            }
            c.close()
            server.finish()
        }
    }

    func testBadHPACKFromServerIsAConnectionError() async throws {
        let server = ScriptedServer { s in
            try s.handshake()
            let h = try s.readRequestHeaders()
            s.write(.headers(streamID: h.streamID, fragment: [0x80]))  // index 0
            let g = try s.readFrame { if case .goAway = $0.payload { return true } else { return false } }
            guard case .goAway(_, let code, _) = g.payload, code == .compressionError else {
                throw ScriptError("expected GOAWAY COMPRESSION_ERROR, got \(g)")
            }
        }
        let c = try await connect(server)
        let error = await expectClientError { () async throws(HTTPClientError) in try await c.send(Self.get()) }
        guard case .protocolError(let m) = error else { return XCTFail("got \(String(describing: error))") }
        XCTAssertTrue(m.contains("COMPRESSION_ERROR"), m)
        XCTAssertFalse(c.isUsable)
        server.finish()
    }

    func testRequestHeadEncoding() async throws {
        let server = ScriptedServer { s in
            try s.handshake()
            let h = try s.readRequestHeaders()
            let names = h.fields.map(\.name)
            let expected = [":method", ":scheme", ":authority", ":path", "x-mixed-case", "authorization", "content-length"]
            if names != expected { throw ScriptError("header names \(names)") }
            if h.fields[0].value != "POST" || h.fields[2].value != "api.example:443" || h.fields[3].value != "/3/device/abc" {
                throw ScriptError("pseudo-headers \(h.fields)")
            }
            if !h.fields[5].neverIndex { throw ScriptError("authorization was not sent never-indexed") }
            if h.fields[6].value != "5" { throw ScriptError("content-length \(h.fields[6].value)") }
            let d = try s.readFrame { $0.type == .data }
            guard case .data(let bytes, _) = d.payload, bytes == Array("hello".utf8), d.endStream else {
                throw ScriptError("body frame \(d)")
            }
            s.respond(streamID: h.streamID)
            _ = s.frames(for: 0.1)
            try Self.noPriority(s)
        }
        let c = try await connect(server)
        var req = HTTPClientRequest(method: "POST", path: "/3/device/abc", authority: "api.example:443",
                                    body: Array("hello".utf8))
        req.headers.add(name: "Connection", value: "keep-alive")
        req.headers.add(name: "X-Mixed-Case", value: "v")
        req.headers.add(name: "authorization", value: "bearer token")
        let r = try await c.send(req)
        XCTAssertEqual(r.status, 200)
        c.close()
        server.finish()
    }

    func testServerThatNeverSendsSettingsTimesOutConnect() async {
        let server = ScriptedServer { s in _ = s.frames(for: 0.8) }
        var config = h2c
        config.connectTimeout = 0.3
        let error = await expectClientError { () async throws(HTTPClientError) in
            try await HTTPClientConnection.connect(host: "127.0.0.1", port: server.port, tls: false, configuration: config)
        }
        XCTAssertEqual(error, .timeout)
        server.finish()
    }
}
