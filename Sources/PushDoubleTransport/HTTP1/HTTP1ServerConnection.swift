import Foundation
import Synchronization

/// The HTTP/1.1 server protocol engine of one connection: parses requests, calls the
/// ``Responder``, and writes responses in request order (pipelining), mapping every
/// ``ResponseAction`` to its nearest HTTP/1.1 behaviour.
///
/// Threading: loop-confined, like every ``ConnectionProtocolHandler``; only the
/// ``ResponseBodySink`` it hands out may be used from other threads (it hops to the loop).
final class HTTP1ServerConnection: ConnectionProtocolHandler, ConnectionControl {
    private let io: any ConnectionIO
    private let responder: any Responder
    private let limits: ServerLimits
    private let scheme: String
    private var parser: HTTP1RequestParser
    private var stash: [UInt8] = []
    private var dateCache = HTTPDateCache()

    /// The request being received; `continueOwed` when its client waits for a
    /// `100 Continue` that earlier responses hold back.
    private var current: (head: HTTP1RequestHead, body: [UInt8], headAt: Date, continueOwed: Bool)?
    private var requestCount: UInt32 = 0
    /// Responses owed, in request order.
    private var queue: [Slot] = []
    private var lifecycle = Lifecycle.open
    private var flow = InputFlow.flowing
    private var out: [UInt8] = []

    // Timeouts: one timer, re-armed at the nearest deadline.
    private var readDeadline: UInt64?
    private var lastActivity: UInt64 = Posix.monotonicNanos()
    private var timer: TimerToken?
    private var timerAt: UInt64 = 0

    /// Most pipelined requests kept waiting for their responses before reading pauses.
    static let maxPipelined = 64

    var storage: AnyObject?
    var info: ConnectionInfo { io.info }
    var version: HTTPVersion { .http1_1 }

    /// Where the connection is in its life; it only moves down this list.
    enum Lifecycle {
        /// Reading and answering requests.
        case open
        /// No more requests are read (a `Connection: close` request, a refused request, a
        /// GOAWAY action): the connection ends when a response marked `closeAfter` is done.
        case lastRequestRead
        /// No more requests are read, and the connection closes once every queued response
        /// is written (input closed, graceful close, a request timeout with responses owed).
        case draining
        /// Closed, or closing with nothing more to write.
        case closed
    }

    /// Why parsing has stopped, if it has. Orthogonal to ``Lifecycle``: a socket read pause
    /// outlives the end of reading requests, and is lifted the same way.
    enum InputFlow {
        /// Parsing whatever arrives.
        case flowing
        /// ``maxPipelined`` responses are owed: reading is paused at the socket until half
        /// of them are written (which also re-runs parsing).
        case pausedForPipelining
        /// Responses not yet taken by the kernel: parsing waits for the runtime's drain signal.
        case waitingForOutput
    }

    private var isOpen: Bool { if case .open = lifecycle { true } else { false } }
    private var isClosed: Bool { if case .closed = lifecycle { true } else { false } }

    /// No more requests are read; an earlier decision to close when drained stands.
    private func stopReading() {
        if case .open = lifecycle { lifecycle = .lastRequestRead }
    }

    /// No more requests are read; close once every queued response is written.
    private func drainThenClose() {
        switch lifecycle {
        case .open, .lastRequestRead: lifecycle = .draining
        case .draining, .closed: break
        }
    }

    final class Slot {
        enum State { case waiting, ready(ResponseAction), active, done }
        let info: RequestInfo
        let isHEAD: Bool
        var closeAfter: Bool
        var state: State
        var sink: HTTP1BodySink?
        init(info: RequestInfo, isHEAD: Bool, closeAfter: Bool) {
            self.info = info; self.isHEAD = isHEAD; self.closeAfter = closeAfter; self.state = .waiting
        }
    }

