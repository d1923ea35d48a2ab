import XCTest
import PushDoubleTestSupport
@testable import PushDoubleCrypto

/// Signatures, keys and ECDH checked against the `openssl` CLI in both directions.
final class OpenSSLCrossCheckTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "openssl") }

    func testES256SignedHereVerifiesWithOpenSSL() throws {
        let dir = try temporaryDirectory(self)
        let key = try P256PrivateKey.generate()
        let token = try JWT.signES256(keyID: "PDTESTKEY1", claims: ["iss": "PDTESTTEAM", "iat": 1_700_000_000], key: key)
        let jwt = try JWT.parse(token)
        let pub = try writeFile(dir, "pub.pem", key.publicKey.pem)
        let data = try writeFile(dir, "input", jwt.signingInput)
        let sig = try writeFile(dir, "sig.der", ECDSASignature.derFromRaw(jwt.signature))
        let out = try openssl(["dgst", "-sha256", "-verify", pub, "-signature", sig, data])
        XCTAssertEqual(out.trimmingCharacters(in: .whitespacesAndNewlines), "Verified OK")
        // And a flipped byte is refused by openssl too (the check can fail).
        var bad = jwt.signature
        bad[5] ^= 1
        let badSig = try writeFile(dir, "bad.der", ECDSASignature.derFromRaw(bad))
        XCTAssertNotEqual(try runOpenSSL(["dgst", "-sha256", "-verify", pub, "-signature", badSig, data]).status, 0)
    }

    func testES256SignedByOpenSSLVerifiesHere() throws {
        let dir = try temporaryDirectory(self)
        let keyPath = dir.appendingPathComponent("k.pem").path
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", keyPath])
        let pub = try P256PublicKey(pem: try openssl(["pkey", "-in", keyPath, "-pubout"]))
        let signingInput = Base64URL.encode(Array(#"{"alg":"ES256","kid":"X"}"#.utf8)) + "." + Base64URL.encode(Array(#"{"iss":"T","iat":1}"#.utf8))
        let data = try writeFile(dir, "input", signingInput)
        let sigPath = dir.appendingPathComponent("sig.der").path
        try openssl(["dgst", "-sha256", "-sign", keyPath, "-out", sigPath, data])
        let der = try readFile(sigPath)
        try pub.verify(derSignature: der, for: Array(signingInput.utf8))
        let raw = try ECDSASignature.rawFromDER(der)
        let jwt = try JWT.parse(signingInput + "." + Base64URL.encode(raw))
        try jwt.verify(with: pub)
        // The key file itself loads here and matches.
        XCTAssertEqual(try P256PrivateKey(pem: String(decoding: readFile(keyPath), as: UTF8.self)).publicKey, pub)
    }

    func testRS256SignedHereVerifiesWithOpenSSL() throws {
        let dir = try temporaryDirectory(self)
        let key = try RSAPrivateKey.generate(bits: 2048)
        let jwt = try JWT.parse(JWT.signRS256(keyID: "k", claims: ["iss": "a@b", "scope": "s"], key: key))
        let pub = try writeFile(dir, "pub.pem", key.publicKey.pem)
        let data = try writeFile(dir, "input", jwt.signingInput)
        let sig = try writeFile(dir, "sig.bin", jwt.signature)
        let out = try openssl(["dgst", "-sha256", "-verify", pub, "-signature", sig, data])
        XCTAssertEqual(out.trimmingCharacters(in: .whitespacesAndNewlines), "Verified OK")
    }

    func testRS256SignedByOpenSSLVerifiesHere() throws {
        let dir = try temporaryDirectory(self)
        let keyPath = dir.appendingPathComponent("rsa.pem").path
        try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", keyPath])
        let signingInput = Base64URL.encode(Array(#"{"alg":"RS256","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode(Array(#"{"iss":"x"}"#.utf8))
        let data = try writeFile(dir, "input", signingInput)
        let sigPath = dir.appendingPathComponent("sig.bin").path
        try openssl(["dgst", "-sha256", "-sign", keyPath, "-out", sigPath, data])
        let pub = try RSAPublicKey(pem: try openssl(["pkey", "-in", keyPath, "-pubout"]))
        let jwt = try JWT.parse(signingInput + "." + Base64URL.encode(readFile(sigPath)))
        try jwt.verify(with: pub)
        // The private key file loads here, and our signature over the same input is identical
        // (RSASSA-PKCS1-v1_5 is deterministic).
        let key = try RSAPrivateKey(pem: String(decoding: readFile(keyPath), as: UTF8.self))
        XCTAssertEqual(try key.signature(for: Array(signingInput.utf8)), try readFile(sigPath))
    }

    func testECDHMatchesOpenSSLDerive() throws {
        let dir = try temporaryDirectory(self)
        let a = try P256PrivateKey.generate(), b = try P256PrivateKey.generate()
        let aPath = try writeFile(dir, "a.pem", a.pemPKCS8)
        let bPub = try writeFile(dir, "b.pub.pem", b.publicKey.pem)
        let outPath = dir.appendingPathComponent("secret").path
        try openssl(["pkeyutl", "-derive", "-inkey", aPath, "-peerkey", bPub, "-out", outPath])
        XCTAssertEqual(try a.sharedSecret(with: b.publicKey), try readFile(outPath))
        XCTAssertEqual(try b.sharedSecret(with: a.publicKey), try readFile(outPath))
    }
}
