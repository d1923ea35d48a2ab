import XCTest
@testable import PushDoubleExpo

/// Enhanced push security (docs/expo.md §1 "Auth" [A]): `Authorization: Bearer <access token>` → `UNAUTHORIZED`.
final class ExpoAccessTokenCheckTests: XCTestCase {
    let valid: Set<String> = ["tok-123"]

    func testBearerTokenParsing() {
        XCTAssertEqual(ExpoAccessTokenCheck.bearerToken("Bearer tok-123"), "tok-123")
        XCTAssertEqual(ExpoAccessTokenCheck.bearerToken("bearer tok-123"), "tok-123")
        XCTAssertEqual(ExpoAccessTokenCheck.bearerToken("BEARER   tok-123  "), "tok-123")
        for bad in [nil, "", "Bearer", "Bearer ", "Bearer    ", "Basic dXNlcjpwYXNz", "tok-123", "Bearertok-123"] as [String?] {
            XCTAssertNil(ExpoAccessTokenCheck.bearerToken(bad), bad ?? "nil")
        }
    }

    func testRequiredTokenMustBeValid() {
        let check = ExpoAccessTokenCheck(required: true)
        XCTAssertNoThrow(try check.check(authorization: "Bearer tok-123", isValid: valid.contains))
        XCTAssertNoThrow(try check.check(authorization: "bearer tok-123", isValid: valid.contains))
        for header in [nil, "Basic tok-123", "tok-123", "Bearer "] as [String?] {
            XCTAssertThrowsError(try check.check(authorization: header, isValid: valid.contains), header ?? "nil") { error in
                let e = error as? ExpoRequestError
                XCTAssertEqual(e?.code, .unauthorized)
                XCTAssertEqual(e?.rule, .accessToken)
                XCTAssertEqual(e?.httpStatus, 401)
                XCTAssertEqual(e?.bodyText,
                               #"{"errors":[{"code":"UNAUTHORIZED","message":"The request is not authorized: enhanced push security requires a valid access token in the Authorization header (Bearer <token>)."}]}"#)
            }
        }
    }

    /// docs/expo.md §3.2a: a bearer token that is not valid gets the OAuth-style `invalid_token`
    /// body, whether enhanced push security is on or off.
    func testInvalidBearerToken() {
        for required in [true, false] {
            XCTAssertThrowsError(try ExpoAccessTokenCheck(required: required).check(authorization: "Bearer other", isValid: valid.contains)) { error in
                let e = error as? ExpoRequestError
                XCTAssertEqual(e?.code, .invalidToken)
                XCTAssertEqual(e?.httpStatus, 401)
                XCTAssertEqual(e?.bodyText, #"{"error":"invalid_token","error_description":"The bearer token is invalid"}"#)
            }
        }
        let lenient = ExpoAccessTokenCheck(required: true, refuseInvalidBearer: false)
        XCTAssertThrowsError(try lenient.check(authorization: "Bearer other", isValid: valid.contains)) { error in
            XCTAssertEqual((error as? ExpoRequestError)?.code, .unauthorized)
        }
        XCTAssertNoThrow(try ExpoAccessTokenCheck(required: false, refuseInvalidBearer: false).check(authorization: "Bearer other", isValid: valid.contains))
    }

    func testOffAcceptsNoTokenAndStatusIsConfigurable() {
        let off = ExpoAccessTokenCheck(required: false)
        for header in [nil, "Basic x", "garbage"] as [String?] {
            XCTAssertNoThrow(try off.check(authorization: header, isValid: { _ in XCTFail("not asked"); return false }))
        }
        let c = ExpoAccessTokenCheck(required: true, statuses: ExpoErrorStatuses(overrides: [.unauthorized: 403]))
        XCTAssertThrowsError(try c.check(authorization: nil, isValid: valid.contains)) { error in
            XCTAssertEqual((error as? ExpoRequestError)?.httpStatus, 403)
        }
    }
}
