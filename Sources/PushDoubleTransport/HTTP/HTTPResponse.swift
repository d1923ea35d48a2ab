/// How a response is laid out on the wire. Real clients depend on it (APNs clients expect
/// a success to be a single HEADERS frame with END_STREAM and no DATA).
public enum ResponseFraming: Sendable, Equatable {
    /// HTTP/2: HEADERS with END_STREAM when the body is empty, else HEADERS then the body
    /// in as few DATA frames as the peer's max frame size and flow control allow.
    /// HTTP/1.1: `Content-Length`.
    case automatic
    /// HTTP/2: HEADERS with END_STREAM, no DATA even if the body is empty. The body must be empty.
    case headersOnly
    /// HTTP/2: HEADERS, then exactly one DATA frame with the whole body and END_STREAM
    /// (an empty DATA frame if the body is empty). Flow control permitting; if the window
    /// is smaller the frame waits for WINDOW_UPDATE rather than being split.
    case singleDataFrame
    /// HTTP/1.1: `Transfer-Encoding: chunked` with chunks of at most this many bytes.
    /// HTTP/2: DATA frames of at most this many bytes.
    case chunked(maxChunk: Int)
}

/// A response a ``Responder`` wants sent.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    /// Regular header fields (no `:status`). The transport adds `content-length` (unless
    /// chunked, or on HTTP/2 headers-only) and, on HTTP/1.1, `date`/`connection` only if
    /// they are absent.
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var framing: ResponseFraming
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], framing: ResponseFraming = .automatic) {
        self.status = status; self.headers = headers; self.body = body; self.framing = framing
    }
    /// A response with a UTF-8 body and a content type.
    public init(status: Int, contentType: String, body: String, headers: HTTPHeaders = HTTPHeaders()) {
        var h = headers
        h.replaceOrAdd(name: "content-type", value: contentType)
        self.init(status: status, headers: h, body: Array(body.utf8))
    }
}
