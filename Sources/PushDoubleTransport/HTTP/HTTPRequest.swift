import Foundation

/// The HTTP version a request arrived on.
public enum HTTPVersion: String, Sendable, Codable {
    case http1_1 = "HTTP/1.1"
    case http2 = "HTTP/2"
}

/// What the TLS layer negotiated for a connection (absent on cleartext connections).
public struct TLSInfo: Sendable, Equatable, Codable {
    /// e.g. "TLSv1.3".
    public var version: String
    /// The ALPN protocol selected, or nil when the client offered none.
    public var alpn: String?
    /// The SNI host name the client sent, if any.
    public var serverName: String?
    /// The negotiated cipher suite name.
    public var cipher: String?
    /// The client certificate (DER) the client presented and the listener verified
    /// (``TLSServerConfiguration/clientCertificateCAPEM``); nil when none. Not encoded: the
    /// fake that authenticates with it records what it read from it.
    public var clientCertificateDER: [UInt8]? = nil
    public init(version: String, alpn: String?, serverName: String?, cipher: String?) {
        self.version = version; self.alpn = alpn; self.serverName = serverName; self.cipher = cipher
    }
    private enum CodingKeys: String, CodingKey { case version, alpn, serverName, cipher }
}

/// Facts about one accepted connection, fixed once the handshake is done.
public struct ConnectionInfo: Sendable, Equatable, Codable {
    /// Process-unique, increasing connection id.
    public var id: UInt64
    /// The name of the listener that accepted it (e.g. "apns-production").
    public var listener: String
    /// "ip:port" of the peer.
    public var peer: String
    /// The local port the connection arrived on.
    public var localPort: Int
    /// TLS details, nil for cleartext.
    public var tls: TLSInfo?
    /// When the TCP connection was accepted.
    public var acceptedAt: Date
    public init(id: UInt64, listener: String, peer: String, localPort: Int, tls: TLSInfo?, acceptedAt: Date) {
        self.id = id; self.listener = listener; self.peer = peer; self.localPort = localPort
        self.tls = tls; self.acceptedAt = acceptedAt
    }
}

/// Where and when a request arrived: everything the history records about transport.
public struct RequestInfo: Sendable, Equatable, Codable {
    public var connection: ConnectionInfo
    /// HTTP/2 stream id; for HTTP/1.1 the 1-based index of the request on its connection.
    public var streamID: UInt32
    public var version: HTTPVersion
    /// When the request head (HEADERS / request line) was complete.
    public var headReceivedAt: Date
    /// When the body was complete (END_STREAM / last chunk).
    public var bodyReceivedAt: Date
    /// HTTP/2: PRIORITY frames plus HEADERS frames carrying priority fields received on the
    /// connection so far (RFC 9113 §5.3.2 deprecates them; APNs tells clients not to send
    /// them). 0 on HTTP/1.1. Added by the apns2 work (additive; absent in older JSON = 0).
    public var priorityFramesReceived: Int = 0
    public init(connection: ConnectionInfo, streamID: UInt32, version: HTTPVersion, headReceivedAt: Date, bodyReceivedAt: Date,
                priorityFramesReceived: Int = 0) {
        self.connection = connection; self.streamID = streamID; self.version = version
        self.headReceivedAt = headReceivedAt; self.bodyReceivedAt = bodyReceivedAt
        self.priorityFramesReceived = priorityFramesReceived
    }

    private enum CodingKeys: String, CodingKey {
        case connection, streamID, version, headReceivedAt, bodyReceivedAt, priorityFramesReceived
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(connection: try c.decode(ConnectionInfo.self, forKey: .connection), streamID: try c.decode(UInt32.self, forKey: .streamID),
                  version: try c.decode(HTTPVersion.self, forKey: .version), headReceivedAt: try c.decode(Date.self, forKey: .headReceivedAt),
                  bodyReceivedAt: try c.decode(Date.self, forKey: .bodyReceivedAt),
                  priorityFramesReceived: try c.decodeIfPresent(Int.self, forKey: .priorityFramesReceived) ?? 0)
    }
}

