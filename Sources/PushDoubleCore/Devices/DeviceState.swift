import Foundation

/// The state of a device as the provider sees it. Each fake answers each state exactly
/// as its provider does (APNs 410 `Unregistered`, FCM 404 `UNREGISTERED`, ...).
public enum DeviceState: Sendable, Equatable, Codable {
    /// Delivers normally.
    case active
    /// The app was uninstalled / the token unregistered at this time (APNs 410 + timestamp).
    case unregistered(since: Date)
    /// The token expired (APNs 410 `ExpiredToken`).
    case expired
    /// Malformed or revoked token (APNs `BadDeviceToken`, FCM `INVALID_ARGUMENT`).
    case invalid
    /// The token belongs to another app / project (APNs `DeviceTokenNotForTopic`,
    /// FCM `SENDER_ID_MISMATCH`).
    case otherApp
    /// Pushed to too fast (APNs 429 `TooManyRequests`).
    case rateLimited
}

/// What the core found for the token a request targets, handed to `deliver`.
/// Optional stored properties are spelled `Optional<T>` (no implicit nil, so `init` builds the
/// value in place instead of copying it out: docs/core.md "Optional properties …").
public struct DeviceLookup: Sendable, Equatable {
    /// How a lookup found the device.
    public enum Source: String, Sendable, Codable { case registered, magic, openWorld, unknown }
    /// The device id (registered devices) or the token itself.
    public var deviceID: Optional<String>
    public var state: DeviceState
    /// The environment the token belongs to (APNs: "production" / "sandbox"), if known.
    public var environment: Optional<String>
    /// The app/topic/project the token belongs to, if known.
    public var topic: Optional<String>
    /// How the state was found; `.unknown` = closed world and not registered.
    public var source: Source
    /// How many accepted deliveries this device had before this request.
    public var deliveries: Int
    public init(deviceID: String?, state: DeviceState, environment: String? = nil, topic: String? = nil, source: Source, deliveries: Int = 0) {
        self.deviceID = deviceID; self.state = state; self.environment = environment; self.topic = topic
        self.source = source; self.deliveries = deliveries
    }
}
