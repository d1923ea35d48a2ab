/// Every APNs error `reason`: the raw value is the exact string sent on the wire.
///
/// One table, grouped by HTTP status, copied from docs/apns.md §7.2
/// (statuses from sideshow/apns2 `response.go`) plus the broadcast-channel-only reasons of
/// §7.4, whose statuses are UNCONFIRMED (see ``isConfirmed``).
public enum APNsReason: String, Sendable, CaseIterable, Hashable {
    // MARK: 400 Bad Request
    case badCollapseId = "BadCollapseId"
    case badDeviceToken = "BadDeviceToken"
    case badExpirationDate = "BadExpirationDate"
    case badMessageId = "BadMessageId"
    case badPriority = "BadPriority"
    case badTopic = "BadTopic"
    case deviceTokenNotForTopic = "DeviceTokenNotForTopic"
    case duplicateHeaders = "DuplicateHeaders"
    case idleTimeout = "IdleTimeout"
    case invalidPushType = "InvalidPushType"
    case missingDeviceToken = "MissingDeviceToken"
    case missingTopic = "MissingTopic"
    case payloadEmpty = "PayloadEmpty"
    case topicDisallowed = "TopicDisallowed"

    // MARK: 403 Forbidden
    case badCertificate = "BadCertificate"
    case badCertificateEnvironment = "BadCertificateEnvironment"
    case expiredProviderToken = "ExpiredProviderToken"
    case forbidden = "Forbidden"
    case invalidProviderToken = "InvalidProviderToken"
    case missingProviderToken = "MissingProviderToken"
    case unrelatedKeyIdInToken = "UnrelatedKeyIdInToken"
    /// Wire spelling (seen on live APNs); Apple's table spells it `BadEnvironmentKeyIdInToken`
    /// (``APNsReason/documentedEnvironmentKeySpelling``). Which one is sent is configurable.
    case badEnvironmentKeyInToken = "BadEnvironmentKeyInToken"

    // MARK: 404 Not Found
    case badPath = "BadPath"

    // MARK: 405 Method Not Allowed
    case methodNotAllowed = "MethodNotAllowed"

    // MARK: 410 Gone (the body carries a millisecond `timestamp`)
    case expiredToken = "ExpiredToken"
    case unregistered = "Unregistered"

    // MARK: 413 Payload Too Large
    case payloadTooLarge = "PayloadTooLarge"

    // MARK: 429 Too Many Requests
    case tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
    case tooManyRequests = "TooManyRequests"

    // MARK: 500 / 503
    case internalServerError = "InternalServerError"
    case serviceUnavailable = "ServiceUnavailable"
    case shutdown = "Shutdown"

    // MARK: Broadcast-channel only (docs/apns.md §7.4): statuses UNCONFIRMED, 400 assumed
    case featureNotEnabled = "FeatureNotEnabled"
    case missingChannelId = "MissingChannelId"
    case badChannelId = "BadChannelId"
    case channelNotRegistered = "ChannelNotRegistered"
    case badRequestParams = "BadRequestParams"
    case badRequestPayload = "BadRequestPayload"
    case missingPushType = "MissingPushType"
    case cannotCreateChannelConfig = "CannotCreateChannelConfig"
    case topicMismatch = "TopicMismatch"
    case missingChannelQueueSize = "MissingChannelQueueSize"

    /// Apple's documentation spelling of ``badEnvironmentKeyInToken``.
    public static let documentedEnvironmentKeySpelling = "BadEnvironmentKeyIdInToken"

    /// The HTTP status APNs answers this reason with.
    public var status: Int {
        switch self {
        case .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
             .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
             .missingTopic, .payloadEmpty, .topicDisallowed:
            return 400
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken,
             .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyInToken:
            return 403
        case .badPath: return 404
        case .methodNotAllowed: return 405
        case .expiredToken, .unregistered: return 410
        case .payloadTooLarge: return 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: return 429
        case .internalServerError: return 500
        case .serviceUnavailable, .shutdown: return 503
        case .featureNotEnabled, .missingChannelId, .badChannelId, .channelNotRegistered, .badRequestParams,
             .badRequestPayload, .missingPushType, .cannotCreateChannelConfig, .topicMismatch, .missingChannelQueueSize:
            return 400  // assumed (see ``isConfirmed``)
        }
    }

    /// False for the broadcast-channel-only reasons, whose statuses are UNCONFIRMED.
    public var isConfirmed: Bool {
        switch self {
        case .featureNotEnabled, .missingChannelId, .badChannelId, .channelNotRegistered, .badRequestParams,
             .badRequestPayload, .missingPushType, .cannotCreateChannelConfig, .topicMismatch, .missingChannelQueueSize:
            return false
        default: return true
        }
    }

    /// Whether Apple says never to retry a request that got this reason (docs/apns.md §7.2).
    public var isPermanent: Bool {
        switch self {
        case .badDeviceToken, .deviceTokenNotForTopic, .forbidden, .expiredToken, .unregistered, .payloadTooLarge: return true
        default: return false
        }
    }

    /// The reasons of Apple's main table (docs/apns.md §7.2), without the broadcast-only ones.
    public static var providerAPIReasons: [APNsReason] { allCases.filter(\.isConfirmed) }

    /// Looks a wire string up, accepting both spellings of the environment-key reason.
    public init?(wireString: String) {
        if wireString == APNsReason.documentedEnvironmentKeySpelling { self = .badEnvironmentKeyInToken; return }
        self.init(rawValue: wireString)
    }
}

/// Which spelling of the environment-key reason the fake sends (docs/apns.md §7.2).
public enum APNsEnvironmentKeySpelling: String, Sendable, Codable {
    /// `BadEnvironmentKeyInToken`, as seen on the wire (default).
    case wire
    /// `BadEnvironmentKeyIdInToken`, as in Apple's table.
    case documented

    /// The string sent for `reason` under this spelling.
    public func string(for reason: APNsReason) -> String {
        if reason == .badEnvironmentKeyInToken && self == .documented { return APNsReason.documentedEnvironmentKeySpelling }
        return reason.rawValue
    }
}
