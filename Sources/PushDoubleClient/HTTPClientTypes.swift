import PushDoubleTransport
/// Value types of the HTTP client: configuration, request, response, errors.

/// How an ``HTTPClientConnection`` connects: trust, ALPN and timeouts.
///
/// Trust: with `caPEM` and/or `caFile` set, only those CAs are trusted; with neither, the
/// system's default verify paths are used. The peer name is always checked (host name, or
/// IP address when connecting to a literal IP), against `serverName` when set.
///
/// Cleartext connections speak HTTP/2 with prior knowledge when `alpn.first == "h2"`,
/// else HTTP/1.1.
public struct HTTPClientConfiguration: Sendable {
    /// PEM text of one or more CA certificates to trust.
    public var caPEM: String?
    /// Path to a PEM file of CA certificates to trust.
    public var caFile: String?
    /// ALPN protocols offered, in preference order (e.g. `["h2"]` for h2 only).
    public var alpn: [String]
    /// Seconds allowed for TCP connect + TLS handshake + the server's first SETTINGS.
    public var connectTimeout: Double
    /// Seconds allowed for one request, from `send` until the response is complete
    /// (time spent queued behind MAX_CONCURRENT_STREAMS included).
    public var requestTimeout: Double
    /// SNI and certificate name override (default: the host connected to).
    public var serverName: String?
    /// A client certificate to present when the server asks for one: PEM with the
    /// certificate (then any intermediates) and its private key (APNs certificate-based
    /// provider authentication).
    public var clientCertificatePEM: String? = nil

    public init(caPEM: String? = nil, caFile: String? = nil, alpn: [String] = ["h2", "http/1.1"],
                connectTimeout: Double = 10, requestTimeout: Double = 30, serverName: String? = nil) {
        self.caPEM = caPEM
        self.caFile = caFile
        self.alpn = alpn
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.serverName = serverName
    }
}

/// One HTTP request to send on an ``HTTPClientConnection``.
///
/// On HTTP/2, `method`, `path`, `scheme` and `authority` become the pseudo-headers; on
/// HTTP/1.1 the request line and `Host`. Header names are sent lowercased on HTTP/2.
/// `Content-Length` is added when the body is non-empty (or the method is POST/PUT) and
/// the caller did not set it.
public struct HTTPClientRequest: Sendable {
    public var method: String
    public var path: String
    /// `:authority` / `Host`.
    public var authority: String
    /// `:scheme` ("https" or "http").
    public var scheme: String
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(method: String = "GET", path: String, authority: String, scheme: String = "https",
                headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.authority = authority
        self.scheme = scheme
        self.headers = headers
        self.body = body
    }
}

/// A frame the client received for one stream, recorded so tests can assert exact framing.
public enum ReceivedFrame: Sendable, Equatable {
    case headers(endStream: Bool)
    case continuation(endHeaders: Bool)
    case data(length: Int, endStream: Bool)
    case rstStream(HTTP2ErrorCode)
}

/// A complete HTTP response as the client received it.
public struct HTTPClientResponse: Sendable {
    public var status: Int
    /// Response header fields (no pseudo-headers), followed by any trailer fields.
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// HTTP/2 stream id; on HTTP/1.1 the 1-based index of the request on its connection.
    public var streamID: UInt32
    /// HTTP/2: the frames of this stream in arrival order (empty on HTTP/1.1).
    public var frames: [ReceivedFrame]
    public var version: HTTPVersion
    /// HTTP/2: the connection had received a GOAWAY before this answer completed (the stream
    /// was at or below its last-stream-id, so the server processed it, RFC 9113 §6.8).
    public var afterGoAway: Bool

    public init(status: Int, headers: HTTPHeaders, body: [UInt8], streamID: UInt32, frames: [ReceivedFrame],
                version: HTTPVersion, afterGoAway: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.streamID = streamID
        self.frames = frames
        self.version = version
        self.afterGoAway = afterGoAway
    }
}

/// Why a client operation failed; says whether the request may have been processed.
public enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// DNS, TCP connect or socket setup failed.
    case connectFailed(String)
    /// TLS handshake or certificate verification failed (message from OpenSSL).
    case tls(String)
    /// The connect or request timeout passed.
    case timeout
    /// The server sent GOAWAY and this request's stream was above `lastStreamID` (or it
    /// was never sent): it was NOT processed and is safe to retry on another connection.
    case goAway(lastStreamID: UInt32, errorCode: HTTP2ErrorCode, debugData: [UInt8])
    /// The connection dropped with the request in flight: outcome unknown.
    case connectionClosed(String)
    /// The server reset the stream. REFUSED_STREAM means it was not processed.
    case streamReset(HTTP2ErrorCode)
    /// The server broke the protocol (bad frame, bad HPACK, bad HTTP/1.1 response, ...).
    case protocolError(String)

    public var description: String {
        switch self {
        case .connectFailed(let m): "connect failed: \(m)"
        case .tls(let m): "TLS: \(m)"
        case .timeout: "timed out"
        case let .goAway(last, code, debug):
            "GOAWAY (last stream \(last), \(code))" + (debug.isEmpty ? "" : ": " + String(decoding: debug, as: UTF8.self))
        case .connectionClosed(let m): "connection closed: \(m)"
        case .streamReset(let code): "stream reset: \(code)"
        case .protocolError(let m): "protocol error: \(m)"
        }
    }
}
