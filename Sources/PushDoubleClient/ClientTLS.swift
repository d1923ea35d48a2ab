import PushDoubleTransport
#if canImport(Glibc)
import Glibc
#endif
import COpenSSL

/// The client side of TLS for one connection: an `SSL_CTX` trusting the configured CAs
/// and an `SSL` on the socket, with SNI, ALPN and peer-name verification.
///
/// Threading: created, handshaken and then used by one thread at a time (the
/// connection's I/O thread); `SSL` objects are not safe for concurrent use, so nothing
/// else touches it.
final class ClientTLSSession {
    private let ctx: OpaquePointer
    private let ssl: OpaquePointer
    private let socket: ClientSocket

    /// Sets up (does not yet handshake) TLS on `socket`.
    /// - Parameter host: what we connected to; `configuration.serverName` overrides it.
    init(socket: ClientSocket, host: String, configuration: HTTPClientConfiguration) throws(HTTPClientError) {
        ERR_clear_error()
        guard let ctx = SSL_CTX_new(TLS_client_method()) else { throw .tls("SSL_CTX_new: \(Self.drainErrors())") }
        _ = pd_SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION)
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        if configuration.caPEM == nil && configuration.caFile == nil {
            _ = SSL_CTX_set_default_verify_paths(ctx)
        }
        if let pem = configuration.caPEM {
            let store = SSL_CTX_get_cert_store(ctx)
            var added = 0
            pem.utf8CString.withUnsafeBufferPointer { buf in
                guard let bio = BIO_new_mem_buf(buf.baseAddress, Int32(buf.count - 1)) else { return }
                defer { BIO_free(bio) }
                while let x = PEM_read_bio_X509(bio, nil, nil, nil) {
                    if X509_STORE_add_cert(store, x) == 1 { added += 1 }
                    X509_free(x)
                }
            }
            ERR_clear_error()  // reading past the last PEM block leaves "no start line"
            if added == 0 {
                SSL_CTX_free(ctx)
                throw .tls("no CA certificate found in caPEM")
            }
        }
        if let file = configuration.caFile {
            if SSL_CTX_load_verify_locations(ctx, file, nil) != 1 {
                let why = Self.drainErrors()
                SSL_CTX_free(ctx)
                throw .tls("cannot load CA file \(file): \(why)")
            }
        }
        if let pem = configuration.clientCertificatePEM {
            do throws(HTTPClientError) { try Self.useClientCertificate(ctx, pem: pem) } catch { SSL_CTX_free(ctx); throw error }
        }
        guard let ssl = SSL_new(ctx) else {
            SSL_CTX_free(ctx)
            throw .tls("SSL_new: \(Self.drainErrors())")
        }
        self.ctx = ctx
        self.ssl = ssl
        self.socket = socket
        SSL_set_fd(ssl, socket.fd)

