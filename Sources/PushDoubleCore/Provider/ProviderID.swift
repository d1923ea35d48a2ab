/// Names one push provider. Raw values are the ids used in scenario files, the admin
/// API and the history ("apns", "fcm", "expo", "webpush").
public struct ProviderID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }

    public static let apns: ProviderID = "apns"
    public static let fcm: ProviderID = "fcm"
    public static let expo: ProviderID = "expo"
    public static let webpush: ProviderID = "webpush"

    public init(from decoder: Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: Encoder) throws { var c = encoder.singleValueContainer(); try c.encode(rawValue) }
}
