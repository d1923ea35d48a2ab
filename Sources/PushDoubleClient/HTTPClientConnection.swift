#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PushDoubleTransport

/// One client connection (HTTP/1.1 or HTTP/2, TLS or cleartext) used with async/await.
///
/// Threading model: each connection owns one I/O thread that does every socket and TLS
/// call (connect, handshake, reads, writes; an `SSL` must not be used from two threads).
/// Protocol state (the HTTP/2 or HTTP/1.1 session) sits behind a mutex: `send`, `ping`
/// and `close` lock it, let the session append frames to an outgoing buffer, and wake the
/// I/O thread through a pipe; the I/O thread locks it to feed received bytes and to take
/// the outgoing buffer. Continuations are always resumed after the lock is released.
///
/// On HTTP/2 requests are multiplexed; past the peer's SETTINGS_MAX_CONCURRENT_STREAMS
/// they wait in a FIFO inside the connection and start as streams finish or the peer
/// raises the limit. `connect` returns once the server's first SETTINGS has arrived, so
/// the first requests already respect its limit. On HTTP/1.1 requests go one at a time.
public final class HTTPClientConnection: Sendable {
    private let core: ClientConnectionCore

    /// Local id for logs (process-unique, increasing).
    public var connectionID: Int { core.id }
    /// The protocol negotiated (ALPN on TLS; prior knowledge on cleartext).
    public var version: HTTPVersion { core.state.withLock { $0.version } }
    /// False after a GOAWAY was received, the server asked to close, or the connection closed.
    public var isUsable: Bool { core.state.withLock { $0.isUsable } }
    /// The peer's current SETTINGS_MAX_CONCURRENT_STREAMS (UInt32.max if it set none; 1 on HTTP/1.1).
    public var peerMaxConcurrentStreams: UInt32 {
        core.state.withLock { s in
            guard case .http2(let h2) = s.session else { return 1 }
            return h2.peer.maxConcurrentStreams ?? UInt32.max
        }
    }
    /// Streams open right now (HTTP/2) — for tests and pool decisions.
    public var openStreamCount: Int {
        core.state.withLock { s in
            guard case .http2(let h2) = s.session else { return 0 }
            return h2.openStreamCount
        }
    }

    private init(core: ClientConnectionCore) { self.core = core }

    deinit { core.requestClose() }

    /// Connects, handshakes and (HTTP/2) waits for the server's first SETTINGS.
    public static func connect(host: String, port: Int, tls: Bool,
                               configuration: HTTPClientConfiguration) async throws(HTTPClientError) -> HTTPClientConnection {
        let core = ClientConnectionCore(host: host, port: port, tls: tls, configuration: configuration)
        let result: Result<Void, HTTPClientError> = await withCheckedContinuation { cont in
            core.start(connectWaiter: cont)
        }
        try result.get()
        return HTTPClientConnection(core: core)
    }

    /// Sends one request and waits for the complete response.
    public func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        let result: Result<HTTPClientResponse, HTTPClientError> = await withCheckedContinuation { cont in
            core.enqueue(request, waiter: cont)
        }
        return try result.get()
    }

    /// HTTP/2 PING round trip in seconds.
    public func ping() async throws(HTTPClientError) -> Double {
        let result: Result<Double, HTTPClientError> = await withCheckedContinuation { cont in
            core.ping(waiter: cont)
        }
        return try result.get()
    }

    /// Sends GOAWAY(NO_ERROR) on HTTP/2, fails requests still in flight with
    /// `.connectionClosed`, and closes the socket.
    public func close() { core.requestClose() }
}

/// The shared state and the I/O thread of one ``HTTPClientConnection``.
///
/// `@unchecked Sendable`: `state` is behind a lock; `socket`, `tls`, `pendingWrite` and the read
/// buffer are touched only by the I/O thread once it has started (before that, only by
/// `init`); the wake pipe's descriptors are immutable and writing to a pipe is thread-safe.
final class ClientConnectionCore: @unchecked Sendable {
    struct State {
        /// The protocol session: none until the transport is up, then the one ALPN (or
        /// prior knowledge on cleartext) chose, for the rest of the connection.
        enum Session {
            /// TCP connect and TLS handshake still under way (or failed).
            case establishing
            case http2(HTTP2ClientSession)
            case http1(HTTP1ClientSession)
        }

        var session = Session.establishing
        var out: [UInt8] = []
        var connectWaiter: CheckedContinuation<Result<Void, HTTPClientError>, Never>?
        var connected = false
        var closeRequested = false
        var closed: String?

        /// HTTP/2 until the transport chose HTTP/1.1.
        var version: HTTPVersion {
            if case .http1 = session { return .http1_1 }
            return .http2
        }

