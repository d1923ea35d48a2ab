import Foundation
import XCTest
import PushDoubleCore
import PushDoubleCrypto
@testable import PushDoubleTransport
@testable import PushDoubleWebPush

/// A browser speaking the autopush protocol to ``AutopushService`` through the WebSocket
/// engine, over a scripted connection (no sockets): what it sends is masked frames, what it
/// reads is the server's frames decoded.
final class ScriptedBrowser {
    final class IO: ConnectionIO {
        var info = ConnectionInfo(id: 0, listener: "webpush-autopush", peer: "127.0.0.1:40000", localPort: 8727, tls: nil, acceptedAt: Date())
        var written: [UInt8] = []
        var closed = false
        init(id: UInt64) { info.id = id }
        func write(_ bytes: [UInt8]) { written += bytes }
        var pendingWriteBytes: Int { 0 }
        func close() { closed = true }
        func abort() { closed = true }
        func pauseReading() {}
        func resumeReading() {}
        func schedule(after seconds: Double, _ body: @escaping () -> Void) -> TimerToken { TimerToken(id: 0) }
        func cancelTimer(_ token: TimerToken) {}
        struct Inline: LoopExecutor { func execute(_ body: @escaping @Sendable () -> Void) { body() } }
        var loopExecutor: any LoopExecutor { Inline() }
    }

    private static let ids = Locked<UInt64>(100)
    let io: IO
    let engine: WebSocketServerConnection
    private var read = 0

    init(_ service: AutopushService) {
        io = IO(id: Self.ids.withLock { $0 += 1; return $0 })
        engine = WebSocketServerConnection(io: io, service: service, limits: ServerLimits())
        engine.connectionStarted(initialBytes: [])
        feed(Array(("GET / HTTP/1.1\r\nHost: 127.0.0.1:8727\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: push-notification\r\n\r\n").utf8))
        let head = String(decoding: io.written, as: UTF8.self)
        precondition(head.hasPrefix("HTTP/1.1 101") && head.contains("sec-websocket-protocol: push-notification"), head)
        read = io.written.count
    }

    private func feed(_ bytes: [UInt8]) { bytes.withUnsafeBytes { engine.bytesReceived($0) } }

    func send(_ json: JSONValue) { send(text: json.compactJSON) }
    func send(text: String) { feed(WebSocketFrame(opcode: .text, payload: Array(text.utf8)).encoded(mask: [1, 2, 3, 4])) }

    /// The frames the server sent since the last call.
    func frames() throws -> [WebSocketFrame] {
        var d = WebSocketFrameDecoder(requireMask: false)
        d.append(io.written[read...])
        read = io.written.count
        var out: [WebSocketFrame] = []
        while let f = try d.next() { out.append(f) }
        return out
    }

    /// The server's text messages since the last call, parsed.
    func messages() throws -> [JSONValue] {
        defer { leftover = [] }
        return try leftover + frames().filter { $0.opcode == .text }.map { try JSONValue.parse($0.payload) }
    }
    /// Messages that came with a `hello` answer (the waiting notifications).
    private var leftover: [JSONValue] = []

    func hello(_ uaid: String? = nil) throws -> String {
        var m: [(String, JSONValue)] = [("messageType", "hello"), ("broadcasts", .object([])), ("use_webpush", true)]
        if let uaid { m.append(("uaid", .string(uaid))) }
        send(.object(m))
        let all = try messages()
        let reply = try XCTUnwrap(all.first)
        XCTAssertEqual(reply["messageType"], "hello")
        leftover = Array(all.dropFirst())
        XCTAssertEqual(reply["status"], 200)
        XCTAssertEqual(reply["use_webpush"], true)
        return try XCTUnwrap(reply["uaid"]?.stringValue)
    }

    func register(_ channelID: String, key: String?) throws -> JSONValue {
        var m: [(String, JSONValue)] = [("channelID", .string(channelID)), ("messageType", "register")]
        if let key { m.append(("key", .string(key))) }
        send(.object(m))
        return try XCTUnwrap(try messages().last)
    }

    /// Closes like a network cut (no close frame).
    func disconnect() { engine.inputClosed() }
}

final class AutopushTests: XCTestCase {
    /// The harness with the hub bound to its devices and origin.
    private func harness() -> (WebPushHarness, AutopushService) {
        let h = WebPushHarness()
        h.fake.autopush.attach(devices: h.double.devices, clock: h.clock, origin: { [origin = h.origin] in origin })
        return (h, AutopushService(hub: h.fake.autopush))
    }

    /// The VAPID public key as Firefox sends it: base64url with padding.
    private func paddedKey() throws -> String {
        let k = try vapidTestPublicText()
        return k + String(repeating: "=", count: (4 - k.count % 4) % 4)
    }

