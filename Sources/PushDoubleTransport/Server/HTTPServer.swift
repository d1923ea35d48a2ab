#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import COpenSSL

/// The TLS identity and ALPN protocols of a listener.
public struct TLSServerConfiguration: Sendable {
    /// Leaf certificate first, then intermediates (PEM).
    public var certificateChainPEM: String
    /// The leaf's private key (PEM, PKCS#8 or traditional).
    public var privateKeyPEM: String
    /// ALPN protocols offered, in server preference order: `["h2"]` for APNs,
    /// `["h2", "http/1.1"]` for general use. A client that offers ALPN but none of these
    /// gets alert 120 (no_application_protocol).
    public var alpn: [String]
    /// CA certificates (PEM, one or more blocks) that client certificates must chain to. When
    /// set, the handshake *requests* a client certificate (OpenSSL `SSL_VERIFY_PEER` without
    /// `FAIL_IF_NO_PEER_CERT`): a client may present none; one it presents must verify (chain
    /// and validity), or the handshake fails with OpenSSL's alert (e.g. 45
    /// certificate_expired, 48 unknown_ca). The verified certificate reaches the responder as
    /// ``TLSInfo/clientCertificateDER``. nil: no certificate is requested.
    public var clientCertificateCAPEM: String?
    public init(certificateChainPEM: String, privateKeyPEM: String, alpn: [String] = ["h2", "http/1.1"],
                clientCertificateCAPEM: String? = nil) {
        self.certificateChainPEM = certificateChainPEM; self.privateKeyPEM = privateKeyPEM; self.alpn = alpn
        self.clientCertificateCAPEM = clientCertificateCAPEM
    }
}

/// What a listener's connections are: HTTP served by its ``ListenerConfiguration/responder``,
/// or a CONNECT proxy that hands allowed tunnels to other listeners of the same server.
public enum ListenerService: Sendable {
    case http
    /// Plain HTTP/1.1 CONNECT proxy (the listener's `tls` and `responder` are not used).
    case connectProxy(ConnectProxyConfiguration)
    /// WebSocket (RFC 6455) over HTTP/1.1: every connection is an opening handshake, then
    /// frames, for this service (the listener's `responder` is not used).
    case webSocket(any WebSocketService)
}

/// One address to listen on, with how to serve it.
public struct ListenerConfiguration: Sendable {
    /// A name recorded in every ``ConnectionInfo`` (e.g. "apns-production").
    public var name: String
    /// A numeric IPv4/IPv6 address, or "localhost".
    public var host: String
    /// 0 picks an ephemeral port (see ``BoundListener/port``).
    public var port: Int
    /// nil = cleartext (HTTP/1.1 and h2c prior knowledge side by side).
    public var tls: TLSServerConfiguration?
    public var http2: HTTP2Configuration
    public var limits: ServerLimits
    public var allowHTTP1: Bool
    public var allowHTTP2: Bool
    public var responder: any Responder
    /// HTTP (the default) or a CONNECT proxy.
    public var service: ListenerService = .http

    public init(name: String, host: String = "127.0.0.1", port: Int = 0, tls: TLSServerConfiguration? = nil,
                http2: HTTP2Configuration = HTTP2Configuration(), limits: ServerLimits = ServerLimits(),
                allowHTTP1: Bool = true, allowHTTP2: Bool = true, responder: any Responder) {
        self.name = name; self.host = host; self.port = port; self.tls = tls; self.http2 = http2
        self.limits = limits; self.allowHTTP1 = allowHTTP1; self.allowHTTP2 = allowHTTP2; self.responder = responder
    }

    /// A CONNECT proxy listener: `proxy.routes` name listeners of the same ``HTTPServer/start(_:)``
    /// call (or of an earlier one).
    public static func connectProxy(name: String, host: String = "127.0.0.1", port: Int = 0, limits: ServerLimits = ServerLimits(),
                                    proxy: ConnectProxyConfiguration) -> ListenerConfiguration {
        var c = ListenerConfiguration(name: name, host: host, port: port, limits: limits, responder: ProxyListenerResponder())
        c.service = .connectProxy(proxy)
        return c
    }
}

