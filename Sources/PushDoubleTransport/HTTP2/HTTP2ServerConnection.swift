import Foundation
import PushDoubleHPACK

/// The server side of one HTTP/2 connection (RFC 9113): turns frames into
/// ``HTTPRequest``s for a ``Responder`` and executes the ``ResponseAction`` it returns.
///
/// How the pieces interlock:
/// - ``HTTP2FrameDecoder`` / ``HTTP2FrameEncoder`` do bytes ⇄ frames and every rule that
///   needs one frame only.
/// - This class is the connection state: preface, SETTINGS exchange, header-block
///   sequencing (CONTINUATION), stream-id rules, flow control, GOAWAY. Each frame handler
///   decides with an ``HTTP2StateResult`` (data), and `apply(_:stream:)` turns stream and
///   connection errors into RST_STREAM / GOAWAY.
/// - ``HTTP2StreamStateMachine`` (one per open stream, inside ``HTTP2ServerStream``) is
///   the RFC §5.1 life cycle.
/// - HPACK comes from PushDoubleHPACK; every header block is decoded, even for streams
///   that are refused, so the dynamic table stays in sync.
///
/// Output: every event (bytes received, timer, sink write) appends frames to one reused
/// buffer and hands it to `io.write` once at the end.
///
/// Threading: loop-confined like every ``ConnectionProtocolHandler``; the only entry from
/// other threads is ``HTTP2ResponseBodySink``, which hops through `io.loopExecutor`.
///
/// Files: this one holds the state, the handler entry points, errors, the stream life
/// cycle and timers; `+Receiving` has one handler per frame type; `+Responding` carries
/// out response actions and the DATA pump. Members are internal rather than private only
/// so those extension files can reach them; nothing outside `HTTP2/` uses them.
public final class HTTP2ServerConnection: ConnectionProtocolHandler, ConnectionControl {
    let io: any ConnectionIO
    let responder: any Responder
    let configuration: HTTP2Configuration
    let limits: ServerLimits
    public let info: ConnectionInfo
    public var version: HTTPVersion { .http2 }
    public var storage: AnyObject?

    enum Phase { case notStarted, active, closed }
    var phase = Phase.notStarted

    // The codecs, the output buffer, the stream tables, the send queue and the connection
    // windows are modified on every frame, through calls, so Swift checks each access to them
    // dynamically (`swift_beginAccess`, ~100 instructions; ~30 per exchange). The connection is
    // confined to its event loop and no access to one of these is made while another to the
    // same property is under way (each is one call, passing the buffer `inout` to another
    // property's method at most), so the checks are turned off for these properties only;
    // everything else keeps them.
    @exclusivity(unchecked) var decoder: HTTP2FrameDecoder
    @exclusivity(unchecked) var encoder = HTTP2FrameEncoder()
    @exclusivity(unchecked) var hpackDecoder: HPACKDecoder
    @exclusivity(unchecked) var hpackEncoder: HPACKEncoder
    @exclusivity(unchecked) var out: [UInt8] = []
    @exclusivity(unchecked) var blockScratch: [UInt8] = []

    @exclusivity(unchecked) var streams: [UInt32: HTTP2ServerStream] = [:]
    var highestStreamID: UInt32 = 0
    /// Closed normally (END_STREAM both ways, or reset by the peer).
    @exclusivity(unchecked) var recentlyClosed = HTTP2RecentStreamIDs(capacity: 256)
    /// Closed by our RST_STREAM or abandoned by our GOAWAY: late frames are ignored.
    @exclusivity(unchecked) var recentlyReset = HTTP2RecentStreamIDs(capacity: 256)

