import COpenSSL
import Foundation

/// DER input, subject entries and extensions by OID: what a fake reads from a client
/// certificate (e.g. an APNs provider certificate's bundle id and environment extensions).
extension X509Certificate {
    /// Parses a DER-encoded certificate.
    public init(der: [UInt8]) throws(CryptoError) {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buf in
            var p: UnsafePointer<UInt8>? = buf.baseAddress
            return d2i_X509(nil, &p, buf.count)
        }
        guard let parsed else { throw .keyDecodingFailed(format: "DER certificate", detail: OpenSSL.drainErrors()) }
        self.init(box: X509Box(taking: parsed))
    }

    /// The first value of a subject entry by its OpenSSL short name (`UID`, `CN`, `OU`, `O`).
    public func subjectEntry(_ shortName: String) -> String? {
        let nid = OBJ_txt2nid(shortName)
        guard nid != NID_undef, let name = X509_get_subject_name(box.pointer) else { _ = OpenSSL.drainErrors(); return nil }
        let idx = X509_NAME_get_index_by_NID(name, nid, -1)
        guard idx >= 0, let entry = X509_NAME_get_entry(name, idx), let data = X509_NAME_ENTRY_get_data(entry) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: ASN1_STRING_get0_data(data), count: Int(ASN1_STRING_length(data))), as: UTF8.self)
    }

    /// The subject as one line, RFC 2253 style (`UID=…,CN=…,O=…`).
    public var subjectLine: String {
        guard let name = X509_get_subject_name(box.pointer),
              let bytes = try? OpenSSL.collectBIO("X509_NAME_print_ex", { X509_NAME_print_ex($0, name, 0, pd_XN_FLAG_RFC2253()) >= 0 ? 1 : 0 })
        else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The contents of the extension with this dotted OID (the bytes inside its OCTET
    /// STRING), nil when the certificate has none.
    public func extensionValue(oid: String) -> [UInt8]? {
        guard let obj = OBJ_txt2obj(oid, 1) else { _ = OpenSSL.drainErrors(); return nil }
        defer { ASN1_OBJECT_free(obj) }
        let idx = X509_get_ext_by_OBJ(box.pointer, obj, -1)
        guard idx >= 0, let ext = X509_get_ext(box.pointer, idx), let data = X509_EXTENSION_get_data(ext) else { return nil }
        let s: UnsafePointer<ASN1_STRING> = UnsafePointer(data)
        return Array(UnsafeBufferPointer(start: ASN1_STRING_get0_data(s), count: Int(ASN1_STRING_length(s))))
    }
}

/// The few DER encodings certificate extensions here need (ITU-T X.690 §8): lengths,
/// UTF8String, NULL and SEQUENCE, and a reader for the strings of a SEQUENCE.
public enum DER {
    /// NULL: `05 00`.
    public static let null: [UInt8] = [0x05, 0x00]

    /// Tag, definite length, contents.
    public static func tlv(_ tag: UInt8, _ contents: [UInt8]) -> [UInt8] {
        var out = [tag]
        let n = contents.count
        if n < 0x80 {
            out.append(UInt8(n))
        } else {
            var len: [UInt8] = []
            var v = n
            while v > 0 { len.insert(UInt8(v & 0xFF), at: 0); v >>= 8 }
            out.append(0x80 | UInt8(len.count))
            out += len
        }
        return out + contents
    }

    public static func utf8String(_ s: String) -> [UInt8] { tlv(0x0C, Array(s.utf8)) }
    public static func sequence(_ parts: [[UInt8]]) -> [UInt8] { tlv(0x30, parts.flatMap { $0 }) }

    /// One element at `offset`: its tag, contents range and the offset after it; nil if malformed.
    public static func element(_ b: [UInt8], at offset: Int) -> (tag: UInt8, contents: Range<Int>, end: Int)? {
        guard offset + 2 <= b.count else { return nil }
        let tag = b[offset]
        var i = offset + 1
        var n = Int(b[i]); i += 1
        if n & 0x80 != 0 {
            let count = n & 0x7F
            guard count >= 1, count <= 4, i + count <= b.count else { return nil }
            n = 0
            for _ in 0..<count { n = n << 8 | Int(b[i]); i += 1 }
        }
        guard i + n <= b.count else { return nil }
        return (tag, i..<(i + n), i + n)
    }

    /// The UTF8String members directly inside the SEQUENCE `b` (nested SEQUENCEs are
    /// skipped). An OCTET STRING wrapped around the SEQUENCE is looked through.
    public static func utf8StringsInSequence(_ b: [UInt8]) -> [String]? {
        guard var outer = element(b, at: 0) else { return nil }
        var bytes = b
        if outer.tag == 0x04 {
            bytes = Array(b[outer.contents])
            guard let inner = element(bytes, at: 0) else { return nil }
            outer = inner
        }
        guard outer.tag == 0x30 else { return nil }
        var out: [String] = []
        var i = outer.contents.lowerBound
        while i < outer.contents.upperBound {
            guard let e = element(bytes, at: i) else { return nil }
            if e.tag == 0x0C { out.append(String(decoding: bytes[e.contents], as: UTF8.self)) }
            i = e.end
        }
        return out
    }
}

extension IssuedCertificate {
    /// A PKCS#12 file (`.p12`) holding the certificate, its key and the issuer, encrypted with
    /// `password` (OpenSSL 3 defaults: AES-256-CBC with PBKDF2, SHA-256 MAC), as Keychain
    /// Access exports an APNs certificate and as senders load one.
    public func pkcs12(password: String, friendlyName: String) throws(CryptoError) -> [UInt8] {
        guard let chain = pd_sk_X509_new_null() else { throw OpenSSL.failure("sk_X509_new_null") }
        defer { pd_sk_X509_free(chain) }
        guard pd_sk_X509_push(chain, issuer.box.pointer) > 0 else { throw OpenSSL.failure("sk_X509_push") }
        guard let p12 = PKCS12_create(password, friendlyName, privateKey.key.pointer, certificate.box.pointer, chain, 0, 0, 0, 0, 0) else {
            throw OpenSSL.failure("PKCS12_create")
        }
        defer { PKCS12_free(p12) }
        var out: UnsafeMutablePointer<UInt8>? = nil
        let n = i2d_PKCS12(p12, &out)
        guard n > 0, let out else { throw OpenSSL.failure("i2d_PKCS12") }
        defer { pd_OPENSSL_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(n)))
    }
}
