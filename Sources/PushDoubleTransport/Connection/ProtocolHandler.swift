import Synchronization
/// The contract between the connection runtime (sockets, TLS, event loop) and a protocol
/// engine (HTTP/1.1 or HTTP/2 server connection).
///
/// The runtime owns the socket and TLS; it feeds decrypted bytes to the handler and
/// writes what the handler queues. A handler never sees a file descriptor, so it can be
/// driven in unit tests by a fake ``ConnectionIO`` with no sockets at all.
///
/// Threading: every call in both directions happens on the connection's event-loop
/// thread. Other threads reach a connection only through ``ConnectionIO/loopExecutor``.
public protocol ConnectionProtocolHandler: AnyObject {
    /// The connection is ready (TLS done, protocol chosen). HTTP/2 sends its SETTINGS here.
    /// `initialBytes` are bytes already read while sniffing the protocol.
    func connectionStarted(initialBytes: [UInt8])
    /// More bytes from the peer.
    func bytesReceived(_ bytes: UnsafeRawBufferPointer)
    /// The runtime's write buffer went below its low-water mark after being above it.
    func writeBufferDrained()
    /// The peer closed its sending side (EOF) or the connection failed; no more input.
    func inputClosed()
    /// The connection is gone; release everything (timers are already cancelled).
    func connectionClosed()
}

/// Opaque handle of a timer scheduled through ``ConnectionIO``.
public struct TimerToken: Hashable, Sendable {
    public let id: UInt64
    public init(id: UInt64) { self.id = id }
}

/// Something that runs closures on a connection's event loop from any thread.
public protocol LoopExecutor: Sendable {
    func execute(_ body: @escaping @Sendable () -> Void)
}

/// The connection's queued output size, published by its loop for other threads (a
/// streamed body's ``ResponseBodySink/unsentBytes``). One relaxed atomic store per write
/// and flush.
public final class OutputBacklog: Sendable {
    private let bytes = Atomic<Int>(0)
    public init() {}
    /// Bytes queued on the connection and not yet accepted by the kernel/TLS.
    public var pending: Int { bytes.load(ordering: .relaxed) }
    func publish(_ n: Int) { bytes.store(n, ordering: .relaxed) }
}

/// The runtime side of a connection as a protocol handler sees it.
public protocol ConnectionIO: AnyObject {
    var info: ConnectionInfo { get }
    /// Queue bytes; the runtime flushes after the current event has been handled.
    func write(_ bytes: [UInt8])
    /// Bytes queued and not yet accepted by the kernel/TLS.
    var pendingWriteBytes: Int { get }
    /// Flush what is queued, then close (TLS close_notify, FIN).
    func close()
    /// Close at once: no flush, RST (SO_LINGER 0).
    func abort()
    /// Stop / resume delivering `bytesReceived` (back-pressure).
    func pauseReading()
    func resumeReading()
    /// Run `body` on this loop after `seconds`. Cancelled automatically when the connection closes.
    @discardableResult
    func schedule(after seconds: Double, _ body: @escaping () -> Void) -> TimerToken
    func cancelTimer(_ token: TimerToken)
    /// Run closures on this connection's loop from other threads.
    var loopExecutor: any LoopExecutor { get }
    /// The queued output size for other threads; nil when the runtime does not publish it.
    var outputBacklog: OutputBacklog? { get }
}

extension ConnectionIO {
    public var outputBacklog: OutputBacklog? { nil }
}
