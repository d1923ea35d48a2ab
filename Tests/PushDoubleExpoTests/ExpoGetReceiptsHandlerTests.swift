import XCTest
import PushDoubleTestSupport
import PushDoubleJSON
@testable import PushDoubleExpo

/// `POST /--/api/v2/push/getReceipts` (docs/expo.md §4): `{"ids":[…]}`, ≤ 1000 ids, unknown omitted.
final class ExpoGetReceiptsHandlerTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "python3 (gzip)") }

    func handler(_ availability: ExpoReceiptAvailability = .afterDelay(seconds: 0)) -> ExpoGetReceiptsHandler {
        let ids = SequentialIDs()
        return ExpoGetReceiptsHandler(store: ExpoReceiptStore(configuration: .init(availability: availability), idGenerator: { ids() }))
    }

    func respond(_ h: ExpoGetReceiptsHandler, _ json: String, now: Double = 0, file: StaticString = #filePath, line: UInt = #line) -> String? {
        do { return String(decoding: try h.respond(body: Array(json.utf8), now: now), as: UTF8.self) } catch {
            XCTFail("refused: \(error.bodyText)", file: file, line: line)
            return nil
        }
    }

    func refuse(_ h: ExpoGetReceiptsHandler, _ json: String, _ rule: ExpoRule, file: StaticString = #filePath, line: UInt = #line) -> ExpoRequestError? {
        do {
            let ids = try h.ids(body: Array(json.utf8))
            XCTFail("accepted: \(ids.count) ids", file: file, line: line)
            return nil
        } catch {
            XCTAssertEqual(error.rule, rule, error.bodyText, file: file, line: line)
            return error
        }
    }

    func testReceiptsInRequestOrderUnknownOmitted() {
        let h = handler()
        _ = h.store.issue(.ok, now: 0)
        _ = h.store.issue(.deviceNotRegistered(token: tok("d")), now: 0)
        XCTAssertEqual(respond(h, #"{"ids":["T2","nope","T1","T2"]}"#),
                       #"{"data":{"T2":{"status":"error","message":"\"ExponentPushToken[d]\" is not a registered push notification recipient","details":{"error":"DeviceNotRegistered","expoPushToken":"ExponentPushToken[d]"}},"T1":{"status":"ok"}}}"#)
        XCTAssertEqual(respond(h, #"{"ids":[]}"#), #"{"data":{}}"#)
        XCTAssertEqual(respond(h, #"{"ids":["x"]}"#), #"{"data":{}}"#)
        // Members beside ids are ignored.
        XCTAssertEqual(respond(h, #"{"ids":["T1"],"extra":true}"#), #"{"data":{"T1":{"status":"ok"}}}"#)
    }

    func testLifecycleThroughTheHandler() {
        let delayed = handler(.afterDelay(seconds: 900))
        _ = delayed.store.issue(.mismatchSenderId, now: 0)
        XCTAssertEqual(respond(delayed, #"{"ids":["T1"]}"#, now: 899), #"{"data":{}}"#)
        XCTAssertEqual(respond(delayed, #"{"ids":["T1"]}"#, now: 900),
                       "{\"data\":{\"T1\":{\"status\":\"error\",\"message\":\"\(ExpoPushErrorText.mismatchSenderId)\",\"details\":{\"error\":\"MismatchSenderId\"}}}}")
        XCTAssertEqual(respond(delayed, #"{"ids":["T1"]}"#, now: 86_400), #"{"data":{}}"#)
        let held = handler(.heldUntilReleased)
        _ = held.store.issue(.ok, now: 0)
        XCTAssertEqual(respond(held, #"{"ids":["T1"]}"#, now: 5), #"{"data":{}}"#)
        held.store.release("T1", now: 6)
        XCTAssertEqual(respond(held, #"{"ids":["T1"]}"#, now: 6), #"{"data":{"T1":{"status":"ok"}}}"#)
    }

    func testOneThousandIdsAcceptedOneThousandAndOneRefused() {
        let h = handler()
        for _ in 0..<1000 { _ = h.store.issue(.ok, now: 0) }
        func body(_ n: Int) -> String { "{\"ids\":[" + (1...n).map { "\"T\($0)\"" }.joined(separator: ",") + "]}" }
        let ok = respond(h, body(1000))
        XCTAssertEqual(try ok.map { try JSONValue.parse($0)["data"]?.objectValue?.count }, 1000)
        let e = refuse(h, body(1001), .tooManyReceiptIDs)
        XCTAssertEqual(e?.bodyText,
                       #"{"errors":[{"code":"PUSH_TOO_MANY_RECEIPTS","message":"You can request a maximum of 1000 receipts per request (received 1001); divide your requests."}]}"#)
        XCTAssertEqual(e?.httpStatus, 400)
        var small = handler()
        small.maxIDs = 2
        XCTAssertEqual(refuse(small, #"{"ids":["a","b","c"]}"#, .tooManyReceiptIDs)?.message,
                       "You can request a maximum of 2 receipts per request (received 3); divide your requests.")
    }

    func testBodyShapeRefusals() {
        let h = handler()
        XCTAssertEqual(refuse(h, #"["T1"]"#, .receiptsBodyShape)?.bodyText,
                       #"{"errors":[{"code":"API_ERROR","message":"\"value\" must be of type object."}]}"#)
        XCTAssertEqual(refuse(h, "{}", .receiptsBodyShape)?.message, #"child "ids" fails because ["ids" is required]."#)
        XCTAssertEqual(refuse(h, #"{"ids":null}"#, .receiptsBodyShape)?.message, #"child "ids" fails because ["ids" is required]."#)
        XCTAssertEqual(refuse(h, #"{"ids":"T1"}"#, .receiptsBodyShape)?.message, #"child "ids" fails because ["ids" must be an array]."#)
        XCTAssertEqual(refuse(h, #"{"ids":["T1",2]}"#, .receiptsBodyShape)?.message,
                       #"child "ids" fails because ["ids" at position 1 fails because ["1" must be a string]]."#)
        _ = refuse(h, #"{"ids":"#, .bodyNotJSON)
    }

    func testGzipReceiptsRequest() throws {
        // 300 ids, the Node SDK's chunk (docs/expo.md §6.1), gzipped as it would be (> 1024 characters).
        let h = handler()
        for _ in 0..<300 { _ = h.store.issue(.ok, now: 0) }
        let json = "{\"ids\":[" + (1...300).map { "\"T\($0)\"" }.joined(separator: ",") + "]}"
        let gz = try pythonGzip(Array(json.utf8))
        XCTAssertEqual(try h.ids(body: gz, contentEncoding: "gzip").count, 300)
        XCTAssertEqual(try h.respond(body: gz, contentEncoding: "gzip", now: 0), try h.respond(body: Array(json.utf8), now: 0))
    }
}
