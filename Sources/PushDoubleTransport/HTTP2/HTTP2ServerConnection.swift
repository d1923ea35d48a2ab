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
public final class HTTP2ServerConnection: ConnectionProtocolHandler, ConnectionControl {
    private let io: any ConnectionIO
    private let responder: any Responder
    private let configuration: HTTP2Configuration
    private let limits: ServerLimits
    public let info: ConnectionInfo
    public var version: HTTPVersion { .http2 }
    public var storage: AnyObject?

    private enum Phase { case notStarted, active, closed }
    private var phase = Phase.notStarted

    private var decoder: HTTP2FrameDecoder
    private var encoder = HTTP2FrameEncoder()
    private var hpackDecoder: HPACKDecoder
    private var hpackEncoder: HPACKEncoder
    private var out: [UInt8] = []
    private var blockScratch: [UInt8] = []

    private var streams: [UInt32: HTTP2ServerStream] = [:]
    private var highestStreamID: UInt32 = 0
    /// Closed normally (END_STREAM both ways, or reset by the peer).
    private var recentlyClosed = HTTP2RecentStreamIDs(capacity: 256)
    /// Closed by our RST_STREAM or abandoned by our GOAWAY: late frames are ignored.
    private var recentlyReset = HTTP2RecentStreamIDs(capacity: 256)

    private var peerSettings = HTTP2SettingsValues()
    /// SETTINGS we sent and the peer has not acknowledged yet, oldest first.
    private var unackedLocalSettings: [[HTTP2Setting]] = []
    private var maxConcurrentStreams: UInt32
    private var connSendWindow = HTTP2FlowControlWindow(HTTP2Limits.defaultInitialWindowSize)
    private var connRecvWindow = HTTP2FlowControlWindow(HTTP2Limits.defaultInitialWindowSize)
    /// Received bytes not yet returned with a connection WINDOW_UPDATE.
    private var connRecvPending = 0
    /// Request-body bytes held in streams waiting for END_STREAM (bounded per connection).
    private var bufferedBodyBytes = 0
    private let maxBufferedBodyBytes: Int

    private struct PendingHeaderBlock {
        var streamID: UInt32
        var block: [UInt8]
        var endStream: Bool
        var priority: HTTP2PriorityData?
        var startedMono: UInt64
    }
    private var headerBlock: PendingHeaderBlock?
    private let maxHeaderBlockBytes: Int

    /// Last-stream-id of the GOAWAY we sent, if any.
    private var goAwayLastStreamID: UInt32?
    /// Close once every stream at or below `goAwayLastStreamID` is done.
    private var closeWhenDrained = false
    private var goAwayReceived = false

