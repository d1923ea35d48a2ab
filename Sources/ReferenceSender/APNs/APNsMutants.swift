/// The APNs sender's planted bugs (``Mutant``), listed by ``APNsSenderProvider/mutants``.
extension Mutant {
    static let giveUpUnprocessed = Mutant("give-up-unprocessed",
        "reports failed for a push whose stream was refused (REFUSED_STREAM) or cut by GOAWAY unprocessed, instead of resending it",
        fails: ["transient-retried"])
    static let pushTypeDropped = Mutant("push-type-dropped",
        "ignores the notification's pushType: voip, location and complication pushes go out as alerts to the bare bundle id",
        fails: ["apns.header.topic-suffix"])
    static let jwtPerRequest = Mutant("jwt-per-request",
        "mints a fresh provider JWT (newly signed, current iat) for every request",
        fails: ["apns.jwt-reuse"])
    static let connectionPerPush = Mutant("connection-per-push",
        "opens a new HTTP/2 connection for every push",
        fails: ["connection-reuse"])
    // SHOULD only: the 413 is reported rejected, nothing is lost; the suite passes it with a warning.
    static let oversizedPayloads = Mutant("oversized-payloads",
        "sends payloads over 4096 bytes (5120 for voip) instead of rejecting them locally",
        fails: ["apns.payload-limits"])
    static let wrongTopicSuffix = Mutant("wrong-topic-suffix",
        "uses the bare bundle id as apns-topic for every push type",
        fails: ["apns.header.topic-suffix"])
    static let backgroundPriority10 = Mutant("background-priority-10",
        "sends background pushes with apns-priority 10",
        fails: ["apns.header.background"])
    static let resendAllAfterGoaway = Mutant("resend-all-after-goaway",
        "after a GOAWAY resends every request of the connection, processed ones too",
        fails: ["apns.goaway-unprocessed", "no-duplicate-delivery"])
    static let failPendingAtGoaway = Mutant("fail-pending-at-goaway",
        "fails every stream still pending when a GOAWAY arrives, those at or below last-stream-id too, and resends them although the server answers them",
        fails: ["apns.goaway-unprocessed", "no-duplicate-delivery"])
    static let certificateErrorKillsToken = Mutant("certificate-error-kills-token",
        "treats BadCertificateEnvironment (a certificate for the other environment) as a dead device token (outcome, no dead marking for credential errors)",
        fails: ["outcome"])
    static let remintOnTokenUpdateError = Mutant("remint-on-token-update-error",
        "treats 429 TooManyProviderTokenUpdates like ExpiredProviderToken: mints a new JWT and retries at once",
        fails: ["apns.token-updates-keep-jwt"])
    // Live Activity broadcasts (APNsBroadcaster).
    static let broadcastDevicePath = Mutant("broadcast-device-path",
        "sends a Live Activity broadcast to /3/device/<channel id> instead of /4/broadcasts/apps/<bundle id>",
        fails: ["apns.broadcast.path"])
    static let broadcastNoChannelId = Mutant("broadcast-no-channel-id",
        "sends broadcasts without apns-channel-id",
        fails: ["apns.broadcast.headers"])
    static let broadcastAlertPushType = Mutant("broadcast-alert-push-type",
        "sends broadcasts with apns-push-type alert",
        fails: ["apns.broadcast.headers"])
    static let broadcastStoredExpiration = Mutant("broadcast-stored-expiration",
        "sends a nonzero apns-expiration on a No Message Stored channel",
        fails: ["apns.broadcast.headers"])
    static let broadcastNoRetry = Mutant("broadcast-no-retry",
        "gives up on a broadcast or channel request answered 429/5xx at once instead of retrying it",
        fails: ["apns.broadcast.retried"])
    static let channelPerBroadcast = Mutant("channel-per-broadcast",
        "creates a new channel for every broadcast instead of reusing the event's channel",
        fails: ["apns.broadcast.channel"])
}

extension APNsSenderProvider {
    static var mutants: [Mutant] { [.giveUpUnprocessed, .pushTypeDropped, .jwtPerRequest, .connectionPerPush, .oversizedPayloads, .wrongTopicSuffix, .backgroundPriority10, .resendAllAfterGoaway, .failPendingAtGoaway, .certificateErrorKillsToken, .remintOnTokenUpdateError, .broadcastDevicePath, .broadcastNoChannelId, .broadcastAlertPushType, .broadcastStoredExpiration, .channelPerBroadcast, .broadcastNoRetry] }
}
