import COpenSSL

/// Cryptographically random bytes from OpenSSL's `RAND_bytes`: keys' ids, certificate
/// serial numbers, Web Push salts and secrets.
public enum SecureRandom {
    /// `n` random bytes.
    public static func bytes(_ n: Int) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: n)
        guard RAND_bytes(&out, Int32(n)) == 1 else { throw OpenSSL.failure("RAND_bytes") }
        return out
    }
}
