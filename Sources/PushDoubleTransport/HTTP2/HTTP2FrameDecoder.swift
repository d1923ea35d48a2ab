/// Incremental HTTP/2 frame decoder (RFC 9113 §4, §6): bytes in, frames out.
///
/// A plain value with no protocol state beyond the bytes it holds. It enforces every
/// rule that can be checked on one frame alone: the client preface (when asked), the
/// maximum frame size, padding validity, the fixed payload sizes, the stream-0 rules and
/// SETTINGS value ranges. Rules that need connection or stream state (CONTINUATION
/// sequencing, stream states, flow control) belong to the connection.
///
/// Usage: `append` what the socket delivered, then call `nextFrame()` until it returns
/// nil (needs more bytes). A thrown connection error is sticky: every later call throws
/// it again. A thrown stream error skips only the offending frame.
///
/// Memory: the buffer holds at most the unread bytes the caller appended; a caller that
/// drains frames after each append keeps it below one frame (9 + maxFrameSize bytes).
public struct HTTP2FrameDecoder: Sendable {
    /// Largest payload accepted (our SETTINGS_MAX_FRAME_SIZE).
    public var maxFrameSize: Int
    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// How many bytes of the client preface are still expected.
    private var prefaceRemaining: Int
    private var failure: HTTP2FrameError?

    /// - Parameters:
    ///   - maxFrameSize: our advertised SETTINGS_MAX_FRAME_SIZE.
    ///   - expectClientPreface: server side: check the 24-byte preface before frames.
    public init(maxFrameSize: Int = HTTP2Limits.defaultMaxFrameSize, expectClientPreface: Bool = false) {
        self.maxFrameSize = maxFrameSize
        self.prefaceRemaining = expectClientPreface ? http2ClientPreface.count : 0
        buffer.reserveCapacity(16 * 1024)
    }

    /// Bytes appended and not yet consumed as frames.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Whether a whole frame (or an error) is buffered, i.e. `nextFrame` would not return nil.
    public var hasCompleteFrame: Bool {
        if failure != nil { return true }
        let avail = buffer.count - readIndex
        if prefaceRemaining > 0 { return avail > 0 }
        guard avail >= HTTP2Limits.frameHeaderLength else { return false }
        let length = Int(buffer[readIndex]) << 16 | Int(buffer[readIndex + 1]) << 8 | Int(buffer[readIndex + 2])
        return length > maxFrameSize || avail >= HTTP2Limits.frameHeaderLength + length
    }

