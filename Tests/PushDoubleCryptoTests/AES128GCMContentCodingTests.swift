import XCTest
import PushDoubleTestSupport
@testable import PushDoubleCrypto

/// RFC 8188 `aes128gcm` framing, tested with the RFC's own examples and bad-input cases.
final class AES128GCMContentCodingTests: XCTestCase {
    // RFC 8188 §3.1: one record, rs 4096, empty keyid, IKM "yqdlZ-tYemfogSmv7Ws5PQ", "I am the walrus".
    // (The RFC says Content-Length 54; the body it prints decodes to 53 bytes: 21 + 15 + 1 + 16.)
    let ikm1 = "yqdlZ-tYemfogSmv7Ws5PQ"
    let body1 = "I1BsxtFttlv3u_Oo94xnmwAAEAAA-NAVub2qFgBEuQKRapoZu-IxkIva3MEB1PD-ly8Thjg"
    // RFC 8188 §3.2: rs 25, keyid "a1", two records (7 bytes + 1 byte padding, then 8 bytes).
    let ikm2 = "BO3ZVPxUlnLORbVGMpbT1Q"
    let body2 = "uNCkWiNYzKTnBN9ji3-qWAAAABkCYTHOG8chz_gnvgOqdGYovxyjuqRyJFjEDyoF1Fvkj6hQPdPHI51OEUKEpgz3SsLWIqS_uA"
    let walrus = Array("I am the walrus".utf8)

    func testRFC8188Section3_1Intermediates() {
        // PRK, CEK and NONCE as printed in §3.1.
        let salt = b64("I1BsxtFttlv3u_Oo94xnmw")
        XCTAssertEqual(HKDF.extract(salt: salt, ikm: b64(ikm1)), b64("zyeH5phsIsgUyd4oiSEIy35x-gIi4aM7y0hCF8mwn9g"))
        let (key, nonce) = AES128GCMContentCoding.deriveKeyAndNonce(ikm: b64(ikm1), salt: salt)
        XCTAssertEqual(key, b64("_wniytB-ofscZDh4tbSjHw"))
        XCTAssertEqual(nonce, b64("Bcs8gkIRKLI8GeI8"))
    }

    func testRFC8188Section3_1Decrypt() throws {
        let body = b64(body1)
        XCTAssertEqual(body.count, 53)
        let d = try AES128GCMContentCoding.decrypt(body: body, ikm: b64(ikm1))
        XCTAssertEqual(d.plaintext, walrus)
        XCTAssertEqual(d.header.recordSize, 4096)
        XCTAssertEqual(d.header.keyID, [])
        XCTAssertEqual(d.recordCount, 1)
        XCTAssertEqual(d.paddingLength, 0)
    }

    func testRFC8188Section3_1EncryptByteExact() throws {
        let out = try AES128GCMContentCoding.encrypt(plaintext: walrus, ikm: b64(ikm1), salt: b64("I1BsxtFttlv3u_Oo94xnmw"))
        XCTAssertEqual(out, b64(body1))
    }

    func testRFC8188Section3_2DecryptMultipleRecordsWithKeyID() throws {
        let body = b64(body2)
        XCTAssertEqual(body.count, 73)
        let d = try AES128GCMContentCoding.decrypt(body: body, ikm: b64(ikm2))
        XCTAssertEqual(d.plaintext, walrus)
        XCTAssertEqual(d.header.recordSize, 25)
        XCTAssertEqual(d.header.keyID, Array("a1".utf8))
        XCTAssertEqual(d.recordCount, 2)
        XCTAssertEqual(d.paddingLength, 1)
        XCTAssertTrue(d.lastRecordFull)
    }

    func testRFC8188Section3_2EncryptByteExactWithRecordPlan() throws {
        let out = try AES128GCMContentCoding.encrypt(
            plaintext: walrus, ikm: b64(ikm2), salt: Array(b64(body2)[0..<16]), keyID: Array("a1".utf8), recordSize: 25,
            records: [.init(dataLength: 7, paddingLength: 1), .init(dataLength: 8, paddingLength: 0)])
        XCTAssertEqual(out, b64(body2))
    }

