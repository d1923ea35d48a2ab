import PushDoubleTransport
import PushDoubleHPACK

/// The HTTP/2 side of a client connection (RFC 9113): streams, flow control, SETTINGS,
/// PING and GOAWAY, over the shared frame codec and HPACK.
///
/// A plain value driven under the connection's lock: requests and received bytes in,
/// bytes to write and completions out; it never does I/O itself.
///
/// Stream lifecycle, client side:
/// ```
///   waiting (FIFO) --slot free--> open: HEADERS(+DATA) sent --END_STREAM recv--> done
///                                   |--RST_STREAM recv / timeout / GOAWAY above last--> failed
/// ```
/// A slot is free when the peer's first SETTINGS has arrived, no GOAWAY was received and
/// fewer than SETTINGS_MAX_CONCURRENT_STREAMS streams are open. PRIORITY is never sent.
struct HTTP2ClientSession {
    /// Our SETTINGS_INITIAL_WINDOW_SIZE: how much response body a stream may send ahead.
    static let localStreamWindow = 1 << 20
    /// Our connection receive window after the initial WINDOW_UPDATE.
    static let localConnectionWindow = 1 << 24

    private struct Stream {
        var waiter: ClientResponseWaiter
        var deadline: Double
        var body: [UInt8]
        var bodySent = 0
        var sendWindow: HTTP2FlowControlWindow
        var receivedUnacked = 0
        /// What the peer may still send on this stream (RFC 9113 §6.9).
        var receiveWindow = HTTP2ClientSession.localStreamWindow
        /// HEADERS + CONTINUATION fragments not yet decoded.
        var headerBlock: [UInt8] = []
        var headerBlockEndsStream = false
        var status: Int?
        var headers = HTTPHeaders()
        var responseBody: [UInt8] = []
        var frames: [ReceivedFrame] = []
        var bodyDone: Bool { bodySent >= body.count }
    }

    private var encoder = HPACKEncoder()
    private var decoder = HPACKDecoder(maxTableSize: HTTP2Limits.defaultHeaderTableSize, maxHeaderListSize: 1 << 20)
    private var frameDecoder = HTTP2FrameDecoder()
    private var frameEncoder = HTTP2FrameEncoder(maxFrameSize: HTTP2Limits.defaultMaxFrameSize)
    private var waiting = ClientFIFO<ClientPendingRequest>()
    private var streams: [UInt32: Stream] = [:]
    /// Streams with request body left to send, in id order.
    private var sendingBodies: [UInt32] = []
    private var nextStreamID: UInt32 = 1
    private var connectionSendWindow = HTTP2FlowControlWindow(HTTP2Limits.defaultInitialWindowSize)
    private var connectionReceivedUnacked = 0
    private var connectionReceiveWindow = HTTP2ClientSession.localConnectionWindow
    /// Largest response body collected for one stream.
    static let maxResponseBody = 64 << 20
    /// Stream whose header block is still open (CONTINUATION expected).
    private var continuationStream: UInt32?
    /// A header block for a stream we no longer track: decoded (HPACK state) then dropped.
    private var orphanBlock: [UInt8] = []
    private var pings: [UInt64: (start: Double, deadline: Double, waiter: ClientPingWaiter)] = [:]
    private var pingCounter: UInt64 = 0
    /// Earliest request/ping deadline as of the last timeout scan (nil: none pending).
    private var earliestDeadline: Double?

    /// The peer's SETTINGS, RFC defaults until its first SETTINGS frame arrives.
    private(set) var peer = HTTP2SettingsValues()
    private(set) var receivedPeerSettings = false
    /// GOAWAY received from the peer.
    private(set) var goAway: (lastStreamID: UInt32, code: HTTP2ErrorCode, debug: [UInt8])?
    /// Set when the session hit a connection error or was closed: the connection should
    /// flush what is queued and close.
    private(set) var failed: HTTPClientError?
    private var closedByClient = false

