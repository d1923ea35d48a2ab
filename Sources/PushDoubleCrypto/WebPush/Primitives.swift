import COpenSSL

/// HMAC-SHA-256 and HKDF-SHA-256 (RFC 5869), the key schedule of RFC 8188/8291.
public enum HKDF {
    /// SHA-256, fetched once (never freed: it lives as long as the process).
    nonisolated(unsafe) static let sha256: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)

    /// HMAC-SHA-256(key, data), 32 bytes (the C shim's `pd_hmac_sha256` with ``sha256``, not
    /// fetched by name on every call as the one-shot `HMAC()` does).
    public static func hmacSHA256(key: [UInt8], data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        // HMAC-SHA256 cannot fail for in-memory inputs; a failure would mean OpenSSL is
        // unusable, which `precondition` reports instead of returning a wrong key.
        let r = key.withUnsafeBufferPointer { k in
            data.withUnsafeBufferPointer { d in
                out.withUnsafeMutableBufferPointer { o in pd_hmac_sha256(sha256, k.baseAddress, k.count, d.baseAddress, d.count, o.baseAddress) }
            }
        }
        precondition(r == 1, "HMAC-SHA256 failed: \(OpenSSL.drainErrors())")
        return out
    }

    /// HKDF-Extract(salt, IKM) = HMAC(salt, IKM).
    public static func extract(salt: [UInt8], ikm: [UInt8]) -> [UInt8] { hmacSHA256(key: salt, data: ikm) }

    /// HKDF-Expand(PRK, info, L) for L ≤ 255·32.
    public static func expand(prk: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        precondition(length <= 255 * 32)
        var out: [UInt8] = []
        out.reserveCapacity(length)
        var t: [UInt8] = []
        var counter: UInt8 = 1
        while out.count < length {
            t = hmacSHA256(key: prk, data: t + info + [counter])
            out += t
            counter &+= 1
        }
        return Array(out.prefix(length))
    }

    /// HKDF(salt, IKM, info, L) = Expand(Extract(salt, IKM), info, L).
    public static func derive(salt: [UInt8], ikm: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        expand(prk: extract(salt: salt, ikm: ikm), info: info, length: length)
    }
}

/// AES-128-GCM with a 12-byte nonce and a 16-byte tag appended to the ciphertext.
///
/// One instance owns one `EVP_CIPHER_CTX` and is used by one thread for one message (the
/// content codings create one per call), so the many records of a message share it.
final class AES128GCM {
    private let ctx: OpaquePointer
    private let key: [UInt8]
    /// OpenSSL takes `int` lengths: one record is limited to 1 GiB here.
    static let maximumLength = 1 << 30

    init(key: [UInt8]) throws(CryptoError) {
        guard key.count == 16 else { throw .invalidKeyLength(what: "AES-128 key", expected: 16, actual: key.count) }
        guard let c = EVP_CIPHER_CTX_new() else { throw OpenSSL.failure("EVP_CIPHER_CTX_new") }
        self.ctx = c
        self.key = key
    }
    deinit { EVP_CIPHER_CTX_free(ctx) }

    /// Encrypts `plaintext`, returning ciphertext ‖ tag (16 bytes longer).
    func seal(nonce: [UInt8], plaintext: ArraySlice<UInt8>) throws(CryptoError) -> [UInt8] {
        guard plaintext.count <= AES128GCM.maximumLength else { throw .invalidArgument("record of \(plaintext.count) bytes") }
        guard EVP_EncryptInit_ex(ctx, EVP_aes_128_gcm(), nil, key, nonce) == 1 else { throw OpenSSL.failure("EVP_EncryptInit_ex") }
        var out = [UInt8](repeating: 0, count: plaintext.count + 16)
        var len: Int32 = 0
        var total = 0
        let ok = plaintext.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { o in
                if p.count > 0 {
                    guard EVP_EncryptUpdate(ctx, o.baseAddress, &len, p.baseAddress, Int32(p.count)) == 1 else { return false }
                    total = Int(len)
                }
                guard EVP_EncryptFinal_ex(ctx, o.baseAddress! + total, &len) == 1 else { return false }
                total += Int(len)
                return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, o.baseAddress! + total) == 1
            }
        }
        guard ok, total == plaintext.count else { throw OpenSSL.failure("AES-128-GCM encrypt") }
        return out
    }

    /// Decrypts ciphertext ‖ tag; returns nil when authentication fails.
    func open(nonce: [UInt8], sealed: ArraySlice<UInt8>) throws(CryptoError) -> [UInt8]? {
        guard sealed.count >= 16 else { return nil }
        guard sealed.count <= AES128GCM.maximumLength else { throw .invalidArgument("record of \(sealed.count) bytes") }
        guard EVP_DecryptInit_ex(ctx, EVP_aes_128_gcm(), nil, key, nonce) == 1 else { throw OpenSSL.failure("EVP_DecryptInit_ex") }
        let n = sealed.count - 16
        var out = [UInt8](repeating: 0, count: max(n, 1))
        var len: Int32 = 0
        let ok = sealed.withUnsafeBufferPointer { s -> Bool in
            out.withUnsafeMutableBufferPointer { o in
                if n > 0 {
                    guard EVP_DecryptUpdate(ctx, o.baseAddress, &len, s.baseAddress, Int32(n)) == 1 else { return false }
                }
                let tag = UnsafeMutableRawPointer(mutating: s.baseAddress! + n)
                guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, tag) == 1 else { return false }
                return EVP_DecryptFinal_ex(ctx, o.baseAddress! + Int(n > 0 ? len : 0), &len) == 1
            }
        }
        guard ok else {
            _ = OpenSSL.drainErrors()
            return nil
        }
        if n == 0 { return [] }
        return out
    }
}
