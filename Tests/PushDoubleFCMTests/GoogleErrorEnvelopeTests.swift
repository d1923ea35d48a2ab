import XCTest
import PushDoubleJSON
@testable import PushDoubleFCM

/// Every error body against the captures of docs/fcm.md, byte for byte.
/// Bodies docs/fcm.md gives only as field lists (§4.3 table) are written out here in the §4.2
/// layout (2-space indentation, `code`/`message`/`status`/`details`, one element per line).
final class GoogleErrorEnvelopeTests: XCTestCase {
    private func assertBody(_ envelope: GoogleErrorEnvelope, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        let got = String(decoding: envelope.body(), as: UTF8.self)
        XCTAssertEqual(got, expected, file: file, line: line)
        XCTAssertEqual(envelope.body(), Array(expected.utf8), file: file, line: line)
    }

    // docs/fcm.md §4.2: byte-for-byte capture of a real 401 (https://github.com/Blackjacx/Assist/issues/6).
    func testThirdPartyAuthErrorMatchesTheSection42CaptureByteForByte() {
        let captured = """
        {
          "error": {
            "code": 401,
            "message": "Auth error from APNS or Web Push Service",
            "status": "UNAUTHENTICATED",
            "details": [
              {
                "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                "errorCode": "THIRD_PARTY_AUTH_ERROR"
              }
            ]
          }
        }
        """
        assertBody(.thirdPartyAuthError(), captured)
        XCTAssertEqual(GoogleErrorEnvelope.thirdPartyAuthError().httpStatus, 401)
    }

    // docs/fcm.md §4.2: the trailing newline is UNCONFIRMED, so it is an option.
    func testTrailingNewlineIsOptional() {
        let plain = GoogleErrorEnvelope.unregistered.body()
        let withNewline = GoogleErrorEnvelope.unregistered.body(trailingNewline: true)
        XCTAssertEqual(plain.last, UInt8(ascii: "}"))
        XCTAssertEqual(withNewline, plain + [0x0A])
    }

    // docs/fcm.md §4.1 envelope example / §4.3 "Unregistered token".
    func testUnregistered() {
        assertBody(.unregistered, """
        {
          "error": {
            "code": 404,
            "message": "Requested entity was not found.",
            "status": "NOT_FOUND",
            "details": [
              {
                "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                "errorCode": "UNREGISTERED"
              }
            ]
          }
        }
        """)
    }

    // docs/fcm.md §4.3 "Unavailable" (the pushiko capture docs/fcm.md cites, already in the §4.2 layout).
    func testUnavailable() {
        assertBody(.unavailable, """
        {
          "error": {
            "code": 503,
            "message": "The service is currently unavailable.",
            "status": "UNAVAILABLE",
            "details": [
              {
                "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                "errorCode": "UNAVAILABLE"
              }
            ]
          }
        }
        """)
    }

    // docs/fcm.md §4.3 "Internal".
    func testInternal() {
        assertBody(.internal, """
        {
          "error": {
            "code": 500,
            "message": "Internal error encountered.",
            "status": "INTERNAL",
            "details": [
              {
                "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                "errorCode": "INTERNAL"
              }
            ]
          }
        }
        """)
    }

    // docs/fcm.md §4.3 "Sender mismatch".
    func testSenderIDMismatch() {
        assertBody(.senderIDMismatch, """
        {
          "error": {
            "code": 403,
            "message": "SenderId mismatch",
            "status": "PERMISSION_DENIED",
            "details": [
              {
                "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                "errorCode": "SENDER_ID_MISMATCH"
              }
            ]
          }
        }
        """)
    }

