import Foundation
import PushDoubleHPACK

/// Sending side of ``HTTP2ServerSession``: carries out each ``ResponseAction`` and
/// moves response bodies out as flow control allows.
extension HTTP2ServerSession {
    // MARK: - Response actions

    enum ResponseKind {
        case normal
        case dribble(chunkSize: Int, interval: Double)
        case truncate(bodyBytes: Int)
        case stream(any ResponseBodySource)
    }

    func execute(_ action: ResponseAction, on stream: HTTP2ServerStream) {
        switch action {
        case .respond(let response):
            startResponse(stream, response, kind: .normal)
        case .delayed(let seconds, let then):
            stream.timers.append(schedule(after: seconds, .delayed(streamID: stream.id, then)))
        case .heldUntilGoAway(let seconds, let then):
            heldForGoAway[stream.id] = then
            stream.timers.append(schedule(after: seconds, .heldUntilGoAway(streamID: stream.id)))
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
            // An earlier GOAWAY may have announced a lower id; that one stands.
            let effective = goAwayLastStreamID ?? last
            // Streams above last-stream-id were not processed: forget them without a frame (and
            // report those whose request had not reached the responder yet).
            for s in streams.values.sorted(by: { $0.id < $1.id }) where s.id > effective {
                if s.requestInfo == nil {
                    reportRefused(.goAway, streamID: s.id, method: s.method, path: s.path, scheme: s.scheme, authority: s.authority,
                                  headers: s.headers, headAt: s.headReceivedAt)
                }
                closeStream(s, reset: true, outcome: .abandoned)
            }
            closeWhenDrained = true
            releaseHeldAnswers(upTo: effective)
            if stream.id <= effective, streams[stream.id] === stream {
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

    /// Answers kept back for a GOAWAY (``ResponseAction/heldUntilGoAway(maxSeconds:then:)``),
    /// in stream order, once the GOAWAY frame is queued: the client sees the GOAWAY while those
    /// streams are still open, and then their answers.
    func releaseHeldAnswers(upTo last: UInt32) {
        let held = heldForGoAway.sorted { $0.key < $1.key }
        heldForGoAway.removeAll()
        for (id, then) in held {
            guard id <= last, let s = streams[id] else { continue }
            execute(then, on: s)
        }
    }

    func sendGoAway(lastStreamID: UInt32, errorCode: HTTP2ErrorCode, debugData: [UInt8]) {
        // §6.8: "Endpoints MUST NOT increase the value they send in the last stream identifier".
        let last = min(lastStreamID, goAwayLastStreamID ?? .max)
        goAwayLastStreamID = last
        encoder.appendGoAway(lastStreamID: last, errorCode: errorCode, debugData: debugData, into: &out)
    }

    /// Unacknowledged SETTINGS frames tolerated before SETTINGS_TIMEOUT.
    static let maxUnackedSettings = 16
    /// "0" … "599": the text of a status or of a small content-length without formatting it.
    static let decimalStrings: [String] = (0..<600).map { String($0) }
    static func decimal(_ n: Int) -> String { n >= 0 && n < decimalStrings.count ? decimalStrings[n] : String(n) }
    static let zeroFrameHeader = [UInt8](repeating: 0, count: HTTP2Limits.frameHeaderLength)

    func startResponse(_ stream: HTTP2ServerStream, _ response: HTTPResponse, kind: ResponseKind) {
        guard stream.machine.localOpen, !stream.headersSent else { return }
        var body = response.body
        var framing = response.framing
        var endOnHeaders = false
        var addLength = true
        switch kind {
        case .normal:
            switch framing {
            case .automatic: endOnHeaders = body.isEmpty
            case .headersOnly: endOnHeaders = true; body = []; addLength = false  // a header-only answer (e.g. a provider's bare success)
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

        Self.appendHeaders(of: response, addLength: addLength, endStream: endOnHeaders, streamID: stream.id,
                           hpack: &hpackEncoder, frames: encoder, scratch: &blockScratch, into: &out)
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
        case .dribble(let chunkSize, let interval):
            stream.maxChunk = chunkSize
            stream.outReleased = 0
            scheduleDribble(stream, chunkSize: chunkSize, interval: interval)
        case .truncate:
            stream.outEnd = false
            stream.abortAfterBody = true
        case .stream(let source):
            stream.outEnd = false
            stream.hasSink = true
            actions.append(.startBody(streamID: stream.id, source: source))
        }
        enqueue(stream)
        pumpData()
    }

    /// The HEADERS frame (and CONTINUATIONs) of a response: `:status`, the responder's fields
    /// (lowercased, connection-specific ones dropped), `content-length` unless present or
    /// `addLength` is false. Encoded straight into `out` behind a reserved frame header; only
    /// a block larger than one frame is moved out again and split into CONTINUATION frames.
    /// The header-block phase of ``startResponse(_:_:kind:)``, on the state it is given.
    static func appendHeaders(of response: HTTPResponse, addLength: Bool, endStream: Bool, streamID: UInt32,
                              hpack: inout HPACKEncoder, frames: HTTP2FrameEncoder, scratch: inout [UInt8],
                              into out: inout [UInt8]) {
        let headerAt = out.count
        out.append(contentsOf: zeroFrameHeader)
        hpack.beginBlock(into: &out)
        if !hpack.encodeStaticStatus(response.status, into: &out) {
            hpack.encodeField(name: ":status", value: decimal(response.status), neverIndex: false, into: &out)
        }
        var hasLength = false
        for f in response.headers {
            let name = lowercased(f.name)
            switch name.utf8.first {
            case 0x63, 0x6b, 0x70, 0x74, 0x75: // c k p t u
                if name == "content-length" { hasLength = true }
                // §8.2.2: connection-specific fields must not appear in HTTP/2; a responder
                // written for HTTP/1.1 may set them, so they are dropped here.
                else if HTTPHeaders.isConnectionSpecific(name) { continue }
            default: break
            }
            hpack.encodeField(name: name, value: f.value, neverIndex: false, into: &out)
        }
        if addLength && !hasLength {
            hpack.encodeField(name: "content-length", value: decimal(response.body.count), neverIndex: false, into: &out)
        }
        let blockLength = out.count - headerAt - HTTP2Limits.frameHeaderLength
        if blockLength <= frames.maxFrameSize {
            var flags: HTTP2FrameFlags = .endHeaders
            if endStream { flags.insert(.endStream) }
            HTTP2FrameEncoder.writeFrameHeader(length: blockLength, type: .headers, flags: flags, streamID: streamID, into: &out, at: headerAt)
        } else {
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: out[(headerAt + HTTP2Limits.frameHeaderLength)...])
            out.removeSubrange(headerAt...)
            frames.appendHeaderBlock(streamID: streamID, block: scratch, endStream: endStream, into: &out)
        }
    }

    static func lowercased(_ name: String) -> String {
        let hasUpper = UTF8Bytes.of(name) { b in b.contains { $0 >= 0x41 && $0 <= 0x5a } }
        return hasUpper ? name.lowercased() : name
    }

    func scheduleDribble(_ stream: HTTP2ServerStream, chunkSize: Int, interval: Double) {
        stream.timers.append(schedule(after: interval, .dribble(streamID: stream.id, chunkSize: chunkSize, interval: interval)))
    }

    func enqueue(_ stream: HTTP2ServerStream) {
        if !stream.inSendQueue {
            stream.inSendQueue = true
            sendQueue.append(stream.id)
        }
    }

    /// Sends whatever DATA the flow-control windows allow, stream by stream in queue order.
    func pumpData() {
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

    enum SendProgress {
        /// The whole body is out (END_STREAM sent when due).
        case done
        /// Bytes are ready but the flow-control windows are closed.
        case blocked
        /// Nothing to send until the source (dribble timer, sink) releases more.
        case idle
    }

    /// Sends what one stream may.
    func sendData(_ s: HTTP2ServerStream) -> SendProgress {
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
            // As much as both windows, the peer's SETTINGS_MAX_FRAME_SIZE and the framing
            // allow. A body that fits all of them goes out as one DATA frame with END_STREAM,
            // which is what `.singleDataFrame` promises; a smaller window gets window-sized
            // pieces rather than a wait: a client only sends WINDOW_UPDATE for data it has
            // received, so waiting for a whole-body window can deadlock (RFC 9113 §6.9).
            let window = min(connSendWindow.value, s.sendWindow.value)
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

    func afterBodySent(_ s: HTTP2ServerStream) {
        if s.abortAfterBody {
            // `.truncate`: the partial body is queued; drop the connection once it is written.
            s.out = []
            abortWhenWritten(attempt: 0, pendingWriteBytes: 0)
            return
        }
        responseFinished(s)
    }

    /// `pendingWriteBytes`: the adapter's unwritten output when the check runs (unused at attempt 0).
    func abortWhenWritten(attempt: Int, pendingWriteBytes: Int) {
        guard phase == .active else { return }
        // The runtime writes after this event; abort (which discards unwritten output) only
        // once it has gone out, checking a few times.
        if attempt > 0 && (pendingWriteBytes == 0 || attempt > 50) {
            closeNow(outcome: .connectionDropped, abort: true)
            return
        }
        _ = schedule(after: 0.002, .abortWhenWritten(attempt: attempt + 1))
    }

    /// The response ended with END_STREAM.
    func responseFinished(_ s: HTTP2ServerStream) {
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
            actions.append(.responseCompleted(info, ResponseOutcome(kind: .completed, at: eventDate())))
        }
    }
}
