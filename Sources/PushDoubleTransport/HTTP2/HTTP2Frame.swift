/// HTTP/2 frames (RFC 9113 §4, §6) as plain values: what the decoder produces and the
/// encoder writes. No protocol state lives here.

/// The client connection preface (RFC 9113 §3.4): "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".
public let http2ClientPreface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

/// An HTTP/2 frame type code (RFC 9113 §6), as a raw-value struct so unknown types survive.
public struct HTTP2FrameType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ raw: UInt8) { self.rawValue = raw }

    public static let data = HTTP2FrameType(0x0)
    public static let headers = HTTP2FrameType(0x1)
    public static let priority = HTTP2FrameType(0x2)
    public static let rstStream = HTTP2FrameType(0x3)
    public static let settings = HTTP2FrameType(0x4)
    public static let pushPromise = HTTP2FrameType(0x5)
    public static let ping = HTTP2FrameType(0x6)
    public static let goAway = HTTP2FrameType(0x7)
    public static let windowUpdate = HTTP2FrameType(0x8)
    public static let continuation = HTTP2FrameType(0x9)

    public var description: String {
        switch rawValue {
        case 0: "DATA"; case 1: "HEADERS"; case 2: "PRIORITY"; case 3: "RST_STREAM"
        case 4: "SETTINGS"; case 5: "PUSH_PROMISE"; case 6: "PING"; case 7: "GOAWAY"
        case 8: "WINDOW_UPDATE"; case 9: "CONTINUATION"
        default: "UNKNOWN(0x" + String(rawValue, radix: 16) + ")"
        }
    }
}

/// The flags octet of a frame header (RFC 9113 §4.1). Meaning depends on the frame type.
public struct HTTP2FrameFlags: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// DATA, HEADERS.
    public static let endStream = HTTP2FrameFlags(rawValue: 0x1)
    /// SETTINGS, PING.
    public static let ack = HTTP2FrameFlags(rawValue: 0x1)
    /// HEADERS, PUSH_PROMISE, CONTINUATION.
    public static let endHeaders = HTTP2FrameFlags(rawValue: 0x4)
    /// DATA, HEADERS, PUSH_PROMISE.
    public static let padded = HTTP2FrameFlags(rawValue: 0x8)
    /// HEADERS.
    public static let priority = HTTP2FrameFlags(rawValue: 0x20)
}

/// The (deprecated, RFC 9113 §5.3.2) priority fields of HEADERS and PRIORITY frames.
public struct HTTP2PriorityData: Hashable, Sendable {
    public var exclusive: Bool
    public var dependency: UInt32
    /// The wire value (0...255); the weight is this plus one.
    public var weight: UInt8
    public init(exclusive: Bool = false, dependency: UInt32 = 0, weight: UInt8 = 15) {
        self.exclusive = exclusive; self.dependency = dependency; self.weight = weight
    }
}

/// The payload of a HEADERS frame: an HPACK field-block fragment plus optional priority.
public struct HTTP2HeadersPayload: Hashable, Sendable {
    public var fragment: [UInt8]
    public var priority: HTTP2PriorityData?
    /// The Pad Length field when the PADDED flag was set (padding itself is dropped).
    public var padding: UInt8?
    public init(fragment: [UInt8], priority: HTTP2PriorityData? = nil, padding: UInt8? = nil) {
        self.fragment = fragment; self.priority = priority; self.padding = padding
    }
}

/// One HTTP/2 frame: stream id, flags and a typed payload.
///
/// `flags` are as received (decoder) or as to be sent (encoder). The encoder derives
/// PADDED and PRIORITY from the payload, so those two bits need not be set by hand.
public struct HTTP2Frame: Hashable, Sendable {
    /// The typed content of a frame (RFC 9113 §6).
    public enum Payload: Hashable, Sendable {
        /// DATA: the bytes without padding; `padding` is the Pad Length field if PADDED.
        case data([UInt8], padding: UInt8?)
        case headers(HTTP2HeadersPayload)
        case priority(HTTP2PriorityData)
        case rstStream(HTTP2ErrorCode)
        /// SETTINGS; an ACK has an empty list and the ACK flag.
        case settings([HTTP2Setting])
        case pushPromise(promisedStreamID: UInt32, fragment: [UInt8], padding: UInt8?)
        /// PING: the 8 opaque bytes as a big-endian integer.
        case ping(UInt64)
        case goAway(lastStreamID: UInt32, errorCode: HTTP2ErrorCode, debugData: [UInt8])
        case windowUpdate(increment: UInt32)
        case continuation([UInt8])
        /// A frame type this implementation does not know (RFC 9113 §4.1: ignore it).
        case unknown(type: UInt8, bytes: [UInt8])
    }

    public var streamID: UInt32
    public var flags: HTTP2FrameFlags
    public var payload: Payload

    public init(streamID: UInt32, flags: HTTP2FrameFlags = [], payload: Payload) {
        self.streamID = streamID; self.flags = flags; self.payload = payload
    }