/// Where a listener actually listens.
public struct BoundListener: Sendable, Equatable {
    public var name: String
    public var host: String
    public var port: Int
}

/// The connection counts of one listener (``HTTPServer/listenerStatistics``).
public struct ListenerStatistics: Sendable, Equatable {
    /// The listener, as ``HTTPServer/start(_:)`` bound it.
    public var listener: BoundListener
    /// Connections open now (TLS handshakes included, lingering closes not).
    public var openConnections: Int
    /// Connections closed at accept since the start: over `ServerLimits.maxConnections`
    /// with none to shed, or refused because the process ran out of descriptors.
    public var refusedConnections: Int
    /// Silent connections (no application byte yet) closed to make room for a newer one.
    public var shedConnections: Int
}

/// Per-listener state shared by its acceptors on every loop.
final class ListenerRuntime: Sendable {
    let config: ListenerConfiguration
    let tls: TLSContext?
    let connections = Atomic<Int>(0)
    /// Connections closed at accept: over `maxConnections`, or out of descriptors.
    let refused = Atomic<Int>(0)
    let serverCount: ServerCounters
    /// Set for a CONNECT proxy listener.
    let proxy: ConnectProxyRuntime?

    init(config: ListenerConfiguration, tls: TLSContext?, serverCount: ServerCounters, proxy: ConnectProxyRuntime? = nil) {
        self.config = config; self.tls = tls; self.serverCount = serverCount; self.proxy = proxy
    }

    /// Connections that have sent no application byte yet, oldest first: shed to make room.
    let handshakeIdle = HandshakeIdleConnections()
    /// Handshake-idle connections closed to admit a newer one.
    let shed = Atomic<Int>(0)

    /// Reserves a connection slot. At `maxConnections` the oldest handshake-idle connection
    /// is shed (closed on its loop) and the new one admitted; false when there was none to
    /// shed. A shed slot is released when its connection closes, so the count can exceed
    /// the limit briefly, by at most the sheds in flight.
    func tryAdmit() -> Bool {
        let n = connections.add(1, ordering: .relaxed).newValue
        if n > config.limits.maxConnections {
            guard handshakeIdle.shedOldest() else {
                connections.subtract(1, ordering: .relaxed)
                refused.add(1, ordering: .relaxed)
                return false
            }
            shed.add(1, ordering: .relaxed)
        }
        serverCount.connectionStarted()
        return true
    }

    func connectionEnded() {
        connections.subtract(1, ordering: .relaxed)
        let open = serverCount.open.subtract(1, ordering: .relaxed).newValue
        serverCount.connectionEnded(openNow: open)
    }
}

/// The connections of one listener that have not sent a byte of application data yet
/// (TLS handshake, or the first request bytes, pending), in accept order, so that a full
/// listener sheds the oldest of them instead of refusing a new client (thousands
/// of silent sockets must not lock real clients out). Entries leave when the connection
/// sends its first bytes or closes. Shared by the listener's loops, behind a mutex.
final class HandshakeIdleConnections: Sendable {
    /// Closes one connection on its own loop, if it is still handshake-idle.
    typealias Shed = @Sendable () -> Void
    private struct State {
        var order: [UInt64] = []
        var head = 0
        var entries: [UInt64: Shed] = [:]

        /// Drops ids that are no longer entries from the front, and rewrites the list when
        /// stale ids make up most of it, so memory follows the live entries.
        mutating func compact() {
            while head < order.count, entries[order[head]] == nil { head += 1 }
            if head == order.count { order.removeAll(keepingCapacity: true); head = 0; return }
            if order.count > 64 && order.count > 2 * entries.count {
                order = order[head...].filter { entries[$0] != nil }
                head = 0
            }
        }
    }
    private let state = Mutex(State())

    /// Registers connection `id`; `shed` closes it.
    func add(_ id: UInt64, shed: @escaping Shed) {
        state.withLock { s in
            s.order.append(id)
            s.entries[id] = shed
        }
    }