    var openStreamCount: Int { streams.count }
    var isUsable: Bool { goAway == nil && failed == nil && !closedByClient && nextStreamID < 0x8000_0000 }
    /// Nothing left to do after a GOAWAY/close: the connection can be closed.
    var isFinished: Bool { (goAway != nil || closedByClient || failed != nil) && streams.isEmpty && waiting.isEmpty }

    /// The connection preface, our SETTINGS and a connection WINDOW_UPDATE.
    mutating func start(out: inout [UInt8]) {
        out.append(contentsOf: http2ClientPreface)
        frameEncoder.appendSettings([
            HTTP2Setting(.enablePush, 0),
            HTTP2Setting(.maxConcurrentStreams, 100),
            HTTP2Setting(.initialWindowSize, UInt32(Self.localStreamWindow)),
        ], into: &out)
        frameEncoder.appendWindowUpdate(streamID: 0,
                                        increment: UInt32(Self.localConnectionWindow - HTTP2Limits.defaultInitialWindowSize),
                                        into: &out)
    }

    // MARK: Requests

    mutating func enqueue(_ p: ClientPendingRequest, out: inout [UInt8], completions: inout [ClientCompletion]) {
        if let failed {
            completions.append(.response(p.waiter, .failure(failed)))
            return
        }
        if let g = goAway {
            completions.append(.response(p.waiter, .failure(.goAway(lastStreamID: g.lastStreamID, errorCode: g.code, debugData: g.debug))))
            return
        }
        if closedByClient || nextStreamID >= 0x8000_0000 {
            completions.append(.response(p.waiter, .failure(.connectionClosed("connection is closing"))))
            return
        }
        waiting.append(p)
        earliestDeadline = min(earliestDeadline ?? p.deadline, p.deadline)
        startWaiting(out: &out)
    }

    private var canOpenStream: Bool {
        receivedPeerSettings && isUsable && streams.count < Int(peer.maxConcurrentStreams ?? UInt32.max)
    }

    private mutating func startWaiting(out: inout [UInt8]) {
        while canOpenStream, let p = waiting.popFirst() {
            let id = nextStreamID
            nextStreamID += 2
            var block: [UInt8] = []
            block.reserveCapacity(256)
            encoder.beginBlock(into: &block)
            let r = p.request
            encoder.encodeField(name: ":method", value: r.method, neverIndex: false, into: &block)
            encoder.encodeField(name: ":scheme", value: r.scheme, neverIndex: false, into: &block)
            encoder.encodeField(name: ":authority", value: r.authority, neverIndex: false, into: &block)
            encoder.encodeField(name: ":path", value: r.path, neverIndex: false, into: &block)
            var hasLength = false
            for f in r.headers {
                let name = f.name.lowercased()
                // RFC 9113 §8.2.2: connection-specific fields MUST NOT be sent; Host is
                // replaced by :authority.
                if name == "host" || HTTPHeaders.isConnectionSpecific(name) { continue }
                switch name {
                case "te" where f.value.lowercased() != "trailers": continue
                case "content-length": hasLength = true
                default: break
                }
                encoder.encodeField(name: name, value: f.value, neverIndex: false, into: &block)
            }
            if !hasLength && (!r.body.isEmpty || r.method == "POST" || r.method == "PUT") {
                encoder.encodeField(name: "content-length", value: String(r.body.count), neverIndex: false, into: &block)
            }
            frameEncoder.appendHeaderBlock(streamID: id, block: block, endStream: r.body.isEmpty, into: &out)
            streams[id] = Stream(waiter: p.waiter, deadline: p.deadline, body: r.body, sendWindow: HTTP2FlowControlWindow(peer.initialWindowSize))
            if !r.body.isEmpty { sendingBodies.append(id) }
        }
        pumpBodies(out: &out)
    }

