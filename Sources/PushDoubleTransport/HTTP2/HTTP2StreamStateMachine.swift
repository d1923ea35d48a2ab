/// What a state machine decided about one frame, as data: the connection turns it into
/// frames (RST_STREAM, GOAWAY); the machines never write.
public enum HTTP2StateResult: Equatable, Sendable {
    /// Process the frame.
    case succeed
    /// Drop the frame silently (e.g. frames on a stream we reset, RFC 9113 §5.1 "closed").
    case ignore
    /// RST_STREAM with this code; the stream is closed, the connection lives on.
    case streamError(HTTP2ErrorCode, String)
    /// GOAWAY with this code, then close.
    case connectionError(HTTP2ErrorCode, String)
}

/// The RFC 9113 §5.1 life cycle of one server-side stream (client-initiated; the server
/// never pushes, so the reserved states do not occur).
///
/// ```
///                          +--------+
///                  recv H  |        |
///               ,----------|  idle  |
///              /           |        |
///             v            +--------+
///       +----------+
///       |          |  recv ES        +----------+
///       |   open   |---------------->|   half   |
///       |          |                 |  closed  |  send ES / send R / recv R
///       +----------+                 | (remote) |--------------.
///         |      |                   +----------+              |
///  send ES|      | send R / recv R                             v
///         v      `-------------------------------------->+--------+
///     +----------+        recv ES / send R / recv R      |        |
///     |   half   |-------------------------------------->| closed |
///     |  closed  |                                       |        |
///     | (local)  |                                       +--------+
///     +----------+
/// ```
///
/// Idle is not stored: a stream object exists from its first HEADERS on. "closed" is
/// kept only until the connection forgets the stream; afterwards it remembers recently
/// closed ids to answer late frames (see `HTTP2ServerConnection`). Deviation from the
/// RFC diagram: trailers (a second HEADERS with END_STREAM while open) are accepted
/// and their fields dropped.
public struct HTTP2StreamStateMachine: Sendable, Equatable {
    /// The RFC 9113 §5.1 stream states.
    public enum State: Sendable, Equatable {
        case open
        case halfClosedLocal
        case halfClosedRemote
        case closed
    }

    public private(set) var state: State
    /// The stream id, for error messages.
    public let streamID: UInt32

    /// Created by receiving HEADERS on an idle stream (idle → open, or → half-closed
    /// (remote) with END_STREAM).
    public init(receivedHeadersOn streamID: UInt32, endStream: Bool) {
        self.streamID = streamID
        self.state = endStream ? .halfClosedRemote : .open
    }

    /// Whether the peer may still send DATA / HEADERS.
    public var remoteOpen: Bool { state == .open || state == .halfClosedLocal }
    /// Whether we may still send HEADERS / DATA.
    public var localOpen: Bool { state == .open || state == .halfClosedRemote }

    /// HEADERS after the first (trailers). §8.1: trailers must carry END_STREAM.
    public mutating func receiveTrailers(endStream: Bool) -> HTTP2StateResult {
        guard remoteOpen else {
            // §5.1 half-closed (remote): "If an endpoint receives additional frames, other than
            // WINDOW_UPDATE, PRIORITY, or RST_STREAM, for a stream that is in this state, it MUST
            // respond with a stream error of type STREAM_CLOSED."
            return .streamError(.streamClosed, "HEADERS on half-closed (remote) stream \(streamID)")
        }
        guard endStream else {
            // §8.1: "An endpoint that receives a HEADERS frame without the END_STREAM flag set
            // after receiving the HEADERS frame that opens a request ... MUST treat the
            // corresponding request or response as malformed".
            return .streamError(.protocolError, "second HEADERS without END_STREAM on stream \(streamID)")
        }
        receiveEndStream()
        return .succeed
    }

    /// DATA from the peer.
    public mutating func receiveData(endStream: Bool) -> HTTP2StateResult {
        guard remoteOpen else {
            // §6.1: "If a DATA frame is received whose stream is not in the "open" or
            // "half-closed (local)" state, the recipient MUST respond with a stream error of
            // type STREAM_CLOSED."
            return .streamError(.streamClosed, "DATA on stream \(streamID) in state \(state)")
        }
        if endStream { receiveEndStream() }
        return .succeed
    }

    private mutating func receiveEndStream() {
        switch state {
        case .open: state = .halfClosedRemote
        case .halfClosedLocal: state = .closed
        case .halfClosedRemote, .closed: break
        }
    }

    /// We sent END_STREAM (on HEADERS or DATA).
    public mutating func sendEndStream() {
        switch state {
        case .open: state = .halfClosedLocal
        case .halfClosedRemote: state = .closed
        case .halfClosedLocal, .closed: break
        }
    }

    /// RST_STREAM sent or received.
    public mutating func reset() { state = .closed }
}

/// One flow-control window (RFC 9113 §6.9): may go negative after a SETTINGS change,
/// never above 2^31-1.
public struct HTTP2FlowControlWindow: Sendable, Equatable {
    public private(set) var value: Int
    public init(_ value: Int) { self.value = value }

    /// Adds a WINDOW_UPDATE increment or a SETTINGS_INITIAL_WINDOW_SIZE delta. Returns false
    /// (window unchanged) if the result would exceed 2^31-1: §6.9.1 "If a sender receives a
    /// WINDOW_UPDATE that causes a flow-control window to exceed this maximum, it MUST
    /// terminate either the stream or the connection, as appropriate."
    public mutating func adjust(by delta: Int) -> Bool {
        let n = value + delta
        if n > HTTP2Limits.maxWindowSize { return false }
        value = n
        return true
    }

    /// Takes `n` bytes (sender side) or accounts `n` received bytes (receiver side).
    /// Returns false if the window is smaller than `n`.
    public mutating func consume(_ n: Int) -> Bool {
        if n > value { return false }
        value -= n
        return true
    }
}