    /// The connection sent data or closed.
    func remove(_ id: UInt64) {
        state.withLock { s in
            guard s.entries.removeValue(forKey: id) != nil else { return }
            s.compact()
        }
    }

    /// Sheds the oldest registered connection; false when there is none.
    func shedOldest() -> Bool {
        let shed: Shed? = state.withLock { s in
            while s.head < s.order.count {
                let id = s.order[s.head]
                s.head += 1
                if let shed = s.entries.removeValue(forKey: id) { s.compact(); return shed }
            }
            s.compact()
            return nil
        }
        shed?()
        return shed != nil
    }

    var count: Int { state.withLock { $0.entries.count } }
}

/// Counters of one server, and the return of memory after a burst of connections.
final class ServerCounters: Sendable {
    let open = Atomic<Int>(0)
    /// The most connections open at once since memory was last returned.
    private let peak = Atomic<Int>(0)
    /// Times freed heap memory was handed back to the kernel (``trimThreshold``).
    let trims = Atomic<Int>(0)
    /// A burst this large (connections open at once) is worth trimming after.
    static let trimThreshold = 256

    func connectionStarted() {
        let n = open.add(1, ordering: .relaxed).newValue
        var p = peak.load(ordering: .relaxed)
        while n > p {
            let (exchanged, original) = peak.compareExchange(expected: p, desired: n, ordering: .relaxed)
            if exchanged { break }
            p = original
        }
    }

    /// After a burst of at least ``trimThreshold`` connections, once three quarters of them
    /// have closed, glibc's `malloc_trim` returns the freed heap to the kernel (otherwise
    /// memory taken by thousands of connections is kept after they close). Runs off the
    /// event loops, at most once per burst.
    func connectionEnded(openNow: Int) {
        let p = peak.load(ordering: .relaxed)
        guard p >= Self.trimThreshold, openNow <= p / 4 else { return }
        guard peak.compareExchange(expected: p, desired: openNow, ordering: .relaxed).exchanged else { return }
        trims.add(1, ordering: .relaxed)
        DispatchQueue.global(qos: .utility).async { _ = pd_malloc_trim(0) }
    }
}

/// The listening socket of one listener on one loop (SO_REUSEPORT: the kernel spreads
/// incoming connections over the loops' sockets).
final class Acceptor: Selectable {
    let fd: Int32
    let loop: EventLoop
    let runtime: ListenerRuntime
    /// Round-robin mode: the group whose loops take turns serving accepted connections.
    let distributeTo: EventLoopGroup?
    var generation: UInt32 = 0
    private var closed = false
    /// Freed when accept fails for want of descriptors, so the newest connection can be
    /// accepted and closed at once instead of waiting unanswered in the backlog; reopened
    /// right after (docs/transport.md "Fairness and floods").
    private var reserveFD: Int32

    init(fd: Int32, loop: EventLoop, runtime: ListenerRuntime, distributeTo: EventLoopGroup? = nil) {
        self.fd = fd; self.loop = loop; self.runtime = runtime; self.distributeTo = distributeTo
        self.reserveFD = Posix.openReserveDescriptor()
    }

