import COpenSSL

/// Internal helpers around the OpenSSL C API: error-queue draining, memory BIOs, and the
/// owning box for `EVP_PKEY`.
enum OpenSSL {
    /// Drains this thread's OpenSSL error queue into one line of text. Always called after a
    /// failed call so that no stale error is left for the TLS code on the same thread
    /// (SSL_get_error reads that queue).
    static func drainErrors() -> String {
        var parts: [String] = []
        var buf = [CChar](repeating: 0, count: 256)
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            ERR_error_string_n(code, &buf, buf.count)
            parts.append(String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return parts.isEmpty ? "no detail" : parts.joined(separator: "; ")
    }

    static func failure(_ operation: String) -> CryptoError {
        .openSSL(operation: operation, detail: drainErrors())
    }

    /// Runs `body` with a read-only memory BIO over `bytes`.
    static func withReadBIO<R>(_ bytes: [UInt8], _ body: (OpaquePointer) throws(CryptoError) -> R) throws(CryptoError) -> R {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(CryptoError) -> R in
                guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { throw failure("BIO_new_mem_buf") }
                defer { BIO_free(bio) }
                return try body(bio)
            }
        }
        return try result.get()
    }

    /// Runs `body` with a writable memory BIO and returns what it wrote.
    static func collectBIO(_ operation: String, _ body: (OpaquePointer) -> Int32) throws(CryptoError) -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { throw failure("BIO_new") }
        defer { BIO_free(bio) }
        guard body(bio) == 1 else { throw failure(operation) }
        var ptr: UnsafeMutablePointer<CChar>? = nil
        let len = pd_BIO_get_mem_data(bio, &ptr)
        guard let ptr, len > 0 else { return [] }
        return ptr.withMemoryRebound(to: UInt8.self, capacity: len) { Array(UnsafeBufferPointer(start: $0, count: len)) }
    }

    /// PEM text as bytes, for a read BIO.
    static func pemBytes(_ pem: String) -> [UInt8] { Array(pem.utf8) }
}

/// Owns one `EVP_PKEY` and frees it on deinit.
///
/// Thread safety: the key is never mutated after construction; OpenSSL 3 allows concurrent
/// sign/verify/derive operations on one `EVP_PKEY` as long as each operation has its own
/// `EVP_MD_CTX`/`EVP_PKEY_CTX` (as every function in this module does). Hence `@unchecked Sendable`.
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    /// The key's type as this module classifies it.
    var keyType: CryptoError.KeyType {
        if EVP_PKEY_is_a(pointer, "EC") == 1 {
            var name = [CChar](repeating: 0, count: 64)
            var len = 0
            if EVP_PKEY_get_group_name(pointer, &name, name.count, &len) == 1 {
                let curve = String(decoding: name.prefix(len).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if curve == "prime256v1" || curve == "P-256" || curve == "secp256r1" { return .p256 }
            } else {
                _ = OpenSSL.drainErrors()
            }
            return .ecOtherCurve
        }
        if EVP_PKEY_is_a(pointer, "RSA") == 1 { return .rsa }
        return .other
    }

    /// Loads a private key from PEM (PKCS#8 `PRIVATE KEY`, SEC1 `EC PRIVATE KEY`, PKCS#1 `RSA PRIVATE KEY`).
    static func privateKey(pem: String) throws(CryptoError) -> EVPKey {
        let labels = ["PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY"]
        guard labels.contains(where: { pem.contains("-----BEGIN \($0)-----") }) else {
            throw .pemBlockNotFound(expected: labels)
        }
        return try OpenSSL.withReadBIO(OpenSSL.pemBytes(pem)) { (bio) throws(CryptoError) -> EVPKey in
            guard let k = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else {
                throw .keyDecodingFailed(format: "PEM private key", detail: OpenSSL.drainErrors())
            }
            return EVPKey(taking: k)
        }
    }

    /// Loads a public key from a PEM `PUBLIC KEY` (SubjectPublicKeyInfo) block.
    static func publicKey(pem: String) throws(CryptoError) -> EVPKey {
        guard pem.contains("-----BEGIN PUBLIC KEY-----") else { throw .pemBlockNotFound(expected: ["PUBLIC KEY"]) }
        return try OpenSSL.withReadBIO(OpenSSL.pemBytes(pem)) { (bio) throws(CryptoError) -> EVPKey in
            guard let k = PEM_read_bio_PUBKEY(bio, nil, nil, nil) else {
                throw .keyDecodingFailed(format: "PEM public key", detail: OpenSSL.drainErrors())
            }
            return EVPKey(taking: k)
        }
    }

    /// Loads a public key from SubjectPublicKeyInfo DER.
    static func publicKey(der: [UInt8]) throws(CryptoError) -> EVPKey {
        try der.withUnsafeBufferPointer { (buf) throws(CryptoError) -> EVPKey in
            var p: UnsafePointer<UInt8>? = buf.baseAddress
            guard let k = d2i_PUBKEY(nil, &p, buf.count) else {
                throw .keyDecodingFailed(format: "SubjectPublicKeyInfo DER", detail: OpenSSL.drainErrors())
            }
            return EVPKey(taking: k)
        }
    }

    /// PKCS#8 `PRIVATE KEY` PEM.
    func privatePKCS8PEM() throws(CryptoError) -> String {
        let bytes = try OpenSSL.collectBIO("PEM_write_bio_PrivateKey") { bio in
            PEM_write_bio_PrivateKey(bio, pointer, nil, nil, 0, nil, nil)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Traditional (SEC1 `EC PRIVATE KEY` / PKCS#1 `RSA PRIVATE KEY`) PEM.
    func privateTraditionalPEM() throws(CryptoError) -> String {
        let bytes = try OpenSSL.collectBIO("PEM_write_bio_PrivateKey_traditional") { bio in
            PEM_write_bio_PrivateKey_traditional(bio, pointer, nil, nil, 0, nil, nil)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// SubjectPublicKeyInfo `PUBLIC KEY` PEM.
    func publicPEM() throws(CryptoError) -> String {
        let bytes = try OpenSSL.collectBIO("PEM_write_bio_PUBKEY") { bio in PEM_write_bio_PUBKEY(bio, pointer) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// SubjectPublicKeyInfo DER.
    func publicDER() throws(CryptoError) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let n = i2d_PUBKEY(pointer, &out)
        guard n > 0, let out else { throw OpenSSL.failure("i2d_PUBKEY") }
        defer { pd_OPENSSL_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(n)))
    }

    /// A new key holding only the public half of this one.
    func publicOnly() throws(CryptoError) -> EVPKey {
        try EVPKey.publicKey(der: publicDER())
    }
}