    /// Whether the client preface has been fully received (always true when not expected).
    public var prefaceReceived: Bool { prefaceRemaining == 0 }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes.bindMemory(to: UInt8.self))
    }

    public mutating func append<C: Collection>(contentsOf bytes: C) where C.Element == UInt8 {
        compact()
        buffer.append(contentsOf: bytes)
    }

    private mutating func compact() {
        if readIndex == 0 { return }
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        } else if readIndex >= 4096 && readIndex * 2 >= buffer.count {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
    }

    /// The next complete frame, nil if more bytes are needed.
    public mutating func nextFrame() throws(HTTP2FrameError) -> HTTP2Frame? {
        if let failure { throw failure }
        do {
            return try decodeOne()
        } catch {
            if error.isConnectionError { failure = error }
            throw error
        }
    }

    private mutating func decodeOne() throws(HTTP2FrameError) -> HTTP2Frame? {
        if prefaceRemaining > 0 {
            let offset = http2ClientPreface.count - prefaceRemaining
            let available = min(prefaceRemaining, buffer.count - readIndex)
            for i in 0..<available where buffer[readIndex + i] != http2ClientPreface[offset + i] {
                // RFC 9113 §3.4: a preface that is not valid "MUST be treated as a connection
                // error of type PROTOCOL_ERROR".
                throw .connection(.protocolError, "invalid connection preface")
            }
            readIndex += available
            prefaceRemaining -= available
            if prefaceRemaining > 0 { return nil }
        }
        let avail = buffer.count - readIndex
        if avail < HTTP2Limits.frameHeaderLength { return nil }
        let r = readIndex
        let length = Int(buffer[r]) << 16 | Int(buffer[r + 1]) << 8 | Int(buffer[r + 2])
        let typeRaw = buffer[r + 3]
        let flags = HTTP2FrameFlags(rawValue: buffer[r + 4])
        // "The semantics of this bit [R] are undefined ... MUST be ignored when receiving."
        let streamID = (UInt32(buffer[r + 5]) << 24 | UInt32(buffer[r + 6]) << 16 | UInt32(buffer[r + 7]) << 8 | UInt32(buffer[r + 8])) & 0x7fff_ffff
        if length > maxFrameSize {
            // §4.2: "An endpoint MUST send an error code of FRAME_SIZE_ERROR if a frame exceeds
            // the size defined in SETTINGS_MAX_FRAME_SIZE". Treated as a connection error for
            // every type: we will not buffer it to find out.
            throw .connection(.frameSizeError, "\(HTTP2FrameType(typeRaw)) frame of \(length) bytes exceeds SETTINGS_MAX_FRAME_SIZE \(maxFrameSize)")
        }
        if avail < HTTP2Limits.frameHeaderLength + length { return nil }
        let start = r + HTTP2Limits.frameHeaderLength
        let end = start + length
        // Consume the frame before parsing so a stream error skips exactly this frame.
        readIndex = end
        let type = HTTP2FrameType(typeRaw)
        let payload: HTTP2Frame.Payload
        switch type {
        case .data:
            // §6.1: "If a DATA frame is received whose Stream Identifier field is 0x00, the
            // recipient MUST respond with a connection error of type PROTOCOL_ERROR."
            if streamID == 0 { throw .connection(.protocolError, "DATA frame on stream 0") }
            let (s, e, pad) = try unpad(flags: flags, start: start, end: end, type: type)
            payload = .data(Array(buffer[s..<e]), padding: pad)
        case .headers:
            // §6.2: stream 0 → connection error PROTOCOL_ERROR.
            if streamID == 0 { throw .connection(.protocolError, "HEADERS frame on stream 0") }
            var (s, e, pad) = try unpad(flags: flags, start: start, end: end, type: type)
            var priority: HTTP2PriorityData?
            if flags.contains(.priority) {
                if e - s < 5 {
                    if pad != nil { throw .connection(.protocolError, "HEADERS padding leaves no room for the priority fields") }
                    throw .connection(.frameSizeError, "HEADERS with PRIORITY flag too short for priority fields")
                }
                priority = readPriority(at: s)
                s += 5
            }
            payload = .headers(HTTP2HeadersPayload(fragment: Array(buffer[s..<e]), priority: priority, padding: pad))
        case .priority:
            // §6.3: stream 0 → connection PROTOCOL_ERROR; length other than 5 → stream
            // error FRAME_SIZE_ERROR.
            if streamID == 0 { throw .connection(.protocolError, "PRIORITY frame on stream 0") }
            if length != 5 { throw .stream(streamID, .frameSizeError, "PRIORITY frame length \(length), must be 5") }
            let p = readPriority(at: start)
            // §5.3.1: "A stream cannot depend on itself ... stream error of type PROTOCOL_ERROR."
            if p.dependency == streamID { throw .stream(streamID, .protocolError, "stream \(streamID) depends on itself") }
            payload = .priority(p)
        case .rstStream:
            // §6.4: stream 0 → connection PROTOCOL_ERROR; length other than 4 → connection
            // FRAME_SIZE_ERROR.
            if streamID == 0 { throw .connection(.protocolError, "RST_STREAM frame on stream 0") }
            if length != 4 { throw .connection(.frameSizeError, "RST_STREAM frame length \(length), must be 4") }
            payload = .rstStream(HTTP2ErrorCode(readUInt32(at: start)))
        case .settings:
            // §6.5: not stream 0 → connection PROTOCOL_ERROR; ACK with payload, or length not
            // a multiple of 6 → connection FRAME_SIZE_ERROR.
            if streamID != 0 { throw .connection(.protocolError, "SETTINGS frame on stream \(streamID)") }
            if flags.contains(.ack) {
                if length != 0 { throw .connection(.frameSizeError, "SETTINGS ACK with \(length)-byte payload") }
                payload = .settings([])
            } else {
                if length % 6 != 0 { throw .connection(.frameSizeError, "SETTINGS frame length \(length) is not a multiple of 6") }
                var list: [HTTP2Setting] = []
                list.reserveCapacity(length / 6)
                var i = start
                while i < end {
                    let s = HTTP2Setting(HTTP2SettingID(UInt16(buffer[i]) << 8 | UInt16(buffer[i + 1])), readUInt32(at: i + 2))
                    if let err = HTTP2SettingsValues.validate(s) { throw err }
                    list.append(s)
                    i += 6
                }
                payload = .settings(list)
            }
        case .pushPromise:
            if streamID == 0 { throw .connection(.protocolError, "PUSH_PROMISE frame on stream 0") }
            let (s, e, pad) = try unpad(flags: flags, start: start, end: end, type: type)
            if e - s < 4 { throw .connection(.frameSizeError, "PUSH_PROMISE too short for the promised stream id") }
            payload = .pushPromise(promisedStreamID: readUInt32(at: s) & 0x7fff_ffff, fragment: Array(buffer[(s + 4)..<e]), padding: pad)
        case .ping:
            // §6.7: length other than 8 → connection FRAME_SIZE_ERROR; not stream 0 →
            // connection PROTOCOL_ERROR.
            if streamID != 0 { throw .connection(.protocolError, "PING frame on stream \(streamID)") }
            if length != 8 { throw .connection(.frameSizeError, "PING frame length \(length), must be 8") }
            payload = .ping(UInt64(readUInt32(at: start)) << 32 | UInt64(readUInt32(at: start + 4)))
        case .goAway:
            // §6.8: not stream 0 → connection PROTOCOL_ERROR.
            if streamID != 0 { throw .connection(.protocolError, "GOAWAY frame on stream \(streamID)") }
            if length < 8 { throw .connection(.frameSizeError, "GOAWAY frame length \(length), must be at least 8") }
            payload = .goAway(lastStreamID: readUInt32(at: start) & 0x7fff_ffff,
                              errorCode: HTTP2ErrorCode(readUInt32(at: start + 4)),
                              debugData: Array(buffer[(start + 8)..<end]))
        case .windowUpdate:
            // §6.9: "A WINDOW_UPDATE frame with a length other than 4 octets MUST be treated as
            // a connection error of type FRAME_SIZE_ERROR."
            if length != 4 { throw .connection(.frameSizeError, "WINDOW_UPDATE frame length \(length), must be 4") }
            let inc = readUInt32(at: start) & 0x7fff_ffff
            if inc == 0 {
                // §6.9: "A receiver MUST treat the receipt of a WINDOW_UPDATE frame with a
                // flow-control window increment of 0 as a stream error of type PROTOCOL_ERROR;
                // errors on the connection flow-control window MUST be treated as a connection error."
                if streamID == 0 { throw .connection(.protocolError, "WINDOW_UPDATE with increment 0 on the connection") }
                throw .stream(streamID, .protocolError, "WINDOW_UPDATE with increment 0")
            }
            payload = .windowUpdate(increment: inc)
        case .continuation:
            if streamID == 0 { throw .connection(.protocolError, "CONTINUATION frame on stream 0") }
            payload = .continuation(Array(buffer[start..<end]))
        default:
            // §4.1: "Implementations MUST ignore and discard frames of unknown types."
            payload = .unknown(type: typeRaw, bytes: Array(buffer[start..<end]))
        }
        return HTTP2Frame(streamID: streamID, flags: flags, payload: payload)
    }

    /// Strips padding (§6.1): "If the length of the padding is the length of the frame
    /// payload or greater, the recipient MUST treat this as a connection error of type
    /// PROTOCOL_ERROR."
    private func unpad(flags: HTTP2FrameFlags, start: Int, end: Int, type: HTTP2FrameType) throws(HTTP2FrameError) -> (Int, Int, UInt8?) {
        guard flags.contains(.padded) else { return (start, end, nil) }
        if end - start < 1 { throw .connection(.frameSizeError, "padded \(type) frame without a Pad Length field") }
        let pad = buffer[start]
        if Int(pad) >= end - start {
            throw .connection(.protocolError, "\(type) padding length \(pad) not less than payload length \(end - start)")
        }
        return (start + 1, end - Int(pad), pad)
    }

    private func readUInt32(at i: Int) -> UInt32 {
        UInt32(buffer[i]) << 24 | UInt32(buffer[i + 1]) << 16 | UInt32(buffer[i + 2]) << 8 | UInt32(buffer[i + 3])
    }

    private func readPriority(at i: Int) -> HTTP2PriorityData {
        let raw = readUInt32(at: i)
        return HTTP2PriorityData(exclusive: raw & 0x8000_0000 != 0, dependency: raw & 0x7fff_ffff, weight: buffer[i + 4])
    }
}
