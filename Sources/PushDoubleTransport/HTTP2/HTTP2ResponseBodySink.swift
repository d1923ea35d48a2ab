import Synchronization

/// Thread-safe ``ResponseBodySink`` for one HTTP/2 stream: hops every write to the
/// connection's event loop.
///
/// `write` and `finish` may be called from any thread; they enqueue a closure on the
/// loop through the connection's ``LoopExecutor``. The closed flag and the close
/// callbacks live behind a mutex. The connection reference is weak and only
/// dereferenced on the loop, which is why the class is `@unchecked Sendable`.
final class HTTP2ResponseBodySink: ResponseBodySink, @unchecked Sendable {
    private struct State {
        var closed = false
        var callbacks: [@Sendable () -> Void] = []
    }
    private let state = Mutex(State())
    private let executor: any LoopExecutor
    /// Only read on the loop thread.
    private weak var connection: HTTP2ServerConnection?
    let streamID: UInt32

    private let unsent: SinkUnsentBytes

    init(streamID: UInt32, connection: HTTP2ServerConnection, executor: any LoopExecutor, backlog: OutputBacklog?) {
        self.streamID = streamID
        self.connection = connection
        self.executor = executor
        self.unsent = SinkUnsentBytes(backlog)
    }

    func write(_ bytes: [UInt8]) {
        if isClosed || bytes.isEmpty { return }
        let box = HTTP2LoopBound(self)
        let n = bytes.count
        unsent.handed(n)
        executor.execute {
            let sink = box.value
            sink.unsent.taken(n)  // before the backlog gets it: never counted twice (SinkUnsentBytes)
            sink.connection?.sinkWrite(sink, bytes)
        }
    }

    /// Bytes on their way to the loop plus the connection's queued output (the stream's own
    /// flow-control backlog is bounded by the connection, which resets it past its cap).
    var unsentBytes: Int { unsent.total }

    func finish() {
        if isClosed { return }
        let box = HTTP2LoopBound(self)
        executor.execute {
            let sink = box.value
            sink.connection?.sinkFinish(sink)
        }
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    func onClose(_ callback: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { s -> Bool in
            if s.closed { return true }
            s.callbacks.append(callback)
            return false
        }
        if runNow { callback() }
    }

    /// Marks the sink closed and runs the callbacks once. Called by the connection.
    func close() {
        let callbacks = state.withLock { s -> [@Sendable () -> Void] in
            if s.closed { return [] }
            s.closed = true
            let c = s.callbacks
            s.callbacks = []
            return c
        }
        for c in callbacks { c() }
    }
}

/// Carries a loop-confined reference through a `@Sendable` closure that runs on that
/// same loop.
struct HTTP2LoopBound<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

