import XCTest
@testable import PushDoubleCrypto

final class JWTTests: XCTestCase {
    // RFC 7515 Appendix A.3: the JWK (x, y, d) and the complete ES256 JWS.
    static let a3X = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"
    static let a3Y = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
    static let a3D = "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"
    static let a3Token = "eyJhbGciOiJFUzI1NiJ9"
        + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
        + ".DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"

    func a3PublicKey() throws -> P256PublicKey {
        try P256PublicKey(rawRepresentation: [0x04] + b64(Self.a3X) + b64(Self.a3Y))
    }

    func testRFC7515A3Verifies() throws {
        let jwt = try JWT.parse(Self.a3Token)
        XCTAssertEqual(jwt.algorithm, .es256)
        XCTAssertEqual(jwt.header, ["alg": "ES256"])
        XCTAssertEqual(jwt.issuer, "joe")
        XCTAssertEqual(jwt.expiresAt, 1_300_819_380)
        XCTAssertEqual(jwt.claims["http://example.com/is_root"], .bool(true))
        XCTAssertEqual(jwt.claimNames, ["iss", "exp", "http://example.com/is_root"])
        // The payload bytes keep the RFC's CRLFs.
        XCTAssertEqual(String(decoding: jwt.claimsJSON, as: UTF8.self),
                       "{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}")
        XCTAssertEqual(jwt.signature.count, 64)
        try jwt.verify(with: a3PublicKey())
    }

    func testRFC7515A3PrivateKeyMatchesPublicKey() throws {
        let priv = try P256PrivateKey(rawPrivateScalar: b64(Self.a3D))
        XCTAssertEqual(try priv.publicKey, try a3PublicKey())
        XCTAssertEqual(try priv.rawPrivateScalar, b64(Self.a3D))
        // Re-sign the A.3 claims with the RFC key: ECDSA is randomised, so check by verifying.
        let parsed = try JWT.parse(Self.a3Token)
        let sig = try priv.signature(for: parsed.signingInput)
        try a3PublicKey().verify(signature: sig, for: parsed.signingInput)
    }