    /// Where the client's connection preface stands: the octets are checked by the decoder,
    /// the SETTINGS frame that must follow them here (RFC 9113 §3.4).
    enum PeerPreface { case awaitingSettings, received }
    var peerPreface = PeerPreface.awaitingSettings
    var peerSettings = HTTP2SettingsValues()
    /// SETTINGS we sent and the peer has not acknowledged yet, oldest first.
    var unackedLocalSettings: [[HTTP2Setting]] = []
    var maxConcurrentStreams: UInt32
    @exclusivity(unchecked) var connSendWindow = HTTP2FlowControlWindow(HTTP2Limits.defaultInitialWindowSize)
    @exclusivity(unchecked) var connRecvWindow = HTTP2FlowControlWindow(HTTP2Limits.defaultInitialWindowSize)
    /// The stream receive window the peer assumes: 65535 until it ACKs our
    /// SETTINGS_INITIAL_WINDOW_SIZE, then that value (RFC 9113 §6.9.2).
    var localInitialWindowSize = HTTP2Limits.defaultInitialWindowSize
    /// Received bytes not yet returned with a connection WINDOW_UPDATE.
    var connRecvPending = 0
    /// Request-body bytes held in streams waiting for END_STREAM (bounded per connection).
    var bufferedBodyBytes = 0
    let maxBufferedBodyBytes: Int

    struct PendingHeaderBlock {
        var streamID: UInt32
        var block: [UInt8]
        var endStream: Bool
        var priority: HTTP2PriorityData?
        var startedMono: UInt64
        /// HEADERS + CONTINUATION frames so far, and their wire size (frame headers included).
        var frames: Int
        var wireBytes: Int
    }
    var headerBlock: PendingHeaderBlock?
    /// Frames without progress (PRIORITY, PING, ...) since the last completed request.
    var floodGuard: HTTP2FloodGuard
    /// PING and SETTINGS acknowledgements queued since the output was last fully written
    /// (``ServerLimits/maxOwedAcks``).
    var owedAcks = 0
    /// PRIORITY frames and HEADERS with priority fields received (RequestInfo.priorityFramesReceived).
    var priorityFramesReceived = 0
    let maxHeaderBlockBytes: Int

    /// Last-stream-id of the GOAWAY we sent, if any.
    var goAwayLastStreamID: UInt32?
    /// Close once every stream at or below `goAwayLastStreamID` is done.
    var closeWhenDrained = false
    /// Answers kept back until this connection sends a GOAWAY, by stream id.
    var heldForGoAway: [UInt32: ResponseAction] = [:]
    var goAwayReceived = false

    /// Streams with DATA to send, in the order they became ready.
    @exclusivity(unchecked) var sendQueue: [UInt32] = []
    /// Why reading from the socket is paused; it resumes once no reason is left.
    struct ReadPause: OptionSet {
        let rawValue: UInt8
        /// More output is buffered than `maxBufferedOutput`.
        static let output = ReadPause(rawValue: 1)
        /// Frames already read wait for the next loop turn (`maxFramesPerTurn`).
        static let inputBacklog = ReadPause(rawValue: 2)
    }
    var readPause: ReadPause = []
    var backlogTimer: TimerToken?
    var lastActivityMono: UInt64 = 0
    var idleTimer: TimerToken?
    var readTimeoutTimer: TimerToken?
    var eventDepth = 0

    /// - Parameters:
    ///   - io: the runtime side of the connection.
    ///   - responder: answers complete requests.
    ///   - configuration: the SETTINGS this server announces.
    ///   - limits: body, header-list, stream and timing limits.
    public init(io: any ConnectionIO, responder: any Responder, configuration: HTTP2Configuration, limits: ServerLimits) {
        self.io = io
        self.responder = responder
        self.configuration = configuration
        self.limits = limits
        self.info = io.info
        self.maxConcurrentStreams = configuration.initialMaxConcurrentStreams ?? limits.maxConcurrentStreams
        self.decoder = HTTP2FrameDecoder(maxFrameSize: Int(configuration.maxFrameSize), expectClientPreface: true)
        self.hpackDecoder = HPACKDecoder(maxTableSize: Int(configuration.headerTableSize), maxHeaderListSize: limits.maxHeaderListSize)
        self.hpackEncoder = HPACKEncoder(maxTableSize: HTTP2Limits.defaultHeaderTableSize, useHuffman: true,
                                         uniqueValueNames: configuration.uniqueValueResponseHeaders)
        self.maxHeaderBlockBytes = max(limits.maxHeaderListSize * 2, 64 * 1024)
        self.maxBufferedBodyBytes = max(limits.maxBodySize * 4, 16 << 20)
        self.floodGuard = HTTP2FloodGuard(limit: limits.maxCheapFrames, window: limits.cheapFrameWindow, now: 0)
        out.reserveCapacity(64 * 1024)
        blockScratch.reserveCapacity(1024)
    }