    /// Out of descriptors: spends the reserve on accepting one pending connection and
    /// closing it. Returns false when there was no reserve or nothing to accept.
    private func refuseNewestWithReserve() -> Bool {
        guard reserveFD >= 0 else { return false }
        Posix.close(reserveFD)
        reserveFD = -1
        var st = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let accepted = withUnsafeMutablePointer(to: &st) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { pd_accept4(fd, $0, &len, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)) }
        }
        if accepted >= 0 {
            Posix.abortiveClose(accepted)
            runtime.refused.add(1, ordering: .relaxed)
        }
        reserveFD = Posix.openReserveDescriptor()
        return accepted >= 0
    }

    /// Creates the connection on `target` (must run on `target`'s thread).
    static func serve(fd: Int32, on target: EventLoop, runtime: ListenerRuntime, peer: String) {
        if let proxy = runtime.proxy {
            let conn = ProxyConnection(fd: fd, loop: target, listener: runtime, proxy: proxy, peer: peer)
            if !conn.start() { conn.finalize(abortive: true) }
            return
        }
        let conn = ServerConnection(fd: fd, loop: target, listener: runtime, peer: peer, localPort: SocketAddress.localPort(of: fd))
        if !conn.start() { conn.finalize(abortive: true) }
    }

    func handleEvents(_ events: UInt32) {
        var st = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        for _ in 0..<64 where !closed {
            len = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let r: IOResult<Int32>
            do {
                r = try withUnsafeMutablePointer(to: &st) { p throws(PosixError) in
                    try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { a throws(PosixError) in try Posix.accept(fd, a, &len) }
                }
            } catch {
                switch error.errno {
                case EMFILE where refuseNewestWithReserve(), ENFILE where refuseNewestWithReserve():
                    continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors/memory: the socket stays readable, so stop watching
                    // it for a moment instead of spinning.
                    loop.modify(fd: fd, generation: generation, events: 0)
                    loop.scheduleTimer(after: 0.1) { [weak self] in
                        guard let self, !self.closed else { return }
                        self.loop.modify(fd: self.fd, generation: self.generation, events: EPOLLIN.rawValue)
                    }
                    return
                default:
                    continue // ECONNABORTED, EPROTO, ...: that one connection is gone.
                }
            }
            guard case .processed(let cfd) = r else { return }
            guard runtime.tryAdmit() else {
                Posix.close(cfd)
                continue
            }
            try? Posix.setOption(cfd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
            let peer = SocketAddress.describe(&st).0
            if let group = distributeTo {
                let target = group.nextLoop()
                if target === loop {
                    Self.serve(fd: cfd, on: target, runtime: runtime, peer: peer)
                } else {
                    let rt = runtime
                    target.execute { Acceptor.serve(fd: cfd, on: target, runtime: rt, peer: peer) }
                }
            } else {
                Self.serve(fd: cfd, on: loop, runtime: runtime, peer: peer)
            }
        }
    }

    func close() {
        guard !closed else { return }
        closed = true
        loop.deregister(fd: fd)
        Posix.close(fd)
        if reserveFD >= 0 { Posix.close(reserveFD); reserveFD = -1 }
    }
}

/// How accepted connections are spread over the event loops.
public enum AcceptStrategy: Sendable, Equatable {
    /// One SO_REUSEPORT listening socket per loop; the kernel picks the loop (by a hash of
    /// the peer address). No cross-thread hand-off. The default.
    case reusePort
    /// One listening socket on the first loop, which hands connections to the loops in turn.
    case roundRobin
}

/// An HTTP server: N event loops serving any number of listeners (HTTP/1.1, h2c prior
/// knowledge, and TLS with ALPN h2 / http/1.1).
///
/// Threading model: each loop is one thread with its own epoll set. Each listener has one
/// SO_REUSEPORT listening socket per loop, so the kernel spreads connections over the
/// loops; a connection then lives on exactly one loop for its whole life, and its
/// ``Responder`` calls happen on that loop's thread. `start` and `stop` may be called from
/// any thread except a loop thread.
public final class HTTPServer: Sendable {
    private let group: EventLoopGroup
    private let acceptStrategy: AcceptStrategy
    private let counters = ServerCounters()
    private let state = Locked<(acceptors: [(loop: Int, fd: Int32)], listeners: [(BoundListener, ListenerRuntime)], stopped: Bool)>(([], [], false))

    /// The soft RLIMIT_NOFILE of the process, raised to the hard limit when the first
    /// server was created.
    public static var descriptorLimit: Int {
        _ = raisedDescriptorLimit
        return Posix.descriptorLimit()
    }
    private static let raisedDescriptorLimit: Int = Posix.raiseDescriptorLimit()

