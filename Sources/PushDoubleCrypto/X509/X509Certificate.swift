import COpenSSL
import Foundation

/// Owns one `X509` and frees it on deinit.
///
/// Thread safety: certificates are never modified after they are signed (or parsed), and
/// OpenSSL only reads them afterwards (printing, verifying), so sharing is safe.
final class X509Box: @unchecked Sendable {
    let pointer: OpaquePointer
    init(taking p: OpaquePointer) { pointer = p }
    deinit { X509_free(pointer) }
}

/// An X.509 certificate: PEM/DER in and out, and the fields the fakes and tests read
/// (subject CN, SANs, validity, CA flag, SHA-256 fingerprint).
public struct X509Certificate: Sendable {
    let box: X509Box

    init(box: X509Box) { self.box = box }

    /// Parses the first `CERTIFICATE` block of a PEM text.
    public init(pem: String) throws(CryptoError) {
        guard pem.contains("-----BEGIN CERTIFICATE-----") else { throw .pemBlockNotFound(expected: ["CERTIFICATE"]) }
        let x = try OpenSSL.withReadBIO(OpenSSL.pemBytes(pem)) { (bio) throws(CryptoError) -> OpaquePointer in
            guard let x = PEM_read_bio_X509(bio, nil, nil, nil) else {
                throw .keyDecodingFailed(format: "PEM certificate", detail: OpenSSL.drainErrors())
            }
            return x
        }
        box = X509Box(taking: x)
    }

    /// `-----BEGIN CERTIFICATE-----` PEM.
    public var pem: String {
        get throws(CryptoError) {
            String(decoding: try OpenSSL.collectBIO("PEM_write_bio_X509") { PEM_write_bio_X509($0, box.pointer) }, as: UTF8.self)
        }
    }

    /// DER encoding.
    public var der: [UInt8] {
        get throws(CryptoError) {
            var out: UnsafeMutablePointer<UInt8>? = nil
            let n = i2d_X509(box.pointer, &out)
            guard n > 0, let out else { throw OpenSSL.failure("i2d_X509") }
            defer { pd_OPENSSL_free(out) }
            return Array(UnsafeBufferPointer(start: out, count: Int(n)))
        }
    }

    /// The subject's commonName, if any.
    public var subjectCommonName: String? { Self.commonName(X509_get_subject_name(box.pointer)) }
    /// The issuer's commonName, if any.
    public var issuerCommonName: String? { Self.commonName(X509_get_issuer_name(box.pointer)) }

    /// DNS names in the subjectAltName extension.
    public var dnsNames: [String] { subjectAltNames().dns }
    /// IP addresses in the subjectAltName extension, in text form (`127.0.0.1`, `::1`).
    public var ipAddresses: [String] { subjectAltNames().ip }

    /// Start of validity.
    public var notBefore: Date? { Self.date(X509_get0_notBefore(box.pointer)) }
    /// End of validity.
    public var notAfter: Date? { Self.date(X509_get0_notAfter(box.pointer)) }

    /// True if basicConstraints says CA:TRUE.
    public var isCertificateAuthority: Bool { X509_check_ca(box.pointer) >= 1 }

    /// SHA-256 over the DER encoding, lowercase hex.
    public var sha256Fingerprint: String {
        var md = [UInt8](repeating: 0, count: 32)
        var len: UInt32 = 32
        guard X509_digest(box.pointer, EVP_sha256(), &md, &len) == 1 else { _ = OpenSSL.drainErrors(); return "" }
        return md.prefix(Int(len)).lowercaseHex
    }

    /// The certified P-256 public key (throws `wrongKeyType` for other key types).
    public var p256PublicKey: P256PublicKey {
        get throws(CryptoError) {
            guard let k = X509_get_pubkey(box.pointer) else { throw OpenSSL.failure("X509_get_pubkey") }
            let key = EVPKey(taking: k)
            try P256PrivateKey.requireP256(key)
            return try P256PublicKey(key: key)
        }
    }

    /// True if `issuer`'s key verifies this certificate's signature (no path or time checks).
    public func isSigned(by issuer: X509Certificate) -> Bool {
        guard let k = X509_get0_pubkey(issuer.box.pointer) else { _ = OpenSSL.drainErrors(); return false }
        let ok = X509_verify(box.pointer, k) == 1
        if !ok { _ = OpenSSL.drainErrors() }
        return ok
    }

    private func subjectAltNames() -> (dns: [String], ip: [String]) {
        guard let raw = X509_get_ext_d2i(box.pointer, NID_subject_alt_name, nil, nil) else { return ([], []) }
        let names = OpaquePointer(raw)
        defer { pd_GENERAL_NAMES_free(names) }
        var dns: [String] = [], ip: [String] = []
        for i in 0..<pd_sk_GENERAL_NAME_num(names) {
            guard let gen = pd_sk_GENERAL_NAME_value(names, i) else { continue }
            var type: Int32 = 0
            guard let value = GENERAL_NAME_get0_value(gen, &type) else { continue }
            let str = UnsafePointer(value.assumingMemoryBound(to: ASN1_STRING.self))
            let bytes = Array(UnsafeBufferPointer(start: ASN1_STRING_get0_data(str), count: Int(ASN1_STRING_length(str))))
            switch type {
            case GEN_DNS: dns.append(String(decoding: bytes, as: UTF8.self))
            case GEN_IPADD: ip.append(Self.ipText(bytes))
            default: break
            }
        }
        return (dns, ip)
    }

    static func ipText(_ b: [UInt8]) -> String {
        if b.count == 4 { return b.map(String.init).joined(separator: ".") }
        guard b.count == 16 else { return b.lowercaseHex }
        var buf = [CChar](repeating: 0, count: 64)
        let ok = b.withUnsafeBytes { src in inet_ntop(AF_INET6, src.baseAddress, &buf, 64) != nil }
        return ok ? String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    }

    static func commonName(_ name: OpaquePointer?) -> String? {
        guard let name else { return nil }
        let idx = X509_NAME_get_index_by_NID(name, NID_commonName, -1)
        guard idx >= 0, let entry = X509_NAME_get_entry(name, idx), let data = X509_NAME_ENTRY_get_data(entry) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: ASN1_STRING_get0_data(data), count: Int(ASN1_STRING_length(data))), as: UTF8.self)
    }

    static func date(_ t: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let t else { return nil }
        var tm = tm()
        guard ASN1_TIME_to_tm(t, &tm) == 1 else { _ = OpenSSL.drainErrors(); return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&tm)))
    }
}
