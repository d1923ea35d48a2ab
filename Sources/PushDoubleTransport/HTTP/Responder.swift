import Foundation

/// The one central operation: answer a request.
///
/// Threading model: `respond` is called synchronously on the event-loop thread that owns
/// the connection, once per complete request (head and whole body). It must not block;
/// anything slow is expressed as a ``ResponseAction`` (`delayed`, `stream`, ...). Because
/// several loops call it concurrently, implementations are `Sendable` and keep shared
/// state behind their own synchronisation. Per-connection state lives in
/// ``ConnectionControl/storage``, which only the owning loop touches, so it needs none.
public protocol Responder: Sendable {
    func respond(to request: HTTPRequest, context: RequestContext) -> ResponseAction

    /// Called when a response for a request has been fully written (or abandoned), with what
    /// was actually sent. Default: nothing. Used by the history to record timing.
    func responseCompleted(for request: RequestInfo, outcome: ResponseOutcome)

    /// Shapes the answer to a request the transport refused before it was complete
    /// (body or header list too large, bad framing). Default: a plain-text error.
    /// Return nil to let the transport reset the stream / close the connection instead.
    func limitExceeded(_ violation: LimitViolation, head: HTTPRequest, context: RequestContext) -> HTTPResponse?

    /// A stream the transport turned away unprocessed (``StreamRefusal``): no answer is sent
    /// (RST_STREAM REFUSED_STREAM, or nothing for a stream above a GOAWAY's last-stream-id), and
    /// the client learns the request was not processed (RFC 9113 §8.7). `head` carries the
    /// request head as far as it arrived, and no body. Default: nothing. The double records it in
    /// the history, so a client that never sends it again leaves a visible lost notification.
    func streamRefused(_ refusal: StreamRefusal, head: HTTPRequest, context: RequestContext)
}

/// Why the transport turned a stream away before any processing.
public enum StreamRefusal: String, Sendable, Codable {
    /// RST_STREAM REFUSED_STREAM: the stream would exceed SETTINGS_MAX_CONCURRENT_STREAMS (RFC 9113 §5.1.2).
    case refusedStream = "refused-stream"
    /// Opened above the last-stream-id of a GOAWAY the server sent, or cut by that GOAWAY before its
    /// request was complete (RFC 9113 §6.8: not processed, the client may retry it).
    case goAway = "goaway-unprocessed"
}

extension Responder {
    public func streamRefused(_ refusal: StreamRefusal, head: HTTPRequest, context: RequestContext) {}
    public func responseCompleted(for request: RequestInfo, outcome: ResponseOutcome) {}
    public func limitExceeded(_ violation: LimitViolation, head: HTTPRequest, context: RequestContext) -> HTTPResponse? {
        HTTPResponse(status: violation.suggestedStatus, contentType: "text/plain; charset=utf-8", body: violation.message + "\n")
    }
}

/// A limit the transport enforced on a request before handing it to a responder.
public struct LimitViolation: Sendable, Equatable {
    /// Which limit was exceeded.
    public enum Kind: String, Sendable {
        case bodyTooLarge, headerListTooLarge, malformedRequest
        /// HTTP/1.1: the request did not arrive within `ServerLimits.requestReadTimeout`
        /// (slowloris protection); the connection closes after the answer.
        case requestTimeout
    }
    public var kind: Kind
    /// A sentence saying what was wrong and what the limit is.
    public var message: String
    public var suggestedStatus: Int {
        switch kind { case .bodyTooLarge: 413; case .headerListTooLarge: 431; case .malformedRequest: 400; case .requestTimeout: 408 }
    }
    public init(kind: Kind, message: String) { self.kind = kind; self.message = message }
}

/// What finally happened to a response, for the history.
public struct ResponseOutcome: Sendable, Equatable {
    /// How the response ended.
    public enum Kind: String, Sendable, Codable { case completed, reset, connectionDropped, abandoned }
    public var kind: Kind
    /// When the last byte (or the reset) was written.
    public var at: Date
    public init(kind: Kind, at: Date) { self.kind = kind; self.at = at }
}

/// Per-request view of the connection a request arrived on, valid only during `respond`
/// (and only on the loop thread).
public struct RequestContext {
    public let connection: any ConnectionControl
    public init(connection: any ConnectionControl) { self.connection = connection }
}

/// What a responder may do to or keep on the connection. Loop-confined: never escape it
/// to another thread.
public protocol ConnectionControl: AnyObject {
    var info: ConnectionInfo { get }
    var version: HTTPVersion { get }
    /// Free slot for per-connection provider state (e.g. the APNs team and key a
    /// connection is bound to). Loop-confined, so no locking needed.
    var storage: AnyObject? { get set }
    /// HTTP/2: send a new SETTINGS frame with these values (nil = unchanged) and enforce
    /// them once acknowledged. No-op on HTTP/1.1.
    func updateSettings(maxConcurrentStreams: UInt32?)
    /// Send GOAWAY (HTTP/2) and close gracefully once in-flight streams finish;
    /// HTTP/1.1: close after the current response.
    func closeGracefully(errorCode: HTTP2ErrorCode, debugData: [UInt8])
}
