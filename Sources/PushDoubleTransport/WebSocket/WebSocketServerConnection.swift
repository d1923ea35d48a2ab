import Foundation

/// The WebSocket server protocol engine of one connection (RFC 6455): reads the opening
/// handshake (§4.2.1) and answers it (101, or the refusal), then reads frames (§5), joins
/// messages, answers pings with pongs (§5.5.2), echoes a close (§5.5.1) and ends the
/// connection, and fails the connection with the right close code on a protocol error (§7.1.7).
///
/// Threading: loop-confined, like every ``ConnectionProtocolHandler``; the application
/// reaches it through its ``WebSocketSession``.
final class WebSocketServerConnection: ConnectionProtocolHandler {
    /// Where the connection is in its life; it only moves down this list.
    enum Phase {
        /// Reading the opening handshake's head.
        case handshake([UInt8])
        /// Exchanging frames.
        case open
        /// A close frame was sent or a refusal written; nothing more is read.
        case closing
        case closed
    }

    private let io: any ConnectionIO
    private let service: any WebSocketService
    private var phase = Phase.handshake([])
    private var decoder: WebSocketFrameDecoder
    private var assembler: WebSocketMessageAssembler
    private var handler: (any WebSocketSessionHandler)?
    private var closeReported = false

    init(io: any ConnectionIO, service: any WebSocketService, limits: ServerLimits) {
        self.io = io
        self.service = service
        self.decoder = WebSocketFrameDecoder(maxPayload: limits.maxBodySize)
        self.assembler = WebSocketMessageAssembler(maxMessage: limits.maxBodySize)
    }

    // MARK: ConnectionProtocolHandler

    func connectionStarted(initialBytes: [UInt8]) {
        if !initialBytes.isEmpty { initialBytes.withUnsafeBytes { bytesReceived($0) } }
    }

    func bytesReceived(_ bytes: UnsafeRawBufferPointer) {
        switch phase {
        case .handshake(var head):
            head.append(contentsOf: bytes)
            guard let end = WebSocketHandshake.headEnd(head) else {
                if head.count > WebSocketHandshake.maxHeadBytes {
                    refuse(HTTPResponse(status: 431, contentType: "text/plain; charset=utf-8", body: "request head too large\n"))
                } else {
                    phase = .handshake(head)
                }
                return
            }
            handshake(Array(head[..<end]), rest: Array(head[end...]))
        case .open:
            decoder.append(bytes)
            readFrames()
        case .closing, .closed:
            return
        }
    }

    func writeBufferDrained() {}

    func inputClosed() {
        reportClosed(code: nil)
        phase = .closed
        io.close()
    }

    func connectionClosed() {
        reportClosed(code: nil)
        phase = .closed
        handler = nil
    }

    // MARK: handshake

    private func handshake(_ head: [UInt8], rest: [UInt8]) {
        switch WebSocketHandshake.parse(head, connection: io.info) {
        case .refusal(let response):
            refuse(response)
        case .upgrade(let request):
            switch service.upgrade(request) {
            case .refuse(let response):
                refuse(response)
            case .accept(let subprotocol):
                io.write(WebSocketHandshake.switchingProtocols(key: request.headers.first(name: "sec-websocket-key") ?? "",
                                                               subprotocol: subprotocol))
                phase = .open
                let session = WebSocketSession(connection: io.info, engine: self, executor: io.loopExecutor)
                handler = service.sessionOpened(session, request: request)
                if !rest.isEmpty {
                    decoder.append(rest)
                    readFrames()
                }
            }
        }
    }

    private func refuse(_ response: HTTPResponse) {
        var out: [UInt8] = []
        var headers = response.headers
        headers.replaceOrAdd(name: "connection", value: "close")
        HTTP1Serializer.writeHead(status: response.status, headers: headers, contentLength: response.body.count, chunked: false,
                                  close: true, keepAliveHeader: false, date: HTTPDateCache.format(time(nil)), into: &out)
        out += response.body
        io.write(out)
        phase = .closing
        io.close()
    }

    // MARK: frames

    private func readFrames() {
        while case .open = phase {
            let frame: WebSocketFrame
            do {
                guard let f = try decoder.next() else { return }
                frame = f
            } catch {
                fail(error)
                return
            }
            switch frame.opcode {
            case .ping:
                sendFrame(WebSocketFrame(opcode: .pong, payload: frame.payload))
            case .pong:
                break
            case .close:
                peerClosed(frame.payload)
            case .text, .binary, .continuation:
                do {
                    switch try assembler.take(frame) {
                    case .text(let s)?: handler?.textReceived(s)
                    case .binary(let b)?: handler?.binaryReceived(b)
                    case nil: break
                    }
                } catch {
                    fail(error)
                }
            }
        }
    }

    /// The peer's close frame: echo its code (§5.5.1), then end the connection.
    private func peerClosed(_ payload: [UInt8]) {
        var code: UInt16? = nil
        if payload.count >= 2 { code = UInt16(payload[0]) << 8 | UInt16(payload[1]) }
        guard payload.count != 1, String(validating: payload.dropFirst(2), as: UTF8.self) != nil else {
            fail(WebSocketProtocolError(payload.count == 1 ? 1002 : 1007, "a malformed close frame"))
            return
        }
        sendFrame(WebSocketFrame(opcode: .close, payload: code.map { WebSocketFrame.closePayload(code: $0) } ?? []))
        reportClosed(code: code)
        phase = .closing
        io.close()
    }

    /// A protocol error: close with its code (§7.1.7), then end the connection.
    private func fail(_ error: WebSocketProtocolError) {
        closeSession(code: error.closeCode, reason: String(error.message.prefix(100)))
    }

    // MARK: from the session (on the loop)

    func sendFrame(_ frame: WebSocketFrame) {
        guard case .open = phase else { return }
        io.write(frame.encoded())
    }

    func closeSession(code: UInt16, reason: String) {
        guard case .open = phase else { return }
        io.write(WebSocketFrame(opcode: .close, payload: WebSocketFrame.closePayload(code: code, reason: reason)).encoded())
        reportClosed(code: code)
        phase = .closing
        io.close()
    }

    func cut() {
        switch phase {
        case .closed: return
        default:
            reportClosed(code: nil)
            phase = .closing
            io.abort()
        }
    }

    private func reportClosed(code: UInt16?) {
        guard !closeReported, let h = handler else { return }
        closeReported = true
        h.sessionClosed(code: code)
    }
}
