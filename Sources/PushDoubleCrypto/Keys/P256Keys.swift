import Foundation
import COpenSSL

/// A NIST P-256 (secp256r1) private key: loads Apple `.p8` (PKCS#8) and SEC1 PEM, generates,
/// exports, signs ES256 and derives ECDH secrets.
///
/// Value type over an immutable OpenSSL key; safe to share across threads.
public struct P256PrivateKey: Sendable {
    let key: EVPKey

    init(key: EVPKey) { self.key = key }

    /// Loads a PEM private key: PKCS#8 `PRIVATE KEY` (an APNs `.p8` file) or SEC1 `EC PRIVATE KEY`.
    /// Throws `wrongKeyType` for an RSA key and `unsupportedCurve` for another EC curve.
    public init(pem: String) throws(CryptoError) {
        let k = try EVPKey.privateKey(pem: pem)
        try P256PrivateKey.requireP256(k)
        self.key = k
    }

    /// Builds a key from its 32-byte big-endian private scalar (as in JWK `d` or RFC 8291's vectors).
    public init(rawPrivateScalar d: [UInt8]) throws(CryptoError) {
        guard d.count == 32 else { throw .invalidKeyLength(what: "P-256 private scalar", expected: 32, actual: d.count) }
        guard d.contains(where: { $0 != 0 }), d.lexicographicallyPrecedes(P256.order) else {
            throw .keyDecodingFailed(format: "P-256 private scalar", detail: "scalar is zero or not below the group order")
        }
        // SEC1 ECPrivateKey DER without the public key; OpenSSL computes the point on load.
        let bare: [UInt8] = [0x30, 0x31, 0x02, 0x01, 0x01, 0x04, 0x20] + d + [0xA0, 0x0A] + P256.curveOID
        let partial = try P256PrivateKey.decodeSEC1(bare)
        // Re-encode with the public key so that PEM exports are complete SEC1/PKCS#8 keys.
        let point = try P256PublicKey.rawPoint(of: partial)
        let full: [UInt8] = [0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20] + d + [0xA0, 0x0A] + P256.curveOID
            + [0xA1, 0x44, 0x03, 0x42, 0x00] + point
        self.key = try P256PrivateKey.decodeSEC1(full)
    }

    /// Generates a fresh random key.
    public static func generate() throws(CryptoError) -> P256PrivateKey {
        guard let k = pd_EVP_PKEY_generate_p256() else { throw OpenSSL.failure("EVP_PKEY_Q_keygen(EC P-256)") }
        return P256PrivateKey(key: EVPKey(taking: k))
    }

    /// PKCS#8 `-----BEGIN PRIVATE KEY-----` PEM, the format of Apple's `.p8` files.
    public var pemPKCS8: String { get throws(CryptoError) { try key.privatePKCS8PEM() } }

    /// SEC1 `-----BEGIN EC PRIVATE KEY-----` PEM.
    public var pemSEC1: String { get throws(CryptoError) { try key.privateTraditionalPEM() } }

    /// The 32-byte big-endian private scalar.
    public var rawPrivateScalar: [UInt8] {
        get throws(CryptoError) {
            var bn: OpaquePointer? = nil
            guard EVP_PKEY_get_bn_param(key.pointer, OSSL_PKEY_PARAM_PRIV_KEY, &bn) == 1, let bn else {
                throw OpenSSL.failure("EVP_PKEY_get_bn_param(priv)")
            }
            defer { BN_clear_free(bn) }
            var out = [UInt8](repeating: 0, count: 32)
            guard BN_bn2binpad(bn, &out, 32) == 32 else { throw OpenSSL.failure("BN_bn2binpad") }
            return out
        }
    }

    /// The matching public key.
    public var publicKey: P256PublicKey {
        get throws(CryptoError) { try P256PublicKey(rawRepresentation: P256PublicKey.rawPoint(of: key)) }
    }