    public var type: HTTP2FrameType {
        switch payload {
        case .data: .data
        case .headers: .headers
        case .priority: .priority
        case .rstStream: .rstStream
        case .settings: .settings
        case .pushPromise: .pushPromise
        case .ping: .ping
        case .goAway: .goAway
        case .windowUpdate: .windowUpdate
        case .continuation: .continuation
        case .unknown(let t, _): HTTP2FrameType(t)
        }
    }

    public var endStream: Bool { flags.contains(.endStream) }
    public var endHeaders: Bool { flags.contains(.endHeaders) }
    public var isAck: Bool { flags.contains(.ack) }

    /// The payload length on the wire (what the frame header's Length field says).
    public var wireLength: Int {
        switch payload {
        case .data(let b, let p): return b.count + (p.map { Int($0) + 1 } ?? 0)
        case .headers(let h):
            return h.fragment.count + (h.priority == nil ? 0 : 5) + (h.padding.map { Int($0) + 1 } ?? 0)
        case .priority: return 5
        case .rstStream: return 4
        case .settings(let s): return s.count * 6
        case .pushPromise(_, let f, let p): return 4 + f.count + (p.map { Int($0) + 1 } ?? 0)
        case .ping: return 8
        case .goAway(_, _, let d): return 8 + d.count
        case .windowUpdate: return 4
        case .continuation(let f): return f.count
        case .unknown(_, let b): return b.count
        }
    }

    // MARK: Convenience constructors

    public static func data(streamID: UInt32, _ bytes: [UInt8], endStream: Bool = false, padding: UInt8? = nil) -> HTTP2Frame {
        HTTP2Frame(streamID: streamID, flags: endStream ? .endStream : [], payload: .data(bytes, padding: padding))
    }
    public static func headers(streamID: UInt32, fragment: [UInt8], endStream: Bool = false, endHeaders: Bool = true,
                               priority: HTTP2PriorityData? = nil, padding: UInt8? = nil) -> HTTP2Frame {
        var f: HTTP2FrameFlags = []
        if endStream { f.insert(.endStream) }
        if endHeaders { f.insert(.endHeaders) }
        return HTTP2Frame(streamID: streamID, flags: f,
                          payload: .headers(HTTP2HeadersPayload(fragment: fragment, priority: priority, padding: padding)))
    }
    public static func settings(_ settings: [HTTP2Setting]) -> HTTP2Frame {
        HTTP2Frame(streamID: 0, payload: .settings(settings))
    }
    public static let settingsAck = HTTP2Frame(streamID: 0, flags: .ack, payload: .settings([]))
    public static func ping(_ opaque: UInt64, ack: Bool = false) -> HTTP2Frame {
        HTTP2Frame(streamID: 0, flags: ack ? .ack : [], payload: .ping(opaque))
    }
    public static func goAway(lastStreamID: UInt32, errorCode: HTTP2ErrorCode, debugData: [UInt8] = []) -> HTTP2Frame {
        HTTP2Frame(streamID: 0, payload: .goAway(lastStreamID: lastStreamID, errorCode: errorCode, debugData: debugData))
    }
    public static func windowUpdate(streamID: UInt32, increment: UInt32) -> HTTP2Frame {
        HTTP2Frame(streamID: streamID, payload: .windowUpdate(increment: increment))
    }
    public static func rstStream(streamID: UInt32, _ code: HTTP2ErrorCode) -> HTTP2Frame {
        HTTP2Frame(streamID: streamID, payload: .rstStream(code))
    }
}

/// A frame the decoder refused, with the RFC's error code and its scope.
///
/// A connection error means GOAWAY and close (the decoder is unusable afterwards); a
/// stream error means RST_STREAM for that stream, and the decoder has already skipped
/// the frame so decoding can continue.
public struct HTTP2FrameError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Whether the error ends the connection (GOAWAY) or one stream (RST_STREAM).
    public enum Scope: Hashable, Sendable {
        case connection
        case stream(UInt32)
    }
    public var code: HTTP2ErrorCode
    public var scope: Scope
    /// What was wrong, with the values involved (suitable for GOAWAY debug data).
    public var reason: String
    public init(code: HTTP2ErrorCode, scope: Scope, reason: String) {
        self.code = code; self.scope = scope; self.reason = reason
    }
    public static func connection(_ code: HTTP2ErrorCode, _ reason: String) -> HTTP2FrameError {
        HTTP2FrameError(code: code, scope: .connection, reason: reason)
    }
    public static func stream(_ id: UInt32, _ code: HTTP2ErrorCode, _ reason: String) -> HTTP2FrameError {
        HTTP2FrameError(code: code, scope: .stream(id), reason: reason)
    }
    public var isConnectionError: Bool { scope == .connection }
    public var description: String {
        switch scope {
        case .connection: "connection error \(code): \(reason)"
        case .stream(let id): "stream \(id) error \(code): \(reason)"
        }
    }
}
