import Foundation

/// The server side of one HTTP/2 connection (RFC 9113) on the runtime: the I/O adapter of an
/// ``HTTP2ServerSession``, which holds every protocol rule and state.
///
/// The adapter feeds the session (bytes, EOF, timers, the responder's answers, a streamed
/// body's writes) and carries out the ``HTTP2ServerAction``s it returns: it asks the
/// ``Responder``, schedules and cancels timers, runs response body sources on
/// ``HTTP2ResponseBodySink``s, pauses and resumes reading, and writes the session's output
/// once per event, then closes or aborts the socket when told.
///
/// Threading: loop-confined like every ``ConnectionProtocolHandler``; the only entry from
/// other threads is ``HTTP2ResponseBodySink``, which hops through `io.loopExecutor`.
public final class HTTP2ServerConnection: ConnectionProtocolHandler, ConnectionControl {
    let io: any ConnectionIO
    let responder: any Responder
    let limits: ServerLimits
    public let info: ConnectionInfo
    public var version: HTTPVersion { .http2 }
    public var storage: AnyObject?

    /// The protocol state; called into on every event, never re-entered (a responder's
    /// callback runs between two calls).
    let session: HTTP2ServerSession

    // The adapter's state is read or written on every event, each access a single load or
    // store on the loop thread (none is held across a call), so as in the session the dynamic
    // exclusivity checks (`swift_beginAccess`) are off for it.

    /// Timers scheduled for the session, by the session's id.
    @exclusivity(unchecked) var timers: [HTTP2ServerTimerID: TimerToken] = [:]
    /// Sinks of streamed responses, by stream id.
    @exclusivity(unchecked) var sinks: [UInt32: HTTP2ResponseBodySink] = [:]

    /// Why reading from the socket is paused; it resumes once no reason is left.
    struct ReadPause: OptionSet {
        let rawValue: UInt8
        /// More output is buffered than `maxBufferedOutput`.
        static let output = ReadPause(rawValue: 1)
        /// Frames already read wait for the next loop turn (`maxFramesPerTurn`).
        static let inputBacklog = ReadPause(rawValue: 2)
    }
    @exclusivity(unchecked) var readPause: ReadPause = []
    @exclusivity(unchecked) var eventDepth = 0

    /// Where the socket stands, as far as writing goes.
    enum Output {
        /// Output is written at the end of each event.
        case open
        /// The session closed: what is queued is written, then the socket is closed.
        case closingAfterFlush
        /// The session closed and the close was handed to the runtime (later output still
        /// goes to `io.write`, which drops it).
        case closing
        /// Aborted, or the runtime reported the socket gone: nothing more is written.
        case gone
    }
    @exclusivity(unchecked) var output = Output.open

    /// - Parameters:
    ///   - io: the runtime side of the connection.
    ///   - responder: answers complete requests.
    ///   - configuration: the SETTINGS this server announces.
    ///   - limits: body, header-list, stream and timing limits.
    public init(io: any ConnectionIO, responder: any Responder, configuration: HTTP2Configuration, limits: ServerLimits) {
        self.io = io
        self.responder = responder
        self.limits = limits
        self.info = io.info
        self.session = HTTP2ServerSession(info: io.info, configuration: configuration, limits: limits)
    }

    // MARK: - ConnectionProtocolHandler

    public func connectionStarted(initialBytes: [UInt8]) {
        guard session.phase == .notStarted else { return }
        beginEvent()
        run { session.start(initialBytes: initialBytes, now: now(), pendingWriteBytes: io.pendingWriteBytes) }
        endEvent()
    }

    public func bytesReceived(_ bytes: UnsafeRawBufferPointer) {
        guard session.phase == .active else { return }
        beginEvent()
        run { session.receive(bytes, now: now(), pendingWriteBytes: io.pendingWriteBytes) }
        endEvent()
    }

    public func writeBufferDrained() {
        if readPause.contains(.output) && session.phase == .active {
            setReadPause(.output, false)
        }
    }

    public func inputClosed() {
        guard session.phase == .active else { return }
        beginEvent()
        run { session.inputClosed() }
        endEvent()
    }

    public func connectionClosed() {
        output = .gone
        run { session.connectionClosed() }
    }

    // MARK: - ConnectionControl

    public func updateSettings(maxConcurrentStreams: UInt32?) {
        guard session.phase == .active else { return }
        beginEvent()
        run { session.updateSettings(maxConcurrentStreams: maxConcurrentStreams) }
        endEvent()
    }

    public func closeGracefully(errorCode: HTTP2ErrorCode, debugData: [UInt8]) {
        guard session.phase == .active else { return }
        beginEvent()
        run { session.closeGracefully(errorCode: errorCode, debugData: debugData) }
        endEvent()
    }

    // MARK: - Actions

