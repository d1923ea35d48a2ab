import Foundation
import PushDoubleHPACK

/// Receiving side of ``HTTP2ServerSession``: one handler per frame type, each deciding
/// what the frame means for the connection and its streams (RFC 9113 §5, §6).
extension HTTP2ServerSession {
    // MARK: - Input

    func ingest(_ bytes: UnsafeRawBufferPointer, now: UInt64, pendingWriteBytes: Int) {
        lastActivityMono = now
        decoder.append(bytes)
        processFrames(pendingWriteBytes: pendingWriteBytes)
    }

    /// Handles at most `limits.maxFramesPerTurn` buffered frames. When more are buffered,
    /// reading pauses and the rest waits for a timer due at once, which the loop runs after
    /// the other connections it has events for: one connection cannot hold the loop
    /// (docs/transport.md "Fairness and floods"). Reading resumes once no whole frame is left.
    func processFrames(pendingWriteBytes: Int) {
        // Everything queued before this turn has been written: the peer reads its acknowledgements.
        if owedAcks > 0 && out.isEmpty && pendingWriteBytes == 0 { owedAcks = 0 }
        frameBudget = max(1, limits.maxFramesPerTurn)
        continueFrames()
    }

    /// The frame loop of ``processFrames(pendingWriteBytes:)``; it stops while a request is out
    /// with the responder and goes on, with the same turn's budget, once its answer is in.
    func continueFrames() {
        while phase == .active {
            if awaitingAnswer != nil { return }
            if frameBudget == 0 {
                if decoder.hasCompleteFrame { return deferBacklog() }
                break
            }
            frameBudget -= 1
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
        if inputBacklogPaused && phase == .active {
            inputBacklogPaused = false
            actions.append(.resumeInput)
        }
    }

    func deferBacklog() {
        if !inputBacklogPaused {
            inputBacklogPaused = true
            actions.append(.pauseInput)
        }
        guard backlogTimer == nil else { return }
        backlogTimer = schedule(after: 0, .backlog)
    }

    func receive(_ frame: HTTP2Frame) {
        if frame.makesNoProgress && !floodGuard.admit(at: lastActivityMono) {
            return connectionError(.enhanceYourCalm,
                "more than \(limits.maxCheapFrames) PRIORITY/PING/SETTINGS/empty frames within \(limits.cheapFrameWindow) s without a completed request")
        }
        if case .awaitingSettings = peerPreface {
            // §3.4: the client connection preface is the 24-octet string followed by a SETTINGS
            // frame; anything else there is an invalid preface, a connection error of type
            // PROTOCOL_ERROR.
            guard case .settings = frame.payload else {
                return connectionError(.protocolError, "client preface followed by \(frame.type) instead of SETTINGS")
            }
            peerPreface = .received
        }
        // §6.10: "If the END_HEADERS flag is not set, this frame MUST be followed by another
        // CONTINUATION frame ... Receipt of any other type of frame or a frame on a different
        // stream MUST be treated as a connection error of type PROTOCOL_ERROR."
        if var pending = headerBlock {
            guard case .continuation(let fragment) = frame.payload, frame.streamID == pending.streamID else {
                return connectionError(.protocolError, "expected CONTINUATION on stream \(pending.streamID), got \(frame.type) on stream \(frame.streamID)")
            }
            // Empty CONTINUATION frames add nothing to the block, so their frame headers are
            // counted too, and so is the number of frames (else a flood of them costs
            // work without limit).
            pending.frames += 1
            pending.wireBytes += HTTP2Limits.frameHeaderLength + fragment.count
            if pending.frames > limits.maxHeaderBlockFrames {
                return connectionError(.enhanceYourCalm, "header block in more than \(limits.maxHeaderBlockFrames) frames")
            }
            if pending.wireBytes > maxHeaderBlockBytes {
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
            if h.priority != nil { priorityFramesReceived += 1 }
            if frame.endHeaders {
                headerBlockComplete(streamID: frame.streamID, block: h.fragment, endStream: frame.endStream, priority: h.priority)
            } else {
                headerBlock = PendingHeaderBlock(streamID: frame.streamID, block: h.fragment, endStream: frame.endStream,
                                                 priority: h.priority, startedMono: lastActivityMono,
                                                 frames: 1, wireBytes: HTTP2Limits.frameHeaderLength + frame.wireLength)
                armReadTimeoutTimer()
            }
        case .priority:
            // §5.3.2: the priority signalling scheme is deprecated; PRIORITY is accepted and ignored
            // (only counted, for RequestInfo.priorityFramesReceived).
            priorityFramesReceived += 1
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
            if !frame.isAck {
                encoder.appendPing(opaque, ack: true, into: &out)
                oweAck()
            }
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

    func headerBlockComplete(streamID: UInt32, block: [UInt8], endStream: Bool, priority: HTTP2PriorityData?) {
        // Decode first, always: the HPACK context is shared by every stream (§4.3). The
        // fields go straight into the head being checked (trailers on an open stream).
        let existing = streams[streamID]
        // Every field takes at least one byte of the block; 16 is room for a usual request.
        var head = HTTP2RequestHeadValidator(trailers: existing != nil, fieldCount: min(block.count, 16))
        var listTooLarge: String?
        do {
            try hpackDecoder.decode(block, into: &head)
        } catch {
            if case .headerListTooLarge = error {
                listTooLarge = "header list larger than SETTINGS_MAX_HEADER_LIST_SIZE \(limits.maxHeaderListSize)"
            } else {
                // §4.3: "A decoding error in a field block MUST be treated as a connection error
                // of type COMPRESSION_ERROR."
                return connectionError(.compressionError, error.description)
            }
        }

        if let stream = existing {
            // A second HEADERS: trailers.
            let r = stream.machine.receiveTrailers(endStream: endStream)
            guard apply(r, stream: stream) else { return }
            if listTooLarge != nil || head.finish() != nil {
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
            return reportRefused(.goAway, streamID: streamID, head: &head)
        }
        if let p = priority, p.dependency == streamID {
            // §5.3.1: "A stream cannot depend on itself ... stream error of type PROTOCOL_ERROR."
            return streamError(streamID, .protocolError)
        }
        if UInt32(clamping: streams.count) >= maxConcurrentStreams {
            // §5.1.2: "An endpoint that receives a HEADERS frame that causes its advertised
            // concurrent stream limit to be exceeded MUST treat this as a stream error of type
            // PROTOCOL_ERROR or REFUSED_STREAM."
            streamError(streamID, .refusedStream)
            return reportRefused(.refusedStream, streamID: streamID, head: &head)
        }
        let arrived = eventDate()
        let stream = HTTP2ServerStream(id: streamID, endStream: endStream,
                                       sendWindow: peerSettings.initialWindowSize,
                                       recvWindow: localInitialWindowSize,
                                       now: arrived, mono: lastActivityMono)
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

    /// Tells the responder of a stream turned away before any processing (``StreamRefusal``), with
    /// the request head as it arrived (a malformed head is not reported: it was never a request).
    func reportRefused(_ refusal: StreamRefusal, streamID: UInt32, head: inout HTTP2RequestHeadValidator) {
        guard head.finish() == nil else { return }
        reportRefused(refusal, streamID: streamID, method: head.method ?? "", path: head.path ?? "", scheme: head.scheme ?? "",
                      authority: head.authority ?? head.headers.first(name: "host"), headers: head.headers, headAt: eventDate())
    }

    func reportRefused(_ refusal: StreamRefusal, streamID: UInt32, method: String, path: String, scheme: String, authority: String?,
                       headers: HTTPHeaders, headAt: Date) {
        let info = RequestInfo(connection: info, streamID: streamID, version: .http2, headReceivedAt: headAt, bodyReceivedAt: headAt,
                               priorityFramesReceived: priorityFramesReceived)
        let request = HTTPRequest(method: method, path: path, scheme: scheme, authority: authority, headers: headers, body: [], info: info)
        actions.append(.streamRefused(refusal, head: request))
    }

    // MARK: DATA

    func receiveData(streamID: UInt32, bytes: [UInt8], flowLength: Int, endStream: Bool) {
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
        } else if stream.recvPending >= max(1, localInitialWindowSize / 2) {
            let inc = stream.recvPending
            stream.recvPending = 0
            _ = stream.recvWindow.adjust(by: inc)
            encoder.appendWindowUpdate(streamID: streamID, increment: UInt32(inc), into: &out)
        }
    }

    /// Returns received bytes to the peer's connection window, batched: only once half the
    /// window is used (or when forced), and not while too much request body is buffered.
    func returnConnectionWindow(force: Bool) {
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

    func receiveRstStream(streamID: UInt32, code: HTTP2ErrorCode) {
        if let stream = streams[streamID] {
            stream.machine.reset()
            closeStream(stream, reset: false, outcome: .abandoned)
        } else if streamID > highestStreamID {
            // §6.4: "If a RST_STREAM frame identifying an idle stream is received, the recipient
            // MUST treat this as a connection error of type PROTOCOL_ERROR."
            connectionError(.protocolError, "RST_STREAM on idle stream \(streamID)")
        }
    }

    func receiveSettings(_ list: [HTTP2Setting]) {
        let previousWindow = peerSettings.initialWindowSize
        for s in list {
            switch s.id {
            case .headerTableSize:
                hpackEncoder.setMaxTableSize(min(Int(s.value), HTTP2Limits.defaultHeaderTableSize))
            case .maxFrameSize:
                encoder.maxFrameSize = Int(s.value)
            default: break
            }
        }
        // In order, later values win (§6.5.3): with several INITIAL_WINDOW_SIZE values in
        // one frame the last one applies.
        peerSettings.apply(list)
        // §6.9.2: the change applies to every open stream's window, which may go negative;
        // "An endpoint MUST treat a change to SETTINGS_INITIAL_WINDOW_SIZE that causes any
        // flow-control window to exceed the maximum size as a connection error of type
        // FLOW_CONTROL_ERROR." The frame is applied as a whole, so the change is the net one
        // from the value before the frame to its last value.
        let delta = peerSettings.initialWindowSize - previousWindow
        if delta != 0 {
            for stream in streams.values where !stream.sendWindow.adjust(by: delta) {
                return connectionError(.flowControlError,
                    "SETTINGS_INITIAL_WINDOW_SIZE \(peerSettings.initialWindowSize) overflows the window of stream \(stream.id)")
            }
        }
        // §6.5.3: "Upon receiving a SETTINGS frame with the ACK flag set ... the receiver
        // MUST immediately emit a SETTINGS frame with the ACK flag set".
        encoder.appendSettingsAck(into: &out)
        oweAck()
        pumpData()
    }

    /// One more acknowledgement queued. A peer that sends PING or SETTINGS without reading the
    /// answers makes the server queue them without end (output stays unwritten, input keeps
    /// coming); past ``ServerLimits/maxOwedAcks`` it gets GOAWAY ENHANCE_YOUR_CALM, as nghttp2
    /// limits its outbound acknowledgements (docs/http2.md "Floods").
    func oweAck() {
        owedAcks += 1
        if owedAcks > limits.maxOwedAcks && phase == .active {
            connectionError(.enhanceYourCalm, "more than \(limits.maxOwedAcks) PING/SETTINGS acknowledgements queued while the peer does not read them")
        }
    }

    func receiveSettingsAck() {
        guard !unackedLocalSettings.isEmpty else { return }
        let acked = unackedLocalSettings.removeFirst()
        for s in acked {
            switch s.id {
            case .maxConcurrentStreams:
                maxConcurrentStreams = s.value
            case .initialWindowSize:
                // §6.9.2: from the ACK on, the peer applies the difference to every stream it
                // has open; mirror that on our receive windows.
                let delta = Int(s.value) - localInitialWindowSize
                localInitialWindowSize = Int(s.value)
                for stream in streams.values { _ = stream.recvWindow.adjust(by: delta) }
            default: break
            }
        }
    }

    func receiveWindowUpdate(streamID: UInt32, increment: Int) {
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
}
