import COpenSSL

/// One server-side TLS session running directly on a non-blocking socket (`SSL_set_fd`):
/// OpenSSL does the socket reads and writes itself, so there is no extra copy through
/// memory BIOs. Loop-confined: used only on the owning event loop's thread.
final class TLSConnection {
    let ssl: OpaquePointer
    private let context: TLSContext // keeps the SSL_CTX (and its ALPN list) alive

    enum Progress: Equatable { case done, wantRead, wantWrite, failed(String) }
    enum ReadResult { case bytes(Int), wantRead, wantWrite, eof, failed(String) }
    enum WriteResult { case wrote(Int), wantRead, wantWrite, failed(String) }

    init?(context: TLSContext, fd: Int32) {
        guard let ssl = SSL_new(context.ctx) else { return nil }
        self.ssl = ssl
        self.context = context
        SSL_set_fd(ssl, fd)
        SSL_set_accept_state(ssl)
    }

    deinit { SSL_free(ssl) }

    private func failure(_ rc: Int32) -> String {
        let err = SSL_get_error(ssl, rc)
        let q = TLSConfigurationError.drainErrors()
        return "SSL error \(err)" + (q.isEmpty ? "" : ": " + q)
    }

    func handshake() -> Progress {
        ERR_clear_error()
        let rc = SSL_do_handshake(ssl)
        if rc == 1 { return .done }
        switch SSL_get_error(ssl, rc) {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        default: return .failed(failure(rc))
        }
    }

    func read(into buf: UnsafeMutableRawBufferPointer) -> ReadResult {
        ERR_clear_error()
        var n = 0
        let rc = SSL_read_ex(ssl, buf.baseAddress, buf.count, &n)
        if rc == 1 { return .bytes(n) }
        switch SSL_get_error(ssl, rc) {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN: return .eof
        case SSL_ERROR_SYSCALL:
            // EOF without close_notify (common with HTTP clients) or a socket error.
            return .eof
        default: return .failed(failure(rc))
        }
    }

    func write(_ ptr: UnsafeRawPointer, _ count: Int) -> WriteResult {
        ERR_clear_error()
        var n = 0
        let rc = SSL_write_ex(ssl, ptr, count, &n)
        if rc == 1 { return .wrote(n) }
        switch SSL_get_error(ssl, rc) {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        default: return .failed(failure(rc))
        }
    }

    /// Bytes already decrypted and buffered inside OpenSSL.
    var pending: Int { Int(SSL_pending(ssl)) }

    /// Sends close_notify (best effort, non-blocking).
    func shutdown() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    /// What was negotiated; valid after the handshake.
    var info: TLSInfo {
        let version = SSL_get_version(ssl).map { String(cString: $0) } ?? "unknown"
        let alpn = negotiatedALPN(ssl)
        let sni = SSL_get_servername(ssl, pd_TLSEXT_NAMETYPE_host_name()).map { String(cString: $0) }
        let cipher = SSL_get_current_cipher(ssl).flatMap { SSL_CIPHER_get_name($0) }.map { String(cString: $0) }
        var tls = TLSInfo(version: version, alpn: alpn, serverName: sni, cipher: cipher)
        tls.clientCertificateDER = verifiedClientCertificate()
        return tls
    }

    /// The client's certificate (DER) when it presented one that verified (with
    /// `SSL_VERIFY_PEER` a failed verification has already ended the handshake).
    private func verifiedClientCertificate() -> [UInt8]? {
        guard let cert = SSL_get0_peer_certificate(ssl), SSL_get_verify_result(ssl) == Int(X509_V_OK) else { return nil }
        var out: UnsafeMutablePointer<UInt8>? = nil
        let n = i2d_X509(cert, &out)
        guard n > 0, let out else { ERR_clear_error(); return nil }
        defer { pd_OPENSSL_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(n)))
    }
}

/// The ALPN protocol negotiated on `ssl` (either side), nil when none was.
package func negotiatedALPN(_ ssl: OpaquePointer) -> String? {
    var data: UnsafePointer<UInt8>?
    var len: UInt32 = 0
    SSL_get0_alpn_selected(ssl, &data, &len)
    guard let data, len > 0 else { return nil }
    return String(decoding: UnsafeBufferPointer(start: data, count: Int(len)), as: UTF8.self)
}