    func testAutomaticFramingRoundTripsAcrossRecordSizesAndPadding() throws {
        let ikm = [UInt8](repeating: 7, count: 16), salt = [UInt8](repeating: 9, count: 16)
        let text = (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) }
        for rs in [18, 19, 25, 64, 316, 317, 4096] {
            for padding in [0, 1, 40, 500] {
                let body = try AES128GCMContentCoding.encrypt(plaintext: text, ikm: ikm, salt: salt, recordSize: rs, padding: padding)
                let d = try AES128GCMContentCoding.decrypt(body: body, ikm: ikm)
                XCTAssertEqual(d.plaintext, text, "rs \(rs) padding \(padding)")
                XCTAssertEqual(d.paddingLength, padding, "rs \(rs) padding \(padding)")
                let expected = try AES128GCMContentCoding.plan(dataLength: text.count, padding: padding, recordSize: rs).count
                XCTAssertEqual(d.recordCount, expected)
            }
        }
        // An empty message is one record holding just the delimiter.
        let empty = try AES128GCMContentCoding.encrypt(plaintext: [], ikm: ikm, salt: salt)
        XCTAssertEqual(empty.count, 21 + 1 + 16)
        XCTAssertEqual(try AES128GCMContentCoding.decrypt(body: empty, ikm: ikm).plaintext, [])
    }

    // MARK: - bad input

    func testRecordSizeTooSmall() {
        var body = b64(body1)
        body[16...19] = [0, 0, 0, 17]
        assertThrows(.recordSizeTooSmall(recordSize: 17, minimum: 18)) { try AES128GCMContentCoding.decrypt(body: body, ikm: self.b64(self.ikm1)) }
        assertThrows(.recordSizeTooSmall(recordSize: 10, minimum: 18)) {
            try AES128GCMContentCoding.encrypt(plaintext: self.walrus, ikm: self.b64(self.ikm1), salt: [UInt8](repeating: 0, count: 16), recordSize: 10)
        }
    }

    func testTruncatedHeader() {
        let body = b64(body1)
        assertThrows(.truncatedHeader(length: 20, required: 21)) { try AES128GCMContentCoding.decrypt(body: Array(body[0..<20]), ikm: self.b64(self.ikm1)) }
        // §3.2 has a 2-byte keyid: 22 bytes is not enough.
        assertThrows(.truncatedHeader(length: 22, required: 23)) {
            try AES128GCMContentCoding.decrypt(body: Array(self.b64(self.body2)[0..<22]), ikm: self.b64(self.ikm2))
        }
    }

    func testNoRecordAndShortRecord() {
        let body = b64(body1)
        assertThrows(.truncatedRecord(record: 0, length: 0)) { try AES128GCMContentCoding.decrypt(body: Array(body[0..<21]), ikm: self.b64(self.ikm1)) }
        assertThrows(.truncatedRecord(record: 0, length: 16)) { try AES128GCMContentCoding.decrypt(body: Array(body[0..<37]), ikm: self.b64(self.ikm1)) }
    }

    func testTamperedCiphertextFailsAuthentication() {
        var body = b64(body1)
        body[30] ^= 0x40
        assertThrows(.authenticationFailed(record: 0)) { try AES128GCMContentCoding.decrypt(body: body, ikm: self.b64(self.ikm1)) }
        var body2 = b64(self.body2)
        body2[body2.count - 1] ^= 1 // the second record's tag
        assertThrows(.authenticationFailed(record: 1)) { try AES128GCMContentCoding.decrypt(body: body2, ikm: self.b64(self.ikm2)) }
        // A tampered salt changes the key.
        var salted = b64(body1)
        salted[0] ^= 1
        assertThrows(.authenticationFailed(record: 0)) { try AES128GCMContentCoding.decrypt(body: salted, ikm: self.b64(self.ikm1)) }
    }

    func testMissingPaddingDelimiter() throws {
        // A record whose plaintext is all zeros: encrypt it with the real key and nonce by hand.
        let ikm = [UInt8](repeating: 1, count: 16), salt = [UInt8](repeating: 2, count: 16)
        let (key, nonce) = AES128GCMContentCoding.deriveKeyAndNonce(ikm: ikm, salt: salt)
        let sealed = try AES128GCM(key: key).seal(nonce: nonce, plaintext: [0, 0, 0, 0][...])
        let body = AES128GCMContentCoding.Header(salt: salt, recordSize: 4096, keyID: []).encoded + sealed
        assertThrows(.missingPaddingDelimiter(record: 0)) { try AES128GCMContentCoding.decrypt(body: body, ikm: ikm) }
    }

    func testWrongDelimiterAndDroppedFinalRecord() throws {
        // Drop §3.2's last record: the body now ends after a record whose delimiter is 0x01.
        let truncated = Array(b64(body2)[0..<48])
        assertThrows(.wrongPaddingDelimiter(record: 0, delimiter: 1)) { try AES128GCMContentCoding.decrypt(body: truncated, ikm: self.b64(self.ikm2)) }
        // A 0x02 delimiter before the last record.
        let ikm = [UInt8](repeating: 1, count: 16), salt = [UInt8](repeating: 2, count: 16)
        let (key, nonce) = AES128GCMContentCoding.deriveKeyAndNonce(ikm: ikm, salt: salt)
        let aead = try AES128GCM(key: key)
        let r0 = try aead.seal(nonce: nonce, plaintext: [0x41, 2][...] + [UInt8](repeating: 0, count: 0))
        let first = r0 + [] // 18 bytes: rs 18 makes it a full record
        let r1 = try aead.seal(nonce: AES128GCMContentCoding.recordNonce(nonce, 1), plaintext: [0x42, 2][...])
        let body = AES128GCMContentCoding.Header(salt: salt, recordSize: 18, keyID: []).encoded + first + r1
        assertThrows(.wrongPaddingDelimiter(record: 0, delimiter: 2)) { try AES128GCMContentCoding.decrypt(body: body, ikm: ikm) }
    }

    func testHKDFRFC5869TestCase1() {
        let prk = HKDF.extract(salt: hex("000102030405060708090a0b0c"), ikm: [UInt8](repeating: 0x0b, count: 22))
        XCTAssertEqual(prk, hex("077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5"))
        XCTAssertEqual(HKDF.expand(prk: prk, info: hex("f0f1f2f3f4f5f6f7f8f9"), length: 42),
                       hex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"))
    }

    private func b64(_ s: String, file: StaticString = #filePath, line: UInt = #line) -> [UInt8] {
        PushDoubleCryptoTests.b64(s, file: file, line: line)
    }
}

