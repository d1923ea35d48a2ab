/// Which protocol engine serves a connection.
enum ServedProtocol: Equatable {
    case http1
    case http2
}

/// Builds the protocol engine for a connection once its protocol is known. Plugging in
/// another engine is a change here only.
enum ProtocolFactory {
    /// Whether an HTTP/2 engine is linked in.
    static let http2Available = true

    static func make(_ p: ServedProtocol, io: any ConnectionIO, listener: ListenerConfiguration) -> (any ConnectionProtocolHandler)? {
        switch p {
        case .http1:
            if case .webSocket(let service) = listener.service {
                return WebSocketServerConnection(io: io, service: service, limits: listener.limits)
            }
            return HTTP1ServerConnection(io: io, responder: listener.responder, limits: listener.limits)
        case .http2:
            return HTTP2ServerConnection(io: io, responder: listener.responder, configuration: listener.http2, limits: listener.limits)
        }
    }
}