    /// - Parameters:
    ///   - eventLoopCount: number of loop threads; default = number of cores.
    ///   - acceptStrategy: how connections are spread over the loops.
    public init(eventLoopCount: Int? = nil, acceptStrategy: AcceptStrategy = .reusePort) {
        Posix.ignoreSIGPIPE()
        _ = Self.raisedDescriptorLimit
        self.acceptStrategy = acceptStrategy
        let n = eventLoopCount ?? ProcessInfo.processInfo.activeProcessorCount
        do {
            group = try EventLoopGroup(count: n)
        } catch {
            preconditionFailure("cannot create event loops: \(error)")
        }
    }

    deinit { stop() }

    /// Open connections across all listeners.
    public var connectionCount: Int { counters.open.load(ordering: .relaxed) }

    /// Connection counts of every listener started, in start order (for health reports).
    public var listenerStatistics: [ListenerStatistics] {
        state.withLock { st in
            st.listeners.map { bound, rt in
                ListenerStatistics(listener: bound, openConnections: rt.connections.load(ordering: .relaxed),
                                   refusedConnections: rt.refused.load(ordering: .relaxed),
                                   shedConnections: rt.shed.load(ordering: .relaxed))
            }
        }
    }

    /// Binds every listener and starts accepting. Throws ``PosixError`` (e.g. address in
    /// use) or ``TLSConfigurationError``; on error nothing of this call stays bound.
    public func start(_ listeners: [ListenerConfiguration]) throws -> [BoundListener] {
        var bound: [BoundListener] = []
        var runtimes: [ListenerRuntime] = []
        var opened: [(EventLoop, Int32, ListenerRuntime)] = []
        do {
            for (cfg, runtime) in zip(listeners, try makeRuntimes(listeners)) {
                var port = cfg.port
                let acceptLoops = acceptStrategy == .reusePort ? group.loops : [group.loops[0]]
                for loop in acceptLoops {
                    let fd = try Self.listen(host: cfg.host, port: port)
                    opened.append((loop, fd, runtime))
                    if port == 0 { port = SocketAddress.localPort(of: fd) }
                }
                bound.append(BoundListener(name: cfg.name, host: cfg.host, port: port))
                runtimes.append(runtime)
            }
        } catch {
            for (_, fd, _) in opened { Posix.close(fd) }
            throw error
        }
        let registered = DispatchGroup()
        for (loop, fd, runtime) in opened {
            registered.enter()
            let distribute = acceptStrategy == .roundRobin && group.loops.count > 1 ? group : nil
            loop.execute {
                let acceptor = Acceptor(fd: fd, loop: loop, runtime: runtime, distributeTo: distribute)
                acceptor.generation = (try? loop.register(fd: fd, events: EPOLLIN.rawValue, acceptor)) ?? 0
                registered.leave()
            }
        }
        registered.wait()
        state.withLock { st in
            for (loop, fd, _) in opened { st.acceptors.append((loop.index, fd)) }
            st.listeners.append(contentsOf: zip(bound, runtimes).map { ($0, $1) })
        }
        return bound
    }

    /// One runtime per listener, in order: HTTP and WebSocket listeners first (TLS contexts built), then
    /// CONNECT proxies with their routes' targets resolved among them and the listeners
    /// already started. An unknown target throws ``ConnectProxyConfigurationError``.
    private func makeRuntimes(_ listeners: [ListenerConfiguration]) throws -> [ListenerRuntime] {
        var runtimes = [ListenerRuntime?](repeating: nil, count: listeners.count)
        var byName: [String: ListenerRuntime] = [:]
        for (bound, rt) in state.withLock({ $0.listeners }) { byName[bound.name] = rt }
        for (i, cfg) in listeners.enumerated() {
            if case .connectProxy = cfg.service { continue }
            var ctx: TLSContext?
            if let t = cfg.tls {
                ctx = try TLSContext(certificateChainPEM: t.certificateChainPEM, privateKeyPEM: t.privateKeyPEM, alpn: t.alpn,
                                     clientCertificateCAPEM: t.clientCertificateCAPEM)
            }
            runtimes[i] = ListenerRuntime(config: cfg, tls: ctx, serverCount: counters)
            byName[cfg.name] = runtimes[i]
        }
        for (i, cfg) in listeners.enumerated() {
            guard case .connectProxy(let proxy) = cfg.service else { continue }
            var targets: [String: ListenerRuntime] = [:]
            for name in Set(proxy.routes.values) {
                guard let rt = byName[name], rt.proxy == nil else {
                    throw ConnectProxyConfigurationError(proxy: cfg.name, unknownTarget: name)
                }
                targets[name] = rt
            }
            runtimes[i] = ListenerRuntime(config: cfg, tls: nil, serverCount: counters,
                                          proxy: ConnectProxyRuntime(configuration: proxy, targets: targets))
        }
        return runtimes.map { $0! }
    }

