import Foundation
import XCTest
import PushDoubleCore
import PushDouble
import PushDoubleExpo

/// The reference sender's Expo support against the Expo fake over real sockets: chunks of
/// ≤ 100 recipients, gzip over 1024 bytes, the access token, tickets mapped to devices,
/// receipts fetched in `settle` (absent ones left pending), dead tokens never sent again; and
/// two of its Expo mutants doing what they plant.
final class ExpoReferenceSenderTests: XCTestCase {
    func startServer(_ options: JSONValue? = nil) throws -> (PushDoubleServer, SenderKit) {
        var config = PushDoubleConfiguration.ephemeral()
        config.modules = [ExpoModule()]
        config.admin = false
        config.eventLoopCount = 1
        if let options { config.providerOptions = ["expo": options] }
        let server = PushDoubleServer(configuration: config)
        try server.start()
        let kit = try server.senderKit()
        addTeardownBlock { server.stop(); kit.remove() }
        return (server, kit)
    }

    func devices(_ n: Int) -> [[String: Any]] {
        (0..<n).map { ["id": "d\($0)", "provider": "expo", "token": "ExponentPushToken[ref\($0)]"] }
            + [["id": "deadTicket", "provider": "expo", "token": "ExponentPushToken[00000000DNRTref]"],
               ["id": "deadReceipt", "provider": "expo", "token": "ExponentPushToken[00000000DNRRref]"]]
    }

    func start(_ kit: SenderKit, mutant: String? = nil) throws -> ReferenceSenderProcess {
        let s = try ReferenceSenderProcess(arguments: mutant.map { ["--mutant", $0] } ?? [])
        let params = try XCTUnwrap(kit.providers.first { $0.id == "expo" }?.parameters)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(params.compactJSON.utf8)) as? [String: Any])
        let reply = try s.call("initialize", ["protocolVersion": 1, "providers": ["expo": object]])
        XCTAssertEqual((reply["result"] as? [String: Any])?["providers"] as? [String], ["expo"])
        return s
    }

    func outcomes(_ reply: [String: Any]) -> [String: String] {
        let results = (reply["result"] as? [String: Any])?["results"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: results.map { ($0["device"] as? String ?? "?", $0["outcome"] as? String ?? "?") })
    }

    func testChunksGzipTokenTicketsAndReceiptsInSettle() throws {
        let (server, kit) = try startServer(["holdReceipts": true])
        let s = try start(kit)
        let sent = outcomes(try s.call("send", ["notification": ["title": "Hi", "body": "there"], "devices": devices(150)]))
        XCTAssertEqual(sent.count, 152)
        XCTAssertEqual(sent["deadTicket"], "dead")
        XCTAssertEqual(sent.filter { $0.value == "pending" }.count, 151)

        let sends = server.history.all.filter { $0.endpoint == "expo.send" }
        XCTAssertEqual(sends.map { $0.recipients?.count ?? 0 }, [100, 52])
        for e in sends {
            let headers = Dictionary(e.request.headers.map { ($0[0].lowercased(), $0.last ?? "") }, uniquingKeysWith: { a, _ in a })
            XCTAssertEqual(headers["content-encoding"], "gzip", "bodies over 1024 bytes are gzipped")
            XCTAssertEqual(headers["authorization"], "Bearer " + ExpoFakeConfiguration.shippedAccessToken)
            XCTAssertEqual(e.response.status, 200)
        }
        // Held receipts: absent, so nothing changes (an absent receipt is not success).
        XCTAssertEqual(outcomes(try s.call("settle")), [:])
        XCTAssertEqual(server.providerInstances.compactMap { ($0 as? ExpoInstance)?.service.receipts.releaseAll(now: Date().timeIntervalSince1970) }, [151])
        let settled = outcomes(try s.call("settle"))
        XCTAssertEqual(settled.count, 151)
        XCTAssertEqual(settled["deadReceipt"], "dead")
        XCTAssertEqual(settled.filter { $0.value == "sent" }.count, 150)
        let fetches = server.history.all.filter { $0.endpoint == "expo.getReceipts" }
        let asked = fetches.flatMap { $0.notification?["ids"]?.arrayValue ?? [] }.compactMap(\.stringValue)
        let issued = Set(sends.flatMap { $0.recipients ?? [] }.compactMap { $0.detail?["id"]?.stringValue })
        XCTAssertEqual(Set(asked).subtracting(issued), [], "receipts only for the tickets it holds")
        XCTAssertEqual(Set(asked), issued)
        // Dead tokens are never sent to again.
        let again = outcomes(try s.call("send", ["notification": ["title": "again"], "devices": Array(devices(0))]))
        XCTAssertEqual(again, ["deadTicket": "skipped", "deadReceipt": "skipped"])
        XCTAssertEqual(server.history.all.filter { $0.endpoint == "expo.send" }.count, 2)
        try s.call("shutdown")
    }

    func testMutantsDoWhatTheyPlant() throws {
        let (server, kit) = try startServer()
        let s = try start(kit, mutant: "expo-no-chunking")
        let refused = outcomes(try s.call("send", ["notification": ["title": "Hi"], "devices": devices(150)]))
        XCTAssertEqual(Set(refused.values), ["rejected"])
        XCTAssertEqual(server.history.all.last?.response.reason, "PUSH_TOO_MANY_NOTIFICATIONS")
        try s.call("shutdown")

        let r = try start(kit, mutant: "expo-tickets-reversed")
        let mapped = outcomes(try r.call("send", ["notification": ["title": "Hi"], "devices": devices(3)]))
        XCTAssertEqual(mapped["d1"], "dead", "the dead token's ticket (4th) was mapped to the 2nd device")
        XCTAssertEqual(mapped["deadTicket"], "pending")
        try r.call("shutdown")
    }
}
