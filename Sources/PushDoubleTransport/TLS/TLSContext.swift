import COpenSSL

/// A TLS setting of a listener could not be applied (bad PEM, key not matching, ...).
public struct TLSConfigurationError: Error, CustomStringConvertible, Equatable {
    /// What we were doing.
    public var message: String
    /// OpenSSL's error queue, rendered.
    public var openSSLErrors: String
    public var description: String { openSSLErrors.isEmpty ? message : "\(message): \(openSSLErrors)" }

    init(_ message: String) {
        self.message = message
        self.openSSLErrors = TLSConfigurationError.drainErrors()
    }

    static func drainErrors() -> String { OpenSSLErrors.drain() }
}

/// The shared server `SSL_CTX` of one listener: certificate chain, key, TLS 1.2+, and the
/// ALPN selection (server preference order; alert 120 no_application_protocol when the
/// client offers ALPN but nothing we allow).
///
/// `@unchecked Sendable`: the `SSL_CTX` is fully configured in `init` and only read
/// afterwards (`SSL_new` is thread-safe on a configured context); the ALPN list is
/// immutable and outlives the context because this object owns both.
final class TLSContext: @unchecked Sendable {
    let ctx: OpaquePointer
    /// Server ALPN protocols in preference order, as raw bytes.
    let alpn: [[UInt8]]

    init(certificateChainPEM: String, privateKeyPEM: String, alpn: [String],
         clientCertificateCAPEM: String? = nil) throws(TLSConfigurationError) {
        ERR_clear_error()
        guard let ctx = SSL_CTX_new(TLS_server_method()) else { throw TLSConfigurationError("SSL_CTX_new") }
        self.ctx = ctx
        self.alpn = alpn.map { Array($0.utf8) }
        _ = pd_SSL_CTX_set_min_proto_version(ctx, pd_TLS1_2_VERSION())
        _ = pd_SSL_CTX_set_mode(ctx, pd_SSL_MODE_server_defaults())
        _ = SSL_CTX_set_options(ctx, pd_SSL_OP_NO_RENEGOTIATION() | pd_SSL_OP_CIPHER_SERVER_PREFERENCE() | pd_SSL_OP_NO_COMPRESSION())

        // Certificate chain: first PEM block is the leaf, the rest are intermediates.
        let certs = Self.certificates(in: certificateChainPEM)
        guard let leaf = certs.first else { throw TLSConfigurationError("no certificate found in certificateChainPEM") }
        defer { X509_free(leaf) }
        guard SSL_CTX_use_certificate(ctx, leaf) == 1 else {
            for c in certs.dropFirst() { X509_free(c) }
            throw TLSConfigurationError("SSL_CTX_use_certificate")
        }
        for c in certs.dropFirst() {
            // add_extra_chain_cert takes ownership on success.
            if pd_SSL_CTX_add_extra_chain_cert(ctx, c) != 1 { X509_free(c); throw TLSConfigurationError("adding an intermediate certificate") }
        }

        var key: OpaquePointer?
        privateKeyPEM.utf8CString.withUnsafeBufferPointer { buf in
            guard let bio = BIO_new_mem_buf(buf.baseAddress, Int32(buf.count - 1)) else { return }
            defer { BIO_free(bio) }
            key = PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key else { throw TLSConfigurationError("no private key found in privateKeyPEM") }
        defer { EVP_PKEY_free(key) }
        guard SSL_CTX_use_PrivateKey(ctx, key) == 1 else { throw TLSConfigurationError("SSL_CTX_use_PrivateKey") }
        guard SSL_CTX_check_private_key(ctx) == 1 else { throw TLSConfigurationError("the private key does not match the certificate") }

        if let clientCertificateCAPEM { try Self.requestClientCertificates(ctx, trusting: clientCertificateCAPEM) }

        if !self.alpn.isEmpty {
            SSL_CTX_set_alpn_select_cb(ctx, { _, out, outlen, inp, inlen, arg in
                guard let arg, let out, let outlen, let inp else { return pd_SSL_TLSEXT_ERR_NOACK() }
                let me = Unmanaged<TLSContext>.fromOpaque(arg).takeUnretainedValue()
                let offered = UnsafeBufferPointer(start: inp, count: Int(inlen))
                if let (offset, len) = ALPN.select(server: me.alpn, clientWire: offered) {
                    out.pointee = inp + offset
                    outlen.pointee = UInt8(len)
                    return pd_SSL_TLSEXT_ERR_OK()
                }
                return pd_SSL_TLSEXT_ERR_ALERT_FATAL()
            }, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    deinit { SSL_CTX_free(ctx) }

    /// Every `CERTIFICATE` block of a PEM text (the caller frees them).
    static func certificates(in pem: String) -> [OpaquePointer] {
        var certs: [OpaquePointer] = []
        pem.utf8CString.withUnsafeBufferPointer { buf in
            guard let bio = BIO_new_mem_buf(buf.baseAddress, Int32(buf.count - 1)) else { return }
            defer { BIO_free(bio) }
            while let x = PEM_read_bio_X509(bio, nil, nil, nil) { certs.append(x) }
        }
        ERR_clear_error() // reading past the last block leaves a "no start line" error
        return certs
    }

    /// Asks for (does not require) a client certificate and verifies a presented one against
    /// `caPEM`, whose subjects are also sent as the acceptable CA names.
    private static func requestClientCertificates(_ ctx: OpaquePointer, trusting caPEM: String) throws(TLSConfigurationError) {
        let cas = certificates(in: caPEM)
        defer { for c in cas { X509_free(c) } }
        guard !cas.isEmpty else { throw TLSConfigurationError("no certificate found in clientCertificateCAPEM") }
        guard let store = SSL_CTX_get_cert_store(ctx) else { throw TLSConfigurationError("SSL_CTX_get_cert_store") }
        for c in cas {
            guard X509_STORE_add_cert(store, c) == 1, SSL_CTX_add_client_CA(ctx, c) == 1 else {
                throw TLSConfigurationError("adding a client-certificate CA")
            }
        }
        // Resumed sessions keep the verified peer; OpenSSL needs a session id context for that.
        let context = Array("pushdouble-client-cert".utf8)
        guard SSL_CTX_set_session_id_context(ctx, context, UInt32(context.count)) == 1 else {
            throw TLSConfigurationError("SSL_CTX_set_session_id_context")
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
    }
}

/// ALPN protocol selection (RFC 7301 §3.2): the server's most preferred protocol that the
/// client also offers.
enum ALPN {
    /// Returns the offset and length of the chosen name inside `clientWire`, or nil when
    /// nothing matches (the caller then sends no_application_protocol).
    static func select(server: [[UInt8]], clientWire: UnsafeBufferPointer<UInt8>) -> (Int, Int)? {
        for want in server {
            var i = 0
            while i < clientWire.count {
                let len = Int(clientWire[i])
                let start = i + 1
                guard start + len <= clientWire.count else { break }
                if len == want.count {
                    var same = true
                    for j in 0..<len where clientWire[start + j] != want[j] { same = false; break }
                    if same { return (start, len) }
                }
                i = start + len
            }
        }
        return nil
    }
}
