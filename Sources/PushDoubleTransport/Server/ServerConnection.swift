#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import COpenSSL

/// Process-wide connection id counter.
enum ConnectionIDs {
    static let counter = Atomic<UInt64>(0)
    static func next() -> UInt64 { counter.add(1, ordering: .relaxed).newValue }
}

/// One accepted TCP connection: socket, optional TLS, protocol sniffing, buffered output,
/// timers, and the protocol engine it feeds (the ``ConnectionIO`` side of the contract).
///
/// Threading: created on, and confined to, the event loop that accepted it.
final class ServerConnection: ConnectionIO, Selectable, Flushable {
    private enum Phase { case handshaking, sniffing, active, lingering, closed }

    let fd: Int32
    let loop: EventLoop
    let listener: ListenerRuntime
    private(set) var info: ConnectionInfo
    private let tls: TLSConnection?
    private var phase: Phase
    private var generation: UInt32 = 0
    private var handler: (any ConnectionProtocolHandler)?
    private var handlerNotified = false
    private var sniffBuffer: [UInt8] = []

    private var out: [UInt8] = []
    private var outStart = 0
    private var flushQueued = false
    private var waitingWritable = false
    private var handshakeWantsWrite = false
    private var readPaused = false
    private var retryReadScheduled = false
    private var backPressured = false
    private var inputEOF = false
    private var closeAfterFlush = false
    /// Bytes discarded in the lingering close (``drainLingering()``).
    private var lingeringDiscarded = 0
    private var currentInterest: UInt32 = 0
    private var timers = Set<UInt64>()
    private var handshakeTimer: UInt64?
    private var countReleased = false
    /// Whether any application bytes arrived (ends the handshake/first-bytes timeout).
    private var receivedBytes = false

    init(fd: Int32, loop: EventLoop, listener: ListenerRuntime, peer: String, localPort: Int) {
        self.fd = fd
        self.loop = loop
        self.listener = listener
        self.info = ConnectionInfo(id: ConnectionIDs.next(), listener: listener.config.name, peer: peer,
                                   localPort: localPort, tls: nil, acceptedAt: Date())
        if let ctx = listener.tls {
            self.tls = TLSConnection(context: ctx, fd: fd)
            self.phase = .handshaking
        } else {
            self.tls = nil
            self.phase = .sniffing
        }
    }

    /// Registers with the loop and starts the handshake timer. Returns false on failure.
    func start() -> Bool {
        if listener.tls != nil && tls == nil { return false }
        currentInterest = EPOLLIN.rawValue
        guard let gen = try? loop.register(fd: fd, events: currentInterest, self) else { return false }
        generation = gen
        handshakeTimer = loop.scheduleTimer(after: listener.config.limits.handshakeTimeout) { [weak self] in
            guard let self else { return }
            self.handshakeTimer = nil
            self.closeIfHandshakeIdle()
        }
        let box = LoopBound(self)
        let owner = loop
        listener.handshakeIdle.add(info.id) { owner.execute { box.value?.closeIfHandshakeIdle() } }
        if tls == nil { chooseCleartextProtocol() }
        return true
    }

    /// Closes the connection if the handshake is not done or no request bytes came yet
    /// (even when the protocol was chosen without sniffing, e.g. by ALPN): the handshake
    /// timeout, and shedding by a full listener (``HandshakeIdleConnections``).
    func closeIfHandshakeIdle() {
        guard phase == .handshaking || phase == .sniffing || (phase == .active && !receivedBytes) else { return }
        handler?.inputClosed()
        finalize(abortive: true)
    }

    // MARK: events

    func handleEvents(_ events: UInt32) {
        switch phase {
        case .closed:
            return
        case .handshaking:
            doHandshake()
        case .lingering:
            drainLingering()
        case .sniffing, .active:
            var wantRead = events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
            if events & EPOLLOUT.rawValue != 0 {
                // An SSL_read that returned WANT_WRITE is retried once the socket is writable.
                if tls != nil { wantRead = true }
                flushNow()
            }
            if wantRead && phase != .closed { readLoop() }
        }
    }

    private func doHandshake() {
        guard let tls else { return }
        switch tls.handshake() {
        case .done:
            handshakeWantsWrite = false
            info.tls = tls.info
            let cfg = listener.config
            switch info.tls?.alpn {
            case "h2": startProtocol(.http2, initialBytes: [])
            case "http/1.1": startProtocol(.http1, initialBytes: [])
            default:
                // No ALPN: sniff the HTTP/2 preface (some h2 clients never offer ALPN).
                if cfg.allowHTTP2 && cfg.allowHTTP1 {
                    phase = .sniffing
                } else {
                    startProtocol(cfg.allowHTTP2 ? .http2 : .http1, initialBytes: [])
                }
            }
            guard phase == .sniffing || phase == .active else { return }
            updateInterest()
            readLoop()
        case .wantRead:
            handshakeWantsWrite = false
            updateInterest()
        case .wantWrite:
            handshakeWantsWrite = true
            updateInterest()
        case .failed:
            finalize(abortive: true)
        }
    }

