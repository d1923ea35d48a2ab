import COpenSSL
import Foundation

/// A private test certificate authority (P-256): creates itself and issues TLS server
/// certificates for the fakes. **Test use only**: its key ships with PushDouble.
///
/// Validity defaults are long on purpose (20 years for the CA, 10 for servers) so shipped
/// credentials do not expire under users' test suites. Browsers cap publicly trusted leaf
/// certificates at 825 days (398 in practice), but that rule does not apply to private
/// roots that a test runtime is told to trust explicitly (`SSL_CERT_FILE`, `NODE_EXTRA_CA_CERTS`, …).
public struct CertificateAuthority: Sendable {
    /// The self-signed CA certificate.
    public let certificate: X509Certificate
    /// The CA's signing key.
    public let privateKey: P256PrivateKey

    /// Default CA lifetime: 20 years.
    public static let defaultCAValidityDays = 7305
    /// Default server-certificate lifetime: 10 years (see the type's note on the 825-day rule).
    public static let defaultServerValidityDays = 3652

    /// Loads an existing CA from its certificate and key PEM.
    public init(certificatePEM: String, privateKeyPEM: String) throws(CryptoError) {
        certificate = try X509Certificate(pem: certificatePEM)
        privateKey = try P256PrivateKey(pem: privateKeyPEM)
        guard try certificate.p256PublicKey == privateKey.publicKey else {
            throw .keyDecodingFailed(format: "CA key", detail: "private key does not match the CA certificate")
        }
    }

    init(certificate: X509Certificate, privateKey: P256PrivateKey) {
        self.certificate = certificate
        self.privateKey = privateKey
    }

    /// Creates a new self-signed CA: basicConstraints `critical,CA:TRUE,pathlen:0`, keyUsage
    /// `critical,keyCertSign,cRLSign,digitalSignature`, subject key identifier, SHA-256 signature.
    public static func generate(commonName: String, organization: String? = "PushDouble TEST ONLY",
                                validityDays: Int = defaultCAValidityDays, key: P256PrivateKey? = nil) throws(CryptoError) -> CertificateAuthority {
        let caKey: P256PrivateKey
        if let key { caKey = key } else { caKey = try P256PrivateKey.generate() }
        let cert = try CertificateBuilder.build(
            commonName: commonName, organization: organization, subjectKey: caKey.key, issuer: nil, issuerKey: caKey.key,
            validityDays: validityDays,
            extensions: [
                (NID_basic_constraints, "critical,CA:TRUE,pathlen:0"),
                (NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature"),
                (NID_subject_key_identifier, "hash"),
                (NID_authority_key_identifier, "keyid:always"),
            ])
        return CertificateAuthority(certificate: cert, privateKey: caKey)
    }

    /// Issues a TLS server certificate with a fresh P-256 key (unless `key` is given):
    /// subjectAltName with every DNS name and IP address, EKU serverAuth, keyUsage
    /// digitalSignature, CA:FALSE, subject and authority key identifiers.
    public func issueServerCertificate(commonName: String, dnsNames: [String], ipAddresses: [String],
                                       validityDays: Int = defaultServerValidityDays,
                                       key: P256PrivateKey? = nil) throws(CryptoError) -> IssuedCertificate {
        let leafKey: P256PrivateKey
        if let key { leafKey = key } else { leafKey = try P256PrivateKey.generate() }
        for name in dnsNames + ipAddresses where name.isEmpty || name.contains(",") || name.contains(where: { $0.isWhitespace }) {
            throw .invalidArgument("subjectAltName entry \"\(name)\"")
        }
        let san = (dnsNames.map { "DNS:\($0)" } + ipAddresses.map { "IP:\($0)" }).joined(separator: ",")
        var exts: [(Int32, String)] = [
            (NID_basic_constraints, "critical,CA:FALSE"),
            (NID_key_usage, "critical,digitalSignature"),
            (NID_ext_key_usage, "serverAuth"),
            (NID_subject_key_identifier, "hash"),
            (NID_authority_key_identifier, "keyid:always"),
        ]
        if !san.isEmpty { exts.append((NID_subject_alt_name, san)) }
        let cert = try CertificateBuilder.build(
            commonName: commonName, organization: "PushDouble TEST ONLY", subjectKey: leafKey.key, issuer: certificate,
            issuerKey: privateKey.key, validityDays: validityDays, extensions: exts)
        return IssuedCertificate(certificate: cert, privateKey: leafKey, issuer: certificate)
    }
}

extension CertificateAuthority {
    /// Issues a TLS client certificate (EKU clientAuth), e.g. to imitate an APNs provider
    /// certificate: Apple's carry `UID=<bundle id>, CN=Apple Push Services: <bundle id>,
    /// OU=<team id>`. Extra subject entries are added before the CN in the order given
    /// (OpenSSL short names such as `UID`, `OU`, `C`).
    ///
    /// `customExtensions` are added as given: a dotted OID and its DER value (non-critical),
    /// e.g. Apple's environment and topic extensions. `validFrom` back-dates (or post-dates)
    /// the start, in days from now: an already expired certificate for tests has a start far
    /// enough back that `validityDays` ends before today.
    public func issueClientCertificate(commonName: String, subjectEntries: [(String, String)] = [],
                                       validityDays: Int = defaultServerValidityDays,
                                       customExtensions: [(oid: String, der: [UInt8])] = [], validFrom: Int = 0,
                                       key: P256PrivateKey? = nil) throws(CryptoError) -> IssuedCertificate {
        let leafKey: P256PrivateKey
        if let key { leafKey = key } else { leafKey = try P256PrivateKey.generate() }
        let cert = try CertificateBuilder.build(
            commonName: commonName, organization: "PushDouble TEST ONLY", subjectKey: leafKey.key, issuer: certificate,
            issuerKey: privateKey.key, validityDays: validityDays,
            extensions: [
                (NID_basic_constraints, "critical,CA:FALSE"),
                (NID_key_usage, "critical,digitalSignature"),
                (NID_ext_key_usage, "clientAuth"),
                (NID_subject_key_identifier, "hash"),
                (NID_authority_key_identifier, "keyid:always"),
            ], extraNameEntries: subjectEntries, customExtensions: customExtensions, validFromDays: validFrom)
        return IssuedCertificate(certificate: cert, privateKey: leafKey, issuer: certificate)
    }
}

/// A certificate with its private key, as a TLS endpoint loads them.
public struct IssuedCertificate: Sendable {
    public let certificate: X509Certificate
    public let privateKey: P256PrivateKey
    /// The CA that signed it.
    public let issuer: X509Certificate

