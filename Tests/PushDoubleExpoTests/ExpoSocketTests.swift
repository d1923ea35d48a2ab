import Foundation
import XCTest
import PushDoubleTestSupport
import PushDoubleCore
import PushDouble
@testable import PushDoubleExpo

/// The Expo fake over real sockets, as `serve` runs it (PushDoubleServer with the registered
/// module, admin API on): curl over TLS to `exp.host` (the certificate's name, by
/// `--resolve`), HTTP/2 and HTTP/1.1 by ALPN, a gzip body over 1024 bytes as the Node SDK
/// sends, a decompression bomb refused while the server keeps serving, the admin release
/// of held receipts, and the history entry that shows the whole lifecycle.
final class ExpoSocketTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "curl", "python3 (gzip)") }

    static let ca = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Certificates/pushdouble-test-ca.pem").path

    struct Running {
        let server: PushDoubleServer
        let port: Int
        let admin: String
    }

    func start(_ options: JSONValue? = nil) throws -> Running {
        var config = PushDoubleConfiguration.ephemeral()
        config.modules = [ExpoModule()]
        config.eventLoopCount = 1
        if let options { config.providerOptions = ["expo": options] }
        let server = PushDoubleServer(configuration: config)
        try server.start()
        addTeardownBlock { server.stop() }
        return Running(server: server, port: try XCTUnwrap(server.endpoint(named: "expo")?.port),
                       admin: try XCTUnwrap(server.endpoint(named: "admin")?.url))
    }

    /// POSTs `body` (a file's bytes) to `path` on exp.host; returns (HTTP version, status, body).
    func post(_ s: Running, _ path: String, body: [UInt8], http1: Bool = false, headers: [String] = [],
              token: String? = ExpoFakeConfiguration.shippedAccessToken) throws -> (version: String, status: Int, body: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("expo-body-\(UUID().uuidString)")
        try Data(body).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var args = ["curl", "-sS", http1 ? "--http1.1" : "--http2", "--cacert", Self.ca, "--resolve", "exp.host:\(s.port):127.0.0.1",
                    "-H", "content-type: application/json", "--data-binary", "@" + file.path, "-w", "\n%{http_version} %{http_code}"]
        if let token { args += ["-H", "authorization: Bearer \(token)"] }
        for h in headers { args += ["-H", h] }
        args.append("https://exp.host:\(s.port)\(path)")
        let r = try runCommand(args, timeout: 30)
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let tail = (lines.last ?? "").split(separator: " ")
        return (String(tail.first ?? ""), Int(tail.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    func json(_ text: String) -> JSONValue { (try? JSONValue.parse(text)) ?? .null }

    func testSendAndReceiptsOverHTTP2AndHTTP1ToExpHost() throws {
        try requireTool("curl")
        let s = try start()
        let token = "ExponentPushToken[socketsocketsocket01]"
        let h2 = try post(s, ExpoService.sendPath, body: Array(#"[{"to":["\#(token)","ExponentPushToken[00000000DNRTsocket]"],"title":"hi"}]"#.utf8))
        XCTAssertEqual(h2.version, "2")
        XCTAssertEqual(h2.status, 200)
        let tickets = try XCTUnwrap(json(h2.body)["data"]?.arrayValue)
        XCTAssertEqual(tickets.map { $0["status"]?.stringValue }, ["ok", "error"])
        let id = try XCTUnwrap(tickets[0]["id"]?.stringValue)
        let r = try post(s, ExpoService.receiptsPath, body: Array(#"{"ids":["\#(id)","unknown"]}"#.utf8), http1: true, token: nil)
        XCTAssertEqual(r.version, "1.1")
        XCTAssertEqual(r.body, #"{"data":{"\#(id)":{"status":"ok"}}}"#)
        let unauthorized = try post(s, ExpoService.sendPath, body: Array(#"{"to":"\#(token)"}"#.utf8), http1: true, token: nil)
        XCTAssertEqual(unauthorized.status, 401)
        XCTAssertEqual(json(unauthorized.body)["errors"]?.arrayValue?.first?["code"], "UNAUTHORIZED")
        let notFound = try post(s, "/--/api/v2/push/other", body: Array("{}".utf8))
        XCTAssertEqual(notFound.status, 404)
        XCTAssertEqual(json(notFound.body)["errors"]?.arrayValue?.first?["code"], "NOT_FOUND")

        let entry = try XCTUnwrap(s.server.history.all.first)
        XCTAssertEqual(entry.transport.connection.tls?.serverName, "exp.host")
        XCTAssertEqual(entry.transport.connection.tls?.alpn, "h2")
        XCTAssertEqual(entry.annotations?["receipts"]?[id]?["receipt"], ["status": "ok"], "the send's entry shows its receipt")
        XCTAssertEqual(entry.recipients?.map(\.accepted), [true, false])
    }

    /// The documentation's curl example (docs/expo.md §3.1): one message object, one recipient →
    /// `data` is one ticket object, ok and error alike; the same message in an array → an array.
    func testSingleMessageObjectByCurlGetsOneTicketObject() throws {
        try requireTool("curl")
        let s = try start()
        let ok = try post(s, ExpoService.sendPath, body: Array(#"{"to":"ExponentPushToken[singlesinglesingle01]","title":"hello","body":"world"}"#.utf8))
        XCTAssertEqual(ok.status, 200)
        let ticket = try XCTUnwrap(json(ok.body)["data"]?.objectValue.map(JSONValue.object), ok.body)
        XCTAssertEqual(ticket["status"], "ok")
        XCTAssertNotNil(ticket["id"]?.stringValue)
        let dead = "ExponentPushToken[00000000DNRTsingle]"
        let error = try post(s, ExpoService.sendPath, body: Array(#"{"to":"\#(dead)","body":"x"}"#.utf8), http1: true)
        XCTAssertEqual(error.body, #"{"data":{"status":"error","message":"\"\#(dead)\" is not a registered push notification recipient","details":{"error":"DeviceNotRegistered","expoPushToken":"\#(dead)"}}}"#)
        let array = try post(s, ExpoService.sendPath, body: Array(#"[{"to":"ExponentPushToken[singlesinglesingle01]"}]"#.utf8))
        XCTAssertEqual(json(array.body)["data"]?.arrayValue?.count, 1)
    }

    func testGzipBodyAndDecompressionBombWhileServing() throws {
        try requireTool("curl")
        let s = try start()
        let messages = (0..<30).map { #"{"to":"ExponentPushToken[gzip\#($0)]","body":"a body the Node SDK gzips: JSON over 1024 characters"}"# }
        let json = Array(("[" + messages.joined(separator: ",") + "]").utf8)
        XCTAssertGreaterThan(json.count, 1024)
        let gz = try pythonGzip(json)
        let ok = try post(s, ExpoService.sendPath, body: gz, headers: ["content-encoding: gzip"])
        XCTAssertEqual(ok.status, 200)
        XCTAssertEqual(self.json(ok.body)["data"]?.arrayValue?.count, 30)
        // 64 MiB of zeros in ~64 KB: refused at the 1 MiB bound with a clear error.
        let bomb = try pythonGzipZeros(64 << 20)
        XCTAssertLessThan(bomb.count, 100_000)
        for http1 in [false, true] {
            let refused = try post(s, ExpoService.sendPath, body: bomb, http1: http1, headers: ["content-encoding: gzip"])
            XCTAssertEqual(refused.status, 400)
            XCTAssertEqual(refused.body, #"{"errors":[{"code":"API_ERROR","message":"The request body is larger than 1048576 bytes once decompressed."}]}"#)
        }
        let receiptsBomb = try post(s, ExpoService.receiptsPath, body: bomb, headers: ["content-encoding: gzip"])
        XCTAssertEqual(receiptsBomb.status, 400)
        // Still serving, on a fresh connection and after the refusals.
        XCTAssertEqual(try post(s, ExpoService.sendPath, body: gz, http1: true, headers: ["content-encoding: gzip"]).status, 200)
        XCTAssertEqual(s.server.history.all.filter { $0.response.status == 400 }.count, 3)
    }

    func testHeldReceiptsReleasedThroughTheAdminAPI() throws {
        try requireTool("curl")
        let s = try start(["holdReceipts": true, "requireAccessToken": false])
        let sent = try post(s, ExpoService.sendPath, body: Array(#"{"to":["ExponentPushToken[held1]","ExponentPushToken[held2]"]}"#.utf8), token: nil)
        let ids = (json(sent.body)["data"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        XCTAssertEqual(ids.count, 2)
        let idsBody = Array(JSONValue.object([("ids", .array(ids.map { .string($0) }))]).compactJSON.utf8)
        XCTAssertEqual(try post(s, ExpoService.receiptsPath, body: idsBody, token: nil).body, #"{"data":{}}"#)
        let release = try runCommand(["curl", "-sS", "-X", "POST", s.admin + "/expo/receipts/release"])
        XCTAssertEqual(release.stdout, #"{"released":2}"# + "\n")
        let after = json(try post(s, ExpoService.receiptsPath, body: idsBody, token: nil).body)
        XCTAssertEqual(after["data"]?.objectValue?.map(\.0), ids)
        // The device of provider expo through /devices with a receipt-only death.
        let device = #"{"id":"late","provider":"expo","token":"ExponentPushToken[late]","receipt":"DeviceNotRegistered"}"#
        let put = try runCommand(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "content-type: application/json",
                                  "--data-binary", device, s.admin + "/devices"])
        XCTAssertEqual(put.stdout.hasPrefix("2"), true, put.stdout)
        let bad = try runCommand(["curl", "-sS", "-X", "POST", "-H", "content-type: application/json", "--data-binary",
                                  #"{"id":"x","provider":"expo","token":"ExponentPushToken[x]","receipt":"Gone"}"#, s.admin + "/devices"])
        XCTAssertTrue(bad.stdout.contains("receipt"), bad.stdout)
        XCTAssertEqual(s.server.devices.device(id: "late")?.attributes["receipt"], "DeviceNotRegistered")
    }
}
