#if canImport(Glibc)
import Glibc
#endif
import Foundation
import COpenSSL

/// A CONNECT proxy listener's runtime: its configuration with every route's target listener
/// resolved (``HTTPServer/start(_:)`` builds it).
final class ConnectProxyRuntime: Sendable {
    let configuration: ConnectProxyConfiguration
    /// Target listener name → its runtime.
    let targets: [String: ListenerRuntime]
    init(configuration: ConnectProxyConfiguration, targets: [String: ListenerRuntime]) {
        self.configuration = configuration; self.targets = targets
    }
}

/// One accepted connection of a CONNECT proxy listener, until its request head is judged.
///
/// It reads the head without ever reading past it: input is peeked (`MSG_PEEK`) and only the
/// bytes up to the end of the head are consumed, so whatever the client sends after
/// `CONNECT … \r\n\r\n` (its TLS ClientHello, even when pipelined before our `200`) stays in
/// the kernel. An allowed CONNECT gets `200 Connection established`, and the socket is then
/// handed to the target listener as if it had accepted it (``Acceptor/serve(fd:on:runtime:peer:)``):
/// TLS, ALPN, limits and timeouts are that listener's. Anything else gets the refusal's
/// response, a FIN, and a short drain before the close. No outbound connection exists.
///
/// Threading: created on, and confined to, the loop that accepted it.
final class ProxyConnection: Selectable {
    private enum Phase { case readingHead, lingering, closed }

    let fd: Int32
    let loop: EventLoop
    let listener: ListenerRuntime
    let proxy: ConnectProxyRuntime
    let peer: String
    private let id = ConnectionIDs.next()
    private var phase = Phase.readingHead
    private var generation: UInt32 = 0
    private var head: [UInt8] = []
    private var timer: UInt64?
    private var countReleased = false

    init(fd: Int32, loop: EventLoop, listener: ListenerRuntime, proxy: ConnectProxyRuntime, peer: String) {
        self.fd = fd; self.loop = loop; self.listener = listener; self.proxy = proxy; self.peer = peer
    }

    /// Registers with the loop and starts the head timeout (the listener's handshake timeout).
    func start() -> Bool {
        guard let gen = try? loop.register(fd: fd, events: EPOLLIN.rawValue, self) else { return false }
        generation = gen
        timer = loop.scheduleTimer(after: listener.config.limits.handshakeTimeout) { [weak self] in
            self?.timer = nil
            self?.finalize(abortive: true)
        }
        let box = LoopBound(self)
        let owner = loop
        listener.handshakeIdle.add(id) { owner.execute { box.value?.shedIfReading() } }
        return true
    }

    func handleEvents(_ events: UInt32) {
        switch phase {
        case .readingHead: readHead()
        case .lingering: drain()
        case .closed: return
        }
    }

    /// A full listener sheds connections that have not sent a complete head.
    private func shedIfReading() {
        if phase == .readingHead { finalize(abortive: true) }
    }

    // MARK: reading the head

    private func readHead() {
        let limit = proxy.configuration.maxHeadBytes
        var peeked = [UInt8](repeating: 0, count: max(1, limit - head.count))
        let n = peeked.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_PEEK)) }
        if n < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
            finalize(abortive: true)
            return
        }
        if n == 0 { finalize(abortive: false); return } // closed before a complete head
        listener.handshakeIdle.remove(id)
        let seen = head + peeked[0..<n]
        let end = ConnectProxyRequest.headEnd(in: seen)
        // Consume only what belongs to the head; the rest is the tunnel's.
        let take = end.map { $0 - head.count } ?? n
        guard consume(take) else { finalize(abortive: true); return }
        head = Array(seen[0..<(head.count + take)])
        if end != nil {
            judge()
        } else if head.count >= limit {
            refuse(ConnectProxyRefusal(status: 400, reason: "request head larger than \(limit) bytes or not HTTP",
                                       request: nil, allowed: proxy.configuration.allowedAuthorities))
        }
    }

    /// Reads exactly `count` bytes that a peek has shown to be there.
    private func consume(_ count: Int) -> Bool {
        var sink = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let r = sink.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + got, count - got) }
            if r <= 0 { return false }
            got += r
        }
        return true
    }

    private func judge() {
        switch proxy.configuration.decide(ConnectProxyRequest.parse(head)) {
        case .tunnel(let authority, let name):
            guard let target = proxy.targets[name], target.tryAdmit() else {
                refuse(ConnectProxyRefusal(status: 503, reason: "listener \(name) is full", request: "CONNECT " + authority,
                                           allowed: proxy.configuration.allowedAuthorities))
                return
            }
            handOff(to: target)
        case .refuse(let refusal):
            refuse(refusal)
        }
    }

    // MARK: tunnel

    /// `200`, then the socket belongs to `target` (admitted by the caller).
    private func handOff(to target: ListenerRuntime) {
        guard sendAll(Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)) else {
            target.connectionEnded()
            finalize(abortive: true)
            return
        }
        phase = .closed
        cancelTimer()
        loop.deregister(fd: fd)
        releaseCount()
        Acceptor.serve(fd: fd, on: loop, runtime: target, peer: peer)
    }

    /// Writes a short response to a fresh socket (its send buffer is empty, so it fits).
    private func sendAll(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let r = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if r <= 0 { return false }
            sent += r
        }
        return true
    }

    // MARK: refusal

    private func refuse(_ refusal: ConnectProxyRefusal) {
        var r = refusal
        r.peer = peer
        proxy.configuration.onRefusal(r)
        guard sendAll(r.response) else { finalize(abortive: true); return }
        // FIN, then read and discard until the client closes (or 2 s), so that input still
        // unread does not turn the close into a reset that destroys the response.
        Posix.shutdownWrite(fd)
        phase = .lingering
        cancelTimer()
        releaseCount()
        timer = loop.scheduleTimer(after: 2) { [weak self] in
            self?.timer = nil
            self?.finalize(abortive: false)
        }
        drain()
    }

    private func drain() {
        if LingeringInput.discard(fd: fd, buffer: loop.readBuffer, budget: listener.config.limits.maxReadBytesPerTurn).peerClosed {
            finalize(abortive: false)
        }
    }

    // MARK: closing

    private func cancelTimer() {
        if let t = timer { loop.cancelTimer(t); timer = nil }
    }

    private func releaseCount() {
        guard !countReleased else { return }
        countReleased = true
        listener.handshakeIdle.remove(id)
        listener.connectionEnded()
    }

    /// Closes the socket now (server stop, timeouts, errors).
    func finalize(abortive: Bool) {
        guard phase != .closed else { return }
        phase = .closed
        cancelTimer()
        loop.deregister(fd: fd)
        if abortive { Posix.abortiveClose(fd) } else { Posix.close(fd) }
        releaseCount()
    }
}

/// The responder slot of a CONNECT proxy listener: never called (its connections are
/// ``ProxyConnection``s, not HTTP engines), it answers 400 if it ever were.
struct ProxyListenerResponder: Responder {
    func respond(to request: HTTPRequest, context: RequestContext) -> ResponseAction {
        .respond(HTTPResponse(status: 400, contentType: "text/plain; charset=utf-8", body: "a CONNECT proxy listener\n"))
    }
}