    private func chooseCleartextProtocol() {
        let cfg = listener.config
        if !cfg.allowHTTP2 { startProtocol(.http1, initialBytes: []) } else if !cfg.allowHTTP1 { startProtocol(.http2, initialBytes: []) }
    }

    private func startProtocol(_ p: ServedProtocol, initialBytes: [UInt8]) {
        if !initialBytes.isEmpty, let t = handshakeTimer { loop.cancelTimer(t); handshakeTimer = nil }
        guard let h = ProtocolFactory.make(p, io: self, listener: listener.config) else {
            finalize(abortive: false)
            return
        }
        handler = h
        phase = .active
        h.connectionStarted(initialBytes: initialBytes)
    }

    private enum ReadOutcome { case bytes(Int), wouldBlock, eof, failed }

    @inline(__always)
    private func readOnce(_ buf: UnsafeMutableRawBufferPointer) -> ReadOutcome {
        if let tls {
            switch tls.read(into: buf) {
            case .bytes(let n): return .bytes(n)
            case .wantRead: return .wouldBlock
            case .wantWrite: waitingWritable = true; return .wouldBlock
            case .eof: return .eof
            case .failed: return .failed
            }
        }
        do {
            switch try Posix.read(fd, buf.baseAddress!, buf.count) {
            case .processed(0): return .eof
            case .processed(let n): return .bytes(n)
            case .wouldBlock: return .wouldBlock
            }
        } catch {
            return .failed
        }
    }

    /// Reads and hands over at most `maxReadBytesPerTurn` bytes, then returns to the loop so
    /// that its other connections get their turn (one connection must not hold a shared loop); epoll is level-triggered, so a
    /// socket with more input is reported again on the next iteration.
    private func readLoop() {
        let buf = loop.readBuffer
        var budget = max(1, listener.config.limits.maxReadBytesPerTurn)
        while (phase == .active || phase == .sniffing) && !readPaused && !backPressured && !inputEOF && !closeAfterFlush {
            if budget <= 0 {
                yieldReading()
                return
            }
            let requested = min(buf.count, budget)
            switch readOnce(UnsafeMutableRawBufferPointer(rebasing: buf[0..<requested])) {
            case .bytes(let n):
                budget -= n
                if !receivedBytes {
                    receivedBytes = true
                    if let t = handshakeTimer { loop.cancelTimer(t); handshakeTimer = nil }
                    listener.handshakeIdle.remove(info.id)
                }
                let chunk = UnsafeRawBufferPointer(rebasing: buf[0..<n])
                if phase == .sniffing {
                    sniff(chunk)
                } else {
                    handler?.bytesReceived(chunk)
                }
                // A short plaintext read drained the socket: skip the read that would only
                // return EAGAIN (epoll is level-triggered and reports more input). TLS reads
                // return one record at a time, so they continue until WANT_READ.
                if tls == nil && n < requested {
                    updateInterest()
                    return
                }
            case .wouldBlock:
                updateInterest()
                return
            case .eof:
                inputEOF = true
                updateInterest()
                if phase == .sniffing {
                    finalize(abortive: false)
                } else {
                    handler?.inputClosed()
                }
                return
            case .failed:
                inputEOF = true
                handler?.inputClosed()
                finalize(abortive: true)
                return
            }
        }
        updateInterest()
    }

    /// The read budget is spent: input epoll can see is reported again next iteration;
    /// input OpenSSL has already decrypted is not, so it gets a timer due at once.
    private func yieldReading() {
        updateInterest()
        if let tls, tls.pending > 0, !retryReadScheduled {
            retryReadScheduled = true
            loop.scheduleTimer(after: 0) { [weak self] in
                guard let self else { return }
                self.retryReadScheduled = false
                if self.phase == .active || self.phase == .sniffing { self.readLoop() }
            }
        }
    }

    private func sniff(_ chunk: UnsafeRawBufferPointer) {
        sniffBuffer.append(contentsOf: chunk)
        let n = min(sniffBuffer.count, http2ClientPreface.count)
        var matches = true
        for i in 0..<n where sniffBuffer[i] != http2ClientPreface[i] { matches = false; break }
        if !matches {
            let bytes = sniffBuffer
            sniffBuffer = []
            startProtocol(listener.config.allowHTTP1 ? .http1 : .http2, initialBytes: bytes)
        } else if sniffBuffer.count >= http2ClientPreface.count {
            let bytes = sniffBuffer
            sniffBuffer = []
            startProtocol(.http2, initialBytes: bytes)
        }
    }