    /// Sends as much request body as the flow-control windows allow (RFC 9113 §6.9).
    private mutating func pumpBodies(out: inout [UInt8]) {
        var i = 0
        while i < sendingBodies.count && connectionSendWindow.value > 0 {
            let id = sendingBodies[i]
            guard var s = streams[id] else {
                sendingBodies.remove(at: i)
                continue
            }
            while !s.bodyDone && s.sendWindow.value > 0 && connectionSendWindow.value > 0 {
                let n = min(s.body.count - s.bodySent, s.sendWindow.value, connectionSendWindow.value, peer.maxFrameSize)
                let end = s.bodySent + n == s.body.count
                frameEncoder.appendData(streamID: id, bytes: s.body, range: s.bodySent..<(s.bodySent + n), endStream: end, into: &out)
                s.bodySent += n
                _ = s.sendWindow.consume(n)  // n ≤ both windows
                _ = connectionSendWindow.consume(n)
            }
            if s.bodyDone {
                s.body = []
                s.bodySent = 0
                streams[id] = s
                sendingBodies.remove(at: i)
            } else {
                streams[id] = s
                i += 1
            }
        }
    }

    mutating func ping(waiter: ClientPingWaiter, now: Double, deadline: Double, out: inout [UInt8],
                       completions: inout [ClientCompletion]) {
        if let failed {
            completions.append(.ping(waiter, .failure(failed)))
            return
        }
        pingCounter &+= 1
        let opaque = 0x5044_0000_0000_0000 | pingCounter  // "PD" + counter
        pings[opaque] = (now, deadline, waiter)
        earliestDeadline = min(earliestDeadline ?? deadline, deadline)
        frameEncoder.appendPing(opaque, ack: false, into: &out)
    }

    /// GOAWAY(NO_ERROR) and fail everything: the client is closing the connection.
    mutating func close(out: inout [UInt8], completions: inout [ClientCompletion]) {
        guard !closedByClient else { return }
        closedByClient = true
        if failed == nil {
            // We accept no pushes, so the last peer-initiated stream we processed is 0.
            frameEncoder.appendGoAway(lastStreamID: 0, errorCode: .noError, debugData: [], into: &out)
        }
        failEverything(.connectionClosed("closed by the client"), notSent: .connectionClosed("closed by the client (request not sent)"),
                       completions: &completions)
    }

    // MARK: Receiving

    mutating func receive(_ bytes: UnsafeRawBufferPointer, now: Double, out: inout [UInt8], completions: inout [ClientCompletion]) {
        guard failed == nil else { return }
        frameDecoder.append(bytes)
        while failed == nil {
            let frame: HTTP2Frame?
            do {
                frame = try frameDecoder.nextFrame()
            } catch {
                switch error.scope {
                case .connection:
                    connectionError(error.code, error.reason, out: &out, completions: &completions)
                case .stream(let id):
                    frameEncoder.appendRstStream(streamID: id, code: error.code, into: &out)
                    if let s = streams.removeValue(forKey: id) {
                        completions.append(.response(s.waiter, .failure(.protocolError(error.reason))))
                    }
                    startWaiting(out: &out)
                }
                continue
            }
            guard let frame else { break }
            handle(frame, now: now, out: &out, completions: &completions)
        }
    }