    // MARK: - ConnectionProtocolHandler

    public func connectionStarted(initialBytes: [UInt8]) {
        guard phase == .notStarted else { return }
        phase = .active
        lastActivityMono = now()
        floodGuard = HTTP2FloodGuard(limit: limits.maxCheapFrames, window: limits.cheapFrameWindow, now: lastActivityMono)
        beginEvent()
        // §3.4: "The server connection preface consists of a potentially empty SETTINGS
        // frame ... that MUST be the first frame the server sends".
        var settings = [
            HTTP2Setting(.headerTableSize, configuration.headerTableSize),
            HTTP2Setting(.maxConcurrentStreams, maxConcurrentStreams),
            HTTP2Setting(.initialWindowSize, configuration.initialWindowSize),
            HTTP2Setting(.maxFrameSize, configuration.maxFrameSize),
        ]
        if configuration.advertiseMaxHeaderListSize {
            settings.append(HTTP2Setting(.maxHeaderListSize, UInt32(clamping: limits.maxHeaderListSize)))
        }
        encoder.appendSettings(settings, into: &out)
        unackedLocalSettings.append(settings)
        let connWindow = Int(configuration.connectionWindowSize)
        if connWindow > HTTP2Limits.defaultInitialWindowSize {
            let inc = min(connWindow, HTTP2Limits.maxWindowSize) - HTTP2Limits.defaultInitialWindowSize
            encoder.appendWindowUpdate(streamID: 0, increment: UInt32(inc), into: &out)
            _ = connRecvWindow.adjust(by: inc)
        }
        armIdleTimer(after: limits.idleTimeout)
        if !initialBytes.isEmpty {
            initialBytes.withUnsafeBytes { ingest($0) }
        }
        endEvent()
    }

    public func bytesReceived(_ bytes: UnsafeRawBufferPointer) {
        guard phase == .active else { return }
        beginEvent()
        ingest(bytes)
        endEvent()
    }

    public func writeBufferDrained() {
        if readPause.contains(.output) && phase == .active {
            setReadPause(.output, false)
        }
    }

    public func inputClosed() {
        guard phase == .active else { return }
        // The peer sent EOF: nothing more can arrive and HTTP/2 has no half-close at the TCP
        // level, so flush what is queued and close.
        beginEvent()
        closeNow(outcome: .connectionDropped, abort: false)
        endEvent()
    }

    public func connectionClosed() {
        ioGone = true
        out.removeAll(keepingCapacity: true)
        if phase != .closed {
            phase = .closed
        }
        abandonAllStreams(outcome: .connectionDropped)
    }

    // MARK: - ConnectionControl

    public func updateSettings(maxConcurrentStreams: UInt32?) {
        guard phase == .active else { return }
        var list: [HTTP2Setting] = []
        if let m = maxConcurrentStreams { list.append(HTTP2Setting(.maxConcurrentStreams, m)) }
        guard !list.isEmpty else { return }
        beginEvent()
        if unackedLocalSettings.count >= Self.maxUnackedSettings {
            // §6.5.3: "If the sender of a SETTINGS frame does not receive an acknowledgment
            // within a reasonable amount of time, it MAY issue a connection error of type
            // SETTINGS_TIMEOUT." A peer that leaves this many unanswered is not answering.
            connectionError(.settingsTimeout, "\(unackedLocalSettings.count) SETTINGS frames not acknowledged")
        } else {
            encoder.appendSettings(list, into: &out)
            unackedLocalSettings.append(list)
        }
        endEvent()
    }