    /// ES256 signature over `data`: ECDSA P-256 with SHA-256, returned in JOSE form (raw `r‖s`, 64 bytes).
    public func signature<Bytes: ContiguousBytes>(for data: Bytes) throws(CryptoError) -> [UInt8] {
        let der = try Signer.digestSign(key: key, data: data)
        return try ECDSASignature.rawFromDER(der)
    }

    /// ECDH: the 32-byte shared secret (the x coordinate) with a peer's public key.
    public func sharedSecret(with peer: P256PublicKey) throws(CryptoError) -> [UInt8] {
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else { throw OpenSSL.failure("EVP_PKEY_CTX_new") }
        defer { EVP_PKEY_CTX_free(ctx) }
        // No second validation of the peer (EVP_PKEY_derive_set_peer's full public-key check costs a
        // scalar multiplication, as much as the ECDH itself): a P256PublicKey was checked to be on
        // the curve when it was built, and P-256 has cofactor 1, so such a point has order n.
        guard EVP_PKEY_derive_init(ctx) == 1, EVP_PKEY_derive_set_peer_ex(ctx, peer.key.pointer, 0) == 1 else {
            throw OpenSSL.failure("EVP_PKEY_derive_init/set_peer")
        }
        var len = 32
        var out = [UInt8](repeating: 0, count: 32)
        guard EVP_PKEY_derive(ctx, &out, &len) == 1, len == 32 else { throw OpenSSL.failure("EVP_PKEY_derive") }
        return out
    }

    static func requireP256(_ k: EVPKey) throws(CryptoError) {
        switch k.keyType {
        case .p256: return
        case .ecOtherCurve:
            var name = [CChar](repeating: 0, count: 64)
            var len = 0
            _ = EVP_PKEY_get_group_name(k.pointer, &name, name.count, &len)
            _ = OpenSSL.drainErrors()
            throw .unsupportedCurve(String(decoding: name.prefix(len).map { UInt8(bitPattern: $0) }, as: UTF8.self))
        case let other: throw .wrongKeyType(expected: .p256, actual: other)
        }
    }

    private static func decodeSEC1(_ der: [UInt8]) throws(CryptoError) -> EVPKey {
        try der.withUnsafeBufferPointer { (buf) throws(CryptoError) -> EVPKey in
            var p: UnsafePointer<UInt8>? = buf.baseAddress
            guard let k = d2i_PrivateKey(EVP_PKEY_EC, nil, &p, buf.count) else {
                throw .keyDecodingFailed(format: "P-256 private scalar", detail: OpenSSL.drainErrors())
            }
            return EVPKey(taking: k)
        }
    }
}

/// A NIST P-256 public key: from SubjectPublicKeyInfo PEM or the 65-byte uncompressed point
/// (`0x04‖X‖Y`, as in Web Push `p256dh` and VAPID `k`); verifies ES256 signatures.
///
/// Value type over an immutable OpenSSL key; safe to share across threads. Reusing one value
/// for many verifications avoids re-parsing the key.
public struct P256PublicKey: Sendable, Equatable {
    let key: EVPKey
    /// The uncompressed point `0x04‖X‖Y` (65 bytes).
    public let rawRepresentation: [UInt8]

    init(key: EVPKey) throws(CryptoError) {
        self.key = key
        self.rawRepresentation = try P256PublicKey.rawPoint(of: key)
    }

    /// Loads a `-----BEGIN PUBLIC KEY-----` (SubjectPublicKeyInfo) PEM.
    public init(pem: String) throws(CryptoError) {
        let k = try EVPKey.publicKey(pem: pem)
        try P256PrivateKey.requireP256(k)
        try self.init(key: k)
    }