    init(io: any ConnectionIO, responder: any Responder, limits: ServerLimits) {
        self.io = io
        self.responder = responder
        self.limits = limits
        self.scheme = io.info.tls == nil ? "http" : "https"
        self.parser = HTTP1RequestParser(maxHeadSize: limits.maxHeaderListSize, maxBodySize: limits.maxBodySize)
    }

    // MARK: ConnectionProtocolHandler

    func connectionStarted(initialBytes: [UInt8]) {
        armTimer()
        if !initialBytes.isEmpty {
            initialBytes.withUnsafeBytes { bytesReceived($0) }
        }
    }

    func bytesReceived(_ bytes: UnsafeRawBufferPointer) {
        lastActivity = Posix.monotonicNanos()
        guard isOpen else { return }
        if stash.isEmpty {
            let used = process(bytes)
            if used < bytes.count && isOpen { stash.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[used...])) }
        } else {
            stash.append(contentsOf: bytes)
            processStash()
        }
        // Slowloris protection starts when a request is left incomplete; complete requests
        // never touch the timer.
        if readDeadline == nil && isOpen && (current != nil || !stash.isEmpty), case .flowing = flow {
            readDeadline = lastActivity &+ UInt64(limits.requestReadTimeout * 1e9)
            armTimer()
        }
    }

    func writeBufferDrained() {
        guard case .waitingForOutput = flow, !isClosed else { return }
        flow = .flowing
        if !stash.isEmpty && isOpen { processStash() }
    }

    func inputClosed() {
        // Answer what was fully received, then close.
        drainThenClose()
        if queue.isEmpty { io.close() }
    }

    func connectionClosed() {
        lifecycle = .closed
        abandonQueuedResponses()
        storage = nil
    }

    /// Reports every response not yet done as abandoned, marks their body sinks closed (so a
    /// streaming source's onClose callbacks run, as the ResponseBodySink contract promises,
    /// whichever way the connection ends) and empties the queue.
    private func abandonQueuedResponses() {
        let now = Date()
        for slot in queue {
            if case .done = slot.state { continue }
            slot.state = .done
            slot.sink?.markClosed()
            responder.responseCompleted(for: slot.info, outcome: ResponseOutcome(kind: .abandoned, at: now))
        }
        queue.removeAll()
    }

    // MARK: ConnectionControl

    func updateSettings(maxConcurrentStreams: UInt32?) {}

    func closeGracefully(errorCode: HTTP2ErrorCode, debugData: [UInt8]) {
        drainThenClose()
        // Tell the client with `connection: close` on the last response not yet started.
        if let last = queue.last {
            switch last.state {
            case .waiting, .ready: last.closeAfter = true
            default: break
            }
        }
        if queue.isEmpty { io.close() }
    }

    // MARK: input

    private func processStash() {
        let used = stash.withUnsafeBytes { process($0) }
        if used > 0 { stash.removeFirst(min(used, stash.count)) }
        if !isOpen { stash.removeAll() }
    }

    /// Parses as much of `buf` as possible; returns the bytes consumed.
    private func process(_ buf: UnsafeRawBufferPointer) -> Int {
        var offset = 0
        while offset < buf.count || parser.pendingEnd {
            guard isOpen else { return buf.count }
            if parser.isIdle && current == nil {
                if queue.count >= Self.maxPipelined {
                    flow = .pausedForPipelining
                    io.pauseReading()
                    return offset
                }
                // Responses not yet taken by the kernel: stop answering already-read
                // pipelined requests until the runtime says the output drained. A
                // pipelining pause already re-runs parsing when it lifts: it stands.
                if io.pendingWriteBytes > limits.maxBufferedOutput {
                    if case .flowing = flow { flow = .waitingForOutput }
                    return offset
                }
            }
            let result: (consumed: Int, event: HTTP1RequestParser.Event?)
            if parser.takeEnd() {
                result = (0, .end(trailers: HTTPHeaders()))
            } else {
                do {
                    result = try parser.parse(UnsafeRawBufferPointer(rebasing: buf[offset...]))
                } catch {
                    refuse(error)
                    return buf.count
                }
            }
            if result.consumed == 0 && result.event == nil { return offset }
            offset += result.consumed
            guard let event = result.event else { continue }
            switch event {
            case .head(let head):
                requestCount &+= 1
                var body: [UInt8] = []
                // Reserve from the declared length, capped: a client may declare much and send nothing.
                if let cl = head.contentLength, cl > 0 { body.reserveCapacity(min(cl, 64 * 1024)) }
                current = (head, body, Date(), false)
                if !head.hasBody {
                    finishRequest(trailers: HTTPHeaders())
                } else if head.expectContinue && head.minorVersion == 1 && offset >= buf.count {
                    // Only when the client is waiting (no body bytes arrived with the head).
                    if queue.isEmpty { io.write(HTTP1Serializer.continueResponse) } else { current?.continueOwed = true }
                }
            case .body(let chunk):
                current?.body.append(contentsOf: chunk)
            case .end(let trailers):
                finishRequest(trailers: trailers)
            }
        }
        return offset
    }

    private func finishRequest(trailers: HTTPHeaders) {
        guard let cur = current else { return }
        current = nil
        readDeadline = nil
        var headers = cur.head.headers
        for t in trailers { headers.add(name: t.name, value: t.value) }
        let info = RequestInfo(connection: io.info, streamID: requestCount, version: .http1_1, headReceivedAt: cur.headAt, bodyReceivedAt: Date())
        var path = cur.head.target
        var authority = cur.head.host
        if let (a, p) = Self.splitAbsoluteForm(path) {
            // RFC 9112 §3.2.2: absolute-form; its authority replaces Host.
            authority = a
            path = p
        }
        let request = HTTPRequest(method: cur.head.method, path: path, scheme: scheme, authority: authority,
                                  headers: headers, body: cur.body, info: info)
        let slot = Slot(info: info, isHEAD: cur.head.method == "HEAD", closeAfter: !cur.head.keepAlive)
        if slot.closeAfter { stopReading() }
        queue.append(slot)
        let action = responder.respond(to: request, context: RequestContext(connection: self))
        resolve(slot, action)
        pump()
    }

    /// A request broke a limit or the grammar: answer with the responder's error (or
    /// close), after the earlier responses, and read nothing more.
    private func refuse(_ error: HTTP1ParseError) {
        stopReading()
        readDeadline = nil
        stash.removeAll()
        requestCount &+= 1
        let now = Date()
        let head = error.head ?? current?.head
        current = nil
        let info = RequestInfo(connection: io.info, streamID: requestCount, version: .http1_1, headReceivedAt: now, bodyReceivedAt: now)
        let request = HTTPRequest(method: head?.method ?? "", path: head?.target ?? "", scheme: scheme, authority: head?.host,
                                  headers: head?.headers ?? HTTPHeaders(), body: [], info: info)
        let violation = LimitViolation(kind: error.kind, message: error.message)
        let slot = Slot(info: info, isHEAD: false, closeAfter: true)
        queue.append(slot)
        if let response = responder.limitExceeded(violation, head: request, context: RequestContext(connection: self)) {
            slot.state = .ready(.respond(response))
        } else {
            slot.state = .ready(.resetStream(.protocolError))
        }
        pump()
    }

    /// "http://host:port/p?q" → ("host:port", "/p?q"); nil for origin-form targets.
    static func splitAbsoluteForm(_ target: String) -> (String, String)? {
        guard target.first != "/" else { return nil }
        let lower = target.prefix(8).lowercased()
        let schemeLength: Int
        if lower.hasPrefix("http://") { schemeLength = 7 } else if lower.hasPrefix("https://") { schemeLength = 8 } else { return nil }
        let rest = target.dropFirst(schemeLength)
        let pathStart = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = String(rest[..<pathStart])
        var path = String(rest[pathStart...])
        if path.isEmpty || path.first == "?" { path = "/" + path }
        return (authority, path)
    }

    // MARK: output

    private func resolve(_ slot: Slot, _ action: ResponseAction) {
        if case .delayed(let seconds, let then) = action {
            slot.state = .waiting
            io.schedule(after: seconds) { [weak self, slot] in
                guard let self, !self.isClosed else { return }
                self.resolve(slot, then)
                self.pump()
            }
        } else {
            slot.state = .ready(action)
        }
    }

    /// Starts the responses at the head of the queue that are ready, in order.
    private func pump() {
        while !isClosed, let slot = queue.first {
            switch slot.state {
            case .waiting, .active:
                return
            case .done:
                queue.removeFirst()
                if slot.closeAfter {
                    finishConnection()
                    return
                }
                continue
            case .ready(let action):
                slot.state = .active
                start(action, slot)
            }
        }
        guard !isClosed else { return }
        if queue.isEmpty {
            if case .draining = lifecycle { io.close(); return }
            if current?.continueOwed == true {
                current?.continueOwed = false
                io.write(HTTP1Serializer.continueResponse)
            }
        }
        if case .pausedForPipelining = flow, queue.count < Self.maxPipelined / 2 {
            flow = .flowing
            io.resumeReading()
            if !stash.isEmpty { processStash() }
        }
    }

    private func finishConnection() {
        stopReading()
        abandonQueuedResponses()
        io.close()
    }

    private func complete(_ slot: Slot, _ kind: ResponseOutcome.Kind) {
        slot.state = .done
        lastActivity = Posix.monotonicNanos()
        responder.responseCompleted(for: slot.info, outcome: ResponseOutcome(kind: kind, at: Date()))
    }

    private func writeHead(_ r: HTTPResponse, slot: Slot, chunked: Bool, bodyLength: Int?) {
        // A responder's `connection: close` is kept: the connection closes after this
        // response, as RFC 9112 §9.6 requires of a server that sends it.
        if !slot.closeAfter, let c = r.headers.first(name: "connection"),
           c.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces).lowercased() == "close" }) {
            slot.closeAfter = true
            stopReading()
        }
        out.removeAll(keepingCapacity: true)
        let noBody = HTTP1Serializer.statusForbidsBody(r.status)
        HTTP1Serializer.writeHead(status: r.status, headers: r.headers,
                                  contentLength: noBody ? nil : bodyLength, chunked: chunked && !noBody,
                                  close: slot.closeAfter, keepAliveHeader: false, date: dateCache.current(), into: &out)
    }

    private func flushOut() {
        if !out.isEmpty { io.write(out) }
        out.removeAll(keepingCapacity: true)
    }

    private func start(_ action: ResponseAction, _ slot: Slot) {
        switch action {
        case .respond(let r):
            let sendBody = !slot.isHEAD && !HTTP1Serializer.statusForbidsBody(r.status)
            if case .chunked(let maxChunk) = r.framing {
                writeHead(r, slot: slot, chunked: true, bodyLength: nil)
                if sendBody {
                    let step = max(1, maxChunk)
                    var i = 0
                    while i < r.body.count {
                        let e = min(r.body.count, i + step)
                        HTTP1Serializer.writeChunk(r.body[i..<e], into: &out)
                        i = e
                    }
                    out.append(contentsOf: HTTP1Serializer.lastChunk)
                }
            } else {
                writeHead(r, slot: slot, chunked: false, bodyLength: r.body.count)
                if sendBody { out.append(contentsOf: r.body) }
            }
            flushOut()
            complete(slot, .completed)

        case .delayed:
            resolve(slot, action)

        case .heldUntilGoAway(_, let then):
            resolve(slot, then)

        case .resetStream:
            complete(slot, .reset)
            abortAfterEarlierResponses()

        case .goAway(_, _, _, let then):
            slot.closeAfter = true
            stopReading()
            if let then {
                resolve(slot, then)
            } else {
                complete(slot, .reset)
            }

        case .dropConnection:
            complete(slot, .connectionDropped)
            io.abort()

        case .stall:
            slot.state = .waiting

        case .dribble(let r, let chunkSize, let interval):
            writeHead(r, slot: slot, chunked: false, bodyLength: r.body.count)
            flushOut()
            if slot.isHEAD || HTTP1Serializer.statusForbidsBody(r.status) || r.body.isEmpty {
                complete(slot, .completed)
                return
            }
            dribble(r.body, from: 0, chunkSize: max(1, chunkSize), interval: interval, slot: slot)
            return

        case .truncate(let r, let bodyBytes):
            writeHead(r, slot: slot, chunked: false, bodyLength: r.body.count)
            if !slot.isHEAD { out.append(contentsOf: r.body.prefix(max(0, bodyBytes))) }
            flushOut()
            complete(slot, .connectionDropped)
            // FIN after the partial body: the client sees fewer bytes than Content-Length.
            queue.removeAll { $0 === slot }
            finishConnection()

        case .stream(let r, let source):
            writeHead(r, slot: slot, chunked: true, bodyLength: nil)
            flushOut()
            if slot.isHEAD || HTTP1Serializer.statusForbidsBody(r.status) {
                complete(slot, .completed)
                return
            }
            let sink = HTTP1BodySink(connection: self, slot: slot, executor: io.loopExecutor, backlog: io.outputBacklog)
            slot.sink = sink
            source.start(sink)
        }
    }

    private func abortAfterEarlierResponses() {
        lifecycle = .closed
        abandonQueuedResponses()
        // Earlier responses are queued in the runtime: flush them, then close. With nothing
        // pending the close is abortive (RST), the nearest thing to RST_STREAM.
        if io.pendingWriteBytes == 0 { io.abort() } else { io.close() }
    }

    private func dribble(_ body: [UInt8], from: Int, chunkSize: Int, interval: Double, slot: Slot) {
        io.schedule(after: interval) { [weak self, slot] in
            guard let self, !self.isClosed else { return }
            let end = min(body.count, from + chunkSize)
            self.io.write(Array(body[from..<end]))
            self.lastActivity = Posix.monotonicNanos()
            if end >= body.count {
                self.complete(slot, .completed)
                self.pump()
            } else {
                self.dribble(body, from: end, chunkSize: chunkSize, interval: interval, slot: slot)
            }
        }
    }

    // Called by the sink on the loop.
    fileprivate func streamWrite(_ slot: Slot, _ bytes: [UInt8]) {
        guard !isClosed, case .active = slot.state else { return }
        out.removeAll(keepingCapacity: true)
        HTTP1Serializer.writeChunk(bytes[...], into: &out)
        flushOut()
        lastActivity = Posix.monotonicNanos()
    }

    fileprivate func streamFinish(_ slot: Slot) {
        guard !isClosed, case .active = slot.state else { return }
        io.write(HTTP1Serializer.lastChunk)
        complete(slot, .completed)
        slot.sink?.markClosed()
        pump()
    }

    // MARK: timeouts

    private func nextDeadline() -> UInt64 {
        let idle = lastActivity &+ UInt64(limits.idleTimeout * 1e9)
        if let r = readDeadline { return min(r, idle) }
        return idle
    }

    private func armTimer() {
        let at = nextDeadline()
        if let t = timer {
            if timerAt <= at { return }
            io.cancelTimer(t)
        }
        timerAt = at
        let now = Posix.monotonicNanos()
        let delay = at > now ? Double(at - now) / 1e9 : 0
        timer = io.schedule(after: delay) { [weak self] in self?.timerFired() }
    }

    /// The 408 for a request that did not arrive in time: shaped by the responder (e.g. the
    /// admin API's JSON error), or plain text.
    private func requestTimeoutResponse() -> HTTPResponse {
        let message = "The request was not received within \(limits.requestReadTimeout) seconds."
        let now = Date()
        let info = RequestInfo(connection: io.info, streamID: requestCount &+ 1, version: .http1_1, headReceivedAt: now, bodyReceivedAt: now)
        let request = HTTPRequest(method: "", path: "", scheme: scheme, authority: nil, headers: HTTPHeaders(), body: [], info: info)
        if let shaped = responder.limitExceeded(LimitViolation(kind: .requestTimeout, message: message), head: request,
                                                context: RequestContext(connection: self)) {
            var r = shaped
            r.status = 408
            return r
        }
        var h = HTTPHeaders()
        h.add(name: "content-type", value: "text/plain; charset=utf-8")
        return HTTPResponse(status: 408, headers: h, body: Array((message + "\n").utf8))
    }

    private func timerFired() {
        timer = nil
        guard !isClosed else { return }
        let now = Posix.monotonicNanos()
        if let r = readDeadline, r <= now {
            // Slowloris protection: the request did not arrive in time.
            readDeadline = nil
            stopReading()
            stash.removeAll()
            current = nil
            if queue.isEmpty {
                let response = requestTimeoutResponse()
                out.removeAll(keepingCapacity: true)
                HTTP1Serializer.writeHead(status: response.status, headers: response.headers, contentLength: response.body.count,
                                          chunked: false, close: true, keepAliveHeader: false, date: dateCache.current(), into: &out)
                out.append(contentsOf: response.body)
                flushOut()
                lifecycle = .closed
                io.close()
            } else {
                drainThenClose()
            }
            return
        }
        if lastActivity &+ UInt64(limits.idleTimeout * 1e9) <= now {
            lifecycle = .closed
            connectionClosedByIdle()
            return
        }
        armTimer()
    }

    private func connectionClosedByIdle() {
        abandonQueuedResponses()
        io.close()
    }
}