    func testSignProducesAPNsShapedTokenInStableOrder() throws {
        let key = try P256PrivateKey.generate()
        let token = try JWT.signES256(keyID: "PDTESTKEY1", claims: ["iss": "PDTESTTEAM", "iat": 1_700_000_000], key: key)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(parts.count, 3)
        XCTAssertEqual(String(decoding: try Base64URL.decode(parts[0]), as: UTF8.self), #"{"alg":"ES256","kid":"PDTESTKEY1"}"#)
        XCTAssertEqual(String(decoding: try Base64URL.decode(parts[1]), as: UTF8.self), #"{"iss":"PDTESTTEAM","iat":1700000000}"#)
        let jwt = try JWT.parse(token)
        XCTAssertEqual(jwt.keyID, "PDTESTKEY1")
        XCTAssertEqual(jwt.issuer, "PDTESTTEAM")
        XCTAssertEqual(jwt.issuedAt, 1_700_000_000)
        XCTAssertEqual(jwt.claimNames, ["iss", "iat"])
        try jwt.verify(with: key.publicKey)
    }

    func testSignInsertsAlgWhenMissingAndRejectsMismatch() throws {
        let key = try P256PrivateKey.generate()
        let token = try JWT.sign(header: ["kid": "K"], claims: ["a": 1], key: .es256(key))
        XCTAssertEqual(try JWT.parse(token).headerJSON, Array(#"{"alg":"ES256","kid":"K"}"#.utf8))
        assertThrows(.jwtAlgorithmKeyMismatch(algorithm: "RS256", key: .p256)) {
            try JWT.sign(header: ["alg": "RS256"], claims: [:], key: .es256(key))
        }
    }

    func testRS256RoundTripWithGoogleShapedClaims() throws {
        let key = try RSAPrivateKey.generate(bits: 2048)
        let claims: JOSEObject = [
            "iss": "pushdouble-test@pushdouble-test.iam.gserviceaccount.com",
            "scope": "https://www.googleapis.com/auth/firebase.messaging",
            "aud": "https://oauth2.googleapis.com/token", "iat": 1_700_000_000, "exp": 1_700_003_600,
        ]
        let token = try JWT.signRS256(keyID: "abc", claims: claims, key: key)
        let jwt = try JWT.parse(token)
        XCTAssertEqual(jwt.algorithm, .rs256)
        XCTAssertEqual(jwt.header, ["alg": "RS256", "typ": "JWT", "kid": "abc"])
        XCTAssertEqual(jwt.scope, "https://www.googleapis.com/auth/firebase.messaging")
        XCTAssertEqual(jwt.audience, "https://oauth2.googleapis.com/token")
        XCTAssertEqual(jwt.audiences, ["https://oauth2.googleapis.com/token"])
        XCTAssertEqual(jwt.signature.count, 256)
        // '/' is not escaped in what we sign.
        XCTAssertTrue(String(decoding: jwt.claimsJSON, as: UTF8.self).contains("https://oauth2.googleapis.com/token"))
        try jwt.verify(with: key.publicKey)
    }

    // MARK: - bad input, one error case each

    func testSegmentCount() {
        assertThrows(.jwtSegmentCount(2)) { try JWT.parse("eyJhbGciOiJFUzI1NiJ9.e30") }
        assertThrows(.jwtSegmentCount(4)) { try JWT.parse("a.b.c.d") }
        assertThrows(.jwtSegmentCount(1)) { try JWT.parse("") }
    }

    func testTruncatedBase64URLSegment() {
        // Cut the header one character short: 19 characters = 4n+3 is fine, 4n+1 is impossible.
        let token = "eyJhbGciOiJFUzI1N." + Self.a3Token.split(separator: ".")[1] + ".AAAA"
        assertThrows(matching: { if case .jwtSegmentEncoding(.header, _) = $0 { return true }; return false }) {
            try JWT.parse(token)
        }
        assertThrows(matching: { if case .jwtSegmentEncoding(.signature, _) = $0 { return true }; return false }) {
            try JWT.parse(String(Self.a3Token.dropLast(2)) + "=")
        }
    }

    func testMalformedJSON() {
        let notJSON = Base64URL.encode(Array("{\"alg\":\"ES256\"".utf8))
        assertThrows(matching: { if case .jwtMalformedJSON(.header, _) = $0 { return true }; return false }) {
            try JWT.parse(notJSON + ".e30.AA")
        }
        let header = Base64URL.encode(Array(#"{"alg":"ES256"}"#.utf8))
        let array = Base64URL.encode(Array("[1]".utf8))
        assertThrows(.jwtMalformedJSON(segment: .claims, reason: "not a JSON object")) { try JWT.parse(header + "." + array + ".AA") }
        let dup = Base64URL.encode(Array(#"{"iss":"a","iss":"b"}"#.utf8))
        assertThrows(matching: { if case .jwtMalformedJSON(.claims, let r) = $0 { return r.contains("duplicate") }; return false }) {
            try JWT.parse(header + "." + dup + ".AA")
        }
    }

    func testAlgNoneAndUnexpectedAlg() {
        // RFC 7519 §6.1 unsecured JWT.
        assertThrows(.jwtAlgorithmNone) {
            try JWT.parse("eyJhbGciOiJub25lIn0.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.")
        }
        let hs = Base64URL.encode(Array(#"{"alg":"HS256"}"#.utf8))
        assertThrows(.jwtUnsupportedAlgorithm("HS256")) { try JWT.parse(hs + ".e30.AA") }
        let noAlg = Base64URL.encode(Array(#"{"kid":"x"}"#.utf8))
        assertThrows(.jwtMissingAlgorithm) { try JWT.parse(noAlg + ".e30.AA") }
    }

    func testTamperedSignature() throws {
        var parts = Self.a3Token.split(separator: ".").map(String.init)
        var sig = b64(parts[2])
        sig[10] ^= 0x01
        parts[2] = Base64URL.encode(sig)
        let jwt = try JWT.parse(parts.joined(separator: "."))
        assertThrows(.signatureInvalid) { try jwt.verify(with: self.a3PublicKey()) }
    }

    func testTamperedClaims() throws {
        var parts = Self.a3Token.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array(#"{"iss":"mallory","exp":1300819380}"#.utf8))
        let jwt = try JWT.parse(parts.joined(separator: "."))
        assertThrows(.signatureInvalid) { try jwt.verify(with: self.a3PublicKey()) }
    }

    func testSignatureLength() throws {
        let parts = Self.a3Token.split(separator: ".").map(String.init)
        let jwt = try JWT.parse(parts[0] + "." + parts[1] + "." + Base64URL.encode([UInt8](repeating: 1, count: 63)))
        assertThrows(.signatureLength(expected: 64, actual: 63)) { try jwt.verify(with: self.a3PublicKey()) }
    }

    func testWrongKeyType() throws {
        let rsa = try RSAPrivateKey.generate(bits: 2048)
        let es = try JWT.parse(Self.a3Token)
        assertThrows(.wrongKeyType(expected: .p256, actual: .rsa)) { try es.verify(with: rsa.publicKey) }
        let rsToken = try JWT.signRS256(keyID: nil, claims: ["a": 1], key: rsa)
        assertThrows(.wrongKeyType(expected: .rsa, actual: .p256)) { try JWT.parse(rsToken).verify(with: self.a3PublicKey()) }
    }

    func testVerifyManyWithOneKey() throws {
        // The APNs fake verifies many tokens with one cached key: make sure reuse works and is quick.
        let key = try P256PrivateKey.generate()
        let pub = try key.publicKey
        let tokens = try (0..<200).map { i in try JWT.signES256(keyID: "K", claims: ["iss": "T", "iat": .int(Int64(i))], key: key) }
        let start = Date()
        for t in tokens { try JWT.parse(t).verify(with: pub) }
        let perToken = Date().timeIntervalSince(start) / Double(tokens.count)
        print("ES256 parse+verify: \(Int(perToken * 1_000_000)) µs/token")
    }
}

extension JWTTests {
    /// `issuedAt` reads the NumericDate forms providers accept (digit string, fraction) as
    /// whole seconds, and nothing else (NumericDateClaimTests has the full table).
    func testIatFormsReadAsWholeSeconds() throws {
        let key = try P256PrivateKey.generate()
        let t1 = try JWT.signES256(keyID: "K", claims: ["iss": "T", "iat": "1700000000"], key: key)
        XCTAssertEqual(try JWT.parse(t1).issuedAt, 1_700_000_000)
        let t2 = try JWT.signES256(keyID: "K", claims: ["iss": "T", "iat": 1.5], key: key)
        XCTAssertEqual(try JWT.parse(t2).issuedAt, 1)
        let t4 = try JWT.signES256(keyID: "K", claims: ["iss": "T", "iat": "soon"], key: key)
        XCTAssertNil(try JWT.parse(t4).issuedAt)
        let t3 = try JWT.signES256(keyID: "K", claims: ["aud": ["a", "b"]], key: key)
        XCTAssertEqual(try JWT.parse(t3).audiences, ["a", "b"])
        XCTAssertNil(try JWT.parse(t3).audience)
    }

    func testParseFromBytes() throws {
        var bytes = Array(Self.a3Token.utf8)
        let jwt = try bytes.withUnsafeMutableBytes { try JWT.parse(bytes: UnsafeRawBufferPointer($0)) }
        try jwt.verify(with: a3PublicKey())
        bytes[3] = UInt8(ascii: "!")
        assertThrows(matching: { if case .jwtSegmentEncoding(.header, _) = $0 { return true }; return false }) {
            try bytes.withUnsafeBytes { try JWT.parse(bytes: $0) }
        }
    }

    func testConcurrentVerificationWithOneKey() throws {
        // One P256PublicKey shared by many threads, as the APNs fake's event loops do.
        let key = try P256PrivateKey.generate()
        let pub = try key.publicKey
        let tokens = try (0..<64).map { i in try JWT.signES256(keyID: "K", claims: ["iss": "T", "iat": .int(Int64(i))], key: key) }
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 256) { i in
            do {
                let jwt = try JWT.parse(tokens[i % tokens.count])
                try jwt.verify(with: pub)
                if i % 2 == 0 {
                    var sig = jwt.signature
                    sig[0] ^= 1
                    let bad = try JWT.parse(String(decoding: jwt.signingInput, as: UTF8.self) + "." + Base64URL.encode(sig))
                    do { try bad.verify(with: pub); failures.add("tampered token verified") } catch CryptoError.signatureInvalid {}
                }
            } catch { failures.add("\(error)") }
        }
        XCTAssertEqual(failures.list, [])
    }
}

/// Thread-safe failure collector for concurrent tests.
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ s: String) { lock.lock(); items.append(s); lock.unlock() }
    var list: [String] { lock.lock(); defer { lock.unlock() }; return items }
}

extension JWTTests {
    func testRandomMutationsNeverCrashOrVerify() throws {
        // Flip, drop and insert characters of a valid token: the result either fails to parse
        // with a CryptoError or fails verification; nothing traps and nothing else verifies.
        let pub = try a3PublicKey()
        let original = Array(Self.a3Token.utf8)
        let alphabet = Array("ABCxyz019-_.=+/ {}\"".utf8)
        var rng = SystemRandomNumberGenerator()
        var verified = 0
        for _ in 0..<500 {
            var t = original
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let i = Int.random(in: 0..<t.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: t[i] = alphabet.randomElement(using: &rng)!
                case 1: t.remove(at: i)
                default: t.insert(alphabet.randomElement(using: &rng)!, at: i)
                }
            }
            do {
                try JWT.parse(String(decoding: t, as: UTF8.self)).verify(with: pub)
                if t != original { verified += 1 }
            } catch {
                // Typed throws: the compiler guarantees this is a CryptoError.
                _ = error.description
            }
        }
        XCTAssertEqual(verified, 0)
    }
}
