import Foundation
import PushDoubleHPACK

/// The protocol side of one server HTTP/2 connection (RFC 9113), without any I/O: bytes,
/// timer firings and the responder's answers in, ``HTTP2ServerAction``s and output bytes out.
/// ``HTTP2ServerConnection`` is the adapter that feeds it from the socket and carries the
/// actions out.
///
/// How the pieces interlock:
/// - ``HTTP2FrameDecoder`` / ``HTTP2FrameEncoder`` do bytes ⇄ frames and every rule that
///   needs one frame only.
/// - This class is the connection state: preface, SETTINGS exchange, header-block
///   sequencing (CONTINUATION), stream-id rules, flow control, GOAWAY, the flood guard and
///   HPACK. Each frame handler decides with an ``HTTP2StateResult`` (data), and
///   `apply(_:stream:)` turns stream and connection errors into RST_STREAM / GOAWAY.
/// - ``HTTP2StreamStateMachine`` (one per open stream, inside ``HTTP2ServerStream``) is
///   the RFC §5.1 life cycle.
/// - HPACK comes from PushDoubleHPACK; every header block is decoded, even for streams
///   that are refused, so the dynamic table stays in sync.
///
/// Driving it: every entry point appends the actions to carry out, in order, to ``actions``,
/// which the adapter drains in place after the call. Frames go to
/// the `out` buffer, which the adapter writes once at the end of its event. A complete
/// request is handed out as ``HTTP2ServerAction/deliver(streamID:)`` (a limit refusal as
/// ``HTTP2ServerAction/limitExceeded(_:head:)``), always the last action of its list: frame
/// processing stops there until the adapter brings the responder's answer back with
/// ``respond(to:with:)`` (``answerLimit(streamID:response:)``), which carries it out and
/// goes on with the frames already read. So the answer is encoded exactly where a
/// synchronous call would have put it, and the responder may call back into the connection
/// (``updateSettings(maxConcurrentStreams:)``, ``closeGracefully(errorCode:debugData:)``)
/// while the session is between two calls.
///
/// A final class, not a value: the stream records (``HTTP2ServerStream``) are mutated in place
/// through the stream table on every frame, and the frame handlers pass them around by
/// reference; a struct holding them would copy as a value but share its streams.
///
/// Files: this one holds the state, the entry points, errors, the stream life cycle and
/// timers; `+Receiving` has one handler per frame type; `+Responding` carries out response
/// actions and the DATA pump. Members are internal rather than private only so those
/// extension files (and the adapter) can reach them; nothing outside `HTTP2/` uses them.
final class HTTP2ServerSession {
    let configuration: HTTP2Configuration
    let limits: ServerLimits
    let info: ConnectionInfo

    /// The connection's life cycle: `start` moves it to `active`; a connection error, a
    /// drained GOAWAY, the idle timeout, EOF or the adapter's `connectionClosed` to `closed`.
    enum Phase { case notStarted, active, closed }
    var phase = Phase.notStarted

    // The codecs, the output buffer, the action list, the stream tables, the send queue, the
    // connection windows and the frame-loop state are used on every frame, so Swift checks
    // each access to them dynamically (`swift_beginAccess`, ~100 instructions). The session is
    // confined to its connection's event loop and no access to one of these is made while
    // another to the same property is under way (each is one call, passing the buffer `inout`
    // to another property's method at most), so the checks are turned off for these
    // properties only; everything else keeps them.
    @exclusivity(unchecked) var decoder: HTTP2FrameDecoder
    @exclusivity(unchecked) var encoder = HTTP2FrameEncoder()
    @exclusivity(unchecked) var hpackDecoder: HPACKDecoder
    @exclusivity(unchecked) var hpackEncoder: HPACKEncoder
    /// Frames to write, in order; the adapter writes and clears it at the end of each event.
    @exclusivity(unchecked) var out: [UInt8] = []
    @exclusivity(unchecked) var blockScratch: [UInt8] = []
    /// What the adapter must do, in order: each entry point appends to it, and the adapter
    /// carries the new actions out in place and removes them (the buffer and its capacity stay,
    /// so no array is allocated per call). A call nested in a responder's callback appends
    /// behind the actions still pending and has its own removed before the outer ones go on.
    @exclusivity(unchecked) var actions: [HTTP2ServerAction] = []

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
    /// The stream whose request is out with the responder (``HTTP2ServerAction/deliver(streamID:)``
    /// or ``HTTP2ServerAction/limitExceeded(_:head:)``): frame processing waits for its answer.
    @exclusivity(unchecked) var awaitingAnswer: UInt32?
    /// The request of ``HTTP2ServerAction/deliver(streamID:)``, until the adapter takes it.
    @exclusivity(unchecked) var delivery: HTTPRequest?
    /// Frames the current turn may still handle (`limits.maxFramesPerTurn`).
    @exclusivity(unchecked) var frameBudget = 0
    /// Reading is paused because frames already read wait for the next turn.
    @exclusivity(unchecked) var inputBacklogPaused = false
    var backlogTimer: HTTP2ServerTimerID?
    var lastActivityMono: UInt64 = 0
    var idleTimer: HTTP2ServerTimerID?
    var readTimeoutTimer: HTTP2ServerTimerID?
    var nextTimerID: HTTP2ServerTimerID = 0