/// The ``ResponseBodySink`` of a streamed HTTP/1.1 response: each write becomes one chunk.
final class HTTP1BodySink: ResponseBodySink {
    private let connection: LoopBound<HTTP1ServerConnection>
    private let slot: LoopBound<HTTP1ServerConnection.Slot>
    private let executor: any LoopExecutor
    private let state = Locked<(closed: Bool, callbacks: [@Sendable () -> Void])>((false, []))
    private let unsent: SinkUnsentBytes

    init(connection: HTTP1ServerConnection, slot: HTTP1ServerConnection.Slot, executor: any LoopExecutor, backlog: OutputBacklog?) {
        self.connection = LoopBound(connection)
        self.slot = LoopBound(slot)
        self.executor = executor
        self.unsent = SinkUnsentBytes(backlog)
    }

    func write(_ bytes: [UInt8]) {
        guard !isClosed, !bytes.isEmpty else { return }
        let c = connection, s = slot, unsent = unsent, n = bytes.count
        unsent.handed(n)
        executor.execute {
            unsent.taken(n)  // before the backlog gets it: never counted twice (SinkUnsentBytes)
            guard let conn = c.value, let slot = s.value else { return }
            conn.streamWrite(slot, bytes)
        }
    }

    var unsentBytes: Int { unsent.total }

    func finish() {
        guard !isClosed else { return }
        let c = connection, s = slot
        executor.execute {
            guard let conn = c.value, let slot = s.value else { return }
            conn.streamFinish(slot)
        }
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    func onClose(_ callback: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { st -> Bool in
            if st.closed { return true }
            st.callbacks.append(callback)
            return false
        }
        if runNow { callback() }
    }

    func markClosed() {
        let cbs = state.withLock { st -> [@Sendable () -> Void] in
            if st.closed { return [] }
            st.closed = true
            let c = st.callbacks
            st.callbacks = []
            return c
        }
        for cb in cbs { cb() }
    }
}