        var isUsable: Bool {
            guard connected, closed == nil, !closeRequested else { return false }
            switch session {
            case .establishing: return false
            case .http2(let h2): return h2.isUsable
            case .http1(let h1): return h1.usable
            }
        }

        /// Runs `body` on the HTTP/2 session in place, with the outgoing buffer; nil (and
        /// `body` not run) on HTTP/1.1 or before the session exists.
        mutating func withHTTP2<R>(_ body: (inout HTTP2ClientSession, inout [UInt8]) -> R) -> R? {
            guard case .http2(var h2) = session else { return nil }
            // Leave the enum while mutating so the session's storage stays uniquely
            // referenced (no copy-on-write of its buffers).
            session = .establishing
            defer { session = .http2(h2) }
            return body(&h2, &out)
        }

        /// Runs `body` on the HTTP/1.1 session in place, with the outgoing buffer; nil (and
        /// `body` not run) on HTTP/2 or before the session exists.
        mutating func withHTTP1<R>(_ body: (inout HTTP1ClientSession, inout [UInt8]) -> R) -> R? {
            guard case .http1(var h1) = session else { return nil }
            session = .establishing
            defer { session = .http1(h1) }
            return body(&h1, &out)
        }
    }

    private static let idCounter = Locked(0)

    let id: Int
    let state = Locked(State())
    private let host: String
    private let port: Int
    private let useTLS: Bool
    private let configuration: HTTPClientConfiguration
    private let wakeRead: Int32
    private let wakeWrite: Int32

    // I/O thread only:
    private var socket: ClientSocket?
    private var tls: ClientTLSSession?
    private var pendingWrite: [UInt8] = []
    private var pendingWriteOffset = 0

    init(host: String, port: Int, tls: Bool, configuration: HTTPClientConfiguration) {
        id = Self.idCounter.withLock { n in
            n += 1
            return n
        }
        self.host = host
        self.port = port
        self.useTLS = tls
        self.configuration = configuration
        var fds: [Int32] = [0, 0]
        if pipe(&fds) != 0 { fds = [-1, -1] }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        if wakeRead >= 0 {
            _ = fcntl(wakeRead, F_SETFL, fcntl(wakeRead, F_GETFL) | O_NONBLOCK)
            _ = fcntl(wakeWrite, F_SETFL, fcntl(wakeWrite, F_GETFL) | O_NONBLOCK)
            _ = fcntl(wakeRead, F_SETFD, FD_CLOEXEC)
            _ = fcntl(wakeWrite, F_SETFD, FD_CLOEXEC)
        }
    }

    deinit {
        if wakeRead >= 0 {
            _ = Glibc.close(wakeRead)
            _ = Glibc.close(wakeWrite)
        }
    }

    /// OpenSSL writes to the socket with write(2), which raises SIGPIPE when the peer has
    /// gone; that would kill the process, so the client ignores SIGPIPE (process-wide, once).
    private static let sigpipeIgnored: Bool = {
        signal(SIGPIPE, SIG_IGN)
        return true
    }()

    func start(connectWaiter: CheckedContinuation<Result<Void, HTTPClientError>, Never>) {
        _ = Self.sigpipeIgnored
        guard wakeRead >= 0 else {
            connectWaiter.resume(returning: .failure(.connectFailed("pipe: \(String(cString: strerror(errno)))")))
            return
        }
        state.withLock { $0.connectWaiter = connectWaiter }
        let thread = Thread { [self] in self.run() }
        thread.name = "pushdouble-client-\(id)"
        thread.start()
    }

    private func wake() {
        var b: UInt8 = 1
        _ = Glibc.write(wakeWrite, &b, 1)
    }

    private func complete(_ completions: [ClientCompletion]) {
        for c in completions { c.resume() }
    }

    // MARK: Called from any thread

    func enqueue(_ request: HTTPClientRequest, waiter: ClientResponseWaiter) {
        let deadline = clientMonotonicNow() + configuration.requestTimeout
        var completions: [ClientCompletion] = []
        state.withLock { s in
            let p = ClientPendingRequest(request: request, waiter: waiter, deadline: deadline)
            if let closed = s.closed {
                completions.append(.response(waiter, .failure(.connectionClosed(closed))))
            } else if s.closeRequested {
                completions.append(.response(waiter, .failure(.connectionClosed("connection closed by the client"))))
            } else if s.withHTTP2({ $0.enqueue(p, out: &$1, completions: &completions) }) == nil,
                      s.withHTTP1({ $0.enqueue(p, out: &$1, completions: &completions) }) == nil {
                completions.append(.response(waiter, .failure(.connectionClosed("not connected"))))
            }
        }
        complete(completions)
        wake()
    }

