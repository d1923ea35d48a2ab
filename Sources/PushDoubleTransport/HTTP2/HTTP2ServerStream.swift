import Foundation

/// Everything the server connection keeps about one open client stream: its RFC state,
/// flow-control windows, the request being received and the response being sent.
///
/// Loop-confined (owned by one ``HTTP2ServerSession``); a class so the session can
/// mutate it in place through the stream table.
///
/// The state machine, the windows and the body buffers are modified through calls on every
/// frame; as in the connection, their dynamic exclusivity checks are off (one loop, no
/// overlapping access to the same property).
final class HTTP2ServerStream {
    let id: UInt32
    @exclusivity(unchecked) var machine: HTTP2StreamStateMachine
    /// What we may still send on this stream (peer's INITIAL_WINDOW_SIZE + its updates).
    @exclusivity(unchecked) var sendWindow: HTTP2FlowControlWindow
    /// What the peer may still send on this stream.
    @exclusivity(unchecked) var recvWindow: HTTP2FlowControlWindow
    /// Received bytes not yet returned with a stream WINDOW_UPDATE.
    var recvPending = 0

    // Request (the head moves into the `HTTPRequest` handed to the responder)
    var method = ""
    var path = ""
    var scheme = ""
    var authority: String?
    @exclusivity(unchecked) var headers = HTTPHeaders()
    var contentLength: Int?
    @exclusivity(unchecked) var body: [UInt8] = []
    var headReceivedAt: Date
    /// Monotonic nanoseconds when the head arrived (request read timeout).
    var headReceivedMono: UInt64
    /// The request was complete and handed to the responder (or refused by a limit).
    var requestDone = false
    /// DATA for this stream is counted for flow control and dropped (limit answered).
    var discardBody = false
    /// The request info given to the responder; set once `respond` or `limitExceeded` ran.
    var requestInfo: RequestInfo?

    // Response
    var headersSent = false
    /// Body bytes to send; `outOffset` of them are sent, `outReleased` may be sent now.
    @exclusivity(unchecked) var out: [UInt8] = []
    var outOffset = 0
    var outReleased = 0
    /// END_STREAM once every byte of `out` is sent.
    var outEnd = false
    /// Largest DATA payload (chunked / dribble framing).
    var maxChunk = Int.max
    /// `.truncate`: drop the connection once `out` is sent.
    var abortAfterBody = false
    /// Send RST_STREAM NO_ERROR after the response if the request is still arriving.
    var resetAfterResponse = false
    var inSendQueue = false
    /// Timers asked of the adapter for this stream (delayed and held answers, dribble).
    @exclusivity(unchecked) var timers: [HTTP2ServerTimerID] = []
    /// A streamed response's source is writing through a sink the adapter holds.
    var hasSink = false

    init(id: UInt32, endStream: Bool, sendWindow: Int, recvWindow: Int, now: Date, mono: UInt64) {
        self.id = id
        self.machine = HTTP2StreamStateMachine(receivedHeadersOn: id, endStream: endStream)
        self.sendWindow = HTTP2FlowControlWindow(sendWindow)
        self.recvWindow = HTTP2FlowControlWindow(recvWindow)
        self.headReceivedAt = now
        self.headReceivedMono = mono
    }

    /// Bytes ready to go now.
    var readyBytes: Int { outReleased - outOffset }
}

/// A fixed-size ring of recently closed stream ids, to tell late frames on closed streams
/// from frames on idle ones without remembering every id.
struct HTTP2RecentStreamIDs {
    private var ids: [UInt32]
    private var next = 0
    init(capacity: Int) { ids = Array(repeating: 0, count: capacity) }
    mutating func insert(_ id: UInt32) {
        ids[next] = id
        next = (next + 1) % ids.count
    }
    func contains(_ id: UInt32) -> Bool { id != 0 && ids.contains(id) }
}