        let name = configuration.serverName ?? host
        if Self.isIPAddress(name) {
            // RFC 6066 §3: "Literal IPv4 and IPv6 addresses are not permitted in HostName";
            // verify the certificate's IP SAN instead.
            _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name)
        } else {
            _ = name.withCString { SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: $0)) }
            _ = SSL_set1_host(ssl, name)
        }
        if !configuration.alpn.isEmpty {
            var wire: [UInt8] = []
            for p in configuration.alpn where !p.isEmpty && p.utf8.count < 256 {
                wire.append(UInt8(p.utf8.count))
                wire.append(contentsOf: p.utf8)
            }
            // Note: SSL_set_alpn_protos returns 0 on success.
            _ = SSL_set_alpn_protos(ssl, wire, UInt32(wire.count))
        }
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(ctx)
    }

    /// Presents the first certificate of `pem` with the private key found in it (and any
    /// further certificates as its chain) when the server asks for one.
    private static func useClientCertificate(_ ctx: OpaquePointer, pem: String) throws(HTTPClientError) {
        var certs: [OpaquePointer] = []
        var key: OpaquePointer?
        pem.utf8CString.withUnsafeBufferPointer { buf in
            guard let bio = BIO_new_mem_buf(buf.baseAddress, Int32(buf.count - 1)) else { return }
            defer { BIO_free(bio) }
            while let x = PEM_read_bio_X509(bio, nil, nil, nil) { certs.append(x) }
        }
        pem.utf8CString.withUnsafeBufferPointer { buf in
            guard let bio = BIO_new_mem_buf(buf.baseAddress, Int32(buf.count - 1)) else { return }
            defer { BIO_free(bio) }
            key = PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        ERR_clear_error()  // reading past the last PEM block leaves "no start line"
        defer { if let key { EVP_PKEY_free(key) } }
        guard let leaf = certs.first, let key else {
            for c in certs { X509_free(c) }
            throw .tls("clientCertificatePEM needs a CERTIFICATE and a PRIVATE KEY block")
        }
        defer { X509_free(leaf) }
        guard SSL_CTX_use_certificate(ctx, leaf) == 1, SSL_CTX_use_PrivateKey(ctx, key) == 1, SSL_CTX_check_private_key(ctx) == 1 else {
            for c in certs.dropFirst() { X509_free(c) }
            throw .tls("client certificate: \(drainErrors())")
        }
        for c in certs.dropFirst() where pd_SSL_CTX_add_extra_chain_cert(ctx, c) != 1 { X509_free(c) }
    }

    static func isIPAddress(_ s: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, s, &v4) == 1 || inet_pton(AF_INET6, s, &v6) == 1
    }

    /// Runs the handshake to completion or the deadline.
    func handshake(deadline: Double) throws(HTTPClientError) {
        while true {
            ERR_clear_error()
            let r = SSL_connect(ssl)
            if r == 1 { return }
            let err = SSL_get_error(ssl, r)
            switch err {
            case SSL_ERROR_WANT_READ:
                if ClientSocket.waitFor(fd: socket.fd, events: Int16(POLLIN), deadline: deadline) == .timedOut { throw .timeout }
            case SSL_ERROR_WANT_WRITE:
                if ClientSocket.waitFor(fd: socket.fd, events: Int16(POLLOUT), deadline: deadline) == .timedOut { throw .timeout }
            default:
                let verify = SSL_get_verify_result(ssl)
                var why = Self.drainErrors()
                if verify != X509_V_OK {
                    why = "certificate verification failed: \(String(cString: X509_verify_cert_error_string(verify)))"
                        + (why.isEmpty ? "" : " (\(why))")
                }
                if why.isEmpty { why = err == SSL_ERROR_SYSCALL ? "connection closed during handshake" : "handshake failed (\(err))" }
                throw .tls(why)
            }
        }
    }

    /// The ALPN protocol the server selected, if any.
    var selectedALPN: String? { negotiatedALPN(ssl) }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> ClientIOResult {
        ERR_clear_error()
        let n = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
        if n > 0 { return .bytes(Int(n)) }
        return classify(SSL_get_error(ssl, n))
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> ClientIOResult {
        ERR_clear_error()
        let n = SSL_write(ssl, bytes.baseAddress, Int32(bytes.count))
        if n > 0 { return .bytes(Int(n)) }
        return classify(SSL_get_error(ssl, n))
    }

    /// Whether OpenSSL holds decrypted bytes not yet returned by `read`.
    var hasBufferedBytes: Bool { SSL_pending(ssl) > 0 }

    /// Sends close_notify (best effort, non-blocking).
    func shutdown() { _ = SSL_shutdown(ssl) }

    private func classify(_ err: Int32) -> ClientIOResult {
        switch err {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .wouldBlock
        case SSL_ERROR_ZERO_RETURN: return .eof
        case SSL_ERROR_SYSCALL:
            let why = Self.drainErrors()
            return why.isEmpty ? .eof : .failed(why)
        default:
            let why = Self.drainErrors()
            // OpenSSL 3 reports a TCP close without close_notify as an SSL error.
            if why.contains("unexpected eof") { return .eof }
            return .failed(why.isEmpty ? "TLS error \(err)" : why)
        }
    }

    static func drainErrors() -> String { OpenSSLErrors.drain() }
}
