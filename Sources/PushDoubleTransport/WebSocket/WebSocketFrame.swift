/// One WebSocket frame (RFC 6455 §5.2), payload already unmasked.
public struct WebSocketFrame: Sendable, Equatable {
    /// The frame's opcode (RFC 6455 §5.2, §11.8).
    public enum Opcode: UInt8, Sendable {
        case continuation = 0x0, text = 0x1, binary = 0x2, close = 0x8, ping = 0x9, pong = 0xA
        /// Close, ping and pong (§5.5): at most 125 bytes, never fragmented.
        public var isControl: Bool { rawValue & 0x8 != 0 }
    }

    public var fin: Bool
    public var opcode: Opcode
    public var payload: [UInt8]
    /// Whether it arrived masked (every client frame must be, §5.1).
    public var masked: Bool

    public init(fin: Bool = true, opcode: Opcode, payload: [UInt8], masked: Bool = false) {
        self.fin = fin; self.opcode = opcode; self.payload = payload; self.masked = masked
    }

    /// The frame's bytes: a server's frames are not masked (§5.1); a client's carry `mask`
    /// (4 bytes) and their payload XORed with it (§5.3).
    public func encoded(mask: [UInt8]? = nil) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + 14)
        out.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        let n = payload.count
        if n < 126 {
            out.append(maskBit | UInt8(n))
        } else if n <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(n >> 8)); out.append(UInt8(n & 0xFF))
        } else {
            out.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((UInt64(n) >> UInt64(shift)) & 0xFF)) }
        }
        if let mask {
            out.append(contentsOf: mask)
            for (i, b) in payload.enumerated() { out.append(b ^ mask[i & 3]) }
        } else {
            out.append(contentsOf: payload)
        }
        return out
    }

    /// A close frame's payload (§5.5.1): the 2-byte status code then the UTF-8 reason.
    public static func closePayload(code: UInt16, reason: String = "") -> [UInt8] {
        [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8.prefix(123))
    }
}

/// Why a peer's bytes broke RFC 6455, with the close code the server answers with (§7.4.1).
public struct WebSocketProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1002 protocol error, 1007 invalid payload data, 1009 message too big.
    public var closeCode: UInt16
    public var message: String
    public init(_ closeCode: UInt16, _ message: String) { self.closeCode = closeCode; self.message = message }
    public var description: String { "\(closeCode): \(message)" }
}

/// Reads frames from a byte stream, as a server: incremental (bytes in any pieces), every
/// frame must be masked (§5.1), RSV bits must be 0 (no extension is negotiated, §5.2),
/// control frames are short and unfragmented (§5.5), a frame over `maxPayload` is refused
/// (1009) before its payload is buffered.
public struct WebSocketFrameDecoder: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0
    public let maxPayload: Int
    /// Whether frames must be masked (a server reading a client: true).
    public let requireMask: Bool

    public init(maxPayload: Int = 1 << 20, requireMask: Bool = true) {
        self.maxPayload = maxPayload; self.requireMask = requireMask
    }

    public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if start > 0 && start == buffer.count { buffer.removeAll(keepingCapacity: true); start = 0 }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, nil when more bytes are needed.
    public mutating func next() throws(WebSocketProtocolError) -> WebSocketFrame? {
        let available = buffer.count - start
        guard available >= 2 else { return nil }
        let b0 = buffer[start], b1 = buffer[start + 1]
        guard b0 & 0x70 == 0 else { throw WebSocketProtocolError(1002, "RSV bits set without a negotiated extension") }
        guard let opcode = WebSocketFrame.Opcode(rawValue: b0 & 0x0F) else {
            throw WebSocketProtocolError(1002, "reserved opcode 0x\(String(b0 & 0x0F, radix: 16))")
        }
        let fin = b0 & 0x80 != 0
        let masked = b1 & 0x80 != 0
        if requireMask && !masked { throw WebSocketProtocolError(1002, "an unmasked client frame") }
        var length = UInt64(b1 & 0x7F)
        var offset = 2
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[start + 2]) << 8 | UInt64(buffer[start + 3])
            offset = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for i in 0..<8 { length = length << 8 | UInt64(buffer[start + 2 + i]) }
            guard length >> 63 == 0 else { throw WebSocketProtocolError(1002, "64-bit length with its most significant bit set") }
            offset = 10
        }
        if opcode.isControl {
            guard fin else { throw WebSocketProtocolError(1002, "a fragmented control frame") }
            guard length <= 125 else { throw WebSocketProtocolError(1002, "a control frame over 125 bytes") }
        }
        guard length <= UInt64(maxPayload) else { throw WebSocketProtocolError(1009, "a frame of \(length) bytes (limit \(maxPayload))") }
        let maskOffset = offset
        if masked { offset += 4 }
        let total = offset + Int(length)
        guard available >= total else { return nil }
        var payload = Array(buffer[(start + offset)..<(start + total)])
        if masked {
            let m = (buffer[start + maskOffset], buffer[start + maskOffset + 1], buffer[start + maskOffset + 2], buffer[start + maskOffset + 3])
            for i in payload.indices {
                switch i & 3 { case 0: payload[i] ^= m.0; case 1: payload[i] ^= m.1; case 2: payload[i] ^= m.2; default: payload[i] ^= m.3 }
            }
        }
        start += total
        if start > 65_536 { buffer.removeFirst(start); start = 0 }
        return WebSocketFrame(fin: fin, opcode: opcode, payload: payload, masked: masked)
    }
}

/// Joins data frames into messages (§5.4): a text or binary frame starts one, continuation
/// frames extend it, FIN ends it; text must be UTF-8 (§8.1, 1007).
public struct WebSocketMessageAssembler: Sendable {
    /// A complete data message.
    public enum Message: Sendable, Equatable { case text(String), binary([UInt8]) }

    private var current: (opcode: WebSocketFrame.Opcode, bytes: [UInt8])?
    public let maxMessage: Int

    public init(maxMessage: Int = 1 << 20) { self.maxMessage = maxMessage }

    /// Takes a data frame; returns the message it completes, if any.
    public mutating func take(_ frame: WebSocketFrame) throws(WebSocketProtocolError) -> Message? {
        switch frame.opcode {
        case .text, .binary:
            guard current == nil else { throw WebSocketProtocolError(1002, "a new message before the fragmented one ended") }
            current = (frame.opcode, frame.payload)
        case .continuation:
            guard current != nil else { throw WebSocketProtocolError(1002, "a continuation frame with no message to continue") }
            current!.bytes += frame.payload
        default:
            return nil
        }
        guard let c = current else { return nil }
        if c.bytes.count > maxMessage { throw WebSocketProtocolError(1009, "a message over \(maxMessage) bytes") }
        guard frame.fin else { return nil }
        current = nil
        if c.opcode == .binary { return .binary(c.bytes) }
        guard let text = String(validating: c.bytes, as: UTF8.self) else { throw WebSocketProtocolError(1007, "a text message that is not UTF-8") }
        return .text(text)
    }
}
