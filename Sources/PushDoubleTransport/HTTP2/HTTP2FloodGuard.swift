/// Counts HTTP/2 frames that cost the server work but move no request forward (PRIORITY,
/// PING, SETTINGS, RST_STREAM, empty DATA or CONTINUATION, unknown types), so that a peer sending them
/// in a loop is stopped with GOAWAY ENHANCE_YOUR_CALM (docs/transport.md "Fairness and floods") while a real client, whose
/// such frames are rare or come with completed requests, never reaches the limit.
///
/// The count starts over when `window` has passed since it started, and whenever a request
/// completes (progress). Pure value: the connection supplies the monotonic clock.
struct HTTP2FloodGuard {
    /// Frames without progress tolerated per window.
    let limit: Int
    /// Window length in nanoseconds.
    let windowNanos: UInt64
    private(set) var count = 0
    private var windowStart: UInt64

    init(limit: Int, window seconds: Double, now: UInt64) {
        self.limit = max(0, limit)
        self.windowNanos = seconds > 0 && seconds.isFinite ? UInt64(seconds * 1e9) : .max
        self.windowStart = now
    }

    /// Counts one frame without progress; false once the limit is exceeded.
    mutating func admit(at now: UInt64) -> Bool {
        if now &- windowStart >= windowNanos {
            windowStart = now
            count = 0
        }
        count += 1
        return count <= limit
    }

    /// A request completed: the peer is doing real work, start counting again.
    mutating func progress(at now: UInt64) {
        count = 0
        windowStart = now
    }
}

extension HTTP2Frame {
    /// Whether this frame is one of the cheap kinds ``HTTP2FloodGuard`` counts: it asks the
    /// server to do something (decode, answer, update state) without carrying request
    /// content. WINDOW_UPDATE is not among them: a client downloading a body legitimately
    /// sends one per frame it reads.
    var makesNoProgress: Bool {
        switch payload {
        // RST_STREAM: a stream cancelled before its request completed (the rapid-reset
        // pattern, CVE-2023-44487: open, cancel, repeat); a completed request resets the count.
        case .priority, .ping, .settings, .unknown, .rstStream: true
        case .data(let bytes, _): bytes.isEmpty && !endStream
        case .continuation(let fragment): fragment.isEmpty && !endHeaders
        default: false
        }
    }
}