    func ping(waiter: ClientPingWaiter) {
        let now = clientMonotonicNow()
        var completions: [ClientCompletion] = []
        state.withLock { s in
            if let closed = s.closed {
                completions.append(.ping(waiter, .failure(.connectionClosed(closed))))
            } else if s.withHTTP2({ $0.ping(waiter: waiter, now: now, deadline: now + configuration.requestTimeout, out: &$1,
                                             completions: &completions) }) == nil {
                completions.append(.ping(waiter, .failure(.protocolError("PING needs HTTP/2"))))
            }
        }
        complete(completions)
        wake()
    }

    func requestClose() {
        var completions: [ClientCompletion] = []
        state.withLock { s in
            guard !s.closeRequested, s.closed == nil else { return }
            s.closeRequested = true
            s.withHTTP2 { $0.close(out: &$1, completions: &completions) }
            s.withHTTP1 { h1, _ in h1.close(completions: &completions) }
        }
        complete(completions)
        wake()
    }

    // MARK: I/O thread

    private func run() {
        let deadline = clientMonotonicNow() + configuration.connectTimeout
        do throws(HTTPClientError) {
            try establish(deadline: deadline)
        } catch {
            finish(reason: "\(error)", connectError: error)
            return
        }
        loop(connectDeadline: deadline)
    }

    /// TCP connect, TLS handshake, protocol choice and the first bytes of the session.
    private func establish(deadline: Double) throws(HTTPClientError) {
        let sock = try ClientSocket.connect(host: host, port: port, deadline: deadline)
        socket = sock
        var version: HTTPVersion = configuration.alpn.first == "h2" ? .http2 : .http1_1
        if useTLS {
            let t = try ClientTLSSession(socket: sock, host: host, configuration: configuration)
            try t.handshake(deadline: deadline)
            tls = t
            switch t.selectedALPN {
            case "h2": version = .http2
            case "http/1.1": version = .http1_1
            default:
                // No ALPN answer: HTTP/2 only if that is all we offered.
                version = configuration.alpn == ["h2"] ? .http2 : .http1_1
            }
        }
        var completions: [ClientCompletion] = []
        state.withLock { s in
            if version == .http2 {
                var h2 = HTTP2ClientSession()
                h2.start(out: &s.out)
                s.session = .http2(h2)
            } else {
                s.session = .http1(HTTP1ClientSession())
            }
            if s.closeRequested { s.withHTTP2 { $0.close(out: &$1, completions: &completions) } }
        }
        complete(completions)
    }

