import XCTest
import PushDoubleCrypto

/// RFC 7519 §2 NumericDate, plus the digit-string form providers tolerate.
final class NumericDateClaimTests: XCTestCase {
    func testAcceptedForms() {
        XCTAssertEqual(NumericDateClaim(.int(1_764_582_000)), NumericDateClaim(seconds: 1_764_582_000, form: .integer))
        XCTAssertEqual(NumericDateClaim(.double(1_764_582_000.75))?.form, .fraction)
        XCTAssertEqual(NumericDateClaim(.double(1_764_582_000.75))?.wholeSeconds, 1_764_582_000)
        XCTAssertEqual(NumericDateClaim(.string("1764582000")), NumericDateClaim(seconds: 1_764_582_000, form: .string))
        XCTAssertEqual(NumericDateClaim(.string("1764582000.5"))?.seconds, 1_764_582_000.5)
        XCTAssertEqual(NumericDateClaim(.int(0))?.wholeSeconds, 0)
    }

    func testRefusedValues() {
        let refused: [JSONValue] = [
            .string(""), .string(" 1764582000"), .string("1764582000 "), .string("+1764582000"), .string("-1"),
            .string("1e9"), .string("1764582000."), .string(".5"), .string("0x10"), .string("1.2.3"),
            .string(String(repeating: "9", count: 40)), .double(-0.5), .int(-1), .double(.infinity), .double(.nan),
            .double(1e300), .int(Int64.max), .bool(true), .null, .array([.int(1)]), .object([("iat", .int(1))]),
        ]
        for v in refused { XCTAssertNil(NumericDateClaim(v), "\(v)") }
    }

    func testParsedJWTReadsEveryForm() throws {
        let key = try P256PrivateKey.generate()
        for (iat, form) in [(JSONValue.int(1_700_000_000), NumericDateClaim.Form.integer),
                            (.double(1_700_000_000.9), .fraction), (.string("1700000000"), .string)] {
            let token = try JWT.sign(header: ["kid": "K"], claims: ["iss": "T", "iat": iat, "exp": iat], key: .es256(key))
            let parsed = try JWT.parse(token)
            XCTAssertEqual(parsed.issuedAt, 1_700_000_000)
            XCTAssertEqual(parsed.expiresAt, 1_700_000_000)
            XCTAssertEqual(parsed.numericDate("iat")?.form, form)
        }
    }
}
