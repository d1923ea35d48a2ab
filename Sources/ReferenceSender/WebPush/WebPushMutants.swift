/// The WebPush sender's planted bugs (``Mutant``), listed by ``WebPushSenderProvider/mutants``.
extension Mutant {
    static let webpushTTLChanged = Mutant("webpush-ttl-changed",
        "sends TTL: 0 whatever ttlSeconds the notification asks for",
        fails: ["webpush.ttl"])
    static let webpushWrongAuthSecret = Mutant("webpush-wrong-auth-secret",
        "encrypts Web Push messages with the wrong auth secret: the service accepts, the browser cannot decrypt",
        fails: ["webpush.decryptable"])
    static let webpushWrongReceiverKey = Mutant("webpush-wrong-receiver-key",
        "encrypts Web Push messages to another public key than the subscription's p256dh: the service accepts, the browser (the fake's and a real Firefox) cannot decrypt",
        fails: ["webpush.decryptable", "webpush.browser-decrypted"])
    static let webpushAESGCM = Mutant("webpush-aesgcm",
        "encrypts Web Push messages with the legacy aesgcm draft instead of aes128gcm",
        fails: ["webpush.aes128gcm"])
    static let webpushAudienceWithPath = Mutant("webpush-audience-with-path",
        "signs VAPID aud with the endpoint's full URL, not its origin",
        fails: ["webpush.vapid"])
    static let webpushLongExpiry = Mutant("webpush-long-expiry",
        "signs VAPID exp 48 h ahead, beyond the 24 h limit",
        fails: ["webpush.vapid"])
    static let webpushNoTTL = Mutant("webpush-no-ttl",
        "sends Web Push requests without TTL",
        fails: ["webpush.ttl"])
    static let webpushUrgencyIgnored = Mutant("webpush-urgency-ignored",
        "sends every Web Push message with Urgency normal, whatever the priority",
        fails: ["webpush.urgency"])
    static let webpushRawTopic = Mutant("webpush-raw-topic",
        "uses the collapse key as Topic unchecked (over 32 characters, not base64url)",
        fails: ["webpush.topic"])
    static let webpushOversized = Mutant("webpush-oversized",
        "sends Web Push payloads too large for one record instead of rejecting them locally",
        fails: ["webpush.payload-limits"])
    static let webpushNoVAPID = Mutant("webpush-no-vapid",
        "sends Web Push requests without VAPID (restricted subscriptions refuse them)",
        fails: ["webpush.vapid"])
    static let webpushMissingSubject = Mutant("webpush-missing-subject",
        "signs VAPID JWTs without the sub claim",
        fails: ["webpush.vapid"])
    static let webpushDeclarativeRelativeNavigate = Mutant("webpush-declarative-relative-navigate",
        "sends a declarative Web Push message's navigate as the link's path, a relative URL the browser refuses",
        fails: ["webpush.declarative"])
}

extension WebPushSenderProvider {
    static var mutants: [Mutant] { [.webpushTTLChanged, .webpushWrongAuthSecret, .webpushWrongReceiverKey, .webpushAESGCM, .webpushAudienceWithPath, .webpushLongExpiry, .webpushNoTTL, .webpushUrgencyIgnored, .webpushRawTopic, .webpushOversized, .webpushNoVAPID, .webpushMissingSubject, .webpushDeclarativeRelativeNavigate] }
}
