import XCTest
import PushDoubleJSON
@testable import PushDoubleExpo

/// Every body the core writes, against the captures of docs/expo.md, copied
/// here with their section. docs/expo.md prints them indented for reading; ``compactCapture(_:)``
/// removes only that whitespace (member order is kept), and our bytes must equal the result.
final class ExpoCaptureTests: XCTestCase {
    // MARK: §3.1 send success

    /// docs/expo.md §3.1 [A], verbatim.
    static let sendSuccessCapture = #"""
    { "data": [
      { "status": "ok", "id": "XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX" },
      { "status": "error",
        "message": "\"ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]\" is not a registered push notification recipient",
        "details": { "error": "DeviceNotRegistered", "expoPushToken": "ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]" } }
    ] }
    """#

    func testSendResponseIsTheSection31CaptureByteForByte() {
        let tickets: [ExpoTicket] = [.ok(id: "XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX"),
                                     .deviceNotRegistered(token: "ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]")]
        XCTAssertEqual(String(decoding: ExpoSendResponse.body(tickets), as: UTF8.self), compactCapture(Self.sendSuccessCapture))
        XCTAssertEqual(String(decoding: ExpoSendResponse.body(tickets), as: UTF8.self),
                       #"{"data":[{"status":"ok","id":"XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX"},{"status":"error","message":"\"ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]\" is not a registered push notification recipient","details":{"error":"DeviceNotRegistered","expoPushToken":"ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]"}}]}"#)
    }

    /// §3.1: one ticket object for a single message to a single recipient, if asked for.
    func testSingleTicketObjectForm() {
        let t = ExpoTicket.ok(id: "A")
        XCTAssertEqual(String(decoding: ExpoSendResponse.body([t], singleObject: true), as: UTF8.self), #"{"data":{"status":"ok","id":"A"}}"#)
        XCTAssertEqual(String(decoding: ExpoSendResponse.body([t]), as: UTF8.self), #"{"data":[{"status":"ok","id":"A"}]}"#)
        // Never for more than one ticket.
        XCTAssertEqual(String(decoding: ExpoSendResponse.body([t, t], singleObject: true), as: UTF8.self),
                       #"{"data":[{"status":"ok","id":"A"},{"status":"ok","id":"A"}]}"#)
        XCTAssertEqual(String(decoding: ExpoSendResponse.body([]), as: UTF8.self), #"{"data":[]}"#)
    }

    /// A decoded request whose recipient is not a token: its ticket is the §3.1 error ticket.
    func testInvalidTokenTicketIsTheSection31ErrorTicket() throws {
        let r = try XCTUnwrap(acceptSend(#"{"to":"ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx"}"#))
        let tickets = r.tickets { _ in XCTFail("not deliverable"); return .ok(id: "-") }
        XCTAssertEqual(tickets[0].json.compactJSON,
                       #"{"status":"error","message":"\"ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx\" is not a registered push notification recipient","details":{"error":"DeviceNotRegistered","expoPushToken":"ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx"}}"#)
    }

    // MARK: §3.2 request-level errors

    /// docs/expo.md §3.2 [A]/[L] (observed text [O] https://github.com/expo/expo/issues/6771 ,
    /// https://github.com/expo/expo/issues/43172), verbatim.
    static let tooManyExperienceIDsCapture = #"""
    { "errors": [ { "code": "PUSH_TOO_MANY_EXPERIENCE_IDS",
                    "message": "All push notification messages in the same request must be for the same project; check the details field to investigate conflicting tokens.",
                    "details": { "@username/projectAAA": ["ExponentPushToken[...]"], "@username/projectBBB": ["ExponentPushToken[...]"] } } ] }
    """#

    func testTooManyExperienceIDsIsTheSection32CaptureByteForByte() {
        // The capture's placeholder token stands for two tokens; the lookup answers A, then B.
        var calls = 0
        let e = refuseSend(#"[{"to":"ExponentPushToken[...]"},{"to":"ExponentPushToken[...]"}]"#, .oneProject, projectOf: { _ in
            calls += 1
            return calls == 1 ? "@username/projectAAA" : "@username/projectBBB"
        })
        XCTAssertEqual(e?.bodyText, compactCapture(Self.tooManyExperienceIDsCapture))
        XCTAssertEqual(e?.httpStatus, 400)
        XCTAssertEqual(e?.code, .tooManyExperienceIDs)
    }

    func testTooManyExperienceIDsDetailsListEachProjectsTokensInOrder() {
        let body = #"[{"to":["\#(tok("a1"))","\#(tok("B1"))","\#(tok("a2"))"]},{"to":["\#(tok("a1"))","\#(tok("B2"))","\#(tok("U1"))","bad"]}]"#
        let e = refuseSend(body, .oneProject)
        XCTAssertEqual(e?.details?.compactJSON,
                       #"{"@username/projectAAA":["ExponentPushToken[a1]","ExponentPushToken[a2]"],"@username/projectBBB":["ExponentPushToken[B1]","ExponentPushToken[B2]"]}"#)
    }

    /// docs/expo.md §3.2 table [O] https://github.com/ctwillie/expo-server-sdk-php/issues/34: the text for 115 recipients.
    func testTooManyNotificationsTextForOneHundredFifteen() {
        let to = (0..<115).map { "\"\(tok("a\($0)"))\"" }.joined(separator: ",")
        let e = refuseSend("{\"to\":[\(to)]}", .tooManyRecipients)
        XCTAssertEqual(e?.bodyText,
                       #"{"errors":[{"code":"PUSH_TOO_MANY_NOTIFICATIONS","message":"You can send a maximum of 100 notifications per request (received 115); divide your requests."}]}"#)
        XCTAssertEqual(e?.httpStatus, 400)
    }

    /// docs/expo.md §3.2 table, `API_ERROR` [O] https://github.com/expo/expo/issues/9290: `"\"value\" must be of type object."`.
    func testValueMustBeOfTypeObject() {
        for body in ["\"hello\"", "5", "true", "null"] {
            let e = refuseSend(body, .bodyShape)
            XCTAssertEqual(e?.bodyText, #"{"errors":[{"code":"API_ERROR","message":"\"value\" must be of type object."}]}"#, body)
            XCTAssertEqual(e?.httpStatus, 400)
        }
    }

    /// docs/expo.md §3.2 table, `API_ERROR`, the Python SDK docstring [L]:
    /// `child "to" fails because ["to" must be a string]. "value" must be an array.`
    func testToMustBeAStringText() {
        for body in [#"{"to":5}"#, #"{"to":{"a":1}}"#, #"{"to":true,"title":"t"}"#] {
            let e = refuseSend(body, .fieldType)
            XCTAssertEqual(e?.message, #"child "to" fails because ["to" must be a string]. "value" must be an array."#, body)
            XCTAssertEqual(e?.bodyText,
                           #"{"errors":[{"code":"API_ERROR","message":"child \"to\" fails because [\"to\" must be a string]. \"value\" must be an array."}]}"#)
        }
    }

    /// The §3.2 error-object layout for every constructor: `code`, `message`, then `details` if any.
    func testErrorObjectKeyOrderAndStatuses() {
        XCTAssertEqual(ExpoRequestError.tooManyReceipts(received: 1001).bodyText,
                       #"{"errors":[{"code":"PUSH_TOO_MANY_RECEIPTS","message":"You can request a maximum of 1000 receipts per request (received 1001); divide your requests."}]}"#)
        XCTAssertEqual(ExpoRequestError.tooManyRequests().httpStatus, 429)
        XCTAssertEqual(ExpoRequestError.tooManyRequests().code.rawValue, "TOO_MANY_REQUESTS")
        XCTAssertEqual(ExpoRequestError.unauthorized().httpStatus, 401)
        XCTAssertTrue(ExpoRequestError.unauthorized().bodyText.hasPrefix(#"{"errors":[{"code":"UNAUTHORIZED","message":""#))
        let statuses = ExpoErrorStatuses(overrides: [.unauthorized: 403, .tooManyNotifications: 413])
        XCTAssertEqual(ExpoRequestError.unauthorized(statuses: statuses).httpStatus, 403)
        XCTAssertEqual(ExpoRequestError.tooManyNotifications(received: 101, statuses: statuses).httpStatus, 413)
        XCTAssertEqual(ExpoRequestError.tooManyExperienceIDs([], statuses: statuses).httpStatus, 400)
        for code in ExpoErrorCode.allCases {
            XCTAssertEqual(code.defaultHTTPStatus, code == .tooManyRequests ? 429 : (code == .unauthorized || code == .invalidToken) ? 401 : 400, code.rawValue)
        }
    }

    // MARK: §4 getReceipts

    /// docs/expo.md §4 [A], verbatim. Its error message is `"…"` (none recorded): ours replaces it.
    static let receiptsCapture = #"""
    { "data": {
      "XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX": { "status": "ok" },
      "ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ": { "status": "error", "message": "…", "details": { "error": "MessageTooBig" } }
    } }
    """#

    func testReceiptsResponseIsTheSection4CaptureByteForByte() {
        let body = ExpoGetReceiptsHandler.body([("XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX", ExpoReceiptOutcome.ok.receipt),
                                                ("ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ", ExpoReceiptOutcome.messageTooBig.receipt)])
        let expected = compactCapture(Self.receiptsCapture).replacingOccurrences(of: "…", with: ExpoPushErrorText.messageTooBig())
        XCTAssertEqual(String(decoding: body, as: UTF8.self), expected)
        // And with the capture's own "…" as the message, exactly the capture.
        let verbatim = ExpoGetReceiptsHandler.body([("XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX", .ok),
                                                    ("ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ",
                                                     ExpoReceiptOutcome.other(error: "MessageTooBig", message: "…", extraDetails: [:]).receipt)])
        XCTAssertEqual(String(decoding: verbatim, as: UTF8.self), compactCapture(Self.receiptsCapture))
        XCTAssertEqual(String(decoding: ExpoGetReceiptsHandler.body([]), as: UTF8.self), #"{"data":{}}"#)
    }

    /// §4.1: each outcome's `details.error`, in the receipt layout `status`, `message`, `details`.
    func testEveryReceiptOutcome() {
        let cases: [(ExpoReceiptOutcome, String)] = [
            (.deviceNotRegistered(token: tok("q")), "DeviceNotRegistered"), (.deviceNotRegistered(token: nil), "DeviceNotRegistered"),
            (.messageTooBig, "MessageTooBig"), (.messageRateExceeded, "MessageRateExceeded"),
            (.mismatchSenderId, "MismatchSenderId"), (.invalidCredentials, "InvalidCredentials"),
            (.other(error: "ProviderError", message: "m", extraDetails: ["apns": ["reason": "BadDeviceToken"]]), "ProviderError"),
        ]
        for (outcome, kind) in cases {
            let json = outcome.receipt.json
            XCTAssertEqual(json.objectValue?.map(\.0), ["status", "message", "details"], kind)
            XCTAssertEqual(json["status"], "error")
            XCTAssertEqual(json["details"]?["error"]?.stringValue, kind)
            XCTAssertEqual(json["details"]?.objectValue?.first?.0, "error")
            XCTAssertFalse(json["message"]?.stringValue?.isEmpty ?? true)
        }
        XCTAssertEqual(ExpoReceiptOutcome.deviceNotRegistered(token: tok("q")).receipt.json.compactJSON,
                       #"{"status":"error","message":"\"ExponentPushToken[q]\" is not a registered push notification recipient","details":{"error":"DeviceNotRegistered","expoPushToken":"ExponentPushToken[q]"}}"#)
        XCTAssertEqual(ExpoReceiptOutcome.other(error: "ProviderError", message: "m", extraDetails: ["apns": ["reason": "BadDeviceToken"]]).receipt.json.compactJSON,
                       #"{"status":"error","message":"m","details":{"error":"ProviderError","apns":{"reason":"BadDeviceToken"}}}"#)
        XCTAssertEqual(ExpoReceiptOutcome.ok.receipt.json.compactJSON, #"{"status":"ok"}"#)
        XCTAssertEqual(ExpoPushErrorKind.allCases.map(\.rawValue),
                       ["DeviceNotRegistered", "MessageTooBig", "MessageRateExceeded", "MismatchSenderId", "InvalidCredentials",
                        "DeveloperError", "ExpoError", "ProviderError"])
    }

    /// A message with a quote or backslash in the token is escaped inside the quoted text.
    func testDeviceNotRegisteredTextEscapesTheToken() {
        XCTAssertEqual(ExpoPushErrorText.deviceNotRegistered(token: "a\"b\\c"), #""a\"b\\c" is not a registered push notification recipient"#)
    }
}