    /// A pushed body (encrypted to keys the test holds: the browser's, which the double never sees).
    private func push(_ h: WebPushHarness, _ endpoint: String, ttl: Int = 60, text: String = "hi") throws -> (HTTPResponse, [UInt8]) {
        let keys = try WebPushSubscription(service: .mozilla)
        let body = try WebPushCipher.encrypt(plaintext: Array(text.utf8), uaPublicKey: keys.publicKey, authSecret: keys.authSecret)
        let path = String(endpoint.dropFirst(h.origin.count))
        return (h.send(path, headers: [("ttl", String(ttl)), ("content-encoding", "aes128gcm"), ("authorization", try h.vapid())], body: body), body)
    }

    private func browserLeg(_ h: WebPushHarness) -> JSONValue? { h.last?.annotations?["browser"] }

    func testHelloRegisterPushAck() throws {
        let (h, service) = harness()
        let b = ScriptedBrowser(service)
        let uaid = try b.hello()
        XCTAssertEqual(uaid.count, 32)
        let channel = "5477bfda-22db-45d4-9614-fee369630260"
        let reg = try b.register(channel, key: try paddedKey())
        XCTAssertEqual(reg["messageType"], "register")
        XCTAssertEqual(reg["status"], 200)
        let endpoint = try XCTUnwrap(reg["pushEndpoint"]?.stringValue)
        XCTAssertTrue(endpoint.hasPrefix(h.origin + "/wpush/v2/"), endpoint)
        let device = try XCTUnwrap(h.double.devices.device(id: "browser-" + channel))
        XCTAssertEqual(device.attributes["autopush"], ["uaid": .string(uaid), "channelID": .string(channel)])
        XCTAssertEqual(device.attributes["applicationServerKey"], .string(try vapidTestPublicText()))

        let (r, body) = try push(h, endpoint)
        XCTAssertEqual(r.status, 201)
        let n = try XCTUnwrap(try b.messages().first)
        XCTAssertEqual(n["messageType"], "notification")
        XCTAssertEqual(n["channelID"], .string(channel))
        XCTAssertEqual(n["data"], .string(Base64URL.encode(body)), "the body exactly as received")
        XCTAssertEqual(n["headers"], ["encoding": "aes128gcm"])
        XCTAssertEqual(browserLeg(h)?["delivery"], "sent")
        let version = try XCTUnwrap(n["version"]?.stringValue)
        b.send(["messageType": "ack", "updates": [["channelID": .string(channel.uppercased()), "version": .string(version), "code": 100]]])
        XCTAssertEqual(browserLeg(h)?["delivery"], "acked")
        XCTAssertEqual(browserLeg(h)?["code"], 100)
        XCTAssertEqual(h.last?.notification?["payload"]?["browser"], "autopush")
    }

    /// What a service worker read is noted on the oldest message sent to that channel and not
    /// yet read; a message Firefox could not decrypt (ack 101) fires no push event, so it is
    /// skipped. The endpoint may be given as a URL or a path.
    func testServiceWorkerReadGoesToTheMessageItRead() throws {
        let (h, service) = harness()
        let b = ScriptedBrowser(service)
        _ = try b.hello()
        let channel = "8d0f3c4e-5b6a-4c7d-9e8f-0a1b2c3d4e5f"
        let endpoint = try XCTUnwrap(try b.register(channel, key: try paddedKey())["pushEndpoint"]?.stringValue)
        XCTAssertFalse(h.fake.autopush.serviceWorkerRead(endpoint: endpoint, text: "early"), "nothing sent yet")
        XCTAssertEqual(try push(h, endpoint, text: "one").0.status, 201)
        XCTAssertEqual(try push(h, endpoint, text: "two").0.status, 201)
        let versions = try b.messages().compactMap { $0["version"]?.stringValue }
        XCTAssertEqual(versions.count, 2)
        b.send(["messageType": "ack", "updates": [["channelID": .string(channel), "version": .string(versions[0]), "code": 101]]])
        XCTAssertTrue(h.fake.autopush.serviceWorkerRead(endpoint: AutopushHub.path(of: endpoint), text: "two"))
        let exchanges = h.double.history.all.filter { $0.annotations?["browser"] != nil }
        XCTAssertEqual(exchanges.count, 2)
        XCTAssertNil(exchanges[0].annotations?["serviceWorker"], "the undecryptable message was not read")
        XCTAssertEqual(exchanges[1].annotations?["serviceWorker"]?["text"], "two")
        XCTAssertFalse(h.fake.autopush.serviceWorkerRead(endpoint: endpoint, text: "again"), "every sent message is read")
        XCTAssertFalse(h.fake.autopush.serviceWorkerRead(endpoint: "/wpush/v2/unknown", text: nil))
    }