    /// Calls one of the session's entry points, then carries out the actions it queued.
    @inline(__always) func run(_ entryPoint: () -> Void) {
        let base = session.actions.count
        entryPoint()
        perform(from: base)
    }

    /// Carries out the session's actions from `base` on, in order, each moved out of the
    /// session's buffer, then removes them (the buffer keeps its capacity). A request handed to
    /// the responder is the last action of its call; the answer, given back to the session,
    /// queues the next ones behind it. A call nested in a responder's callback (its `run`
    /// starting at the end of the buffer) carries out and removes only its own.
    func perform(from base: Int) {
        var i = base
        while i < session.actions.count {
            let action = session.takeAction(at: i)
            i += 1
            switch action {
            case .deliver(let streamID):
                guard let request = session.takeDelivery() else { break }
                let answer = responder.respond(to: request, context: RequestContext(connection: self))
                session.respond(to: streamID, with: answer)
            case .limitExceeded(let violation, let head):
                let response = responder.limitExceeded(violation, head: head, context: RequestContext(connection: self))
                session.answerLimit(streamID: head.info.streamID, response: response)
            case .streamRefused(let refusal, let head):
                responder.streamRefused(refusal, head: head, context: RequestContext(connection: self))
            case .responseCompleted(let request, let outcome):
                responder.responseCompleted(for: request, outcome: outcome)
            case .schedule(let id, let seconds, let event):
                timers[id] = io.schedule(after: seconds) { [weak self] in self?.timerFired(id, event) }
            case .cancelTimer(let id):
                if let token = timers.removeValue(forKey: id) { io.cancelTimer(token) }
            case .startBody(let streamID, let source):
                let sink = HTTP2ResponseBodySink(streamID: streamID, connection: self, executor: io.loopExecutor,
                                                 backlog: io.outputBacklog)
                sinks[streamID] = sink
                source.start(sink)
            case .closeBody(let streamID):
                sinks.removeValue(forKey: streamID)?.close()
            case .pauseInput:
                setReadPause(.inputBacklog, true)
            case .resumeInput:
                setReadPause(.inputBacklog, false)
            case .close:
                if output == .open {
                    if session.out.isEmpty {
                        output = .closing
                        io.close()
                    } else {
                        output = .closingAfterFlush
                    }
                }
            case .abort:
                output = .gone
                io.abort()
            case .carriedOut:
                break
            }
        }
        session.actions.removeSubrange(base...)
    }

    func timerFired(_ id: HTTP2ServerTimerID, _ event: HTTP2ServerTimerEvent) {
        timers[id] = nil
        beginEvent()
        run { session.timerFired(event, now: now(), pendingWriteBytes: io.pendingWriteBytes) }
        endEvent()
    }

    // MARK: - Events and output

    /// Events may nest (a responder calling `updateSettings` during `respond`); only the
    /// outermost one writes.
    func beginEvent() {
        if eventDepth == 0 { session.beginEvent() }
        eventDepth += 1
    }

    func endEvent() {
        eventDepth -= 1
        guard eventDepth == 0 else { return }
        session.endEvent()
        flush()
    }

    func flush() {
        guard !session.out.isEmpty else { return }
        if output == .gone || (session.phase == .closed && output == .open) {
            session.out.removeAll(keepingCapacity: true)
            return
        }
        io.write(session.out)
        session.out.removeAll(keepingCapacity: true)
        if output == .closingAfterFlush {
            output = .closing
            io.close()
        }
        if session.phase == .active && !readPause.contains(.output) && io.pendingWriteBytes > limits.maxBufferedOutput {
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

    static func monotonicNow() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Monotonic nanoseconds; replaced by tests that drive a virtual clock.
    var testsOnly_clock: () -> UInt64 = HTTP2ServerConnection.monotonicNow
    func now() -> UInt64 { testsOnly_clock() }

    // MARK: - Body sink (called on the loop)

    func sinkWrite(_ sink: HTTP2ResponseBodySink, _ bytes: [UInt8]) {
        guard session.phase == .active, sinks[sink.streamID] === sink else { return }
        beginEvent()
        run { session.bodyWrite(streamID: sink.streamID, bytes) }
        endEvent()
    }

    func sinkFinish(_ sink: HTTP2ResponseBodySink) {
        guard session.phase == .active, sinks[sink.streamID] === sink else { return }
        beginEvent()
        run { session.bodyFinish(streamID: sink.streamID) }
        endEvent()
    }

    // MARK: - Test hooks

    /// The current number of open streams (tests).
    var testsOnly_openStreamCount: Int { session.testsOnly_openStreamCount }
    /// The enforced concurrent-stream limit (tests).
    var testsOnly_maxConcurrentStreams: UInt32 { session.testsOnly_maxConcurrentStreams }
    /// Unacknowledged SETTINGS frames tolerated before SETTINGS_TIMEOUT (tests).
    static var maxUnackedSettings: Int { HTTP2ServerSession.maxUnackedSettings }
}