    public func closeGracefully(errorCode: HTTP2ErrorCode, debugData: [UInt8]) {
        guard phase == .active else { return }
        beginEvent()
        sendGoAway(lastStreamID: highestStreamID, errorCode: errorCode, debugData: debugData)
        closeWhenDrained = true
        closeIfDrained()
        endEvent()
    }

    // MARK: - Events and output

    /// Events may nest (a responder calling `updateSettings` during `respond`); only the
    /// outermost one writes.
    func beginEvent() {
        if eventDepth == 0 { eventDateCache = nil }
        eventDepth += 1
    }

    /// The wall-clock time of the current event, read once per event: every timestamp an
    /// event produces (head/body received, response done) is the moment its bytes arrived
    /// or its timer fired, and one clock read per event keeps the hot path cheap.
    var eventDateCache: Date?
    func eventDate() -> Date {
        if eventDepth == 0 { return Date() }
        if let d = eventDateCache { return d }
        let d = Date()
        eventDateCache = d
        return d
    }

    func endEvent() {
        eventDepth -= 1
        guard eventDepth == 0 else { return }
        // Credit held back while too much request body was buffered goes out as soon as any
        // event (a reset, a timeout) has released some.
        if phase == .active && connRecvPending > 0 { returnConnectionWindow(force: false) }
        flush()
    }

    func flush() {
        guard !out.isEmpty else { return }
        if ioGone || (phase == .closed && !closingGracefully) { out.removeAll(keepingCapacity: true); return }
        io.write(out)
        out.removeAll(keepingCapacity: true)
        if closeAfterFlush {
            closeAfterFlush = false
            io.close()
        }
        if phase == .active && !readPause.contains(.output) && io.pendingWriteBytes > limits.maxBufferedOutput {
            setReadPause(.output, true)
        }
    }

    func setReadPause(_ reason: ReadPause, _ on: Bool) {
        let wasReading = readPause.isEmpty
        if on { readPause.insert(reason) } else { readPause.remove(reason) }
        if wasReading != readPause.isEmpty {
            if readPause.isEmpty { io.resumeReading() } else { io.pauseReading() }
        }
    }

    var closeAfterFlush = false
    var ioGone = false
    var closingGracefully = false

    static func monotonicNow() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Monotonic nanoseconds; replaced by tests that drive a virtual clock.
    var testsOnly_clock: () -> UInt64 = HTTP2ServerConnection.monotonicNow
    func now() -> UInt64 { testsOnly_clock() }

    // MARK: Errors

    /// Applies a state-machine result; returns true when the frame should be processed.
    func apply(_ result: HTTP2StateResult, stream: HTTP2ServerStream) -> Bool {
        switch result {
        case .succeed: return true
        case .ignore: return false
        case .streamError(let code, _):
            resetStream(stream, code: code, outcome: .reset)
            return false
        case .connectionError(let code, let reason):
            connectionError(code, reason)
            return false
        }
    }

    /// RST_STREAM for a stream that may not have a stream object.
    func streamError(_ streamID: UInt32, _ code: HTTP2ErrorCode) {
        if let stream = streams[streamID] { return resetStream(stream, code: code, outcome: .reset) }
        if streamID > highestStreamID {
            // A frame-level stream error on an idle stream (e.g. WINDOW_UPDATE increment 0):
            // §5.1 idle allows only HEADERS and PRIORITY, so this is a connection error.
            return connectionError(code, "stream error \(code) on idle stream \(streamID)")
        }
        encoder.appendRstStream(streamID: streamID, code: code, into: &out)
        recentlyReset.insert(streamID)
    }

    /// §5.4.1: GOAWAY with the last stream we processed and the error, then close.
    func connectionError(_ code: HTTP2ErrorCode, _ reason: String) {
        guard phase == .active else { return }
        // sendGoAway keeps last-stream-id from rising above an earlier GOAWAY's.
        sendGoAway(lastStreamID: highestStreamID, errorCode: code, debugData: Array(reason.utf8))
        closeNow(outcome: .connectionDropped, abort: false)
    }