    private func loop(connectDeadline: Double) {
        var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
        var reason = "closed"
        var wakeBuffer = [UInt8](repeating: 0, count: 64)
        /// Once closing, how long a blocked final flush (GOAWAY etc.) may take.
        var closeDeadline: Double?
        mainLoop: while true {
            let now = clientMonotonicNow()
            // Timeouts, connection completion and close decisions.
            var completions: [ClientCompletion] = []
            var nextDeadline: Double?
            var connectResult: (CheckedContinuation<Result<Void, HTTPClientError>, Never>, Result<Void, HTTPClientError>)?
            var shouldClose = false
            var hasOutput = false
            state.withLock { s in
                // (`next` is the session's own next deadline, nil when it has none.)
                if let next = s.withHTTP2({ $0.checkTimeouts(now: now, out: &$1, completions: &completions) }),
                   case .http2(let h2) = s.session {
                    nextDeadline = next
                    if !s.connected {
                        if h2.receivedPeerSettings {
                            s.connected = true
                            if let w = s.connectWaiter { connectResult = (w, .success(())) }
                            s.connectWaiter = nil
                        } else if let failed = h2.failed {
                            if let w = s.connectWaiter { connectResult = (w, .failure(failed)) }
                            s.connectWaiter = nil
                            shouldClose = true
                        } else if now >= connectDeadline {
                            if let w = s.connectWaiter { connectResult = (w, .failure(.timeout)) }
                            s.connectWaiter = nil
                            shouldClose = true
                        } else {
                            nextDeadline = min(nextDeadline ?? connectDeadline, connectDeadline)
                        }
                    }
                    if h2.isFinished { shouldClose = true }
                } else if let next = s.withHTTP1({ h1, _ in h1.checkTimeouts(now: now, completions: &completions) }),
                          case .http1(let h1) = s.session {
                    nextDeadline = next
                    if !s.connected {
                        s.connected = true
                        if let w = s.connectWaiter { connectResult = (w, .success(())) }
                        s.connectWaiter = nil
                    }
                    if h1.wantsClose || (s.closeRequested && h1.isIdle) { shouldClose = true }
                }
                if s.closeRequested { shouldClose = true }
                hasOutput = !s.out.isEmpty
            }
            complete(completions)
            if let (w, r) = connectResult { w.resume(returning: r) }

            // Flush (always, so GOAWAY / RST reach the peer before a close).
            if hasOutput || pendingWriteOffset < pendingWrite.count {
                switch flush() {
                case .failed(let why):
                    reason = why
                    break mainLoop
                case .eof:
                    reason = "connection closed by the server"
                    break mainLoop
                default: break
                }
            }
            let writeBlocked = pendingWriteOffset < pendingWrite.count
            if shouldClose {
                if closeDeadline == nil { closeDeadline = clientMonotonicNow() + 2 }
                if !writeBlocked || clientMonotonicNow() >= closeDeadline! {
                    reason = "closed"
                    break mainLoop
                }
            }

            // Wait for input, writability, a wake-up or the next deadline.
            if tls?.hasBufferedBytes != true {
                var fds = [
                    pollfd(fd: socket!.fd, events: Int16(POLLIN) | (writeBlocked ? Int16(POLLOUT) : 0), revents: 0),
                    pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                ]
                var timeout: Int32 = -1
                if let d = nextDeadline { timeout = Int32(max(0, min((d - clientMonotonicNow()) * 1000 + 1, 60_000))) }
                if shouldClose { timeout = min(timeout < 0 ? 1000 : timeout, 1000) }  // bounded wait for a blocked flush
                let r = poll(&fds, 2, timeout)
                if r < 0 && errno != EINTR {
                    reason = "poll: \(String(cString: strerror(errno)))"
                    break mainLoop
                }
                if fds[1].revents != 0 { while Glibc.read(wakeRead, &wakeBuffer, wakeBuffer.count) > 0 {} }
                if fds[0].revents == 0 { continue }
            }

            // Read everything available.
            readLoop: while true {
                let result = readBuffer.withUnsafeMutableBytes { buf in
                    tls.map { $0.read(into: buf) } ?? socket!.read(into: buf)
                }
                switch result {
                case .bytes(let n):
                    var completions: [ClientCompletion] = []
                    let now = clientMonotonicNow()
                    state.withLock { s in
                        readBuffer.withUnsafeBytes { raw in
                            let chunk = UnsafeRawBufferPointer(rebasing: raw[0..<n])
                            s.withHTTP2 { $0.receive(chunk, now: now, out: &$1, completions: &completions) }
                            s.withHTTP1 { $0.receive(chunk, out: &$1, completions: &completions) }
                        }
                    }
                    complete(completions)
                    if n < readBuffer.count && tls?.hasBufferedBytes != true { break readLoop }
                case .wouldBlock:
                    break readLoop
                case .eof:
                    reason = "connection closed by the server"
                    break mainLoop
                case .failed(let why):
                    reason = why
                    break mainLoop
                }
            }
        }
        finish(reason: reason, connectError: nil)
    }

    /// Writes the pending buffer, refilling it from `state.out`, until empty or blocked.
    private func flush() -> ClientIOResult {
        while true {
            if pendingWriteOffset >= pendingWrite.count {
                pendingWrite.removeAll(keepingCapacity: true)
                pendingWriteOffset = 0
                state.withLock { s in swap(&s.out, &pendingWrite) }
                if pendingWrite.isEmpty { return .bytes(0) }
            }
            let result = pendingWrite.withUnsafeBytes { raw in
                let chunk = UnsafeRawBufferPointer(rebasing: raw[pendingWriteOffset...])
                return tls.map { $0.write(chunk) } ?? socket!.write(chunk)
            }
            switch result {
            case .bytes(let n): pendingWriteOffset += n
            case .wouldBlock: return .wouldBlock
            case .eof, .failed: return result
            }
        }
    }

    /// Closes the transport and fails whatever is still waiting.
    private func finish(reason: String, connectError: HTTPClientError?) {
        tls?.shutdown()
        socket?.close()
        var completions: [ClientCompletion] = []
        var connectWaiter: CheckedContinuation<Result<Void, HTTPClientError>, Never>?
        state.withLock { s in
            s.closed = reason
            s.withHTTP2 { h2, _ in h2.connectionLost(reason, completions: &completions) }
            s.withHTTP1 { h1, _ in h1.connectionLost(reason, completions: &completions) }
            connectWaiter = s.connectWaiter
            s.connectWaiter = nil
            s.out = []
        }
        complete(completions)
        connectWaiter?.resume(returning: .failure(connectError ?? .connectionClosed(reason)))
        tls = nil
        socket = nil
    }
}
