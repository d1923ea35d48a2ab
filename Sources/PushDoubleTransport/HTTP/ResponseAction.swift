import Synchronization
/// What the transport does with a request: answer it, or misbehave on purpose.
///
/// This is the whole vocabulary the fault engine needs from the transport. Every case
/// works on HTTP/2; on HTTP/1.1 the stream-level ones map to the nearest thing (a reset
/// or a GOAWAY closes the connection after earlier pipelined responses are written).
public indirect enum ResponseAction: Sendable {
    /// Send this response.
    case respond(HTTPResponse)
    /// Wait this many seconds (on a timer, never blocking the loop), then do `then`.
    case delayed(seconds: Double, then: ResponseAction)
    /// Keep `then` back until this connection sends a GOAWAY, then do it right after the
    /// GOAWAY frame (RFC 9113 §6.8: a stream at or below last-stream-id may still be
    /// answered); without a GOAWAY within `maxSeconds`, do it then. HTTP/1.1 has nothing to
    /// hold for (earlier responses always go first): `then` at once.
    case heldUntilGoAway(maxSeconds: Double, then: ResponseAction)
    /// RST_STREAM with this code (HTTP/1.1: close the connection abruptly).
    case resetStream(HTTP2ErrorCode)
    /// Send GOAWAY and then, after `then` (if any) is done for this stream, close the
    /// connection gracefully once every stream at or below last-stream-id has finished.
    case goAway(lastStreamID: GoAwayLastStream, errorCode: HTTP2ErrorCode, debugData: [UInt8], then: ResponseAction?)
    /// Close the TCP connection at once (RST via SO_LINGER 0), dropping buffered output.
    case dropConnection
    /// Never answer; the stream stays open until the client gives up or the idle timeout.
    case stall
    /// Send the head at once, then the body in pieces of `chunkSize` bytes, one every
    /// `interval` seconds (slow server).
    case dribble(HTTPResponse, chunkSize: Int, interval: Double)
    /// Send the head and the first `bodyBytes` bytes of the body, then drop the connection.
    case truncate(HTTPResponse, bodyBytes: Int)
    /// Send the head now and stream the body from `source` (e.g. server-sent events).
    case stream(HTTPResponse, source: any ResponseBodySource)
}

/// Which last-stream-id a GOAWAY action carries.
public enum GoAwayLastStream: Sendable, Equatable {
    /// The stream before this one: this request counts as not processed (the client may retry it).
    case beforeThisStream
    /// This stream: it counts as processed (`then` should answer it).
    case thisStream
    /// The highest stream id the connection has seen so far.
    case highestSeen
    /// An explicit value.
    case explicit(UInt32)
}

/// Produces a response body over time. Started once per response, on any thread.
public protocol ResponseBodySource: Sendable {
    func start(_ sink: ResponseBodySink)
}

/// Where a ``ResponseBodySource`` writes. Thread-safe: calls hop to the connection's
/// event loop. Writes after the peer went away are dropped and `isClosed` turns true.
public protocol ResponseBodySink: AnyObject, Sendable {
    func write(_ bytes: [UInt8])
    func finish()
    var isClosed: Bool { get }
    /// Called once (on any thread) when the stream or connection closes for any reason.
    func onClose(_ callback: @escaping @Sendable () -> Void)
    /// Bytes written to this sink that the socket has not taken yet (still on their way to
    /// the loop, or queued on the connection): a producer waits, or drops a slow reader,
    /// instead of piling output up in memory. Readable from any thread; approximate.
    var unsentBytes: Int { get }
}

extension ResponseBodySink {
    /// A sink that cannot tell reports nothing pending.
    public var unsentBytes: Int { 0 }
}

/// What a streamed body's sink has been handed and the socket has not taken yet: bytes
/// still on their way to the loop, plus the connection's queued output (``OutputBacklog``).
/// Shared by the HTTP/1.1 and HTTP/2 sinks. A write leaves `inFlight` just before the loop
/// queues it, so the total never exceeds what was handed (it counted a write twice, up to
/// its whole size, while the loop queued it); for that instant it may count it nowhere.
final class SinkUnsentBytes: Sendable {
    private let inFlight = Atomic<Int>(0)
    private let backlog: OutputBacklog?
    init(_ backlog: OutputBacklog?) { self.backlog = backlog }
    func handed(_ n: Int) { inFlight.add(n, ordering: .relaxed) }
    func taken(_ n: Int) { inFlight.subtract(n, ordering: .relaxed) }
    var total: Int { inFlight.load(ordering: .relaxed) + (backlog?.pending ?? 0) }
}