    /// Flushes what is queued and closes (or aborts) the connection.
    func closeNow(outcome: ResponseOutcome.Kind, abort: Bool) {
        guard phase == .active else { return }
        phase = .closed
        abandonAllStreams(outcome: outcome)
        if abort {
            out.removeAll(keepingCapacity: true)
            io.abort()
        } else {
            closingGracefully = true
            closeAfterFlush = true
            if out.isEmpty {
                closeAfterFlush = false
                io.close()
            }
        }
        if let t = idleTimer { io.cancelTimer(t); idleTimer = nil }
        if let t = readTimeoutTimer { io.cancelTimer(t); readTimeoutTimer = nil }
        if let t = backlogTimer { io.cancelTimer(t); backlogTimer = nil }
    }

    func abandonAllStreams(outcome: ResponseOutcome.Kind) {
        let all = streams.values.sorted { $0.id < $1.id }
        streams.removeAll()
        sendQueue.removeAll()
        heldForGoAway.removeAll()
        let at = Date()
        for s in all {
            for t in s.timers { io.cancelTimer(t) }
            s.timers.removeAll()
            s.sink?.close()
            if let info = s.requestInfo {
                s.requestInfo = nil
                responder.responseCompleted(for: info, outcome: ResponseOutcome(kind: outcome, at: at))
            }
        }
    }

    // MARK: - Stream life cycle

    /// The peer ended its side (END_STREAM on DATA or trailers).
    func remoteEnded(_ stream: HTTP2ServerStream) {
        if stream.machine.state == .closed {
            closeStream(stream, reset: false, outcome: .completed)
        } else if !stream.requestDone && !stream.discardBody {
            requestComplete(stream)
        }
    }

    func requestComplete(_ stream: HTTP2ServerStream) {
        stream.requestDone = true
        floodGuard.progress(at: lastActivityMono)
        let body = stream.body
        bufferedBodyBytes -= body.count
        stream.body = []
        let info = RequestInfo(connection: info, streamID: stream.id, version: .http2,
                               headReceivedAt: stream.headReceivedAt, bodyReceivedAt: body.isEmpty ? stream.headReceivedAt : eventDate(),
                               priorityFramesReceived: priorityFramesReceived)
        // The head moves out of the stream (nothing reads it there after this): no copy.
        let request = HTTPRequest(method: take(&stream.method, ""), path: take(&stream.path, ""), scheme: take(&stream.scheme, ""),
                                  authority: take(&stream.authority, nil), headers: take(&stream.headers, HTTPHeaders()),
                                  body: body, info: info)
        stream.requestInfo = info
        let action = responder.respond(to: request, context: RequestContext(connection: self))
        guard phase == .active, streams[stream.id] === stream else { return }
        execute(action, on: stream)
    }

    /// A limit refused the request before it was complete: answer with the responder's
    /// response (then RST_STREAM NO_ERROR if the request is still arriving), or reset.
    func refuseByLimit(_ stream: HTTP2ServerStream, _ violation: LimitViolation) {
        stream.discardBody = true
        stream.requestDone = true
        bufferedBodyBytes -= stream.body.count
        stream.body = []
        let info = RequestInfo(connection: info, streamID: stream.id, version: .http2, headReceivedAt: stream.headReceivedAt, bodyReceivedAt: eventDate(),
                               priorityFramesReceived: priorityFramesReceived)
        let head = HTTPRequest(method: stream.method, path: stream.path, scheme: stream.scheme,
                               authority: stream.authority, headers: stream.headers, body: [], info: info)
        stream.requestInfo = info
        guard let response = responder.limitExceeded(violation, head: head, context: RequestContext(connection: self)) else {
            return resetStream(stream, code: .cancel, outcome: .reset)
        }
        guard phase == .active, streams[stream.id] === stream else { return }
        stream.resetAfterResponse = true
        startResponse(stream, response, kind: .normal)
    }

    /// Sends RST_STREAM and forgets the stream.
    func resetStream(_ stream: HTTP2ServerStream, code: HTTP2ErrorCode, outcome: ResponseOutcome.Kind) {
        encoder.appendRstStream(streamID: stream.id, code: code, into: &out)
        stream.machine.reset()
        closeStream(stream, reset: true, outcome: outcome)
    }

