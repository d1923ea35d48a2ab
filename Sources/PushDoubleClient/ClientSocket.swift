import PushDoubleTransport
#if canImport(Glibc)
import Glibc
#endif
import COpenSSL

/// Seconds on the monotonic clock, for deadlines.
@inline(__always)
func clientMonotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// The outcome of one non-blocking read or write on a client connection.
enum ClientIOResult {
    case bytes(Int)
    case wouldBlock
    case eof
    case failed(String)
}

/// A non-blocking TCP socket of one client connection: connect with a deadline, then raw
/// read/write. Used only by the connection's I/O thread after `connect` returns.
final class ClientSocket {
    let fd: Int32
    private var closed = false

    private init(fd: Int32) { self.fd = fd }

    /// Resolves `host` and connects to the first address that answers before `deadline`.
    static func connect(host: String, port: Int, deadline: Double) throws(HTTPClientError) -> ClientSocket {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw .connectFailed("cannot resolve \(host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address for \(host)"
        var ai: UnsafeMutablePointer<addrinfo>? = first
        while let a = ai {
            ai = a.pointee.ai_next
            let fd = socket(a.pointee.ai_family, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
            if fd < 0 { lastError = "socket: \(String(cString: strerror(errno)))"; continue }
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if Glibc.connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 { return ClientSocket(fd: fd) }
            if errno != EINPROGRESS {
                lastError = "connect to \(host):\(port): \(String(cString: strerror(errno)))"
                _ = Glibc.close(fd)
                continue
            }
            switch waitFor(fd: fd, events: Int16(POLLOUT), deadline: deadline) {
            case .ready:
                var err: Int32 = 0
                var len = socklen_t(MemoryLayout<Int32>.size)
                _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)
                if err == 0 { return ClientSocket(fd: fd) }
                lastError = "connect to \(host):\(port): \(String(cString: strerror(err)))"
                _ = Glibc.close(fd)
            case .timedOut:
                _ = Glibc.close(fd)
                throw .timeout
            }
        }
        throw .connectFailed(lastError)
    }

    enum WaitResult { case ready, timedOut }

    /// Polls one descriptor until `events` or the deadline (EINTR retried).
    static func waitFor(fd: Int32, events: Int16, deadline: Double) -> WaitResult {
        while true {
            let remaining = deadline - clientMonotonicNow()
            if remaining <= 0 { return .timedOut }
            var p = pollfd(fd: fd, events: events, revents: 0)
            let r = poll(&p, 1, Int32(min(remaining * 1000 + 1, 1_000_000)))
            if r > 0 { return .ready }
            if r < 0 && errno != EINTR { return .ready }  // let the next call report the error
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> ClientIOResult {
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n > 0 { return .bytes(n) }
            if n == 0 { return .eof }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
            return .failed("read: \(String(cString: strerror(errno)))")
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> ClientIOResult {
        while true {
            let n = send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if n >= 0 { return .bytes(n) }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
            return .failed("write: \(String(cString: strerror(errno)))")
        }
    }

    func close() {
        guard !closed else { return }
        closed = true
        _ = Glibc.close(fd)
    }

    deinit { close() }
}
