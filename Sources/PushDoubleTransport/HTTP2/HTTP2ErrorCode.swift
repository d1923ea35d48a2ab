import Foundation

/// An HTTP/2 error code (RFC 9113 §7) as a raw-value struct, so codes a peer sends that
/// we do not know survive a round trip.
public struct HTTP2ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible, Codable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ raw: UInt32) { self.rawValue = raw }

    public static let noError = HTTP2ErrorCode(0x0)
    public static let protocolError = HTTP2ErrorCode(0x1)
    public static let internalError = HTTP2ErrorCode(0x2)
    public static let flowControlError = HTTP2ErrorCode(0x3)
    public static let settingsTimeout = HTTP2ErrorCode(0x4)
    public static let streamClosed = HTTP2ErrorCode(0x5)
    public static let frameSizeError = HTTP2ErrorCode(0x6)
    public static let refusedStream = HTTP2ErrorCode(0x7)
    public static let cancel = HTTP2ErrorCode(0x8)
    public static let compressionError = HTTP2ErrorCode(0x9)
    public static let connectError = HTTP2ErrorCode(0xa)
    public static let enhanceYourCalm = HTTP2ErrorCode(0xb)
    public static let inadequateSecurity = HTTP2ErrorCode(0xc)
    public static let http11Required = HTTP2ErrorCode(0xd)

    static let names: [UInt32: String] = [
        0x0: "NO_ERROR", 0x1: "PROTOCOL_ERROR", 0x2: "INTERNAL_ERROR", 0x3: "FLOW_CONTROL_ERROR",
        0x4: "SETTINGS_TIMEOUT", 0x5: "STREAM_CLOSED", 0x6: "FRAME_SIZE_ERROR", 0x7: "REFUSED_STREAM",
        0x8: "CANCEL", 0x9: "COMPRESSION_ERROR", 0xa: "CONNECT_ERROR", 0xb: "ENHANCE_YOUR_CALM",
        0xc: "INADEQUATE_SECURITY", 0xd: "HTTP_1_1_REQUIRED",
    ]
    /// The RFC name (e.g. "REFUSED_STREAM"), or "0x…" for unknown codes.
    public var name: String { Self.names[rawValue] ?? "0x" + String(rawValue, radix: 16) }
    public var description: String { name }
    /// Parses an RFC name ("REFUSED_STREAM", case-insensitive), a decimal number, or the
    /// "0x…" form ``name`` gives unknown codes.
    public init?(name: String) {
        if let v = UInt32(name) { self.rawValue = v; return }
        if name.hasPrefix("0x"), let v = UInt32(name.dropFirst(2), radix: 16), name.dropFirst(2).allSatisfy(\.isHexDigit) {
            self.rawValue = v; return
        }
        guard let hit = Self.names.first(where: { $0.value.caseInsensitiveCompare(name) == .orderedSame }) else { return nil }
        self.rawValue = hit.key
    }
}