    /// Removes a closed stream, reporting the response outcome once.
    func closeStream(_ stream: HTTP2ServerStream, reset: Bool, outcome: ResponseOutcome.Kind) {
        guard streams.removeValue(forKey: stream.id) != nil else { return }
        if reset { recentlyReset.insert(stream.id) } else { recentlyClosed.insert(stream.id) }
        if !stream.requestDone { bufferedBodyBytes -= stream.body.count; stream.body = [] }
        for t in stream.timers { io.cancelTimer(t) }
        stream.timers.removeAll()
        heldForGoAway[stream.id] = nil
        stream.sink?.close()
        stream.sink = nil
        if let info = stream.requestInfo {
            stream.requestInfo = nil
            responder.responseCompleted(for: info, outcome: ResponseOutcome(kind: outcome, at: eventDate()))
        }
        closeIfDrained()
    }

    func closeIfDrained() {
        guard phase == .active else { return }
        if closeWhenDrained {
            let last = goAwayLastStreamID ?? highestStreamID
            if !streams.keys.contains(where: { $0 <= last }) {
                closeNow(outcome: .abandoned, abort: false)
            }
        } else if goAwayReceived && streams.isEmpty {
            closeNow(outcome: .abandoned, abort: false)
        }
    }

    // MARK: - Timers

    func armIdleTimer(after seconds: Double) {
        guard seconds > 0, seconds.isFinite else { return }
        idleTimer = io.schedule(after: seconds) { [weak self] in self?.idleTimerFired() }
    }

    func idleTimerFired() {
        idleTimer = nil
        guard phase == .active else { return }
        let idleFor = Double(now() &- lastActivityMono) / 1e9
        if streams.isEmpty && headerBlock == nil && idleFor >= limits.idleTimeout {
            beginEvent()
            sendGoAway(lastStreamID: highestStreamID, errorCode: .noError, debugData: [])
            closeNow(outcome: .abandoned, abort: false)
            endEvent()
        } else {
            armIdleTimer(after: streams.isEmpty ? max(0.001, limits.idleTimeout - idleFor) : limits.idleTimeout)
        }
    }

    func armReadTimeoutTimer() {
        guard readTimeoutTimer == nil, limits.requestReadTimeout > 0, limits.requestReadTimeout.isFinite else { return }
        readTimeoutTimer = io.schedule(after: limits.requestReadTimeout) { [weak self] in self?.readTimeoutFired() }
    }

    /// Resets streams whose request has not fully arrived within `requestReadTimeout`,
    /// and closes the connection if a header block stays unfinished that long.
    func readTimeoutFired() {
        readTimeoutTimer = nil
        guard phase == .active else { return }
        beginEvent()
        defer { endEvent() }
        let now = self.now()
        let limitNs = UInt64(limits.requestReadTimeout * 1e9)
        if let hb = headerBlock, now &- hb.startedMono >= limitNs {
            return connectionError(.protocolError, "header block not completed within \(limits.requestReadTimeout) s")
        }
        var pending = headerBlock != nil
        for s in streams.values.sorted(by: { $0.id < $1.id }) where !s.requestDone {
            if now &- s.headReceivedMono >= limitNs {
                resetStream(s, code: .cancel, outcome: .reset)
            } else {
                pending = true
            }
        }
        if pending { armReadTimeoutTimer() }
    }

    // MARK: - Test hooks

    /// The current number of open streams (tests).
    var testsOnly_openStreamCount: Int { streams.count }
    /// The enforced concurrent-stream limit (tests).
    var testsOnly_maxConcurrentStreams: UInt32 { maxConcurrentStreams }
}

/// `value`, leaving `replacement` in its place: a move out of a stored property (a swap, no
/// retain or release).
@inline(__always) private func take<T>(_ value: inout T, _ replacement: T) -> T {
    var moved = replacement
    swap(&value, &moved)
    return moved
}