    /// Reads and discards the peer's input after our FIN: per turn within `readLoop`'s budget (a
    /// peer that keeps sending after our close must not hold the loop either), in all at most
    /// ``ServerLimits/maxLingeringBytes`` (a flood cut with GOAWAY costs no more than that). Past
    /// it reading stops and only the peer's own close (EPOLLRDHUP), a hang-up or the linger timer
    /// (``ServerLimits/closeFlushTimeout``) end the socket; called again after that only for
    /// those events: the peer is gone.
    private func drainLingering() {
        let limit = listener.config.limits.maxLingeringBytes
        guard lingeringDiscarded < limit else { return finalize(abortive: false) }
        let budget = min(listener.config.limits.maxReadBytesPerTurn, limit - lingeringDiscarded)
        let (peerClosed, discarded) = LingeringInput.discard(fd: fd, buffer: loop.readBuffer, budget: budget)
        lingeringDiscarded += discarded
        if peerClosed { return finalize(abortive: false) }
        if lingeringDiscarded >= limit { updateInterest() }
    }

    private func updateInterest() {
        guard phase != .closed else { return }
        var want: UInt32 = 0
        switch phase {
        case .handshaking:
            want = handshakeWantsWrite ? EPOLLOUT.rawValue : EPOLLIN.rawValue
        case .lingering:
            want = lingeringDiscarded < listener.config.limits.maxLingeringBytes ? EPOLLIN.rawValue : EPOLLRDHUP.rawValue
        case .sniffing, .active:
            if !readPaused && !backPressured && !inputEOF && !closeAfterFlush { want |= EPOLLIN.rawValue }
            if waitingWritable { want |= EPOLLOUT.rawValue }
        case .closed:
            return
        }
        if want != currentInterest {
            currentInterest = want
            loop.modify(fd: fd, generation: generation, events: want)
        }
    }

    // MARK: ConnectionIO

    func write(_ bytes: [UInt8]) {
        guard phase == .active || phase == .sniffing, !bytes.isEmpty else { return }
        if outStart == out.count {
            out = bytes
            outStart = 0
        } else {
            out.append(contentsOf: bytes)
        }
        // Above the high-water mark: stop reading (after the current handler call) until
        // the output drains to half; the handler then hears `writeBufferDrained`.
        if !backPressured && out.count - outStart > listener.config.limits.maxBufferedOutput {
            backPressured = true
        }
        outputBacklog?.publish(out.count - outStart)
        if !flushQueued {
            flushQueued = true
            loop.enqueueFlush(self)
        }
    }

    var pendingWriteBytes: Int { out.count - outStart }

    let outputBacklog: OutputBacklog? = OutputBacklog()

    func close() {
        if phase == .handshaking { finalize(abortive: false); return }
        guard phase == .active || phase == .sniffing else { return }
        closeAfterFlush = true
        updateInterest()
        // A peer that stopped reading would hold the connection (and its output) for ever.
        schedule(after: listener.config.limits.closeFlushTimeout) { [weak self] in self?.abort() }
        if !flushQueued {
            flushQueued = true
            loop.enqueueFlush(self)
        }
    }

    func abort() {
        guard phase != .closed else { return }
        finalize(abortive: true)
    }

    func pauseReading() {
        readPaused = true
        updateInterest()
    }

    func resumeReading() {
        guard readPaused else { return }
        readPaused = false
        updateInterest()
        // OpenSSL may hold decrypted bytes that epoll cannot see.
        if let tls, tls.pending > 0 {
            let box = LoopBound(self)
            loop.execute { box.value?.readLoop() }
        }
    }

    @discardableResult
    func schedule(after seconds: Double, _ body: @escaping () -> Void) -> TimerToken {
        let id = loop.reserveTimerID()
        guard phase != .closed else { return TimerToken(id: id) }
        timers.insert(id)
        loop.scheduleTimer(after: seconds, id: id) { [weak self] in
            guard let self, self.phase != .closed else { return }
            self.timers.remove(id)
            body()
        }
        return TimerToken(id: id)
    }

    func cancelTimer(_ token: TimerToken) {
        timers.remove(token.id)
        loop.cancelTimer(token.id)
    }

    var loopExecutor: any LoopExecutor { loop }

    // MARK: output

    func flushPending() {
        flushQueued = false
        switch phase {
        case .closed:
            notifyHandlerClosed()
            return
        case .lingering, .handshaking:
            return
        case .active, .sniffing:
            flushNow()
        }
    }