    /// One received frame: the CONTINUATION rule of an open header block, then one handler
    /// per frame type (RFC 9113 §6).
    private mutating func handle(_ frame: HTTP2Frame, now: Double, out: inout [UInt8], completions: inout [ClientCompletion]) {
        if let expected = continuationStream {
            // RFC 9113 §6.10: a header block must be followed only by its CONTINUATION
            // frames; "Receipt of any other type of frame or a frame on a different stream
            // MUST be treated as a connection error of type PROTOCOL_ERROR."
            guard case .continuation = frame.payload, frame.streamID == expected else {
                connectionError(.protocolError, "expected CONTINUATION on stream \(expected), got \(frame.type) on \(frame.streamID)",
                                out: &out, completions: &completions)
                return
            }
        }
        switch frame.payload {
        case .settings(let list):
            if !frame.isAck { receiveSettings(list, out: &out, completions: &completions) }
        case .ping(let opaque):
            receivePing(opaque, isAck: frame.isAck, now: now, out: &out, completions: &completions)
        case let .goAway(last, code, debug):
            receiveGoAway(last: last, code: code, debug: debug, completions: &completions)
        case .windowUpdate(let increment):
            receiveWindowUpdate(streamID: frame.streamID, increment: Int(increment), out: &out, completions: &completions)
        case .rstStream(let code):
            receiveRstStream(streamID: frame.streamID, code: code, out: &out, completions: &completions)
        case .headers(let h):
            receiveHeaders(streamID: frame.streamID, fragment: h.fragment, endStream: frame.endStream, endHeaders: frame.endHeaders,
                           out: &out, completions: &completions)
        case .continuation(let fragment):
            receiveContinuation(streamID: frame.streamID, fragment: fragment, endHeaders: frame.endHeaders,
                                out: &out, completions: &completions)
        case .data(let bytes, _):
            receiveData(streamID: frame.streamID, bytes: bytes, flowLength: frame.wireLength, endStream: frame.endStream,
                        out: &out, completions: &completions)
        case .pushPromise:
            // §8.4: we sent SETTINGS_ENABLE_PUSH = 0, so "MUST treat the receipt of a
            // PUSH_PROMISE frame as a connection error of type PROTOCOL_ERROR".
            connectionError(.protocolError, "PUSH_PROMISE received with push disabled", out: &out, completions: &completions)
        case .priority, .unknown:
            break  // §5.3.2 / §4.1: ignored
        }
    }

    // MARK: SETTINGS, PING

    /// The peer's SETTINGS (not an ACK): applied, acknowledged, and the first one opens the
    /// waiting requests' slots.
    private mutating func receiveSettings(_ list: [HTTP2Setting], out: inout [UInt8], completions: inout [ClientCompletion]) {
        if let overflowed = applySettings(list) {
            // §6.9.2: "An endpoint MUST treat a change to SETTINGS_INITIAL_WINDOW_SIZE that causes
            // any flow-control window to exceed the maximum size as a connection error of type
            // FLOW_CONTROL_ERROR."
            connectionError(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE overflows the window of stream \(overflowed)",
                            out: &out, completions: &completions)
            return
        }
        frameEncoder.appendSettingsAck(into: &out)
        receivedPeerSettings = true
        startWaiting(out: &out)
    }

    /// A PING ACK completes our ping; a PING is answered with its ACK.
    private mutating func receivePing(_ opaque: UInt64, isAck: Bool, now: Double, out: inout [UInt8],
                                      completions: inout [ClientCompletion]) {
        if isAck {
            if let p = pings.removeValue(forKey: opaque) {
                completions.append(.ping(p.waiter, .success(max(0, now - p.start))))
            }
        } else {
            frameEncoder.appendPing(opaque, ack: true, into: &out)
        }
    }

    // MARK: WINDOW_UPDATE, RST_STREAM

    private mutating func receiveWindowUpdate(streamID: UInt32, increment: Int, out: inout [UInt8],
                                              completions: inout [ClientCompletion]) {
        if streamID == 0 {
            if !connectionSendWindow.adjust(by: increment) {
                // §6.9.1: "a connection error of type FLOW_CONTROL_ERROR".
                connectionError(.flowControlError, "connection window exceeds 2^31-1", out: &out, completions: &completions)
                return
            }
        } else if var s = streams[streamID] {
            if !s.sendWindow.adjust(by: increment) {
                streams[streamID] = nil
                frameEncoder.appendRstStream(streamID: streamID, code: .flowControlError, into: &out)
                completions.append(.response(s.waiter, .failure(.protocolError("stream window exceeds 2^31-1"))))
                startWaiting(out: &out)
                return
            }
            streams[streamID] = s
        }
        pumpBodies(out: &out)
    }

    private mutating func receiveRstStream(streamID: UInt32, code: HTTP2ErrorCode, out: inout [UInt8],
                                           completions: inout [ClientCompletion]) {
        if var s = streams.removeValue(forKey: streamID) {
            s.frames.append(.rstStream(code))
            completions.append(.response(s.waiter, .failure(.streamReset(code))))
            startWaiting(out: &out)
        }
    }

    // MARK: HEADERS, CONTINUATION