    func testQueuedWhileOfflineThenDeliveredAfterHelloTTLZeroDroppedExpiredNotSent() throws {
        let (h, service) = harness()
        let b = ScriptedBrowser(service)
        let uaid = try b.hello()
        let channel = "21668e05-6da8-42c9-b8ab-9cc3f4d5630c"
        let endpoint = try XCTUnwrap(try b.register(channel, key: nil)["pushEndpoint"]?.stringValue)
        XCTAssertTrue(endpoint.hasPrefix(h.origin + "/wpush/v1/"), "unrestricted: v1")
        b.disconnect()

        XCTAssertEqual(try push(h, endpoint, ttl: 0).0.status, 201, "autopush accepts, then drops")
        XCTAssertEqual(browserLeg(h)?["delivery"], "dropped")
        XCTAssertEqual(try push(h, endpoint, ttl: 30).0.status, 201)
        XCTAssertEqual(browserLeg(h)?["delivery"], "queued")
        let (_, kept) = try push(h, endpoint, ttl: 300)

        h.clock.advance(60)
        let again = ScriptedBrowser(service)
        XCTAssertEqual(try again.hello(uaid), uaid, "resumed")
        let sent = try again.messages()
        XCTAssertEqual(sent.map(\.["data"]), [.string(Base64URL.encode(kept))], "only the message whose TTL lasts")
        XCTAssertEqual(browserLeg(h)?["sends"], 1)
        XCTAssertEqual(h.fake.autopush.agentsJSON.arrayValue?.first?["connected"], true)
    }

    func testUnregisterMakesThePushGoneAndChannelsAreGlobal() throws {
        let (h, service) = harness()
        let b = ScriptedBrowser(service)
        _ = try b.hello()
        let channel = "9a5ff87f-47c9-4215-b2b8-0bdd38b4b305"
        let endpoint = try XCTUnwrap(try b.register(channel, key: try paddedKey())["pushEndpoint"]?.stringValue)
        b.disconnect()
        // Firefox with no subscription left says hello without a UAID, then unregisters.
        let c = ScriptedBrowser(service)
        let second = try c.hello()
        c.send(["messageType": "unregister", "channelID": .string(channel), "code": 200])
        XCTAssertEqual(try c.messages().first, ["messageType": "unregister", "channelID": .string(channel), "status": 200])
        let r = try push(h, endpoint).0
        XCTAssertEqual(r.status, 410)
        XCTAssertTrue(try c.messages().isEmpty)
        XCTAssertNotEqual(second.count, 0)
    }

    func testPingNackBroadcastAndRefusals() throws {
        let (h, service) = harness()
        let early = ScriptedBrowser(service)
        early.send(["messageType": "register", "channelID": "21668e05-6da8-42c9-b8ab-9cc3f4d5630c"])
        XCTAssertEqual(try early.frames().first?.opcode, .close, "nothing before hello")
        XCTAssertTrue(early.io.closed)

        let b = ScriptedBrowser(service)
        _ = try b.hello()
        b.send(text: "{}")
        XCTAssertEqual(try b.frames().map { String(decoding: $0.payload, as: UTF8.self) }, ["{}"])
        b.send(["messageType": "broadcast_subscribe", "broadcasts": ["remote-settings/monitor_changes": "v1"]])
        XCTAssertTrue(try b.frames().isEmpty, "acknowledged by ignoring")
        XCTAssertEqual(try b.register("not-a-uuid", key: nil)["status"], 400)
        XCTAssertEqual(try b.register("21668e05-6da8-42c9-b8ab-9cc3f4d5630c", key: "AAAA")["status"], 400)
        let channel = "5477bfda-22db-45d4-9614-fee369630261"
        let endpoint = try XCTUnwrap(try b.register(channel, key: nil)["pushEndpoint"]?.stringValue)
        _ = try push(h, endpoint)
        let version = try XCTUnwrap(try b.messages().first?["version"]?.stringValue)
        b.send(["messageType": "nack", "version": .string(version), "code": 302])
        XCTAssertEqual(browserLeg(h)?["delivery"], "nacked")
        XCTAssertEqual(browserLeg(h)?["code"], 302)
        XCTAssertTrue(h.fake.autopush.disconnect(uaid: h.fake.autopush.agentsJSON.arrayValue?.first?["uaid"]?.stringValue ?? "", code: 4774))
        XCTAssertEqual(try b.frames().first?.payload.prefix(2).map { $0 }, [0x12, 0xA6], "close 4774")
    }

    func testAesgcmHeadersAreStrippedAsAutoendpointDoes() {
        let h = HTTPHeaders([("Content-Encoding", "aesgcm"), ("Encryption", "salt=\"c2FsdA==\""), ("Crypto-Key", "keyid=\"p256dh\";dh=\"BOrk==\"")])
        let out = AutopushServerMessage.encodingHeaders(HTTPHeaders(h.map { ($0.name.lowercased(), $0.value) }))
        XCTAssertEqual(out.map(\.0), ["encoding", "encryption", "crypto_key"])
        XCTAssertEqual(out.map(\.1), ["aesgcm", "salt=c2FsdA", "keyid=p256dh;dh=BOrk"])
    }
}