    private func flushNow() {
        while outStart < out.count {
            let remaining = out.count - outStart
            var progressed = 0
            var blocked = false
            out.withUnsafeBytes { raw in
                let p = raw.baseAddress! + outStart
                if let tls {
                    switch tls.write(p, remaining) {
                    case .wrote(let n): progressed = n
                    case .wantWrite, .wantRead: blocked = true
                    case .failed: progressed = -1
                    }
                } else {
                    do {
                        switch try Posix.send(fd, p, remaining) {
                        case .processed(let n): progressed = n
                        case .wouldBlock: blocked = true
                        }
                    } catch { progressed = -1 }
                }
            }
            if progressed < 0 {
                handler?.inputClosed()
                finalize(abortive: true)
                return
            }
            if blocked {
                waitingWritable = true
                break
            }
            outStart += progressed
        }
        if outStart == out.count {
            out.removeAll(keepingCapacity: out.capacity <= 256 * 1024)
            outStart = 0
            waitingWritable = false
        } else if outStart > 64 * 1024 && outStart > out.count / 2 {
            out.removeFirst(outStart)
            outStart = 0
        }
        let pending = out.count - outStart
        outputBacklog?.publish(pending)
        let high = listener.config.limits.maxBufferedOutput
        if pending > high {
            backPressured = true
        } else if backPressured && pending <= high / 2 && phase == .active {
            backPressured = false
            updateInterest()
            handler?.writeBufferDrained()
            if phase == .active && !readPaused { readLoop() }
        }
        if closeAfterFlush && pending == 0 && phase != .closed {
            finishGracefulClose()
            return
        }
        updateInterest()
    }

    /// Everything written: close_notify, FIN, then read and discard until the peer closes
    /// (so unread input does not turn our close into an RST that destroys the response).
    private func finishGracefulClose() {
        tls?.shutdown()
        Posix.shutdownWrite(fd)
        cancelAllTimers()
        notifyHandlerClosed()
        releaseCount()
        phase = .lingering
        updateInterest()
        // Until the peer closes, at most `closeFlushTimeout`: closing while it may still be
        // reading what we sent would be an RST (our unread input) that destroys that output.
        loop.scheduleTimer(after: listener.config.limits.closeFlushTimeout) { [weak self] in self?.finalize(abortive: false) }
        drainLingering()
    }

    private func cancelAllTimers() {
        for t in timers { loop.cancelTimer(t) }
        timers.removeAll()
        if let t = handshakeTimer { loop.cancelTimer(t); handshakeTimer = nil }
    }

    private func notifyHandlerClosed() {
        guard !handlerNotified else { return }
        handlerNotified = true
        let h = handler
        handler = nil
        h?.connectionClosed()
    }

    /// Closes the socket now and releases everything; the handler hears about it at the end
    /// of the current loop iteration (never re-entrantly).
    func finalize(abortive: Bool) {
        guard phase != .closed else { return }
        let wasLingering = phase == .lingering
        phase = .closed
        cancelAllTimers()
        loop.deregister(fd: fd)
        if abortive { Posix.abortiveClose(fd) } else { Posix.close(fd) }
        releaseCount()
        out = []
        outputBacklog?.publish(0)
        if !wasLingering && !handlerNotified {
            flushQueued = true
            loop.enqueueFlush(self)
        }
    }

    /// A lingering socket no longer counts as a connection (limits, ``HTTPServer/connectionCount``).
    private func releaseCount() {
        guard !countReleased else { return }
        countReleased = true
        if !receivedBytes { listener.handshakeIdle.remove(info.id) }
        listener.connectionEnded()
    }

    /// Server shutdown: ask the engine to finish gracefully, or close if none yet.
    func beginGracefulShutdown() {
        switch phase {
        case .handshaking, .sniffing:
            finalize(abortive: false)
        case .active:
            if let control = handler as? ConnectionControl {
                control.closeGracefully(errorCode: .noError, debugData: [])
            } else {
                close()
            }
        case .lingering, .closed:
            break
        }
    }
}

/// The input of a socket being closed gracefully (the "lingering close"), read and discarded.
enum LingeringInput {
    /// Reads and discards at most `budget` bytes (a peer that keeps sending must not hold the
    /// loop); `peerClosed` when the peer has closed (end of input or an error), so the socket can go.
    /// Also returns how many bytes were discarded.
    static func discard(fd: Int32, buffer: UnsafeMutableRawBufferPointer, budget: Int) -> (peerClosed: Bool, discarded: Int) {
        let total = max(1, budget)
        var left = total
        while left > 0 {
            let r: IOResult<Int>
            do { r = try Posix.read(fd, buffer.baseAddress!, min(buffer.count, left)) } catch { return (true, total - left) }
            switch r {
            case .processed(0): return (true, total - left)
            case .processed(let n): left -= n
            case .wouldBlock: return (false, total - left)
            }
        }
        return (false, total - left)
    }
}
