import XCTest
@testable import PushDoubleCrypto

final class Base64URLTests: XCTestCase {
    // RFC 4648 §10 test vectors (base64url differs only in the alphabet; none of these use it).
    func testRFC4648Vectors() throws {
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            XCTAssertEqual(Base64URL.encode(Array(plain.utf8)), encoded)
            XCTAssertEqual(try Base64URL.decode(encoded), Array(plain.utf8))
        }
    }

    func testURLSafeAlphabet() throws {
        XCTAssertEqual(Base64URL.encode([0xFB, 0xFF, 0xBF]), "-_-_")
        XCTAssertEqual(try Base64URL.decode("-_-_"), [0xFB, 0xFF, 0xBF])
    }

    func testOptionalPaddingAccepted() throws {
        XCTAssertEqual(try Base64URL.decode("Zg=="), Array("f".utf8))
        XCTAssertEqual(try Base64URL.decode("Zm8="), Array("fo".utf8))
    }

    func testPaddingRefusedWhenNotAllowed() {
        assertThrows(.base64URLUnexpectedPadding(offset: 2)) { try Base64URL.decode("Zg==", allowPadding: false) }
    }

    func testRoundTripAllLengths() throws {
        var bytes: [UInt8] = []
        for n in 0..<200 {
            XCTAssertEqual(try Base64URL.decode(Base64URL.encode(bytes)), bytes, "length \(n)")
            bytes.append(UInt8(truncatingIfNeeded: n &* 37 &+ 11))
        }
    }

    func testTruncatedInputIsImpossibleLength() {
        // 5 characters = 4n+1: no byte string encodes to that.
        assertThrows(.base64URLInvalidLength(length: 5)) { try Base64URL.decode("Zm9vY") }
        assertThrows(.base64URLInvalidLength(length: 6)) { try Base64URL.decode("Zm9vY=") }
        assertThrows(.base64URLInvalidLength(length: 1)) { try Base64URL.decode("Z") }
    }

    func testBadCharacters() {
        assertThrows(.base64URLInvalidCharacter(offset: 2, byte: UInt8(ascii: "+"))) { try Base64URL.decode("Zm+v") }
        assertThrows(.base64URLInvalidCharacter(offset: 3, byte: UInt8(ascii: "/"))) { try Base64URL.decode("Zm9/") }
        assertThrows(.base64URLInvalidCharacter(offset: 2, byte: UInt8(ascii: " "))) { try Base64URL.decode("Zm 9v") }
    }

    func testMisplacedPadding() {
        assertThrows(.base64URLUnexpectedPadding(offset: 2)) { try Base64URL.decode("Zm=v") }
        assertThrows(.base64URLInvalidLength(length: 3)) { try Base64URL.decode("Zg=") }
        assertThrows(.base64URLInvalidLength(length: 4)) { try Base64URL.decode("Z===") }
    }

    func testNonCanonicalTrailingBits() {
        // "Zh" decodes to 'f' with 4 non-zero trailing bits; the canonical form is "Zg".
        assertThrows(.base64URLNonCanonical) { try Base64URL.decode("Zh") }
    }
}