    /// The certificate PEM.
    public var certificatePEM: String { get throws(CryptoError) { try certificate.pem } }
    /// The key as PKCS#8 PEM.
    public var privateKeyPEM: String { get throws(CryptoError) { try privateKey.pemPKCS8 } }
}

/// Assembles and signs one certificate.
enum CertificateBuilder {
    static func build(commonName: String, organization: String?, subjectKey: EVPKey, issuer: X509Certificate?,
                      issuerKey: EVPKey, validityDays: Int, extensions: [(Int32, String)],
                      extraNameEntries: [(String, String)] = [], customExtensions: [(oid: String, der: [UInt8])] = [],
                      validFromDays: Int = 0) throws(CryptoError) -> X509Certificate {
        guard validityDays > 0, validityDays <= 36_500 else { throw .invalidArgument("validityDays \(validityDays)") }
        guard let x = X509_new() else { throw OpenSSL.failure("X509_new") }
        let box = X509Box(taking: x)
        guard X509_set_version(x, 2) == 1 else { throw OpenSSL.failure("X509_set_version") }

        // 16 random bytes, top bit clear: a positive serial of at most 128 bits (CA/B guidance: ≥64 random bits).
        var serial = try SecureRandom.bytes(16)
        serial[0] &= 0x7F
        serial[0] |= 0x01
        guard let bn = BN_bin2bn(serial, 16, nil) else { throw OpenSSL.failure("BN_bin2bn") }
        defer { BN_free(bn) }
        guard BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) != nil else { throw OpenSSL.failure("BN_to_ASN1_INTEGER") }

        // Back-date by an hour so that small clock differences between processes do not matter.
        guard validFromDays > -36_500, validFromDays < 36_500 else { throw .invalidArgument("validFromDays \(validFromDays)") }
        guard X509_time_adj_ex(X509_getm_notBefore(x), Int32(validFromDays), -3600, nil) != nil,
              X509_time_adj_ex(X509_getm_notAfter(x), Int32(validFromDays + validityDays), 0, nil) != nil else {
            throw OpenSSL.failure("X509 validity")
        }

        guard let name = X509_NAME_new() else { throw OpenSSL.failure("X509_NAME_new") }
        defer { X509_NAME_free(name) }
        if let organization {
            guard X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, organization, -1, -1, 0) == 1 else {
                throw OpenSSL.failure("X509_NAME_add_entry(O)")
            }
        }
        for (field, value) in extraNameEntries {
            guard X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, value, -1, -1, 0) == 1 else {
                throw .invalidArgument("subject entry \(field)=\(value): \(OpenSSL.drainErrors())")
            }
        }
        guard X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, commonName, -1, -1, 0) == 1 else {
            throw OpenSSL.failure("X509_NAME_add_entry(CN)")
        }
        guard X509_set_subject_name(x, name) == 1,
              X509_set_issuer_name(x, issuer.map { X509_get_subject_name($0.box.pointer) } ?? name) == 1,
              X509_set_pubkey(x, subjectKey.pointer) == 1 else {
            throw OpenSSL.failure("X509 names/pubkey")
        }

        var ctx = X509V3_CTX()
        pd_X509V3_set_ctx_nodb(&ctx)
        X509V3_set_ctx(&ctx, issuer?.box.pointer ?? x, x, nil, nil, 0)
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &ctx, nid, value) else {
                throw OpenSSL.failure("X509V3_EXT_conf_nid(\(String(cString: OBJ_nid2sn(nid))), \(value))")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(x, ext, -1) == 1 else { throw OpenSSL.failure("X509_add_ext") }
        }
        for (oid, der) in customExtensions {
            guard let obj = OBJ_txt2obj(oid, 1) else { throw .invalidArgument("extension OID \(oid)") }
            defer { ASN1_OBJECT_free(obj) }
            guard let value = ASN1_OCTET_STRING_new() else { throw OpenSSL.failure("ASN1_OCTET_STRING_new") }
            defer { ASN1_OCTET_STRING_free(value) }
            guard ASN1_OCTET_STRING_set(value, der, Int32(der.count)) == 1,
                  let ext = X509_EXTENSION_create_by_OBJ(nil, obj, 0, value) else { throw OpenSSL.failure("X509_EXTENSION_create_by_OBJ") }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(x, ext, -1) == 1 else { throw OpenSSL.failure("X509_add_ext") }
        }
        guard X509_sign(x, issuerKey.pointer, EVP_sha256()) > 0 else { throw OpenSSL.failure("X509_sign") }
        return X509Certificate(box: box)
    }
}