    private mutating func receiveHeaders(streamID: UInt32, fragment: [UInt8], endStream: Bool, endHeaders: Bool,
                                         out: inout [UInt8], completions: inout [ClientCompletion]) {
        guard streamID < nextStreamID, streamID % 2 == 1 else {
            // §5.1.1: a server cannot open streams; an idle stream id is PROTOCOL_ERROR.
            connectionError(.protocolError, "HEADERS on idle stream \(streamID)", out: &out, completions: &completions)
            return
        }
        if var s = streams[streamID] {
            s.frames.append(.headers(endStream: endStream))
            s.headerBlock.append(contentsOf: fragment)
            s.headerBlockEndsStream = endStream
            streams[streamID] = s
        } else {
            orphanBlock.append(contentsOf: fragment)
        }
        if endHeaders {
            finishHeaderBlock(streamID: streamID, out: &out, completions: &completions)
        } else {
            continuationStream = streamID
        }
    }

    private mutating func receiveContinuation(streamID: UInt32, fragment: [UInt8], endHeaders: Bool,
                                              out: inout [UInt8], completions: inout [ClientCompletion]) {
        guard continuationStream == streamID else {
            connectionError(.protocolError, "CONTINUATION without a preceding HEADERS on stream \(streamID)",
                            out: &out, completions: &completions)
            return
        }
        if var s = streams[streamID] {
            s.frames.append(.continuation(endHeaders: endHeaders))
            s.headerBlock.append(contentsOf: fragment)
            streams[streamID] = s
        } else {
            orphanBlock.append(contentsOf: fragment)
        }
        if orphanBlock.count + (streams[streamID]?.headerBlock.count ?? 0) > 1 << 20 {
            connectionError(.enhanceYourCalm, "header block over 1 MiB", out: &out, completions: &completions)
            return
        }
        if endHeaders {
            continuationStream = nil
            finishHeaderBlock(streamID: streamID, out: &out, completions: &completions)
        }
    }

    // MARK: DATA

    /// Response body: both receive windows charged and replenished (RFC 9113 §6.9), the
    /// stream completed on END_STREAM.
    private mutating func receiveData(streamID: UInt32, bytes: [UInt8], flowLength: Int, endStream: Bool,
                                      out: inout [UInt8], completions: inout [ClientCompletion]) {
        connectionReceiveWindow -= flowLength
        if connectionReceiveWindow < 0 {
            // §6.9.1: a sender "MUST NOT send a flow-controlled frame with a length that
            // exceeds the space available"; the receiver answers FLOW_CONTROL_ERROR.
            connectionError(.flowControlError, "peer overran the connection window", out: &out, completions: &completions)
            return
        }
        connectionReceivedUnacked += flowLength
        if connectionReceivedUnacked >= Self.localConnectionWindow / 2 {
            frameEncoder.appendWindowUpdate(streamID: 0, increment: UInt32(connectionReceivedUnacked), into: &out)
            connectionReceiveWindow += connectionReceivedUnacked
            connectionReceivedUnacked = 0
        }
        guard var s = streams[streamID] else {
            if streamID >= nextStreamID {
                connectionError(.protocolError, "DATA on idle stream \(streamID)", out: &out, completions: &completions)
            }
            return  // a stream we reset or finished: already closed on our side
        }
        guard s.status != nil else {
            // §8.1: DATA before the response HEADERS is malformed.
            streams[streamID] = nil
            frameEncoder.appendRstStream(streamID: streamID, code: .protocolError, into: &out)
            completions.append(.response(s.waiter, .failure(.protocolError("DATA before response HEADERS on stream \(streamID)"))))
            startWaiting(out: &out)
            return
        }
        s.receiveWindow -= flowLength
        if s.receiveWindow < 0 || s.responseBody.count + bytes.count > Self.maxResponseBody {
            let overran = s.receiveWindow < 0
            streams[streamID] = nil
            frameEncoder.appendRstStream(streamID: streamID, code: overran ? .flowControlError : .cancel, into: &out)
            let why = overran ? "peer overran the stream window" : "response body exceeds \(Self.maxResponseBody) bytes"
            completions.append(.response(s.waiter, .failure(.protocolError(why))))
            startWaiting(out: &out)
            return
        }
        s.frames.append(.data(length: bytes.count, endStream: endStream))
        s.responseBody.append(contentsOf: bytes)
        s.receivedUnacked += flowLength
        if endStream {
            streams[streamID] = s
            completeStream(streamID, out: &out, completions: &completions)
            return
        }
        if s.receivedUnacked >= Self.localStreamWindow / 2 {
            frameEncoder.appendWindowUpdate(streamID: streamID, increment: UInt32(s.receivedUnacked), into: &out)
            s.receiveWindow += s.receivedUnacked
            s.receivedUnacked = 0
        }
        streams[streamID] = s
    }

