import Foundation
import COpenSSL

/// One-shot SHA-256 digest sign/verify with a fresh `EVP_MD_CTX` per call (so one key can
/// be used from many threads at once).
enum Signer {
    static func digestSign<Bytes: ContiguousBytes>(key: EVPKey, data: Bytes) throws(CryptoError) -> [UInt8] {
        guard let ctx = EVP_MD_CTX_new() else { throw OpenSSL.failure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestSignInit(ctx, nil, EVP_sha256(), nil, key.pointer) == 1 else {
            throw OpenSSL.failure("EVP_DigestSignInit")
        }
        var len = 0
        let ok: Bool = data.withUnsafeBytes { raw in
            let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return EVP_DigestSign(ctx, nil, &len, base, raw.count) == 1
        }
        guard ok else { throw OpenSSL.failure("EVP_DigestSign(size)") }
        var sig = [UInt8](repeating: 0, count: len)
        let ok2: Bool = data.withUnsafeBytes { raw in
            let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return EVP_DigestSign(ctx, &sig, &len, base, raw.count) == 1
        }
        guard ok2 else { throw OpenSSL.failure("EVP_DigestSign") }
        sig.removeSubrange(len...)
        return sig
    }

    static func digestVerify<Bytes: ContiguousBytes>(key: EVPKey, signature: [UInt8], data: Bytes) throws(CryptoError) {
        guard let ctx = EVP_MD_CTX_new() else { throw OpenSSL.failure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, EVP_sha256(), nil, key.pointer) == 1 else {
            throw OpenSSL.failure("EVP_DigestVerifyInit")
        }
        let rc: Int32 = data.withUnsafeBytes { raw in
            let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return EVP_DigestVerify(ctx, signature, signature.count, base, raw.count)
        }
        guard rc == 1 else {
            _ = OpenSSL.drainErrors()
            throw .signatureInvalid
        }
    }
}

/// Converts ECDSA P-256 signatures between DER (`SEQUENCE { INTEGER r, INTEGER s }`, what
/// OpenSSL and `openssl dgst` use) and JOSE's raw `r‖s` (64 bytes, RFC 7518 §3.4).
public enum ECDSASignature {
    /// DER → raw 64 bytes. Rejects anything but a minimal two-INTEGER SEQUENCE with values ≤ 32 bytes.
    public static func rawFromDER(_ der: [UInt8]) throws(CryptoError) -> [UInt8] {
        func bad(_ why: String) -> CryptoError { .keyDecodingFailed(format: "DER ECDSA signature", detail: why) }
        guard der.count >= 8, der[0] == 0x30 else { throw bad("not a SEQUENCE") }
        var i = 1
        var total = Int(der[i]); i += 1
        if total == 0x81 { guard der.count > 2 else { throw bad("short") }; total = Int(der[i]); i += 1 }
        guard total == der.count - i else { throw bad("length \(total) does not match \(der.count - i)") }
        var out = [UInt8]()
        out.reserveCapacity(64)
        for name in ["r", "s"] {
            guard i + 2 <= der.count, der[i] == 0x02 else { throw bad("\(name) is not an INTEGER") }
            let len = Int(der[i + 1]); i += 2
            guard len >= 1, i + len <= der.count else { throw bad("\(name) length \(len) out of range") }
            var v = Array(der[i..<(i + len)]); i += len
            guard v[0] & 0x80 == 0 else { throw bad("\(name) is negative") }
            while v.count > 1, v[0] == 0 { v.removeFirst() }
            guard v.count <= 32 else { throw bad("\(name) longer than 32 bytes") }
            out += [UInt8](repeating: 0, count: 32 - v.count) + v
        }
        guard i == der.count else { throw bad("trailing bytes") }
        return out
    }

    /// Raw `r‖s` (64 bytes) → DER. The caller checks the length.
    public static func derFromRaw(_ raw: [UInt8]) -> [UInt8] {
        func integer(_ v: ArraySlice<UInt8>) -> [UInt8] {
            var bytes = Array(v.drop { $0 == 0 })
            if bytes.isEmpty { bytes = [0] }
            if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
            return [0x02, UInt8(bytes.count)] + bytes
        }
        let half = raw.count / 2
        let body = integer(raw[0..<half]) + integer(raw[half...])
        return [0x30, UInt8(body.count)] + body
    }
}
