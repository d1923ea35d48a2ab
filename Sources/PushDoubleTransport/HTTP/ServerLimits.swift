/// Limits a listener enforces on every connection, with the protocol's own errors
/// (HTTP/1.1 400/413/431 with a body saying why; HTTP/2 RST_STREAM / GOAWAY codes).
public struct ServerLimits: Sendable, Equatable {
    /// Largest request body accepted (bytes). Providers enforce their own smaller payload
    /// limits with their own errors; this one protects memory.
    public var maxBodySize: Int = 1 << 20
    /// Largest header list (HTTP/2: SETTINGS_MAX_HEADER_LIST_SIZE; HTTP/1.1: head size).
    public var maxHeaderListSize: Int = 16 * 1024
    /// Concurrent streams per HTTP/2 connection (SETTINGS_MAX_CONCURRENT_STREAMS).
    public var maxConcurrentStreams: UInt32 = 1000
    /// Concurrent connections per listener. A further accept sheds the oldest connection
    /// that has not sent a byte of application data yet (TLS handshake or first bytes
    /// pending); when there is none, the new connection is closed at once.
    public var maxConnections: Int = 4096
    /// Seconds to complete the TLS handshake / send the first request bytes.
    public var handshakeTimeout: Double = 10
    /// Seconds a connection may stay idle (no open stream, no bytes) before it is closed
    /// (HTTP/2 with GOAWAY NO_ERROR).
    public var idleTimeout: Double = 3600
    /// Seconds a started request head/body may take to arrive before it is refused
    /// (slowloris protection).
    public var requestReadTimeout: Double = 30
    /// Output bytes buffered per connection before reading from it pauses.
    public var maxBufferedOutput: Int = 4 << 20

    // Fairness and floods (docs/transport.md). Real clients never reach these; they keep one
    // connection from holding an event loop that every other connection shares.

    /// Bytes read from one connection per readable event before the loop turns to other
    /// connections; the rest is read on a later turn (epoll is level-triggered, so it
    /// reports the socket again). This also bounds the input a connection holds read but
    /// unprocessed: at most this much plus one partial HTTP/2 frame.
    public var maxReadBytesPerTurn: Int = 64 * 1024
    /// HTTP/2 frames handled per connection per loop turn. Frames beyond it stay in the
    /// decoder, reading from that connection pauses, and they are handled on the next turn.
    public var maxFramesPerTurn: Int = 128
    /// HTTP/2 frames that make no progress (PRIORITY, PING, SETTINGS, empty DATA or
    /// CONTINUATION, frames of unknown type) tolerated within ``cheapFrameWindow`` seconds
    /// while no request completes; one more is GOAWAY ENHANCE_YOUR_CALM.
    public var maxCheapFrames: Int = 10_000
    /// The window of ``maxCheapFrames``, in seconds.
    public var cheapFrameWindow: Double = 10
    /// Frames (HEADERS plus CONTINUATIONs) one HTTP/2 header block may span; one more is
    /// GOAWAY ENHANCE_YOUR_CALM. Each frame's 9-octet header also counts against the
    /// header block size limit (max(2 × ``maxHeaderListSize``, 64 KiB)).
    public var maxHeaderBlockFrames: Int = 64
    /// HTTP/2 acknowledgements (PING ACK, SETTINGS ACK) the server may owe a peer that does not
    /// read them: counted while the connection's output is not fully written; one more is
    /// GOAWAY ENHANCE_YOUR_CALM. 1000 as nghttp2's `nghttp2_option_set_max_outbound_ack` default.
    public var maxOwedAcks: Int = 1000
    /// Seconds a closing connection may wait for its last output to be written (a peer that
    /// stopped reading; then it is aborted), and, after our FIN, for the peer to close its side
    /// (the lingering close; then the socket is closed).
    public var closeFlushTimeout: Double = 10
    /// Bytes read and discarded from a socket in its lingering close (after our FIN) before
    /// reading stops; the socket is closed when the peer closes or ``closeFlushTimeout`` ends.
    public var maxLingeringBytes: Int = 1 << 20
    public init() {}
}

/// The HTTP/2 parameters a listener starts connections with.
public struct HTTP2Configuration: Sendable, Equatable {
    /// SETTINGS_HEADER_TABLE_SIZE advertised (largest HPACK table the decoder accepts).
    public var headerTableSize = UInt32(HTTP2Limits.defaultHeaderTableSize)
    /// SETTINGS_MAX_CONCURRENT_STREAMS in the first SETTINGS frame. APNs starts at 1 on a
    /// token-auth connection and raises it later through ``ConnectionControl/updateSettings``.
    /// nil = use ``ServerLimits/maxConcurrentStreams``.
    public var initialMaxConcurrentStreams: UInt32? = nil
    /// SETTINGS_INITIAL_WINDOW_SIZE advertised for streams.
    public var initialWindowSize = UInt32(HTTP2Limits.defaultInitialWindowSize)
    /// Connection-level receive window (raised with a WINDOW_UPDATE on stream 0 at start
    /// when larger than 65535).
    public var connectionWindowSize: UInt32 = 1 << 20
    /// SETTINGS_MAX_FRAME_SIZE advertised.
    public var maxFrameSize = UInt32(HTTP2Limits.defaultMaxFrameSize)
    /// Whether to send SETTINGS_MAX_HEADER_LIST_SIZE (from ServerLimits).
    public var advertiseMaxHeaderListSize: Bool = true
    /// Response header names whose values rarely repeat (a provider's per-message ids): the
    /// HPACK encoder keeps their values out of its dynamic table.
    public var uniqueValueResponseHeaders: Set<String> = []
    public init() {}
}