    /// Applies the peer's SETTINGS; returns the id of a stream whose send window the
    /// SETTINGS_INITIAL_WINDOW_SIZE change would push above 2^31-1, if any.
    private mutating func applySettings(_ list: [HTTP2Setting]) -> UInt32? {
        let oldWindow = peer.initialWindowSize
        peer.apply(list)
        for s in list {
            switch s.id {
            case .headerTableSize: encoder.setMaxTableSize(Int(s.value))
            case .maxFrameSize: frameEncoder.maxFrameSize = Int(s.value)
            default: break
            }
        }
        let delta = peer.initialWindowSize - oldWindow
        if delta != 0 {
            // §6.9.2: a change of SETTINGS_INITIAL_WINDOW_SIZE adjusts every open stream's
            // window by the difference.
            for id in streams.keys where !streams[id]!.sendWindow.adjust(by: delta) { return id }
        }
        return nil
    }

    private mutating func finishHeaderBlock(streamID: UInt32, out: inout [UInt8], completions: inout [ClientCompletion]) {
        guard var s = streams[streamID] else {
            let block = orphanBlock
            orphanBlock = []
            do throws(HPACKError) { _ = try decoder.decode(block) } catch {
                if case .headerListTooLarge = error { return }
                connectionError(.compressionError, "\(error)", out: &out, completions: &completions)
            }
            return
        }
        let block = s.headerBlock
        s.headerBlock = []
        let fields: [HeaderField]
        do throws(HPACKError) {
            fields = try decoder.decode(block)
        } catch {
            if case .headerListTooLarge = error {
                streams[streamID] = nil
                frameEncoder.appendRstStream(streamID: streamID, code: .cancel, into: &out)
                completions.append(.response(s.waiter, .failure(.protocolError("\(error)"))))
                startWaiting(out: &out)
            } else {
                // RFC 9113 §4.3: a decoding error is a connection error COMPRESSION_ERROR.
                connectionError(.compressionError, "\(error)", out: &out, completions: &completions)
            }
            return
        }
        if s.status == nil {
            var status: Int?
            var headers = HTTPHeaders()
            for f in fields {
                if f.name == ":status" {
                    status = Int(f.value)
                } else if !f.name.hasPrefix(":") {
                    headers.add(name: f.name, value: f.value)
                }
            }
            guard let status, (100...999).contains(status) else {
                streams[streamID] = nil
                frameEncoder.appendRstStream(streamID: streamID, code: .protocolError, into: &out)
                completions.append(.response(s.waiter, .failure(.protocolError("response HEADERS without a valid :status"))))
                startWaiting(out: &out)
                return
            }
            if status >= 100 && status < 200 {
                streams[streamID] = s  // interim response (e.g. 100-continue): wait for the final one
                return
            }
            s.status = status
            s.headers = headers
        } else {
            for f in fields where !f.name.hasPrefix(":") { s.headers.add(name: f.name, value: f.value) }  // trailers
        }
        streams[streamID] = s
        if s.headerBlockEndsStream { completeStream(streamID, out: &out, completions: &completions) }
    }