    /// Graceful stop: stop accepting, ask every connection to finish (HTTP/2 GOAWAY,
    /// HTTP/1.1 close after the current response), wait up to `timeout` seconds for them,
    /// then close the rest and stop the loops. Idempotent.
    public func stop(timeout: Double = 2) {
        let already = state.withLock { st -> Bool in
            let was = st.stopped
            st.stopped = true
            return was
        }
        if already { return }
        let done = DispatchGroup()
        for loop in group.loops {
            done.enter()
            loop.execute {
                for obj in loop.registeredObjects {
                    if let a = obj as? Acceptor { a.close() } else if let c = obj as? ServerConnection { c.beginGracefulShutdown() }
                    else if let p = obj as? ProxyConnection { p.finalize(abortive: false) }
                }
                done.leave()
            }
        }
        done.wait()
        let deadline = Date().addingTimeInterval(timeout)
        while counters.open.load(ordering: .relaxed) > 0 && Date() < deadline { usleep(5_000) }
        for loop in group.loops {
            done.enter()
            loop.execute {
                for obj in loop.registeredObjects {
                    if let c = obj as? ServerConnection { c.finalize(abortive: true) }
                    else if let p = obj as? ProxyConnection { p.finalize(abortive: true) }
                }
                done.leave()
            }
        }
        done.wait()
        group.shutdown()
    }

    /// A non-blocking listening socket with SO_REUSEADDR and SO_REUSEPORT.
    static func listen(host: String, port: Int) throws(PosixError) -> Int32 {
        let h = host == "localhost" ? "127.0.0.1" : host
        var v4 = in_addr()
        var v6 = in6_addr()
        let isV4 = inet_pton(AF_INET, h, &v4) == 1
        let isV6 = !isV4 && inet_pton(AF_INET6, h, &v6) == 1
        guard isV4 || isV6 else { throw PosixError(call: "inet_pton(\(host))", errno: EINVAL) }
        let fd = try Posix.socket(isV4 ? AF_INET : AF_INET6)
        do throws(PosixError) {
            try Posix.setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            try Posix.setOption(fd, SOL_SOCKET, SO_REUSEPORT, 1)
            var rc: Int32
            if isV4 {
                var a = sockaddr_in()
                a.sin_family = sa_family_t(AF_INET)
                a.sin_port = UInt16(port).bigEndian
                a.sin_addr = v4
                rc = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            } else {
                var a = sockaddr_in6()
                a.sin6_family = sa_family_t(AF_INET6)
                a.sin6_port = UInt16(port).bigEndian
                a.sin6_addr = v6
                rc = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
            }
            if rc != 0 { throw PosixError(call: "bind(\(host):\(port))", errno: errno) }
            if Glibc.listen(fd, 1024) != 0 { throw PosixError(call: "listen", errno: errno) }
        } catch {
            Posix.close(fd)
            throw error
        }
        return fd
    }
}

/// A CONNECT proxy listener routes to a listener the server does not have (or to another proxy).
public struct ConnectProxyConfigurationError: Error, Equatable, CustomStringConvertible {
    public var proxy: String
    public var unknownTarget: String
    public var description: String { "proxy listener \"\(proxy)\" routes to \"\(unknownTarget)\", which is not an HTTP listener of this server" }
}
