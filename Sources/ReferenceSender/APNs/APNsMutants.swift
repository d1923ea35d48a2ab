/// The APNs sender's planted bugs (``Mutant``), listed by ``APNsSenderProvider/mutants``.
extension Mutant {
    static let giveUpUnprocessed = Mutant("give-up-unprocessed",
        "reports failed for a push whose stream was refused (REFUSED_STREAM) or cut by GOAWAY unprocessed, instead of resending it (transient-retried)")
    static let pushTypeDropped = Mutant("push-type-dropped",
        "ignores the notification's pushType: voip, location and complication pushes go out as alerts to the bare bundle id (apns.header.topic-suffix)")
    static let jwtPerRequest = Mutant("jwt-per-request",
        "mints a fresh provider JWT (newly signed, current iat) for every request (apns.jwt-reuse)")
    static let connectionPerPush = Mutant("connection-per-push",
        "opens a new HTTP/2 connection for every push (connection-reuse)")
    static let oversizedPayloads = Mutant("oversized-payloads",
        "sends payloads over 4096 bytes (5120 for voip) instead of rejecting them locally (apns.payload-limits)")
    static let wrongTopicSuffix = Mutant("wrong-topic-suffix",
        "uses the bare bundle id as apns-topic for every push type (apns.header.topic-suffix)")
    static let backgroundPriority10 = Mutant("background-priority-10",
        "sends background pushes with apns-priority 10 (apns.header.background)")
    static let resendAllAfterGoaway = Mutant("resend-all-after-goaway",
        "after a GOAWAY resends every request of the connection, processed ones too (apns.goaway-unprocessed, no-duplicate-delivery)")
    static let failPendingAtGoaway = Mutant("fail-pending-at-goaway",
        "fails every stream still pending when a GOAWAY arrives, those at or below last-stream-id too, and resends them although the server answers them (apns.goaway-unprocessed, no-duplicate-delivery)")
    static let certificateErrorKillsToken = Mutant("certificate-error-kills-token",
        "treats BadCertificateEnvironment (a certificate for the other environment) as a dead device token (outcome, no dead marking for credential errors)")
    static let remintOnTokenUpdateError = Mutant("remint-on-token-update-error",
        "treats 429 TooManyProviderTokenUpdates like ExpiredProviderToken: mints a new JWT and retries at once (apns.token-updates-keep-jwt)")
}

extension APNsSenderProvider {
    static var mutants: [Mutant] { [.giveUpUnprocessed, .pushTypeDropped, .jwtPerRequest, .connectionPerPush, .oversizedPayloads, .wrongTopicSuffix, .backgroundPriority10, .resendAllAfterGoaway, .failPendingAtGoaway, .certificateErrorKillsToken, .remintOnTokenUpdateError, .broadcastDevicePath, .broadcastNoChannelId, .broadcastAlertPushType, .broadcastStoredExpiration, .channelPerBroadcast, .broadcastNoRetry] }
}
