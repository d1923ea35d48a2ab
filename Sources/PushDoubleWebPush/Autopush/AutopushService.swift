import PushDoubleCore
import PushDoubleTransport

/// The autopush WebSocket listener's service: every opening handshake is accepted (naming
/// the `push-notification` subprotocol when the browser offers it), each session speaks the
/// client protocol with ``AutopushHub``.
public struct AutopushService: WebSocketService {
    /// The subprotocol Firefox asks for.
    public static let subprotocol = "push-notification"
    public let hub: AutopushHub

    public init(hub: AutopushHub) { self.hub = hub }

    public func upgrade(_ request: WebSocketUpgradeRequest) -> WebSocketUpgradeDecision {
        .accept(subprotocol: request.protocols.contains(Self.subprotocol) ? Self.subprotocol : nil)
    }

    public func sessionOpened(_ session: WebSocketSession, request: WebSocketUpgradeRequest) -> any WebSocketSessionHandler {
        AutopushSession(hub: hub, session: session)
    }
}

/// One browser connection: `hello` first, then the other requests (docs/webpush.md
/// "Browsers over the autopush WebSocket protocol"). Loop-confined.
final class AutopushSession: WebSocketSessionHandler {
    /// Where the session is.
    enum Phase {
        case awaitingHello
        case identified(uaid: String)
        case ended
    }

    let hub: AutopushHub
    let session: WebSocketSession
    private(set) var phase = Phase.awaitingHello

    init(hub: AutopushHub, session: WebSocketSession) { self.hub = hub; self.session = session }

    func textReceived(_ text: String) {
        let message: AutopushClientMessage
        do {
            message = try AutopushClientMessage.parse(text)
        } catch {
            end(code: 1002, error.description)
            return
        }
        switch (phase, message) {
        case (.ended, _):
            return
        case (.awaitingHello, .hello(let uaid)):
            phase = .identified(uaid: hub.hello(uaid: uaid, session: session))
        case (.awaitingHello, _):
            end(code: 1002, "the first message must be hello")
        case (.identified, .hello):
            end(code: 1002, "a second hello")
        case (.identified, .ping):
            session.send(text: AutopushServerMessage.pong)
        case (.identified(let uaid), .register(let channelID, let key)):
            session.send(text: hub.register(uaid: uaid, channelID: channelID, key: key))
        case (.identified, .unregister(let channelID, _)):
            session.send(text: hub.unregister(channelID: channelID))
        case (.identified(let uaid), .ack(let updates)):
            hub.ack(updates, uaid: uaid)
        case (.identified(let uaid), .nack(let version, let code)):
            hub.nack(version: version, code: code, uaid: uaid)
        case (.identified, .broadcastSubscribe):
            break  // acknowledged by ignoring: the double has no broadcasts
        }
    }

    func sessionClosed(code: UInt16?) {
        if case .identified(let uaid) = phase { hub.sessionClosed(uaid: uaid, session: session) }
        phase = .ended
    }

    private func end(code: UInt16, _ reason: String) {
        if case .identified(let uaid) = phase { hub.sessionClosed(uaid: uaid, session: session) }
        phase = .ended
        session.close(code: code, reason: reason)
    }
}