    // docs/fcm.md §4.3 "Invalid token (doc example 2)": the compact `error` content as recorded.
    func testInvalidRegistrationTokenDocExampleCompactContent() {
        XCTAssertEqual(GoogleErrorEnvelope.invalidRegistrationToken.errorObject.compactJSON,
                       #"{"code":400,"message":"The registration token is not a valid FCM registration token","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"INVALID_ARGUMENT"}]}"#)
        assertBody(.invalidRegistrationToken, """
        {
          "error": {
            "code": 400,
            "message": "The registration token is not a valid FCM registration token",
            "status": "INVALID_ARGUMENT",
            "details": [
              {
                "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                "errorCode": "INVALID_ARGUMENT"
              }
            ]
          }
        }
        """)
    }

    // docs/fcm.md §4.3 "Invalid token (older capture)": FcmError first, then BadRequest.
    func testInvalidRegistrationTokenLegacy() {
        assertBody(.invalidRegistrationTokenLegacy, """
        {
          "error": {
            "code": 400,
            "message": "Request contains an invalid argument.",
            "status": "INVALID_ARGUMENT",
            "details": [
              {
                "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                "errorCode": "INVALID_ARGUMENT"
              },
              {
                "@type": "type.googleapis.com/google.rpc.BadRequest",
                "fieldViolations": [
                  {
                    "field": "message.token",
                    "description": "Invalid registration token"
                  }
                ]
              }
            ]
          }
        }
        """)
    }

    // docs/fcm.md §4.3 "Non-string data value (doc example 1)": BadRequest only, no FcmError.
    func testNonStringDataValueDocExample() {
        let e = GoogleErrorEnvelope.invalidValue(field: "message.data[0].value", protoType: "TYPE_STRING", valueText: "12")
        assertBody(e, """
        {
          "error": {
            "code": 400,
            "message": "Invalid value at 'message.data[0].value' (TYPE_STRING), 12",
            "status": "INVALID_ARGUMENT",
            "details": [
              {
                "@type": "type.googleapis.com/google.rpc.BadRequest",
                "fieldViolations": [
                  {
                    "field": "message.data[0].value",
                    "description": "Invalid value at 'message.data[0].value' (TYPE_STRING), 12"
                  }
                ]
              }
            ]
          }
        }
        """)
        XCTAssertNil(e.fcmErrorCode)
    }

    // docs/fcm.md §4.3 "Missing recipient": BadRequest first, then FcmError.
    func testMissingRecipient() {
        assertBody(.missingRecipient, """
        {
          "error": {
            "code": 400,
            "message": "Recipient of the message is not set.",
            "status": "INVALID_ARGUMENT",
            "details": [
              {
                "@type": "type.googleapis.com/google.rpc.BadRequest",
                "fieldViolations": [
                  {
                    "field": "message",
                    "description": "Recipient of the message is not set."
                  }
                ]
              },
              {
                "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                "errorCode": "INVALID_ARGUMENT"
              }
            ]
          }
        }
        """)
    }

    // docs/fcm.md §4.3 "Payload too large, older": the compact content as recorded, no details.
    func testPayloadTooLargeLegacy() {
        XCTAssertEqual(GoogleErrorEnvelope.payloadTooLargeLegacy.errorObject.compactJSON,
                       #"{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT"}"#)
        assertBody(.payloadTooLargeLegacy, """
        {
          "error": {
            "code": 400,
            "message": "Request contains an invalid argument.",
            "status": "INVALID_ARGUMENT"
          }
        }
        """)
    }

    // docs/fcm.md §4.3 "Payload too large, 2023 onwards": a bare BadRequest, then FcmError; the
    // escaped prefix in §4.2 (https://github.com/reown-com/push-server/issues/346) matches the start of the body.
    func testPayloadTooLarge2023() {
        let expected = """
        {
          "error": {
            "code": 400,
            "message": "Android message is too big",
            "status": "INVALID_ARGUMENT",
            "details": [
              {
                "@type": "type.googleapis.com/google.rpc.BadRequest"
              },
              {
                "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                "errorCode": "INVALID_ARGUMENT"
              }
            ]
          }
        }
        """
        assertBody(.payloadTooLarge, expected)
        XCTAssertTrue(expected.hasPrefix("{\n  \"error\": {\n    \"code\": 400,\n    \"message\": \"Android message is too big\","))
    }

    // docs/fcm.md §4.3 "Invalid OAuth token": the compact content as recorded, no details.
    func testInvalidCredentials() {
        XCTAssertEqual(GoogleErrorEnvelope.invalidCredentials.errorObject.compactJSON,
                       #"{"code":401,"message":"Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.","status":"UNAUTHENTICATED"}"#)
        assertBody(.invalidCredentials, """
        {
          "error": {
            "code": 401,
            "message": "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
            "status": "UNAUTHENTICATED"
          }
        }
        """)
    }

    // docs/fcm.md §4.3 "Missing Authorization header": same shape, the message starts as recorded.
    func testMissingCredential() {
        let e = GoogleErrorEnvelope.missingCredential
        XCTAssertEqual(e.code, 401)
        XCTAssertEqual(e.status, "UNAUTHENTICATED")
        XCTAssertNil(e.details)
        XCTAssertTrue(e.message.hasPrefix("Request is missing required authentication credential. "))
        XCTAssertEqual(e.errorObject.compactJSON,
                       #"{"code":401,"message":"Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.","status":"UNAUTHENTICATED"}"#)
    }

    // docs/fcm.md §4.3: in 2026 the THIRD_PARTY_AUTH_ERROR message is sometimes the generic one.
    func testThirdPartyAuthErrorWithTheGenericMessageAndLegacyCode() {
        let e = GoogleErrorEnvelope.thirdPartyAuthError(message: GoogleErrorEnvelope.missingCredentialMessage)
        XCTAssertEqual(e.fcmErrorCode, .thirdPartyAuthError)
        XCTAssertEqual(e.message, GoogleErrorEnvelope.missingCredentialMessage)
        let legacy = GoogleErrorEnvelope.thirdPartyAuthError(code: .apnsAuthError)
        XCTAssertTrue(String(decoding: legacy.body(), as: UTF8.self).contains("\"errorCode\": \"APNS_AUTH_ERROR\""))
        XCTAssertEqual(legacy.httpStatus, 401)
    }

    // docs/fcm.md §4.3 "IAM permission missing".
    func testPermissionDenied() {
        assertBody(.permissionDenied(project: "pushdouble-test"), """
        {
          "error": {
            "code": 403,
            "message": "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/pushdouble-test' (or it may not exist).",
            "status": "PERMISSION_DENIED"
          }
        }
        """)
    }

    // docs/fcm.md §4.3 "Quota" / §4.4: 429 RESOURCE_EXHAUSTED, FcmError QUOTA_EXCEEDED, optional QuotaFailure.
    func testQuotaExceeded() {
        let text = GoogleErrorEnvelope.gcpQuotaMessage(metric: "m", limit: "l", projectNumber: "123")
        XCTAssertEqual(text, "Quota exceeded for quota metric 'm' and limit 'l' of service 'fcm.googleapis.com' for consumer 'project_number:123'.")
        assertBody(.quotaExceeded(message: text), """
        {
          "error": {
            "code": 429,
            "message": "\(text)",
            "status": "RESOURCE_EXHAUSTED",
            "details": [
              {
                "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                "errorCode": "QUOTA_EXCEEDED"
              }
            ]
          }
        }
        """)
        assertBody(.quotaExceeded(message: "q", withQuotaFailure: true), """
        {
          "error": {
            "code": 429,
            "message": "q",
            "status": "RESOURCE_EXHAUSTED",
            "details": [
              {
                "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                "errorCode": "QUOTA_EXCEEDED"
              },
              {
                "@type": "type.googleapis.com/google.rpc.QuotaFailure"
              }
            ]
          }
        }
        """)
    }

    // docs/fcm.md §4.4: HTTP status and canonical status of every FcmError code.
    func testErrorCodeTable() {
        let table: [(FCMErrorCode, Int, String)] = [
            (.invalidArgument, 400, "INVALID_ARGUMENT"), (.unregistered, 404, "NOT_FOUND"),
            (.senderIDMismatch, 403, "PERMISSION_DENIED"), (.quotaExceeded, 429, "RESOURCE_EXHAUSTED"),
            (.unavailable, 503, "UNAVAILABLE"), (.internal, 500, "INTERNAL"),
            (.thirdPartyAuthError, 401, "UNAUTHENTICATED"), (.apnsAuthError, 401, "UNAUTHENTICATED"),
        ]
        for (code, http, status) in table {
            XCTAssertEqual(code.httpStatus, http, code.rawValue)
            XCTAssertEqual(code.status.rawValue, status, code.rawValue)
            XCTAssertEqual(code.status.httpStatus, http, code.rawValue)
        }
        XCTAssertEqual(FCMErrorCode.allCases.count, 9)
        // §5.1 step 3's HTTP → status table.
        XCTAssertEqual(GoogleRPCStatus.conflict.httpStatus, 409)
        XCTAssertEqual(GoogleRPCStatus.failedPrecondition.httpStatus, 412)
    }

    // Every catalog entry's `code` matches the status table (§4.4 / §5.1).
    func testEveryCatalogEntryIsConsistent() {
        let all: [GoogleErrorEnvelope] = [.invalidRegistrationToken, .invalidRegistrationTokenLegacy, .missingRecipient,
                                          .payloadTooLarge, .payloadTooLargeLegacy, .invalidArgument, .unregistered,
                                          .senderIDMismatch, .thirdPartyAuthError(), .internal, .unavailable,
                                          .invalidCredentials, .missingCredential, .permissionDenied(project: "p"),
                                          .quotaExceeded(message: "q")]
        for e in all {
            XCTAssertEqual(GoogleRPCStatus(rawValue: e.status)?.httpStatus, e.code, e.message)
            if let c = e.fcmErrorCode { XCTAssertEqual(c.httpStatus, e.code, e.message) }
            XCTAssertNoThrow(try JSONValue.parse(e.body()))
        }
    }

    func testCustomDetailIsWrittenAsGiven() {
        let e = GoogleErrorEnvelope(code: 400, message: "m", status: .invalidArgument,
                                    details: [.custom(["@type": "x", "reason": "BadDeviceToken"])])
        XCTAssertEqual(e.errorObject.compactJSON, #"{"code":400,"message":"m","status":"INVALID_ARGUMENT","details":[{"@type":"x","reason":"BadDeviceToken"}]}"#)
        XCTAssertEqual(GoogleErrorEnvelope(code: 400, message: "m", status: "X", details: []).errorObject.compactJSON,
                       #"{"code":400,"message":"m","status":"X","details":[]}"#)
    }

    // docs/fcm.md §4.3 "Front-end 502": non-JSON HTML; the full page is pushiko's capture
    // (repo bloomberg/pushiko, docs/fcm_responses.md, "Bad gateway"), copied here.
    func testBadGatewayPageIsThePushikoCapture() {
        let captured = #"""
        <!DOCTYPE html>
        <html lang=en>
          <meta charset=utf-8>
          <meta name=viewport content="initial-scale=1, minimum-scale=1, width=device-width">
          <title>Error 502 (Server Error)!!1</title>
          <style>
            *{margin:0;padding:0}html,code{font:15px/22px arial,sans-serif}html{background:#fff;color:#222;padding:15px}body{margin:7% auto 0;max-width:390px;min-height:180px;padding:30px 0 15px}* > body{background:url(//www.google.com/images/errors/robot.png) 100% 5px no-repeat;padding-right:205px}p{margin:11px 0 22px;overflow:hidden}ins{color:#777;text-decoration:none}a img{border:0}@media screen and (max-width:772px){body{background:none;margin-top:0;max-width:none;padding-right:0}}#logo{background:url(//www.google.com/images/branding/googlelogo/1x/googlelogo_color_150x54dp.png) no-repeat;margin-left:-5px}@media only screen and (min-resolution:192dpi){#logo{background:url(//www.google.com/images/branding/googlelogo/2x/googlelogo_color_150x54dp.png) no-repeat 0% 0%/100% 100%;-moz-border-image:url(//www.google.com/images/branding/googlelogo/2x/googlelogo_color_150x54dp.png) 0}}@media only screen and (-webkit-min-device-pixel-ratio:2){#logo{background:url(//www.google.com/images/branding/googlelogo/2x/googlelogo_color_150x54dp.png) no-repeat;-webkit-background-size:100% 100%}}#logo{display:inline-block;height:54px;width:150px}
          </style>
          <a href=//www.google.com/><span id=logo aria-label=Google></span></a>
          <p><b>502.</b> <ins>That?s an error.</ins>
          <p>The server encountered a temporary error and could not complete your request.<p>Please try again in 30 seconds.  <ins>That?s all we know.</ins>

        """#
        XCTAssertEqual(GoogleFrontEndErrorPage.badGatewayBody, Array(captured.utf8))
        let text = GoogleFrontEndErrorPage.badGatewayHTML
        XCTAssertTrue(text.contains("<title>Error 502 (Server Error)!!1</title>"))
        XCTAssertTrue(text.contains("Please try again in 30 seconds."))
        XCTAssertTrue(text.hasSuffix("</ins>\n"))
        XCTAssertThrowsError(try JSONValue.parse(GoogleFrontEndErrorPage.badGatewayBody))
        XCTAssertEqual(GoogleFrontEndErrorPage.badGatewayStatus, 502)
    }
}
