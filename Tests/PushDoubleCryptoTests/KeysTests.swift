import XCTest
import PushDoubleTestSupport
@testable import PushDoubleCrypto

/// P-256 and RSA key loading, export and type checks.
final class KeysTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "openssl") }

    func testP256GenerateExportReload() throws {
        let key = try P256PrivateKey.generate()
        let pkcs8 = try key.pemPKCS8
        XCTAssertTrue(pkcs8.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        let sec1 = try key.pemSEC1
        XCTAssertTrue(sec1.hasPrefix("-----BEGIN EC PRIVATE KEY-----\n"))
        XCTAssertEqual(try P256PrivateKey(pem: pkcs8).rawPrivateScalar, try key.rawPrivateScalar)
        XCTAssertEqual(try P256PrivateKey(pem: sec1).rawPrivateScalar, try key.rawPrivateScalar)
        XCTAssertEqual(try key.rawPrivateScalar.count, 32)
        let pub = try key.publicKey
        XCTAssertEqual(pub.rawRepresentation.count, 65)
        XCTAssertEqual(pub.rawRepresentation.first, 0x04)
        XCTAssertEqual(try P256PublicKey(pem: pub.pem), pub)
        XCTAssertEqual(try P256PublicKey(rawRepresentation: pub.rawRepresentation), pub)
        // The raw scalar rebuilds the same key pair, and PEM exports of it are complete.
        let rebuilt = try P256PrivateKey(rawPrivateScalar: key.rawPrivateScalar)
        XCTAssertEqual(try rebuilt.publicKey, pub)
        XCTAssertEqual(try P256PrivateKey(pem: rebuilt.pemPKCS8).publicKey, pub)
    }

    func testP256LoadsOpenSSLMadeKeysInBothPEMForms() throws {
        let dir = try temporaryDirectory(self)
        let p8 = dir.appendingPathComponent("k.p8").path
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", p8])
        let sec1 = try openssl(["ec", "-in", p8])
        let pubPEM = try openssl(["pkey", "-in", p8, "-pubout"])
        let pubDER = dir.appendingPathComponent("pub.der").path
        try openssl(["pkey", "-in", p8, "-pubout", "-outform", "DER", "-out", pubDER])
        let a = try P256PrivateKey(pem: String(decoding: readFile(p8), as: UTF8.self))
        let b = try P256PrivateKey(pem: sec1)
        XCTAssertTrue(sec1.contains("BEGIN EC PRIVATE KEY"))
        XCTAssertEqual(try a.rawPrivateScalar, try b.rawPrivateScalar)
        let pub = try P256PublicKey(pem: pubPEM)
        XCTAssertEqual(try a.publicKey, pub)
        XCTAssertEqual(pub.derRepresentation, try readFile(pubDER))
    }

    func testRSAGenerateExportReload() throws {
        let key = try RSAPrivateKey.generate(bits: 2048)
        XCTAssertEqual(key.bits, 2048)
        let pem = try key.pem
        XCTAssertTrue(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        let again = try RSAPrivateKey(pem: pem)
        XCTAssertEqual(try again.publicKey.pem, try key.publicKey.pem)
        XCTAssertEqual(try RSAPublicKey(pem: key.publicKey.pem).bits, 2048)
    }

    func testWrongKeyTypes() throws {
        let rsa = try RSAPrivateKey.generate(bits: 2048)
        let ec = try P256PrivateKey.generate()
        assertThrows(.wrongKeyType(expected: .p256, actual: .rsa)) { try P256PrivateKey(pem: rsa.pem) }
        assertThrows(.wrongKeyType(expected: .p256, actual: .rsa)) { try P256PublicKey(pem: rsa.publicKey.pem) }
        assertThrows(.wrongKeyType(expected: .rsa, actual: .p256)) { try RSAPrivateKey(pem: ec.pemPKCS8) }
        assertThrows(.wrongKeyType(expected: .rsa, actual: .p256)) { try RSAPublicKey(pem: ec.publicKey.pem) }
    }

    func testOtherCurveIsRefused() throws {
        let dir = try temporaryDirectory(self)
        let path = dir.appendingPathComponent("p384.pem").path
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", path])
        assertThrows(.unsupportedCurve("secp384r1")) { try P256PrivateKey(pem: String(decoding: readFile(path), as: UTF8.self)) }
    }

    func testGarbagePEM() throws {
        assertThrows(.pemBlockNotFound(expected: ["PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY"])) { try P256PrivateKey(pem: "hello") }
        assertThrows(.pemBlockNotFound(expected: ["PUBLIC KEY"])) { try P256PublicKey(pem: P256PrivateKey.generate().pemPKCS8) }
        let broken = "-----BEGIN PRIVATE KEY-----\nAAAAAAAA\n-----END PRIVATE KEY-----\n"
        assertThrows(matching: { if case .keyDecodingFailed = $0 { return true }; return false }) { try P256PrivateKey(pem: broken) }
    }

    func testRawScalarOutOfRange() {
        assertThrows(matching: { if case .keyDecodingFailed = $0 { return true }; return false }) {
            try P256PrivateKey(rawPrivateScalar: [UInt8](repeating: 0, count: 32))
        }
        assertThrows(matching: { if case .keyDecodingFailed = $0 { return true }; return false }) {
            try P256PrivateKey(rawPrivateScalar: [UInt8](repeating: 0xFF, count: 32))
        }
    }

    func testECDSASignatureConversion() throws {
        // RFC 7515 A.3's r and s (DER has a 0x00 before s because its top bit is set).
        let raw = b64("DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q")
        let der = ECDSASignature.derFromRaw(raw)
        XCTAssertEqual(der.count, 71)
        XCTAssertEqual(Array(der[0..<4]), [0x30, 0x45, 0x02, 0x20])
        XCTAssertEqual(try ECDSASignature.rawFromDER(der), raw)
        // Small values are left-padded back to 32 bytes.
        let small = [UInt8](repeating: 0, count: 31) + [5] + [UInt8](repeating: 0, count: 31) + [7]
        XCTAssertEqual(ECDSASignature.derFromRaw(small), [0x30, 0x06, 0x02, 0x01, 0x05, 0x02, 0x01, 0x07])
        XCTAssertEqual(try ECDSASignature.rawFromDER(ECDSASignature.derFromRaw(small)), small)
        assertThrows(matching: { if case .keyDecodingFailed = $0 { return true }; return false }) {
            try ECDSASignature.rawFromDER(Array(der.dropLast()))
        }
    }
}
