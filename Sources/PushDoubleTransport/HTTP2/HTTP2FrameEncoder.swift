/// HTTP/2 frame encoder (RFC 9113 §4, §6): appends frames to a caller-owned byte buffer.
///
/// A plain value. `maxFrameSize` is the peer's SETTINGS_MAX_FRAME_SIZE and is only used
/// by the splitting helpers (`appendHeaderBlock`, `appendData(… split:)`); `encode`
/// writes one frame exactly as given. Nothing here allocates besides growing `out`, so
/// callers that reuse one output buffer per event write frames without allocation.
public struct HTTP2FrameEncoder: Sendable {
    /// The peer's SETTINGS_MAX_FRAME_SIZE.
    public var maxFrameSize: Int

    public init(maxFrameSize: Int = HTTP2Limits.defaultMaxFrameSize) {
        self.maxFrameSize = maxFrameSize
    }

    // MARK: Primitives

    @inline(__always)
    public static func appendFrameHeader(length: Int, type: HTTP2FrameType, flags: HTTP2FrameFlags, streamID: UInt32, into out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: length >> 16))
        out.append(UInt8(truncatingIfNeeded: length >> 8))
        out.append(UInt8(truncatingIfNeeded: length))
        out.append(type.rawValue)
        out.append(flags.rawValue)
        appendUInt32(streamID & 0x7fff_ffff, into: &out)
    }

    /// Overwrites the 9 bytes at `index` with a frame header (for callers that reserve the
    /// header, write the payload in place, then fill in its length).
    @inline(__always)
    public static func writeFrameHeader(length: Int, type: HTTP2FrameType, flags: HTTP2FrameFlags, streamID: UInt32,
                                        into out: inout [UInt8], at index: Int) {
        out[index] = UInt8(truncatingIfNeeded: length >> 16)
        out[index + 1] = UInt8(truncatingIfNeeded: length >> 8)
        out[index + 2] = UInt8(truncatingIfNeeded: length)
        out[index + 3] = type.rawValue
        out[index + 4] = flags.rawValue
        let id = streamID & 0x7fff_ffff
        out[index + 5] = UInt8(truncatingIfNeeded: id >> 24)
        out[index + 6] = UInt8(truncatingIfNeeded: id >> 16)
        out[index + 7] = UInt8(truncatingIfNeeded: id >> 8)
        out[index + 8] = UInt8(truncatingIfNeeded: id)
    }

    @inline(__always)
    static func appendUInt32(_ v: UInt32, into out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: v >> 24))
        out.append(UInt8(truncatingIfNeeded: v >> 16))
        out.append(UInt8(truncatingIfNeeded: v >> 8))
        out.append(UInt8(truncatingIfNeeded: v))
    }

    private static func appendPadding(_ pad: UInt8, into out: inout [UInt8]) {
        if pad > 0 { out.append(contentsOf: repeatElement(0, count: Int(pad))) }
    }

    private static func appendPriority(_ p: HTTP2PriorityData, into out: inout [UInt8]) {
        appendUInt32((p.dependency & 0x7fff_ffff) | (p.exclusive ? 0x8000_0000 : 0), into: &out)
        out.append(p.weight)
    }

    // MARK: Whole frames

    /// Appends one frame as given (no splitting). PADDED and PRIORITY flags are set from
    /// the payload; other flags are written as given.
    public func encode(_ frame: HTTP2Frame, into out: inout [UInt8]) {
        var flags = frame.flags
        let length = frame.wireLength
        let type = frame.type
        switch frame.payload {
        case .data(let bytes, let pad):
            if pad != nil { flags.insert(.padded) } else { flags.remove(.padded) }
            Self.appendFrameHeader(length: length, type: type, flags: flags, streamID: frame.streamID, into: &out)
            if let pad { out.append(pad) }
            out.append(contentsOf: bytes)
            if let pad { Self.appendPadding(pad, into: &out) }
        case .headers(let h):
            if h.padding != nil { flags.insert(.padded) } else { flags.remove(.padded) }
            if h.priority != nil { flags.insert(.priority) } else { flags.remove(.priority) }
            Self.appendFrameHeader(length: length, type: type, flags: flags, streamID: frame.streamID, into: &out)
            if let pad = h.padding { out.append(pad) }
            if let p = h.priority { Self.appendPriority(p, into: &out) }
            out.append(contentsOf: h.fragment)
            if let pad = h.padding { Self.appendPadding(pad, into: &out) }
        case .priority(let p):
            Self.appendFrameHeader(length: length, type: type, flags: flags, streamID: frame.streamID, into: &out)
            Self.appendPriority(p, into: &out)
        case .rstStream(let code):
            Self.appendFrameHeader(length: length, type: type, flags: flags, streamID: frame.streamID, into: &out)
            Self.appendUInt32(code.rawValue, into: &out)
        case .settings(let list):
            Self.appendFrameHeader(length: length, type: type, flags: flags, streamID: frame.streamID, into: &out)
            for s in list {
                out.append(UInt8(truncatingIfNeeded: s.id.rawValue >> 8))
                out.append(UInt8(truncatingIfNeeded: s.id.rawValue))
                Self.appendUInt32(s.value, into: &out)
            }
        case .pushPromise(let promised, let fragment, let pad):
            if pad != nil { flags.insert(.padded) } else { flags.remove(.padded) }
            Self.appendFrameHeader(length: length, type: type, flags: flags, streamID: frame.streamID, into: &out)
            if let pad { out.append(pad) }
            Self.appendUInt32(promised & 0x7fff_ffff, into: &out)
            out.append(contentsOf: fragment)
            if let pad { Self.appendPadding(pad, into: &out) }
        case .ping(let opaque):
            Self.appendFrameHeader(length: length, type: type, flags: flags, streamID: frame.streamID, into: &out)
            Self.appendUInt32(UInt32(truncatingIfNeeded: opaque >> 32), into: &out)
            Self.appendUInt32(UInt32(truncatingIfNeeded: opaque), into: &out)
        case .goAway(let last, let code, let debug):
            Self.appendFrameHeader(length: length, type: type, flags: flags, streamID: frame.streamID, into: &out)
            Self.appendUInt32(last & 0x7fff_ffff, into: &out)
            Self.appendUInt32(code.rawValue, into: &out)
            out.append(contentsOf: debug)
        case .windowUpdate(let inc):
            Self.appendFrameHeader(length: length, type: type, flags: flags, streamID: frame.streamID, into: &out)
            Self.appendUInt32(inc & 0x7fff_ffff, into: &out)
        case .continuation(let fragment):
            Self.appendFrameHeader(length: length, type: type, flags: flags, streamID: frame.streamID, into: &out)
            out.append(contentsOf: fragment)
        case .unknown(_, let bytes):
            Self.appendFrameHeader(length: length, type: type, flags: flags, streamID: frame.streamID, into: &out)
            out.append(contentsOf: bytes)
        }
    }

    /// The frame as a fresh byte array.
    public func encode(_ frame: HTTP2Frame) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(HTTP2Limits.frameHeaderLength + frame.wireLength)
        encode(frame, into: &out)
        return out
    }

    // MARK: Fast paths used by the connections

    /// Appends a field block as one HEADERS frame followed by as many CONTINUATION frames
    /// as `maxFrameSize` requires; END_HEADERS goes on the last one, END_STREAM on HEADERS.
    public func appendHeaderBlock<C: Collection>(streamID: UInt32, block: C, endStream: Bool,
                                                 priority: HTTP2PriorityData? = nil,
                                                 into out: inout [UInt8]) where C.Element == UInt8, C.Index == Int {
        let prioLen = priority == nil ? 0 : 5
        let firstRoom = max(0, maxFrameSize - prioLen)
        var idx = block.startIndex
        let firstLen = min(block.count, firstRoom)
        var flags: HTTP2FrameFlags = endStream ? .endStream : []
        if priority != nil { flags.insert(.priority) }
        if firstLen == block.count { flags.insert(.endHeaders) }
        Self.appendFrameHeader(length: firstLen + prioLen, type: .headers, flags: flags, streamID: streamID, into: &out)
        if let priority { Self.appendPriority(priority, into: &out) }
        out.append(contentsOf: block[idx..<(idx + firstLen)])
        idx += firstLen
        while idx < block.endIndex {
            let n = min(maxFrameSize, block.endIndex - idx)
            let last = idx + n == block.endIndex
            Self.appendFrameHeader(length: n, type: .continuation, flags: last ? .endHeaders : [], streamID: streamID, into: &out)
            out.append(contentsOf: block[idx..<(idx + n)])
            idx += n
        }
    }

    /// Appends one DATA frame carrying `bytes` (which must fit the peer's max frame size).
    @inline(__always)
    public func appendData(streamID: UInt32, bytes: UnsafeRawBufferPointer, endStream: Bool, into out: inout [UInt8]) {
        Self.appendFrameHeader(length: bytes.count, type: .data, flags: endStream ? .endStream : [], streamID: streamID, into: &out)
        out.append(contentsOf: bytes)
    }

    /// Appends one DATA frame carrying `bytes[range]` (which must fit the peer's max frame size).
    @inline(__always)
    public func appendData(streamID: UInt32, bytes: [UInt8], range: Range<Int>, endStream: Bool, into out: inout [UInt8]) {
        Self.appendFrameHeader(length: range.count, type: .data, flags: endStream ? .endStream : [], streamID: streamID, into: &out)
        out.append(contentsOf: bytes[range])
    }

    /// Appends `bytes` as DATA frames of at most `maxFrameSize` bytes; END_STREAM on the last.
    public func appendDataSplit(streamID: UInt32, bytes: [UInt8], endStream: Bool, into out: inout [UInt8]) {
        var i = 0
        repeat {
            let n = min(maxFrameSize, bytes.count - i)
            let last = i + n == bytes.count
            appendData(streamID: streamID, bytes: bytes, range: i..<(i + n), endStream: endStream && last, into: &out)
            i += n
        } while i < bytes.count
    }

    public func appendSettings(_ settings: [HTTP2Setting], into out: inout [UInt8]) {
        encode(.settings(settings), into: &out)
    }
    public func appendSettingsAck(into out: inout [UInt8]) {
        Self.appendFrameHeader(length: 0, type: .settings, flags: .ack, streamID: 0, into: &out)
    }
    public func appendPing(_ opaque: UInt64, ack: Bool, into out: inout [UInt8]) {
        encode(.ping(opaque, ack: ack), into: &out)
    }
    public func appendRstStream(streamID: UInt32, code: HTTP2ErrorCode, into out: inout [UInt8]) {
        Self.appendFrameHeader(length: 4, type: .rstStream, flags: [], streamID: streamID, into: &out)
        Self.appendUInt32(code.rawValue, into: &out)
    }
    public func appendWindowUpdate(streamID: UInt32, increment: UInt32, into out: inout [UInt8]) {
        Self.appendFrameHeader(length: 4, type: .windowUpdate, flags: [], streamID: streamID, into: &out)
        Self.appendUInt32(increment & 0x7fff_ffff, into: &out)
    }
    public func appendGoAway(lastStreamID: UInt32, errorCode: HTTP2ErrorCode, debugData: [UInt8], into out: inout [UInt8]) {
        encode(.goAway(lastStreamID: lastStreamID, errorCode: errorCode, debugData: debugData), into: &out)
    }
}
