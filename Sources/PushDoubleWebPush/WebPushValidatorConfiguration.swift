/// The knobs of ``WebPushRequestValidator``. Defaults follow docs/webpush.md; where it says
/// UNCONFIRMED the default accepts. ``preset(for:)`` adds what one service is recorded doing.
public struct WebPushValidatorConfiguration: Sendable, Equatable {
    /// Largest body accepted; larger → ``WebPushRule/payloadTooLarge``. RFC 8030 §7.2: MUST
    /// accept 4096 octets or less (docs/webpush.md §1.2), so 4096 is the default.
    public var maxBodyBytes = 4096
    /// Require VAPID on every subscription, not only restricted ones (docs/webpush.md §5 requires
    /// it only for subscriptions made with an `applicationServerKey`).
    public var requireVAPID = false
    /// Schemes of the legacy `<scheme> <JWT>` + `Crypto-Key: p256ecdsa=` form, lowercase.
    /// docs/webpush.md §5 records `WebPush`; §6.2 says autopush also accepts `bearer`.
    public var legacyAuthSchemes: Set<String> = ["webpush", "bearer"]
    /// Largest `exp` − now in seconds (docs/webpush.md §5: 24 hours).
    public var maxExpirySeconds: Int64 = 86_400
    /// Refuse a `sub` that is neither `mailto:` nor `https:` (docs/webpush.md §5 SHOULD; Apple
    /// documents refusing it, §6.3 [A]).
    public var requireSubjectScheme = true
    /// Refuse `mailto: addr` with a space (docs/webpush.md §6.3: **UNCONFIRMED**, so off).
    public var rejectMailtoSpace = false
    /// Refuse a `sub` whose domain is `localhost` (docs/webpush.md §6.3: Apple, seen in practice [O]).
    public var rejectLocalhostSubject = false
    /// Refuse a `sub` containing `<` or `>` (docs/webpush.md §6.3: reported for Apple).
    public var rejectAngleBracketsInSubject = false
    /// Refuse `aes128gcm` requests that carry `salt` / `dh` in headers (docs/webpush.md §4,
    /// autopush validation).
    public var rejectLegacyParametersWithAES128GCM = true
    /// Refuse a VAPID key equal to the message's ECDH key (docs/webpush.md §1.2, RFC 8292 §3.2).
    public var rejectVAPIDKeyEqualToECDHKey = true

    public init() {}

    /// The defaults plus what docs/webpush.md §6 records of `service`: autopush's raw-body limit
    /// of 5630 bytes (§6.2), WNS's 5000 (§6.4), Apple's stricter `sub` checks (§6.3, without
    /// the UNCONFIRMED space rule). FCM keeps the RFC defaults.
    public static func preset(for service: WebPushService) -> WebPushValidatorConfiguration {
        var c = WebPushValidatorConfiguration()
        switch service {
        case .mozilla: c.maxBodyBytes = 5630
        case .wns: c.maxBodyBytes = 5000
        case .apple:
            c.rejectLocalhostSubject = true
            c.rejectAngleBracketsInSubject = true
        case .fcm: break
        }
        return c
    }
}