/// A complete HTTP request, version-neutral: HTTP/1.1 and HTTP/2 requests look the same
/// to a ``Responder``.
/// Optional stored properties are spelled `Optional<T>` (no implicit nil, so `init` builds the
/// value in place instead of copying it out: docs/core.md "Optional properties …").
public struct HTTPRequest: Sendable {
    /// `:method` / request-line method, as received.
    public var method: String
    /// `:path` / request-target, query included, as received.
    public var path: String
    /// `:scheme` on HTTP/2; "https" or "http" by connection on HTTP/1.1.
    public var scheme: String
    /// `:authority` on HTTP/2 (or Host if absent); `Host` on HTTP/1.1.
    public var authority: Optional<String>
    /// Regular header fields (no pseudo-headers), in order, repeats kept.
    public var headers: HTTPHeaders
    /// The whole body.
    public var body: [UInt8]
    public var info: RequestInfo

    public init(method: String, path: String, scheme: String, authority: String?, headers: HTTPHeaders, body: [UInt8], info: RequestInfo) {
        self.method = method; self.path = path; self.scheme = scheme; self.authority = authority
        self.headers = headers; self.body = body; self.info = info
    }

    /// The path without its query string.
    public var pathWithoutQuery: Substring {
        if let q = queryMark { return path[..<q] }
        return path[...]
    }
    /// The query string after `?`, if any.
    public var query: Substring? {
        guard let q = queryMark else { return nil }
        return path[path.index(after: q)...]
    }

    /// The first `?` Character of the path: found on the bytes when the path is ASCII (see
    /// ``ASCIIText``), else by Characters.
    private var queryMark: String.Index? {
        ASCIIText.firstIndex(of: UInt8(ascii: "?"), in: path) ?? path.firstIndex(of: "?")
    }
}

/// Byte searches that stand in for `Character` searches on ASCII text. In a string of ASCII
/// bytes every byte is one `Character` except the pair CR LF (one grapheme cluster, UAX #29
/// GB3); every other grapheme rule joins a non-ASCII scalar. So for any ASCII byte other than
/// CR and LF, the first (last) matching byte is where the first (last) matching `Character`
/// starts, and indices of ASCII bytes are `Character` boundaries. Iterating `Character`s costs
/// hundreds of instructions each; these are a few per byte.
public enum ASCIIText {
    /// `s.firstIndex(of: Character(byte))` when `s` is ASCII; `.some(nil)` = ASCII without it,
    /// `nil` = not ASCII (or not contiguous): the caller searches by `Character`.
    public static func firstIndex(of byte: UInt8, in s: String) -> String.Index?? {
        search(byte, in: s, last: false)
    }

    /// `s.lastIndex(of: Character(byte))` when `s` is ASCII (as ``firstIndex(of:in:)``).
    public static func lastIndex(of byte: UInt8, in s: String) -> String.Index?? {
        search(byte, in: s, last: true)
    }

    private static func search(_ byte: UInt8, in s: String, last: Bool) -> String.Index?? {
        precondition(byte < 0x80 && byte != 0x0D && byte != 0x0A, "ASCIIText searches a single-byte Character")
        let found: Int?? = s.utf8.withContiguousStorageIfAvailable { b -> Int?? in
            var bits: UInt8 = 0
            for c in b { bits |= c }  // any byte ≥ 0x80 sets the high bit
            if bits >= 0x80 { return .none }
            return .some(last ? b.lastIndex(of: byte) : b.firstIndex(of: byte))
        } ?? .none
        guard let found else { return .none }
        guard let offset = found else { return .some(nil) }
        return .some(s.utf8.index(s.utf8.startIndex, offsetBy: offset))
    }
}
