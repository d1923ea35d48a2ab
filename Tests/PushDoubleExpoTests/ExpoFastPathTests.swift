import Foundation
import XCTest
import PushDoubleJSON
@testable import PushDoubleExpo

/// The send answer written as bytes is the JSON text of its tickets' ``ExpoTicket/json``, and
/// the receipt ids are version-4 UUIDs.
final class ExpoFastPathTests: XCTestCase {
    func testSendBodyIsTheTicketsJSON() throws {
        let tickets: [ExpoTicket] = [
            .ok(id: "0C5A3E2B-1F0D-4C1E-9A7B-2D3E4F5A6B7C"), .ok(id: "quote\" back\\slash \u{1} é"),
            .deviceNotRegistered(token: "ExponentPushToken[x\"y]"), .messageTooBig(),
            .error(.messageRateExceeded, message: "m", extra: ["n": .int(3), "o": .object([("p", .null)])]),
        ]
        func viaTree(_ t: [ExpoTicket], single: Bool) -> [UInt8] {
            let data: JSONValue = single && t.count == 1 ? t[0].json : .array(t.map(\.json))
            return JSONValue.object([("data", data)]).compactJSONBytes
        }
        for n in 0...tickets.count {
            for start in 0..<tickets.count {
                let t = Array((tickets + tickets)[start..<(start + n)])
                for single in [false, true] {
                    XCTAssertEqual(String(decoding: ExpoSendResponse.body(t, singleObject: single), as: UTF8.self),
                                   String(decoding: viaTree(t, single: single), as: UTF8.self))
                }
            }
        }
    }

    func testReceiptIDsAreVersion4UUIDs() {
        let generate = ExpoReceiptStore.uuidGenerator()
        var seen = Set<String>()
        for _ in 0..<2000 {
            let id = generate()
            XCTAssertTrue(seen.insert(id).inserted)
            let u = Array(id.utf8)
            XCTAssertEqual(u.count, 36, id)
            XCTAssertEqual(UUID(uuidString: id)?.uuidString, id, "uppercase canonical form")
            XCTAssertEqual(u[14], UInt8(ascii: "4"), id)
            XCTAssertTrue([UInt8(ascii: "8"), UInt8(ascii: "9"), UInt8(ascii: "A"), UInt8(ascii: "B")].contains(u[19]), id)
        }
    }
}