    /// - Parameters:
    ///   - info: the connection, for the ``RequestInfo`` of each request.
    ///   - configuration: the SETTINGS this server announces.
    ///   - limits: body, header-list, stream and timing limits.
    init(info: ConnectionInfo, configuration: HTTP2Configuration, limits: ServerLimits) {
        self.configuration = configuration
        self.limits = limits
        self.info = info
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
        actions.reserveCapacity(16)
    }

    /// The action at `index` of ``actions``, moved out (``HTTP2ServerAction/carriedOut`` left
    /// in its slot): no copy of its payload, and nothing left to release when the slot goes.
    @inline(__always) func takeAction(at index: Int) -> HTTP2ServerAction {
        take(&actions[index], .carriedOut)
    }

    // MARK: - Entry points

    /// The connection is up: the server preface (SETTINGS, a connection WINDOW_UPDATE), the
    /// idle timer, then whatever bytes came with the connection.
    func start(initialBytes: [UInt8], now: UInt64, pendingWriteBytes: Int) {
        guard phase == .notStarted else { return }
        phase = .active
        lastActivityMono = now
        floodGuard = HTTP2FloodGuard(limit: limits.maxCheapFrames, window: limits.cheapFrameWindow, now: lastActivityMono)
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
            initialBytes.withUnsafeBytes { ingest($0, now: now, pendingWriteBytes: pendingWriteBytes) }
        }
    }

    /// Bytes from the peer.
    func receive(_ bytes: UnsafeRawBufferPointer, now: UInt64, pendingWriteBytes: Int) {
        guard phase == .active else { return }
        ingest(bytes, now: now, pendingWriteBytes: pendingWriteBytes)
    }

    /// The request announced by ``HTTP2ServerAction/deliver(streamID:)``, moved out.
    func takeDelivery() -> HTTPRequest? { take(&delivery, nil) }

    /// The responder's answer to the request handed out with ``HTTP2ServerAction/deliver(streamID:)``;
    /// frame processing goes on after it.
    func respond(to streamID: UInt32, with action: ResponseAction) {
        guard awaitingAnswer == streamID else { return }
        awaitingAnswer = nil
        if phase == .active, let stream = streams[streamID] {
            execute(action, on: stream)
        }
        continueFrames()
    }

    /// The responder's answer to ``HTTP2ServerAction/limitExceeded(_:head:)``: a response, or
    /// nil for a reset; frame processing goes on after it.
    func answerLimit(streamID: UInt32, response: HTTPResponse?) {
        guard awaitingAnswer == streamID else { return }
        awaitingAnswer = nil
        if let stream = streams[streamID] {
            if let response {
                if phase == .active {
                    stream.resetAfterResponse = true
                    startResponse(stream, response, kind: .normal)
                }
            } else {
                resetStream(stream, code: .cancel, outcome: .reset)
            }
        }
        continueFrames()
    }

    /// The peer sent EOF: nothing more can arrive and HTTP/2 has no half-close at the TCP
    /// level, so flush what is queued and close.
    func inputClosed() {
        guard phase == .active else { return }
        closeNow(outcome: .connectionDropped, abort: false)
    }

    /// The socket is gone: every stream is abandoned, nothing more is written.
    func connectionClosed() {
        out.removeAll(keepingCapacity: true)
        if phase != .closed {
            phase = .closed
        }
        abandonAllStreams(outcome: .connectionDropped)
    }

    /// New SETTINGS for the peer (``ConnectionControl/updateSettings(maxConcurrentStreams:)``).
    func updateSettings(maxConcurrentStreams: UInt32?) {
        guard phase == .active else { return }
        var list: [HTTP2Setting] = []
        if let m = maxConcurrentStreams { list.append(HTTP2Setting(.maxConcurrentStreams, m)) }
        guard !list.isEmpty else { return }
        if unackedLocalSettings.count >= Self.maxUnackedSettings {
            // §6.5.3: "If the sender of a SETTINGS frame does not receive an acknowledgment
            // within a reasonable amount of time, it MAY issue a connection error of type
            // SETTINGS_TIMEOUT." A peer that leaves this many unanswered is not answering.
            connectionError(.settingsTimeout, "\(unackedLocalSettings.count) SETTINGS frames not acknowledged")
        } else {
            encoder.appendSettings(list, into: &out)
            unackedLocalSettings.append(list)
        }
    }

    /// GOAWAY with the highest stream seen; close once the streams below it are done.
    func closeGracefully(errorCode: HTTP2ErrorCode, debugData: [UInt8]) {
        guard phase == .active else { return }
        sendGoAway(lastStreamID: highestStreamID, errorCode: errorCode, debugData: debugData)
        closeWhenDrained = true
        closeIfDrained()
    }

    /// A timer asked for with ``HTTP2ServerAction/schedule(_:after:_:)`` is due.
    func timerFired(_ event: HTTP2ServerTimerEvent, now: UInt64, pendingWriteBytes: Int) {
        switch event {
        case .idle: idleTimerFired(now: now)
        case .readTimeout: readTimeoutFired(now: now)
        case .backlog:
            backlogTimer = nil
            guard phase == .active else { break }
            lastActivityMono = now
            processFrames(pendingWriteBytes: pendingWriteBytes)
        case .delayed(let streamID, let then):
            guard phase == .active, let s = streams[streamID] else { break }
            execute(then, on: s)
        case .heldUntilGoAway(let streamID):
            guard phase == .active, let then = heldForGoAway.removeValue(forKey: streamID), let s = streams[streamID] else { break }
            execute(then, on: s)
        case .dribble(let streamID, let chunkSize, let interval):
            guard phase == .active, let s = streams[streamID] else { break }
            s.outReleased = min(s.out.count, s.outReleased + chunkSize)
            if s.outReleased < s.out.count { scheduleDribble(s, chunkSize: chunkSize, interval: interval) }
            enqueue(s)
            pumpData()
        case .abortWhenWritten(let attempt):
            abortWhenWritten(attempt: attempt, pendingWriteBytes: pendingWriteBytes)
        }
    }

    /// Bytes from a streamed response's source (``HTTP2ServerAction/startBody(streamID:source:)``).
    func bodyWrite(streamID: UInt32, _ bytes: [UInt8]) {
        guard phase == .active, let s = streams[streamID], s.hasSink, !s.outEnd else { return }
        if s.outOffset > 0 && s.outOffset == s.out.count {
            s.out.removeAll(keepingCapacity: true)
            s.outOffset = 0
        }
        if s.out.count - s.outOffset + bytes.count > limits.maxBufferedOutput {
            // The source outruns the peer's flow control: refuse to buffer without bound.
            resetStream(s, code: .internalError, outcome: .reset)
        } else {
            s.out.append(contentsOf: bytes)
            s.outReleased = s.out.count
            enqueue(s)
            pumpData()
        }
    }

    /// The streamed response's source has finished.
    func bodyFinish(streamID: UInt32) {
        guard phase == .active, let s = streams[streamID], s.hasSink, !s.outEnd else { return }
        s.outEnd = true
        enqueue(s)
        pumpData()
    }

    // MARK: - Events

    /// True between the adapter's ``beginEvent()`` and ``endEvent()``.
    @exclusivity(unchecked) var inEvent = false

    /// An event starts (bytes, a timer, a sink write): timestamps are read once from here on.
    func beginEvent() {
        eventDateCache = nil
        inEvent = true
    }

    /// The event ends, before its output is written. Credit held back while too much request
    /// body was buffered goes out as soon as any event (a reset, a timeout) has released some.
    func endEvent() {
        inEvent = false
        if phase == .active && connRecvPending > 0 { returnConnectionWindow(force: false) }
    }

    /// The wall-clock time of the current event, read once per event: every timestamp an
    /// event produces (head/body received, response done) is the moment its bytes arrived
    /// or its timer fired, and one clock read per event keeps the hot path cheap.
    @exclusivity(unchecked) var eventDateCache: Date?
    func eventDate() -> Date {
        if !inEvent { return Date() }
        if let d = eventDateCache { return d }
        let d = Date()
        eventDateCache = d
        return d
    }

    /// Asks the adapter for a timer; returns its id.
    func schedule(after seconds: Double, _ event: HTTP2ServerTimerEvent) -> HTTP2ServerTimerID {
        nextTimerID += 1
        actions.append(.schedule(nextTimerID, after: seconds, event))
        return nextTimerID
    }

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

    /// Closes the connection: the adapter writes what is queued and closes, or aborts (the
    /// output is dropped).
    func closeNow(outcome: ResponseOutcome.Kind, abort: Bool) {
        guard phase == .active else { return }
        phase = .closed
        abandonAllStreams(outcome: outcome)
        if abort {
            out.removeAll(keepingCapacity: true)
            actions.append(.abort)
        } else {
            actions.append(.close)
        }
        if let t = idleTimer { actions.append(.cancelTimer(t)); idleTimer = nil }
        if let t = readTimeoutTimer { actions.append(.cancelTimer(t)); readTimeoutTimer = nil }
        if let t = backlogTimer { actions.append(.cancelTimer(t)); backlogTimer = nil }
    }

    func abandonAllStreams(outcome: ResponseOutcome.Kind) {
        let all = streams.values.sorted { $0.id < $1.id }
        streams.removeAll()
        sendQueue.removeAll()
        heldForGoAway.removeAll()
        let at = Date()
        for s in all {
            for t in s.timers { actions.append(.cancelTimer(t)) }
            s.timers.removeAll()
            if s.hasSink { actions.append(.closeBody(streamID: s.id)) }
            if let info = s.requestInfo {
                s.requestInfo = nil
                actions.append(.responseCompleted(info, ResponseOutcome(kind: outcome, at: at)))
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
        // The responder's answer comes back through `respond(to:with:)`.
        awaitingAnswer = stream.id
        delivery = request
        actions.append(.deliver(streamID: stream.id))
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
        // The responder's answer comes back through `answerLimit(streamID:response:)`.
        awaitingAnswer = stream.id
        actions.append(.limitExceeded(violation, head: head))
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
        for t in stream.timers { actions.append(.cancelTimer(t)) }
        stream.timers.removeAll()
        heldForGoAway[stream.id] = nil
        if stream.hasSink {
            stream.hasSink = false
            actions.append(.closeBody(streamID: stream.id))
        }
        if let info = stream.requestInfo {
            stream.requestInfo = nil
            actions.append(.responseCompleted(info, ResponseOutcome(kind: outcome, at: eventDate())))
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
        idleTimer = schedule(after: seconds, .idle)
    }

    func idleTimerFired(now: UInt64) {
        idleTimer = nil
        guard phase == .active else { return }
        let idleFor = Double(now &- lastActivityMono) / 1e9
        if streams.isEmpty && headerBlock == nil && idleFor >= limits.idleTimeout {
            sendGoAway(lastStreamID: highestStreamID, errorCode: .noError, debugData: [])
            closeNow(outcome: .abandoned, abort: false)
        } else {
            armIdleTimer(after: streams.isEmpty ? max(0.001, limits.idleTimeout - idleFor) : limits.idleTimeout)
        }
    }

    func armReadTimeoutTimer() {
        guard readTimeoutTimer == nil, limits.requestReadTimeout > 0, limits.requestReadTimeout.isFinite else { return }
        readTimeoutTimer = schedule(after: limits.requestReadTimeout, .readTimeout)
    }

    /// Resets streams whose request has not fully arrived within `requestReadTimeout`,
    /// and closes the connection if a header block stays unfinished that long.
    func readTimeoutFired(now: UInt64) {
        readTimeoutTimer = nil
        guard phase == .active else { return }
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
