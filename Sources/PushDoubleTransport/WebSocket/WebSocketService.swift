/// The application behind a WebSocket listener (``ListenerService/webSocket(_:)``): it judges
/// each opening handshake and gets each opened session.
///
/// Threading: both calls happen on the connection's event-loop thread, concurrently for
/// different connections; implementations are Sendable.
public protocol WebSocketService: Sendable {
    /// Accept (naming a subprotocol the client offered, or none) or refuse the handshake.
    func upgrade(_ request: WebSocketUpgradeRequest) -> WebSocketUpgradeDecision
    /// A session is open: the handler that gets its messages.
    func sessionOpened(_ session: WebSocketSession, request: WebSocketUpgradeRequest) -> any WebSocketSessionHandler
}

/// What happens on one open WebSocket session, called on its loop thread.
public protocol WebSocketSessionHandler: AnyObject {
    /// A complete text message (§5.6).
    func textReceived(_ text: String)
    /// A complete binary message.
    func binaryReceived(_ bytes: [UInt8])
    /// The session ended: the peer's close code (nil: no close frame, the TCP connection ended
    /// or failed), or the code the server closed with.
    func sessionClosed(code: UInt16?)
}

extension WebSocketSessionHandler {
    public func binaryReceived(_ bytes: [UInt8]) {}
}

/// One open WebSocket session as the application holds it: send from any thread (the calls
/// hop to the connection's loop), close with a status code. Once the connection is gone,
/// calls do nothing.
public final class WebSocketSession: Sendable {
    /// The connection (its id is the session's id).
    public let connection: ConnectionInfo
    private let engine: LoopBound<WebSocketServerConnection>
    private let executor: any LoopExecutor

    init(connection: ConnectionInfo, engine: WebSocketServerConnection, executor: any LoopExecutor) {
        self.connection = connection; self.engine = LoopBound(engine); self.executor = executor
    }

    /// Sends one text message (one unfragmented, unmasked frame).
    public func send(text: String) {
        let e = engine
        executor.execute { e.value?.sendFrame(WebSocketFrame(opcode: .text, payload: Array(text.utf8))) }
    }

    /// Sends a close frame with `code` (§7.4) and then ends the TCP connection without waiting
    /// for the peer's close frame (§7.1.1 lets the server close first).
    public func close(code: UInt16, reason: String = "") {
        let e = engine
        executor.execute { e.value?.closeSession(code: code, reason: reason) }
    }

    /// Ends the TCP connection at once, no close frame (a network cut).
    public func cut() {
        let e = engine
        executor.execute { e.value?.cut() }
    }
}