    private mutating func completeStream(_ id: UInt32, out: inout [UInt8], completions: inout [ClientCompletion]) {
        guard let s = streams.removeValue(forKey: id) else { return }
        if !s.bodyDone {
            // §8.1: the server answered before reading the whole request; stop sending.
            frameEncoder.appendRstStream(streamID: id, code: .noError, into: &out)
        }
        let response = HTTPClientResponse(status: s.status ?? 0, headers: s.headers, body: s.responseBody, streamID: id,
                                          frames: s.frames, version: .http2, afterGoAway: goAway != nil)
        completions.append(.response(s.waiter, .success(response)))
        startWaiting(out: &out)
    }

    private mutating func receiveGoAway(last: UInt32, code: HTTP2ErrorCode, debug: [UInt8], completions: inout [ClientCompletion]) {
        goAway = (last, code, debug)
        let notProcessed = HTTPClientError.goAway(lastStreamID: last, errorCode: code, debugData: debug)
        // §6.8: streams above last-stream-id were not processed; lower ones may finish.
        for id in streams.keys where id > last {
            let s = streams.removeValue(forKey: id)!
            completions.append(.response(s.waiter, .failure(notProcessed)))
        }
        for p in waiting.drain() { completions.append(.response(p.waiter, .failure(notProcessed))) }
    }

    private mutating func connectionError(_ code: HTTP2ErrorCode, _ reason: String, out: inout [UInt8],
                                          completions: inout [ClientCompletion]) {
        guard failed == nil else { return }
        frameEncoder.appendGoAway(lastStreamID: 0, errorCode: code, debugData: Array(reason.utf8.prefix(256)), into: &out)
        let error = HTTPClientError.protocolError("\(code): \(reason)")
        failEverything(error, notSent: error, completions: &completions)
        failed = error
    }

    private mutating func failEverything(_ error: HTTPClientError, notSent: HTTPClientError, completions: inout [ClientCompletion]) {
        for (_, s) in streams { completions.append(.response(s.waiter, .failure(error))) }
        streams.removeAll()
        sendingBodies.removeAll()
        for p in waiting.drain() { completions.append(.response(p.waiter, .failure(notSent))) }
        for (_, p) in pings { completions.append(.ping(p.waiter, .failure(error))) }
        pings.removeAll()
    }

    /// The transport closed or broke.
    mutating func connectionLost(_ reason: String, completions: inout [ClientCompletion]) {
        let notSent: HTTPClientError
        if let g = goAway {
            notSent = .goAway(lastStreamID: g.lastStreamID, errorCode: g.code, debugData: g.debug)
        } else {
            notSent = .connectionClosed("\(reason) (request not sent)")
        }
        failEverything(.connectionClosed(reason), notSent: notSent, completions: &completions)
        if failed == nil { failed = .connectionClosed(reason) }
    }

    /// Fails requests and pings past their deadline (RST_STREAM CANCEL for open streams);
    /// returns the earliest remaining deadline.
    mutating func checkTimeouts(now: Double, out: inout [UInt8], completions: inout [ClientCompletion]) -> Double? {
        // Deadlines only get later as requests arrive, so nothing can expire before the
        // earliest one seen at the last full scan: skip the O(streams) scan until then.
        if let earliest = earliestDeadline, now < earliest { return earliest }
        var next: Double?
        var freed = false
        for (id, s) in streams {
            if s.deadline <= now {
                streams[id] = nil
                frameEncoder.appendRstStream(streamID: id, code: .cancel, into: &out)
                completions.append(.response(s.waiter, .failure(.timeout)))
                freed = true
            } else {
                next = min(next ?? s.deadline, s.deadline)
            }
        }
        // The FIFO is in deadline order (one timeout per connection).
        while let q = waiting.first, q.deadline <= now {
            _ = waiting.popFirst()
            completions.append(.response(q.waiter, .failure(.timeout)))
        }
        if let q = waiting.first { next = min(next ?? q.deadline, q.deadline) }
        for (opaque, p) in pings {
            if p.deadline <= now {
                pings[opaque] = nil
                completions.append(.ping(p.waiter, .failure(.timeout)))
            } else {
                next = min(next ?? p.deadline, p.deadline)
            }
        }
        if freed { startWaiting(out: &out) }
        earliestDeadline = next
        return next
    }
}
