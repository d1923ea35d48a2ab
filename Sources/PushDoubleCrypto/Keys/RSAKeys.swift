import Foundation
import COpenSSL

/// An RSA private key: loads PKCS#8 / PKCS#1 PEM (a Google service account's `private_key`),
/// generates, exports and signs RS256 (RSASSA-PKCS1-v1_5 with SHA-256).
///
/// Value type over an immutable OpenSSL key; safe to share across threads.
public struct RSAPrivateKey: Sendable {
    let key: EVPKey

    init(key: EVPKey) { self.key = key }

    /// Loads a PEM private key (`PRIVATE KEY` or `RSA PRIVATE KEY`); an EC key throws `wrongKeyType`.
    public init(pem: String) throws(CryptoError) {
        self.key = try EVPKey.privateKey(pem: pem).requiringRSA()
    }

    /// Generates a fresh key (2048 bits unless told otherwise).
    public static func generate(bits: Int = 2048) throws(CryptoError) -> RSAPrivateKey {
        guard bits >= 1024, bits <= 16384, let k = pd_EVP_PKEY_generate_rsa(UInt32(bits)) else {
            throw OpenSSL.failure("EVP_PKEY_Q_keygen(RSA \(bits))")
        }
        return RSAPrivateKey(key: EVPKey(taking: k))
    }

    /// PKCS#8 `-----BEGIN PRIVATE KEY-----` PEM, as Google service-account files carry it.
    public var pem: String { get throws(CryptoError) { try key.privatePKCS8PEM() } }

    /// Modulus size in bits.
    public var bits: Int { Int(EVP_PKEY_get_bits(key.pointer)) }

    /// The matching public key.
    public var publicKey: RSAPublicKey { get throws(CryptoError) { RSAPublicKey(key: try key.publicOnly()) } }

    /// RS256 signature over `data` (RSASSA-PKCS1-v1_5, SHA-256); as long as the modulus.
    public func signature<Bytes: ContiguousBytes>(for data: Bytes) throws(CryptoError) -> [UInt8] {
        try Signer.digestSign(key: key, data: data)
    }
}

/// An RSA public key: loads SubjectPublicKeyInfo PEM and verifies RS256 signatures.
///
/// Value type over an immutable OpenSSL key; safe to share across threads.
public struct RSAPublicKey: Sendable {
    let key: EVPKey

    init(key: EVPKey) { self.key = key }

    /// Loads a `-----BEGIN PUBLIC KEY-----` PEM; an EC key throws `wrongKeyType`.
    public init(pem: String) throws(CryptoError) {
        self.key = try EVPKey.publicKey(pem: pem).requiringRSA()
    }

    /// `-----BEGIN PUBLIC KEY-----` PEM.
    public var pem: String { get throws(CryptoError) { try key.publicPEM() } }

    /// Modulus size in bits.
    public var bits: Int { Int(EVP_PKEY_get_bits(key.pointer)) }

    /// Verifies an RS256 signature over `data`. Throws `signatureLength` when the signature is
    /// not exactly the modulus size, `signatureInvalid` otherwise.
    public func verify<Bytes: ContiguousBytes>(signature: [UInt8], for data: Bytes) throws(CryptoError) {
        let expected = (bits + 7) / 8
        guard signature.count == expected else { throw .signatureLength(expected: expected, actual: signature.count) }
        try Signer.digestVerify(key: key, signature: signature, data: data)
    }
}

extension EVPKey {
    /// This key if it is an RSA key, else `wrongKeyType` naming what it is.
    fileprivate func requiringRSA() throws(CryptoError) -> EVPKey {
        let t = keyType
        guard t == .rsa else { throw .wrongKeyType(expected: .rsa, actual: t) }
        return self
    }
}