    /// Builds a key from the 65-byte uncompressed point; rejects other lengths
    /// (`invalidKeyLength`) and points not on the curve (`invalidPublicPoint`).
    public init(rawRepresentation point: [UInt8]) throws(CryptoError) {
        guard point.count == 65 else { throw .invalidKeyLength(what: "P-256 public point", expected: 65, actual: point.count) }
        guard point[0] == 0x04 else { throw .invalidPublicPoint(detail: "first byte 0x\(String(point[0], radix: 16)), expected 0x04 (uncompressed)") }
        // A copy of a template key given this point (C shim) instead of d2i_PUBKEY on the fixed
        // SPKI header or EVP_PKEY_fromdata: same checks (oct2point rejects points off the
        // curve), a fraction of the cost.
        guard let k = point.withUnsafeBufferPointer({ pd_EVP_PKEY_p256_public_from_point(P256.template, $0.baseAddress, $0.count) }) else {
            _ = OpenSSL.drainErrors()
            throw .invalidPublicPoint(detail: "not on the P-256 curve")
        }
        self.key = EVPKey(taking: k)
        self.rawRepresentation = point
    }

    /// `-----BEGIN PUBLIC KEY-----` PEM.
    public var pem: String { get throws(CryptoError) { try key.publicPEM() } }

    /// SubjectPublicKeyInfo DER (the 26-byte P-256 header followed by the point).
    public var derRepresentation: [UInt8] { P256.spkiHeader + rawRepresentation }

    /// Verifies an ES256 signature in JOSE form (raw `r‖s`, 64 bytes) over `data`.
    /// Throws `signatureLength` or `signatureInvalid`.
    public func verify<Bytes: ContiguousBytes>(signature raw: [UInt8], for data: Bytes) throws(CryptoError) {
        guard raw.count == 64 else { throw .signatureLength(expected: 64, actual: raw.count) }
        let der = ECDSASignature.derFromRaw(raw)
        try Signer.digestVerify(key: key, signature: der, data: data)
    }

    /// Verifies a DER-encoded ECDSA signature (as `openssl dgst -sign` writes it) over `data`.
    public func verify<Bytes: ContiguousBytes>(derSignature der: [UInt8], for data: Bytes) throws(CryptoError) {
        try Signer.digestVerify(key: key, signature: der, data: data)
    }

    public static func == (a: P256PublicKey, b: P256PublicKey) -> Bool { a.rawRepresentation == b.rawRepresentation }

    static func rawPoint(of key: EVPKey) throws(CryptoError) -> [UInt8] {
        // Fast path: the encoded point, when the key keeps it uncompressed (all keys made here).
        var encoded = [UInt8](repeating: 0, count: 65)
        var len = 0
        if EVP_PKEY_get_octet_string_param(key.pointer, OSSL_PKEY_PARAM_PUB_KEY, &encoded, 65, &len) == 1,
           len == 65, encoded[0] == 0x04 {
            return encoded
        }
        _ = OpenSSL.drainErrors()
        // Otherwise (e.g. a PEM carrying a compressed point) rebuild it from the coordinates.
        var out: [UInt8] = [0x04]
        out.reserveCapacity(65)
        for name in [OSSL_PKEY_PARAM_EC_PUB_X, OSSL_PKEY_PARAM_EC_PUB_Y] {
            var bn: OpaquePointer? = nil
            guard EVP_PKEY_get_bn_param(key.pointer, name, &bn) == 1, let bn else {
                throw OpenSSL.failure("EVP_PKEY_get_bn_param(pub x/y)")
            }
            defer { BN_free(bn) }
            var c = [UInt8](repeating: 0, count: 32)
            guard BN_bn2binpad(bn, &c, 32) == 32 else { throw OpenSSL.failure("BN_bn2binpad") }
            out += c
        }
        return out
    }
}

/// Fixed P-256 constants.
enum P256 {
    /// The key every public key is copied from (``P256PublicKey/init(rawRepresentation:)``):
    /// made once, never freed, only read (copied) afterwards.
    nonisolated(unsafe) static let template: OpaquePointer? = pd_EVP_PKEY_p256_template()
    /// `[0] { OID 1.2.840.10045.3.1.7 }` contents after the A0 0A tag/length.
    static let curveOID: [UInt8] = [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
    /// SubjectPublicKeyInfo DER up to the BIT STRING contents; append the 65-byte point.
    static let spkiHeader: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01,
        0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]
    /// The group order n.
    static let order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]
}
