#if canImport(Glibc)
import Glibc
#endif
import COpenSSL

/// A system call failed with an errno that is not a retry/try-again condition.
public struct PosixError: Error, Equatable, CustomStringConvertible {
    /// The call that failed (e.g. "bind").
    public var call: String
    public var errno: Int32
    public init(call: String, errno: Int32) { self.call = call; self.errno = errno }
    public var description: String { "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))" }
}

/// The outcome of a non-blocking I/O call: some bytes, or "try again later" (EAGAIN).
enum IOResult<T> {
    case processed(T)
    case wouldBlock
}

/// Every system call the runtime makes goes through here: EINTR is retried, EAGAIN /
/// EWOULDBLOCK becomes ``IOResult/wouldBlock``, any other errno a ``PosixError``.
enum Posix {
    @inline(__always)
    private static func retrying<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(PosixError) -> IOResult<T> {
        while true {
            let r = body()
            if r >= 0 { return .processed(r) }
            let e = Glibc.errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return .wouldBlock }
            throw PosixError(call: name, errno: e)
        }
    }

    @inline(__always)
    private static func checked<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(PosixError) -> T {
        while true {
            let r = body()
            if r >= 0 { return r }
            let e = Glibc.errno
            if e == EINTR { continue }
            throw PosixError(call: name, errno: e)
        }
    }

    static func read(_ fd: Int32, _ buf: UnsafeMutableRawPointer, _ count: Int) throws(PosixError) -> IOResult<Int> {
        try retrying("read") { Glibc.read(fd, buf, count) }
    }

    static func send(_ fd: Int32, _ buf: UnsafeRawPointer, _ count: Int) throws(PosixError) -> IOResult<Int> {
        try retrying("send") { Glibc.send(fd, buf, count, Int32(MSG_NOSIGNAL)) }
    }

    static func accept(_ fd: Int32, _ addr: UnsafeMutablePointer<sockaddr>, _ len: UnsafeMutablePointer<socklen_t>) throws(PosixError) -> IOResult<Int32> {
        try retrying("accept4") { pd_accept4(fd, addr, len, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)) }
    }

    static func socket(_ domain: Int32) throws(PosixError) -> Int32 {
        try checked("socket") { Glibc.socket(domain, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0) }
    }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) throws(PosixError) {
        var v = value
        _ = try checked("setsockopt") { Glibc.setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size)) }
    }

    /// Close, ignoring EINTR: on Linux the descriptor is released even when close is interrupted.
    static func close(_ fd: Int32) { _ = Glibc.close(fd) }

    /// Close with SO_LINGER 0 so the kernel sends RST instead of FIN.
    static func abortiveClose(_ fd: Int32) {
        var l = linger(l_onoff: 1, l_linger: 0)
        _ = Glibc.setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, socklen_t(MemoryLayout<linger>.size))
        _ = Glibc.close(fd)
    }

    static func shutdownWrite(_ fd: Int32) { _ = Glibc.shutdown(fd, Int32(SHUT_WR)) }

    static func epollCreate() throws(PosixError) -> Int32 {
        try checked("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
    }

    static func epollCtl(_ epfd: Int32, _ op: Int32, _ fd: Int32, events: UInt32, data: UInt64) throws(PosixError) {
        var ev = epoll_event()
        ev.events = events
        ev.data.u64 = data
        _ = try checked("epoll_ctl") { epoll_ctl(epfd, op, fd, &ev) }
    }

    static func epollWait(_ epfd: Int32, _ events: UnsafeMutablePointer<epoll_event>, _ max: Int32, timeoutMs: Int32) throws(PosixError) -> Int {
        let r = epoll_wait(epfd, events, max, timeoutMs)
        if r < 0 {
            if Glibc.errno == EINTR { return 0 }
            throw PosixError(call: "epoll_wait", errno: Glibc.errno)
        }
        return Int(r)
    }

    static func eventfdCreate() throws(PosixError) -> Int32 {
        try checked("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
    }

    static func eventfdSignal(_ fd: Int32) {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { Glibc.write(fd, $0.baseAddress, 8) }
    }

    static func eventfdDrain(_ fd: Int32) {
        var v: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &v) { Glibc.read(fd, $0.baseAddress, 8) }
    }

    /// Monotonic time in nanoseconds.
    @inline(__always)
    static func monotonicNanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Raises the soft RLIMIT_NOFILE to the hard limit (descriptors, not a
    /// low default, should bound connections). Returns the soft limit now in force.
    @discardableResult
    static func raiseDescriptorLimit() -> Int {
        var rl = rlimit()
        guard getrlimit(RLIMIT_NOFILE_ID, &rl) == 0 else { return -1 }
        if rl.rlim_cur < rl.rlim_max {
            var raised = rl
            raised.rlim_cur = rl.rlim_max
            if setrlimit(RLIMIT_NOFILE_ID, &raised) == 0 { rl = raised }
        }
        return rl.rlim_cur == rlim_t.max ? Int.max : Int(clamping: rl.rlim_cur)
    }

    /// The soft RLIMIT_NOFILE.
    static func descriptorLimit() -> Int {
        var rl = rlimit()
        guard getrlimit(RLIMIT_NOFILE_ID, &rl) == 0 else { return -1 }
        return rl.rlim_cur == rlim_t.max ? Int.max : Int(clamping: rl.rlim_cur)
    }

    /// RLIMIT_NOFILE as getrlimit/setrlimit take it (an enum type in Glibc's headers).
    static let RLIMIT_NOFILE_ID = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)

    /// A descriptor held in reserve so that, when descriptors run out, one can be freed to
    /// accept (and refuse) a pending connection; -1 if none could be opened.
    static func openReserveDescriptor() -> Int32 { open("/dev/null", O_RDONLY | O_CLOEXEC) }

    /// Ignore SIGPIPE process-wide: OpenSSL writes to the socket with write(2), which raises
    /// it when the peer is gone. Idempotent.
    static func ignoreSIGPIPE() { _ = signal(SIGPIPE, SIG_IGN) }
}

/// A socket address rendered as "ip:port" ("[ip]:port" for IPv6).
enum SocketAddress {
    private static func cString(_ buf: [CChar]) -> String {
        let bytes = buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func describe(_ storage: UnsafePointer<sockaddr_storage>) -> (String, Int) {
        var buf = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = Int32(storage.pointee.ss_family)
        if family == AF_INET {
            return storage.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p in
                var a = p.pointee.sin_addr
                inet_ntop(AF_INET, &a, &buf, socklen_t(buf.count))
                let port = Int(UInt16(bigEndian: p.pointee.sin_port))
                return (cString(buf) + ":" + String(port), port)
            }
        } else if family == AF_INET6 {
            return storage.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in
                var a = p.pointee.sin6_addr
                inet_ntop(AF_INET6, &a, &buf, socklen_t(buf.count))
                let port = Int(UInt16(bigEndian: p.pointee.sin6_port))
                return ("[" + cString(buf) + "]:" + String(port), port)
            }
        }
        return ("unknown", 0)
    }

    static func peer(of fd: Int32) -> String {
        var st = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &st) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &len) }
        }
        guard ok == 0 else { return "unknown" }
        return describe(&st).0
    }

    static func localPort(of fd: Int32) -> Int {
        var st = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &st) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard ok == 0 else { return 0 }
        return describe(&st).1
    }
}