extension AES128GCMContentCodingTests {
    func testUnreasonableParametersAreTypedErrors() {
        let ikm = [UInt8](repeating: 1, count: 16), salt = [UInt8](repeating: 2, count: 16)
        assertThrows(matching: { if case .invalidArgument = $0 { return true }; return false }) {
            try AES128GCMContentCoding.encrypt(plaintext: [1], ikm: ikm, salt: salt, recordSize: 18, padding: 1 << 29)
        }
        assertThrows(matching: { if case .invalidArgument = $0 { return true }; return false }) {
            try AES128GCMContentCoding.encrypt(plaintext: [1], ikm: ikm, salt: salt, recordSize: 1 << 40)
        }
        assertThrows(.invalidKeyLength(what: "salt", expected: 16, actual: 3)) {
            try AES128GCMContentCoding.encrypt(plaintext: [1], ikm: ikm, salt: [1, 2, 3])
        }
        assertThrows(matching: { if case .invalidArgument = $0 { return true }; return false }) {
            try AES128GCMContentCoding.encrypt(plaintext: [1, 2], ikm: ikm, salt: salt, keyID: [], recordSize: 100,
                                               records: [.init(dataLength: 1, paddingLength: 0)])
        }
    }

    func testRandomGarbageNeverCrashes() {
        // Random bodies with a plausible header: every outcome must be a typed error.
        var rng = SystemRandomNumberGenerator()
        let ikm = [UInt8](repeating: 3, count: 16)
        for _ in 0..<300 {
            var body = (0..<Int.random(in: 0...200, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if body.count > 21 { body[16...19] = [0, 0, 0, UInt8.random(in: 0...40, using: &rng)]; body[20] = UInt8.random(in: 0...3, using: &rng) }
            XCTAssertThrowsError(try AES128GCMContentCoding.decrypt(body: body, ikm: ikm)) { XCTAssertTrue($0 is CryptoError) }
        }
    }
}
