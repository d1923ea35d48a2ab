/// APNs wire facts the sender needs, in one place (copied from
/// docs/apns.md, whose Sources table names Apple's documents; section numbers refer to that page).
enum APNs {
    /// Request path prefix (apns.md §2).
    static let devicePathPrefix = "/3/device/"
    /// `apns-collapse-id` maximum, in UTF-8 bytes (apns.md §2).
    static let maxCollapseIdBytes = 64
    /// Regular payload limit in bytes (apns.md §4).
    static let maxPayloadBytes = 4096
    /// VoIP payload limit in bytes (apns.md §4).
    static let maxVoIPPayloadBytes = 5120
    /// Reuse one provider JWT this long: sideshow/apns2 refreshes every 3000 s (apns.md §5);
    /// Apple asks for a refresh no more often than every 20 min and no less often than 60.
    static let jwtRefreshSeconds: Int64 = 50 * 60
    /// APNs rejects a JWT older than this with `ExpiredProviderToken` (apns.md §5).
    static let jwtMaxAgeSeconds: Int64 = 60 * 60
    /// Minimum interval between token replacements (apns.md §5).
    static let jwtMinRefreshSeconds: Int64 = 20 * 60

    /// Header names (apns.md §2); HTTP/2 carries them lowercase.
    enum Header {
        static let authorization = "authorization"
        static let pushType = "apns-push-type"
        static let id = "apns-id"
        static let expiration = "apns-expiration"
        static let priority = "apns-priority"
        static let topic = "apns-topic"
        static let collapseId = "apns-collapse-id"
        static let contentType = "content-type"
        static let retryAfter = "retry-after"
        static let uniqueId = "apns-unique-id"
    }
}

/// An `apns-push-type` value and the rules that hang off it (apns.md §3, §4, §9).
// Deliberately independent of the fake's table (PushDoubleAPNs/APNsPushType.swift): a sender sharing it could not catch a bug in it.
enum APNsPushType: String, CaseIterable, Sendable {
    case alert, background, location, voip, complication, fileprovider, mdm, liveactivity, pushtotalk, widgets, controls

    /// The suffix appended to the bundle id to form `apns-topic` (apns.md §3).
    /// `mdm` uses the certificate's UID topic as given.
    var topicSuffix: String {
        switch self {
        case .alert, .background, .mdm: return ""
        case .location: return ".location-query"
        case .voip: return ".voip"
        case .complication: return ".complication"
        case .fileprovider: return ".pushkit.fileprovider"
        case .liveactivity: return ".push-type.liveactivity"
        case .pushtotalk: return ".voip-ptt"
        case .widgets: return ".push-type.widgets"
        case .controls: return ".push-type.controls"
        }
    }

    /// Widget and control pushes carry `"content-changed": true` in `aps` (apns.md §3).
    var signalsContentChanged: Bool { self == .widgets || self == .controls }

    /// The payload size limit in bytes (apns.md §4).
    var payloadLimit: Int { self == .voip ? APNs.maxVoIPPayloadBytes : APNs.maxPayloadBytes }

    /// The full topic for a bundle id. A topic that already carries the suffix is kept.
    func topic(forBundleID bundle: String) -> String {
        let suffix = topicSuffix
        if suffix.isEmpty || bundle.hasSuffix(suffix) { return bundle }
        return bundle + suffix
    }
}

/// APNs `reason` strings the sender reacts to (apns.md §7.2), with the class of action.
enum APNsReason {
    // 400
    static let badCollapseId = "BadCollapseId"
    static let badDeviceToken = "BadDeviceToken"
    static let badExpirationDate = "BadExpirationDate"
    static let deviceTokenNotForTopic = "DeviceTokenNotForTopic"
    static let idleTimeout = "IdleTimeout"
    static let invalidPushType = "InvalidPushType"
    static let missingDeviceToken = "MissingDeviceToken"
    static let missingTopic = "MissingTopic"
    static let payloadEmpty = "PayloadEmpty"
    // 403
    static let badCertificate = "BadCertificate"
    static let badCertificateEnvironment = "BadCertificateEnvironment"
    static let expiredProviderToken = "ExpiredProviderToken"
    static let forbidden = "Forbidden"
    static let invalidProviderToken = "InvalidProviderToken"
    static let missingProviderToken = "MissingProviderToken"
    static let unrelatedKeyIdInToken = "UnrelatedKeyIdInToken"
    /// Wire spelling; the documentation spells it `BadEnvironmentKeyIdInToken` (§7.2).
    static let badEnvironmentKeyInToken = "BadEnvironmentKeyInToken"
    static let badEnvironmentKeyIdInToken = "BadEnvironmentKeyIdInToken"
    // 410
    static let expiredToken = "ExpiredToken"
    static let unregistered = "Unregistered"
    // 413
    static let payloadTooLarge = "PayloadTooLarge"
    // 429
    static let tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
    static let tooManyRequests = "TooManyRequests"
    // 500, 503
    static let internalServerError = "InternalServerError"
    static let serviceUnavailable = "ServiceUnavailable"
    static let shutdown = "Shutdown"

    /// 403 reasons that mean the credentials are wrong: no blind retry (rules A2, A14, F3).
    static let credentialErrors: Set<String> = [
        badCertificate, badCertificateEnvironment, invalidProviderToken, missingProviderToken,
        badEnvironmentKeyInToken, badEnvironmentKeyIdInToken,
    ]
    /// Reasons that mean the device token is unusable: `dead`, never retried (apns.md §7.2).
    static let deadTokenReasons: Set<String> = [badDeviceToken, deviceTokenNotForTopic, expiredToken, unregistered]
}
