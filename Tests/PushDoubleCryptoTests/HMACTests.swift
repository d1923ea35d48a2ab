import XCTest
@testable import PushDoubleCrypto

/// HMAC-SHA-256 (the C shim's, SHA-256 fetched once) against RFC 4231's vectors: a short key, a
/// key longer than the block (hashed first), and the empty key and message.
final class HMACTests: XCTestCase {
    func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = s.startIndex
        while i < s.endIndex { let j = s.index(i, offsetBy: 2); out.append(UInt8(s[i..<j], radix: 16)!); i = j }
        return out
    }

    func testRFC4231Vectors() {
        // RFC 4231 §4.3 (test case 2) and §4.7 (test case 6).
        XCTAssertEqual(HKDF.hmacSHA256(key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8)),
                       hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"))
        XCTAssertEqual(HKDF.hmacSHA256(key: [UInt8](repeating: 0xaa, count: 131),
                                       data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)),
                       hex("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"))
        // A 64-byte key is used as is (RFC 2104 §2), the empty key and message too.
        XCTAssertEqual(HKDF.hmacSHA256(key: [], data: []), hex("b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"))
        XCTAssertEqual(HKDF.hmacSHA256(key: [UInt8](repeating: 0x0b, count: 64), data: Array("x".utf8)), hex("5d377530059731d6804d2aa2a245f5b2620bb55d4fa118d5d8ea1919b23b4ba2"))
    }
}