    /// Streams with DATA to send, in the order they became ready.
    private var sendQueue: [UInt32] = []
    private var readingPaused = false
    private var lastActivityMono: UInt64 = 0
    private var idleTimer: TimerToken?
    private var readTimeoutTimer: TimerToken?
    private var eventDepth = 0

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
        self.hpackEncoder = HPACKEncoder(maxTableSize: HTTP2Limits.defaultHeaderTableSize, useHuffman: true)
        self.maxHeaderBlockBytes = max(limits.maxHeaderListSize * 2, 64 * 1024)
        self.maxBufferedBodyBytes = max(limits.maxBodySize * 4, 16 << 20)
        out.reserveCapacity(64 * 1024)
        blockScratch.reserveCapacity(1024)
    }

    // MARK: - ConnectionProtocolHandler

    public func connectionStarted(initialBytes: [UInt8]) {
        guard phase == .notStarted else { return }
        phase = .active
        lastActivityMono = now()
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
        if readingPaused && phase == .active {
            readingPaused = false
            io.resumeReading()
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
    private func beginEvent() {
        if eventDepth == 0 { eventDateCache = nil }
        eventDepth += 1
    }

    /// The wall-clock time of the current event, read once per event: every timestamp an
    /// event produces (head/body received, response done) is the moment its bytes arrived
    /// or its timer fired, and one clock read per event keeps the hot path cheap.
    private var eventDateCache: Date?
    private func eventDate() -> Date {
        if eventDepth == 0 { return Date() }
        if let d = eventDateCache { return d }
        let d = Date()
        eventDateCache = d
        return d
    }

    private func endEvent() {
        eventDepth -= 1
        guard eventDepth == 0 else { return }
        flush()
    }

    private func flush() {
        guard !out.isEmpty else { return }
        if ioGone || (phase == .closed && !closingGracefully) { out.removeAll(keepingCapacity: true); return }
        io.write(out)
        out.removeAll(keepingCapacity: true)
        if closeAfterFlush {
            closeAfterFlush = false
            io.close()
        }
        if phase == .active && !readingPaused && io.pendingWriteBytes > limits.maxBufferedOutput {
            readingPaused = true
            io.pauseReading()
        }
    }

    private var closeAfterFlush = false
    private var ioGone = false
    private var closingGracefully = false

    static func monotonicNow() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Monotonic nanoseconds; replaced by tests that drive a virtual clock.
    var testsOnly_clock: () -> UInt64 = HTTP2ServerConnection.monotonicNow
    private func now() -> UInt64 { testsOnly_clock() }

    // MARK: - Input

    private func ingest(_ bytes: UnsafeRawBufferPointer) {
        lastActivityMono = now()
        decoder.append(bytes)
        while phase == .active {
            let frame: HTTP2Frame?
            do {
                frame = try decoder.nextFrame()
            } catch {
                switch error.scope {
                case .connection: connectionError(error.code, error.reason)
                case .stream(let id): streamError(id, error.code)
                }
                continue
            }
            guard let frame else { break }
            receive(frame)
        }
        if phase == .active { returnConnectionWindow(force: false) }
    }

    private func receive(_ frame: HTTP2Frame) {
        // §6.10: "If the END_HEADERS flag is not set, this frame MUST be followed by another
        // CONTINUATION frame ... Receipt of any other type of frame or a frame on a different
        // stream MUST be treated as a connection error of type PROTOCOL_ERROR."
        if var pending = headerBlock {
            guard case .continuation(let fragment) = frame.payload, frame.streamID == pending.streamID else {
                return connectionError(.protocolError, "expected CONTINUATION on stream \(pending.streamID), got \(frame.type) on stream \(frame.streamID)")
            }
            if pending.block.count + fragment.count > maxHeaderBlockBytes {
                return connectionError(.enhanceYourCalm, "header block larger than \(maxHeaderBlockBytes) bytes")
            }
            pending.block.append(contentsOf: fragment)
            if frame.endHeaders {
                headerBlock = nil
                headerBlockComplete(streamID: pending.streamID, block: pending.block, endStream: pending.endStream, priority: pending.priority)
            } else {
                headerBlock = pending
            }
            return
        }
        switch frame.payload {
        case .data(let bytes, _):
            receiveData(streamID: frame.streamID, bytes: bytes, flowLength: frame.wireLength, endStream: frame.endStream)
        case .headers(let h):
            if frame.endHeaders {
                headerBlockComplete(streamID: frame.streamID, block: h.fragment, endStream: frame.endStream, priority: h.priority)
            } else {
                headerBlock = PendingHeaderBlock(streamID: frame.streamID, block: h.fragment, endStream: frame.endStream,
                                                 priority: h.priority, startedMono: lastActivityMono)
                armReadTimeoutTimer()
            }
        case .priority:
            // §5.3.2: the priority signalling scheme is deprecated; PRIORITY is accepted and ignored.
            break
        case .rstStream(let code):
            receiveRstStream(streamID: frame.streamID, code: code)
        case .settings(let list):
            if frame.isAck { receiveSettingsAck() } else { receiveSettings(list) }
        case .pushPromise:
            // §8.4: "A client cannot push. Thus, servers MUST treat the receipt of a PUSH_PROMISE
            // frame as a connection error of type PROTOCOL_ERROR."
            connectionError(.protocolError, "client sent PUSH_PROMISE")
        case .ping(let opaque):
            // §6.7: "Receivers of a PING frame that does not include an ACK flag MUST send a
            // PING frame with the ACK flag set in response, with an identical frame payload."
            if !frame.isAck { encoder.appendPing(opaque, ack: true, into: &out) }
        case .goAway:
            goAwayReceived = true
            closeIfDrained()
        case .windowUpdate(let increment):
            receiveWindowUpdate(streamID: frame.streamID, increment: Int(increment))
        case .continuation:
            connectionError(.protocolError, "CONTINUATION without a preceding HEADERS on stream \(frame.streamID)")
        case .unknown:
            // §4.1: "Implementations MUST ignore and discard frames of unknown types."
            break
        }
    }

    // MARK: HEADERS

    private func headerBlockComplete(streamID: UInt32, block: [UInt8], endStream: Bool, priority: HTTP2PriorityData?) {
        // Decode first, always: the HPACK context is shared by every stream (§4.3).
        var listTooLarge: String?
        var fields: [HeaderField] = []
        do {
            fields = try hpackDecoder.decode(block)
        } catch {
            if case .headerListTooLarge = error {
                listTooLarge = "header list larger than SETTINGS_MAX_HEADER_LIST_SIZE \(limits.maxHeaderListSize)"
            } else {
                // §4.3: "A decoding error in a field block MUST be treated as a connection error
                // of type COMPRESSION_ERROR."
                return connectionError(.compressionError, error.description)
            }
        }

        if let stream = streams[streamID] {
            // A second HEADERS: trailers.
            let r = stream.machine.receiveTrailers(endStream: endStream)
            guard apply(r, stream: stream) else { return }
            var trailers = HTTP2RequestHeadValidator(trailers: true)
            for f in fields where !trailers.add(name: f.name, value: f.value) { break }
            if listTooLarge != nil || trailers.finish() != nil {
                return resetStream(stream, code: .protocolError, outcome: .reset)
            }
            remoteEnded(stream)
            return
        }
        // §5.1.1: "Streams initiated by a client MUST use odd-numbered stream identifiers";
        // "An endpoint that receives an unexpected stream identifier MUST respond with a
        // connection error of type PROTOCOL_ERROR."
        if streamID % 2 == 0 {
            return connectionError(.protocolError, "client opened even-numbered stream \(streamID)")
        }
        if streamID <= highestStreamID {
            if recentlyReset.contains(streamID) { return }
            if recentlyClosed.contains(streamID) {
                // §5.1 closed: receipt of frames other than PRIORITY "MAY" be treated as a
                // connection error of type STREAM_CLOSED.
                return connectionError(.streamClosed, "HEADERS on closed stream \(streamID)")
            }
            // §5.1.1: "The identifier of a newly established stream MUST be numerically greater
            // than all streams that the initiating endpoint has opened or reserved."
            return connectionError(.protocolError, "stream id \(streamID) is not greater than \(highestStreamID)")
        }
        highestStreamID = streamID
        if let last = goAwayLastStreamID, streamID > last {
            // §6.8: after GOAWAY the sender ignores frames on streams initiated after last-stream-id.
            recentlyReset.insert(streamID)
            return
        }
        if let p = priority, p.dependency == streamID {
            // §5.3.1: "A stream cannot depend on itself ... stream error of type PROTOCOL_ERROR."
            return streamError(streamID, .protocolError)
        }
        if UInt32(clamping: streams.count) >= maxConcurrentStreams {
            // §5.1.2: "An endpoint that receives a HEADERS frame that causes its advertised
            // concurrent stream limit to be exceeded MUST treat this as a stream error of type
            // PROTOCOL_ERROR or REFUSED_STREAM."
            return streamError(streamID, .refusedStream)
        }
        let arrived = eventDate()
        let stream = HTTP2ServerStream(id: streamID, endStream: endStream,
                                       sendWindow: peerSettings.initialWindowSize,
                                       recvWindow: Int(configuration.initialWindowSize),
                                       now: arrived, mono: lastActivityMono)
        var head = HTTP2RequestHeadValidator()
        for f in fields where !head.add(name: f.name, value: f.value) { break }
        let malformed = head.finish()
        stream.method = head.method ?? ""
        stream.path = head.path ?? ""
        stream.scheme = head.scheme ?? ""
        stream.authority = head.authority ?? head.headers.first(name: "host")
        stream.headers = head.headers
        stream.contentLength = head.contentLength
        streams[streamID] = stream

        if let listTooLarge {
            return refuseByLimit(stream, LimitViolation(kind: .headerListTooLarge, message: listTooLarge))
        }
        if malformed != nil {
            // §8.1.1: malformed → stream error PROTOCOL_ERROR.
            return resetStream(stream, code: .protocolError, outcome: .reset)
        }
        if let cl = stream.contentLength, cl > limits.maxBodySize {
            return refuseByLimit(stream, LimitViolation(kind: .bodyTooLarge,
                message: "request body (content-length \(cl)) larger than \(limits.maxBodySize) bytes"))
        }
        if endStream {
            if let cl = stream.contentLength, cl != 0 {
                return resetStream(stream, code: .protocolError, outcome: .reset)
            }
            requestComplete(stream)
        } else {
            armReadTimeoutTimer()
        }
    }

    // MARK: DATA

    private func receiveData(streamID: UInt32, bytes: [UInt8], flowLength: Int, endStream: Bool) {
        // §6.9.1: DATA counts against the connection window whatever the stream's state.
        if !connRecvWindow.consume(flowLength) {
            return connectionError(.flowControlError, "DATA of \(flowLength) bytes exceeds the connection window")
        }
        connRecvPending += flowLength
        guard let stream = streams[streamID] else {
            if streamID > highestStreamID {
                // §5.1 idle: "Receiving any frame other than HEADERS or PRIORITY on a stream in
                // this state MUST be treated as a connection error of type PROTOCOL_ERROR."
                return connectionError(.protocolError, "DATA on idle stream \(streamID)")
            }
            if recentlyReset.contains(streamID) { return }
            // §6.1: DATA on a stream not open or half-closed (local) → stream error STREAM_CLOSED.
            return streamError(streamID, .streamClosed)
        }
        if !stream.recvWindow.consume(flowLength) {
            return resetStream(stream, code: .flowControlError, outcome: .reset)
        }
        let r = stream.machine.receiveData(endStream: endStream)
        guard apply(r, stream: stream) else { return }
        stream.recvPending += flowLength
        if stream.discardBody {
            if endStream { remoteEnded(stream) }
            return
        }
        if !bytes.isEmpty {
            if stream.body.count + bytes.count > limits.maxBodySize {
                return refuseByLimit(stream, LimitViolation(kind: .bodyTooLarge,
                    message: "request body larger than \(limits.maxBodySize) bytes"))
            }
            if let cl = stream.contentLength, stream.body.count + bytes.count > cl {
                // §8.1.1: content-length not equal to the sum of DATA lengths → malformed.
                return resetStream(stream, code: .protocolError, outcome: .reset)
            }
            if stream.body.isEmpty { stream.body.reserveCapacity(stream.contentLength ?? bytes.count) }
            stream.body.append(contentsOf: bytes)
            bufferedBodyBytes += bytes.count
        }
        if endStream {
            if let cl = stream.contentLength, cl != stream.body.count {
                return resetStream(stream, code: .protocolError, outcome: .reset)
            }
            requestComplete(stream)
        } else if stream.recvPending >= Int(configuration.initialWindowSize) / 2 {
            let inc = stream.recvPending
            stream.recvPending = 0
            _ = stream.recvWindow.adjust(by: inc)
            encoder.appendWindowUpdate(streamID: streamID, increment: UInt32(inc), into: &out)
        }
    }

    /// Returns received bytes to the peer's connection window, batched: only once half the
    /// window is used (or when forced), and not while too much request body is buffered.
    private func returnConnectionWindow(force: Bool) {
        guard connRecvPending > 0 else { return }
        if bufferedBodyBytes > maxBufferedBodyBytes { return }
        if force || connRecvPending >= Int(configuration.connectionWindowSize) / 2 || connRecvWindow.value < HTTP2Limits.defaultMaxFrameSize {
            let inc = connRecvPending
            connRecvPending = 0
            _ = connRecvWindow.adjust(by: inc)
            encoder.appendWindowUpdate(streamID: 0, increment: UInt32(inc), into: &out)
        }
    }

    // MARK: Other frames

    private func receiveRstStream(streamID: UInt32, code: HTTP2ErrorCode) {
        if let stream = streams[streamID] {
            stream.machine.reset()
            closeStream(stream, reset: false, outcome: .abandoned)
        } else if streamID > highestStreamID {
            // §6.4: "If a RST_STREAM frame identifying an idle stream is received, the recipient
            // MUST treat this as a connection error of type PROTOCOL_ERROR."
            connectionError(.protocolError, "RST_STREAM on idle stream \(streamID)")
        }
    }

    private func receiveSettings(_ list: [HTTP2Setting]) {
        for s in list {
            switch s.id {
            case .initialWindowSize:
                // §6.9.2: the change applies to every stream window, which may go negative;
                // "An endpoint MUST treat a change to SETTINGS_INITIAL_WINDOW_SIZE that causes any
                // flow-control window to exceed the maximum size as a connection error of type
                // FLOW_CONTROL_ERROR."
                let delta = Int(s.value) - peerSettings.initialWindowSize
                for stream in streams.values where !stream.sendWindow.adjust(by: delta) {
                    return connectionError(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE \(s.value) overflows the window of stream \(stream.id)")
                }
            case .headerTableSize:
                hpackEncoder.setMaxTableSize(min(Int(s.value), HTTP2Limits.defaultHeaderTableSize))
            case .maxFrameSize:
                encoder.maxFrameSize = Int(s.value)
            default: break
            }
            peerSettings.apply([s])
        }
        // §6.5.3: "Upon receiving a SETTINGS frame with the ACK flag set ... the receiver
        // MUST immediately emit a SETTINGS frame with the ACK flag set".
        encoder.appendSettingsAck(into: &out)
        pumpData()
    }

    private func receiveSettingsAck() {
        guard !unackedLocalSettings.isEmpty else { return }
        let acked = unackedLocalSettings.removeFirst()
        for s in acked where s.id == .maxConcurrentStreams {
            maxConcurrentStreams = s.value
        }
    }

    private func receiveWindowUpdate(streamID: UInt32, increment: Int) {
        if streamID == 0 {
            if !connSendWindow.adjust(by: increment) {
                return connectionError(.flowControlError, "WINDOW_UPDATE overflows the connection window")
            }
            pumpData()
            return
        }
        guard let stream = streams[streamID] else {
            if streamID > highestStreamID {
                return connectionError(.protocolError, "WINDOW_UPDATE on idle stream \(streamID)")
            }
            return // closed: §6.9 allows WINDOW_UPDATE on closed streams.
        }
        if !stream.sendWindow.adjust(by: increment) {
            return resetStream(stream, code: .flowControlError, outcome: .reset)
        }
        pumpData()
    }

    // MARK: Errors

    /// Applies a state-machine result; returns true when the frame should be processed.
    private func apply(_ result: HTTP2StateResult, stream: HTTP2ServerStream) -> Bool {
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
    private func streamError(_ streamID: UInt32, _ code: HTTP2ErrorCode) {
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
    private func connectionError(_ code: HTTP2ErrorCode, _ reason: String) {
        guard phase == .active else { return }
        encoder.appendGoAway(lastStreamID: highestStreamID, errorCode: code, debugData: Array(reason.utf8), into: &out)
        closeNow(outcome: .connectionDropped, abort: false)
    }

    /// Flushes what is queued and closes (or aborts) the connection.
    private func closeNow(outcome: ResponseOutcome.Kind, abort: Bool) {
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
    }

    private func abandonAllStreams(outcome: ResponseOutcome.Kind) {
        let all = streams.values.sorted { $0.id < $1.id }
        streams.removeAll()
        sendQueue.removeAll()
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
    private func remoteEnded(_ stream: HTTP2ServerStream) {
        if stream.machine.state == .closed {
            closeStream(stream, reset: false, outcome: .completed)
        } else if !stream.requestDone && !stream.discardBody {
            requestComplete(stream)
        }
    }

    private func requestComplete(_ stream: HTTP2ServerStream) {
        stream.requestDone = true
        let body = stream.body
        bufferedBodyBytes -= body.count
        stream.body = []
        let info = RequestInfo(connection: info, streamID: stream.id, version: .http2,
                               headReceivedAt: stream.headReceivedAt, bodyReceivedAt: body.isEmpty ? stream.headReceivedAt : eventDate())
        let request = HTTPRequest(method: stream.method, path: stream.path, scheme: stream.scheme,
                                  authority: stream.authority, headers: stream.headers, body: body, info: info)
        stream.requestInfo = info
        let action = responder.respond(to: request, context: RequestContext(connection: self))
        guard phase == .active, streams[stream.id] === stream else { return }
        execute(action, on: stream)
    }

    /// A limit refused the request before it was complete: answer with the responder's
    /// response (then RST_STREAM NO_ERROR if the request is still arriving), or reset.
    private func refuseByLimit(_ stream: HTTP2ServerStream, _ violation: LimitViolation) {
        stream.discardBody = true
        stream.requestDone = true
        bufferedBodyBytes -= stream.body.count
        stream.body = []
        let info = RequestInfo(connection: info, streamID: stream.id, version: .http2, headReceivedAt: stream.headReceivedAt, bodyReceivedAt: eventDate())
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
    private func resetStream(_ stream: HTTP2ServerStream, code: HTTP2ErrorCode, outcome: ResponseOutcome.Kind) {
        encoder.appendRstStream(streamID: stream.id, code: code, into: &out)
        stream.machine.reset()
        closeStream(stream, reset: true, outcome: outcome)
    }

    /// Removes a closed stream, reporting the response outcome once.
    private func closeStream(_ stream: HTTP2ServerStream, reset: Bool, outcome: ResponseOutcome.Kind) {
        guard streams.removeValue(forKey: stream.id) != nil else { return }
        if reset { recentlyReset.insert(stream.id) } else { recentlyClosed.insert(stream.id) }
        if !stream.requestDone { bufferedBodyBytes -= stream.body.count; stream.body = [] }
        for t in stream.timers { io.cancelTimer(t) }
        stream.timers.removeAll()
        stream.sink?.close()
        stream.sink = nil
        if let info = stream.requestInfo {
            stream.requestInfo = nil
            responder.responseCompleted(for: info, outcome: ResponseOutcome(kind: outcome, at: eventDate()))
        }
        closeIfDrained()
    }

    private func closeIfDrained() {
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

    // MARK: - Response actions

    private enum ResponseKind {
        case normal
        case dribble(chunkSize: Int, interval: Double)
        case truncate(bodyBytes: Int)
        case stream(any ResponseBodySource)
    }

    private func execute(_ action: ResponseAction, on stream: HTTP2ServerStream) {
        switch action {
        case .respond(let response):
            startResponse(stream, response, kind: .normal)
        case .delayed(let seconds, let then):
            let id = stream.id
            let token = io.schedule(after: seconds) { [weak self] in
                guard let self, self.phase == .active, let s = self.streams[id] else { return }
                self.beginEvent()
                self.execute(then, on: s)
                self.endEvent()
            }
            stream.timers.append(token)
        case .resetStream(let code):
            resetStream(stream, code: code, outcome: .reset)
        case .goAway(let which, let code, let debug, let then):
            let last: UInt32
            switch which {
            case .beforeThisStream: last = stream.id >= 2 ? stream.id - 2 : 0
            case .thisStream: last = stream.id
            case .highestSeen: last = highestStreamID
            case .explicit(let v): last = v
            }
            sendGoAway(lastStreamID: last, errorCode: code, debugData: debug)
            // Streams above last-stream-id were not processed: forget them without a frame.
            for s in streams.values.sorted(by: { $0.id < $1.id }) where s.id > last {
                closeStream(s, reset: true, outcome: .abandoned)
            }
            closeWhenDrained = true
            if stream.id <= last, streams[stream.id] === stream {
                if let then {
                    execute(then, on: stream)
                } else {
                    closeStream(stream, reset: true, outcome: .abandoned)
                }
            }
            closeIfDrained()
        case .dropConnection:
            closeNow(outcome: .connectionDropped, abort: true)
        case .stall:
            break
        case .dribble(let response, let chunkSize, let interval):
            startResponse(stream, response, kind: .dribble(chunkSize: max(1, chunkSize), interval: interval))
        case .truncate(let response, let bodyBytes):
            startResponse(stream, response, kind: .truncate(bodyBytes: max(0, bodyBytes)))
        case .stream(let response, let source):
            startResponse(stream, response, kind: .stream(source))
        }
    }

    private func sendGoAway(lastStreamID: UInt32, errorCode: HTTP2ErrorCode, debugData: [UInt8]) {
        // §6.8: "Endpoints MUST NOT increase the value they send in the last stream identifier".
        let last = min(lastStreamID, goAwayLastStreamID ?? .max)
        goAwayLastStreamID = last
        encoder.appendGoAway(lastStreamID: last, errorCode: errorCode, debugData: debugData, into: &out)
    }

    /// Unacknowledged SETTINGS frames tolerated before SETTINGS_TIMEOUT.
    static let maxUnackedSettings = 16
    private static let statusStrings: [String] = (0..<600).map { String($0) }
    private static let zeroFrameHeader = [UInt8](repeating: 0, count: HTTP2Limits.frameHeaderLength)

    private func startResponse(_ stream: HTTP2ServerStream, _ response: HTTPResponse, kind: ResponseKind) {
        guard stream.machine.localOpen, !stream.headersSent else { return }
        var body = response.body
        var framing = response.framing
        var endOnHeaders = false
        var addLength = true
        switch kind {
        case .normal:
            switch framing {
            case .automatic: endOnHeaders = body.isEmpty
            case .headersOnly: endOnHeaders = true; body = []
            case .singleDataFrame: break
            case .chunked: addLength = false
            }
        case .dribble:
            endOnHeaders = body.isEmpty
            framing = .automatic
        case .truncate(let n):
            body = Array(body.prefix(n))
            framing = .automatic
        case .stream:
            addLength = false
        }

        // Header block: :status, the responder's fields (lowercased), content-length.
        // Encoded straight into the output behind a reserved frame header; only a block
        // larger than one frame is moved out again and split into CONTINUATION frames.
        let headerAt = out.count
        out.append(contentsOf: Self.zeroFrameHeader)
        hpackEncoder.beginBlock(into: &out)
        let status = response.status
        hpackEncoder.encodeField(name: ":status", value: status >= 0 && status < 600 ? Self.statusStrings[status] : String(status),
                                 neverIndex: false, into: &out)
        var hasLength = false
        for f in response.headers {
            let name = Self.lowercased(f.name)
            switch name.utf8.first {
            case 0x63, 0x6b, 0x70, 0x74, 0x75: // c k p t u
                switch name {
                case "content-length": hasLength = true
                // §8.2.2: connection-specific fields must not appear in HTTP/2; a responder
                // written for HTTP/1.1 may set them, so they are dropped here.
                case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade": continue
                default: break
                }
            default: break
            }
            hpackEncoder.encodeField(name: name, value: f.value, neverIndex: false, into: &out)
        }
        if addLength && !hasLength {
            hpackEncoder.encodeField(name: "content-length", value: String(response.body.count), neverIndex: false, into: &out)
        }
        let blockLength = out.count - headerAt - HTTP2Limits.frameHeaderLength
        if blockLength <= encoder.maxFrameSize {
            var flags: HTTP2FrameFlags = .endHeaders
            if endOnHeaders { flags.insert(.endStream) }
            HTTP2FrameEncoder.writeFrameHeader(length: blockLength, type: .headers, flags: flags, streamID: stream.id, into: &out, at: headerAt)
        } else {
            blockScratch.removeAll(keepingCapacity: true)
            blockScratch.append(contentsOf: out[(headerAt + HTTP2Limits.frameHeaderLength)...])
            out.removeSubrange(headerAt...)
            encoder.appendHeaderBlock(streamID: stream.id, block: blockScratch, endStream: endOnHeaders, into: &out)
        }
        stream.headersSent = true
        if endOnHeaders {
            stream.machine.sendEndStream()
            return responseFinished(stream)
        }

        stream.out = body
        stream.outOffset = 0
        stream.outReleased = body.count
        stream.outEnd = true
        switch kind {
        case .normal:
            if case .chunked(let maxChunk) = framing { stream.maxChunk = max(1, maxChunk) }
            if case .singleDataFrame = framing { stream.singleFrame = true }
        case .dribble(let chunkSize, let interval):
            stream.maxChunk = chunkSize
            stream.outReleased = 0
            scheduleDribble(stream, chunkSize: chunkSize, interval: interval)
        case .truncate:
            stream.outEnd = false
            stream.abortAfterBody = true
        case .stream(let source):
            stream.outEnd = false
            let sink = HTTP2ResponseBodySink(streamID: stream.id, connection: self, executor: io.loopExecutor)
            stream.sink = sink
            source.start(sink)
        }
        enqueue(stream)
        pumpData()
    }

    private static func lowercased(_ name: String) -> String {
        for c in name.utf8 where c >= 0x41 && c <= 0x5a { return name.lowercased() }
        return name
    }

    private func scheduleDribble(_ stream: HTTP2ServerStream, chunkSize: Int, interval: Double) {
        let id = stream.id
        let token = io.schedule(after: interval) { [weak self] in
            guard let self, self.phase == .active, let s = self.streams[id] else { return }
            self.beginEvent()
            s.outReleased = min(s.out.count, s.outReleased + chunkSize)
            if s.outReleased < s.out.count { self.scheduleDribble(s, chunkSize: chunkSize, interval: interval) }
            self.enqueue(s)
            self.pumpData()
            self.endEvent()
        }
        stream.timers.append(token)
    }

    private func enqueue(_ stream: HTTP2ServerStream) {
        if !stream.inSendQueue {
            stream.inSendQueue = true
            sendQueue.append(stream.id)
        }
    }

    /// Sends whatever DATA the flow-control windows allow, stream by stream in queue order.
    private func pumpData() {
        guard phase == .active, !sendQueue.isEmpty else { return }
        var i = 0
        var finished: [HTTP2ServerStream] = []
        while i < sendQueue.count {
            guard let s = streams[sendQueue[i]] else {
                sendQueue.remove(at: i)
                continue
            }
            switch sendData(s) {
            case .blocked:
                i += 1
            case .idle:
                s.inSendQueue = false
                sendQueue.remove(at: i)
            case .done:
                s.inSendQueue = false
                sendQueue.remove(at: i)
                finished.append(s)
            }
        }
        for s in finished { afterBodySent(s) }
    }

    private enum SendProgress {
        /// The whole body is out (END_STREAM sent when due).
        case done
        /// Bytes are ready but the flow-control windows are closed.
        case blocked
        /// Nothing to send until the source (dribble timer, sink) releases more.
        case idle
    }

    /// Sends what one stream may.
    private func sendData(_ s: HTTP2ServerStream) -> SendProgress {
        let maxFrame = encoder.maxFrameSize
        while true {
            let ready = s.readyBytes
            if ready == 0 {
                guard s.outOffset == s.out.count else { return .idle }
                if s.outEnd {
                    // Nothing left (or an empty body): END_STREAM on an empty DATA frame,
                    // which needs no window.
                    if s.machine.localOpen {
                        encoder.appendData(streamID: s.id, bytes: s.out, range: s.out.count..<s.out.count, endStream: true, into: &out)
                        s.machine.sendEndStream()
                    }
                    return .done
                }
                return s.abortAfterBody ? .done : .idle
            }
            let window = min(connSendWindow.value, s.sendWindow.value)
            if s.singleFrame && ready <= maxFrame {
                // One DATA frame with the whole body: wait for the window rather than split.
                guard window >= ready else { return .blocked }
                let range = s.outOffset..<(s.outOffset + ready)
                encoder.appendData(streamID: s.id, bytes: s.out, range: range, endStream: true, into: &out)
                _ = connSendWindow.consume(ready); _ = s.sendWindow.consume(ready)
                s.outOffset += ready
                s.machine.sendEndStream()
                return .done
            }
            let n = min(ready, window, maxFrame, s.maxChunk)
            guard n > 0 else { return .blocked }
            let range = s.outOffset..<(s.outOffset + n)
            let last = s.outEnd && range.upperBound == s.out.count
            encoder.appendData(streamID: s.id, bytes: s.out, range: range, endStream: last, into: &out)
            _ = connSendWindow.consume(n); _ = s.sendWindow.consume(n)
            s.outOffset += n
            if last {
                s.machine.sendEndStream()
                return .done
            }
        }
    }

    private func afterBodySent(_ s: HTTP2ServerStream) {
        if s.abortAfterBody {
            // `.truncate`: the partial body is queued; drop the connection once it is written.
            s.out = []
            abortWhenWritten(attempt: 0)
            return
        }
        responseFinished(s)
    }

    private func abortWhenWritten(attempt: Int) {
        guard phase == .active else { return }
        // The runtime writes after this event; abort (which discards unwritten output) only
        // once it has gone out, checking a few times.
        if attempt > 0 && (io.pendingWriteBytes == 0 || attempt > 50) {
            closeNow(outcome: .connectionDropped, abort: true)
            return
        }
        io.schedule(after: 0.002) { [weak self] in
            guard let self else { return }
            self.beginEvent()
            self.abortWhenWritten(attempt: attempt + 1)
            self.endEvent()
        }
    }

    /// The response ended with END_STREAM.
    private func responseFinished(_ s: HTTP2ServerStream) {
        s.out = []
        if s.resetAfterResponse && s.machine.state != .closed {
            // §8.1: "A server can send a complete response prior to the client sending an entire
            // request ... the server MAY request that the client abort transmission of a request
            // without error by sending a RST_STREAM with an error code of NO_ERROR".
            return resetStream(s, code: .noError, outcome: .completed)
        }
        if s.machine.state == .closed {
            closeStream(s, reset: false, outcome: .completed)
        } else if let info = s.requestInfo {
            // Half-closed (local): the peer's END_STREAM is still due; the response is done.
            s.requestInfo = nil
            responder.responseCompleted(for: info, outcome: ResponseOutcome(kind: .completed, at: eventDate()))
        }
    }

    // MARK: - Body sink (called on the loop)

    func sinkWrite(_ sink: HTTP2ResponseBodySink, _ bytes: [UInt8]) {
        guard phase == .active, let s = streams[sink.streamID], s.sink === sink, !s.outEnd else { return }
        beginEvent()
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
        endEvent()
    }

    func sinkFinish(_ sink: HTTP2ResponseBodySink) {
        guard phase == .active, let s = streams[sink.streamID], s.sink === sink, !s.outEnd else { return }
        beginEvent()
        s.outEnd = true
        enqueue(s)
        pumpData()
        endEvent()
    }

    // MARK: - Timers

    private func armIdleTimer(after seconds: Double) {
        guard seconds > 0, seconds.isFinite else { return }
        idleTimer = io.schedule(after: seconds) { [weak self] in self?.idleTimerFired() }
    }

    private func idleTimerFired() {
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

    private func armReadTimeoutTimer() {
        guard readTimeoutTimer == nil, limits.requestReadTimeout > 0, limits.requestReadTimeout.isFinite else { return }
        readTimeoutTimer = io.schedule(after: limits.requestReadTimeout) { [weak self] in self?.readTimeoutFired() }
    }

    /// Resets streams whose request has not fully arrived within `requestReadTimeout`,
    /// and closes the connection if a header block stays unfinished that long.
    private func readTimeoutFired() {
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
