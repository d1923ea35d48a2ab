/// SETTINGS parameters (RFC 9113 §6.5.2) and the values an endpoint tracks for its peer.

/// A SETTINGS parameter identifier, as a raw-value struct so unknown ids survive
/// (RFC 9113 §6.5.2: "An endpoint that receives a SETTINGS frame with any unknown or
/// unsupported identifier MUST ignore that setting").
public struct HTTP2SettingID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ raw: UInt16) { self.rawValue = raw }

    public static let headerTableSize = HTTP2SettingID(0x1)
    public static let enablePush = HTTP2SettingID(0x2)
    public static let maxConcurrentStreams = HTTP2SettingID(0x3)
    public static let initialWindowSize = HTTP2SettingID(0x4)
    public static let maxFrameSize = HTTP2SettingID(0x5)
    public static let maxHeaderListSize = HTTP2SettingID(0x6)
    /// RFC 8441.
    public static let enableConnectProtocol = HTTP2SettingID(0x8)
    /// RFC 9218.
    public static let noRFC7540Priorities = HTTP2SettingID(0x9)

    public var description: String {
        switch rawValue {
        case 1: "SETTINGS_HEADER_TABLE_SIZE"; case 2: "SETTINGS_ENABLE_PUSH"
        case 3: "SETTINGS_MAX_CONCURRENT_STREAMS"; case 4: "SETTINGS_INITIAL_WINDOW_SIZE"
        case 5: "SETTINGS_MAX_FRAME_SIZE"; case 6: "SETTINGS_MAX_HEADER_LIST_SIZE"
        case 8: "SETTINGS_ENABLE_CONNECT_PROTOCOL"; case 9: "SETTINGS_NO_RFC7540_PRIORITIES"
        default: "SETTINGS_0x" + String(rawValue, radix: 16)
        }
    }
}

/// One SETTINGS parameter: identifier and 32-bit value.
public struct HTTP2Setting: Hashable, Sendable, CustomStringConvertible {
    public var id: HTTP2SettingID
    public var value: UInt32
    public init(_ id: HTTP2SettingID, _ value: UInt32) { self.id = id; self.value = value }
    public var description: String { "\(id)=\(value)" }
}

/// RFC 9113 protocol limits used by the codec and the connection.
public enum HTTP2Limits {
    /// Initial flow-control window for streams and the connection (RFC 9113 §6.9.2).
    public static let defaultInitialWindowSize: Int = 65_535
    /// Largest flow-control window: 2^31-1 (RFC 9113 §6.9.1).
    public static let maxWindowSize: Int = 0x7fff_ffff
    /// SETTINGS_MAX_FRAME_SIZE initial value and lower bound: 2^14 (RFC 9113 §6.5.2).
    public static let defaultMaxFrameSize: Int = 16_384
    /// SETTINGS_MAX_FRAME_SIZE upper bound: 2^24-1 (RFC 9113 §6.5.2).
    public static let maxAllowedFrameSize: Int = 16_777_215
    /// SETTINGS_HEADER_TABLE_SIZE initial value (RFC 9113 §6.5.2).
    public static let defaultHeaderTableSize: Int = 4096
    /// Frame header length (RFC 9113 §4.1).
    public static let frameHeaderLength = 9
}

/// The SETTINGS values one endpoint has announced, starting from the RFC defaults.
public struct HTTP2SettingsValues: Hashable, Sendable {
    public var headerTableSize: Int = HTTP2Limits.defaultHeaderTableSize
    public var enablePush: Bool = true
    /// nil = unlimited (the RFC's initial value).
    public var maxConcurrentStreams: UInt32? = nil
    public var initialWindowSize: Int = HTTP2Limits.defaultInitialWindowSize
    public var maxFrameSize: Int = HTTP2Limits.defaultMaxFrameSize
    /// nil = unlimited (the RFC's initial value).
    public var maxHeaderListSize: Int? = nil
    public init() {}

    /// Applies settings in order (later values win, RFC 9113 §6.5.3). Values must have
    /// been validated by the decoder; unknown ids are ignored.
    public mutating func apply(_ settings: [HTTP2Setting]) {
        for s in settings {
            switch s.id {
            case .headerTableSize: headerTableSize = Int(s.value)
            case .enablePush: enablePush = s.value == 1
            case .maxConcurrentStreams: maxConcurrentStreams = s.value
            case .initialWindowSize: initialWindowSize = Int(s.value)
            case .maxFrameSize: maxFrameSize = Int(s.value)
            case .maxHeaderListSize: maxHeaderListSize = Int(s.value)
            default: break
            }
        }
    }

    /// Checks a SETTINGS value against RFC 9113 §6.5.2; returns the error to raise.
    public static func validate(_ s: HTTP2Setting) -> HTTP2FrameError? {
        switch s.id {
        case .enablePush where s.value > 1:
            // "Any value other than 0 or 1 MUST be treated as a connection error of type PROTOCOL_ERROR."
            return .connection(.protocolError, "SETTINGS_ENABLE_PUSH must be 0 or 1, got \(s.value)")
        case .initialWindowSize where Int(s.value) > HTTP2Limits.maxWindowSize:
            // "Values above the maximum flow-control window size of 2^31-1 MUST be treated
            // as a connection error of type FLOW_CONTROL_ERROR."
            return .connection(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE \(s.value) exceeds 2^31-1")
        case .maxFrameSize where Int(s.value) < HTTP2Limits.defaultMaxFrameSize || Int(s.value) > HTTP2Limits.maxAllowedFrameSize:
            // "Values outside this range MUST be treated as a connection error of type PROTOCOL_ERROR."
            return .connection(.protocolError, "SETTINGS_MAX_FRAME_SIZE \(s.value) outside 16384...16777215")
        case .enableConnectProtocol where s.value > 1:
            return .connection(.protocolError, "SETTINGS_ENABLE_CONNECT_PROTOCOL must be 0 or 1, got \(s.value)")
        default:
            return nil
        }
    }
}
